import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';
import { getCredentialAllowedDomains, NodeOperationError, toHostname } from 'n8n-workflow';

import { runIndexOf } from '../runIndex';
import { copyOf } from './merge';

/** n8n's Request Options (Batching, Timeout, Proxy, Ignore SSL Issues), which this node declares itself (../requestOptions.ts). */
export interface RequestOptionsParameter {
	batching?: { batch?: { batchSize?: number; batchInterval?: number } };
	timeout?: number;
	proxy?: string;
	allowUnauthorizedCerts?: boolean;
}

type Proxy = NonNullable<IHttpRequestOptions['proxy']>;

/** Protocols Node's url.parse reads a host after only with `//`. */
const SLASHED = new Set(['http:', 'https:', 'ftp:', 'gopher:', 'file:', 'ws:', 'wss:']);

/**
 * The proxy as RoutingNode reads it with Node's legacy `url.parse` (not importable here): the
 * host and an explicit port are required (`http://proxy` has none, and is refused); the port is
 * kept as written (`:80` on http too); the credentials are percent-decoded and split at the
 * first colon, the rest of the password dropped as RoutingNode drops it. Undefined: which part
 * RoutingNode finds missing.
 */
export function parseProxy(proxy: string): { proxy: Proxy } | { missing: 'host' | 'port' } {
	const text = proxy.trim();
	const protocol = /^[a-z0-9.+-]+:/i.exec(text)?.[0].toLowerCase();
	let rest = protocol ? text.slice(protocol.length) : text;
	const slashes = rest.startsWith('//');
	if (!protocol || (SLASHED.has(protocol) && !slashes) || protocol === 'javascript:')
		return { missing: 'host' };
	if (slashes) rest = rest.slice(2);
	const authority = rest.slice(0, rest.search(/[/?#\\\s]|$/));
	const at = authority.lastIndexOf('@');
	const auth = at < 0 ? undefined : decodeURIComponent(authority.slice(0, at));
	const hostPort = authority.slice(at + 1);
	const port = /:(\d+)$/.exec(hostPort)?.[1];
	if (port === undefined) return { missing: 'port' };
	const host = hostPort
		.slice(0, -port.length - 1)
		.toLowerCase()
		.replace(/^\[(.*)\]$/, '$1');
	const parsed: Proxy = { host, port: parseInt(port), protocol: protocol.replace(/:$/, '') };
	if (auth !== undefined) {
		const [username, password] = auth.split(':');
		parsed.auth = { username, password };
	}
	return { proxy: parsed };
}

/** RoutingNode 1.x's refusal (2.x's getCredentialAllowedDomains throws it itself). */
const NO_DOMAINS =
	'No allowed domains specified. Configure allowed domains or change restriction setting.';

/** n8n-workflow 1.x's form: (credentialData, nodeEndpointUrl). */
type AllowedDomainsV1 = (data: ICredentialDataDecryptedObject, url?: string) => string | undefined;

/**
 * n8n-workflow 2.x takes one options object (2.35 to 2.40 already, without `toHostname`, which
 * 2.41 added); 1.x takes (credentialData, nodeEndpointUrl) and has no `toHostname`.
 */
const takesOptions = () =>
	typeof toHostname === 'function' || getCredentialAllowedDomains.length < 2;

/**
 * The credential's allowed domains, as RoutingNode asks n8n-workflow for them. With the options
 * form, the surface is the node's own when the request's base URL has the host the description
 * gives without the user's values, which holds here, as the plan's constants alone set it
 * (./plan.ts). A credential restricted to domains with none named sends nothing, on both.
 */
function allowedDomains(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
	baseURL: string | undefined,
): string | undefined {
	if (typeof getCredentialAllowedDomains !== 'function') return undefined; // n8n before credential domain restrictions
	const allowed = takesOptions()
		? getCredentialAllowedDomains({
				node: fns.getNode(),
				credentialData: credentials,
				credentialOwnedSurface: true,
				nodeEndpointUrl: baseURL,
			})
		: (getCredentialAllowedDomains as unknown as AllowedDomainsV1)(credentials, baseURL);
	if (credentials.allowedHttpRequestDomains === 'domains' && !allowed)
		throw new NodeOperationError(fns.getNode(), NO_DOMAINS);
	return allowed;
}

/**
 * What RoutingNode adds to every request of the node (its proxy, SSL, timeout and allowed-domains
 * steps, in its order, with its errors), for the item: RoutingNode fails each item on its own.
 */
function requestSettings(
	fns: IExecuteFunctions,
	options: RequestOptionsParameter,
	credentials: ICredentialDataDecryptedObject,
	baseURL: string | undefined,
	itemIndex: number,
): Partial<IHttpRequestOptions> {
	const settings: Partial<IHttpRequestOptions> = {};
	if (options.proxy) {
		const parsed = parseProxy(options.proxy);
		if ('missing' in parsed) {
			throw new NodeOperationError(fns.getNode(), 'The proxy is not valid', {
				runIndex: runIndexOf(fns),
				itemIndex,
				description: `The proxy URL does not contain a valid value for "${parsed.missing}"`,
			});
		}
		settings.proxy = parsed.proxy;
	}
	if (options.allowUnauthorizedCerts)
		settings.skipSslCertificateValidation = options.allowUnauthorizedCerts;
	settings.timeout = options.timeout || 300_000;
	const allowed = allowedDomains(fns, credentials, baseURL);
	if (allowed) settings.allowedDomains = allowed;
	return settings;
}

/** Whether an item's settings may differ from item 0's (Batching is read once, for item 0). */
const perItem = ({ proxy, timeout, allowUnauthorizedCerts }: RequestOptionsParameter) =>
	[proxy, timeout, allowUnauthorizedCerts].some(
		(value) => typeof value === 'string' && value.startsWith('='),
	);

/**
 * The request settings for each item. RoutingNode evaluates Request Options for each item (an
 * expression in them may differ per item); without one, they are read once. When they fail, each
 * item fails with its own error, as in RoutingNode.
 */
export function settingsFor(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
	baseURL: string | undefined,
): (itemIndex: number) => Partial<IHttpRequestOptions> {
	const forItem = (itemIndex: number) =>
		requestSettings(
			fns,
			fns.getNodeParameter('requestOptions', itemIndex, {}) as RequestOptionsParameter,
			credentials,
			baseURL,
			itemIndex,
		);
	const raw = (fns.getNode().parameters.requestOptions ?? {}) as RequestOptionsParameter;
	if (perItem(raw)) return forItem;
	let shared: Partial<IHttpRequestOptions> | undefined;
	try {
		shared = forItem(0);
	} catch {
		// Thrown again for each item.
	}
	// Each item gets its own copy, as RoutingNode builds each item's: a hook may change it.
	return (itemIndex) =>
		shared ? (copyOf(shared) as Partial<IHttpRequestOptions>) : forItem(itemIndex);
}
