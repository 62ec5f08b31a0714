import type { NodeExecutionHint } from 'n8n-workflow';

import { countryLabel } from './countryList';
import type { PhoneReading } from './reading';

/** How many countries the hint names; the others are counted together. */
const NAMED_COUNTRIES = 20;

/**
 * The countries a bulk send's numbers went to, as a hint above the output when they are not all
 * one country, or when a number was read without + and no Default Country was set: a number
 * typed without its country code may have reached another country (201 555 0123 is Egypt's).
 */
export class CountriesReached {
	private readonly byItem = new Map<number, PhoneReading>();

	/** The item's number was sent (over all of a run's tries: the last reading of an item counts). */
	sent(itemIndex: number, reading: PhoneReading | undefined): void {
		if (reading) this.byItem.set(itemIndex, reading);
	}

	hint(): NodeExecutionHint | undefined {
		const readings = [...this.byItem.values()];
		const guessed = readings.some((reading) => !reading.international && !reading.home);
		const byCode = new Map<string, { count: number; home?: string }>();
		for (const { code, home, atHome } of readings) {
			const country = byCode.get(code) ?? { count: 0 };
			country.count++;
			if (atHome) country.home = home;
			byCode.set(code, country);
		}
		if (byCode.size < 2 && !guessed) return undefined;
		const counted = [...byCode].sort(([, a], [, b]) => b.count - a.count);
		const named = counted
			.slice(0, NAMED_COUNTRIES)
			.map(([code, { count, home }]) => `${count} to ${countryLabel(code, home)}`);
		const others = counted.slice(NAMED_COUNTRIES);
		if (others.length)
			named.push(
				`${others.reduce((sum, [, { count }]) => sum + count, 0)} to ${others.length} other countries`,
			);
		const advice = guessed
			? ': set the Default Country in the credential if numbers are typed without their country code'
			: '';
		return {
			message: `Phone numbers: ${named.join(', ')}${advice}.`,
			type: guessed && byCode.size > 1 ? 'warning' : 'info',
			location: 'outputPane',
		};
	}
}
