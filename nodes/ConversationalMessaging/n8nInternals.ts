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
import { isExpression, isSafeObjectProperty, NodeHelpers } from 'n8n-workflow';

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
//    does (service/account.ts).

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

// 6. The expression fast path (sendLoop/itemRequest.ts fills `{{ $json.x }}` fields from the item
//    with n8n's own answer): n8n's template syntax, and n8n-workflow dist/cjs/utils.js
//    (isSafeObjectProperty), which n8n's expression sandbox (dist/cjs/expression-sandboxing.js)
//    applies to every key an expression reads. Which values are expressions, n8n-workflow's own
//    isExpression says, here and wherever the node asks.

/** Whether n8n lets an expression read the key; none where n8n-workflow has no such check. */
export function expressionMayRead(key: string): boolean {
	return typeof isSafeObjectProperty === 'function' && isSafeObjectProperty(key);
}

/** `{{ $json.a.b }}`, `{{ $json['first name'] }}`: keys by name or in quotes. */
const JSON_READ =
	/\{\{\s*\$json((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\s*(?:'[^'\\{}]*'|"[^"\\{}]*")\s*\])+)\s*\}\}/g;
const KEY = /\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(?:'([^']*)'|"([^"]*)")\s*\]/g;

/** A field's value as text and item paths: `=Hi {{ $json.name }}!` is `['Hi ', ['name'], '!']`. */
export type Template = Array<string | string[]>;

/**
 * The template a field's raw value is when every `{{ }}` in it only reads the item (keys n8n lets
 * an expression read: expressionMayRead) and its text holds no brace or backslash (which n8n's
 * template syntax gives meanings); else undefined, and n8n evaluates the value.
 */
export function templateOf(raw: unknown): Template | undefined {
	if (!isExpression(raw)) return undefined;
	const template: Template = [];
	let end = 1;
	for (const read of raw.matchAll(JSON_READ)) {
		const path = [...read[1].matchAll(KEY)].map((key) => key[1] ?? key[2] ?? key[3]);
		template.push(raw.slice(end, read.index), path);
		end = read.index + read[0].length;
	}
	template.push(raw.slice(end));
	const texts = template.filter((part): part is string => typeof part === 'string');
	const keys = template.filter((part) => typeof part !== 'string').flat();
	if (!keys.length || texts.some((text) => /[{}\\]/.test(text))) return undefined;
	if (!keys.every((key) => expressionMayRead(key))) return undefined;
	return template.filter((part) => part !== '');
}

/** This realm's plain objects only, a cheap check (lodash's isPlainObject takes any realm's). */
const isOwnRealmObject = (value: unknown): value is Record<string, unknown> => {
	if (value === null || typeof value !== 'object') return false;
	const proto = Object.getPrototypeOf(value) as object | null;
	return proto === Object.prototype || proto === null;
};

/**
 * The string, finite number or boolean at the path, through plain objects' own properties; anything
 * else (objects, arrays, dates, null, missing keys, errors) is undefined, for n8n to evaluate.
 */
function primitiveAt(json: unknown, path: string[]): string | number | boolean | undefined {
	let value = json;
	for (const key of path) {
		if (!isOwnRealmObject(value) || !Object.prototype.hasOwnProperty.call(value, key))
			return undefined;
		value = value[key];
	}
	return typeof value === 'string' ||
		typeof value === 'boolean' ||
		(typeof value === 'number' && Number.isFinite(value))
		? value
		: undefined;
}

/**
 * What n8n's expression engines answer for the template over the item: one read alone gives the
 * value itself, text around reads gives the text with each value as a string (held to n8n's
 * engines by test/n8n/internals.test.ts). Undefined when a read finds no plain value.
 */
export function fill(template: Template, json: unknown): string | number | boolean | undefined {
	const values = template.map((part) =>
		typeof part === 'string' ? part : primitiveAt(json, part),
	);
	if (values.includes(undefined)) return undefined;
	return values.length === 1 ? values[0] : values.join('');
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
