/**
 * Phone fields are checked against the world's numbering plans (issue 22): the table
 * scripts/phone-plans.mjs compiles from libphonenumber-js's metadata admits every example number
 * the library ships and every number it deems valid, refuses `300 123 4567` (a Colombian number
 * typed without +57) in every phone field by name, stays small in dist/, and is never stale.
 */
import { spawnSync } from 'child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';
import parsePhoneNumberFromString from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';
import metadata from 'libphonenumber-js/metadata.max.json';
import type { INodeParameters } from 'n8n-workflow';

import {
	fitPlan,
	SHORTEST_NUMBER,
} from '../../../nodes/ConversationalMessaging/shared/phone/numberingPlan';
import {
	LIBPHONENUMBER_VERSION,
	PLANS,
} from '../../../nodes/ConversationalMessaging/shared/phone/plans';
import { normalisePhone } from '../../../nodes/ConversationalMessaging/shared/checks';
import { sentBody, useSandbox } from '../../helpers/sandbox';

const root = join(__dirname, '../../..');
const suite = useSandbox();

/** normalisePhone's answer: the digits, or the problem and the fix it failed with. */
function check(typed: string): { digits: string } | { problem: string; fix: string } {
	try {
		return {
			digits: normalisePhone(typed, (problem, fix) => {
				throw Object.assign(new Error(problem), { fix });
			}),
		};
	} catch (error) {
		return { problem: (error as Error).message, fix: (error as Error & { fix: string }).fix };
	}
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
			problem: `"${'1'.repeat(SHORTEST_NUMBER - 1)}" has ${SHORTEST_NUMBER - 1} digits, and no country's numbering plan has numbers of fewer than ${SHORTEST_NUMBER}, country code included`,
		});
		expect(check('1234567890123456')).toMatchObject({
			problem:
				'"1234567890123456" has 16 digits, and a phone number has at most 15, country code included (E.164)',
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
			fix: 'Put the country code first, e.g. +57 300 123 4567 for Colombia. If 30 is its country code, check the digits: after the country code 30 come 10 to 12 digits, not 8.',
		});
		expect(check('+57 300 123 456')).toEqual({
			problem:
				'"+57 300 123 456" fits no country\'s numbering plan: after the country code 57 come 8, 10 or 11 digits, not 9',
			fix: 'Check the country code and the digits of the number.',
		});
		expect(check('+57 200 123 4567')).toMatchObject({
			problem: expect.stringContaining(
				'after the country code 57, a number of 10 digits starts with 3, 6 or 9, not 2',
			),
		});
		expect(check('+28 1234 5678')).toMatchObject({
			problem: expect.stringContaining('it starts with no country calling code'),
		});
		expect(check('+44 (0)20 7946 0958')).toMatchObject({
			fix: 'Leave out the 0 after the country code 44: it is dialled only within the country.',
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
		const table = join(root, 'dist/nodes/ConversationalMessaging/shared/phone/plans.js');
		expect(existsSync(table)).toBe(true);
		expect(statSync(table).size).toBeLessThan(30 * 1024);
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

describe('every phone field', () => {
	const nationalOnly = '300 123 4567';
	const refusal = (label: string) =>
		`${label}: "${nationalOnly}" fits no country's numbering plan: it looks like a number without its country code`;
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
				sendAndWaitSmsInstance: 'line-1',
				sendAndWaitSmsRecipient: nationalOnly,
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
				sendAndWaitChatappInstance: 'qr-1',
				sendAndWaitChatappRecipient: nationalOnly,
			},
		],
	];

	it.each(fields)(
		'%s refuses a number without its country code, naming %s, and sends nothing',
		async (_operation, label, parameters) => {
			const run = await suite.run(parameters);
			expect(run.requests).toHaveLength(0);
			expect(run.error?.message).toBe(refusal(label));
			expect(run.error?.description).toMatch(
				/^Put the country code first, e\.g\. \+57 300 123 4567 for Colombia\./,
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
		expect(run.items.map((item) => item.json.error ?? null)).toEqual([
			null,
			refusal('Recipient Phone'),
			null,
		]);
	});
});
