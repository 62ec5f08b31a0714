import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RequestOptionsParameter } from '../n8nInternals';
import { DEFAULT_TIMEOUT_MS, REQUEST_OPTIONS } from '../n8nInternals';
import { withoutUserInfo } from '../service/account';
import { BULK_OPERATIONS } from './bulkOperations';
import { collection, field, showFor } from './fields';

/*
 * The node's Settings for its requests: Request Options (n8n's own collection, which RoutingNode
 * reads for the plain operations) and, for the bulk sends, Send Options; and how the node's own
 * sends (the send loop, Send and Wait, Researcher > Run's progress checks) take them as RoutingNode
 * does.
 */

/**
 * n8n adds its Request Options (`commonDeclarativeNodeOptionParameters`) only to a declarative node
 * without a `webhook` method; ours has one (Send and Wait), so it declares n8n's own (a test keeps
 * them equal) in wording n8n's lint rules accept. What RoutingNode reads of them: ../n8nInternals.ts.
 */
export const requestOptions: INodeProperties = {
	displayName: 'Request Options',
	name: REQUEST_OPTIONS,
	type: 'collection',
	isNodeSetting: true,
	placeholder: 'Add Option',
	default: {},
	description: 'Batching, timeout, proxy and certificate checks for the requests to the service',
	options: [
		{
			displayName: 'Batching',
			name: 'batching',
			placeholder: 'Add Batching',
			description: 'Send the items in batches, with a pause between batches',
			type: 'fixedCollection',
			typeOptions: { multipleValues: false },
			default: { batch: {} },
			options: [
				{
					displayName: 'Batching',
					name: 'batch',
					values: [
						{
							displayName: 'Items per Batch',
							name: 'batchSize',
							type: 'number',
							typeOptions: { minValue: -1 },
							default: 50,
							description:
								'Items that start together before the node waits Batch Interval (0 or -1 count as 1). In bulk sends Max Requests in Flight (Send Options) also applies: the slower of the two sets the pace.',
						},
						{
							displayName: 'Batch Interval (Milliseconds)',
							name: 'batchInterval',
							type: 'number',
							typeOptions: { minValue: 0 },
							default: 1000,
							description:
								'Time (in milliseconds) between the starts of two batches. 0 turns Batching off.',
						},
					],
				},
			],
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'allowUnauthorizedCerts',
			type: 'boolean',
			noDataExpression: true,
			default: false,
			description: 'Whether to connect even if SSL certificate validation is not possible',
		},
		{
			displayName: 'Proxy',
			name: 'proxy',
			type: 'string',
			default: '',
			placeholder: 'e.g. http://myproxy:3128',
			description: 'HTTP proxy to use, with user:password@ before the host if it needs them',
		},
		{
			displayName: 'Timeout',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 10000,
			description: 'Milliseconds a request waits for the service to start answering',
		},
	],
};

type Proxy = NonNullable<IHttpRequestOptions['proxy']>;

