/**
 * Phone fields are checked against the world's numbering plans (issue 22) and read with a Default
 * Country (issue 30): the tables scripts/phone-plans.mjs compiles from libphonenumber-js's
 * metadata admit every example number the library ships and every number it deems valid; without
 * a Default Country `300 123 4567` (a Colombian number typed without +57) is refused in every
 * phone field by name; with one, every example number typed as at home is sent with its country
 * code; a bulk send names the countries reached; the tables stay small in dist/ and never stale.
 */
import { spawnSync } from 'child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';
import parsePhoneNumberFromString from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';
import metadata from 'libphonenumber-js/metadata.max.json';
import type { INodeParameters, INodePropertyOptions, NodeExecutionHint } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import {
	fitPlan,
	SHORTEST_NUMBER,
} from '../../../nodes/ConversationalMessaging/checks/phone/reading';
import {
	LIBPHONENUMBER_VERSION,
	PLANS,
} from '../../../nodes/ConversationalMessaging/checks/phone/plans';
import {
	COUNTRIES,
	PREFIX_WRITTEN,
} from '../../../nodes/ConversationalMessaging/checks/phone/countries';
import { CODE_OF } from '../../../nodes/ConversationalMessaging/checks/phone/countryList';
import { readPhone } from '../../../nodes/ConversationalMessaging/checks/phone/reading';
import { countryOfZone } from '../../../nodes/ConversationalMessaging/checks/phone/timeZones';
import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import type { RunResult } from '../../helpers/engine';
import { sentBody, useSandbox } from '../../helpers/sandbox';

const root = join(__dirname, '../../..');
/** Default Country x another country's example written code first: pairs, sent as written, refused, read at home. */
const PAIR_FIGURES = [59140, 56007, 1956, 1177];
const suite = useSandbox();

/** The reading of a phone: the digits sent, or the problem and the fix it fails with. */
function check(
	typed: string,
	home?: string,
): { digits: string } | { problem: string; fix: string } {
	const reading = readPhone(typed, home);
	return 'problem' in reading ? reading : { digits: reading.digits };
}

const codeOf = (region: string) =>
	(metadata.countries as Record<string, unknown[]>)[region][0] as string;
const regionsOf = (code: string) =>
	(metadata.country_calling_codes as Record<string, string[]>)[code] ?? ['non-geographic'];
const exampleNumbers = Object.entries(examples as Record<string, string>).map(
	([region, national]) => ({ region, code: codeOf(region), national }),
);

