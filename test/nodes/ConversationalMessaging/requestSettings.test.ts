/**
 * The request settings the send loop adds (shared/bulk/requestSettings.ts) against what n8n's
 * RoutingNode adds on the same engine: the node run without its send loop, RoutingNode's
 * makeRequest caught before it sends, its request options (proxy, timeout, SSL, allowed domains)
 * or its error compared with the loop's, for proxies with and without a port and credentials
 * with and without domain restrictions. The proxy parser is also compared with RoutingNode's
 * own reading (Node's url.parse) over a list of proxies.
 */
import { RoutingNode } from 'n8n-core';
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeParameters,
} from 'n8n-workflow';
import url from 'node:url';

import {
	parseProxy,
	settingsFor,
} from '../../../nodes/ConversationalMessaging/shared/bulk/requestSettings';
import { ENGINE_MAJOR, ROUTING_ONLY_NODE_TYPE, runNode } from '../../helpers/engine';

/** RoutingNode's proxy step, verbatim but for the error (routing-node.js, both engines). */
function routingNodeProxy(proxy: string): unknown {
	const parsed = url.parse(proxy);
	for (const property of ['host', 'port'] as const)
		if (!(property in parsed) || parsed[property] === null) return { missing: property };
	const result: IDataObject = {
		host: parsed.hostname,
		port: parseInt(parsed.port!),
		protocol: parsed.protocol?.replace(/:$/, '') || undefined,
	};
	if (parsed.auth) {
		const [username, password] = parsed.auth.split(':');
		result.auth = { username, password };
	}
	return { proxy: result };
}

const PROXIES = [
	'http://proxy.example:3128',
	'http://proxy',
	'http://proxy:80',
	'https://user:secret@proxy:8443/path?x=1',
	'http://u%40x:p%3Aw@proxy:1',
	'http://u:a:b@h:1',
	'http://u@h:1',
	'HTTP://PROXY.Example:8080',
	'socks5://h:1080',
	'http://[::1]:8080',
	'http://proxy:08080',
	'http://proxy:abc',
	'http://h:',
	'http://:8080',
	'  http://proxy:8080  ',
	'proxy:8080',
	'proxy',
	'//proxy:8080',
	'http:proxy:8080',
];

it.each(PROXIES)('the proxy %j is read as RoutingNode reads it', (proxy) => {
	expect(parseProxy(proxy)).toEqual(routingNodeProxy(proxy));
});

const SMS: INodeParameters = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '573001234567',
	instance: 'line-1',
	message: 'Hi',
};
const CREDENTIALS = { baseUrl: 'http://127.0.0.1:9', apiToken: 'token' };

type Settings = Pick<
	IHttpRequestOptions,
	'proxy' | 'timeout' | 'skipSslCertificateValidation' | 'allowedDomains'
>;
const pick = ({
	proxy,
	timeout,
	skipSslCertificateValidation,
	allowedDomains,
}: Partial<IHttpRequestOptions>): Settings => ({
	proxy,
	timeout,
	skipSslCertificateValidation,
	allowedDomains,
});
/** RoutingNode 1.x writes "The proxy is not value": the same refusal. */
const failure = (error: { message: string; description?: string | null }) => ({
	error: error.message.replace('is not value', 'is not valid'),
	description: error.description ?? undefined,
});

/** What RoutingNode puts in the request, or its error, for these Request Options and credential fields. */
async function routingNode(requestOptions: IDataObject, credential: IDataObject): Promise<unknown> {
	let options: Partial<IHttpRequestOptions> | undefined;
	const prototype = RoutingNode.prototype as unknown as {
		makeRequest: (requestData: { options: IHttpRequestOptions }) => Promise<unknown>;
	};
	const spy = jest.spyOn(prototype, 'makeRequest').mockImplementation(async (requestData) => {
		options = requestData.options;
		return [{ json: {} }];
	});
	try {
		const run = await runNode({
			nodeType: ROUTING_ONLY_NODE_TYPE,
			parameters: { ...SMS, requestOptions: requestOptions as INodeParameters },
			credentials: { ...CREDENTIALS, ...credential } as typeof CREDENTIALS,
		});
		return run.error
			? failure(run.error as { message: string; description?: string })
			: pick(options!);
	} finally {
		spy.mockRestore();
	}
}

/** What the send loop puts in every request of the run, or the item's error. */
function sendLoop(requestOptions: IDataObject, credential: IDataObject): unknown {
	const fns = {
		getNode: () => ({ name: 'Conversational Messaging', parameters: { requestOptions } }),
		getNodeParameter: (name: string) => (name === 'requestOptions' ? requestOptions : undefined),
		getWorkflowDataProxy: () => ({ $runIndex: 0 }),
	} as unknown as IExecuteFunctions;
	try {
		return pick(settingsFor(fns, { ...CREDENTIALS, ...credential }, undefined)(0));
	} catch (error) {
		return failure(error as { message: string; description?: string });
	}
}

