/**
 * The Default Country's choices are named by the runtime's ICU data (checks/phone/countryList.ts),
 * so a Node.js whose ICU renames a country changes what users see, and the order, without a line
 * of the package changing. They are pinned here as Node 20, 22 and 24 (ICU 78, CLDR 48) name
 * them. When this fails on a new Node.js, check the new names, then write the fixture anew:
 *
 *   npx tsx -e "const { COUNTRY_OPTIONS } = require('./nodes/ConversationalMessaging/checks/phone/countryList'); const labels = Object.fromEntries(COUNTRY_OPTIONS.map((option) => [option.value, option.name])); require('fs').writeFileSync('test/fixtures/countryLabels.json', JSON.stringify(labels, null, '\t') + '\n');"
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import { COUNTRY_OPTIONS } from '../../../nodes/ConversationalMessaging/checks/phone/countryList';

const FIXTURE = join(__dirname, '..', '..', 'fixtures', 'countryLabels.json');
const COUNTRY_LIST = require.resolve(
	'../../../nodes/ConversationalMessaging/checks/phone/countryList',
);

describe("the Default Country's choices", () => {
	it(`are the countries as the fixture names them, in its order, on Node.js ${process.version}`, () => {
		const pinned = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, string>;
		expect(COUNTRY_OPTIONS.map(({ value, name }) => [value, name])).toEqual(Object.entries(pinned));
		expect(COUNTRY_OPTIONS).toHaveLength(245);
	});

	it('load on a runtime without Intl.DisplayNames, named by their region code', () => {
		// A fresh copy of countryList.ts, loaded as n8n loads the credential at its start; the
		// copy the other suites share is put back after.
		const shared = require.cache[COUNTRY_LIST];
		const displayNames = Intl.DisplayNames;
		delete require.cache[COUNTRY_LIST];
		delete (Intl as { DisplayNames?: unknown }).DisplayNames;
		try {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const fresh = require(COUNTRY_LIST) as { COUNTRY_OPTIONS: typeof COUNTRY_OPTIONS };
			expect(fresh.COUNTRY_OPTIONS).toHaveLength(245);
			expect(fresh.COUNTRY_OPTIONS).toContainEqual({ name: 'CO (+57)', value: 'CO' });
		} finally {
			(Intl as { DisplayNames?: unknown }).DisplayNames = displayNames;
			require.cache[COUNTRY_LIST] = shared;
		}
	});
});
