import type { DeclarativeRestApiSettings, IExecutePaginationFunctions, INodeExecutionData } from 'n8n-workflow';

import { CREDENTIAL_NAME } from './constants';
import type { ServiceFailure } from './envelope';
import { throwFailure } from './envelope';

const UNSURE_IF_SENT =
	'The service may still have carried out the request: check (for example in the dashboard) before sending it again, or a message could go out twice.';

/** Network failures after which the service may have carried the request out. */
const UNSURE_CODES = ['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ECONNABORTED'];

/**
 * Whether a request that failed this way may still have been carried out by the service: no
 * complete answer arrived (a timeout, a cut connection), or a 2xx answer could not be read.
 * Such a request must never be sent again by the node.
 */
export function mayHaveBeenCarriedOut(error: unknown): boolean {
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
	if (cause !== undefined || errorResponse !== undefined || !Array.isArray(messages)) return { codes: [], messages: [] };
	return {
		codes: typeof httpCode === 'string' && /^E[A-Z_]+$/.test(httpCode) ? [httpCode] : [],
		messages: messages.filter((message): message is string => typeof message === 'string'),
	};
}

/**
 * Codes and messages of the HTTP client's and the system's errors in the chain of causes (n8n
 * wraps them). The node's own errors, which may quote the service's words, are not read.
 */
function networkErrorsIn(error: unknown): NetworkErrors {
	const codes: string[] = [];
	const messages: string[] = [];
	for (let link = error as ErrorLink | undefined, depth = 0; link && depth < 5; depth++, link = link.cause as ErrorLink | undefined) {
		if (link.isAxiosError !== true && typeof link.syscall !== 'string') continue;
		if (typeof link.code === 'string') codes.push(link.code);
		if (typeof link.message === 'string') messages.push(link.message);
	}
	return codes.length || messages.length ? { codes, messages } : remnantsOf(error);
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
	const host = String(credentials.baseUrl ?? '').replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '') || 'the Base URL';
	const failure = describeNetworkFailure(network, host);
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
