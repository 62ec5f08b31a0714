/**
 * Recipient Rules in n8n's engine against the sandbox (recipientRules/): the Send Window on a
 * clock set to a known instant (time passes from there as on the machine), Do Not Send To, the
 * daily cap across executions, and bad settings refused before any request.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { useClock } from '../../../../nodes/ConversationalMessaging/clock';
import { loadNodeType, NODE_TYPE, registerNodeType } from '../../../helpers/engine';
import type { SandboxRun } from '../../../helpers/sandbox';
import { SEND_SMS, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();

/** Monday 30 November 2026, 15:00 UTC: 10:00 in New York, 05:00 in Honolulu, 16:00 in Madrid. */
const MONDAY_15_UTC = Date.UTC(2026, 10, 30, 15, 0, 0);

/** The node's clock from `start`, running at the machine's pace. */
function clockAt(start: number): () => void {
	const began = Date.now();
	return useClock({
		now: () => start + (Date.now() - began),
		sleep: async (ms) => await new Promise((resolve) => setTimeout(resolve, ms)),
	});
}

let restore: (() => void) | undefined;
afterEach(() => restore?.());

const withRules = (rules: IDataObject): INodeParameters => ({
	...SEND_SMS,
	messagingRecipientRules: rules as INodeParameters,
});
const WINDOW = { sendWindow: { window: { from: '08:00', until: '21:00' } } };

const phonesSent = (run: SandboxRun) =>
	run.requests.map((request) => (request.body as IDataObject).to).sort();
const heldOf = (run: SandboxRun): INodeExecutionData[] =>
	run.run.data.resultData.runData['Conversational Messaging'][0].data?.main[1] ?? [];
const hintsOf = (run: SandboxRun) =>
	(run.run.data.resultData.runData['Conversational Messaging'][0].hints ?? []).map(
		(hint) => hint.message,
	);

