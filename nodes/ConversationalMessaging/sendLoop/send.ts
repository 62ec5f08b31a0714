import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemContext } from '../checks/checks';
import { MAX_RATE_LIMIT_RETRIES } from '../form/settings';
import { CREDENTIAL_NAME } from '../service/account';
import type { EnvelopeReading, ServiceFailure } from '../service/envelope';
import { failureError, headerValue, readEnvelope, withFix } from '../service/envelope';
import type { NetworkFailure } from '../service/network';
import { hostOf, networkFailure, notReachedError } from '../service/network';
import { clock } from '../clock';
import type { SendSummary } from './sendSummary';
import type { RequestForm } from './itemRequest';
import type { Member, Ticket } from './lane';
import { GaveUp, Stopped } from './lane';
import { Pacer } from './pacer';

export type NodeError = NodeApiError | NodeOperationError;
type WithNode = Pick<IExecuteFunctions, 'getNode'>;

/** Who sent an item and when (epoch ms): this execution, or the failed one n8n's Retry runs again. */
export type SentBy = { executionId: string; at: number };

/** A failure's words, as the run's memory keeps them (the error itself may hold the request). */
export type FailureWords = { message: string; description?: string; httpCode?: string };

/**
 * What became of one item's request, decided here alone: whether it may ever go again follows
 * from which of these it is. What the service got (`sent`, `unsure`) says, once noted or
 * remembered, who sent it (`by`: ./runMemory.ts).
 */
export type SendOutcome =
	/** The service accepted it: its answer's records. */
	| { sent: INodeExecutionData[]; by?: SentBy }
	/**
	 * No complete answer (a timeout, a cut connection) or a 2xx that could not be read: the service
	 * may have carried it out, so nothing the node does sends it again. `firstFailure`: the words
	 * of the first failure, when an earlier execution's is named again.
	 */
	| { unsure: NodeError; by?: SentBy; firstFailure?: FailureWords }
	/**
	 * Not carried out, or nothing says it was: the service said no, kept saying "too fast" past Max
	 * Wait, or could not be reached within it; or the request failed before it went out.
	 */
	| { failed: NodeError }
	/** The execution stopped (cancelled, or another item failed) before it was sent. */
	| { stopped: NodeOperationError };

/** What a bulk send advises: its Send Options are what a user can change. */
export const BULK_ADVICE = {
	notReached:
		'The service did not answer again within Max Wait (Send Options); raise it to wait longer for a service that restarts, or send the failed items again later.',
	refused:
		'Lower Max Requests in Flight or raise Max Wait (Send Options), or send fewer items at a time.',
};

/** What every request of one send shares, read once. */
export interface Sender {
	fns: IExecuteFunctions;
	credentials: ICredentialDataDecryptedObject;
	/** This execution's part in the pace and the outages of the service account (./lane.ts). */
	lane: Member;
	maxWaitMs: number;
	/** What to do when the service stayed away, or kept saying "too fast", past Max Wait. */
	advice: { notReached: string; refused: string };
	/** The figures for the hint above the output; none where there is no hint (Send and Wait). */
	summary?: SendSummary;
	/** Waits out a "too fast" answer, giving the item's place to the next item meanwhile. */
	waitAside(ms: number): Promise<void>;
}

/**
 * Sends the item's request in its turn, again while the service says "too fast" (within Max Wait)
 * or cannot be reached (until it answers again, within Max Wait); never again once it may have
 * been carried out.
 */
export async function send(
	sender: Sender,
	item: ItemContext,
	form: RequestForm,
	request: IHttpRequestOptions,
): Promise<SendOutcome> {
	const { lane, summary } = sender;
	const itemIndex = item.getItemIndex();
	let waitedMs = 0;
	for (let attempt = 0; ; ) {
		const ticket = await lane.acquire();
		if (ticket instanceof Stopped) return { stopped: stoppedError(sender.fns, itemIndex) };
		if (ticket instanceof GaveUp) {
			const failed = notReachedError(item, ticket, sender.credentials, sender.advice.notReached);
			return { failed: await failed };
		}
		summary?.sending(itemIndex, ticket.at);
		const tried = await sendOnce(sender, request, ticket);
		if ('unreached' in tried) {
			summary?.unreached(itemIndex);
			continue;
		}
		summary?.reached(itemIndex);
		if ('error' in tried) return await failedRequest(sender, item, tried);
		const { response } = tried;
		const reading = readEnvelope(response);
		const refused = refusal(reading, response);
		if (!refused) {
			lane.accept(ticket);
			return await answer(sender, item, form, reading);
		}
		lane.refuse(ticket, refused.overloaded);
		summary?.refused(itemIndex, refused.overloaded);
		const wait = Pacer.waitBeforeRetry(refused.retryAfter, attempt);
		if (attempt >= MAX_RATE_LIMIT_RETRIES || waitedMs + wait > sender.maxWaitMs) {
			const asked =
				refused.retryAfter === undefined ? '' : ` (it asks to wait ${refused.retryAfter} s)`;
			const failure = {
				...refused.failure,
				description: `The service still refused the request after ${attempt + 1} ${attempt ? 'tries' : 'try'} and ${Math.round(waitedMs / 1000)} s of waiting${asked}; it was not carried out. ${sender.advice.refused}`,
			};
			return { failed: await failureError.call(item, failure, sender.credentials) };
		}
		waitedMs += wait;
		attempt++;
		await sender.waitAside(wait);
	}
}

