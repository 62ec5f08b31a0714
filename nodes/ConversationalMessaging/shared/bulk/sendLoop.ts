import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	PostReceiveAction,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';
import type { ServiceFailure } from '../envelope';
import { headerValue, readEnvelope, throwFailure } from '../envelope';
import { cutAfterConnecting, mayHaveBeenCarriedOut, throwNotSent, unreachedBy } from '../network';
import { itemView } from '../itemView';
import { runIndexOf } from '../runIndex';
import type { SendOptions } from './options';
import {
	BULK_OPERATIONS,
	DEFAULT_MAX_IN_FLIGHT,
	DEFAULT_MAX_WAIT_SECONDS,
	MAX_RATE_LIMIT_RETRIES,
} from './options';
import type { Outcome, StepMemory } from './outcomes';
import { withRunMemory } from './outcomes';
import { FieldValues, READ_AHEAD } from './fieldValues';
import type { Member, Ticket } from './lane';
import { GaveUp, joinLane, Stopped } from './lane';
import { Pacer } from './pacer';
import type { RequestPlan } from './plan';
import { planRequest, requestOf } from './plan';
import type { RequestOptionsParameter } from './requestSettings';
import { settingsFor } from './requestSettings';
import type { SendSummary } from './summary';

/** What every request of one run shares, read once. */
interface Run {
	plan: RequestPlan;
	/** The request settings n8n's RoutingNode would add for the item (timeout, proxy, SSL, allowed domains); throws as it would. */
	settings(itemIndex: number): Partial<IHttpRequestOptions>;
	values: FieldValues;
	/** This execution's part in the pace and the outages of the service account (./lane.ts). */
	lane: Member;
	maxWaitMs: number;
	/** What the service did to this run's requests, for the hint above the output (./summary.ts). */
	summary: SendSummary;
	/** Waits out a refusal, giving the item's place to the next item meanwhile. */
	waitAside(ms: number): Promise<void>;
}

