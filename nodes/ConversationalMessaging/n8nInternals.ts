/**
 * What the node relies on in n8n's internals, beyond its documented node API: each shortcut here
 * names the n8n source it mirrors (package, file under its dist/, function), and
 * test/n8n/internals.test.ts has one test per shortcut, named after it, that fails when an n8n
 * release changes it: on n8n 2.x (npm test), on n8n 1.x's engine (npm run test:compat) and weekly on
 * the newest n8n (.github/workflows/newest-n8n.yml, whose verdict lists them one by one).
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IN8nRequestOperations,
	INode,
	INodeExecutionData,
	INodePropertyRouting,
	IWebhookFunctions,
} from 'n8n-workflow';
import { isSafeObjectProperty, NodeHelpers } from 'n8n-workflow';

// 1. Retry On Fail and n8n's Retry: n8n-core dist/execution-engine/workflow-execute.js (WorkflowExecute)
//    and n8n-cli's ExecutionService.retry.

/**
 * The node's context (getContext('node')), where the run's memory lives: WorkflowExecute keeps it
 * in runExecutionData.executionData.contextData across Retry On Fail's tries, and n8n stores it
 * with a failed execution, whose Retry starts from that copy. None where a context has no run data.
 */
export function nodeContextOf(fns: IExecuteFunctions): IDataObject | undefined {
	try {
		return fns.getContext('node') as IDataObject;
	} catch {
		return undefined;
	}
}

/**
 * processRunExecutionData's checkFailure: n8n runs the node again (tries left) after a return
 * whose first item has `json.error`: 2.x when it is other than undefined, null or false, 1.x when
 * it is anything but undefined. True for both (the node keeps its memory for either).
 */
export function triedAgainAfter(output: INodeExecutionData[][]): boolean {
	return output[0]?.[0]?.json?.error !== undefined;
}

// 2. The run index: n8n-workflow dist/cjs/workflow-data-proxy.js (WorkflowDataProxy.getDataProxy's $runIndex).

/** The node's run index, through n8n's documented `$runIndex` (IExecuteFunctions has no getter). */
export function runIndexOf(fns: IExecuteFunctions): number {
	return Number(fns.getWorkflowDataProxy(0).$runIndex);
}

// 3. n8n's processed-data store: n8n-core dist/data-deduplication-service.js (DataDeduplicationService)
//    through dist/execution-engine/node-execution-context/utils/deduplication-helper-functions.js.

/**
 * assertInstance / assertDeduplicator: the store's error until a server calls init() (an engine
 * run alone): "Instance (or Manager) needs to initialized before use".
 */
export const storeNotSetUp = (message: string): boolean =>
	/needs to initialized before use/.test(message);

/**
 * helpers.checkProcessedAndRecord, node scope, entries mode (the oldest forgotten past
 * maxEntries): whether `key` was new, recorded now. Undefined where n8n has no such helper (before
 * its store); it fails with storeNotSetUp's error where none is set up.
 */
export function recordedFirst(
	fns: IExecuteFunctions,
	key: string,
	maxEntries: number,
): Promise<boolean> | undefined {
	return fns.helpers.checkProcessedAndRecord
		?.call(fns.helpers, [key], 'node', { mode: 'entries', maxEntries })
		.then(({ processed }) => processed.length === 0);
}

// 4. RoutingNode's one hook around a request: n8n-core dist/execution-engine/routing-node.js
//    (RoutingNode.makeRequest, which calls `requestOperations.pagination` when `paginate` is true).

/** RoutingNode's `requestOperations.pagination`, as a function. */
export type RoutingRequests = Extract<
	IN8nRequestOperations['pagination'],
	(...args: never[]) => unknown
>;

