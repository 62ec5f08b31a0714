/**
 * The send loop's contract with n8n's RoutingNode (nodes/ConversationalMessaging/shared/bulk/
 * contract.ts), kind by kind, on the engine under test (n8n 2.41's, or 1.x's under
 * jest.compat.config.js): each followed kind runs in a tiny description through the loop and
 * through RoutingNode, which must hand n8n the same request (captured where the credential
 * authenticates it) and give the same items; each refused kind fails loading; and n8n's routing
 * types, read from the installed n8n-workflow with the TypeScript compiler, name no kind the
 * contract does not.
 */
import { createServer } from 'http';
import type { Server } from 'http';
import type { AddressInfo } from 'net';
import path from 'path';
import { RoutingNode } from 'n8n-core';
import type { ExecuteContext } from 'n8n-core';
import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import ts from 'typescript';

import {
	ROUTING_CONTRACT,
	refuseUnfollowedRouting,
} from '../../../nodes/ConversationalMessaging/shared/bulk/contract';
import type { RoutingKind } from '../../../nodes/ConversationalMessaging/shared/bulk/contract';
import { sendLoop } from '../../../nodes/ConversationalMessaging/shared/bulk/sendLoop';
import { requestOptions } from '../../../nodes/ConversationalMessaging/shared/requestOptions';
import type { RunOptions } from '../../helpers/engine';
import { registerNodeType, runNode } from '../../helpers/engine';

/** The requests as the credential's authenticate() receives them (n8n's own abort signal left out). */
const mockRequests: IDataObject[] = [];
jest.mock('../../../credentials/ConversationalMessagingApi.credentials', () => {
	const actual = jest.requireActual('../../../credentials/ConversationalMessagingApi.credentials');
	const { mergeInto: copyInto } = jest.requireActual(
		'../../../nodes/ConversationalMessaging/shared/bulk/merge',
	);
	class CapturingApi extends actual.ConversationalMessagingApi {
		authenticate = async (credentials: IDataObject, options: IHttpRequestOptions) => {
			const { abortSignal: _signal, ...request } = options;
			mockRequests.push(copyInto({}, request));
			return await actual.authenticateWithToken(credentials, options);
		};
	}
	return { ...actual, ConversationalMessagingApi: CapturingApi };
});

const kinds = Object.keys(ROUTING_CONTRACT) as RoutingKind[];
const followed = kinds.filter((kind) => ROUTING_CONTRACT[kind] === 'followed');
const refused = kinds.filter((kind) => ROUTING_CONTRACT[kind] === 'refused');

// ---- Tiny descriptions -------------------------------------------------------------------------

interface Tiny {
	/** The operation's routing (method POST, url /v1/tiny unless it says otherwise). */
	operation?: INodePropertyOptions['routing'];
	properties?: INodeProperties[];
	description?: Partial<INodeTypeDescription>;
	parameters?: INodeParameters;
	items?: IDataObject[];
	/** Credential fields beside the base URL and token (domain restrictions). */
	credential?: IDataObject;
}

function describeTiny(tiny: Tiny): INodeTypeDescription {
	return {
		displayName: 'Tiny',
		name: 'tiny',
		group: ['output'],
		version: 1,
		description: 'A description exercising one routing kind',
		defaults: { name: 'Tiny' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'conversationalMessagingApi', required: true }],
		requestDefaults: { headers: { Accept: 'application/json' }, json: true },
		...tiny.description,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [{ name: 'Thing', value: 'thing' }],
				default: 'thing',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Do',
						value: 'do',
						action: 'Do',
						routing: { request: { method: 'POST', url: '/v1/tiny' }, ...tiny.operation },
					},
				],
				default: 'do',
			},
			// The loop's own settings: never wait for a service that cannot be reached.
			{
				displayName: 'Send Options',
				name: 'thingSendOptions',
				type: 'collection',
				default: {},
				options: [{ displayName: 'Max Wait', name: 'maxWait', type: 'number', default: 0 }],
			},
			...(tiny.properties ?? []),
		],
	};
}

let typeCount = 0;

/** Registers the description twice: run by the send loop, and by RoutingNode. */
function register(tiny: Tiny): { loop: string; routing: string } {
	const description = describeTiny(tiny);
	const loop: INodeType = {
		description,
		customOperations: {
			thing: { do: sendLoop(refuseUnfollowedRouting(description, { thing: ['do'] })) },
		},
	};
	const routing: INodeType = { description };
	routing.execute = async function (this: IExecuteFunctions) {
		return (await new RoutingNode(this as ExecuteContext, routing).runNode()) ?? [];
	};
	const names = { loop: `test.tinyLoop${++typeCount}`, routing: `test.tinyRouting${typeCount}` };
	registerNodeType(names.loop, loop);
	registerNodeType(names.routing, routing);
	return names;
}

