import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';
import { isExpression, NodeOperationError } from 'n8n-workflow';

import type { RequestOptionsParameter } from '../n8nInternals';
import { DEFAULT_TIMEOUT_MS, REQUEST_OPTIONS } from '../n8nInternals';

/**
 * The service account a credential names, and how a request reaches it: the credential type's name
 * and its Default Country's, its Base URL as requests use it (the credential's authenticate and the
 * node both read it from here), its allowed domains, and Settings > Request Options (timeout, proxy,
 * certificate checks) as RoutingNode applies them, for the node's own requests (the send loop, Send
 * and Wait, Researcher > Run's progress checks).
 */
export const CREDENTIAL_NAME = 'conversationalMessagingApi';

/** The Default Country's name, in the credential and as the node's setting (checks/phone/defaultCountry.ts). */
export const DEFAULT_COUNTRY = 'defaultCountry';
/** The node's None: the credential's None is empty, which on the node means From Credential. */
export const NO_COUNTRY = 'none';

/** Users paste "https://host/" or "https://host/v1"; every operation path starts with /v1. */
export function apiBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/v1$/i, '');
}

/**
 * An address as errors may show it: without the user:password@ before its host. Cut at the last
 * @, as a password may hold an unescaped @, / or line break: a wrong host shown beats a password shown.
 */
export const withoutUserInfo = (address: string): string =>
	address.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, '$1');

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
	if (raw.some((value) => isExpression(value))) return forItem;
	let shared: Partial<IHttpRequestOptions> | undefined;
	try {
		shared = forItem(0);
	} catch {
		// Thrown again for each item.
	}
	return (itemIndex) => (shared ? { ...shared } : forItem(itemIndex));
}