/**
 * An operation's routing with each request RoutingNode makes for it (a list's own page walk
 * `send`, else its one request) going through `onFailure`, on every method (POSTs included). It
 * must be the pagination hook: RoutingNode.makeRequest runs nothing else of the node's around the
 * HTTP call. preSend runs before it and returns options only; postReceive runs in the request's
 * `.then`, on answers only; a failed request goes from makeRequest to runNode's
 * Promise.allSettled loop, which makes it a NodeApiError (or, On Error: Continue, an error item)
 * with no hook between; requestDefaults and the credential's authenticate are options, not code
 * around the call.
 */
export function routedThrough(
	routing: INodePropertyRouting,
	send: RoutingRequests | undefined,
	onFailure: (this: IExecutePaginationFunctions, error: unknown) => Promise<unknown>,
): INodePropertyRouting {
	const pagination: RoutingRequests = async function (requestData) {
		try {
			return send ? await send.call(this, requestData) : await this.makeRoutingRequest(requestData);
		} catch (error) {
			throw await onFailure.call(this, error);
		}
	};
	return { ...routing, send: { ...routing.send, paginate: true }, operations: { pagination } };
}

// 5. Settings > Request Options: n8n-core dist/nodes-loader/constants.js
//    (commonDeclarativeNodeOptionParameters), read by RoutingNode.runNode
//    (dist/execution-engine/routing-node.js). n8n's loader adds them only to a declarative node
//    without `webhook` (DirectoryLoader.applyDeclarativeNodeOptionParameters); ours has one (Send and
//    Wait), so it declares them (form/settings.ts) and its own sends read them as RoutingNode
//    does (form/settings.ts, sendLoop/sendLoop.ts).

/** The parameter RoutingNode reads them from. */
export const REQUEST_OPTIONS = 'requestOptions';

/** The keys RoutingNode reads in it. */
export interface RequestOptionsParameter {
	batching?: { batch?: { batchSize?: number; batchInterval?: number } };
	timeout?: number;
	proxy?: string;
	allowUnauthorizedCerts?: boolean;
}

/** RoutingNode's Timeout when none is set. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * RoutingNode's Batching: a pause of `intervalMs` before each item whose index is a multiple of
 * `size` (the first aside); Items per Batch 0 or below counts as 1, an interval of 0 as none.
 */
export function batchingOf(options: RequestOptionsParameter): { size: number; intervalMs: number } {
	const batch = options.batching?.batch;
	return {
		size: Number(batch?.batchSize) > 0 ? Number(batch?.batchSize) : 1,
		intervalMs: Number(batch?.batchInterval) || 0,
	};
}

// 6. The expression fast path (sendLoop/itemRequest.ts fills `{{ $json.x }}` fields from the item with
//    n8n's own answer, its rules there): n8n-workflow dist/cjs/utils.js (isSafeObjectProperty), which
//    n8n's expression sandbox (dist/cjs/expression-sandboxing.js) applies to every key an expression
//    reads.

/** Whether n8n lets an expression read the key; none where n8n-workflow has no such check. */
export function expressionMayRead(key: string): boolean {
	return typeof isSafeObjectProperty === 'function' && isSafeObjectProperty(key);
}

// 6b. Which outputs lead somewhere: n8n-core dist/execution-engine/node-execution-context/node-execution-context.js
//     (NodeExecutionContext keeps `workflow`, n8n-workflow's Workflow, whose connectionsBySourceNode
//     lists each output's connections); a node's API names its child nodes, not their output.

/** Whether the node's output `index` (0 first) is connected to a node; true where n8n does not say. */
export function outputConnected(fns: IExecuteFunctions, index: number): boolean {
	const { workflow } = fns as {
		workflow?: { connectionsBySourceNode?: Record<string, { main?: Array<unknown[] | null> }> };
	};
	const connections = workflow?.connectionsBySourceNode;
	if (!connections) return true;
	return (connections[fns.getNode().name]?.main?.[index]?.length ?? 0) > 0;
}

