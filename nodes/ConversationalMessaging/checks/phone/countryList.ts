import type { INodePropertyOptions } from 'n8n-workflow';

import { CALLING_CODES } from './callingCodes';

/** Country (region) codes by calling code, the main region of a shared code first. */
const REGIONS_BY_CODE = new Map(
	Object.entries(CALLING_CODES).map(([code, regions]) => [code, regions.split(' ')]),
);

/** Each country's calling code. */
export const CODE_OF: Readonly<Record<string, string>> = Object.fromEntries(
	[...REGIONS_BY_CODE].flatMap(([code, regions]) => regions.map((region) => [region, code])),
);

// English names from the runtime's ICU data, as n8n's Node versions ship it in full, made when
// first asked; a runtime without Intl.DisplayNames gets the region code (the credential loads).
let names: Intl.DisplayNames | undefined;

/** "Colombia", "Côte d’Ivoire". */
export function nameOf(region: string): string {
	names ??= Intl.DisplayNames && new Intl.DisplayNames(['en'], { type: 'region' });
	return names?.of(region) ?? region;
}

/** "Colombia", "Russia or Kazakhstan", "United States and others"; +800 and the like: "international services". */
function countriesOf(code: string): string {
	const countries = (REGIONS_BY_CODE.get(code) ?? []).map(nameOf);
	if (countries.length === 0) return 'international services';
	if (countries.length === 1) return countries[0];
	if (countries.length === 2) return `${countries[0]} or ${countries[1]}`;
	return `${countries[0]} and others`;
}

/** "Colombia (+57)": a country chosen as Default Country, or the countries of a calling code. */
export const countryLabel = (code: string, region?: string): string =>
	`${region ? nameOf(region) : countriesOf(code)} (+${code})`;

/** Every country by name, with its calling code: a Default Country's options. */
export const COUNTRY_OPTIONS: INodePropertyOptions[] = Object.entries(CODE_OF)
	.map(([region, code]) => ({ name: countryLabel(code, region), value: region }))
	.sort((a, b) => a.name.localeCompare(b.name, 'en'));
