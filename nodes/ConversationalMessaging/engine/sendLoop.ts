import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { clock } from '../shared/clock';
import { CREDENTIAL_NAME } from '../shared/constants';
import { phoneReadings } from '../shared/checks';
import { failureError } from '../shared/envelope';
import type { ItemContext } from '../shared/itemContext';
import { itemContext } from '../shared/itemContext';
import {
	cutAfterConnecting,
	mayHaveBeenCarriedOut,
	readableError,
	throwNotSent,
	unreachedBy,
} from '../shared/network';
import type { RequestOptionsParameter } from '../shared/requestSettings';
import { settingsFor } from '../shared/requestSettings';
import type { SendOptions } from '../shared/sendOptions';
import {
	DEFAULT_MAX_IN_FLIGHT,
	DEFAULT_MAX_WAIT_SECONDS,
	MAX_RATE_LIMIT_RETRIES,
} from '../shared/sendOptions';
import { FieldValues, READ_AHEAD } from './fieldValues';
import type { Member, Ticket } from './lane';
import { GaveUp, joinLane, Stopped } from './lane';
import { Pacer } from './pacer';
import type { RequestForm } from './itemRequest';
import { buildRequest, readAnswer, requestForm, sendOnce } from './itemRequest';
import { refusal } from './refusal';
import type { Outcome, StepMemory } from './retryMemory';
import { withRunMemory } from './retryMemory';
import type { SendSummary } from './sendSummary';
import type { Done } from './stoppedSend';
import {
	executionIdOf,
	forgetStop,
	keepStop,
	markedSent,
	recallStop,
	sentEarlier,
	stopError,
} from './stoppedSend';

type NodeError = NodeApiError | NodeOperationError;

/** What every request of one run shares, read once. */
interface Run {
	fns: IExecuteFunctions;
	form: RequestForm;
	credentials: ICredentialDataDecryptedObject;
	/** This execution's part in the pace and the outages of the service account (./lane.ts). */
	lane: Member;
	maxWaitMs: number;
	summary: SendSummary;
	/** Waits out a refusal, giving the item's place to the next item meanwhile. */
	waitAside(ms: number): Promise<void>;
}

/** Sends the item's request, and again (that item only) while the service says "too fast". */
async function sendRequest(
	run: Run,
	item: ItemContext,
	request: IHttpRequestOptions,
): Promise<INodeExecutionData[]> {
	let waitedMs = 0;
	for (let attempt = 0; ; ) {
		const sent = await sendInTurn(run, item, request);
		if (!sent) continue;
		const { response, ticket } = sent;
		const refused = refusal(response);
		if (!refused) {
			run.lane.accept(ticket);
			return await readAnswer(item, run.form, response);
		}
		run.lane.refuse(ticket, refused.overloaded);
		run.summary.refused(item.getItemIndex(), refused.overloaded);
		const wait = Pacer.waitBeforeRetry(refused.retryAfter, attempt);
		if (attempt >= MAX_RATE_LIMIT_RETRIES || waitedMs + wait > run.maxWaitMs) {
			throw await failureError.call(item, {
				...refused.failure,
				description: `The service still refused the request after ${attempt + 1} ${attempt ? 'tries' : 'try'} and ${Math.round(waitedMs / 1000)} s of waiting${refused.retryAfter === undefined ? '' : ` (it asks to wait ${refused.retryAfter} s)`}; it was not carried out. Lower Max Requests in Flight or raise Max Wait (Send Options), or send fewer items at a time.`,
			});
		}
		waitedMs += wait;
		attempt++;
		await run.waitAside(wait);
	}
}

/**
 * Sends the request once, in its turn. Undefined when it never reached the service (it waits its
 * turn again, after the outage); fails the item when the execution stopped waiting for the
 * service, and names any other network failure.
 */
async function sendInTurn(
	run: Run,
	item: ItemContext,
	request: IHttpRequestOptions,
): Promise<{ response: IN8nHttpFullResponse; ticket: Ticket } | undefined> {
	const ticket = await run.lane.acquire();
	if (ticket instanceof GaveUp)
		return await throwNotSent.call(item, ticket.cause, ticket.waitedMs, ticket.firstContact);
	if (ticket instanceof Stopped) throw stoppedError(run.fns, item.getItemIndex());
	run.summary.sending(item.getItemIndex(), ticket.at);
	let failure: unknown;
	try {
		const response = await sendOnce(run.fns, run.credentials, request);
		run.summary.reached(item.getItemIndex());
		return { response, ticket };
	} catch (error) {
		failure = error;
	} finally {
		run.lane.release();
	}
	const unreached = unreachedBy(failure);
	if (unreached) {
		run.lane.unreachable(ticket, unreached);
		run.summary.unreached(item.getItemIndex());
		return undefined;
	}
	run.summary.reached(item.getItemIndex());
	if (cutAfterConnecting(failure)) run.lane.reached(ticket);
	else run.lane.inconclusive(ticket);
	throw await readableError.call(item, failure);
}

