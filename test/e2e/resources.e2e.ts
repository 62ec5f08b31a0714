/**
 * One operation of every resource in real n8n: a Manual Trigger fans out to one node per
 * resource, run with `n8n execute` against the sandbox. Each node gives its clean item and the
 * sandbox saw the request it stands for. Then the send loop's own reading of `{{ $json.… }}`
 * against n8n's expression engine (`vm` in n8n 2.x, the one the engine tests cannot load). The
 * compat run (`npm run test:compat`) runs this file in n8n 1.x too, as its smoke test of the
 * whole node.
 */
import { randomUUID } from 'crypto';

import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { withoutSandboxIds } from '../helpers/ids';
import { VALUE_KINDS } from '../helpers/valueKinds';
import {
	createUserFolder,
	executeWorkflow,
	importJson,
	outputOf,
	removeUserFolder,
	sandboxCredential,
} from './lib/n8n';

const OUR_NODE = 'n8n-nodes-conversational-messaging.conversationalMessaging';
const credential = sandboxCredential('', '', 'cmResourceCred01');

/** Per resource: the operation's parameters, the sandbox's name of its request, a field of its output item. */
const CALLS: Record<
	string,
	{ parameters: Record<string, unknown>; request: string; field: string }
> = {
	agent: {
		parameters: {
			operation: 'create',
			agentName: 'Ana Ruiz',
			agentPhone: '+57 300-123 4567',
			email: 'ana@example.com',
		},
		request: 'agentCreate',
		field: 'id',
	},
	campaign: {
		parameters: { operation: 'getAll', returnAll: false, limit: 2 },
		request: 'campaignGetMany',
		field: 'id',
	},
	client: { parameters: { operation: 'get' }, request: 'clientGet', field: 'id' },
	contact: {
		parameters: { operation: 'getAll', listIdToRead: 'list-1', returnAll: true },
		request: 'contactGetMany',
		field: 'phone',
	},
	legacyMessage: {
		parameters: {
			operation: 'send',
			recipient: '+57 300 123 4567',
			legacyInstance: 'qr-1',
			messageType: 'chat',
			chatText: 'Hola',
		},
		request: 'legacyMessageSend',
		field: 'id',
	},
	liveChat: {
		parameters: {
			operation: 'createSession',
			liveChatInstance: 'web-1',
			sessionFields: { name: 'Visitor 7' },
		},
		request: 'liveChatSessionCreate',
		field: 'id',
	},
	messaging: {
		parameters: {
			operation: 'sendSms',
			instance: 'sms-line-1',
			to: '+57 300 123 4567',
			message: 'Your order has shipped',
		},
		request: 'smsSend',
		field: 'status',
	},
	product: {
		parameters: { operation: 'get', productId: 'product-1' },
		request: 'productGet',
		field: 'name',
	},
	researcher: {
		parameters: { operation: 'get', researcherId: 'researcher-1' },
		request: 'researcherGet',
		field: 'name',
	},
	shortLink: {
		parameters: { operation: 'create', longUrl: 'https://example.com/sale' },
		request: 'shortLinkCreate',
		field: 'shortUrl',
	},
};
const RESOURCES = Object.keys(CALLS);

/**
 * Send SMS over VALUE_KINDS twice: with bare reads (`{{ $json.phone }}`) and with a message
 * template (`Hi {{ $json.text }}, from {{ $json["line"].name }}!`). `read` writes each read as
 * the loop takes it (`{{ $json.… }}`) or in parentheses, which n8n evaluates. Errors continue.
 */
function kindsWorkflow(id: string, read: (access: string) => string) {
	const node = (
		name: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: Record<string, unknown>,
	) => ({ id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters });
	const sms = (name: string, message: string) => ({
		...node(name, OUR_NODE, 1, 660, {
			resource: 'messaging',
			operation: 'sendSms',
			to: `=${read('.phone')}`,
			instance: `=${read("['line'].name")}`,
			message,
		}),
		onError: 'continueRegularOutput',
		credentials: { conversationalMessagingApi: { id: credential.id, name: credential.name } },
	});
	return {
		id,
		name: `Send SMS over values of every kind (${id})`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, 0, {}),
			node('Kinds', 'n8n-nodes-base.set', 3.4, 220, {
				mode: 'raw',
				jsonOutput: JSON.stringify({ kinds: VALUE_KINDS }),
				options: {},
			}),
			node('Split Out', 'n8n-nodes-base.splitOut', 1, 440, {
				fieldToSplitOut: 'kinds',
				options: {},
			}),
			sms('Send SMS', `=${read('.text')}`),
			sms('Send SMS text', `=Hi ${read('.text')}, from ${read('["line"].name')}!`),
		],
		connections: {
			Start: { main: [[{ node: 'Kinds', type: 'main', index: 0 }]] },
			Kinds: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': {
				main: [
					['Send SMS', 'Send SMS text'].map((name) => ({ node: name, type: 'main', index: 0 })),
				],
			},
		},
	};
}

