import type { DeclarativeRestApiSettings, IExecutePaginationFunctions, IExecuteSingleFunctions, INodeExecutionData } from 'n8n-workflow';

import { CREDENTIAL_NAME } from './constants';
import type { ServiceFailure } from './envelope';
import { failureError, throwFailure } from './envelope';

const NOT_SENT = 'Nothing reached the service, so sending this item again cannot send it twice.';
const UNSURE_IF_SENT =
	'The service may still have carried out the request: check (for example in the dashboard) before sending it again, or a message could go out twice.';

/** Network failures after which the service may have carried the request out. */
const UNSURE_CODES = ['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ECONNABORTED'];

/** Connection failures: the request was never written to the service. */
const UNREACHED_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN'];

/**
 * Whether a request failed before it reached the service, so that sending it again cannot send
 * it twice: no connection (refused, no route, no such host, a connect timeout) or a TLS handshake
 * that did not complete. A timeout or a cut after the connection was made is not: the request may
 * have been written.
 */
export function neverReached(error: unknown): boolean {
	return unreachedReason(networkErrorsIn(error)) !== undefined;
}

/** Why a request never reached the service, in words; undefined when it may have. */
function unreachedReason({ codes, messages, syscalls }: NetworkErrors): string | undefined {
	const has = (...wanted: string[]) => codes.some((code) => wanted.includes(code));
	if (has('ECONNREFUSED')) return 'the connection was refused';
	if (has('ENOTFOUND', 'EAI_AGAIN')) return 'its host name could not be resolved';
	if (has(...UNREACHED_CODES)) return 'there was no route to it';
	const duringConnect = syscalls.includes('connect') || messages.some((message) => /^connect E[A-Z]+/.test(message));
	if (duringConnect && has('ETIMEDOUT', 'ECONNRESET')) return 'the connection could not be made';
	if (messages.some((message) => /before secure TLS connection was established/i.test(message))) return 'the secure (TLS) connection could not be set up';
	return undefined;
}

/** Errors of items the node gave up without sending them (./bulk/sendLoop.ts). */
const notSent = new WeakSet<object>();

/**
 * Fails an item whose request never reached the service: after `waitedMs` of waiting for the
 * service to come back, or at once (undefined) when this process has not reached it yet (a wrong
 * Base URL should not make a workflow wait).
 */
export async function throwNotSent(this: IExecuteSingleFunctions, error: unknown, waitedMs?: number): Promise<never> {
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	const host = hostOf(credentials.baseUrl);
	const network = networkErrorsIn(error);
	const reason = unreachedReason(network) ?? 'it did not answer';
	const failure: ServiceFailure =
		waitedMs === undefined
			? {
					message: `Could not connect to the service at ${host}: ${reason}`,
					description: `${NOT_SENT} Check the Base URL of the credential, and that the service is running.`,
					httpCode: network.codes[0] ?? 'ECONNREFUSED',
				}
			: {
					message: `The service at ${host} could not be reached for ${Math.round(waitedMs / 1000)} s (${reason}): this item was not sent`,
					description: `${NOT_SENT} The service did not come back within Max Wait (Send Options); raise it to wait longer for a service that restarts, or send the failed items again later.`,
					httpCode: network.codes[0] ?? 'ECONNREFUSED',
				};
	const failed = await failureError.call(this, failure, credentials);
	notSent.add(failed);
	throw failed;
}

function hostOf(baseUrl: unknown): string {
	return String(baseUrl ?? '').replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '') || 'the Base URL';
}

/**
 * Whether a request that failed this way may still have been carried out by the service: no
 * complete answer arrived (a timeout, a cut connection), or a 2xx answer could not be read.
 * Such a request must never be sent again by the node.
 */
export function mayHaveBeenCarriedOut(error: unknown): boolean {
	if (typeof error === 'object' && error !== null && notSent.has(error)) return false;
	const code = String((error as { httpCode?: unknown } | undefined)?.httpCode ?? '');
	return UNSURE_CODES.includes(code) || /^2\d\d$/.test(code);
}

interface ErrorLink {
	code?: unknown;
	message?: unknown;
	cause?: unknown;
	isAxiosError?: unknown;
	syscall?: unknown;
}

interface NetworkErrors {
	codes: string[];
	messages: string[];
	/** The system calls that failed (`connect`, `getaddrinfo`), where the error says. */
	syscalls: string[];
}

interface WrappedError {
	httpCode?: unknown;
	messages?: unknown;
	cause?: unknown;
	errorResponse?: unknown;
}