/**
 * One request. n8n's helper may change the request (its body, its abort signal): each call sends
 * its own copy. The credential is the one read for the send (RoutingNode reads it per item): n8n
 * then decrypts it once, not once per request.
 */
async function sendOnce(
	{ fns, credentials, lane }: Sender,
	request: IHttpRequestOptions,
	ticket: Ticket,
): Promise<
	| { response: IN8nHttpFullResponse }
	| { unreached: true }
	| { error: unknown; network?: NetworkFailure }
> {
	let error: unknown;
	try {
		const response = (await fns.helpers.httpRequestWithAuthentication.call(
			fns,
			CREDENTIAL_NAME,
			{ ...request, returnFullResponse: true },
			{ credentialsDecrypted: { id: '', name: '', type: CREDENTIAL_NAME, data: credentials } },
		)) as IN8nHttpFullResponse;
		return { response };
	} catch (caught) {
		error = caught;
	} finally {
		lane.release();
	}
	const network = networkFailure(error, hostOf(credentials.baseUrl));
	if (network?.unreached) {
		lane.unreachable(ticket, network.unreached);
		return { unreached: true };
	}
	if (network?.connected) lane.reached(ticket);
	else lane.inconclusive(ticket);
	return { error, network };
}

/** A request that got no answer: its network failure (as sendOnce read it) in words a user can act on. */
async function failedRequest(
	{ fns, credentials }: Sender,
	item: ItemContext,
	{ error, network }: { error: unknown; network?: NetworkFailure },
): Promise<SendOutcome> {
	if (!network) return { failed: asNodeError(fns, error, item.getItemIndex()) };
	const failed = await failureError.call(item, network.failure, credentials);
	return network.unsure ? { unsure: failed } : { failed };
}

/**
 * The answer's records, an item each, from the envelope read once; an error envelope on a 2xx (or
 * an unreadable 2xx) leaves it unsure: the service may have carried it out.
 */
async function answer(
	{ credentials }: Sender,
	item: ItemContext,
	form: RequestForm,
	reading: EnvelopeReading,
): Promise<SendOutcome> {
	if ('failure' in reading) {
		const failed = await failureError.call(item, reading.failure, credentials);
		return reading.failure.onSuccess ? { unsure: failed } : { failed };
	}
	const pairedItem = { item: item.getItemIndex() };
	return { sent: form.records(reading.payload).map((json) => ({ json, pairedItem })) };
}

/** Seconds from a Retry-After header: a number of seconds or an HTTP date. */
function retryAfterSeconds(headers: IN8nHttpFullResponse['headers']): number | undefined {
	const value = (headerValue(headers, 'retry-after') ?? '').trim();
	if (value === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, (date - clock.now()) / 1000);
}

/** A "too fast" answer: HTTP 429 (or 429 in the envelope), or 503 with Retry-After. The service did not act on it. */
function refusal(
	reading: EnvelopeReading,
	response: IN8nHttpFullResponse,
): { failure: ServiceFailure; overloaded: boolean; retryAfter?: number } | undefined {
	if (!('failure' in reading)) return undefined;
	const retryAfter = retryAfterSeconds(response.headers);
	const overloaded = reading.failure.httpCode === '503' && retryAfter !== undefined;
	if (reading.failure.httpCode !== '429' && !overloaded) return undefined;
	return { failure: reading.failure, overloaded, retryAfter };
}

/** A run cancelled while it sent: what it sent stays in its memory (./runMemory.ts). */
export const cancelledError = (fns: WithNode) =>
	new NodeOperationError(fns.getNode(), 'The execution was cancelled while sending');

export function stoppedError(fns: WithNode, itemIndex: number): NodeOperationError {
	return new NodeOperationError(fns.getNode(), 'The execution stopped before this item was sent', {
		itemIndex,
		description:
			'It was cancelled, or another item failed (On Error: "Stop Workflow") while this one waited for the service. Nothing was sent for it.',
	});
}

export function asNodeError(fns: WithNode, error: unknown, itemIndex: number): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(
		fns.getNode(),
		error instanceof Error ? error : new Error(String(error)),
		{ itemIndex },
	);
}

/** The error of an item the service gave no answer for: an unsure request's as a node error. */
export function failureOf(
	fns: WithNode,
	outcome: { unsure: unknown } | { failed: NodeError } | { stopped: NodeOperationError },
	itemIndex: number,
): NodeError {
	if ('unsure' in outcome) return asNodeError(fns, outcome.unsure, itemIndex);
	return 'failed' in outcome ? outcome.failed : outcome.stopped;
}

/**
 * The error of an error item (On Error: Continue), its fix in its message: n8n writes an error item
 * as `{ error: message }`, and its description (what to do) would be lost from the output.
 */
export function errorItemError(error: NodeError): NodeError {
	const message = withFix(error.message, error.description);
	return message === error.message ? error : Object.assign(copyOf(error), { message });
}

/** The error again, its class and own properties kept, for words of its own. */
export const copyOf = (error: NodeError): NodeError =>
	Object.defineProperties(
		Object.create(Object.getPrototypeOf(error) as object) as NodeError,
		Object.getOwnPropertyDescriptors(error),
	);
