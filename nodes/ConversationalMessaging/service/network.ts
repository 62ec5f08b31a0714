import type { ICredentialDataDecryptedObject, NodeApiError } from 'n8n-workflow';

import { CREDENTIAL_NAME, withoutUserInfo } from './account';
import type { RequestContext, ServiceFailure } from './envelope';
import { failureError } from './envelope';

const NOT_SENT = 'Nothing reached the service, so sending this item again cannot send it twice.';
const CHECK_THE_NETWORK =
	'Check the network between n8n and the service, and that the service is running.';
const UNSURE_IF_SENT =
	'The service may still have carried out the request: check (for example in the dashboard) before sending it again, or a message could go out twice.';

const TIMEOUT_CODES = ['ETIMEDOUT', 'ESOCKETTIMEDOUT'];
/** Failures after which the connection had been made: the service was there. */
const CUT_CODES = ['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'];
const NO_ROUTE_CODES = ['EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN'];
/** A connection cut, or its route lost, before the answer arrived. */
const LOST_CODES = [...CUT_CODES, 'ECONNABORTED', ...NO_ROUTE_CODES];
/** Failures of a connection being made (ECONNREFUSED aside): the request was not written. */
const CONNECT_CODES = ['ETIMEDOUT', 'ECONNRESET', ...NO_ROUTE_CODES];
const LOOKUP_CODES = ['ENOTFOUND', 'EAI_AGAIN'];

export interface Unreached {
	reason: string;
	code: string;
}

/**
 * Why a request failed before it was written (no such host, no connection, no TLS handshake), so
 * sending it again cannot send it twice. Undefined otherwise: the same codes after connecting
 * may follow a request the service carried out.
 */
export const unreachedBy = (error: unknown): Unreached | undefined =>
	unreachedIn(networkErrorsIn(error));

function unreachedIn({ codes, messages, syscalls }: NetworkErrors): Unreached | undefined {
	const code = (wanted: string[]) => codes.find((found) => wanted.includes(found));
	const lookup = code(LOOKUP_CODES);
	if (lookup) return { reason: 'its host name could not be resolved', code: lookup };
	const refused = code(['ECONNREFUSED']);
	if (refused) return { reason: 'the connection was refused', code: refused };
	const connecting =
		syscalls.includes('connect') || messages.some((message) => /^connect E[A-Z]+/.test(message));
	const connect = connecting ? code(CONNECT_CODES) : undefined;
	if (connect) {
		const reason = NO_ROUTE_CODES.includes(connect)
			? 'there was no route to it'
			: 'the connection could not be made';
		return { reason, code: connect };
	}
	if (messages.some((message) => /before secure TLS connection was established/i.test(message)))
		return {
			reason: 'the secure (TLS) connection could not be set up',
			code: code(CUT_CODES) ?? 'ECONNRESET',
		};
	return undefined;
}

/**
 * The error of an item the node gave up without sending: the service could not be reached within
 * Max Wait (how, ../sendLoop/lane.ts's GaveUp says). `firstContact`: the process never reached it,
 * more often a wrong Base URL than an outage. `advice`: what to do then, in the sender's words.
 */
export async function notReachedError(
	item: RequestContext,
	{ cause, waitedMs, firstContact }: { cause: Unreached; waitedMs: number; firstContact: boolean },
	credentials: ICredentialDataDecryptedObject,
	advice: string,
): Promise<NodeApiError> {
	const host = hostOf(credentials.baseUrl);
	const waited = waitedMs >= 1000 ? ` for ${Math.round(waitedMs / 1000)} s` : '';
	// The connection that failed may be the proxy's (n8n's errors do not say which).
	const proxy = item.getNodeParameter('requestOptions.proxy', '')
		? ' Requests go through the Proxy (Settings > Request Options): check that it is running too.'
		: '';
	const failure = firstContact
		? {
				message: `Could not connect to the service at ${host}${waited}: ${cause.reason}`,
				description: `${NOT_SENT} Check the Base URL of the credential, and that the service is running.${proxy}`,
			}
		: {
				message: `The service at ${host} could not be reached${waited} (${cause.reason}): this item was not sent`,
				description: `${NOT_SENT} ${advice}${proxy}`,
			};
	return await failureError.call(item, { ...failure, httpCode: cause.code }, credentials);
}

