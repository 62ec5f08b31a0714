import { createHash } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	maxTries,
	recordedFirst,
	runIndexOf,
	storeNotSetUp,
	triedAgainAfter,
	WAIT_BETWEEN_TRIES_MAX_MS,
} from '../n8nInternals';
import { clock } from './clock';
import { CountriesReached, SendSummary } from './hints';

/*
 * What a run of the node remembers of its sends, so that nothing the node does sends an item
 * twice: across Retry On Fail's tries within an execution (this process's memory, first), and
 * across executions, for n8n's Retry of one that stopped part-way (the execution's node context,
 * after). The stop's words: ./stopError.ts.
 */

/**
 * What the send loop already did to each item of a node's run, so that n8n's Retry On Fail,
 * which runs the whole node again with the same input, sends no item twice. Kept: the items of
 * an answer the service accepted, and the error of a request the service may have carried out
 * without saying so (a timeout, a cut connection, an unreadable 2xx answer). An item that failed
 * for a reason the service gave (an HTTP error, an error envelope, a rejected value) is tried again.
 */
export type Outcome = (
	| { sent: INodeExecutionData[] }
	/** `firstFailure`: the words of the first failure, when an earlier execution's is named again. */
	| { unsure: Error; firstFailure?: { message: string; description?: string } }
) & { by?: SentBy };

/** Who sent an item and when (epoch ms): this execution, or the failed one n8n's Retry runs again. */
export interface SentBy {
	executionId: string;
	at: number;
}

/** One send loop's share of a node run: the node's operation, or one step of Send and Wait. */
export class StepMemory {
	readonly summary = new SendSummary();
	readonly countries = new CountriesReached();
	private readonly outcomes = new Map<number, { input: string; outcome: Outcome }>();
	private inputLength?: number;

	/** Without Retry On Fail no try follows: nothing to keep. */
	constructor(private readonly retried: boolean) {}

	/** A try starts on this input; a different length is a different input: nothing of it holds. */
	startTry(items: INodeExecutionData[]): void {
		if (items.length !== this.inputLength) this.outcomes.clear();
		this.inputLength = items.length;
		this.summary.startTry(items.length);
	}

	/** What an earlier try did to this item, if it was the same item (its json unchanged). */
	get(itemIndex: number, item: INodeExecutionData): Outcome | undefined {
		const kept = this.outcomes.get(itemIndex);
		if (!kept) return undefined;
		if (kept.input === fingerprint(item)) return kept.outcome;
		this.outcomes.delete(itemIndex);
		return undefined;
	}

	set(itemIndex: number, item: INodeExecutionData, outcome: Outcome): void {
		if (this.retried) this.outcomes.set(itemIndex, { input: fingerprint(item), outcome });
	}

	/** What a stop kept of an item (this file), under the fingerprint of its input. */
	seed(itemIndex: number, input: string, outcome: Outcome): void {
		// This execution's own memory of an earlier try holds the very answer or error: it wins.
		if (!this.outcomes.has(itemIndex)) this.outcomes.set(itemIndex, { input, outcome });
	}
}

/** The item's json, hashed: the same item under the same index on the next try. */
export function fingerprint(item: INodeExecutionData): string {
	try {
		return createHash('sha256')
			.update(JSON.stringify(item.json) ?? '')
			.digest('base64');
	} catch {
		// Not JSON (a circular or BigInt value): known by its index alone, as an item is within one
		// input length; sending it again would be the double send this memory exists to prevent.
		return 'not JSON';
	}
}

interface NodeRun {
	tries: number;
	/** When the last try ended; undefined while a try runs (never swept then). */
	idleSince?: number;
	steps: Map<string, StepMemory>;
}

/**
 * A run no longer retried: idle longer than n8n waits between tries (Wait Between Tries, at most
 * 5 s: ../n8nInternals.ts), with a margin for a busy process. Only the time between tries counts.
 */