describe('the numbering plans', () => {
	it('admit every example number libphonenumber-js ships, as +<code> <number> and as the service writes it', () => {
		expect(exampleNumbers.length).toBeGreaterThan(200);
		const answers = exampleNumbers.flatMap(({ region, code, national }) =>
			[`+${code} ${national}`, `${code}${national}`, `00${code}${national}`].map((typed) => ({
				region,
				typed,
				result: check(typed),
			})),
		);
		const refused = answers.filter(
			({ region, result }) =>
				!('digits' in result) ||
				result.digits !== `${codeOf(region)}${(examples as Record<string, string>)[region]}`,
		);
		expect(refused).toEqual([]);
		// The shortest examples have 7 digits in all (TA +290 8999, TK +690 7290): no length rule of the node's own refuses them.
		expect(
			Math.min(...exampleNumbers.map(({ code, national }) => code.length + national.length)),
		).toBe(7);
	});

	it("bound the lengths: the shortest number of any plan to E.164's 15 digits, and the sandbox's Phone pattern takes the same", () => {
		const shortest = Object.entries(PLANS).flatMap(([code, plan]) =>
			Object.keys(plan).map((length) => code.length + Number(length)),
		);
		expect(SHORTEST_NUMBER).toBe(Math.min(...shortest));
		expect(Math.max(...shortest)).toBeLessThanOrEqual(15);
		expect(check('1'.repeat(SHORTEST_NUMBER - 1))).toMatchObject({
			problem: `"${'1'.repeat(SHORTEST_NUMBER - 1)}" is too short for a phone number: ${SHORTEST_NUMBER - 1} digits, and at least ${SHORTEST_NUMBER} with the country code`,
		});
		expect(check('1234567890123456')).toMatchObject({
			problem:
				'"1234567890123456" is too long for a phone number: 16 digits, and at most 15 with the country code',
		});
		// The sandbox must not refuse what the node sends (the service's own document gives no length).
		const contract = readFileSync(join(root, 'sandbox/openapi.yaml'), 'utf8');
		expect(contract).toContain(`pattern: '^[0-9]{${SHORTEST_NUMBER},15}$'`);
		expect(contract).toContain(`pattern: '^[0-9]{${SHORTEST_NUMBER},15}@c\\.us$'`);
	});

	it('admit every number libphonenumber-js deems valid, of random digits after every calling code', () => {
		// Independent of the generator's reading of the patterns: the library's own validation is the oracle.
		let seed = 22;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
		let valid = 0;
		const refused: string[] = [];
		for (const code of Object.keys(PLANS)) {
			for (let length = 2; code.length + length <= 15; length++) {
				for (const first of '0123456789') {
					for (let sample = 0; sample < 12; sample++) {
						let national = first;
						while (national.length < length) national += Math.floor(random() * 10);
						const parsed = parsePhoneNumberFromString(`+${code}${national}`);
						// Only numbers read as typed: the library also forgives a national prefix after the code.
						if (
							!parsed ||
							parsed.countryCallingCode !== code ||
							parsed.nationalNumber !== national ||
							!parsed.isValid()
						)
							continue;
						valid++;
						if (!fitPlan(`${code}${national}`).fits) refused.push(`+${code} ${national}`);
					}
				}
			}
		}
		expect(valid).toBeGreaterThan(10000);
		expect(refused).toEqual([]);
	});

	it('refuse a number typed without its country code, saying so, and explain a refused international number', () => {
		expect(check('300 123 4567')).toEqual({
			problem:
				'"300 123 4567" fits no country\'s numbering plan: it looks like a number without its country code',
			fix: "Write it with + and its country code, e.g. +1 201 555 0123 for the United States or +44 7400 123456 for the United Kingdom. If 30 is its country code, check the digits: a number of Greece (+30) has 10 to 12 digits after the country code, not 8. If your numbers are written without their country code, set the Default Country (in the credential, or in the node's Settings).",
		});
		expect(check('+57 300 123 456')).toEqual({
			problem:
				'"+57 300 123 456" fits no country\'s numbering plan: a number of Colombia (+57) has 8, 10 or 11 digits after the country code, not 9',
			fix: 'Check the country code and the digits of the number.',
		});
		expect(check('+57 200 123 4567')).toMatchObject({
			problem: expect.stringContaining(
				'a number of Colombia (+57) with 10 digits after the country code starts with 3, 6 or 9, not 2',
			),
		});
		expect(check('+28 1234 5678')).toMatchObject({
			problem: expect.stringContaining('it starts with no country calling code'),
		});
		expect(check('+44 (0)20 7946 0958')).toMatchObject({
			fix: 'Leave out the 0 after the country code 44: it is dialled only within the country (e.g. +442079460958).',
		});
		expect(check('+44 20 7946 0958')).toEqual({ digits: '442079460958' });
	});

	it('refuse the share of example numbers typed in national form that no plan admits (figures for the issue)', () => {
		// What the check was before the plans: 8 to 15 digits after + or 00, not starting with 0.
		const oldCheckAdmits = (typed: string) =>
			/^(?:\+|00)?[1-9][0-9]{7,14}$/.test(typed.replace(/[\s\-.()/]/g, ''));
		const refusedShare = (typed: string[], admitted: (typed: string) => boolean) => {
			const refused = typed.filter((one) => !admitted(one)).length;
			return `${refused} of ${typed.length} refused (${((100 * refused) / typed.length).toFixed(1)} %)`;
		};
		const admits = (typed: string) => 'digits' in check(typed);
		const bare = exampleNumbers.map(({ national }) => national);
		// As people write them at home: the library's national format, national prefix (0, 8, 1...) included.
		const written = exampleNumbers.map(({ code, national }) =>
			parsePhoneNumberFromString(`+${code}${national}`)!.formatNational(),
		);
		const byLength = bare.filter(
			(national) => national.length < SHORTEST_NUMBER && !admits(national),
		).length;
		const why = exampleNumbers
			.filter(({ national }) => admits(national))
			.map(({ region, national }) => {
				const { code } = fitPlan(national) as { code: string };
				return `${region} ${national}: read as +${code} ${national.slice(code.length)} (${regionsOf(code).join(' ')}), whose plan has ${national.length - code.length}-digit numbers starting with ${national[code.length]}`;
			});
		console.log(
			[
				`libphonenumber-js ${LIBPHONENUMBER_VERSION}: its ${exampleNumbers.length} example mobile numbers (examples.mobile.json) typed without their country code`,
				`  national significant number (no national prefix): ${refusedShare(bare, admits)}; ${byLength} of them for having fewer than ${SHORTEST_NUMBER} digits; the check before the plans: ${refusedShare(bare, oldCheckAdmits)}`,
				`  national format (formatNational, national prefix included): ${refusedShare(written, admits)}; the check before the plans: ${refusedShare(written, oldCheckAdmits)}`,
				`  admitted (${why.length}), because another country's plan fits them:`,
				...why.map((line) => `    ${line}`),
			].join('\n'),
		);
		expect(admits('3001234567')).toBe(false);
		// The issue's figure at this table: a change that admits many more national numbers shows here.
		expect(why.length / bare.length).toBeLessThan(0.1);
	});

	it('are a small generated module of the build, with no runtime dependency', () => {
		const dir = join(root, 'dist/nodes/ConversationalMessaging/checks/phone');
		const [table, countries, codes] = ['plans', 'countries', 'callingCodes'].map((name) =>
			join(dir, `${name}.js`),
		);
		expect([table, countries, codes].every(existsSync)).toBe(true);
		// Issue 30: plans.js and countries.js under 40 KB. Issue 48's mobile patterns (22 KB, then a
		// file of their own) are a column of countries.js since issue 49: the three numbering tables
		// under 64 KB (70 KB with mobiles.js and countryNames.js before).
		const size = [table, countries, codes].reduce((sum, file) => sum + statSync(file).size, 0);
		console.log(
			`phone tables in dist/: ${(size / 1024).toFixed(1)} KB (plans.js, countries.js, callingCodes.js)`,
		);
		expect(size).toBeLessThan(64 * 1024);
		expect(readFileSync(table, 'utf8')).toContain(
			`LIBPHONENUMBER_VERSION = '${LIBPHONENUMBER_VERSION}'`,
		);
		const compiled = (dir: string): string[] =>
			readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
				entry.isDirectory()
					? compiled(join(dir, entry.name))
					: entry.name.endsWith('.js')
						? [join(dir, entry.name)]
						: [],
			);
		expect(
			compiled(join(root, 'dist')).filter((file) =>
				/require\(["']libphonenumber-js/.test(readFileSync(file, 'utf8')),
			),
		).toEqual([]);
		const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
		expect(packageJson.dependencies ?? {}).toEqual({});
		expect(packageJson.devDependencies['libphonenumber-js']).toBe(LIBPHONENUMBER_VERSION);
	});

	it('are what the generator makes of the installed libphonenumber-js (the committed table is not stale)', () => {
		const result = spawnSync(process.execPath, [join(root, 'scripts/phone-plans.mjs'), '--check'], {
			cwd: root,
			encoding: 'utf8',
		});
		expect(result.stderr).toBe('');
		expect(result.status).toBe(0);
		// The build checks the table, it does not rewrite it: a stale table fails `npm run build` (in CI too); only `npm run phone-plans` writes.
		const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
		expect(scripts.build).toMatch(/^node scripts\/phone-plans\.mjs --check && /);
		expect(scripts['phone-plans']).toBe('node scripts/phone-plans.mjs');
		expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(
			`libphonenumber-js ${LIBPHONENUMBER_VERSION}'s metadata`,
		);
	});
});

/** The operations with a phone field, as a builder fills them in, with a number typed without its country code. */
const nationalOnly = '300 123 4567';
const fields: Array<[string, string, INodeParameters]> = [
	[
		'Send SMS',
		'Recipient Phone',
		{
			resource: 'messaging',
			operation: 'sendSms',
			to: nationalOnly,
			instance: 'line-1',
			message: 'Hi',
		},
	],
	[
		'Inject CRM Lead',
		'Contact Phone',
		{
			resource: 'messaging',
			operation: 'injectCrmLead',
			contactPhone: nationalOnly,
			instance: 'line-1',
			leadMessage: 'x',
			channel: 'chatapp',
		},
	],
	[
		'Check Chatapp Number',
		'Phone Number',
		{
			resource: 'messaging',
			operation: 'checkChatappNumber',
			number: nationalOnly,
			instance: 'line-1',
		},
	],
	[
		'Contact Add to List',
		'Phone',
		{
			resource: 'contact',
			operation: 'add',
			listId: 'list-2',
			phone: nationalOnly,
			contactName: 'Ana',
		},
	],
	[
		'Agent Create',
		'Phone',
		{
			resource: 'agent',
			operation: 'create',
			agentName: 'Ana',
			agentPhone: nationalOnly,
			email: 'ana@example.com',
		},
	],
	[
		'Legacy Chatapp Send',
		'Recipient Phone',
		{
			resource: 'legacyMessage',
			operation: 'send',
			recipient: nationalOnly,
			legacyInstance: 'qr-1',
			messageType: 'chat',
			chatText: 'Hi',
		},
	],
	[
		'Send and Wait by SMS',
		'Recipient Phone',
		{
			resource: 'messaging',
			operation: 'sendAndWait',
			message: 'OK?',
			responseType: 'approval',
			sendAndWaitChannel: 'sms',
			instance: 'line-1',
			to: nationalOnly,
		},
	],
	[
		'Send and Wait by chatapp',
		'Recipient Phone',
		{
			resource: 'messaging',
			operation: 'sendAndWait',
			message: 'OK?',
			responseType: 'approval',
			sendAndWaitChannel: 'chatapp',
			legacyInstance: 'qr-1',
			recipient: nationalOnly,
		},
	],
];

describe('every phone field', () => {
	const refusal = (label: string) =>
		`${label}: "${nationalOnly}" fits no country's numbering plan: it looks like a number without its country code`;

	it.each(fields)(
		'%s refuses a number without its country code, naming %s, and sends nothing',
		async (_operation, label, parameters) => {
			const run = await suite.run(parameters);
			expect(run.requests).toHaveLength(0);
			expect(run.error?.message).toBe(refusal(label));
			expect(run.error?.description).toMatch(
				/^Write it with \+ and its country code, e\.g\. \+1 201 555 0123 for the United States or \+44 7400 123456 for the United Kingdom\..* This item was not sent\.$/,
			);
		},
	);

	it('Contact Add to List checks a phone given as an Extra Value too', async () => {
		const run = await suite.run({
			resource: 'contact',
			operation: 'add',
			listId: 'list-2',
			contactName: 'Ana',
			contactFields: { extraValues: { value: [{ key: 'phone', value: nationalOnly }] } },
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe(refusal('Phone'));
	});

	it('the bulk send fails only the item without a country code, by name, and sends the others once', async () => {
		const phones = ['+57 300 123 4567', nationalOnly, '573001234568'];
		const run = await suite.run(
			{
				resource: 'messaging',
				operation: 'sendSms',
				to: '={{ $json.phone }}',
				instance: 'line-1',
				message: '=Plans {{ $itemIndex }}',
			},
			{ items: phones.map((phone) => ({ phone })), continueOnFail: true },
		);
		expect(run.requests.map((request) => sentBody(request).to).sort()).toEqual([
			'573001234567',
			'573001234568',
		]);
		// An error item is its message alone in n8n's output: the message carries the fix.
		expect(run.items.map((item) => item.json.error ?? null)).toEqual([
			null,
			`${refusal('Recipient Phone')}. ${run.items[1].error?.description}`,
			null,
		]);
	});
});

const NODE_NAME = 'Conversational Messaging';
const hintsOf = (run: { run: RunResult['run'] }): NodeExecutionHint[] =>
	run.run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? [];
const national = (code: string, number: string) =>
	parsePhoneNumberFromString(`+${code}${number}`)!.formatNational();

describe('a Default Country', () => {
	it('reads every example number typed as at home (national prefix included) as a number of that country', () => {
		const read = exampleNumbers.map(({ region, code, national: number }) => ({
			region,
			typed: national(code, number),
			expected: `${code}${number}`,
			got: check(national(code, number), region),
		}));
		const wrong = read.filter(({ expected, got }) => !('digits' in got) || got.digits !== expected);
		// Without their national prefix too (figure only: the plans, not the prefix, decide those).
		const bare = exampleNumbers.filter(
			({ region, code, national: number }) =>
				(check(number, region) as { digits?: string }).digits === `${code}${number}`,
		).length;
		console.log(
			`Default Country: ${read.length - wrong.length} of ${read.length} example mobile numbers typed as at home (formatNational) sent with their country code; ${bare} of ${exampleNumbers.length} typed without their national prefix`,
		);
		expect(wrong).toEqual([]);
		expect(read.length).toBe(Object.keys(COUNTRIES).length);
	});

	it('keeps every international form, whatever the Default Country', () => {
		const wrong: string[] = [];
		for (const home of Object.keys(COUNTRIES))
			for (const { code, national: number } of exampleNumbers)
				for (const typed of [`+${code} ${number}`, `00${code}${number}`]) {
					const got = check(typed, home);
					if (!('digits' in got) || got.digits !== `${code}${number}`)
						wrong.push(`${typed} with ${home}`);
				}
		expect(wrong).toEqual([]);
	});

	it('never sends a number of its own country written as the service writes it to another: read so, or refused as ambiguous', () => {
		const refused: string[] = [];
		const wrong = exampleNumbers.flatMap(({ region, code, national: number }) => {
			const got = check(`${code}${number}`, region);
			if (!('digits' in got)) {
				refused.push(`${region} ${code}${number}`);
				return [];
			}
			return got.digits === `${code}${number}` ? [] : [`${region} ${code}${number}: ${got.digits}`];
		});
		console.log(
			`Default Country: ${exampleNumbers.length - refused.length} of ${exampleNumbers.length} example numbers written as the service writes them (country code first, no +) read so with their own country as Default Country; ${refused.length} refused as ambiguous: ${refused.join(', ')}`,
		);
		expect(wrong).toEqual([]);
		expect(check('4915123456789', 'DE')).toEqual({
			problem:
				'"4915123456789" could be a number of Germany (+49) as dialled within the country (+494915123456789) or with its country code first (+4915123456789)',
			fix: 'Write it with + and its country code, e.g. +4915123456789.',
		});
		expect(check('+49 1512 3456789', 'DE')).toEqual({ digits: '4915123456789' });
	});

	it('sends a number written country code first (no +) as written, unless it is a national number of the Default Country: then never silently', () => {
		// Every Default Country with every other country's example written as the service writes it.
		let pairs = 0;
		let atHome = 0;
		let validAtHome = 0;
		let refused = 0;
		const silent: string[] = [];
		for (const home of Object.keys(COUNTRIES))
			for (const { region, code, national: number } of exampleNumbers) {
				if (code === CODE_OF[home]) continue;
				pairs++;
				const reading = readPhone(`${code}${number}`, home);
				if (!('problem' in reading) && reading.digits === `${code}${number}`) continue;
				if ('problem' in reading) {
					// Only where numbers are written at home with their national prefix, and typed without it.
					if (
						!PREFIX_WRITTEN.has(home) ||
						!/typed without its national prefix/.test(reading.problem)
					)
						silent.push(`${region} ${code}${number} with ${home}: refused, ${reading.problem}`);
					refused++;
					continue;
				}
				atHome++;
				if (parsePhoneNumberFromString(`${code}${number}`, home as never)?.isValid()) validAtHome++;
				// Read at home: the reading says which other country it fits, and the bulk send's hint warns of it.
				if (reading.alsoAbroad !== code)
					silent.push(`${region} ${code}${number} with ${home}: ${reading.digits}`);
			}
		const asWritten = pairs - atHome - refused;
		console.log(
			`Default Country: ${asWritten} of ${pairs} (Default Country, another country's example written country code first) sent as written; ${refused} refused as ambiguous (Default Countries whose numbers are written with their national prefix); ${atHome} read as numbers of the Default Country (its national number pattern fits; ${validAtHome} of them valid there by libphonenumber's stricter rules), each named in the bulk send's hint`,
		);
		expect(silent).toEqual([]);
		// docs/PHONE_NUMBERS.md gives these figures.
		expect([pairs, asWritten, refused, atHome]).toEqual(PAIR_FIGURES);
	});

	it("gives its own country's example when a number fits neither reading", () => {
		expect(check('12345678901234', 'CO')).toEqual({
			problem:
				'"12345678901234" is not a number of Colombia (+57) as dialled there, and fits no country\'s numbering plan with its first digits as the country code',
			fix: 'Write a number of Colombia as dialled there (e.g. 321 1234567), or any number with + and its country code (e.g. +57 321 1234567). If 1 is its country code, check the digits: a number of United States and others (+1) has 7 or 10 digits after the country code, not 13.',
		});
		expect(check('0300', 'GB')).toMatchObject({
			problem: `"0300" is not a number of United Kingdom (+44) as dialled there, and has no country code (it starts with 0)`,
		});
		expect(check('+57 300', 'CO')).toEqual({
			problem: `"+57 300" is too short for a phone number: 5 digits, and at least ${SHORTEST_NUMBER} with the country code`,
			fix: 'Write a number of Colombia as dialled there (e.g. 321 1234567), or any number with + and its country code (e.g. +57 321 1234567).',
		});
	});
});

describe('the Default Country of the credential and of the node', () => {
	const sendSms = (to: string, extra: INodeParameters = {}): INodeParameters => ({
		resource: 'messaging',
		operation: 'sendSms',
		to,
		instance: 'line-1',
		message: 'Hi',
		...extra,
	});

	it.each(fields)(
		"%s reads a number typed as at home with the credential's Default Country",
		async (_operation, _label, parameters) => {
			const run = await suite.run(parameters, { credentials: { defaultCountry: 'CO' } });
			expect(run.error).toBeUndefined();
			// Send and Wait by SMS also shortens its link first.
			const sent = run.requests.filter((request) =>
				JSON.stringify(sentBody(request)).includes('"573001234567'),
			);
			expect(sent).toHaveLength(1);
		},
	);

	it("the node's setting wins: another country, none, or a country per item by expression", async () => {
		const us = await suite.run(sendSms('(201) 555-0123', { defaultCountry: 'US' }), {
			credentials: { defaultCountry: 'CO' },
		});
		expect(sentBody(us.requests[0]).to).toBe('12015550123');
		const none = await suite.run(sendSms('300 123 4567', { defaultCountry: 'none' }), {
			credentials: { defaultCountry: 'CO' },
		});
		expect(none.requests).toHaveLength(0);
		expect(none.error?.message).toMatch(/^Recipient Phone: "300 123 4567" fits no country's/);
		const perItem = await suite.run(
			sendSms('={{ $json.phone }}', { defaultCountry: '={{ $json.country }}' }),
			{
				items: [
					{ phone: '300 123 4567', country: 'co' },
					{ phone: '(201) 555-0123', country: 'US' },
					{ phone: '07400 123456', country: 'GB' },
				],
			},
		);
		expect(perItem.requests.map((request) => sentBody(request).to).sort()).toEqual([
			'12015550123',
			'447400123456',
			'573001234567',
		]);
		const unknown = await suite.run(sendSms('300 123 4567', { defaultCountry: '={{ "XX" }}' }));
		expect(unknown.requests).toHaveLength(0);
		expect(unknown.error?.message).toBe('Default Country: "XX" is not in the list of countries');
	});

	it('is a setting of exactly the operations with a phone field', () => {
		const nodeType = new ConversationalMessaging();
		const { description } = nodeType;
		// One per resource (and Send and Wait's channels with a phone): names may repeat, shown apart.
		const settings = description.properties.filter(({ name }) => name === 'defaultCountry');
		expect(settings.map((setting) => setting.isNodeSetting)).toEqual(settings.map(() => true));
		const shows = (parameters: INodeParameters) => {
			const full =
				NodeHelpers.getNodeParameters(
					description.properties,
					parameters,
					true,
					false,
					{
						typeVersion: 1,
					},
					description,
				) ?? {};
			return settings.some((setting) =>
				NodeHelpers.displayParameter(full, setting, { typeVersion: 1 }, description),
			);
		};
		const withPhone = fields.map(([, , parameters]) => parameters);
		const resources = description.properties.find((property) => property.name === 'resource')!
			.options as INodePropertyOptions[];
		const all = resources.flatMap(({ value: resource }) =>
			description.properties
				.filter(
					(property) =>
						property.name === 'operation' &&
						(property.displayOptions?.show?.resource as string[]).includes(String(resource)),
				)
				.flatMap((property) => property.options as INodePropertyOptions[])
				.map(({ value: operation }) => ({ resource, operation }) as INodeParameters),
		);
		const sendAndWaitChannels = ['chatapp', 'liveChat', 'sms', 'socialnet'].map(
			(channel) =>
				({
					resource: 'messaging',
					operation: 'sendAndWait',
					sendAndWaitChannel: channel,
				}) as INodeParameters,
		);
		const hasPhone = (parameters: INodeParameters) =>
			withPhone.some(
				(phone) =>
					phone.resource === parameters.resource &&
					phone.operation === parameters.operation &&
					(phone.sendAndWaitChannel ?? null) === (parameters.sendAndWaitChannel ?? null),
			);
		const forms = [
			...all.filter((parameters) => parameters.operation !== 'sendAndWait'),
			...sendAndWaitChannels,
		];
		expect(forms.filter(shows)).toEqual(forms.filter(hasPhone));
		expect(forms.filter(hasPhone)).toHaveLength(withPhone.length);
	});
});

describe('a bulk send names the countries its numbers went to', () => {
	// A workflow in UTC, a zone of no country: without a Default Country, first digits are the country code.
	const bulk = (phones: string[], defaultCountry?: string) =>
		suite.run(
			{
				resource: 'messaging',
				operation: 'sendSms',
				to: '={{ $json.phone }}',
				instance: 'line-1',
				message: 'Hi',
			},
			{
				items: phones.map((phone) => ({ phone })),
				continueOnFail: true,
				credentials: defaultCountry ? { defaultCountry } : {},
				timezone: 'UTC',
			},
		);

	it('without a Default Country, the 19 example numbers typed without their country code that pass, with their country', async () => {
		const run = await bulk(exampleNumbers.map(({ national: number }) => number));
		const passed = exampleNumbers.filter(({ national: number }) => 'digits' in check(number));
		expect(passed).toHaveLength(19);
		expect(run.requests).toHaveLength(19);
		const phoneHints = hintsOf(run).filter((hint) => hint.message.startsWith('Phone numbers:'));
		expect(phoneHints).toHaveLength(1);
		const counts = new Map<string, number>();
		for (const { national: number } of passed) {
			const { code } = fitPlan(number) as { code: string };
			counts.set(code, (counts.get(code) ?? 0) + 1);
		}
		for (const [code, count] of counts)
			expect(phoneHints[0].message).toMatch(new RegExp(`${count} to [^,]+\\(\\+${code}\\)`));
		// Numbers that went elsewhere than most, read from their first digits: a warning naming them.
		expect(phoneHints[0]).toMatchObject({ type: 'warning' });
		expect(phoneHints[0].message).toContain("Unlike most of the run's numbers, item");
		expect(phoneHints[0].message).toContain(
			"If any was typed without the country code, that one reached someone else: write numbers with + and their country code, or set the Default Country (in the credential, or in the node's Settings).",
		);
		console.log(`hint: ${phoneHints[0].message}`);
	});

	it("a number read as the Default Country's that also fits another country written code first: a warning that names it", async () => {
		// 2015550123: a US number typed as at home, and Egypt's +20 15550123 as the service writes numbers.
		const run = await bulk(['201 555 0123', '+1 202 555 0123'], 'US');
		expect(run.requests.map((request) => sentBody(request).to).sort()).toEqual([
			'12015550123',
			'12025550123',
		]);
		expect(hintsOf(run)).toEqual([
			{
				message:
					'Phone numbers: 2 to United States (+1). Item 0 (n8n counts items from 0) was sent as a number of United States (+1); written with the country code first, it would be a number of Egypt (+20). Write numbers of other countries with + and their country code.',
				type: 'info',
				location: 'outputPane',
			},
		]);
		// Brackets are never a country code's: that number is the Default Country's, and nothing else is said.
		const bracketed = await bulk(['(201) 555-0123', '+1 202 555 0123'], 'US');
		expect(bracketed.requests.map((request) => sentBody(request).to).sort()).toEqual([
			'12015550123',
			'12025550123',
		]);
		expect(hintsOf(bracketed)).toEqual([]);
		// Without a Default Country, numbers all with + give no hint.
		expect(hintsOf(await bulk(['+57 300 123 4567', '+57 300 123 4568']))).toEqual([]);
	});

	it('without a Default Country, numbers written country code first to one country: information, no advice; one that went elsewhere: a warning naming its item', async () => {
		const colombian = ['573001234567', '573001234568', '573001234569', '573001234570'];
		const correct = await bulk(colombian);
		expect(hintsOf(correct)).toEqual([
			{ message: 'Phone numbers: 4 to Colombia (+57).', type: 'info', location: 'outputPane' },
		]);
		// A US number typed without its country code among them: Egypt's, as the first digits say.
		const mixed = await bulk([...colombian.slice(0, 2), '201 555 0123', ...colombian.slice(2)]);
		expect(mixed.requests.map((request) => sentBody(request).to)).toContain('2015550123');
		expect(hintsOf(mixed)).toEqual([
			{
				message:
					"Phone numbers: 4 to Colombia (+57) and 1 to Egypt (+20). Unlike most of the run's numbers, item 2 (n8n counts items from 0) went to Egypt (+20): with no Default Country set, its first digits were read as the country code. If it was typed without its country code, it reached someone else: write numbers with + and their country code, or set the Default Country (in the credential, or in the node's Settings).",
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	it("the run's country is where its numbers with + went; with none and no majority, every number read from its first digits is named", async () => {
		const warningOf = async (phones: string[]) =>
			hintsOf(await bulk(phones)).find((hint) => hint.message.startsWith('Phone numbers:'));
		// The + number says the run's country, whichever comes first.
		for (const phones of [
			['201 555 0123', '+57 300 123 4567'],
			['+57 300 123 4567', '201 555 0123'],
		])
			expect(await warningOf(phones)).toMatchObject({
				type: 'warning',
				message: expect.stringContaining(
					`item ${phones.indexOf('201 555 0123')} (n8n counts items from 0) went to Egypt (+20)`,
				),
			});
		// Three read from their first digits to Egypt, two with + to Colombia: the three are named.
		expect(
			await warningOf([
				'201 555 0123',
				'201 555 0124',
				'201 555 0125',
				'+57 300 123 4567',
				'+57 300 123 4568',
			]),
		).toMatchObject({
			message: expect.stringContaining(
				"Unlike most of the run's numbers, items 0, 1 and 2 (n8n counts items from 0) went to Egypt (+20)",
			),
		});
		// One each, none with +: both named.
		expect(await warningOf(['201 555 0123', '573001234567'])).toMatchObject({
			type: 'warning',
			message: expect.stringContaining(
				"With the run's numbers split between countries, item 0 (n8n counts items from 0) went to Egypt (+20) and item 1 to Colombia (+57)",
			),
		});
	});

	it("without a Default Country, a number written as within its country is refused before sending, never sent as another country's", async () => {
		for (const typed of ['(201) 555-0123', '0300 123 4567']) {
			const run = await bulk([typed]);
			expect(run.requests).toEqual([]);
			// The error item (On Error: Continue) is its message alone in n8n's output: it names the fix.
			expect(run.items[0].json.error).toBe(
				`Recipient Phone: "${typed}" is written as dialled within its country (${typed.startsWith('(') ? 'the area code in brackets' : 'it starts with 0'}), and no Default Country is set to say which one. ${run.items[0].error?.description}`,
			);
			expect(run.items[0].error?.description).toContain('set the Default Country');
			expect(run.items[0].error?.description).toMatch(/This item was not sent\.$/);
		}
		// With a Default Country, the same number is that country's; not one of it, it is refused.
		const us = await bulk(['(201) 555-0123'], 'US');
		expect(us.requests.map((request) => sentBody(request).to)).toEqual(['12015550123']);
		const colombia = await bulk(['(201) 555-0123'], 'CO');
		expect(colombia.requests).toEqual([]);
		expect(colombia.items[0].error?.message).toContain(
			'Recipient Phone: "(201) 555-0123" is not a number of Colombia (+57) as dialled there, and has no country code (the area code in brackets). Write',
		);
		// Brackets around the country code are not an area code.
		const withCode = await bulk(['(+57) 300 123 4567', '(+1) 201 555 0123']);
		expect(withCode.requests.map((request) => sentBody(request).to)).toEqual([
			'573001234567',
			'12015550123',
		]);
	});

	it('with a Default Country: a hint only when the numbers went to more than one country', async () => {
		const home = await bulk(['300 123 4567', '+57 300 123 4568', '573001234569'], 'CO');
		expect(home.requests).toHaveLength(3);
		expect(hintsOf(home)).toEqual([]);
		const abroad = await bulk(['300 123 4567', '301 123 4567', '+20 10 01234567'], 'CO');
		expect(hintsOf(abroad)).toEqual([
			{
				message: 'Phone numbers: 2 to Colombia (+57) and 1 to Egypt (+20).',
				type: 'info',
				location: 'outputPane',
			},
		]);
	});
});

describe("without a Default Country, the workflow's time zone says where a number may be dialled", () => {
	const sendTo = (phone: string, timezone: string) =>
		suite.run(
			{ resource: 'messaging', operation: 'sendSms', to: phone, instance: 'line-1', message: 'Hi' },
			{ timezone },
		);

	it("201 555 0123 in a workflow on New York time could be two people's: refused before any request, naming Egypt and the United States", async () => {
		const run = await sendTo('201 555 0123', 'America/New_York');
		expect(run.requests).toEqual([]);
		expect(run.error?.message).toBe(
			`Recipient Phone: "201 555 0123" could be two people's numbers: one of Egypt (+20) read with its first digits as the country code (+2015550123), or one of United States (+1) as dialled there (+12015550123), the country of the workflow's time zone (America/New_York). No Default Country is set to say which`,
		);
		expect(run.error?.description).toBe(
			"Write it with + and its country code (+12015550123 or +2015550123), or set the Default Country (in the credential, or in the node's Settings) to the country your numbers are written in. This item was not sent.",
		);
	});

	it('the same digits in a workflow on Cairo time are sent to Egypt, as written', async () => {
		const run = await sendTo('201 555 0123', 'Africa/Cairo');
		expect(run.error).toBeUndefined();
		expect(run.requests.map((request) => sentBody(request).to)).toEqual(['2015550123']);
	});

	it.each(['America/New_York', 'Africa/Cairo', 'UTC'])(
		"573001234567 (the service's own form) is sent in a workflow on %s",
		async (timezone) => {
			const run = await sendTo('573001234567', timezone);
			expect(run.error).toBeUndefined();
			expect(run.requests.map((request) => sentBody(request).to)).toEqual(['573001234567']);
		},
	);

	it('a zone of no country (UTC) reads the first digits as the country code, as before', async () => {
		const run = await sendTo('201 555 0123', 'UTC');
		expect(run.requests.map((request) => sentBody(request).to)).toEqual(['2015550123']);
	});

	it('with a Default Country, the time zone is not asked', async () => {
		const run = await suite.run(
			{
				resource: 'messaging',
				operation: 'sendSms',
				to: '201 555 0123',
				instance: 'line-1',
				message: 'Hi',
			},
			{ timezone: 'America/New_York', credentials: { defaultCountry: 'EG' } },
		);
		expect(run.requests.map((request) => sentBody(request).to)).toEqual(['2015550123']);
	});

	it("every example number written country code first, in 20 zones: refused only when libphonenumber-js itself reads both numbers as valid, and the zone's as a mobile one", () => {
		const zones = [
			'America/New_York',
			'America/Bogota',
			'America/Sao_Paulo',
			'America/Mexico_City',
			'Africa/Cairo',
			'Africa/Lagos',
			'Africa/Johannesburg',
			'Asia/Shanghai',
			'Asia/Kolkata',
			'Asia/Tokyo',
			'Asia/Jakarta',
			'Asia/Manila',
			'Australia/Sydney',
			'Europe/Berlin',
			'Europe/London',
			'Europe/Madrid',
			'Europe/Moscow',
			'Europe/Paris',
			'Europe/Rome',
			'UTC',
		];
		const refused = new Map<string, string[]>();
		const wrong: string[] = [];
		for (const zone of zones)
			for (const { code, national } of exampleNumbers) {
				const digits = `${code}${national}`;
				const reading = readPhone(digits, undefined, zone);
				if (!('problem' in reading) || !reading.problem.includes("two people's")) continue;
				refused.set(zone, [...(refused.get(zone) ?? []), digits]);
				const local = countryOfZone(zone) as Parameters<typeof parsePhoneNumberFromString>[1];
				const asLocal = parsePhoneNumberFromString(digits, local);
				const asWritten = parsePhoneNumberFromString(`+${digits}`);
				if (
					!asWritten?.isValid() ||
					!asLocal?.isValid() ||
					!['MOBILE', 'FIXED_LINE_OR_MOBILE'].includes(asLocal.getType() ?? '')
				)
					wrong.push(`${zone} ${digits}`);
			}
		console.log(
			`two readings refused, of ${exampleNumbers.length} example numbers written country code first: ${zones.map((zone) => `${zone} ${refused.get(zone)?.length ?? 0}`).join(', ')}`,
		);
		expect(wrong).toEqual([]);
		// Where numbers are written with their trunk 0, a number without it is not read as dialled there.
		for (const zone of ['Europe/Berlin', 'Europe/London', 'Europe/Paris', 'UTC'])
			expect(refused.get(zone) ?? []).toEqual([]);
	});

	it('the zone table: old names and links included; no country for UTC', () => {
		expect(countryOfZone('America/New_York')).toBe('US');
		expect(countryOfZone('US/Eastern')).toBe('US');
		expect(countryOfZone('Asia/Calcutta')).toBe('IN');
		expect(countryOfZone('Asia/Kolkata')).toBe('IN');
		expect(countryOfZone('Africa/Cairo')).toBe('EG');
		expect(countryOfZone('America/Bogota')).toBe('CO');
		expect(countryOfZone('UTC')).toBeUndefined();
		// A link to a zone several countries share names no country: Iceland is Africa/Abidjan's.
		expect(countryOfZone('Iceland')).toBeUndefined();
		expect(countryOfZone('Atlantic/Reykjavik')).toBe('IS');
		expect(countryOfZone('Etc/GMT+5')).toBeUndefined();
	});
});