let server: Server;
let baseUrl: string;

beforeAll(async () => {
	// Answers every request: a list at /v1/list, else one object.
	server = createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			response.setHeader('content-type', 'application/json');
			response.end(
				JSON.stringify(
					request.url?.includes('/v1/list')
						? [{ n: 1 }, { n: 2 }]
						: { status: 'success', echo: request.url },
				),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function runAs(type: string, tiny: Tiny) {
	mockRequests.length = 0;
	const run = await runNode({
		nodeType: type,
		parameters: { resource: 'thing', operation: 'do', ...tiny.parameters },
		items: tiny.items ?? [{ text: 'Hola' }, { text: 'Hallo' }],
		credentials: { baseUrl, apiToken: 'token-1', ...tiny.credential } as RunOptions['credentials'],
		continueOnFail: true,
	});
	return {
		requests: [...mockRequests],
		items: run.items.map((item) => ({ json: item.json, error: item.error?.message })),
		error: run.error?.message,
	};
}

async function expectSameAsRoutingNode(tiny: Tiny): Promise<IDataObject[]> {
	const types = register(tiny);
	const loop = await runAs(types.loop, tiny);
	const routing = await runAs(types.routing, tiny);
	expect(loop.requests).toEqual(routing.requests);
	expect(loop.items).toEqual(routing.items);
	expect(loop.error).toEqual(routing.error);
	return routing.requests;
}

// ---- One tiny description per followed kind ------------------------------------------------------

const text = (name: string, extra: Partial<INodeProperties> = {}): INodeProperties => ({
	displayName: name,
	name,
	type: 'string',
	default: '',
	...extra,
});
const sendTo = (type: 'body' | 'query' | undefined, property: string, extra: IDataObject = {}) => ({
	routing: { send: { ...(type ? { type } : {}), property, ...extra } },
});

/** A request hook that adds a query value, then fetches two pages. */
async function twoPages(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
) {
	const pages: INodeExecutionData[] = [];
	for (const page of [1, 2]) {
		pages.push(
			...(await this.makeRoutingRequest({
				...requestData,
				options: { ...requestData.options, qs: { ...requestData.options.qs, page } },
			})),
		);
	}
	return pages;
}

async function addHeader(this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	options.headers = { ...options.headers, 'X-Checked': String(this.getNodeParameter('a', '')) };
	return options;
}

async function countItems(items: INodeExecutionData[]) {
	return items.map((item, index) => ({ json: { ...item.json, index, of: items.length } }));
}

const REQUEST_VALUES: Record<string, () => unknown> = {
	url: () => '/v1/other?x=1',
	baseURL: () => `${baseUrl}/alt`,
	headers: () => ({ 'X-Tiny': 'yes' }),
	method: () => 'PUT',
	body: () => ({ fixed: 1, list: [1, 2, { deep: true }], none: null }),
	qs: () => ({ page: 2, list: ['a', 'b'] }),
	arrayFormat: () => 'repeat',
	auth: () => ({ username: 'user', password: 'secret' }),
	disableFollowRedirect: () => true,
	maxRedirects: () => 0,
	encoding: () => 'text',
	skipSslCertificateValidation: () => true,
	returnFullResponse: () => false,
	ignoreHttpStatusErrors: () => false,
	proxy: () => ({ host: '127.0.0.1', port: Number(new URL(baseUrl).port), protocol: 'http' }),
	timeout: () => 1234,
	json: () => false,
	sendCredentialsOnCrossOriginRedirect: () => false,
	allowedDomains: () => '127.0.0.1',
	agentOptions: () => ({ servername: 'localhost' }),
};

const fieldsOfEveryType: Tiny = {
	// RoutingNode never evaluates `type`: anything but 'body' is the query string.
	properties: [
		text('a', sendTo('body', 'a')),
		text('b', sendTo('query', 'b')),
		text('c', sendTo(undefined, 'c')),
		text('d', { routing: { send: { type: '={{ "body" }}' as never, property: 'd' } } }),
	],
	parameters: {
		a: '={{ $json.text }}',
		b: 'to the query',
		c: 'unset type',
		d: 'type as an expression',
	},
};

const CASES: Partial<Record<RoutingKind, () => Tiny>> = {
	'routing.request': () => ({
		operation: { request: { method: 'PATCH', url: '/v1/tiny', body: { type: 'text' } } },
	}),
	'routing.send': () => fieldsOfEveryType,
	// Without post-receive actions, an array answer is one item per element.
	'routing.output': () => ({ operation: { request: { method: 'GET', url: '/v1/list' } } }),
	'routing.operations': () => ({
		operation: { send: { paginate: true }, operations: { pagination: twoPages } },
	}),
	'send.type': () => fieldsOfEveryType,
	'send.property': () => ({
		operation: {
			request: { method: 'POST', url: '/v1/tiny', body: { values: { fixed: 1 }, list: [1, 2, 3] } },
		},
		properties: [
			text('a', sendTo('body', 'values.phone')),
			text('b', sendTo('body', 'x.y.z')),
			text('c', { type: 'json', ...sendTo('body', 'list') }),
		],
		parameters: { a: '={{ $json.text }}', b: 'deep', c: '[9]' },
	}),
	'send.propertyInDotNotation': () => ({
		properties: [
			text('a', sendTo('body', 'dotted.key', { propertyInDotNotation: false })),
			text('b', sendTo('query', 'in.dots', { propertyInDotNotation: true })),
		],
		parameters: { a: 'one key', b: 'nested' },
	}),
	'send.preSend': () => ({
		properties: [
			text('a', { routing: { send: { type: 'body', property: 'a', preSend: [addHeader] } } }),
		],
		parameters: { a: '={{ $json.text }}' },
	}),
	// The operation's `paginate: false` comes first and wins over the field's `true`: no hook.
	'send.paginate': () => ({
		operation: { send: { paginate: false }, operations: { pagination: twoPages } },
		properties: [text('a', { routing: { send: { paginate: true } } })],
	}),
	'output.postReceive': () => ({
		operation: {
			request: { method: 'GET', url: '/v1/list' },
			output: { postReceive: [countItems] },
		},
	}),
	'operations.pagination': () => ({
		operation: { send: { paginate: '1' }, operations: { pagination: twoPages } },
	}),
	requestDefaults: () => ({
		description: {
			requestDefaults: {
				headers: { Accept: 'application/json', 'X-Default': 'd' },
				qs: { fromDefaults: 1 },
				body: { list: [1, 2] },
				json: true,
			},
		},
		operation: {
			request: { method: 'POST', url: '/v1/tiny', headers: { 'X-Op': 'o' }, body: { list: [7] } },
		},
	}),
	requestOperations: () => ({
		description: { requestOperations: { pagination: twoPages } },
		operation: { send: { paginate: true } },
	}),
	displayOptions: () => ({
		properties: [
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				options: [
					{ name: 'A', value: 'a' },
					{ name: 'B', value: 'b' },
				],
				default: 'a',
			},
			text('a', { displayOptions: { show: { mode: ['a'] } }, ...sendTo('body', 'a') }),
			text('b', { displayOptions: { show: { mode: ['b'] } }, ...sendTo('body', 'b') }),
		],
		parameters: { mode: 'b', a: 'hidden', b: 'shown' },
	}),
	options: () => ({
		properties: [
			{
				displayName: 'Kind',
				name: 'kind',
				type: 'options',
				options: [
					{ name: 'A', value: 'a', routing: { request: { body: { kind: 'a' } } } },
					{
						name: 'B',
						value: 'b',
						routing: { request: { qs: { kind: 'b' } }, send: { property: 'fromOption' } },
					},
				],
				default: 'a',
				routing: { send: { type: 'body', property: 'kind' } },
			},
		],
		parameters: { kind: 'b' },
	}),
	collection: () => ({
		properties: [
			{
				displayName: 'Extra',
				name: 'extra',
				type: 'collection',
				default: {},
				options: [
					text('first', sendTo('body', 'extra.first')),
					text('second', sendTo('query', 'second')),
					text('third', sendTo('body', 'third')),
				],
			},
		],
		parameters: { extra: { first: '={{ $json.text }}', third: 'set' } },
	}),
	resourceLocator: () => ({
		properties: [
			{
				displayName: 'Record',
				name: 'record',
				type: 'resourceLocator',
				default: { mode: 'id', value: '' },
				modes: [
					{ displayName: 'ID', name: 'id', type: 'string' },
					{
						displayName: 'URL',
						name: 'url',
						type: 'string',
						extractValue: { type: 'regex', regex: 'id=(\\w+)' },
					},
				],
				...sendTo('body', 'record'),
			},
		],
		parameters: {
			record: { __rl: true, mode: 'url', value: '={{ "https://example.com/?id=" + $json.text }}' },
		},
	}),
	extractValue: () => ({
		properties: [
			text('a', { extractValue: { type: 'regex', regex: 'id=(\\w+)' }, ...sendTo('query', 'a') }),
		],
		parameters: { a: 'https://example.com/?id=abc' },
	}),
};
for (const key of Object.keys(REQUEST_VALUES)) {
	CASES[`request.${key}` as RoutingKind] = () => ({
		operation: { request: { method: 'POST', url: '/v1/tiny', [key]: REQUEST_VALUES[key]() } },
	});
}

// ---- One refusal per refused kind ------------------------------------------------------------

const REFUSALS: Partial<Record<RoutingKind, Tiny>> = {
	'send.value': { properties: [text('a', sendTo('body', 'a', { value: '={{ $value + 1 }}' }))] },
	'output.maxResults': {
		properties: [
			{
				displayName: 'Limit',
				name: 'limit',
				type: 'number',
				default: 5,
				routing: { output: { maxResults: '={{$value}}' } },
			},
		],
	},
	'pagination.generic': {
		operation: {
			operations: { pagination: { type: 'generic', properties: { continue: false, request: {} } } },
		},
	},
	'pagination.offset': {
		operation: {
			operations: {
				pagination: {
					type: 'offset',
					properties: { limitParameter: 'l', offsetParameter: 'o', pageSize: 10, type: 'query' },
				},
			},
		},
	},
	'request.abortSignal': { operation: { request: { abortSignal: new AbortController().signal } } },
	fixedCollection: {
		properties: [
			{
				displayName: 'Entries',
				name: 'entries',
				type: 'fixedCollection',
				default: {},
				options: [
					{
						displayName: 'Entry',
						name: 'entry',
						values: [text('key', sendTo('body', '=entries[{{$index}}].key'))],
					},
				],
			},
		],
	},
	expression: { operation: { request: { method: 'POST', url: '=/v1/{{ $parameter.a }}' } } },
	'send.property as an index path': { properties: [text('a', sendTo('body', 'list[0]'))] },
	'a constant that is not plain data': {
		operation: { request: { body: Buffer.from('raw') as never } },
	},
};
for (const type of [
	'binaryData',
	'filter',
	'limit',
	'rootProperty',
	'set',
	'setKeyValue',
	'sort',
]) {
	REFUSALS[`postReceive.${type}` as RoutingKind] = {
		operation: { output: { postReceive: [{ type, properties: {} } as never] } },
	};
}

describe('the send loop follows RoutingNode, kind by kind', () => {
	it('has a tiny description for every followed kind and a refusal for every refused one', () => {
		expect(followed.filter((kind) => !CASES[kind])).toEqual([]);
		expect(refused.filter((kind) => !REFUSALS[kind])).toEqual([]);
	});

	it.each(followed)('%s: the same request and items as RoutingNode', async (kind) => {
		const requests = await expectSameAsRoutingNode(CASES[kind]!());
		// Something reached n8n's request helper: the comparison is not of two empty lists.
		expect(requests.length).toBeGreaterThan(0);
	});

	it.each(refused)('%s: refused by name when the node loads', (kind) => {
		const description = describeTiny(REFUSALS[kind]!);
		expect(() => refuseUnfollowedRouting(description, { thing: ['do'] })).toThrow(
			`cannot follow ${kind} (`,
		);
	});

	it('loads the node itself: its bulk operations use only followed kinds', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { ConversationalMessaging } =
			require('../../../nodes/ConversationalMessaging/ConversationalMessaging.node') as typeof import('../../../nodes/ConversationalMessaging/ConversationalMessaging.node');
		expect(() => new ConversationalMessaging()).not.toThrow();
	});

	it('refuses routing keys it does not know (a future n8n kind) by name', () => {
		const description = describeTiny({
			properties: [text('a', { routing: { send: { property: 'a' }, future: {} } as never })],
		});
		expect(() => refuseUnfollowedRouting(description, { thing: ['do'] })).toThrow(
			'cannot follow routing.future (a)',
		);
	});
});

// ---- Request Options and the credential's domains, as RoutingNode applies them --------------------

/** A pre-send hook that reads the request settings and changes the timeout. */
async function readSettings(this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	options.headers = {
		...options.headers,
		'X-Seen': JSON.stringify([options.timeout, options.skipSslCertificateValidation ?? null]),
	};
	options.timeout = Number(options.timeout) + 1;
	return options;
}

const SETTINGS_CASES: Array<[string, Tiny]> = [
	[
		'the pre-send hooks see the Request Options settings and may change them',
		{
			operation: { send: { preSend: [readSettings] } },
			properties: [requestOptions],
			parameters: { requestOptions: { timeout: 5000, allowUnauthorizedCerts: true } },
		},
	],
	[
		'an expression in Request Options is evaluated for each item',
		{
			properties: [requestOptions],
			parameters: { requestOptions: { timeout: '={{ $json.timeout }}' } },
			items: [{ timeout: 1000 }, { timeout: 2000 }],
		},
	],
	[
		"the credential's allowed domains see the operation's base URL",
		{
			operation: { request: { method: 'POST', url: '/v1/tiny', baseURL: '' } },
			credential: { allowedHttpRequestDomains: 'domains', allowedDomains: 'example.com' },
		},
	],
];

describe('Request Options and allowed domains: what RoutingNode adds, where it adds it', () => {
	it.each(SETTINGS_CASES)('%s', async (_name, tiny) => {
		// The operation's base URL is the test server's, known once it listens.
		if (tiny.credential) tiny.operation!.request!.baseURL = baseUrl;
		const requests = await expectSameAsRoutingNode(tiny);
		expect(requests.length).toBe(2);
	});

	it('the cases differ from a plain run (the comparison is not vacuous)', async () => {
		const [hooked, perItem] = SETTINGS_CASES.map(([, tiny]) => tiny);
		const seen = await expectSameAsRoutingNode(hooked);
		expect(seen[0]).toMatchObject({ timeout: 5001, headers: { 'X-Seen': '[5000,true]' } });
		const timeouts = (await expectSameAsRoutingNode(perItem)).map((request) => request.timeout);
		expect(timeouts).toEqual([1000, 2000]);
	});
});

// ---- n8n's routing types name no kind the contract does not -------------------------------------

/** The kinds n8n-workflow's installed types declare, read with the TypeScript compiler. */
function kindsInN8nTypes(): string[] {
	const pkgFile = require.resolve('n8n-workflow/package.json');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const entry = path.join(path.dirname(pkgFile), (require(pkgFile) as { types: string }).types);
	const program = ts.createProgram([entry], { noEmit: true, skipLibCheck: true, types: [] });
	const checker = program.getTypeChecker();
	const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
	const exported = (name: string) => {
		const symbol = checker
			.getExportsOfModule(moduleSymbol)
			.find((candidate) => candidate.name === name)!;
		return checker.getDeclaredTypeOfSymbol(
			symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
		);
	};
	const property = (type: ts.Type, name: string) =>
		checker.getNonNullableType(checker.getTypeOfSymbol(checker.getPropertyOfType(type, name)!));
	const keys = (type: ts.Type) => checker.getPropertiesOfType(type).map((symbol) => symbol.name);
	/** The `type` literals of a union's declarative members. */
	const typeLiterals = (type: ts.Type) =>
		(type.isUnion() ? type.types : [type])
			.map((member) => member.getProperty('type'))
			.filter((symbol): symbol is ts.Symbol => symbol !== undefined)
			.map((symbol) => checker.getTypeOfSymbol(symbol))
			.filter((literal) => literal.isStringLiteral())
			.map((literal) => (literal as ts.StringLiteralType).value);

	const routing = exported('INodePropertyRouting');
	const postReceive = checker.getIndexTypeOfType(
		property(property(routing, 'output'), 'postReceive'),
		ts.IndexKind.Number,
	)!;
	return [
		...keys(routing).map((key) => `routing.${key}`),
		...['send', 'output', 'operations', 'request'].flatMap((name) =>
			keys(property(routing, name)).map((key) => `${name}.${key}`),
		),
		...typeLiterals(postReceive).map((type) => `postReceive.${type}`),
		...typeLiterals(property(property(routing, 'operations'), 'pagination')).map(
			(type) => `pagination.${type}`,
		),
	];
}

describe("n8n's routing types", () => {
	it('name no kind the contract does not', () => {
		const declared = kindsInN8nTypes();
		// The reading works: it finds what every n8n version has.
		expect(declared).toEqual(
			expect.arrayContaining([
				'routing.send',
				'send.property',
				'request.url',
				'output.postReceive',
				'postReceive.rootProperty',
				'pagination.offset',
			]),
		);
		expect(declared.filter((kind) => !(kind in ROUTING_CONTRACT))).toEqual([]);
	});
});
