import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { recordedFirst, runIndexOf, storeNotSetUp } from '../n8nInternals';
import { clock } from '../shared/clock';

import type { Outcome, SentBy, StepMemory } from './retryMemory';
import { fingerprint } from './retryMemory';
import { count, plural } from './hints';

/**
 * A send that stops part-way (On Error: Stop) says what became of every item, and leaves in its
 * execution what the service got: the answers it accepted and the requests it may have carried
 * out. n8n's Retry of a failed execution (on any worker, with the original or the saved workflow)
 * runs the node again on the same input from a copy of the execution n8n stored, node context
 * included; the send loop then gives those items their first answers, marked `alreadySent`, and
 * sends only the others. Nothing is kept while a send goes well: the cost falls on the run that
 * stops, and on a Retry (one entry in n8n's processed-data store).
 */

/** The node context's key (n8n keeps a node's context with its execution, in its database). */
const CONTEXT_KEY = 'sentBeforeStop';

/** One item the service got, as the record keeps it: plain data, as n8n stores it. */
interface KeptItem {
	item: number;
	/** The input item's fingerprint: the same item under the same index on the retry. */
	input: string;
	/** The execution that sent it, and when (epoch ms). */
	by: string;
	at: number;
	sent?: IDataObject[];
	unsure?: { message: string; description?: string };
}

interface StopRecord {
	/** Which run of the node (a node in a loop runs more than once) and which operation. */
	runIndex: number;
	operation: string;
	/** The execution that stopped and wrote it; the one that runs a Retry of it (in its own copy). */
	writtenBy: string;
	retriedBy?: string;
	items: KeptItem[];
}

/**
 * One entry per retried stop in n8n's processed-data store (the node's scope): bounded, the
 * oldest forgotten first (n8n prunes executions after 14 days by default).
 */
const MAX_RETRIED_STOPS = 1_000;

/** An item's outcome in this run, with who sent it. */
export type Done = Outcome & { by: SentBy };

const operationOf = (fns: IExecuteFunctions) =>
	`${String(fns.getNode().parameters.resource)}.${String(fns.getNode().parameters.operation)}`;

export const executionIdOf = (fns: IExecuteFunctions) => String(fns.getExecutionId() ?? '');

/** The node's context, where n8n has one (a context without run data has none). */
function nodeContext(fns: IExecuteFunctions): IDataObject | undefined {
	try {
		return fns.getContext('node') as IDataObject;
	} catch {
		return undefined;
	}
}

/** This run's record, if an earlier stop of it left one. */
function recordOf(fns: IExecuteFunctions): StopRecord | undefined {
	const record = nodeContext(fns)?.[CONTEXT_KEY] as StopRecord | undefined;
	return record?.runIndex === runIndexOf(fns) && record.operation === operationOf(fns)
		? record
		: undefined;
}

/**
 * Gives the step's memory what an earlier stop of this run kept (in this execution, or in the
 * failed execution this one retries): those items are not sent again. A Retry first claims the
 * stop in n8n's processed-data store, shared by every worker: a second Retry of the same failed
 * execution (its copy does not know what the first one sent) sends nothing.
 */
export async function recallStop(fns: IExecuteFunctions, memory: StepMemory): Promise<void> {
	const record = recordOf(fns);
	if (!record) return;
	await claimRetry(fns, record);
	for (const kept of record.items) {
		const by = { executionId: kept.by, at: kept.at };
		const outcome: Done = kept.sent
			? { sent: kept.sent.map((json) => ({ json, pairedItem: { item: kept.item } })), by }
			: { unsure: unsureError(fns, kept), firstFailure: kept.unsure, by };
		memory.seed(kept.item, kept.input, outcome);
	}
}