/** The port written after the host: required, as RoutingNode requires it for the other operations. */
const WRITTEN_PORT =
	/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)(?:[/?#]|$)/i;

/** The proxy address, `http://user:password@host:port`. */
function parseProxy(node: INode, text: string, itemIndex: number): Proxy {
	const address = text.trim();
	const url = URL.canParse(address) ? new URL(address) : undefined;
	const port = WRITTEN_PORT.exec(address)?.[1];
	if (!url?.hostname || !port) {
		// Quoted without any user:password@, which the message would otherwise keep.
		const shown = withoutUserInfo(address);
		throw new NodeOperationError(node, `Proxy: "${shown}" is not a proxy address`, {
			itemIndex,
			description:
				'Settings > Request Options > Proxy: use http://host:port, with user:password@ before the host if it needs them.',
		});
	}
	const proxy: Proxy = {
		host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
		port: Number(port),
		protocol: url.protocol.replace(/:$/, ''),
	};
	if (url.username)
		proxy.auth = {
			username: decodeURIComponent(url.username),
			password: decodeURIComponent(url.password),
		};
	return proxy;
}

/**
 * The credential's Allowed HTTP Request Domains, which n8n's HTTP helper enforces on every
 * request given them. The Base URL is the credential's own, so the credential's choice stands:
 * every domain, none but its own (n8n's 'none' for a surface the credential owns), or the list.
 */
function allowedDomains(
	node: INode,
	credentials: ICredentialDataDecryptedObject,
): string | undefined {
	if (credentials.allowedHttpRequestDomains !== 'domains') return undefined;
	const domains = String(credentials.allowedDomains ?? '').trim();
	if (!domains)
		throw new NodeOperationError(
			node,
			'No allowed domains specified. Configure allowed domains or change restriction setting.',
		);
	return domains;
}

/** An item's Timeout, Proxy, Ignore SSL Issues and allowed domains, as RoutingNode sets them. */
export function requestSettings(
	node: INode,
	options: RequestOptionsParameter,
	credentials: ICredentialDataDecryptedObject,
	itemIndex: number,
): Partial<IHttpRequestOptions> {
	const { timeout, proxy, allowUnauthorizedCerts } = options;
	const settings: Partial<IHttpRequestOptions> = { timeout: timeout || DEFAULT_TIMEOUT_MS };
	if (proxy) settings.proxy = parseProxy(node, proxy, itemIndex);
	if (allowUnauthorizedCerts) settings.skipSslCertificateValidation = true;
	const allowed = allowedDomains(node, credentials);
	if (allowed) settings.allowedDomains = allowed;
	return settings;
}

/**
 * Each item's request settings for the node's own sends (the send loop, Send and Wait). Read once,
 * unless one of them is an expression (it may differ per item); a failure fails each item with its
 * own error.
 */
export function settingsFor(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
): (itemIndex: number) => Partial<IHttpRequestOptions> {
	const node = fns.getNode();
	const forItem = (itemIndex: number) =>
		requestSettings(
			node,
			fns.getNodeParameter(REQUEST_OPTIONS, itemIndex, {}) as RequestOptionsParameter,
			credentials,
			itemIndex,
		);
	const raw = Object.values((node.parameters[REQUEST_OPTIONS] ?? {}) as object);
	if (raw.some((value) => typeof value === 'string' && value.startsWith('='))) return forItem;
	let shared: Partial<IHttpRequestOptions> | undefined;
	try {
		shared = forItem(0);
	} catch {
		// Thrown again for each item.
	}
	return (itemIndex) => (shared ? { ...shared } : forItem(itemIndex));
}

/**
 * Keeps pace with n8n's HTTP Request node at 50 ms latency; 1,000 had connections reset by a full
 * accept queue, and a cut connection is never sent again (docs/PERFORMANCE.md).
 */
export const DEFAULT_MAX_IN_FLIGHT = 500;
export const DEFAULT_MAX_WAIT_SECONDS = 300;
/** How many times one item is sent again after the service said "too fast". */
export const MAX_RATE_LIMIT_RETRIES = 10;

export interface SendOptions {
	maxInFlight?: number;
	maxWait?: number;
}

/** One per resource with bulk sends, under a name of its own: parameter names are unique in the node. */
export const sendOptions: INodeProperties[] = Object.keys(BULK_OPERATIONS).map((resource) =>
	collection(
		`${resource}SendOptions`,
		'Send Options',
		showFor(resource, BULK_OPERATIONS[resource]),
		[
			field({
				displayName: 'Max Requests in Flight',
				name: 'maxInFlight',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 1000 },
				default: DEFAULT_MAX_IN_FLIGHT,
				description:
					'How many requests are open at the same time at most. When the service answers that requests come too fast (HTTP 429), the node slows down by itself and sends the refused items again after the wait the service asks. Settings > Request Options > Batching, when set, also applies: Batching decides when each item may start, Max Requests in Flight caps how many requests are open at once, and the slower of the two sets the pace.',
			}),
			field({
				displayName: 'Max Wait (Seconds)',
				name: 'maxWait',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_MAX_WAIT_SECONDS,
				description: `How long the node waits for the service. When it answers "too fast" (HTTP 429, or 503 with Retry-After), one item waits at most this long in total (over at most ${MAX_RATE_LIMIT_RETRIES} tries) before it fails with the service's message. When it cannot be reached (a restart, a network outage), sending pauses until it answers again; after this long, the items not yet sent fail, and say they were not sent.`,
			}),
		],
		{
			description:
				'How fast a bulk send may go and how long an item may wait for the service (rate limits, outages)',
		},
	),
);

/** The bulk sends that message a person, where Recipient Rules apply (../recipientRules/). */
export const RULED_OPERATIONS: Record<string, string[]> = {
	legacyMessage: ['send'],
	messaging: ['sendSms', 'sendSocialnet'],
};

/** One collection per resource, by resource: parameter names are unique in the node. */
export const RULES_PARAMETER: Record<string, string> = Object.fromEntries(
	Object.keys(RULED_OPERATIONS).map((resource) => [resource, `${resource}RecipientRules`]),
);
