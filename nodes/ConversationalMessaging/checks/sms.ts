import type { NodeExecutionHint } from 'n8n-workflow';

import { count, joinAnd, outputHint, plural } from '../words';
import type { Check } from './checks';
import { isBlank, itemCheck, itemError, readAt, setPath } from './checks';

/*
 * What an SMS costs: its encoding and segments, by GSM 03.38 (the alphabet) and 3GPP TS 23.040
 * (the segments). One character outside the GSM-7 alphabet sends the whole message as UCS-2.
 */

/** GSM 03.38's basic alphabet (one septet each; 0x1B, the escape, is not a character). */
export const BASIC =
	'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** Its extension table: an escape septet, then the character's (two septets each). */
export const EXTENSION = '\f^{}\\[~]|€';

/** Looked up once per character of every message: sets, not string scans. */
const GSM7 = new Set(BASIC);
const ESCAPED = new Set(EXTENSION);

/** One segment of each encoding, alone and as a part of a longer message (its header takes room). */
export const SIZES = { 'GSM-7': [160, 153], 'UCS-2': [70, 67] } as const;

export interface SmsReading {
	encoding: 'GSM-7' | 'UCS-2';
	segments: number;
	/** Code points (an emoji is one; a family emoji, people and joiners, is several). */
	characters: number;
	/** The characters that made it UCS-2, once each, in order. */
	unicode: string[];
	/** The text sent, when Replace Look-Alike Characters changed the text typed. */
	sentText?: string;
}

/** The encoding and the segments of a text, as a phone network splits it. */
export function readSms(text: string): SmsReading {
	const characters = [...text];
	const unicode = [...new Set(characters.filter((c) => !GSM7.has(c) && !ESCAPED.has(c)))];
	const encoding = unicode.length ? 'UCS-2' : 'GSM-7';
	// A character's units: septets (2 for the extension's), or UTF-16 units (2 for a surrogate pair).
	const units = characters.map((c) => (encoding === 'UCS-2' ? c.length : ESCAPED.has(c) ? 2 : 1));
	const [single, part] = SIZES[encoding];
	const total = units.reduce((sum, n) => sum + n, 0);
	let segments = 1;
	if (total > single) {
		// Parts never split an escape pair or a surrogate pair: one that does not fit starts the next.
		let used = 0;
		for (const n of units) {
			if (used + n > part) {
				segments++;
				used = 0;
			}
			used += n;
		}
	}
	return { encoding, segments, characters: characters.length, unicode };
}

/**
 * Look-alike characters pasted from documents and their GSM-7 forms, after the published Smart
 * Encoding tables of SMS vendors (https://www.twilio.com/docs/messaging/services/smart-encoding-char-list,
 * Sinch's Auto Encoding table): quotes and apostrophes, dashes and the bullet, the ellipsis and
 * slashes, spaces other than the plain one and line separators, and invisible ones (removed).
 */
const LOOK_ALIKES: Record<string, string> = Object.fromEntries([
	...[...'‘’‚‛′´`ʼ'].map((c) => [c, "'"]),
	...[...'“”„‟″«»'].map((c) => [c, '"']),
	...[...'‐‑‒–—―−•'].map((c) => [c, '-']),
	['…', '...'],
	...[...'⁄÷'].map((c) => [c, '/']),
	// No-break, en, em, thin and other spaces, and the tab; then the invisible ones, removed.
	...[
		...'\t\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000',
	].map((c) => [c, ' ']),
	...[...'\u2028\u2029'].map((c) => [c, '\n']),
	// Zero-width spaces and joiners, the word joiner, the byte order mark, the soft hyphen.
	...[...'\u200b\u200c\u200d\u2060\ufeff\u00ad'].map((c) => [c, '']),
]);

export const withoutLookAlikes = (text: string): string =>
	// NFC first: an accent typed as its own mark (as macOS pastes it) joins its letter (é is GSM-7).
	[...text.normalize('NFC')].map((c) => LOOK_ALIKES[c] ?? c).join('');

