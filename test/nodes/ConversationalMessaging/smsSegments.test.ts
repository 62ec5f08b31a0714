/**
 * What an SMS costs, against messages worked out by hand from GSM 03.38 (the alphabet and its
 * extension table) and 3GPP TS 23.040 (160/153 septets, 70/67 UTF-16 units; a part never splits
 * an escape pair or a surrogate pair).
 */
import { readSms, withoutLookAlikes } from '../../../nodes/ConversationalMessaging/checks/sms';

const a = (n: number) => 'a'.repeat(n);
const x = (n: number) => 'x'.repeat(n);

/** [what, text, encoding, segments, characters]. */
const CASES: Array<[string, string, 'GSM-7' | 'UCS-2', number, number]> = [
	['a short text', 'Hello', 'GSM-7', 1, 5],
	['160 septets: one segment', a(160), 'GSM-7', 1, 160],
	['161 septets: two parts of at most 153', a(161), 'GSM-7', 2, 161],
	['306 septets: two full parts', a(306), 'GSM-7', 2, 306],
	['307 septets: a third part', a(307), 'GSM-7', 3, 307],
	['459 septets: three full parts', a(459), 'GSM-7', 3, 459],
	['460 septets: a fourth part', a(460), 'GSM-7', 4, 460],
	['80 euro signs: 160 septets, one segment', '€'.repeat(80), 'GSM-7', 1, 80],
	['81 euro signs: 162 septets, 76 in the first part', '€'.repeat(81), 'GSM-7', 2, 81],
	['158 letters and a euro sign: 160 septets', a(158) + '€', 'GSM-7', 1, 159],
	['159 letters and a euro sign: 161 septets', a(159) + '€', 'GSM-7', 2, 160],
	['152 letters and a euro sign: 154 septets, one segment', a(152) + '€', 'GSM-7', 1, 153],
	[
		'an escape pair at a part edge goes whole to the next part (152 + € + 152: 306 septets, three parts)',
		a(152) + '€' + a(152),
		'GSM-7',
		3,
		305,
	],
	['every extension character counts two septets', '{}[]~^|\\€\f', 'GSM-7', 1, 10],
	['extension characters past one segment', '[]'.repeat(41), 'GSM-7', 2, 82],
	['line breaks are GSM-7', 'Line 1\nLine 2\r\n', 'GSM-7', 1, 15],
	['GSM-7 symbols', '@£$¥¤§¿¡_!"#%&\'()*+,-./:;<=>?', 'GSM-7', 1, 29],
	['Greek capitals are GSM-7', 'ΔΦΓΛΩΠΨΣΘΞ', 'GSM-7', 1, 10],
	['Spanish ñ and é are GSM-7', 'Mañana, café', 'GSM-7', 1, 12],
	['German umlauts and ß are GSM-7', 'Straße über Köln, Ärger', 'GSM-7', 1, 23],
	['Scandinavian letters are GSM-7', 'Ærø, Ålesund, søster', 'GSM-7', 1, 20],
	['capital Ç is GSM-7', 'FRANÇAIS', 'GSM-7', 1, 8],
	['lower-case ç is not', 'français', 'UCS-2', 1, 8],
	['Spanish á, í, ó, ú are not', 'canción', 'UCS-2', 1, 7],
	['Portuguese ã is not', 'São Paulo', 'UCS-2', 1, 9],
	['Turkish ş, ğ and ı are not', 'Teşekkürler, ığdır', 'UCS-2', 1, 18],
	['Turkish İ is not', 'İstanbul', 'UCS-2', 1, 8],
	['Polish ł and ó are not', 'Łódź', 'UCS-2', 1, 4],
	['French ï is not', 'naïve', 'UCS-2', 1, 5],
	['Greek lower case is not', 'αβγ', 'UCS-2', 1, 3],
	['a curly apostrophe', 'It’s here', 'UCS-2', 1, 9],
	['a tab is not GSM-7', 'a\tb', 'UCS-2', 1, 3],
	['a backtick is not GSM-7', 'a`b', 'UCS-2', 1, 3],
	['70 UCS-2 units: one segment', 'á'.repeat(70), 'UCS-2', 1, 70],
	['71 UCS-2 units: two parts of at most 67', 'á'.repeat(71), 'UCS-2', 2, 71],
	['134 units: two full parts', 'á'.repeat(134), 'UCS-2', 2, 134],
	['135 units: a third part', 'á'.repeat(135), 'UCS-2', 3, 135],
	[
		'a 150-character text with one curly apostrophe: three segments, not one',
		'It’s ' + a(145),
		'UCS-2',
		3,
		150,
	],
	['35 emoji: 70 units, one segment', '😀'.repeat(35), 'UCS-2', 1, 35],
	['36 emoji: 72 units, 33 in the first part', '😀'.repeat(36), 'UCS-2', 2, 36],
	['66 letters and an emoji: 68 units, one segment', x(66) + '😀', 'UCS-2', 1, 67],
	[
		'a surrogate pair at a part edge goes whole to the next part (66 + emoji + 66: 134 units, three parts)',
		x(66) + '😀' + x(66),
		'UCS-2',
		3,
		133,
	],
	['an emoji counts as one character', 'Hi 👋', 'UCS-2', 1, 4],
	[
		'an escape pair that exactly fills a part (151 + € = 153 septets, then 10)',
		a(151) + '€' + a(10),
		'GSM-7',
		2,
		162,
	],
	[
		'an emoji that exactly fills a part (65 + emoji = 67 units, then 10)',
		x(65) + '😀' + x(10),
		'UCS-2',
		2,
		76,
	],
	[
		'a family emoji is five code points (three people, two joiners), eight units',
		'👨‍👩‍👧',
		'UCS-2',
		1,
		5,
	],
];

