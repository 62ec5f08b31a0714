import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	JsonObject,
	PostReceiveAction,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { CREDENTIAL_NAME } from './account';
import { REDIRECT_ADVICE, redirectMessage } from './redirects';

/** The service does not document its lists' payload: the first array under one of these is read. */
const LIST_KEYS = ['data', 'items', 'results', 'records', 'contacts', 'campaigns'];

export interface ServiceFailure {
	message: string;
	description: string;
	httpCode: string;
	/**
	 * Said with a success status (`err: true` on an envelope statusCode 200, or an unreadable body on
	 * HTTP 2xx): the service may have carried it out.
	 */
	onSuccess?: boolean;
	/**
	 * What to do, for a request that is not sent again (a progress check): the description without
	 * its advice on sending or running again; absent when the description has none.
	 */
	unlessSentAgain?: string;
}

export type EnvelopeReading = { payload: IDataObject } | { failure: ServiceFailure };

const isObject = (value: unknown): value is IDataObject =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

export function headerValue(
	headers: IN8nHttpFullResponse['headers'],
	name: string,
): string | undefined {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
}

/** What to do, and (`again`) what about sending it again. */
type Advice = { hint: string; again?: string };

function hintFor(status: number, retryAfter?: string): string | Advice {
	if (status === 401 || status === 403)
		return 'The API token is missing, invalid or was rotated in the dashboard. Update the credential with the current token.';
	if (status === 404)
		return 'Nothing exists with that identifier. Check the ID; the record may have been deleted. If every operation answers 404, check the Base URL of the credential.';
	if (status === 429) {
		const wait = retryAfter ? `The service asks to wait ${retryAfter} s. ` : '';
		return {
			hint: `${wait}Too many requests: the service limits how fast requests may come.`,
			again:
				'Run again after the wait, or space the requests with Settings > Request Options > Batching.',
		};
	}
	if (status >= 500)
		return {
			hint: 'The service failed to process the request.',
			again:
				'Try again later; Retry On Fail (node settings) can do it for you, and operations with Send Options then skip the items already accepted.',
		};
	if (status >= 400)
		return 'The service refused the request for what it contains: its words above say why. Correct that value (or the recipient) first: sent again unchanged, it is refused again.';
	return 'The service reported an error. Check the values sent and the Base URL of the credential.';
}