describe("the node's outputs, as n8n reads them (NodeHelpers.getNodeOutputs)", () => {
	const outputsOf = (parameters: INodeParameters) => {
		const nodeType = loadNodeType();
		const node = {
			id: 'n',
			name: 'Send',
			type: NODE_TYPE,
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters,
		};
		const nodeTypes = {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return NodeHelpers.getNodeOutputs(workflow, node, nodeType.description);
	};

	test('Done and Held while a ruled send has a Send Window; one output otherwise', () => {
		expect(outputsOf(withRules(WINDOW))).toEqual([
			{ type: 'main', displayName: 'Done' },
			{ type: 'main', displayName: 'Held' },
		]);
		expect(outputsOf(withRules({ doNotSendTo: '+573001234567' }))).toEqual(['main']);
		expect(outputsOf(SEND_SMS)).toEqual(['main']);
		expect(
			outputsOf({
				resource: 'legacyMessage',
				operation: 'send',
				legacyMessageRecipientRules: WINDOW,
			}),
		).toEqual([
			{ type: 'main', displayName: 'Done' },
			{ type: 'main', displayName: 'Held' },
		]);
		// Not a ruled operation: a leftover collection changes nothing.
		expect(
			outputsOf({
				resource: 'messaging',
				operation: 'checkChatappNumber',
				messagingRecipientRules: WINDOW,
			}),
		).toEqual(['main']);
	});
});

describe('Send Window', () => {
	const people = [
		{ phone: '+1 212 555 0123', name: 'New York' },
		{ phone: '+1 808 555 0123', name: 'Honolulu' },
		{ phone: '+61 412 345 678', name: 'Sydney' },
		{ phone: '+34 612 345 678', name: 'Madrid' },
		{ phone: '+1 907 555 0123', name: 'Alaska' },
	];

	test('sends the open group now and holds the others, earliest first, with sendAfter', async () => {
		restore = clockAt(MONDAY_15_UTC);
		const run = await suite.run(withRules(WINDOW), { items: people });
		expect(run.error).toBeUndefined();
		expect(phonesSent(run)).toEqual(['12125550123', '34612345678']);
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 3 }]);
		// Honolulu opens at 08:00 HST (18:00 UTC); Alaska's 907 is Adak's and Anchorage's, and Adak
		// (HST too) opens last; Sydney at 08:00 AEDT on Tuesday (21:00 UTC on Monday).
		expect(heldOf(run).map((item) => item.json)).toEqual([
			{ ...people[1], sendAfter: '2026-11-30T08:00:00-10:00', timeZones: ['Pacific/Honolulu'] },
			{
				...people[4],
				sendAfter: '2026-11-30T08:00:00-10:00',
				timeZones: ['America/Adak', 'America/Anchorage'],
			},
			{ ...people[2], sendAfter: '2026-12-01T08:00:00+11:00', timeZones: ['Australia/Sydney'] },
		]);
		expect(heldOf(run).map((item) => item.pairedItem)).toEqual([
			{ item: 1 },
			{ item: 4 },
			{ item: 2 },
		]);
		const hint = hintsOf(run).find((message) => message.startsWith('Recipient Rules')) ?? '';
		expect(hint).toContain('Recipient Rules: 2 items sent.');
		expect(hint).toContain(
			'3 held until their Send Window opens: the first at 2026-11-30T08:00:00-10:00 (Pacific/Honolulu), the last at 2026-12-01T08:00:00+11:00 (Australia/Sydney)',
		);
		// The test's workflow connects nothing to Held.
		expect(hint).toContain('Nothing is connected to the Held output');
	});

	test('the held items, given back after their wait, go; the rest are held again', async () => {
		restore = clockAt(Date.UTC(2026, 10, 30, 18, 0, 30));
		const held = [
			{ ...people[1], sendAfter: '2026-11-30T08:00:00-10:00' },
			{ ...people[4], sendAfter: '2026-11-30T08:00:00-10:00' },
			{ ...people[2], sendAfter: '2026-12-01T08:00:00+11:00' },
		];
		const run = await suite.run(withRules(WINDOW), { items: held });
		expect(phonesSent(run)).toEqual(['18085550123', '19075550123']);
		expect(heldOf(run).map((item) => item.json.phone)).toEqual(['+61 412 345 678']);
	});

	test("a per-item Time Zone overrides the number's", async () => {
		restore = clockAt(MONDAY_15_UTC);
		const run = await suite.run(
			withRules({
				sendWindow: { window: { from: '08:00', until: '21:00', timeZone: '={{ $json.zone }}' } },
			}),
			{
				items: [
					// No zone of its own (item 0, whose expression gives nothing): the number's, New York.
					{ phone: '+1 212 555 0100' },
					// A New York number whose owner lives in Madrid (16:00): sent.
					{ phone: '+1 212 555 0123', zone: 'Europe/Madrid' },
					// A Madrid number whose owner is in Los Angeles (07:00): held until 08:00 PST.
					{ phone: '+34 612 345 678', zone: 'America/Los_Angeles' },
				],
			},
		);
		expect(phonesSent(run)).toEqual(['12125550100', '12125550123']);
		expect(heldOf(run).map((item) => [item.json.sendAfter, item.json.timeZones])).toEqual([
			['2026-11-30T08:00:00-08:00', ['America/Los_Angeles']],
		]);
	});

	test('a closed day holds until the next open one', async () => {
		restore = clockAt(MONDAY_15_UTC);
		const run = await suite.run(
			withRules({
				sendWindow: { window: { from: '08:00', until: '22:00', days: ['tuesday'] } },
			}),
			{ items: [{ phone: '+33 6 12 34 56 78' }] },
		);
		expect(run.requests).toHaveLength(0);
		expect(heldOf(run)[0].json.sendAfter).toBe('2026-12-01T08:00:00+01:00');
	});

	test("as an AI Agent's tool, a held item comes out on the one output the agent reads, saying when it may go", async () => {
		restore = clockAt(MONDAY_15_UTC);
		registerNodeType(`${NODE_TYPE}Tool`, loadNodeType());
		const run = await suite.run(withRules(WINDOW), {
			items: [people[1]],
			nodeType: `${NODE_TYPE}Tool`,
		});
		expect(run.requests).toHaveLength(0);
		expect(run.items.map((item) => item.json)).toEqual([
			{
				sent: false,
				held: { sendAfter: '2026-11-30T08:00:00-10:00', timeZones: ['Pacific/Honolulu'] },
				message:
					"Not sent: it is outside the Send Window in the recipient's local time (Pacific/Honolulu). It may be sent from 2026-11-30T08:00:00-10:00.",
			},
		]);
	});

	test('with every rule off, one output and no hint of them', async () => {
		restore = clockAt(MONDAY_15_UTC);
		const run = await suite.run(withRules({}), { items: [people[1]] });
		expect(phonesSent(run)).toEqual(['18085550123']);
		expect(run.run.data.resultData.runData['Conversational Messaging'][0].data?.main).toHaveLength(
			1,
		);
	});
});