describe('the encoding and segments of an SMS', () => {
	it('covers at least 40 messages worked out by hand', () => {
		expect(CASES.length).toBeGreaterThanOrEqual(40);
	});

	it.each(CASES)('%s', (_what, text, encoding, segments, characters) => {
		expect(readSms(text)).toMatchObject({ encoding, segments, characters });
	});

	it('names the characters that made a message UCS-2, once each, in order', () => {
		expect(readSms('“Don’t” — it’s ready…').unicode).toEqual(['“', '’', '”', '—', '…']);
		expect(readSms('All GSM-7 here').unicode).toEqual([]);
	});
});

describe('look-alike characters replaced', () => {
	it('keeps a pasted text GSM-7: quotes, apostrophes, dashes, the ellipsis, special spaces', () => {
		const pasted = '“Don’t miss it” — our sale ends soon… 20\u00a0% off, ‘today’ only';
		const replaced = withoutLookAlikes(pasted);
		expect(replaced).toBe("\"Don't miss it\" - our sale ends soon... 20 % off, 'today' only");
		expect(readSms(pasted).encoding).toBe('UCS-2');
		expect(readSms(replaced)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
	});

	it('removes invisible characters and leaves letters of other alphabets as they are', () => {
		expect(withoutLookAlikes('a\u200bb\ufeffc\u00add')).toBe('abcd');
		expect(withoutLookAlikes('canción 😀')).toBe('canción 😀');
	});

	it('joins an accent typed as its own mark to its letter: é is GSM-7', () => {
		const decomposed = 'cafe\u0301';
		expect(readSms(decomposed).encoding).toBe('UCS-2');
		expect(readSms(withoutLookAlikes(decomposed))).toMatchObject({
			encoding: 'GSM-7',
			characters: 4,
		});
	});

	it('turns the 150-character text with one curly apostrophe back into one segment', () => {
		expect(readSms(withoutLookAlikes('It’s ' + a(145)))).toMatchObject({
			encoding: 'GSM-7',
			segments: 1,
		});
	});
});
