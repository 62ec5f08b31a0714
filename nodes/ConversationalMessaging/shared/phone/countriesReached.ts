import type { NodeExecutionHint } from 'n8n-workflow';

import { countryLabel } from './countryList';
import type { PhoneReading } from './reading';

/** How many countries the hint names; the others are counted together. */
const NAMED_COUNTRIES = 20;

/**
 * The countries a bulk send's numbers went to, as a hint above the output when they are not all
 * one country, or when a number was read without + and no Default Country was set: a number
 * typed without its country code may have reached another country (201 555 0123 is Egypt's).
 * Numbers read as the Default Country's that another country's plan also fits, written country
 * code first, are named too: a warning, as is a country guessed without a Default Country.
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
		const abroad = new Map<string, number>();
		for (const { alsoAbroad } of readings)
			if (alsoAbroad) abroad.set(alsoAbroad, (abroad.get(alsoAbroad) ?? 0) + 1);
		if (byCode.size < 2 && !guessed && !abroad.size) return undefined;
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
		const doubtful = [...abroad.values()].reduce((sum, count) => sum + count, 0);
		const also = [...abroad]
			.sort(([, a], [, b]) => b - a)
			.slice(0, NAMED_COUNTRIES)
			.map(([code]) => countryLabel(code))
			.join(', ');
		const doubt = doubtful
			? ` ${doubtful === 1 ? "1 number read as the Default Country's is" : `${doubtful} numbers read as the Default Country's are`} also, written country code first, a number of ${also}: write other countries' numbers with +.`
			: '';
		// Numbers of other countries without + in the same run make a home reading doubtful.
		const writtenAbroad = readings.some((reading) => !reading.international && !reading.atHome);
		return {
			message: `Phone numbers: ${named.join(', ')}${advice}.${doubt}`,
			type: (guessed && byCode.size > 1) || (doubtful && writtenAbroad) ? 'warning' : 'info',
			location: 'outputPane',
		};
	}
}