/**
 * n8n-workflow 1.x's NodeApiError loses the request error it wraps (its class fields overwrite
 * `cause`); what is left is the system's code as `httpCode` and the error's own words in
 * `messages`. The node's own errors always carry an `errorResponse`, so they are not read here.
 */
function remnantsOf(error: unknown): NetworkErrors {
	const { httpCode, messages, cause, errorResponse } = (error ?? {}) as WrappedError;
	if (cause !== undefined || errorResponse !== undefined || !Array.isArray(messages)) return { codes: [], messages: [], syscalls: [] };
	return {
		codes: typeof httpCode === 'string' && /^E[A-Z_]+$/.test(httpCode) ? [httpCode] : [],
		messages: messages.filter((message): message is string => typeof message === 'string'),
		syscalls: [],
	};
}

/**
 * Codes and messages of the HTTP client's and the system's errors in the chain of causes (n8n
 * wraps them). The node's own errors, which may quote the service's words, are not read.
 */
function networkErrorsIn(error: unknown): NetworkErrors {
	const codes: string[] = [];
	const messages: string[] = [];
	const syscalls: string[] = [];
	for (let link = error as ErrorLink | undefined, depth = 0; link && depth < 5; depth++, link = link.cause as ErrorLink | undefined) {
		if (link.isAxiosError !== true && typeof link.syscall !== 'string') continue;
		if (typeof link.code === 'string') codes.push(link.code);
		if (typeof link.message === 'string') messages.push(link.message);
		if (typeof link.syscall === 'string') syscalls.push(link.syscall);
	}
	return codes.length || messages.length ? { codes, messages, syscalls } : remnantsOf(error);
}

/** What went wrong on the network, in words a user can act on; undefined for other errors. */
function describeNetworkFailure({ codes, messages }: NetworkErrors, host: string): ServiceFailure | undefined {
	const has = (...wanted: string[]) => codes.find((code) => wanted.includes(code));
	const said = (pattern: RegExp) => messages.some((message) => pattern.test(message));
	const refused = has('ECONNREFUSED');
	if (refused) {
		return {
			message: `Could not connect to the service at ${host}: the connection was refused`,
			description: 'Nothing answers at that address. Check the Base URL of the credential, and that the service is running.',
			httpCode: refused,
		};
	}
	const unknownHost = has('ENOTFOUND', 'EAI_AGAIN');
	if (unknownHost) {
		return {
			message: `Could not find the service's host ${host}`,
			description: 'Check the Base URL of the credential for typos, and the network or DNS of the n8n server.',
			httpCode: unknownHost,
		};
	}
	const timedOut = has('ETIMEDOUT', 'ESOCKETTIMEDOUT') ?? (has('ECONNABORTED') && said(/timeout/i) ? 'ETIMEDOUT' : undefined);
	if (timedOut) {
		return {
			message: `The service at ${host} did not answer in time`,
			description: `${UNSURE_IF_SENT} Raise Options > Timeout if the service is slow, or try again later.`,
			httpCode: timedOut,
		};
	}
	const cut = has('ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ECONNABORTED') ?? (said(/aborted|socket hang up/i) ? 'ECONNRESET' : undefined);
	if (cut) {
		return {
			message: `The connection to the service at ${host} was cut before its answer arrived`,
			description: `${UNSURE_IF_SENT} Try again later; if it keeps happening, check proxies and the network between n8n and the service.`,
			httpCode: cut,
		};
	}
	return undefined;
}

/** Turns a network failure into an error that names it; other errors pass unchanged. */
async function rethrowReadable(this: IExecutePaginationFunctions, error: unknown): Promise<never> {
	const network = networkErrorsIn(error);
	// The node's own errors (an error envelope, a refused value) are thrown as they are.
	if (!network.codes.length && !network.messages.length) throw error;
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	const failure = describeNetworkFailure(network, hostOf(credentials.baseUrl));
	if (!failure) throw error;
	return await throwFailure.call(this, failure, credentials);
}

type Send = (this: IExecutePaginationFunctions, requestData: DeclarativeRestApiSettings.ResultOptions) => Promise<INodeExecutionData[]>;

const sendOnce: Send = async function (requestData) {
	return await this.makeRoutingRequest(requestData);
};

/**
 * An operation's request (or the requests `send` makes) with network failures made readable.
 * n8n runs it as the operation's "pagination", its only hook around a declarative request.
 */
export function readableRequests(send: Send = sendOnce): Send {
	return async function (requestData) {
		try {
			return await send.call(this, requestData);
		} catch (error) {
			return await rethrowReadable.call(this, error);
		}
	};
}
