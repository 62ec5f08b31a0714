import type { NodeExecutionHint } from 'n8n-workflow';

import { countryLabel } from '../checks/phone/countryList';
import type { PhoneReading } from '../checks/phone/reading';
import type { SmsReading } from '../checks/sms';
import { lookAlikesIn, shown } from '../checks/sms';
import { clock } from '../clock';

/**
 * What happened to one node run's requests, as an execution hint above the output (nothing when
 * the service never slowed the run down and no item failed). This execution's figures, not its
 * lane's; under Retry On Fail, the try that returns (n8n shows its hints only).
 */
export class SendSummary {
	private rateLimited = 0;
	private overloaded = 0;
	/** Refused requests sent again, and the longest wait from a refusal to going again. */
	private resentAfterRefusal = 0;
	private longestWaitMs = 0;
	private resentAfterOutage = 0;
	/** Items an earlier try had sent; items an earlier execution had (n8n's Retry of it), by execution. */
	private reused = 0;
	private readonly sentEarlier = new Map<string, number>();
	private readonly failed = new Set<number>();
	/** Of those, the items the service may have carried out (no answer came). */
	private readonly unsure = new Set<number>();
	/** Refused items until their request goes again (since when), and those not reached until one does. */
	private readonly refusedAt = new Map<number, number>();
	private readonly notReached = new Set<number>();

	/** `items`: how many the run has. */
	constructor(private readonly items: number) {}

	/** An item's request is let through, at `at`. */
	sending(itemIndex: number, at: number): void {
		const refusedAt = this.refusedAt.get(itemIndex);
		if (refusedAt === undefined) return;
		this.refusedAt.delete(itemIndex);
		this.resentAfterRefusal++;
		this.longestWaitMs = Math.max(this.longestWaitMs, at - refusedAt);
	}

	/** The service said "too fast": 429, or 503 with Retry-After (overloaded). */
	refused(itemIndex: number, overloaded: boolean): void {
		if (overloaded) this.overloaded++;
		else this.rateLimited++;
		this.refusedAt.set(itemIndex, clock.now());
	}

	unreached(itemIndex: number): void {
		this.notReached.add(itemIndex);
	}

	/** The item's request went out and did not fail for want of the service (an answer, or any other error). */
	reached(itemIndex: number): void {
		if (this.notReached.delete(itemIndex)) this.resentAfterOutage++;
	}

	/** The item's answer came from an earlier try, or from an earlier execution (`by`): not sent again. */
	reusedAnswer(by?: string): void {
		if (by === undefined) this.reused++;
		else this.sentEarlier.set(by, (this.sentEarlier.get(by) ?? 0) + 1);
	}

	/** The item comes out as an error item (continue-on-fail); `unsure`: the service may have carried it out. */
	failedItem(itemIndex: number, unsure = false): void {
		this.failed.add(itemIndex);
		if (unsure) this.unsure.add(itemIndex);
	}

	/**
	 * What to tell the user about this run, if anything happened; `outageMs`: the time it waited for
	 * the service in outages (./lane.ts, Member.outageMs).
	 */
	hint(outageMs: number): NodeExecutionHint | undefined {
		const refusals = this.rateLimited + this.overloaded;
		const retried = this.reused > 0;
		const failed = this.failed.size;
		const earlier = [...this.sentEarlier];
		if (!refusals && !outageMs && !retried && !failed && !earlier.length) return undefined;
		const sentences: string[] = [];
		if (earlier.length) {
			const by = earlier.map(([id, n]) => `${plural(n, 'item')} by execution ${id}`);
			sentences.push(
				`This retry did not send again what the failed ${earlier.length === 1 ? 'execution' : 'executions'} had sent (${by.join(', ')}): those items' output is the service's answer from that time, with an alreadySent field.`,
			);
		}
		if (refusals) {
			const why = !this.overloaded
				? 'rate limit'
				: !this.rateLimited
					? 'service overloaded'
					: `${count(this.rateLimited)} rate limit, ${count(this.overloaded)} overloaded`;
			const resent = this.resentAfterRefusal;
			const those =
				resent < refusals
					? `${count(resent)} of those requests`
					: refusals === 1
						? 'that request'
						: `those ${count(refusals)} requests`;
			const again = resent
				? `the node waited up to ${seconds(this.longestWaitMs)} and sent ${those} again`
				: `${refusals === 1 ? 'that request was' : 'those requests were'} not sent again`;
			sentences.push(`The service pushed back ${times(refusals)} (${why}); ${again}.`);
		}
		if (outageMs) {
			const resent = this.resentAfterOutage;
			const then = !resent
				? ''
				: resent === 1
					? ', then sent the request that had not reached it'
					: `, then sent the ${count(resent)} requests that had not reached it`;
			sentences.push(
				`The service could not be reached for ${seconds(outageMs)}: the node paused sending${then}.`,
			);
		}
		if (retried)
			sentences.push(
				`Retry On Fail ran the node again: it skipped the ${plural(this.reused, 'item')} the service had already accepted.`,
			);
		if (!failed) sentences.push('No item failed.');
		else sentences.push(this.failedSentence());
		return {
			message: sentences.join(' '),
			type: failed ? 'warning' : 'info',
			location: 'outputPane',
		};
	}