it('n8n-workflow 2.35 to 2.40 (the options form, no toHostname yet): asked with options', () => {
	const calls: unknown[][] = [];
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => ({
			...jest.requireActual('n8n-workflow'),
			toHostname: undefined,
			getCredentialAllowedDomains: (options: unknown) => {
				calls.push([options]);
				return 'example.com';
			},
		}));
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const isolated =
			require('../../../nodes/ConversationalMessaging/shared/bulk/requestSettings') as {
				settingsFor: typeof settingsFor;
			};
		const fns = {
			getNode: () => ({ name: 'Conversational Messaging', parameters: {} }),
			getNodeParameter: () => ({}),
		} as unknown as IExecuteFunctions;
		const credentials = { ...CREDENTIALS, allowedHttpRequestDomains: 'domains' };
		expect(settingsFor === isolated.settingsFor).toBe(false);
		expect(isolated.settingsFor(fns, credentials, undefined)(0).allowedDomains).toBe('example.com');
	});
	expect(calls).toEqual([
		[expect.objectContaining({ credentialOwnedSurface: true, credentialData: expect.anything() })],
	]);
});

const CASES: Array<[string, IDataObject, IDataObject]> = [
	['no Request Options', {}, {}],
	[
		'a proxy with a port, a timeout, SSL issues ignored',
		{ proxy: 'http://user:secret@proxy.example:3128', timeout: 5000, allowUnauthorizedCerts: true },
		{},
	],
	['a proxy without a port', { proxy: 'http://proxy.example' }, {}],
	['a proxy without a protocol', { proxy: 'proxy.example:3128' }, {}],
	['a credential open to all domains', {}, { allowedHttpRequestDomains: 'all' }],
	[
		'a credential restricted to domains',
		{},
		{ allowedHttpRequestDomains: 'domains', allowedDomains: 'example.com, *.example.org' },
	],
	[
		'a credential restricted to domains with none named',
		{},
		{ allowedHttpRequestDomains: 'domains', allowedDomains: '' },
	],
	['a credential closed to HTTP Request nodes', {}, { allowedHttpRequestDomains: 'none' }],
];

it.each(CASES)(
	`%s: the send loop adds what RoutingNode adds (n8n-core ${ENGINE_MAJOR}.x)`,
	async (_name, requestOptions, credential) => {
		expect(sendLoop(requestOptions, credential)).toEqual(
			await routingNode(requestOptions, credential),
		);
	},
);

it('RoutingNode answers differ between the cases (the comparison is not vacuous)', async () => {
	expect(await routingNode({ proxy: 'http://u:p@proxy.example:3128' }, {})).toMatchObject({
		proxy: {
			host: 'proxy.example',
			port: 3128,
			protocol: 'http',
			auth: { username: 'u', password: 'p' },
		},
		timeout: 300_000,
	});
	expect(
		await routingNode({}, { allowedHttpRequestDomains: 'domains', allowedDomains: 'example.com' }),
	).toMatchObject({ allowedDomains: 'example.com' });
	expect(await routingNode({ proxy: 'http://proxy.example' }, {})).toEqual({
		error: 'The proxy is not valid',
		description: 'The proxy URL does not contain a valid value for "port"',
	});
});

it('the node itself (the send loop) fails a run whose proxy has no port as RoutingNode does, each item with its error', async () => {
	const items = [{}, {}];
	const stop = await runNode({
		parameters: { ...SMS, requestOptions: { proxy: 'http://proxy.example' } },
		items,
		credentials: CREDENTIALS,
	});
	expect(failure(stop.error as { message: string; description?: string })).toEqual({
		error: 'The proxy is not valid',
		description: 'The proxy URL does not contain a valid value for "port"',
	});
	const goOn = await runNode({
		parameters: { ...SMS, requestOptions: { proxy: 'http://proxy.example' } },
		items,
		credentials: CREDENTIALS,
		continueOnFail: true,
	});
	const routed = await runNode({
		nodeType: ROUTING_ONLY_NODE_TYPE,
		parameters: { ...SMS, requestOptions: { proxy: 'http://proxy.example' } },
		items,
		credentials: CREDENTIALS,
		continueOnFail: true,
	});
	const errors = (run: typeof goOn) =>
		run.items.map((item) => ({
			...failure(item.error as { message: string; description?: string }),
			itemIndex: (item.error as { context?: { itemIndex?: number } }).context?.itemIndex,
		}));
	expect(errors(goOn)).toEqual(errors(routed));
	expect(errors(goOn).map((error) => error.itemIndex)).toEqual([0, 1]);
});