async function claimRetry(fns: IExecuteFunctions, record: StopRecord): Promise<void> {
	const executionId = executionIdOf(fns);
	if (record.writtenBy === executionId || record.retriedBy === executionId) return;
	const recording = recordedFirst(
		fns,
		`retried ${record.writtenBy} run ${record.runIndex}`,
		MAX_RETRIED_STOPS,
	);
	// n8n before its processed-data store: the record alone protects this Retry.
	if (!recording) return;
	let first: boolean;
	try {
		first = await recording;
	} catch (error) {
		const why = error instanceof Error ? error.message : String(error);
		// n8n-core's store set up by no server (an engine run alone): the record alone, as above.
		if (storeNotSetUp(why)) return;
		throw new NodeOperationError(
			fns.getNode(),
			"Could not note this Retry in n8n's processed-data store: nothing was sent",
			{ description: `${why.replace(/\.?$/, '.')} Retry again once n8n's database answers.` },
		);
	}
	if (!first)
		throw new NodeOperationError(
			fns.getNode(),
			`Execution ${record.writtenBy} was retried already: this retry sent nothing`,
			{
				description: `Another Retry of it may have sent items that this copy does not know of. Retry that one instead (in the Executions list, the newest retry of ${record.writtenBy} that did not fail with this message): it knows what every run before it sent. If it crashed or was cancelled, check the dashboard and send the rest in a new execution.`,
			},
		);
	record.retriedBy = executionId;
}

/** The error of an item the service may have carried out: as it was, or, from an earlier execution, named again. */
function unsureError(fns: IExecuteFunctions, kept: KeptItem): NodeOperationError {
	const { message, description } = kept.unsure ?? { message: '' };
	if (kept.by === executionIdOf(fns))
		return new NodeOperationError(fns.getNode(), message, { itemIndex: kept.item, description });
	return new NodeOperationError(
		fns.getNode(),
		`Execution ${kept.by} may have carried this item out already: it is not sent again`,
		{
			itemIndex: kept.item,
			description: `${message ? `There: ${message}. ` : ''}Check in the dashboard whether it arrived: n8n's Retry never sends it. If it did not, send it in a new execution.`,
		},
	);
}

/** The send went through: nothing of an earlier stop is needed any more. */
export function forgetStop(fns: IExecuteFunctions): void {
	const context = nodeContext(fns);
	if (context && CONTEXT_KEY in context) delete context[CONTEXT_KEY];
}

/**
 * Keeps what the service got of this run, for a try or a Retry that follows the stop. Items this
 * try did not reach (it stopped first) keep what an earlier try or execution did.
 */
export function keepStop(
	fns: IExecuteFunctions,
	items: INodeExecutionData[],
	done: Array<Done | undefined>,
	memory: StepMemory,
): void {
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const remembered = done[itemIndex] ? undefined : memory.get(itemIndex, items[itemIndex]);
		if (remembered)
			done[itemIndex] = {
				...remembered,
				by: remembered.by ?? { executionId: executionIdOf(fns), at: clock.now() },
			};
	}
	const context = nodeContext(fns);
	if (!context) return;
	const kept: KeptItem[] = [];
	done.forEach((outcome, item) => {
		if (!outcome) return;
		const base = { item, input: fingerprint(items[item]), by: outcome.by.executionId };
		if ('sent' in outcome)
			kept.push({ ...base, at: outcome.by.at, sent: outcome.sent.map(({ json }) => json) });
		else
			kept.push({
				...base,
				at: outcome.by.at,
				// An item named again keeps the words of its first failure.
				unsure: outcome.firstFailure ?? {
					message: outcome.unsure.message,
					description: (outcome.unsure as { description?: string }).description ?? undefined,
				},
			});
	});
	const record: StopRecord = {
		runIndex: runIndexOf(fns),
		operation: operationOf(fns),
		writtenBy: executionIdOf(fns),
		items: kept,
	};
	context[CONTEXT_KEY] = record as unknown as IDataObject;
}

/** Who sent the item, when it was another execution than this one (whose Retry this is). */
export function sentEarlier(outcome: object, executionId: string): SentBy | undefined {
	const { by } = outcome as Partial<Done>;
	return by && by.executionId !== executionId ? by : undefined;
}

