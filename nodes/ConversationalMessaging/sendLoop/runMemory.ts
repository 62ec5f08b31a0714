import { createHash } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { nodeContextOf, runIndexOf } from '../n8nInternals';
import { recordedFirst, storeNotSetUp } from '../n8nProcessedData';
import { failureError } from '../service/envelope';
import { clock } from '../clock';
import { itemContext } from './itemRequest';
import type { FailureWords, NodeError, SendOutcome, SentBy } from './send';

/*
 * What a run of the node remembers of its sends, so that nothing the node does sends an item
 * twice. A send that ends unfinished (a stop, a cancel, a return n8n runs again) leaves in the
 * node's context what the service got: the answers it accepted and the requests it may have
 * carried out without saying so (a timeout, a cut connection, an unreadable 2xx answer). Whoever
 * runs the node again on the same input reads it: Retry On Fail's next try, in this execution, or
 * n8n's Retry of the failed execution, on any worker, from the copy n8n stored (node context
 * included). Those items get their first answers (marked `alreadySent` when another execution sent
 * them) and only the others are sent. An item refused for a reason the service gave is tried
 * again. A bulk send keeps nothing while it goes well (Send and Wait keeps its question at once).
 * The stop's words: ./stopError.ts.
 */

/** What the service got of one item (a send's outcome), and who sent it. */
export type Done = Extract<SendOutcome, { sent: unknown } | { unsure: unknown }> & { by: SentBy };

/** One item the service got, as the record keeps it: plain data, as n8n stores it. */
interface KeptItem {
	item: number;
	/** The input item's fingerprint: the same item under the same index on the next run. */
	input: string;
	/** The execution that sent it, and when (epoch ms). */
	by: string;
	at: number;
	sent?: IDataObject[];
	unsure?: FailureWords;
}

interface StopRecord {
	/** Which run of the node (a node in a loop runs more than once) and which operation. */
	runIndex: number;
	operation: string;
	/** The execution that wrote it; the one that runs a Retry of it (in its own copy). */
	writtenBy: string;
	retriedBy?: string;
	items: KeptItem[];
}

/**
 * One entry per retried stop in the node's row of n8n's processed-data store, the oldest forgotten
 * first (n8n prunes executions after 14 days by default). The bound prunes the whole row, which Max
 * Messages per Person per Day's count shares (../n8nProcessedData.ts, section 2; one entry per
 * message sent): large enough for a day's sends (at 1,000, a Retry's note would forget all but the
 * last 1,000 of today's count).
 */
export const MAX_RETRIED_STOPS = 50_000;

/** The node context's key (n8n keeps a node's context with its execution). */
const CONTEXT_KEY = 'sentBeforeStop';

export const executionIdOf = (fns: IExecuteFunctions) => String(fns.getExecutionId() ?? '');

/** The item's json, hashed: the same item under the same index on the next run. */
export function fingerprint(item: INodeExecutionData): string {
	try {
		return createHash('sha256')
			.update(JSON.stringify(item.json) ?? '')
			.digest('base64');
	} catch {
		// Not JSON (a circular or BigInt value): known by its index alone; sending it again would be
		// the double send this memory exists to prevent.
		return 'not JSON';
	}
}

/** What the node's run (its operation's send, or Send and Wait's question) already sent. */
export class RunMemory {
	private readonly kept = new Map<number, { input: string; done: Done }>();
	private readonly operation: string;

	private constructor(private readonly fns: IExecuteFunctions) {
		const { resource, operation } = fns.getNode().parameters;
		this.operation = `${String(resource)}.${String(operation)}`;
	}

	/**
	 * The memory of this run: what an earlier try or a stopped execution kept of it. A Retry first
	 * claims the stop in n8n's processed-data store, shared by every worker: a second Retry of the
	 * same failed execution (its copy does not know what the first one sent) sends nothing.
	 * `exclusive`: writes that note where no other execution writes the node's row meanwhile (the
	 * daily cap's lock, when it counts in the same row).
	 */
	static async recall(
		fns: IExecuteFunctions,
		exclusive: Exclusive = async (work) => await work(),
	): Promise<RunMemory> {
		const memory = new RunMemory(fns);
		const record = nodeContextOf(fns)?.[CONTEXT_KEY] as StopRecord | undefined;
		if (record?.runIndex !== runIndexOf(fns) || record.operation !== memory.operation)
			return memory;
		await claimRetry(fns, record, exclusive);
		for (const kept of record.items) {
			const by = { executionId: kept.by, at: kept.at };
			const done: Done = kept.sent
				? { sent: kept.sent.map((json) => ({ json, pairedItem: { item: kept.item } })), by }
				: { unsure: await unsureError(fns, kept), firstFailure: kept.unsure, by };
			memory.kept.set(kept.item, { input: kept.input, done });
		}
		return memory;
	}