/**
 * Whether the node runs as an AI Agent's tool: n8n gives a `usableAsTool` node's tool variant its
 * type name with `Tool` at the end (n8n-workflow dist/cjs/node-helpers.js, isToolType; n8n-core
 * dist/execution-engine/node-execution-context/utils/get-input-connection-data.js, whose
 * makeHandleToolInvocation hands the agent the first output alone).
 */
export const runsAsTool = (node: INode): boolean =>
	typeof NodeHelpers.isToolType === 'function'
		? NodeHelpers.isToolType(node.type)
		: node.type.endsWith('Tool');

// 7. Send and Wait's (wired in sendAndWait/): its resume link, its wait's timeout, its webhook.

/**
 * n8n 1.x checks a resume link's signature only for an execution whose node asked (n8n-core 1.x
 * dist/execution-engine/node-execution-context/node-execution-context.js,
 * setSignatureValidationRequired: runExecutionData.validateSignature); 2.x always checks it and
 * has no such call.
 */
export function requireSignedResume(fns: IExecuteFunctions): void {
	(fns as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired?.();
}

/**
 * The output of a wait that times out: n8n-core dist/execution-engine/workflow-execute.js
 * (WorkflowExecute). processRunExecutionData puts the waiting node's execute data, the object
 * getExecuteData() gives, back on the execution stack; when the wait tracker resumes it without an
 * answer, handleWaitingState marks the node disabled and runNode (handleDisabledNode) passes on its
 * first input, which an answer first replaces with the webhook's output. The first input's first
 * item is given `json`'s keys here.
 */
export function setTimeoutOutput(fns: IExecuteFunctions, json: IDataObject): void {
	const kept = fns.getExecuteData();
	const [input] = kept.data.main[0] ?? [];
	if (!input) return;
	const output = { ...input, json: { ...input.json, ...json } };
	kept.data = { ...kept.data, main: [[output], ...kept.data.main.slice(1)] };
}

/**
 * The node's context (what its execute set in getContext('node')) from its webhook, which has no
 * getContext: n8n-workflow dist/cjs/workflow-data-proxy.js ($node[name].context, nodeContextGetter)
 * through evaluateExpression, which the WebhookContext n8n's server runs a webhook in has as every
 * node context does (n8n-core dist/execution-engine/node-execution-context/node-execution-context.js),
 * though IWebhookFunctions does not declare it.
 */
export function nodeContextInWebhook(fns: IWebhookFunctions, key: string): unknown {
	const context = `$node[${JSON.stringify(fns.getNode().name)}].context`;
	const evaluating = fns as unknown as Pick<IExecuteFunctions, 'evaluateExpression'>;
	return evaluating.evaluateExpression(`{{ ${context}[${JSON.stringify(key)}] }}`, 0);
}

// 8. The processed-data store as a lock and a count (recipientRules/dailyCap.ts): n8n-cli 2.x
//    dist/deduplication/deduplication-helper.js (DeduplicationHelper, the IDataDeduplicator n8n's
//    server gives n8n-core's DataDeduplicationService; its rows are @n8n/db's ProcessedData, primary
//    key (workflowId, context)), through n8n-core's helpers (section 3), which give it the node and
//    the workflow. What it does that the node relies on:
//    - one row per (workflow, context): context `n:<node id>` for scope 'node' (every entry of the
//      node, Retry notes and daily counts alike: maxEntries prunes the whole row), '' for scope
//      'workflow' (shared by every node of the workflow that uses that scope, Remove Duplicates
//      included);
//    - every call reads the row, changes it in memory and writes it back, with no lock: two calls at
//      once lose one's change. Only the INSERT of a missing row is atomic: of two at once, the
//      second fails on the primary key;
//    - latestIncrementalKey: a missing row is inserted with the greatest value given, answered new;
//      else each value is new only when greater than the stored one, which becomes the greatest;
//    - the failed INSERT is n8n's database's own error (TypeORM's QueryFailedError, the driver's
//      words: insertConflict below), not a DeduplicationError: normal contention, never a failure;
//    - validateMode: a row written in another mode fails every call but clearAllProcessedItems with
//      a DeduplicationError ('Deduplication Failed: ... incompatible setting ...').

/**
 * The workflow lock's value: the least a number may safely be, so that no value given later is
 * greater (no clock: two workers' clocks may differ) and no other node's incremental key is lower.
 */
export const WORKFLOW_LOCK = Number.MIN_SAFE_INTEGER;

const LATEST = { mode: 'latestIncrementalKey' } as const;

/** Whether n8n has the processed-data store's helpers (n8n 1.x before it has none). */
export const hasProcessedData = (fns: IExecuteFunctions): boolean =>
	typeof fns.helpers.checkProcessedAndRecord === 'function' &&
	typeof fns.helpers.removeProcessed === 'function' &&
	typeof fns.helpers.clearAllProcessedItems === 'function';

/**
 * Takes the workflow's lock (scope 'workflow', latestIncrementalKey): true when there was no row
 * and this call inserted it (atomic); false when a row exists (WORKFLOW_LOCK is never greater than
 * the stored value, so the call changes nothing). Of two inserts at once, one throws.
 */
export async function lockWorkflow(fns: IExecuteFunctions): Promise<boolean> {
	const answer = await fns.helpers.checkProcessedAndRecord([WORKFLOW_LOCK], 'workflow', LATEST);
	return answer.new.length > 0;
}

/**
 * Whether the workflow's row holds WORKFLOW_LOCK (a lock, left or live), not another node's
 * incremental key: WORKFLOW_LOCK + 1 is new only over WORKFLOW_LOCK. It raises the stored value to
 * it (or inserts it where there is no row, taking the lock): call it only before clearing the row.
 */
export async function lockLooksOurs(fns: IExecuteFunctions): Promise<boolean> {
	const answer = await fns.helpers.checkProcessedAndRecord([WORKFLOW_LOCK + 1], 'workflow', LATEST);
	return answer.new.length > 0;
}

/** Drops the workflow's row (a DELETE, whatever its mode): the lock is free. */
export async function unlockWorkflow(fns: IExecuteFunctions): Promise<void> {
	await fns.helpers.clearAllProcessedItems('workflow', LATEST);
}

/** Records the entries in the node's row (entries mode): the ones that were not there, now there. */
export async function recordInNode(
	fns: IExecuteFunctions,
	entries: string[],
	maxEntries: number,
): Promise<Set<string>> {
	const options = { mode: 'entries', maxEntries } as const;
	const answer = await fns.helpers.checkProcessedAndRecord(entries, 'node', options);
	return new Set(answer.new.map(String));
}

/** Takes the entries out of the node's row (entries mode). */
export async function removeFromNode(fns: IExecuteFunctions, entries: string[]): Promise<void> {
	await fns.helpers.removeProcessed(entries, 'node', { mode: 'entries' });
}

/** DeduplicationHelper.validateMode's error: the row was written in another mode. */
export const modeConflict = (message: string): boolean =>
	/incompatible setting of the .Keep Items Where. parameter/.test(message);

/**
 * The error of an INSERT that lost the race for a missing row (the primary key (workflowId,
 * context) taken between the read and the insert): TypeORM's QueryFailedError, its message the
 * driver's. PostgreSQL: 'duplicate key value violates unique constraint "PK_..."'; SQLite (sqlite3):
 * 'SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context'
 * (SQLITE_CONSTRAINT_PRIMARYKEY / _UNIQUE with extended codes); MySQL and MariaDB: "ER_DUP_ENTRY:
 * Duplicate entry '...' for key 'PRIMARY'". Another constraint's failure (NOT NULL) is not one.
 */
export const insertConflict = (message: string): boolean =>
	/duplicate key value violates unique constraint|UNIQUE constraint failed|SQLITE_CONSTRAINT_(?:PRIMARYKEY|UNIQUE)|ER_DUP_ENTRY|Duplicate entry .* for key/i.test(
		message,
	);