/** The answers of an item an earlier execution sent, marked so. */
export function markedSent(sent: INodeExecutionData[], by: SentBy): INodeExecutionData[] {
	const alreadySent = { executionId: by.executionId, sentAt: new Date(by.at).toISOString() };
	return sent.map((answer) => ({ ...answer, json: { ...answer.json, alreadySent } }));
}

type NodeError = NodeApiError | NodeOperationError;

/**
 * The error a stop throws: the first stopping item's, copied (a remembered error is thrown again on
 * the next try, and says its own stop), marked as RoutingNode marks the error it throws (the item
 * and the run, for n8n's error view), with what became of every item first.
 */
export function stopError(
	fns: IExecuteFunctions,
	stop: Map<number, NodeError>,
	done: Array<Done | undefined>,
	total: number,
): NodeError {
	const itemIndex = Math.min(...stop.keys());
	const failed = stop.get(itemIndex) as NodeError;
	const error = Object.defineProperties(
		Object.create(Object.getPrototypeOf(failed) as object) as NodeError,
		Object.getOwnPropertyDescriptors(failed),
	);
	error.context = { ...failed.context, itemIndex, runIndex: runIndexOf(fns) };
	const executionId = executionIdOf(fns);
	const retried = done.some((outcome) => outcome && sentEarlier(outcome, executionId));
	const stopped = stopSentence(done, total, itemIndex, retried);
	error.description = [stopped, failed.description].filter(Boolean).join(' ');
	return error;
}

const were = (n: number) => (n === 1 ? 'was' : 'were');

/**
 * What the stop's error adds when the service got part of a run of several items (undefined
 * else: the item's own error says all): what became of every item, and what to do so that n8n's
 * Retry finishes the send. `stopped`: the item that stopped the send (counted from 1 in the words,
 * as the output panel's rows). `retried`: this run is a Retry of another execution.
 */
function stopSentence(
	done: Array<Done | undefined>,
	total: number,
	stopped: number,
	retried: boolean,
): string | undefined {
	let sent = 0;
	let unsure = 0;
	for (const outcome of done) {
		if (!outcome) continue;
		if ('sent' in outcome) sent++;
		else unsure++;
	}
	if (total < 2 || (!sent && !unsure)) return undefined;
	const notSent = total - sent - unsure;
	const stoppedUnsure = done[stopped] !== undefined;
	const counts = [
		`${count(sent)} of ${plural(total, 'item')} ${were(sent)} sent`,
		unsure &&
			(stoppedUnsure && unsure === 1
				? 'this one may have been carried out'
				: `${count(unsure)} may have been carried out${stoppedUnsure ? ' (this one included)' : ''}`),
		notSent &&
			(!stoppedUnsure && notSent === 1
				? 'this one was not sent'
				: `${count(notSent)} ${were(notSent)} not sent${stoppedUnsure ? '' : ' (this one included)'}`),
	];
	const them = unsure === 1 ? 'it' : 'them';
	const those = unsure === 1 ? 'the one' : `the ${count(unsure)}`;
	const toFinish = `set Settings > On Error to Continue and use Retry with currently saved workflow`;
	const todo = !notSent
		? `n8n's Retry never sends ${those} that may have been carried out: check ${them} in the dashboard; to finish without ${them}, ${toFinish}.`
		: stoppedUnsure
			? `Retry (Executions list) sends only the ${count(notSent)} not sent, never ${those} that may have been carried out: check ${them} in the dashboard. With On Error at Stop, the Retry then stops on ${them} again; to finish, ${toFinish}.`
			: `Retry (Executions list) sends only the ${count(notSent)} not sent${unsure ? `, never ${those} that may have been carried out (check ${them} in the dashboard)` : ''}. If the service refused this item for its value, first ${toFinish}.`;
	const which = retried
		? ' Retry this execution, not the one it retried: that one does not know what this one sent.'
		: '';
	return `Item ${count(stopped + 1)} stopped the send: ${joinAnd(counts)}. ${todo}${which}`;
}

function joinAnd(parts: Array<string | 0>): string {
	const words = parts.filter((part): part is string => Boolean(part));
	return words.length < 2
		? words.join('')
		: `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