let sandbox: Sandbox;
let userFolder: string;

function resourcesWorkflow() {
	const position = (index: number): [number, number] => [240, index * 120];
	return {
		id: 'cmResourcesWf001',
		name: 'One operation per resource',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: randomUUID(),
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			...RESOURCES.map((resource, index) => ({
				id: randomUUID(),
				name: resource,
				type: OUR_NODE,
				typeVersion: 1,
				position: position(index),
				parameters: { resource, ...CALLS[resource].parameters },
				credentials: { conversationalMessagingApi: { id: credential.id, name: credential.name } },
			})),
		],
		connections: { Start: { main: [RESOURCES.map((node) => ({ node, type: 'main', index: 0 }))] } },
	};
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	userFolder = createUserFolder();
	await importJson(
		'credentials',
		[{ ...credential, data: { baseUrl: sandbox.url, apiToken: sandbox.token } }],
		{ userFolder },
	);
	await importJson(
		'workflow',
		[
			resourcesWorkflow(),
			kindsWorkflow('cmKindsDirect001', (access) => `{{ $json${access} }}`),
			kindsWorkflow('cmKindsEvaled001', (access) => `{{ ($json${access}) }}`),
		],
		{
			userFolder,
		},
	);
}, 180_000);

afterAll(async () => {
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

describe('one operation of every resource in real n8n', () => {
	it('runs each, with its request at the sandbox and its clean item out', async () => {
		expect(RESOURCES).toHaveLength(10);
		const { result, run } = await executeWorkflow('cmResourcesWf001', { userFolder });
		if (!run) throw new Error(`n8n execute printed no run:\n${result.stdout}\n${result.stderr}`);
		expect(run.data.resultData.error).toBeUndefined();
		const outcome = Object.fromEntries(
			RESOURCES.map((resource) => {
				const [first] = outputOf(run, resource);
				return [
					resource,
					{
						requests: sandbox.stats().byOperation[CALLS[resource].request] ?? 0,
						hasField: first?.[CALLS[resource].field] !== undefined,
					},
				];
			}),
		);
		expect(outcome).toEqual(
			Object.fromEntries(RESOURCES.map((resource) => [resource, { requests: 1, hasField: true }])),
		);
		expect(sandbox.stats().violations).toBe(0);
		expect(JSON.stringify(run)).not.toContain(sandbox.token);
	});
});

describe('expressions that only read the item, filled by the send loop in real n8n', () => {
	/** The requests the sandbox saw and the node's items, ids aside (they depend on arrival order). */
	async function sendOverKinds(id: string) {
		sandbox.reset();
		const { result, run } = await executeWorkflow(id, { userFolder });
		if (!run) throw new Error(`n8n execute printed no run:\n${result.stdout}\n${result.stderr}`);
		return {
			requests: sandbox.requests
				.map((request) => JSON.stringify({ path: request.path, body: request.body }))
				.sort(),
			items: ['Send SMS', 'Send SMS text'].map((name) =>
				outputOf(run, name).map(withoutSandboxIds),
			),
		};
	}

	it("gives what n8n's expression engine gives, request by request and item by item", async () => {
		const direct = await sendOverKinds('cmKindsDirect001');
		const evaluated = await sendOverKinds('cmKindsEvaled001');
		for (const items of direct.items) {
			expect(items).toHaveLength(VALUE_KINDS.length);
			// Some were sent, some refused by the checks: both ways are compared.
			expect(items.some((item) => (item as { error?: unknown }).error !== undefined)).toBe(true);
			expect(items.some((item) => (item as { error?: unknown }).error === undefined)).toBe(true);
		}
		expect(direct).toEqual(evaluated);
	});
});