	/** What the service got of this item (its json unchanged) in an earlier run. */
	get(itemIndex: number, item: INodeExecutionData): Done | undefined {
		const kept = this.kept.get(itemIndex);
		return kept?.input === fingerprint(item) ? kept.done : undefined;
	}

	/** What the service got of this item under any index: one of a group, wherever it stands now. */
	find(item: INodeExecutionData): Done | undefined {
		const input = fingerprint(item);
		return [...this.kept.values()].find((kept) => kept.input === input)?.done;
	}

	/**
	 * Keeps what the service got of this run, for whoever runs it again. Items this run did not
	 * reach (it stopped first) keep what an earlier one did: `done` is given it too, for the stop's
	 * words. An outcome without `by` was this execution's, now.
	 */
	keep(items: INodeExecutionData[], done: Array<SendOutcome | undefined>): void {
		const context = nodeContextOf(this.fns);
		if (!context) return;
		const kept: KeptItem[] = [];
		items.forEach((input, item) => {
			const outcome = (done[item] ??= this.get(item, input));
			if (!outcome || !('sent' in outcome || 'unsure' in outcome)) return;
			const { executionId: by, at } = outcome.by ?? {
				executionId: executionIdOf(this.fns),
				at: clock.now(),
			};
			const base = { item, input: fingerprint(input), by, at };
			if ('sent' in outcome) kept.push({ ...base, sent: outcome.sent.map(({ json }) => json) });
			else {
				// Its words only (the error may hold the request); an item named again keeps its first failure's.
				const { message, description, httpCode } = outcome.unsure as FailureWords;
				kept.push({ ...base, unsure: outcome.firstFailure ?? { message, description, httpCode } });
			}
		});
		const record: StopRecord = {
			runIndex: runIndexOf(this.fns),
			operation: this.operation,
			writtenBy: executionIdOf(this.fns),
			items: kept,
		};
		context[CONTEXT_KEY] = record as unknown as IDataObject;
	}

	/** The send went through: nothing of an earlier run is needed any more. */
	static forget(fns: IExecuteFunctions): void {
		const context = nodeContextOf(fns);
		if (context && CONTEXT_KEY in context) delete context[CONTEXT_KEY];
	}
}

/** Runs `work` alone among the writers of the node's row in n8n's processed-data store. */
export type Exclusive = (work: () => Promise<void>) => Promise<void>;

async function claimRetry(
	fns: IExecuteFunctions,
	record: StopRecord,
	exclusive: Exclusive,
): Promise<void> {
	const executionId = executionIdOf(fns);
	if (record.writtenBy === executionId || record.retriedBy === executionId) return;
	const key = `retried ${record.writtenBy} run ${record.runIndex}`;
	let first: boolean | undefined;
	// The lock's own errors (the daily cap's) pass as they are: they say what to do.
	await exclusive(async () => {
		try {
			first = await recordedFirst(fns, key, MAX_RETRIED_STOPS);
		} catch (error) {
			const why = error instanceof Error ? error.message : String(error);
			// n8n-core's store set up by no server (an engine run alone): the record alone protects it.
			if (storeNotSetUp(why)) return;
			throw new NodeOperationError(
				fns.getNode(),
				"Could not note this Retry in n8n's processed-data store: nothing was sent",
				{ description: `${why.replace(/\.?$/, '.')} Retry again once n8n's database answers.` },
			);
		}
	});
	// n8n before its processed-data store (no helper, so no answer): the record alone protects it.
	if (first === undefined) return;
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
async function unsureError(fns: IExecuteFunctions, kept: KeptItem): Promise<NodeError> {
	const { message, description = '', httpCode = '' } = kept.unsure ?? { message: '' };
	// Its words were kept with the token taken out already.
	if (kept.by === executionIdOf(fns)) {
		const failure = { message, description, httpCode };
		return await failureError.call(itemContext(fns, kept.item), failure, {});
	}
	return new NodeOperationError(
		fns.getNode(),
		`Execution ${kept.by} may have carried this item out already: it is not sent again`,
		{
			itemIndex: kept.item,
			description: `${message ? `There: ${message}. ` : ''}Check in the dashboard whether it arrived: n8n's Retry never sends it. If it did not, send it in a new execution.`,
		},
	);
}

/** Who sent the item, when it was another execution than this one (whose Retry this is). */
export function sentEarlier(outcome: SendOutcome, executionId: string): SentBy | undefined {
	const by = 'sent' in outcome || 'unsure' in outcome ? outcome.by : undefined;
	return by && by.executionId !== executionId ? by : undefined;
}

/** The answers of an item an earlier execution sent, marked so. */
export function markedSent(sent: INodeExecutionData[], by: SentBy): INodeExecutionData[] {
	const alreadySent = { executionId: by.executionId, sentAt: new Date(by.at).toISOString() };
	return sent.map((answer) => ({ ...answer, json: { ...answer.json, alreadySent } }));
}
