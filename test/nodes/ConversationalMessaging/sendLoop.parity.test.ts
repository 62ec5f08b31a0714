/**
 * Parity: the send loop builds, from the description, the very request n8n's RoutingNode builds
 * from it. Every bulk operation and each of its variants (message types, optional fields, values
 * from expressions, values the pre-send checks refuse) runs through the node as users get it
 * (the loop) and through the same node without its custom operations (RoutingNode), against a
 * sandbox reset before each run: the requests (method, path, query, body with the token,
 * content headers), the items (json, pairing) and the errors must be the same.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { Expression } from 'n8n-workflow';

import { BULK_OPERATIONS } from '../../../nodes/ConversationalMessaging/shared/bulk/options';
import type { RecordedRequest } from '../../../sandbox/server';
import { NODE_TYPE, ROUTING_ONLY_NODE_TYPE } from '../../helpers/engine';
import { withoutSandboxIds } from '../../helpers/ids';
import { useSandbox } from '../../helpers/sandbox';
import { VALUE_KINDS } from '../../helpers/valueKinds';

const suite = useSandbox();
const SESSION = 'parity-session';

interface Variant {
	name: string;
	parameters: INodeParameters;
	items: IDataObject[];
}

const phones = [
	{ phone: '+57 300 123 4567', text: 'Hola' },
	{ phone: '4915112345678', text: 'Hallo' },
	{ phone: '0300 12', text: 'bad phone' },
];
const media = (type: string, extra: IDataObject = {}) => ({
	messageType: type,
	recipient: '={{ $json.phone }}',
	legacyInstance: 'qr-1',
	fileUrl: 'https://cdn.example.com/f.bin',
	...extra,
});

const VARIANTS: Record<string, Variant[]> = {
	'messaging.sendSms': [
		{
			name: 'text from expressions, one bad phone',
			parameters: { to: '={{ $json.phone }}', instance: 'sms-line', message: '={{ $json.text }}' },
			items: phones,
		},
		{
			name: 'a message left empty by its expression',
			parameters: { to: '573001234567', instance: 'sms-line', message: '={{ $json.missing }}' },
			items: [{}],
		},
		// The loop reads `{{ $json.a.b }}` itself when the item holds a string, number or boolean there.
		{
			name: 'values of every kind read by {{ $json.… }}',
			parameters: {
				to: '={{$json.phone}}',
				instance: '={{ $json.line.name }}',
				message: '={{ $json.text }}',
			},
			items: VALUE_KINDS,
		},
		{
			name: 'a key n8n refuses to read',
			parameters: { to: '573001234567', instance: 'sms-line', message: '={{ $json.constructor }}' },
			items: [{ constructor: 'Hola' }],
		},
		{
			name: 'a template of reads',
			parameters: {
				to: '= {{ $json.phone }}',
				instance: "={{ $json['line'].name }}",
				message: '=Hi {{ $json.text }}, from {{ $json["line"].name }}!{{$json.text}}',
			},
			items: VALUE_KINDS,
		},
		{
			name: 'expressions the loop leaves to n8n',
			parameters: {
				to: '={{ $json.phone + "" }}',
				instance: '={{ $json.line?.name }}',
				message: '=Hi \\{{ $json.text }} {{ $json.text.trim() }}',
			},
			items: VALUE_KINDS.slice(0, 3),
		},
	],
	'messaging.sendSocialnet': [
		...['audio', 'file', 'image', 'video'].map((type) => ({
			name: `${type} with a caption`,
			parameters: {
				socialnetType: type,
				recipientId: 'psid-1',
				instance: 'page-1',
				socialnetFileUrl: '={{ $json.url }}',
				socialnetFields: { caption: 'Look' },
			},
			items: [{ url: 'https://cdn.example.com/a.png' }, { url: 'not a url' }],
		})),
		{
			name: 'text',
			parameters: {
				socialnetType: 'text',
				recipientId: '={{ $json.id }}',
				instance: 'page-1',
				socialnetText: 'Hi',
			},
			items: [{ id: 'psid-2' }, { id: 42 }],
		},
	],
	'messaging.injectCrmLead': [
		{
			name: 'minimal',
			parameters: {
				contactPhone: '={{ $json.phone }}',
				instance: 'line-1',
				leadMessage: '={{ $json.text }}',
				channel: 'chatapp',
			},
			items: phones,
		},
		{
			name: 'every optional field, tags as text and as a list',
			parameters: {
				contactPhone: '573001234567@c.us',
				instance: 'line-1',
				leadMessage: 'Quote',
				channel: 'sn-messenger',
				leadFields: { agent: 'agent-1', area: 'sales', process: 'p-1', tags: '={{ $json.tags }}' },
			},
			items: [{ tags: 'web, promo' }, { tags: ['a', 'b'] }, { tags: { not: 'a list' } }],
		},
		{
			name: 'an agent without an area',
			parameters: {
				contactPhone: '573001234567',
				instance: 'line-1',
				leadMessage: 'Quote',
				channel: 'chatapp',
				leadFields: { agent: 'agent-1' },
			},
			items: [{}],
		},
	],
	'messaging.checkChatappNumber': [
		{
			name: 'numbers from expressions',
			parameters: { number: '={{ $json.phone }}', instance: 'line-1' },
			items: phones,
		},
	],
	'legacyMessage.send': [
		{
			name: 'chat',
			parameters: {
				messageType: 'chat',
				recipient: '={{ $json.phone }}',
				legacyInstance: 'qr-1',
				chatText: '={{ $json.text }}',
			},
			items: phones,
		},
		{
			name: 'image with a caption',
			parameters: media('image', { legacyMessageFields: { caption: 'Menu' } }),
			items: phones,
		},
		{
			name: 'video with a caption',
			parameters: media('video', { legacyMessageFields: { caption: 'Clip' } }),
			items: phones.slice(0, 1),
		},
		{
			name: 'document with a file name',
			parameters: media('document', { legacyMessageFields: { filename: 'invoice.pdf' } }),
			items: phones.slice(0, 1),
		},
		{ name: 'audio', parameters: media('audio'), items: phones.slice(0, 1) },
		{ name: 'GIF', parameters: media('gif'), items: phones.slice(0, 1) },
		{
			name: 'sticker',
			parameters: {
				messageType: 'sticker',
				recipient: '573001234567',
				legacyInstance: 'qr-1',
				sticker: 'https://cdn.example.com/s.webp',
			},
			items: [{}],
		},
		{
			name: 'location, one latitude out of range',
			parameters: {
				messageType: 'location',
				recipient: '573001234567',
				legacyInstance: 'qr-1',
				locationText: 'Office',
				latitude: '={{ $json.lat }}',
				longitude: -74.0721,
			},
			items: [{ lat: 4.711 }, { lat: 123 }],
		},
	],
	'liveChat.sendMessage': [
		{
			name: 'as the business',
			parameters: {
				sessionId: SESSION,
				liveChatInstance: 'web-1',
				liveChatMessage: '={{ $json.text }}',
			},
			items: phones.slice(0, 2),
		},
		{
			name: 'as the user',
			parameters: {
				sessionId: SESSION,
				liveChatInstance: 'web-1',
				liveChatMessage: 'Hi',
				liveChatMessageFields: { user: true },
			},
			items: [{}],
		},
	],
	'contact.add': [
		{
			name: 'phone and name',
			parameters: {
				listId: 'list-2',
				phone: '={{ $json.phone }}',
				contactName: '={{ $json.text }}',
			},
			items: phones,
		},
		{
			name: 'extra values only',
			parameters: {
				listId: 'list-2',
				contactFields: {
					extraValues: {
						value: [
							{ key: 'city', value: '={{ $json.text }}' },
							{ key: '12', value: 'x' },
						],
					},
				},
			},
			items: [{ text: 'Bogotá' }],
		},
		{ name: 'nothing to store', parameters: { listId: 'list-2' }, items: [{}] },
	],
};

const describeRequests = (requests: RecordedRequest[]) =>
	requests
		.map((request) => ({
			method: request.method,
			path: request.path,
			query: request.query,
			body: request.body,
			accept: request.headers.accept,
			contentType: request.headers['content-type'],
		}))
		.map((request) => JSON.stringify(request))
		.sort();

const describeItems = (items: INodeExecutionData[]) =>
	items.map((item) => ({
		json: withoutSandboxIds(item.json),
		pairedItem: item.pairedItem,
		error: item.error?.message,
		description: item.error?.description,
	}));

async function runAs(
	nodeType: string,
	parameters: INodeParameters,
	items: IDataObject[],
	continueOnFail: boolean,
) {
	suite.sandbox.reset();
	suite.sandbox.state.liveChatSessions.set(SESSION, { id: SESSION, instance: 'web-1' });
	const run = await suite.run(parameters, { items, continueOnFail, nodeType });
	return {
		requests: describeRequests(run.requests),
		items: describeItems(run.items),
		error: run.error && {
			message: run.error.message,
			description: run.error.description,
			// n8n's error view names the failing item and run from these.
			itemIndex: (run.error.context as { itemIndex?: number } | undefined)?.itemIndex,
			runIndex: (run.error.context as { runIndex?: number } | undefined)?.runIndex,
		},
	};
}

const cases = Object.entries(VARIANTS).flatMap(([key, variants]) => {
	const [resource, operation] = key.split('.');
	return variants.map((variant) => ({
		key,
		name: variant.name,
		parameters: { resource, operation, ...variant.parameters },
		items: variant.items,
	}));
});

describe('the send loop builds the request RoutingNode builds', () => {
	it('covers every bulk operation', () => {
		expect(Object.keys(VARIANTS).sort()).toEqual(
			Object.entries(BULK_OPERATIONS)
				.flatMap(([resource, operations]) =>
					operations.map((operation) => `${resource}.${operation}`),
				)
				.sort(),
		);
	});

	it.each(cases)('$key, $name', async ({ parameters, items }) => {
		for (const continueOnFail of [true, false]) {
			const loop = await runAs(NODE_TYPE, parameters, items, continueOnFail);
			const routing = await runAs(ROUTING_ONLY_NODE_TYPE, parameters, items, continueOnFail);
			expect(loop.requests).toEqual(routing.requests);
			expect(loop.error).toEqual(routing.error);
			if (continueOnFail) {
				expect(loop.items).toEqual(routing.items);
				// Something was sent, or refused before sending, in every variant.
				expect(loop.items).toHaveLength(items.length);
			}
		}
	});
});

describe('the send loop fills expressions that only read the item', () => {
	/** The expressions n8n evaluated while Send SMS ran over VALUE_KINDS. */
	async function evaluatedOver(fields: INodeParameters): Promise<string[]> {
		const spy = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue');
		try {
			const run = await suite.run(
				{ resource: 'messaging', operation: 'sendSms', instance: 'sms-line', ...fields },
				{ items: VALUE_KINDS.slice(0, 3), continueOnFail: true },
			);
			expect(run.items).toHaveLength(3);
			return spy.mock.calls
				.map(([value]) => value)
				.filter((value): value is string => typeof value === 'string' && value.startsWith('='));
		} finally {
			spy.mockRestore();
		}
	}

	it("leaves n8n's expression engine out when the item holds a plain value there, and only then", async () => {
		expect(await evaluatedOver({ to: '={{ $json.phone }}', message: '={{ $json.text }}' })).toEqual(
			[],
		);
		expect(
			await evaluatedOver({
				to: "={{ $json['phone'] }}",
				message: '=Hi {{ $json.text }}, from {{ $json.line.name }}!',
			}),
		).toEqual([]);
		expect(
			await evaluatedOver({ to: '={{ $json.phone }}', message: '={{ ($json.text) }}' }),
		).toEqual(Array(3).fill('={{ ($json.text) }}'));
		// Item 2's text is a number, item 3's a boolean: read too; a missing key goes to n8n.
		expect(
			await evaluatedOver({ to: '={{ $json.phone }}', message: '={{ $json.missing }}' }),
		).toEqual(Array(3).fill('={{ $json.missing }}'));
	});
});
