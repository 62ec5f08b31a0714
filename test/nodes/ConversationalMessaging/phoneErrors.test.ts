/**
 * Every phone error's examples obey the error's own words and come from the builder's country:
 * each example number a fix gives is read again, with the same Default Country, and must be what
 * the words around it say (a number of the Default Country as dialled there, or one with + and its
 * country code, of the country named), never another error.
 */
import { COUNTRIES } from '../../../nodes/ConversationalMessaging/checks/phone/countries';
import { CODE_OF, nameOf } from '../../../nodes/ConversationalMessaging/checks/phone/countryList';
import { readPhone } from '../../../nodes/ConversationalMessaging/checks/phone/reading';

/** Typed values that reach every refusal readPhone has, with and without a Default Country. */
const TYPED = [
	'abc',
	'(201) 555-0123',
	'0300 123 4567',
	'555-01',
	'11111',
	'1234567890123456',
	'+44 (0)20 7946 0958',
	'+57 300 123 456',
	'+28 1234 5678',
	'300 123 4567',
	'999 1234567',
	'12345678901234',
	'0300',
	'447400123456',
	'4915123456789',
	'6281234567890',
	'(+57) 300 123',
	'(201) 555-0123 ext',
];

/** Every Default Country, and none. */
const HOMES: Array<string | undefined> = [undefined, ...Object.keys(COUNTRIES)];

interface Example {
	number: string;
	/** The words just before it, up to it. */
	before: string;
	/** "for Colombia": the country the words give it, if any. */
	country?: string;
}

/** The numbers a fix gives as examples: after "e.g." or "or", and in brackets, with their words. */
function examplesIn(fix: string): Example[] {
	const found: Example[] = [];
	const pattern =
		/(e\.g\. |or |\()(\+?\d[\d ]*\d)(?: for (?:the )?([A-Z][^.,;)]*?)(?= or |[.,;)]))?/g;
	// Not a calling code in a country's label, "(+57)", nor a count: a number has 6 digits or more.
	for (const match of fix.matchAll(pattern))
		if (match[2].replace(/\D/g, '').length >= 6)
			found.push({
				number: match[2],
				before: fix.slice(Math.max(0, match.index - 60), match.index + match[1].length),
				country: match[3],
			});
	return found;
}

const codeOfName = (name: string) =>
	Object.entries(CODE_OF).find(([region]) => nameOf(region) === name)?.[1];

describe('every phone error', () => {
	const errors: Array<{ typed: string; home?: string; problem: string; fix: string }> = [];
	for (const home of HOMES)
		for (const typed of TYPED) {
			const reading = readPhone(typed, home);
			if ('problem' in reading) errors.push({ typed, home, ...reading });
		}

	it('is reached, for every kind of refusal, with and without a Default Country', () => {
		const kinds = new Set(
			errors.map(({ problem }) => problem.replace(/^"[^"]*" /, '').replace(/[\d+]+/g, '#')),
		);
		expect(kinds.size).toBeGreaterThan(15);
		expect(errors.some(({ home }) => home === undefined)).toBe(true);
		expect(errors.filter(({ home }) => home !== undefined).length).toBeGreaterThan(1000);
	});

	it("gives examples that obey its own words and its Default Country's plan", () => {
		const wrong: string[] = [];
		let checked = 0;
		let named = 0;
		for (const { typed, home, fix } of errors) {
			for (const { number, before, country } of examplesIn(fix)) {
				checked++;
				const reading = readPhone(number, home);
				const at = `${JSON.stringify(typed)} with ${home ?? 'no Default Country'}: ${number}`;
				if ('problem' in reading) {
					wrong.push(`${at} is refused: ${reading.problem}`);
					continue;
				}
				if (number.startsWith('+')) {
					// "with + and its country code": of the country named, if one is.
					const code = country && codeOfName(country);
					if (country) named++;
					if (country && code !== reading.code)
						wrong.push(`${at} is not a number of ${country} (+${reading.code})`);
				} else if (/as dialled there \(e\.g\. $|, with its \d+ \($/.test(before)) {
					// A number as dialled in the Default Country: read so, as that country's.
					if (!home || !reading.atHome || reading.code !== CODE_OF[home])
						wrong.push(`${at} is not a number of ${home ?? '(none)'} as dialled there`);
				} else wrong.push(`${at}: an example without + that its words do not explain`);
			}
		}
		expect(checked).toBeGreaterThan(2000);
		expect(named).toBeGreaterThanOrEqual(20);
		expect(wrong).toEqual([]);
	});

	it("gives, with a Default Country, that country's own example numbers", () => {
		for (const home of ['CO', 'US', 'DE', 'GB', 'IN', 'BR']) {
			const { fix } = readPhone('555-01', home) as { fix: string };
			const [national, international] = examplesIn(fix).map(({ number }) => number);
			expect(fix).toContain(`Write a number of ${nameOf(home)} as dialled there`);
			expect(international).toBe(COUNTRIES[home][4]);
			expect(readPhone(national, home)).toMatchObject({ atHome: true, code: CODE_OF[home] });
		}
	});
});