	/** Which error items were not sent, and which the service may have carried out. */
	private failedSentence(): string {
		const unsure = [...this.unsure];
		const notSent = [...this.failed].filter((item) => !this.unsure.has(item));
		const them = (n: number) => (n === 1 ? 'it' : 'them');
		if (this.items === 1)
			return unsure.length
				? 'The item failed, and the service may have carried it out: check it in the dashboard before sending it again (see its error item).'
				: 'The item was not sent: see its error item.';
		const sentences = [
			notSent.length &&
				`${count(notSent.length)} of ${count(this.items)} items ${notSent.length === 1 ? 'was' : 'were'} not sent: ${itemList(notSent)}. See ${notSent.length === 1 ? 'its error item' : 'their error items'}.`,
			unsure.length &&
				`${count(unsure.length)} of ${count(this.items)} items failed, but the service may have carried ${them(unsure.length)} out: ${itemList(unsure, false, notSent.length > 0)}. Check ${them(unsure.length)} in the dashboard before sending ${them(unsure.length)} again.`,
		];
		return sentences.filter(Boolean).join(' ');
	}
}

/** Counts as the node's words give them: 1,000; "1 item", "2 items". */
export const count = (n: number) => n.toLocaleString('en-US');
export const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;
/** "a", "a and b", "a, b and c"; the parts left out (0 or '') skipped. */
export function joinAnd(parts: Array<string | 0>): string {
	const words = parts.filter((part): part is string => Boolean(part));
	return words.length < 2
		? words.join('')
		: `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${count(n)} times`);
const seconds = (ms: number) => (ms < 100 ? 'less than 0.1 s' : `${(ms / 1000).toFixed(1)} s`);

/** How many failed items the hint names; the rest are counted. */
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
function itemList(indexes: number[], capital = false, said = false): string {
	const numbers = indexes.sort((a, b) => a - b).map(count);
	const named = numbers.slice(0, NAMED_ITEMS);
	if (numbers.length > NAMED_ITEMS) named.push(`${count(numbers.length - NAMED_ITEMS)} more`);
	return `${capital ? 'I' : 'i'}tem${numbers.length === 1 ? '' : 's'} ${joinAnd(named)}${said ? '' : ` (${FROM_ZERO})`}`;
}

/** How many countries the hint names; the others are counted together. */
const NAMED_COUNTRIES = 20;

/**
 * The countries a bulk send's numbers went to, as a hint above the output, by likelihood. A number
 * typed without + and read country code first (no Default Country) that went to another country
 * than most of the run's numbers is a warning naming its items: `201 555 0123` among Colombian
 * numbers went to Egypt (+20). A number read as the Default Country's that also fits another
 * country written country code first is named in plain words; a warning when the run also had
 * numbers without + read country code first. Numbers that all went to one country read from
 * their first digits: information, no advice. Nothing when every number was written with +.
 */
export class CountriesReached {
	private readonly byItem = new Map<number, PhoneReading>();
	/** Items an earlier try or execution had sent: this run's figures leave them out, and say so. */
	private earlier = 0;

	/** The item's answer came from an earlier try or execution (./sendLoop.ts): not counted. */
	reused(): void {
		this.earlier++;
	}

	/** The item's number was sent. */
	sent(itemIndex: number, reading: PhoneReading | undefined): void {
		if (reading) this.byItem.set(itemIndex, reading);
	}

