import type { NodeExecutionHint } from 'n8n-workflow';

/*
 * Counts and lists as the node's words give them, in the hints above the output (the send
 * summary's, the countries reached, the SMS sent), the stop's error and the recipient rules alike.
 */

/** A hint above the output: its sentences, a warning when `warn`. */
export const outputHint = (sentences: string[], warn: boolean): NodeExecutionHint => ({
	message: sentences.join(' '),
	type: warn ? 'warning' : 'info',
	location: 'outputPane',
});

/** 1,000; "1 item", "2 items". */
export const count = (n: number) => n.toLocaleString('en-US');
export const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;
/** "a", "a and b", "a, b and c"; the parts left out (0 or '') skipped. */
export function joinAnd(parts: Array<string | 0>): string {
	const words = parts.filter((part): part is string => Boolean(part));
	return words.length < 2
		? words.join('')
		: `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** How many items a list names; the rest are counted. */
const NAMED_ITEMS = 5;

/** How the words number items: as n8n's "[item N]" in an error's title, so one number means one item. */
export const FROM_ZERO = 'n8n counts items from 0';

/** "1st", "2nd", "3rd", "11th", "22nd". */
export function ordinal(n: number): string {
	const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
	return `${count(n)}${suffix}`;
}

/**
 * "item 3 (n8n counts items from 0)", "items 1, 4 and 8 (…)", "items 0, 1, 2, 3, 4 and 12 more (…)";
 * `said`: a list before it in the same sentence said how items are counted.
 */
export function itemList(indexes: number[], capital = false, said = false): string {
	const numbers = indexes.sort((a, b) => a - b).map(count);
	const named = numbers.slice(0, NAMED_ITEMS);
	if (numbers.length > NAMED_ITEMS) named.push(`${count(numbers.length - NAMED_ITEMS)} more`);
	return `${capital ? 'I' : 'i'}tem${numbers.length === 1 ? '' : 's'} ${joinAnd(named)}${said ? '' : ` (${FROM_ZERO})`}`;
}