function describeText(text: string): string {
	const plain = text
		.replace(/<[^>]*>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	return plain.length > 120 ? `${plain.slice(0, 117)}...` : plain;
}

const NOT_THE_API =
	'Check that the Base URL of the credential points at the Conversational Messaging API.';

/**
 * What the node's hooks (checks, answer readers) and the service's errors may use of n8n's per-item
 * context: what RoutingNode and the send loop both give.
 */
export type RequestContext = Pick<
	IExecuteSingleFunctions,
	| 'getNode'
	| 'getItemIndex'
	| 'getNodeParameter'
	| 'getCredentials'
	| 'getTimezone'
	| 'continueOnFail'
>;

/**
 * An error item's message (On Error: Continue): n8n writes the item as `{ error: message }` alone,
 * so the fix goes into the message or it is lost from the output.
 */
export const withFix = (message: string, fix: string | null | undefined): string =>
	!fix || message.includes(fix) ? message : `${message.replace(/[.:]$/, '')}. ${fix}`;

/** Reads `{statusCode, body: {err, ...}}`: `err: true` or a status not 200 fails, even on HTTP 200. */
export function readEnvelope(response: IN8nHttpFullResponse): EnvelopeReading {
	const httpStatus = Number(response.statusCode) || 0;
	const failed = (message: string, advice: string | Advice, status = httpStatus) => {
		const { hint, again } = typeof advice === 'string' ? { hint: advice } : advice;
		const failure: ServiceFailure = {
			message,
			description: again ? `${hint} ${again}` : hint,
			httpCode: String(status),
			...(again && { unlessSentAgain: hint }),
			...(status >= 200 && status < 300 && { onSuccess: true }),
		};
		return { failure };
	};
	if (httpStatus >= 300 && httpStatus < 400) {
		const location = headerValue(response.headers, 'location');
		return failed(redirectMessage(httpStatus, location), REDIRECT_ADVICE);
	}
	const retryAfter = headerValue(response.headers, 'retry-after');
	let raw: unknown = response.body;
	if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
	if (typeof raw === 'string') {
		if (raw.trim() === '')
			return failed(
				`The service sent an empty answer (HTTP ${httpStatus})`,
				hintFor(httpStatus >= 400 ? httpStatus : 500, retryAfter),
			);
		try {
			raw = JSON.parse(raw);
		} catch {
			return failed(
				`The service answered HTTP ${httpStatus} with a body that is not JSON: "${describeText(raw as string)}"`,
				httpStatus >= 400 ? hintFor(httpStatus, retryAfter) : NOT_THE_API,
			);
		}
	}
	if (!isObject(raw) || !isObject(raw.body))
		return failed(
			`The service answered HTTP ${httpStatus}, but not like the Conversational Messaging API`,
			NOT_THE_API,
		);
	const body = raw.body;
	const envelopeStatus = typeof raw.statusCode === 'number' ? raw.statusCode : httpStatus;
	if (httpStatus >= 400 || envelopeStatus !== 200 || body.err === true) {
		const status = envelopeStatus === 200 && httpStatus >= 400 ? httpStatus : envelopeStatus;
		const serviceMessage =
			typeof body.message === 'string' && body.message ? body.message : 'no message';
		return failed(
			`The service answered ${status}: ${serviceMessage}`,
			hintFor(status, retryAfter),
			status,
		);
	}
	const payload = { ...body };
	delete payload.err;
	return { payload };
}

/** An item's context, or the editor's (a list search), which has no item. */
type FailureContext = Pick<RequestContext, 'getNode' | 'getCredentials'> & Partial<RequestContext>;

/**
 * The token is taken out even if the service echoes it back; built from words only, as an HTTP
 * client's error would keep the request, token included.
 */
export async function failureError(
	this: FailureContext,
	failure: ServiceFailure,
	credentials?: ICredentialDataDecryptedObject,
): Promise<NodeApiError> {
	const { apiToken } =
		credentials ?? (await this.getCredentials<ICredentialDataDecryptedObject>(CREDENTIAL_NAME));
	const token = String(apiToken ?? '');
	const redact = (text: string) => (token ? text.split(token).join('[redacted]') : text);
	const message = redact(failure.message);
	const error = new NodeApiError(
		this.getNode(),
		{ message, httpCode: failure.httpCode } as JsonObject,
		{
			message,
			description: redact(failure.description),
			httpCode: failure.httpCode,
			itemIndex: this.getItemIndex?.(),
		},
	);
	// NodeApiError swaps the message of a known error code (ECONNRESET, ...) for a generic one.
	error.message = this.continueOnFail?.() ? withFix(message, error.description) : message;
	return error;
}

export async function envelopePayload(
	this: RequestContext,
	response: IN8nHttpFullResponse,
): Promise<IDataObject> {
	const reading = readEnvelope(response);
	if ('failure' in reading) throw await failureError.call(this, reading.failure);
	return reading.payload;
}

/** RoutingNode's reader of an answer (routing's `postReceive`): the envelope read, then its records, an item each. */
export const readRecords = (records: (payload: IDataObject) => IDataObject[]): PostReceiveAction =>
	async function (this: IExecuteSingleFunctions, _items, response) {
		const payload = await envelopePayload.call(this, response);
		return records(payload).map((json) => ({ json, pairedItem: { item: this.getItemIndex() } }));
	};

/** The payload alone, as one record: what most answers are. */
export const singleRecord = (payload: IDataObject): IDataObject[] => [payload];

export const unwrapEnvelope = readRecords(singleRecord);

/** A payload without any list is one record: an unexpected shape must stay visible. */
export function listRecords(payload: IDataObject): IDataObject[] {
	for (const key of LIST_KEYS) {
		const value = payload[key];
		if (Array.isArray(value))
			return value.map((record) => (isObject(record) ? record : { value: record }));
	}
	return [payload];
}

/** The number check's answer sits in `body.response`. */
export const validationRecords = (payload: IDataObject): IDataObject[] => [
	isObject(payload.response) ? payload.response : payload,
];