/** A character as the words show it: by its code, after it unless it is invisible (`’ (U+2019)`, `U+00A0`). */
export function shown(c: string): string {
	const code = `U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`;
	// Invisible: a space, one that Replace Look-Alike Characters removes, a combining accent.
	const invisible = /\s/.test(c) || LOOK_ALIKES[c] === '' || (c >= '\u0300' && c <= '\u036f');
	return invisible ? code : `${c} (${code})`;
}

/**
 * The SMS text's check: its look-alikes replaced when SMS Options says so, its segments held to
 * Max Segments per Message; its reading returned (for the item's output and the run's hint).
 */
export const smsText = (path: string, label: string): Check<{ sms: SmsReading }> =>
	itemCheck<{ sms: SmsReading }>((request, item) => {
		const value = readAt(request, path.split('.'));
		if (isBlank(value)) return;
		const options = item.getNodeParameter('smsOptions', {}) as {
			replaceLookAlikes?: boolean;
			maxSegments?: number;
		};
		const text = options.replaceLookAlikes ? withoutLookAlikes(String(value)) : String(value);
		const reading = readSms(text);
		const cap = Number(options.maxSegments ?? 0);
		if (cap > 0 && reading.segments > cap) {
			const replace =
				reading.unicode.some((c) => c in LOOK_ALIKES) && !options.replaceLookAlikes
					? ': turn on Replace Look-Alike Characters (SMS Options), or write it without them'
					: '';
			const blame = reading.unicode.length
				? ` ${reading.unicode.slice(0, 10).map(shown).join(', ')} made it UCS-2 (70 characters a segment, not 160)${replace}.`
				: '';
			throw itemError(
				item,
				`${label}: ${reading.segments} segments (${reading.encoding}, ${reading.characters} characters), more than Max Segments per Message (${cap})`,
				`Shorten the message, or raise Max Segments per Message (SMS Options).${blame}`,
			);
		}
		setPath(request, path.split('.'), text);
		return { sms: text === String(value) ? reading : { ...reading, sentText: text } };
	});

/** What an SMS cost, on its output item: the service's answer does not say. */
export const smsFacts = ({ encoding, segments, characters }: SmsReading) => ({
	encoding,
	segments,
	characters,
});

/**
 * What a run's SMS cost, as a hint above the output when a message took more than one segment or
 * UCS-2 (a warning then: a pasted `’` can double a bill); nothing when each was one GSM-7 segment.
 */
export class SegmentsSent {
	/** The SMS texts this run sent, as their checks read them. */
	constructor(private readonly readings: SmsReading[]) {}

	hint(): NodeExecutionHint | undefined {
		const messages = this.readings.length;
		const segments = this.readings.reduce((sum, reading) => sum + reading.segments, 0);
		const unicodeMessages = this.readings.filter(({ encoding }) => encoding === 'UCS-2').length;
		if (segments === messages && !unicodeMessages) return undefined;
		// The characters that made messages UCS-2, and in how many messages.
		const blamed = new Map<string, number>();
		for (const c of this.readings.flatMap(({ unicode }) => unicode))
			blamed.set(c, (blamed.get(c) ?? 0) + 1);
		const chars = [...blamed]
			.sort(([, a], [, b]) => b - a)
			.slice(0, 10)
			.map(([c]) => shown(c));
		const them = messages === 1 ? 'it' : `${count(unicodeMessages)} of them`;
		const unicode = unicodeMessages
			? `: ${joinAnd(chars)} made ${them} Unicode (UCS-2: 70 characters a segment instead of 160)`
			: '';
		const fix = [...blamed.keys()].some((c) => c in LOOK_ALIKES)
			? ' Replace Look-Alike Characters (SMS Options) sends the quotes, dashes and spaces pasted from documents in their GSM-7 forms.'
			: '';
		return outputHint(
			[`SMS: ${plural(messages, 'message')}, ${plural(segments, 'segment')}${unicode}.${fix}`],
			unicodeMessages > 0,
		);
	}
}