/** The errors of items not sent because the execution stopped: they do not stand for its failure. */
const stoppedErrors = new WeakSet<object>();

function stoppedError(fns: IExecuteFunctions, itemIndex: number): NodeOperationError {
	const error = new NodeOperationError(
		fns.getNode(),
		'The execution stopped before this item was sent',
		{
			itemIndex,
			description:
				'It was cancelled, or another item failed (On Error: Stop) while this one waited for the service. Nothing was sent for it.',
		},
	);
	stoppedErrors.add(error);
	return error;
}

function asNodeError(fns: IExecuteFunctions, error: unknown, itemIndex: number): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(
		fns.getNode(),
		error instanceof Error ? error : new Error(String(error)),
		{ itemIndex },
	);
}

/**
 * The send loop: the bulk operations, as n8n's `customOperations`, from the node's description
 * (the fields, routing, checks and envelope reader RoutingNode runs for the other operations).
 * A request is never sent again after a timeout or a cut connection, which the service may have
 * carried out: within a run, only refused items and those that never reached the service go again.
 */
export function sendLoop(description: INodeTypeDescription) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await withRunMemory(
			this,
			async (step) => await sendItems.call(this, description, step('')),
		);
	};
}

/** One try of the send loop, with the run's memory of earlier tries (./retryMemory.ts). */
async function sendItems(
	this: IExecuteFunctions,
	description: INodeTypeDescription,
	memory: StepMemory,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const resource = String(node.parameters.resource);
	// Batching is read once, for item 0, as RoutingNode reads it.
	const requestOptions = this.getNodeParameter('requestOptions', 0, {}) as RequestOptionsParameter;
	const sendOptions = this.getNodeParameter(`${resource}SendOptions`, 0, {}) as SendOptions;
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	const maxInFlight = Math.max(1, Math.floor(sendOptions.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT));
	const batch = requestOptions.batching?.batch;
	const batchSize = Number(batch?.batchSize) > 0 ? Number(batch?.batchSize) : 1;
	const batchInterval = Number(batch?.batchInterval) || 0;
	const continueOnFail = this.continueOnFail();
	const summary = memory.summary;
	memory.startTry(items);
	try {
		await recallStop(this, memory);
	} catch (error) {
		// A second Retry of one failed execution sends nothing. With On Error: Continue, n8n would
		// pass the input on as if sent: each item says so instead.
		const failed = asNodeError(this, error, 0);
		if (!continueOnFail) throw failed;
		return [items.map((_, item) => ({ json: {}, error: failed, pairedItem: { item } }))];
	}
	const executionId = executionIdOf(this);
	const sentBy = () => ({ executionId, at: clock.now() });
	/** What the service got of each item, in this run or an earlier one: kept if the send stops. */
	const done: Array<Done | undefined> = new Array(items.length);
	const signal = this.getExecutionCancelSignal();
	const results: INodeExecutionData[][] = new Array(items.length);
	const failures = new Map<number, NodeError>();
	/** Items a failed execution this one retries may have carried out: never sent, and they stop no other item. */
	const namedAgain = new Map<number, NodeError>();
	const startedAt = clock.now();
	/** The next item to start; how many items have started and not settled; how many of those are not waiting aside. */
	let next = 0;
	let unsettled = 0;
	let working = 0;
	let allSettled: () => void = () => {};
	const stopped = () => (failures.size > 0 && !continueOnFail) || Boolean(signal?.aborted);

	const settle = (itemIndex: number, outcome: Outcome | { failed: NodeError }) => {
		run.lane.remaining--;
		const earlier = sentEarlier(outcome, executionId);
		if ('sent' in outcome) {
			results[itemIndex] = earlier ? markedSent(outcome.sent, earlier) : outcome.sent;
			return;
		}
		const error =
			'unsure' in outcome ? asNodeError(this, outcome.unsure, itemIndex) : outcome.failed;
		if (!continueOnFail) {
			if (earlier) namedAgain.set(itemIndex, error);
			else if (!stoppedErrors.has(error)) failures.set(itemIndex, error);
			return;
		}
		results[itemIndex] = [{ json: {}, error, pairedItem: { item: itemIndex } }];
		summary.failedItem(itemIndex);
	};

	const runItem = async (itemIndex: number) => {
		const reading = await values.read(itemIndex);
		const remembered = memory.get(itemIndex, items[itemIndex]);
		if (remembered) {
			const by = remembered.by ?? sentBy();
			done[itemIndex] = { ...remembered, by };
			if ('sent' in remembered)
				summary.reusedAnswer(sentEarlier(remembered, executionId)?.executionId);
			return settle(itemIndex, remembered);
		}
		// Settings > Request Options > Batching: a batch starts no earlier than one interval after the previous one.
		const notBefore = startedAt + Math.floor(itemIndex / batchSize) * batchInterval;
		if (batchInterval > 0 && notBefore > clock.now()) await clock.sleep(notBefore - clock.now());
		try {
			// Another item failed (On Error: Stop), or the run was cancelled, while this one waited its batch.
			if (stopped()) throw stoppedError(this, itemIndex);
			if ('error' in reading) throw reading.error;
			const item = itemContext(this, itemIndex, { credentials, node });
			const defaults = description.requestDefaults;
			const settings = itemSettings(itemIndex);
			const request = await buildRequest(item, form, defaults, reading.values, settings);
			const sent: Done = { sent: await sendRequest(run, item, request), by: sentBy() };
			done[itemIndex] = sent;
			memory.countries.sent(itemIndex, phoneReadings.get(item));
			memory.set(itemIndex, items[itemIndex], sent);
			settle(itemIndex, sent);
		} catch (error) {
			if (mayHaveBeenCarriedOut(error)) {
				const unsure: Done = { unsure: error as Error, by: sentBy() };
				done[itemIndex] = unsure;
				memory.set(itemIndex, items[itemIndex], unsure);
			}
			settle(itemIndex, { failed: asNodeError(this, error, itemIndex) });
		}
	};

	/**
	 * Starts items while fewer than Max Requests in Flight and READ_AHEAD more are at work (items
	 * waiting aside do not count): values are read while requests travel; the lane paces the sends.
	 */
	const startItems = () => {
		// A stopped run starts no more items: the lane's pace no longer counts them.
		if (stopped() && next < items.length) {
			run.lane.remaining -= items.length - next;
			next = items.length;
		}
		while (working < maxInFlight + READ_AHEAD && next < items.length && !stopped()) {
			const itemIndex = next++;
			unsettled++;
			working++;
			void runItem(itemIndex).finally(() => {
				unsettled--;
				working--;
				startItems();
			});
		}
		if (!unsettled) allSettled();
	};

	const form = requestForm(description, node);
	const values = new FieldValues(this, form.fields);
	const itemSettings = settingsFor(this, credentials);
	const maxWaitMs = Math.max(0, sendOptions.maxWait ?? DEFAULT_MAX_WAIT_SECONDS) * 1000;
	const run: Run = {
		fns: this,
		form,
		credentials,
		lane: joinLane(credentials, { maxInFlight, maxWaitMs, stopped }),
		maxWaitMs,
		summary,
		waitAside: async (ms) => {
			working--;
			startItems();
			await clock.sleep(ms);
			working++;
		},
	};
	run.lane.remaining = items.length;
	try {
		await new Promise<void>((resolve) => {
			allSettled = resolve;
			startItems();
		});
	} finally {
		summary.endTry(run.lane.outageMs);
		run.lane.leave();
	}

	const stop = failures.size ? failures : namedAgain;
	if (stop.size || signal?.aborted) keepStop(this, items, done, memory);
	else forgetStop(this);
	if (signal?.aborted && !failures.size)
		throw new NodeOperationError(node, 'The execution was cancelled while sending');
	if (stop.size) throw stopError(this, stop, done, items.length);
	// n8n shows the hints of a node that returns (a failing node's are lost with it); a context without hints shows none.
	const hints = [summary.hint(), memory.countries.hint()].filter((hint) => hint !== undefined);
	if (hints.length && typeof this.addExecutionHints === 'function')
		this.addExecutionHints(...hints);
	return [results.flat()];
}
