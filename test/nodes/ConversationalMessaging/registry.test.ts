/**
 * The operation registry (nodes/ConversationalMessaging/registry.ts): a bulk operation added by its
 * spec alone, in its resource's list, is in every list the description derives, and runs through
 * the send loop: paced to the account's limit, with its Send Options, each item sent once, and
 * remembered for n8n's Retry after a stop.
 */
import type {
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import {
	ConversationalMessaging,
	RESOURCES,
} from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import { customOperationsOf } from '../../../nodes/ConversationalMessaging/customOperations';
import {
	messageTextField,
	phoneField,
} from '../../../nodes/ConversationalMessaging/form/messageFields';
import { lineInstance } from '../../../nodes/ConversationalMessaging/resources/messaging/sendSms';
import type { BulkSpec } from '../../../nodes/ConversationalMessaging/form/operations';
import { describedBy } from '../../../nodes/ConversationalMessaging/registry';
import { registerNodeType } from '../../helpers/engine';
import { useSandbox } from '../../helpers/sandbox';

/** An SMS the phone shows at once: a new bulk operation, its spec and nothing else. */
const sendFlashSms: BulkSpec = {
	name: 'Send Flash SMS',
	value: 'sendFlashSms',
	action: 'Send a flash SMS',
	description: 'Send an SMS the phone shows at once on its screen',
	method: 'POST',
	url: '/v1/sms',
	body: { type: 'flash' },
	sends: 'inBulk',
	toAPerson: true,
	fields: [
		lineInstance,
		phoneField({ displayName: 'Recipient Phone', name: 'flashTo', sendTo: 'body.to' }),
		messageTextField({ name: 'flashMessage', sendTo: 'body.body' }),
	],
};

/** The node's resources, with the fixture in its resource's list: the one place it is added. */
const resources = RESOURCES.map((resource) =>
	resource.value === 'messaging'
		? { ...resource, operations: [...resource.operations, sendFlashSms] }
		: resource,
);

/** The node as it would be with the fixture: its description's lists and its own operations derived as the node derives them. */
class WithFlashSms extends ConversationalMessaging {
	description: INodeTypeDescription = { ...this.description, ...describedBy(resources) };

	customOperations = customOperationsOf(resources, this.description);
}

const node: INodeType = new WithFlashSms();
const NODE_TYPE = 'test.conversationalMessagingWithFlashSms';
registerNodeType(NODE_TYPE, node);

// A gateway that allows 50 requests a second, 3 at once after a quiet spell.
const suite = useSandbox({ rateLimit: { perSecond: 50, burst: 3 } });

/** Shown for the fixture: a property of that name whose show lists messaging and it. */
const shownFor = (name: string) =>
	node.description.properties.filter(
		(property: INodeProperties) =>
			property.name === name &&
			(property.displayOptions?.show?.resource as string[] | undefined)?.includes('messaging') &&
			(property.displayOptions?.show?.operation as string[] | undefined)?.includes('sendFlashSms'),
	);

const phoneOf = (run: string, index: number) => `573${run}${String(index).padStart(7, '0')}`;
const parameters = (sendOptions = {}) => ({
	resource: 'messaging',
	operation: 'sendFlashSms',
	instance: 'line-1',
	flashTo: '={{ $json.phone }}',
	flashMessage: 'Doors open at 9',
	messagingSendOptions: sendOptions,
});
const items = (run: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({ phone: phoneOf(run, index) }));
/** How many times the service recorded each phone of the run, in item order. */
function deliveries(run: string, count: number): number[] {
	const counts = new Map<string, number>();
	for (const message of suite.sandbox.state.sentMessages.values())
		counts.set(message.to, (counts.get(message.to) ?? 0) + 1);
	return Array.from({ length: count }, (_, index) => counts.get(phoneOf(run, index)) ?? 0);
}

describe('a bulk operation added by its spec alone', () => {
	it('is in every list the description derives, and among the operations the node runs itself', () => {
		const operation = node.description.properties.find(
			(property) =>
				property.name === 'operation' &&
				(property.displayOptions?.show?.resource as string[]).includes('messaging'),
		);
		const option = (operation?.options as INodePropertyOptions[]).find(
			({ value }) => value === 'sendFlashSms',
		);
		// n8n-core runs its customOperations entry, the send loop; its routing only where n8n runs
		// the node's execute instead (toolPath.test.ts).
		expect(option).toEqual(
			expect.objectContaining({
				name: 'Send Flash SMS',
				value: 'sendFlashSms',
				action: 'Send a flash SMS',
				description: 'Send an SMS the phone shows at once on its screen',
			}),
		);
		expect(option?.routing?.request).toEqual({
			method: 'POST',
			url: '/v1/sms',
			body: { type: 'flash' },
		});
		expect(typeof node.customOperations?.messaging?.sendFlashSms).toBe('function');
		// The business lines' one Instance, Send Options, Recipient Rules, the Default Country.
		for (const name of [
			'instance',
			'messagingSendOptions',
			'messagingRecipientRules',
			'defaultCountry',
		])
			expect([name, shownFor(name)]).toEqual([name, [expect.objectContaining({ name })]]);
		expect(shownFor('flashTo')).toHaveLength(1);
		expect(node.description.subtitle).toContain('"messaging.sendFlashSms":"Send a flash SMS"');
		expect(node.description.outputs).toContain('"sendFlashSms"');
		// Nothing else of the node changed.
		const plain = new ConversationalMessaging().description.properties;
		expect(node.description.properties.length).toBe(plain.length + 2);
	});

	it('is paced to the account: the gateway refuses the burst beyond 3, and each phone gets one message', async () => {
		const before = suite.sandbox.stats().rateLimited;
		const run = await suite.run(parameters(), { items: items('71', 12), nodeType: NODE_TYPE });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.to)).toEqual(
			items('71', 12).map(({ phone }) => phone),
		);
		expect(deliveries('71', 12)).toEqual(Array.from({ length: 12 }, () => 1));
		expect(
			run.requests.every((request) => (request.body as { type?: string }).type === 'flash'),
		).toBe(true);
		// Refused ones waited and went again: the send slowed to the gateway's pace.
		expect(suite.sandbox.stats().rateLimited).toBeGreaterThan(before);
	});

	it('takes its Send Options: with Max Wait 0, an item the gateway refuses fails saying so', async () => {
		const run = await suite.run(parameters({ maxWait: 0, maxInFlight: 12 }), {
			items: items('72', 12),
			nodeType: NODE_TYPE,
			continueOnFail: true,
		});
		const failed = run.items.filter((item) => item.json.error);
		expect(failed.length).toBeGreaterThan(0);
		expect(String(failed[0].json.error)).toContain('Max Wait (Send Options)');
		// What failed was not carried out: each phone has at most one message.
		expect(deliveries('72', 12).every((times) => times <= 1)).toBe(true);
	});

	it("is remembered for n8n's Retry: after a stop, the retry sends only what the service did not get", async () => {
		suite.sandbox.injectFault({
			kind: 'errTrue',
			message: 'body.to is not a number this line can reach',
			times: 1,
			match: { path: '/v1/sms', body: { to: phoneOf('73', 4) } },
		});
		const failed = await suite.run(parameters(), { items: items('73', 6), nodeType: NODE_TYPE });
		expect(failed.error?.message).toBe(
			'The service answered 400: body.to is not a number this line can reach',
		);
		const accepted = deliveries('73', 6).filter((times) => times === 1).length;
		expect(accepted).toBeLessThan(6);

		const retried = await failed.retry();

		expect(retried.error).toBeUndefined();
		expect(deliveries('73', 6)).toEqual(Array.from({ length: 6 }, () => 1));
		const again = retried.items.filter((item) => item.json.alreadySent !== undefined);
		expect(again).toHaveLength(accepted);
	});
});