export const IDLE_RUN_MS = WAIT_BETWEEN_TRIES_MAX_MS + 60_000;

/**
 * Past this many runs awaiting a try (kept faster than the sweep frees them), the longest idle go.
 * Runs, not items: a run keeps its items' answers, as its output does.
 */
export const MAX_IDLE_RUNS = 1_000;

/** Keyed by the run in n8n's terms (runKey); freed when no try can follow, else by the sweep. */
const runs = new Map<string, NodeRun>();

/** How many runs are remembered (for tests: 0 once every run is over). */
export const rememberedRuns = (): number => runs.size;

/** Runs with no execution id (contexts where n8n has none): told apart by their execute data. */
const unsaved = new WeakMap<object, string>();
let unsavedRuns = 0;

/**
 * One run of one node, the same on each of its tries: execution id, node name, run index
 * (WorkflowExecute's retry loop keeps all three); without an execution id, the execute data n8n
 * hands every try (at worst no memory, were it copied). Not the workflow id: a concurrent run with
 * the same items would skip their sends, and a message lost is worse.
 */
function runKey(fns: IExecuteFunctions): string {
	const executionId = fns.getExecutionId();
	let execution = executionId ? `execution ${executionId}` : undefined;
	if (!execution) {
		const executeData = fns.getExecuteData();
		execution = unsaved.get(executeData);
		if (!execution) unsaved.set(executeData, (execution = `unsaved ${++unsavedRuns}`));
	}
	return JSON.stringify([execution, fns.getNode().name, runIndexOf(fns)]);
}

/** A send loop's memory in the run, by name ('' for the node's operation, a step's name in Send and Wait). */
export type StepOf = (name: string) => StepMemory;

/** Frees the runs idle too long, and past MAX_IDLE_RUNS the longest idle (never a run whose try is under way). */
function sweep(now: number): void {
	const idle = [...runs].filter(([, run]) => run.idleSince !== undefined);
	const over = idle.length - MAX_IDLE_RUNS;
	if (over > 0) idle.sort(([, a], [, b]) => (a.idleSince as number) - (b.idleSince as number));
	idle.forEach(([key, run], index) => {
		if (index < over || now - (run.idleSince as number) > IDLE_RUN_MS) runs.delete(key);
	});
}

/**
 * Runs one try of the node with its run's memory (`step(name)`: one per send loop the try runs),
 * which goes when no try can follow (the tries n8n gives: ../n8nInternals.ts's maxTries). n8n also
 * runs the node again after some returns (triedAgainAfter there): kept then.
 */
export async function withRunMemory(
	fns: IExecuteFunctions,
	tryNode: (step: StepOf) => Promise<INodeExecutionData[][]>,
): Promise<INodeExecutionData[][]> {
	const key = runKey(fns);
	const tries = maxTries(fns.getNode());
	const run = runs.get(key) ?? { tries: 0, steps: new Map<string, StepMemory>() };
	runs.set(key, run);
	run.tries++;
	// Under way from here: the sweep leaves it alone.
	run.idleSince = undefined;
	sweep(clock.now());
	const step = (name: string) => {
		let memory = run.steps.get(name);
		if (!memory) run.steps.set(name, (memory = new StepMemory(tries > 1)));
		return memory;
	};
	let output: INodeExecutionData[][] | undefined;
	try {
		output = await tryNode(step);
		return output;
	} finally {
		// A try that threw (no output) is followed by another unless it was the last; so is one whose
		// output n8n tries again on (kept without need costs memory until the sweep only).
		const retryFollows = output === undefined || triedAgainAfter(output);
		if (retryFollows && run.tries < tries) run.idleSince = clock.now();
		else runs.delete(key);
	}
}

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
		const { executionId: by, at } = outcome.by;
		const base = { item, input: fingerprint(items[item]), by, at };
		if ('sent' in outcome) kept.push({ ...base, sent: outcome.sent.map(({ json }) => json) });
		else
			kept.push({
				...base,
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
