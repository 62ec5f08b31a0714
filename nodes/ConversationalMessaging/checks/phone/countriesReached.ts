import type { NodeExecutionHint } from 'n8n-workflow';

import { itemList, joinAnd, outputHint, plural } from '../../words';
import { countryLabel } from './countryList';
import type { PhoneReading } from './reading';

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
	/**
	 * `byItem`: the numbers this run sent, by item; `earlier`: the items an earlier try or execution
	 * had sent (sendLoop/sendLoop.ts), which this run's figures leave out, and say so.
	 */
	constructor(
		private readonly byItem: Map<number, PhoneReading>,
		private readonly earlier: number,
	) {}

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
		return outputHint(sentences, warn);
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