describe('Do Not Send To', () => {
	test('stops a number however it is written, and says so; it never reaches the service', async () => {
		const run = await suite.run(withRules({ doNotSendTo: '+57 300-123 4567\n+1 201 555 0199' }), {
			items: [{ phone: '573001234567' }, { phone: '+57 300 765 4321' }],
		});
		expect(phonesSent(run)).toEqual(['573007654321']);
		expect(run.items[0].json).toEqual({
			sent: false,
			skipped: {
				rule: 'doNotSendTo',
				recipient: '573001234567',
				message: 'The recipient is on Do Not Send To (Recipient Rules): nothing was sent.',
			},
		});
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
		expect(heldOf(run)).toEqual([]);
	});

	test('a person on the list is never held, even outside their window; the hint counts each', async () => {
		restore = clockAt(MONDAY_15_UTC);
		const run = await suite.run(
			withRules({ ...WINDOW, doNotSendTo: '+1 808 555 0123', maxPerDay: 1 }),
			{
				items: [
					{ phone: '+1 808 555 0123' },
					{ phone: '+1 808 555 0124' },
					{ phone: '+1 212 555 0177' },
					{ phone: '+1 212 555 0177' },
				],
			},
		);
		expect(phonesSent(run)).toEqual(['12125550177']);
		expect(heldOf(run).map((item) => item.json.phone)).toEqual(['+1 808 555 0124']);
		expect(run.items.map((item) => (item.json.skipped as IDataObject)?.rule)).toEqual([
			'doNotSendTo',
			undefined,
			'maxPerDay',
		]);
		const hint = hintsOf(run).find((message) => message.startsWith('Recipient Rules')) ?? '';
		expect(hint).toContain('Recipient Rules: 1 item sent. 1 held until 2026-11-30T08:00:00-10:00');
		expect(hint).toContain(
			'Not sent: 1 on Do Not Send To and 1 over Max Messages per Person per Day.',
		);
	});

	test('takes a list from an expression', async () => {
		const run = await suite.run(
			withRules({ doNotSendTo: "={{ ['+57 300 123 4567', 573007654321] }}" }),
			{
				items: [{ phone: '+573001234567' }, { phone: '+573007654321' }, { phone: '+573001112233' }],
			},
		);
		expect(phonesSent(run)).toEqual(['573001112233']);
	});
});

