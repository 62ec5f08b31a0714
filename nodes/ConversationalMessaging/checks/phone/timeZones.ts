import { COUNTRIES } from './countries';
import { CODE_OF } from './countryList';
import { ZONES_BY_COUNTRY } from './zoneCountries';
import { BY_ZONES, NAMES, SHARED_REGIONS } from './zones';

/*
 * The time zones of a phone number or a country, from libphonenumber's time-zone table as
 * scripts/time-zones.mjs compiles it (./zones.ts).
 */

const NONE: readonly string[] = Object.freeze([]);
let prefixes: Map<string, readonly string[]> | undefined;
const lists = new Map<string, readonly string[]>();

/** The zones at these positions of NAMES, one frozen array per distinct list. */
function list(positions: string): readonly string[] {
	let zones = lists.get(positions);
	if (!zones) {
		zones = Object.freeze(positions.split(' ').map((position) => NAMES[Number(position)]));
		lists.set(positions, zones);
	}
	return zones;
}

/** Prefix -> zones, built on first use. */
function byPrefix(): Map<string, readonly string[]> {
	if (!prefixes) {
		prefixes = new Map();
		for (const [positions, all] of BY_ZONES) {
			const zones = list(positions);
			for (const prefix of all.split(' ')) prefixes.set(prefix, zones);
		}
	}
	return prefixes;
}

/**
 * The zones a number may be in: those of the longest prefix of the table it starts with (several
 * when the prefix spans several, as Alaska's +1 907), sorted by name; none when no prefix matches.
 * digits: the calling code, then the national number, digits only.
 */
export function zonesOfNumber(digits: string): readonly string[] {
	const table = byPrefix();
	for (let length = digits.length; length > 0; length--) {
		const zones = table.get(digits.slice(0, length));
		if (zones) return zones;
	}
	return NONE;
}

/**
 * The zones of a region (ISO 3166 two letters, as COUNTRIES): its calling code's when the region
 * owns it; for a shared code, those of the code's prefixes that belong to the region, or the code's
 * when none does. None for a region COUNTRIES does not know.
 */
export function zonesOfCountry(region: string): readonly string[] {
	const upper = region.toUpperCase();
	const shared = SHARED_REGIONS[upper];
	if (shared !== undefined) return list(shared);
	const code = CODE_OF[upper];
	return (code && byPrefix().get(code)) || NONE;
}

let zoneCountries: Map<string, string> | undefined;

/**
 * The country of an IANA time zone (ISO 3166 two letters, as COUNTRIES), from the tz database
 * (./zoneCountries.ts): where a workflow in that zone likely dials. Undefined for a zone of no
 * country (UTC, Etc/GMT+5) or one COUNTRIES does not know.
 */
export function countryOfZone(zone: string): string | undefined {
	if (!zoneCountries) {
		zoneCountries = new Map();
		for (const [region, zones] of Object.entries(ZONES_BY_COUNTRY))
			for (const name of zones.split(' ')) zoneCountries.set(name, region);
	}
	const region = zoneCountries.get(zone);
	return region !== undefined && Object.prototype.hasOwnProperty.call(COUNTRIES, region)
		? region
		: undefined;
}