/** The Base URL's host, as errors name it. */
export function hostOf(baseUrl: unknown): string {
	return (
		withoutUserInfo(String(baseUrl ?? ''))
			.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
			.replace(/[/?#].*$/, '') || 'the Base URL'
	);
}

type ErrorLink = Record<string, unknown>;

interface NetworkErrors {
	codes: string[];
	messages: string[];
	syscalls: string[];
}

/**
 * n8n-workflow 1.x's NodeApiError loses the error it wraps (its class fields overwrite `cause`),
 * leaving the code in `httpCode` and the words in `messages`. The node's own carry `errorResponse`.
 */
function remnantsOf(error: unknown): NetworkErrors {
	const { httpCode, messages, cause, errorResponse } = (error ?? {}) as ErrorLink;
	if (cause !== undefined || errorResponse !== undefined || !Array.isArray(messages))
		return { codes: [], messages: [], syscalls: [] };
	return {
		codes: typeof httpCode === 'string' && /^E[A-Z_]+$/.test(httpCode) ? [httpCode] : [],
		messages: messages.filter((message): message is string => typeof message === 'string'),
		syscalls: [],
	};
}

/** The HTTP client's and the system's errors in the chain; not the node's, which may quote the service. */
function networkErrorsIn(error: unknown): NetworkErrors {
	const found: NetworkErrors = { codes: [], messages: [], syscalls: [] };
	const read = (link: ErrorLink) => {
		if (typeof link.code === 'string') found.codes.push(link.code);
		if (typeof link.message === 'string' && link.message) found.messages.push(link.message);
		if (typeof link.syscall === 'string') found.syscalls.push(link.syscall);
	};
	for (
		let link = error as ErrorLink | undefined, depth = 0;
		link && depth < 5;
		depth++, link = link.cause as ErrorLink | undefined
	) {
		// Node tries each address of a host in turn (autoSelectFamily) and reports them together.
		if (Array.isArray(link.errors))
			for (const attempt of link.errors as ErrorLink[])
				if (attempt && typeof attempt.syscall === 'string') read(attempt);
		if (link.isAxiosError === true || typeof link.syscall === 'string') read(link);
	}
	return found.codes.length || found.messages.length ? found : remnantsOf(error);
}

/** What a request that got no answer did, read once from its error's cause chain. */
export interface NetworkFailure {
	/** In words a user can act on. */
	failure: ServiceFailure;
	/** It was never written: sending it again cannot send it twice. */
	unreached?: Unreached;
	/** It timed out or its connection was cut: the service may have carried it out. */
	unsure: boolean;
	/** The connection had been made: the service was there, whatever came of the request. */
	connected: boolean;
}

/** Undefined for errors that are not the network's (n8n's own, the node's). */
export function networkFailure(error: unknown, host: string): NetworkFailure | undefined {
	const errors = networkErrorsIn(error);
	const has = (wanted: string[]) => errors.codes.find((code) => wanted.includes(code));
	const said = (pattern: RegExp) => errors.messages.some((message) => pattern.test(message));
	const connected = Boolean(has(CUT_CODES));
	const unreached = unreachedIn(errors);
	if (unreached) {
		const failure = LOOKUP_CODES.includes(unreached.code)
			? {
					message: `Could not find the service's host ${host}`,
					description:
						'Check the Base URL of the credential for typos, and the network or DNS of the n8n server.',
				}
			: unreached.code === 'ECONNREFUSED'
				? {
						message: `Could not connect to the service at ${host}: the connection was refused`,
						description:
							'Nothing answers at that address. Check the Base URL of the credential, and that the service is running.',
					}
				: {
						message: `Could not connect to the service at ${host}: ${unreached.reason}`,
						description: `${NOT_SENT} ${CHECK_THE_NETWORK}`,
						unlessSentAgain: CHECK_THE_NETWORK,
					};
		return {
			failure: { ...failure, httpCode: unreached.code },
			unreached,
			unsure: false,
			connected,
		};
	}
	const unsure = (httpCode: string, message: string, advice: string): NetworkFailure => ({
		failure: {
			message,
			description: `${UNSURE_IF_SENT} ${advice}`,
			unlessSentAgain: advice,
			httpCode,
		},
		unsure: true,
		connected,
	});
	const timedOut =
		has(TIMEOUT_CODES) ?? (has(['ECONNABORTED']) && said(/timeout/i) ? 'ETIMEDOUT' : undefined);
	if (timedOut)
		return unsure(
			timedOut,
			`The service at ${host} did not answer in time`,
			'Raise Settings > Request Options > Timeout if the service is slow, or try again later.',
		);
	const cut = has(LOST_CODES) ?? (said(/aborted|socket hang up/i) ? 'ECONNRESET' : undefined);
	if (cut)
		return unsure(
			cut,
			`The connection to the service at ${host} was cut before its answer arrived`,
			'Try again later; if it keeps happening, check proxies and the network between n8n and the service.',
		);
	return undefined;
}

/** A network failure in words a user can act on; other errors as they are. */
export async function readableError(this: RequestContext, error: unknown): Promise<unknown> {
	const network = networkErrorsIn(error);
	if (!network.codes.length && !network.messages.length) return error;
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	const failure = networkFailure(error, hostOf(credentials.baseUrl))?.failure;
	return failure ? await failureError.call(this, failure, credentials) : error;
}