describe('bad settings are refused before any request', () => {
	test.each([
		[
			{ doNotSendTo: '+57 300 123 4567, hello' },
			'Do Not Send To: entry 2, "hello" is not a phone number',
		],
		// Read as a recipient is, in the workflow's time zone (n8n's default, New York): Egypt's
		// 2015550123 or the United States' 12015550123, so it could stop neither: refused.
		[
			{ doNotSendTo: '+57 300 123 4567, 201 555 0123' },
			`Do Not Send To: entry 2, "201 555 0123" could be two people's numbers: one of Egypt (+20)`,
		],
		[{ sendWindow: { window: { from: '08:00', until: '08:00' } } }, 'Send Window'],
		[{ sendWindow: { window: { from: '8am', until: '21:00' } } }, 'Send Window'],
		[
			{ sendWindow: { window: { from: '08:00', until: '21:00', timeZone: 'Mars/Olympus' } } },
			'Time Zone: "Mars/Olympus" is not a time zone',
		],
		[
			{ maxPerDay: '={{ 0 }}' },
			'Max Messages per Person per Day: 0 is not a whole number of 1 or more',
		],
	])('%j', async (rules, message) => {
		const run = await suite.run(withRules(rules), { items: [{ phone: '+573001234567' }] });
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toContain(message);
	});

	test('an unknown Time Zone fails its item alone, naming the field', async () => {
		const run = await suite.run(
			withRules({
				sendWindow: { window: { from: '00:00', until: '23:59', timeZone: '={{ $json.zone }}' } },
			}),
			{
				items: [
					{ phone: '+573001234567', zone: 'Mars/Olympus' },
					{ phone: '+573007654321', zone: 'America/Bogota' },
				],
				continueOnFail: true,
			},
		);
		expect(phonesSent(run)).toEqual(['573007654321']);
		expect(String(run.items[0].json.error)).toContain(
			'Time Zone: "Mars/Olympus" is not a time zone',
		);
	});
});

describe('with other rules', () => {
	test('a send stopped part-way counts the items the rules kept back apart from those not sent', async () => {
		restore = clockAt(MONDAY_15_UTC);
		suite.sandbox.injectFault({
			kind: 'errTrue',
			message: 'The number opted out of SMS',
			match: { path: '/v1/sms', body: { to: '12125550142' } },
			times: 1,
		});
		const run = await suite.run(withRules(WINDOW), {
			items: [
				{ phone: '+1 212 555 0141' },
				{ phone: '+1 808 555 0141' },
				{ phone: '+1 212 555 0142' },
			],
		});
		expect(run.error?.description).toContain(
			'Item 2 stopped the send (n8n counts items from 0: the 3rd item): 1 of 3 items was sent, this one was not sent and 1 was held or skipped by Recipient Rules (a Retry decides them again).',
		);
	});
});

describe('Max Messages per Person per Day', () => {
	test('takes a number an expression gives as text (a sheet cell)', async () => {
		const run = await suite.run(withRules({ maxPerDay: "={{ '1' }}" }), {
			items: [{ phone: '+573005550031' }, { phone: '+573005550031' }],
		});
		expect(phonesSent(run)).toEqual(['573005550031']);
		expect((run.items[1].json.skipped as IDataObject).rule).toBe('maxPerDay');
	});

	test('holds across executions, counting only what the service accepted', async () => {
		const rules = withRules({ maxPerDay: 1 });
		// The service refuses the first try to one person: it does not count.
		suite.sandbox.injectFault({
			kind: 'errTrue',
			message: 'The number opted out of SMS',
			match: { path: '/v1/sms', body: { to: '573009990000' } },
			times: 1,
		});
		const first = await suite.run(rules, {
			items: [
				{ phone: '+573005550001' },
				{ phone: '+57 300 555 0001' },
				{ phone: '+573005550002' },
				{ phone: '+573009990000' },
			],
			continueOnFail: true,
		});
		expect(phonesSent(first)).toEqual(['573005550001', '573005550002', '573009990000']);
		expect(first.items.map((item) => (item.json.skipped as IDataObject)?.rule)).toEqual([
			undefined,
			'maxPerDay',
			undefined,
			undefined,
		]);
		const second = await suite.run(rules, {
			items: [{ phone: '+573005550001' }, { phone: '+573005550002' }, { phone: '+573009990000' }],
			continueOnFail: true,
		});
		// The refused one was not counted: it goes now; the other two had their message today.
		expect(phonesSent(second)).toEqual(['573009990000']);
		expect(hintsOf(second).join(' ')).toContain(
			'Not sent: 2 over Max Messages per Person per Day.',
		);
	});
});