	hint(): NodeExecutionHint | undefined {
		const readings = [...this.byItem];
		const firstDigits = readings.filter(([, reading]) => !reading.international && !reading.atHome);
		const doubtful = readings.filter(([, reading]) => reading.alsoAbroad);
		const byCode = new Map<string, { count: number; home?: string }>();
		for (const [, { code, home, atHome }] of readings) {
			const country = byCode.get(code) ?? { count: 0 };
			country.count++;
			if (atHome) country.home = home;
			byCode.set(code, country);
		}
		const counted = [...byCode].sort(([, a], [, b]) => b.count - a.count);
		// The run's country: where the numbers that say theirs (+, or as dialled at home) went, else most.
		const sure = readings.filter(([, reading]) => reading.international || reading.atHome);
		const ranked = [...byCountry(sure.length ? sure : readings, (reading) => reading.code)].sort(
			([, a], [, b]) => b.length - a.length,
		);
		const [[main, top] = ['', []], [, next] = ['', []]] = ranked;
		// Read from their first digits, without a Default Country, to another country than the run's:
		// all of them when the run has no one country.
		const tie = !sure.length && next.length === top.length;
		const guessed = firstDigits.filter(([, reading]) => !reading.home);
		const astray = guessed.filter(([, reading]) => tie || reading.code !== main);
		if (byCode.size < 2 && !guessed.length && !doubtful.length) return undefined;
		const named = counted
			.slice(0, NAMED_COUNTRIES)
			.map(([code, { count, home }]) => `${count} to ${countryLabel(code, home)}`);
		const others = counted.slice(NAMED_COUNTRIES);
		if (others.length)
			named.push(
				`${others.reduce((sum, [, { count }]) => sum + count, 0)} to ${others.length} other countries`,
			);
		const only = this.earlier
			? `, counting only what this run sent (the ${plural(this.earlier, 'item')} sent before it ${this.earlier === 1 ? 'is' : 'are'} not counted)`
			: '';
		const sentences = [`Phone numbers: ${joinAnd(named)}${only}.`];
		if (astray.length) {
			const groups = [...byCountry(astray, (reading) => reading.code)];
			const went = groups
				.slice(0, NAMED_COUNTRIES)
				.map(
					([code, items], index) =>
						`${itemList(items, false, index > 0)}${index ? '' : ' went'} to ${countryLabel(code)}`,
				);
			if (groups.length > NAMED_COUNTRIES)
				went.push(`others to ${groups.length - NAMED_COUNTRIES} more countries`);
			const one = astray.length === 1;
			sentences.push(
				`${tie ? "With the run's numbers split between countries" : "Unlike most of the run's numbers"}, ${joinAnd(went)}: with no Default Country set, ${one ? 'its' : 'their'} first digits were read as the country code. If ${one ? 'it was' : 'any was'} typed without ${one ? 'its' : 'the'} country code, ${one ? 'it' : 'that one'} reached someone else: write numbers with + and their country code, or set the Default Country (in the credential, or in the node's Settings).`,
			);
		}
		for (const [home, items] of byCountry(doubtful, (reading) =>
			countryLabel(reading.code, reading.home),
		)) {
			const these = new Set(items);
			const abroad = [
				...byCountry(
					doubtful.filter(([index]) => these.has(index)),
					(reading) => reading.alsoAbroad,
				),
			];
			const one = items.length === 1;
			sentences.push(
				`${itemList(items, true)} ${one ? 'was' : 'were'} sent as ${one ? 'a number' : 'numbers'} of ${home}; written with the country code first, ${one ? 'it' : 'they'} would be ${one ? 'a number' : 'numbers'} of ${joinAnd(abroad.slice(0, NAMED_COUNTRIES).map(([code]) => countryLabel(code)))}. Write numbers of other countries with + and their country code.`,
			);
		}
		const warn = astray.length > 0 || (doubtful.length > 0 && firstDigits.length > 0);
		return {
			message: sentences.join(' '),
			type: warn ? 'warning' : 'info',
			location: 'outputPane',
		};
	}
}

/** The items of `readings` by what `key` gives (undefined: left out), in item order. */
function byCountry(
	readings: Array<[number, PhoneReading]>,
	key: (reading: PhoneReading) => string | undefined,
): Map<string, number[]> {
	const groups = new Map<string, number[]>();
	for (const [index, reading] of [...readings].sort(([a], [b]) => a - b)) {
		const value = key(reading);
		if (value === undefined) continue;
		const group = groups.get(value);
		if (group) group.push(index);
		else groups.set(value, [index]);
	}
	return groups;
}

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
	private messages = 0;
	private segments = 0;
	private unicodeMessages = 0;
	/** The characters that made messages UCS-2, and in how many messages. */
	private readonly blamed = new Map<string, number>();

	sent(reading: SmsReading | undefined): void {
		if (!reading) return;
		this.messages++;
		this.segments += reading.segments;
		if (reading.encoding === 'UCS-2') this.unicodeMessages++;
		for (const c of reading.unicode) this.blamed.set(c, (this.blamed.get(c) ?? 0) + 1);
	}

	hint(): NodeExecutionHint | undefined {
		if (this.segments === this.messages && !this.unicodeMessages) return undefined;
		const chars = [...this.blamed]
			.sort(([, a], [, b]) => b - a)
			.slice(0, 10)
			.map(([c]) => shown(c));
		const them = this.messages === 1 ? 'it' : `${count(this.unicodeMessages)} of them`;
		const unicode = this.unicodeMessages
			? `: ${joinAnd(chars)} made ${them} Unicode (UCS-2: 70 characters a segment instead of 160)`
			: '';
		const fix = lookAlikesIn([...this.blamed.keys()]).length
			? ' Replace Look-Alike Characters (SMS Options) sends the quotes, dashes and spaces pasted from documents in their GSM-7 forms.'
			: '';
		return {
			message: `SMS: ${plural(this.messages, 'message')}, ${plural(this.segments, 'segment')}${unicode}.${fix}`,
			type: this.unicodeMessages ? 'warning' : 'info',
			location: 'outputPane',
		};
	}
}
