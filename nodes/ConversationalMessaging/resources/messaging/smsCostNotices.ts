import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { BASIC, EXTENSION, SIZES } from '../../checks/sms';
import { plural } from '../../words';

/*
 * What a typed SMS will cost, said under its text before anything is sent. n8n shows a notice by
 * its displayOptions, which may test a parameter's value with a regular expression (`_cnd.regex`,
 * n8n-workflow's checkConditions), but never prints a value into its words: so one notice per
 * encoding and count of segments, each shown for the texts it is true of, the encoding by whether
 * a character outside GSM-7 appears, the segments by the text's length. An expression's text is
 * known only per item (its output's smsCost says it). The notices cannot see Replace Look-Alike
 * Characters (SMS Options): n8n 1.x resolves no displayOptions on a collection's field
 * ("Max iterations reached"), so they say "as typed", and the output what was sent.
 */

/** Counts said one by one; more are "more than". */
const COUNTED = 4;

/** Inside a character class, in JavaScript's syntax (n8n tests them with RegExp, in the browser too). */
const escaped = (chars: string) =>
	[...chars].map((c) => ('\\]^-['.includes(c) ? `\\${c}` : c)).join('');
const NOT_GSM = `[^${escaped(BASIC + EXTENSION)}]`;
const ALL_GSM = `^[${escaped(BASIC + EXTENSION)}]*$`;
/** GSM-7's escaped characters take two characters' room: a count by length would be off. */
const ESCAPED = `[${escaped(EXTENSION)}]`;
const NO_ESCAPED = `^[^${escaped(EXTENSION)}]*$`;
/** An emoji (a surrogate pair): a part of a longer text never splits one, so its length says too little. */
const PAIRED = '[\\uD800-\\uDBFF]';
const NOT_PAIRED = '^[^\\uD800-\\uDBFF]*$';

/** The most characters (UTF-16 units for UCS-2) of `segments` segments: a part holds fewer than one alone. */
const most = (encoding: keyof typeof SIZES, segments: number) =>
	segments === 1 ? SIZES[encoding][0] : SIZES[encoding][1] * segments;

/** Texts shorter than `from` or longer than `to` characters. */
const outside = (from: number, to?: number) => [
	`^[\\s\\S]{0,${from - 1}}$`,
	...(to === undefined ? [] : [`^[\\s\\S]{${to + 1},}$`]),
];

/**
 * Shown unless the text is an expression or matches one of `unless`. The text's tests are all in
 * `hide`: n8n shows a property at once when a value its `show` tests is an expression
 * (displayParameter), whatever else it says.
 */
const shownUnless = (unless: string[]): IDisplayOptions => ({
	hide: {
		message: [{ _cnd: { startsWith: '=' } }, ...unless.map((regex) => ({ _cnd: { regex } }))],
	},
});

const UNICODE_WHY =
	'A character outside the GSM-7 alphabet (such as ’, á or an emoji) sends the whole message as Unicode: 70 characters a segment, 67 in each part of a longer one. Replace Look-Alike Characters (SMS Options) sends pasted quotes, dashes and spaces in their GSM-7 forms (the output then says what was sent).';

function notice(encoding: keyof typeof SIZES, segments: number): INodeProperties {
	const unicode = encoding === 'UCS-2';
	const last = segments > COUNTED;
	const from = segments === 1 ? 1 : most(encoding, segments - 1) + 1;
	const count = last ? `more than ${COUNTED} segments` : plural(segments, 'segment');
	const each = segments > 1 ? ', each usually billed' : '';
	return {
		displayName: unicode
			? `As typed, this SMS is Unicode (UCS-2): ${count}${each}. ${UNICODE_WHY}`
			: `As typed, this SMS is GSM-7: ${count}${each}.`,
		name: `smsCost${unicode ? 'Unicode' : 'Gsm'}${last ? 'More' : segments}`,
		type: 'notice',
		default: '',
		displayOptions: shownUnless([
			...outside(from, last ? undefined : most(encoding, segments)),
			// Unicode: not when every character is GSM-7's, nor a longer text with an emoji; GSM-7: not
			// with another character or an escaped one.
			...(unicode ? [ALL_GSM, ...(segments > 1 ? [PAIRED] : [])] : [NOT_GSM, ESCAPED]),
		]),
	};
}

/** A GSM-7 text with an escaped character: the rule, the count on its output. */
const escapedNotice: INodeProperties = {
	displayName:
		'As typed, this SMS is GSM-7, and each ^ { } [ ] ~ | € or \\ in it takes the room of two characters: 160 in one segment, 153 in each part of a longer one. Its output gives the segments (smsCost).',
	name: 'smsCostGsmEscaped',
	type: 'notice',
	default: '',
	displayOptions: shownUnless([NOT_GSM, NO_ESCAPED]),
};

/** A Unicode text longer than one segment, with an emoji: the rule, the count on its output. */
const pairedNotice: INodeProperties = {
	displayName: `As typed, this SMS is Unicode (UCS-2) and longer than one segment, with an emoji (two of a segment's places, never split between two parts): its output gives the segments (smsCost), each usually billed. ${UNICODE_WHY}`,
	name: 'smsCostUnicodeEmoji',
	type: 'notice',
	default: '',
	displayOptions: shownUnless([ALL_GSM, NOT_PAIRED, ...outside(SIZES['UCS-2'][0] + 1)]),
};

/** The notices of a typed SMS text (`message`), shown for the operations that list them (Send SMS). */
export const smsCostNotices: INodeProperties[] = [
	...(['GSM-7', 'UCS-2'] as const).flatMap((encoding) =>
		Array.from({ length: COUNTED + 1 }, (_, index) => notice(encoding, index + 1)),
	),
	escapedNotice,
	pairedNotice,
];
