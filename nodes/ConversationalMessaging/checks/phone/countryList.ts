import type { INodePropertyOptions } from 'n8n-workflow';

import { COUNTRY_NAMES } from './countryNames';

/** Country (region) codes by calling code, the main region of a shared code first. */
const REGIONS_BY_CODE = new Map<string, string[]>();
for (const [region, [code]] of Object.entries(COUNTRY_NAMES))
	REGIONS_BY_CODE.set(code, [...(REGIONS_BY_CODE.get(code) ?? []), region]);

/** "Colombia", "Russia or Kazakhstan", "United States and others"; +800 and the like: "international services". */
export function countriesOf(code: string): string {
	const names = (REGIONS_BY_CODE.get(code) ?? []).map((region) => COUNTRY_NAMES[region][1]);
	if (names.length === 0) return 'international services';
	if (names.length === 1) return names[0];
	if (names.length === 2) return `${names[0]} or ${names[1]}`;
	return `${names[0]} and others`;
}

/** "Colombia (+57)": a country chosen as Default Country, or the countries of a calling code. */
export const countryLabel = (code: string, region?: string): string =>
	`${region ? COUNTRY_NAMES[region][1] : countriesOf(code)} (+${code})`;

/** Every country by name, with its calling code: a Default Country's options. */
export const COUNTRY_OPTIONS: INodePropertyOptions[] = Object.entries(COUNTRY_NAMES)
	.map(([region, [code, name]]) => ({ name: `${name} (+${code})`, value: region }))
	.sort((a, b) => a.name.localeCompare(b.name, 'en'));
