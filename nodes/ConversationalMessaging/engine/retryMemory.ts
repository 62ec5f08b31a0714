import { createHash } from 'node:crypto';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { maxTries, runIndexOf, triedAgainAfter, WAIT_BETWEEN_TRIES_MAX_MS } from '../n8nInternals';
import { clock } from '../shared/clock';

import { CountriesReached } from './hints';
import { SendSummary } from './hints';

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

	/** What a stop kept of an item (./stoppedSend.ts), under the fingerprint of its input. */
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