/** Seconds from a Retry-After header: a number of seconds or an HTTP date. */
function retryAfterSeconds(headers: IN8nHttpFullResponse['headers']): number | undefined {
	const value = (headerValue(headers, 'retry-after') ?? '').trim();
	if (value === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** A "too fast" answer: HTTP 429 (or 429 in the envelope), or 503 with Retry-After. The service did not act on it. */
function refusal(
	response: IN8nHttpFullResponse,
): { failure: ServiceFailure; overloaded: boolean; retryAfter?: number } | undefined {
	const reading = readEnvelope(response);
	if (!('failure' in reading)) return undefined;
	const retryAfter = retryAfterSeconds(response.headers);
	const { httpCode } = reading.failure;
	if (httpCode === '429') return { failure: reading.failure, overloaded: false, retryAfter };
	if (httpCode === '503' && retryAfter !== undefined)
		return { failure: reading.failure, overloaded: true, retryAfter };
	return undefined;
}

/** As RoutingNode's postProcessResponseData, for the function actions the plan holds. */
async function postProcess(
	item: IExecuteSingleFunctions,
	actions: PostReceiveAction[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
	for (const action of actions)
		items = await (action as Extract<PostReceiveAction, (...args: never[]) => unknown>).call(
			item,
			items,
			response,
		);
	return items;
}

/**
 * One request and its answer, sent again (that item only) while the service says "too fast",
 * within the limits; any other answer goes to the post-receive actions, which read the envelope.
 */
function routingRequest(
	run: Run,
	item: IExecuteSingleFunctions,
): IExecutePaginationFunctions['makeRoutingRequest'] {
	return async function (requestData: DeclarativeRestApiSettings.ResultOptions) {
		let waitedMs = 0;
		for (let attempt = 0; ; ) {
			const response = await sendOnce(run, item, requestData);
			if (!response) continue;
			const { ticket } = response;
			const refused = refusal(response.response);
			if (!refused) {
				run.lane.accept(ticket);
				return await postProcess(item, run.plan.postReceive, response.response);
			}
			run.lane.refuse(ticket, refused.overloaded);
			run.summary.refused(item.getItemIndex(), refused.overloaded);
			const wait = Pacer.waitBeforeRetry(refused.retryAfter, attempt);
			if (attempt >= MAX_RATE_LIMIT_RETRIES || waitedMs + wait > run.maxWaitMs) {
				return await throwFailure.call(item, {
					...refused.failure,
					description: `The service still refused the request after ${attempt + 1} ${attempt ? 'tries' : 'try'} and ${Math.round(waitedMs / 1000)} s of waiting${refused.retryAfter === undefined ? '' : ` (it asks to wait ${refused.retryAfter} s)`}; it was not carried out. Lower Max Requests in Flight or raise Max Wait (Send Options), or send fewer items at a time.`,
				});
			}
			waitedMs += wait;
			attempt++;
			await run.waitAside(wait);
		}
	};
}

/**
 * Sends the request once, in its turn. Undefined when it never reached the service (it waits its
 * turn again, after the outage); fails the item when the execution stopped waiting for the service.
 */
async function sendOnce(
	run: Run,
	item: IExecuteSingleFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<{ response: IN8nHttpFullResponse; ticket: Ticket } | undefined> {
	const ticket = await run.lane.acquire();
	if (ticket instanceof GaveUp)
		return await throwNotSent.call(item, ticket.cause, ticket.waitedMs, ticket.firstContact);
	if (ticket instanceof Stopped) throw stoppedError(item);
	run.summary.sending(item.getItemIndex(), ticket.at);
	let failure: unknown;
	try {
		const response = (await item.helpers.httpRequestWithAuthentication.call(item, CREDENTIAL_NAME, {
			...requestData.options,
			returnFullResponse: true,
		} as IHttpRequestOptions)) as IN8nHttpFullResponse;
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
	throw failure;
}

/** The errors of items not sent because the execution stopped: they do not stand for its failure. */
const stoppedErrors = new WeakSet<object>();

function stoppedError(item: IExecuteSingleFunctions): NodeOperationError {
	const error = new NodeOperationError(
		item.getNode(),
		'The execution stopped before this item was sent',
		{
			itemIndex: item.getItemIndex(),
			description:
				'It was cancelled, or another item failed (On Error: Stop) while this one waited for the service. Nothing was sent for it.',
		},
	);
	stoppedErrors.add(error);
	return error;
}

/**
 * The item's request in RoutingNode's order: the plan with the item's field values, the request
 * settings over it, then the pre-send hooks (the checks), which see and may change both.
 */
export async function buildRequest(
	item: IExecuteSingleFunctions,
	plan: RequestPlan,
	values: unknown[],
	settings: Partial<IHttpRequestOptions> = {},
): Promise<IHttpRequestOptions> {
	let options: IHttpRequestOptions = Object.assign(requestOf(plan, values), settings);
	for (const preSend of plan.preSend) options = await preSend.call(item, options);
	return options;
}

/** Builds the item's request, sends it, and reads the answer. */
async function sendItem(
	fns: IExecuteFunctions,
	run: Run,
	itemIndex: number,
	values: unknown[],
): Promise<INodeExecutionData[]> {
	const item = itemView(fns, itemIndex);
	const options = await buildRequest(item, run.plan, values, run.settings(itemIndex));
	// What RoutingNode hands the request hook, the item's own: the pre-send hooks have run on
	// `options`; the post-receive actions run in makeRoutingRequest, from the plan, so the list
	// is left empty (RoutingNode's holds each property's value beside its actions; ../../
	// resources/*/ request hooks read neither, and the contract says so: ./contract.ts).
	const requestData: DeclarativeRestApiSettings.ResultOptions = {
		options,
		preSend: [...run.plan.preSend],
		postReceive: [],
		requestOperations: { ...run.plan.requestOperations },
		paginate: true,
	};
	const makeRoutingRequest = routingRequest(run, item);
	if (!run.plan.requestHook)
		return await makeRoutingRequest.call(item as IExecutePaginationFunctions, requestData);
	// The operation's own request hook (it names network failures), as RoutingNode calls it.
	const paginationFunctions = Object.create(item, {
		makeRoutingRequest: { value: makeRoutingRequest },
	}) as IExecutePaginationFunctions;
	return await run.plan.requestHook.call(paginationFunctions, requestData);
}

function asNodeError(
	fns: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(
		fns.getNode(),
		error instanceof Error ? error : new Error(String(error)),
		{ itemIndex },
	);
}

/**
 * The send loop: the operations users run over many items, as n8n's `customOperations`, driven
 * by the node's description (the same fields, routing, pre-send checks and envelope reader that
 * n8n's RoutingNode runs for the other operations). Unlike RoutingNode it reads each field once
 * per item, keeps a bounded number of requests in flight, adapts to the service's rate limits
 * (sending a refused item again, that item only) together with every other execution of this
 * process that sends to the same account, waits out an outage of the service (sending again only
 * what never reached it), and remembers what it sent, so that n8n's Retry On Fail sends no item
 * twice. It never sends a request again after a timeout or a cut connection: the service may
 * have carried it out. When the service slowed it down or items failed, it says so in a hint
 * above the output (./summary.ts).
 */
export function sendLoop(description: INodeTypeDescription) {
	const send = sendStep(description);
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await withRunMemory(this, async (step) => await send.call(this, step('')));
	};
}

/** The send loop on one try's share of the run's memory (./outcomes.ts): the node's operation, or a step of Send and Wait. */
export function sendStep(description: INodeTypeDescription) {
	return async function (
		this: IExecuteFunctions,
		memory: StepMemory,
	): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const node = this.getNode();
		const resource = String(node.parameters.resource);
		// Batching is read once, for item 0, as RoutingNode reads it.
		const requestOptions = this.getNodeParameter(
			'requestOptions',
			0,
			{},
		) as RequestOptionsParameter;
		const sendOptions = this.getNodeParameter(`${resource}SendOptions`, 0, {}) as SendOptions;
		const credentials = await this.getCredentials(CREDENTIAL_NAME);
		const maxInFlight = Math.max(1, Math.floor(sendOptions.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT));
		const batchSize =
			Number(requestOptions.batching?.batch?.batchSize) > 0
				? Number(requestOptions.batching?.batch?.batchSize)
				: 1;
		const batchInterval = Number(requestOptions.batching?.batch?.batchInterval) || 0;
		const continueOnFail = this.continueOnFail();
		const summary = memory.summary;
		memory.startTry(items);
		const signal = this.getExecutionCancelSignal();
		const results: INodeExecutionData[][] = new Array(items.length);
		const failures = new Map<number, NodeApiError | NodeOperationError>();
		const startedAt = Date.now();
		/** The next item to start; how many items have started and not settled; how many of those are not waiting aside. */
		let next = 0;
		let unsettled = 0;
		let working = 0;
		let allSettled: () => void = () => {};
		const stopped = () => (failures.size > 0 && !continueOnFail) || Boolean(signal?.aborted);

		const settle = (
			itemIndex: number,
			outcome: Outcome | { failed: NodeApiError | NodeOperationError },
		) => {
			run.lane.remaining--;
			if ('sent' in outcome) {
				results[itemIndex] = outcome.sent;
				return;
			}
			const error =
				'unsure' in outcome ? asNodeError(this, outcome.unsure, itemIndex) : outcome.failed;
			if (!continueOnFail) {
				if (!stoppedErrors.has(error)) failures.set(itemIndex, error);
				return;
			}
			results[itemIndex] = [{ json: {}, error, pairedItem: { item: itemIndex } }];
			summary.failedItem(itemIndex);
		};

		const runItem = async (itemIndex: number) => {
			const reading = await run.values.read(itemIndex);
			const remembered = memory.get(itemIndex, items[itemIndex]);
			if (remembered) {
				if ('sent' in remembered) summary.reusedAnswer();
				return settle(itemIndex, remembered);
			}
			// Settings > Request Options > Batching: a batch starts no earlier than one interval after the previous one.
			const notBefore = startedAt + Math.floor(itemIndex / batchSize) * batchInterval;
			if (batchInterval > 0 && notBefore > Date.now()) await sleep(notBefore - Date.now());
			try {
				if ('error' in reading) throw reading.error;
				const sent: Outcome = { sent: await sendItem(this, run, itemIndex, reading.values) };
				memory.set(itemIndex, items[itemIndex], sent);
				settle(itemIndex, sent);
			} catch (error) {
				if (mayHaveBeenCarriedOut(error))
					memory.set(itemIndex, items[itemIndex], { unsure: error as Error });
				settle(itemIndex, { failed: asNodeError(this, error, itemIndex) });
			}
		};

		/**
		 * Starts items while fewer than Max Requests in Flight and READ_AHEAD more are at work
		 * (items waiting aside do not count): the next items' values are read while requests are
		 * on their way; the lane decides when each request goes.
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

		const plan = planRequest(description, node);
		const maxWaitMs = Math.max(0, sendOptions.maxWait ?? DEFAULT_MAX_WAIT_SECONDS) * 1000;
		const run: Run = {
			plan,
			values: new FieldValues(this, plan.fields),
			// The base URL comes from the plan's constants alone: the same for every item.
			settings: settingsFor(this, credentials, requestOf(plan, []).baseURL),
			lane: joinLane(credentials, { maxInFlight, maxWaitMs, stopped }),
			maxWaitMs,
			summary,
			waitAside: async (ms) => {
				working--;
				startItems();
				await sleep(ms);
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

		if (failures.size) {
			const itemIndex = Math.min(...failures.keys());
			const error = failures.get(itemIndex) as NodeApiError | NodeOperationError;
			// As RoutingNode marks the error it throws: the item and the run, for n8n's error view.
			Object.assign(error.context, { itemIndex, runIndex: runIndexOf(this) });
			throw error;
		}
		if (signal?.aborted)
			throw new NodeOperationError(node, 'The execution was cancelled while sending');
		// n8n shows the hints of a node that returns (a failing node's are lost with it); a context without hints shows none.
		const hint = summary.hint();
		if (hint && typeof this.addExecutionHints === 'function') this.addExecutionHints(hint);
		return [results.flat()];
	};
}

/** The send loop for every bulk operation (./options.ts), as the node's `customOperations`. */
export function bulkOperations(
	description: INodeTypeDescription,
): NonNullable<INodeType['customOperations']> {
	const loop = sendLoop(description);
	return Object.fromEntries(
		Object.entries(BULK_OPERATIONS).map(([resource, names]) => [
			resource,
			Object.fromEntries(names.map((name) => [name, loop])),
		]),
	);
}
