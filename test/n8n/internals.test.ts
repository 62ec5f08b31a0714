/**
 * The n8n internals the node relies on (nodes/ConversationalMessaging/n8nInternals.ts), one test
 * per shortcut, named after it: each fails when n8n changes what the shortcut mirrors, observed
 * through n8n's real engine (test/helpers/engine.ts) with a probe node of the test's own. Runs on
 * n8n 2.x (npm test), n8n 1.x's engine (npm run test:compat) and the newest n8n (weekly:
 * .github/workflows/newest-n8n.yml, whose verdict lists these tests one by one).
 */
import { createServer as createHttpServer } from 'http';
import type { Server } from 'http';
import { createServer } from 'net';
import type { AddressInfo } from 'net';
import { DataDeduplicationService, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRunExecutionData,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Expression, NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { FieldValues } from '../../nodes/ConversationalMessaging/sendLoop/itemRequest';
import type { Reading } from '../../nodes/ConversationalMessaging/sendLoop/itemRequest';
import {
	batchingOf,
	DEFAULT_TIMEOUT_MS,
	expressionMayRead,
	nodeContextOf,
	nodeContextInWebhook,
	outputConnected,
	REQUEST_OPTIONS,
	requireSignedResume,
	routedThrough,
	runIndexOf,
	runsAsTool,
	setTimeoutOutput,
	triedAgainAfter,
} from '../../nodes/ConversationalMessaging/n8nInternals';
import {
	hasProcessedData,
	insertConflict,
	lockLooksOurs,
	lockWorkflow,
	modeConflict,
	recordedFirst,
	recordInNode,
	removeFromNode,
	storeNotSetUp,
	unlockWorkflow,
	WORKFLOW_LOCK,
} from '../../nodes/ConversationalMessaging/n8nProcessedData';
import type { RequestOptionsParameter } from '../../nodes/ConversationalMessaging/n8nInternals';
import { requestOptions } from '../../nodes/ConversationalMessaging/form/settings';
import { requestSettings } from '../../nodes/ConversationalMessaging/service/account';
import type { RunOptions, RunResult } from '../helpers/engine';
import {
	ENGINE_MAJOR,
	NODE_TYPE,
	processedData,
	registerNodeType,
	routedByRoutingNode,
	runNode,
} from '../helpers/engine';
import {
	DeduplicationError,
	MODE_MISMATCH,
	ProcessedDataStore,
	useProcessedDataStore,
} from '../helpers/processedDataStore';
import { VALUE_KINDS } from '../helpers/valueKinds';

type Execute = (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

const PROBE = 'test.internalsProbe';
const ROUTED_PROBE = 'test.internalsRoutedProbe';
/** What the probe node runs, set by each test. */
let probe: Execute = async () => [[]];

const probeType: INodeType = {
	description: {
		displayName: 'Internals Probe',
		name: 'internalsProbe',
		group: ['transform'],
		version: 1,
		description: 'Runs what a test gives it',
		defaults: { name: 'Internals Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'To', name: 'to', type: 'string', default: '' },
			{ displayName: 'Message', name: 'message', type: 'string', default: '' },
		],
	},
	async execute(this: IExecuteFunctions) {
		return await probe.call(this);
	},
};
registerNodeType(PROBE, probeType);

/** A port where nothing listens: a request there is refused. */
let closedPort = 0;
/** A server that answers every request with `{}`. */
let answering: Server;
/** What the routed probe's failing request handed its hook, and the Request Options each item's request was given. */
const hooked: unknown[] = [];
const sentWith: IHttpRequestOptions[] = [];

beforeAll(async () => {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	closedPort = (server.address() as AddressInfo).port;
	await new Promise((resolve) => server.close(resolve));
	answering = createHttpServer((_request, response) => response.end('{}'));
	await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
	const answeringPort = (answering.address() as AddressInfo).port;
	// A declarative node, run by RoutingNode: `post` sends through the fence's request hook to
	// where nothing listens, `capture` keeps each request's options (sent to the answering server).
	const routed: INodeType = {
		description: {
			displayName: 'Internals Routed Probe',
			name: 'internalsRoutedProbe',
			group: ['transform'],
			version: 1,
			description: 'A declarative node',
			defaults: { name: 'Internals Routed Probe' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			requestDefaults: { baseURL: `http://127.0.0.1:${closedPort}` },
			properties: [
				requestOptions,
				{
					displayName: 'Operation',
					name: 'operation',
					type: 'options',
					noDataExpression: true,
					default: 'post',
					options: [
						{
							name: 'Post',
							value: 'post',
							routing: routedThrough(
								{ request: { method: 'POST', url: '/probe', body: { a: 1 } } },
								undefined,
								async (error) => {
									hooked.push(error);
									return new Error('named by the hook');
								},
							),
						},
						{
							name: 'Capture',
							value: 'capture',
							routing: {
								request: { method: 'GET', url: `http://127.0.0.1:${answeringPort}/probe` },
								send: {
									preSend: [
										async function (this: IExecuteSingleFunctions, options) {
											sentWith.push({ ...options });
											return options;
										},
									],
								},
							},
						},
					],
				},
			],
		},
	};
	registerNodeType(ROUTED_PROBE, routedByRoutingNode(routed));
});

afterAll(async () => await new Promise((resolve) => answering.close(resolve)));

/** Runs `execute` as the probe node of a workflow, in n8n's engine. */
async function runProbe(execute: Execute, options: Partial<RunOptions> = {}): Promise<RunResult> {
	probe = execute;
	return await runNode({
		nodeType: PROBE,
		parameters: {},
		credentials: { baseUrl: `http://127.0.0.1:${closedPort}`, apiToken: 'unused' },
		...options,
	});
}

/**
 * The waits asked of setTimeout that `watched` picks (never a request's timeout, which axios sets
 * with it), made at once: what n8n asked, with no time passing.
 */
async function waitsAskedIn(
	watched: (ms: number) => boolean,
	run: () => Promise<unknown>,
): Promise<number[]> {
	const asked: number[] = [];
	const real = global.setTimeout;
	const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((
		callback: (...args: unknown[]) => void,
		ms?: number,
		...args: unknown[]
	) => {
		const picked = typeof ms === 'number' && watched(ms);
		if (picked) asked.push(ms);
		return real(callback, picked ? 0 : ms, ...args);
	}) as unknown as typeof setTimeout);
	try {
		await run();
	} finally {
		spy.mockRestore();
	}
	return asked;
}

const node = (changes: Partial<INode>) => ({ name: 'n', retryOnFail: true, ...changes }) as INode;

describe("n8n's internals the node relies on (nodes/ConversationalMessaging/n8nInternals.ts)", () => {
	it("nodeContextOf: the node's context holds across Retry On Fail's tries, and n8n's Retry of the failed execution starts from it", async () => {
		const seen: unknown[] = [];
		const first = await runProbe(
			async function () {
				const context = nodeContextOf(this) as IDataObject;
				seen.push(context.kept);
				context.kept = seen.length;
				throw new Error('always fails');
			},
			{ retryOnFail: { maxTries: 2, waitBetweenTries: 1 } },
		);
		expect(seen).toEqual([undefined, 1]);
		// The Retry's two tries: the first reads what the failed execution's last try left.
		await first.retry();
		expect(seen).toEqual([undefined, 1, 2, 3]);
	});

	it("outputConnected: the execute context's workflow lists each output's connections by source node", async () => {
		const seen: boolean[][] = [];
		const probeOutputs: Execute = async function () {
			seen.push([outputConnected(this, 0), outputConnected(this, 1)]);
			return [[]];
		};
		await runProbe(probeOutputs);
		// Output 0 led back into the node itself; output 1 nowhere.
		await runProbe(probeOutputs, { loop: true });
		expect(seen).toEqual([
			[false, false],
			[true, false],
		]);
	});

	it("runsAsTool: n8n names a usableAsTool node's tool variant after it, with Tool at the end", () => {
		expect(runsAsTool({ type: `${NODE_TYPE}Tool` } as INode)).toBe(true);
		expect(runsAsTool({ type: NODE_TYPE } as INode)).toBe(false);
	});

	it('triedAgainAfter: WorkflowExecute runs the node again after a return whose first item has json.error (2.x: not undefined, null or false; 1.x: not undefined)', async () => {
		const values: Array<[string, IDataObject]> = [
			['no error', {}],
			['undefined', { error: undefined }],
			['null', { error: null }],
			['false', { error: false }],
			['0', { error: 0 }],
			["''", { error: '' }],
			["'failed'", { error: 'failed' }],
			['{}', { error: {} }],
		];
		for (const [name, json] of values) {
			let tries = 0;
			const output = [[{ json }]];
			await runProbe(
				async () => {
					tries++;
					return output;
				},
				{ retryOnFail: { maxTries: 2, waitBetweenTries: 1 } },
			);
			const error = json.error;
			const n8nRule =
				ENGINE_MAJOR >= 2
					? error !== undefined && error !== null && error !== false
					: error !== undefined;
			expect({ error: name, triedAgain: tries === 2 }).toEqual({
				error: name,
				triedAgain: n8nRule,
			});
			// The node keeps its memory whenever n8n tries again.
			if (tries === 2) expect(triedAgainAfter(output)).toBe(true);
		}
	});

	it('runIndexOf: $runIndex through the data proxy is the run index (0, then 1 when the node runs again)', async () => {
		const seen: number[] = [];
		await runProbe(
			async function () {
				seen.push(runIndexOf(this));
				return seen.length === 1 ? [this.getInputData()] : [[]];
			},
			{ loop: true },
		);
		expect(seen).toEqual([0, 1]);
	});

	it("recordedFirst / storeNotSetUp: n8n-core's processed-data store records once, and its 'not set up' error is recognised", async () => {
		const key = `internals ${Date.now()} ${Math.random()}`;
		const answers = async () => {
			const found: unknown[] = [];
			await runProbe(async function () {
				for (let time = 0; time < 2; time++)
					found.push(
						await recordedFirst(this, key, 10)?.catch((error: Error) =>
							storeNotSetUp(error.message) ? 'not set up' : `threw: ${error.message}`,
						),
					);
				return [[]];
			});
			return found;
		};
		expect(await answers()).toEqual([true, false]);
		// No store set up (an engine run alone), or one without its database: its error is recognised.
		const service = DataDeduplicationService as unknown as { instance?: unknown };
		const saved = service.instance;
		const noDatabase = new (DataDeduplicationService as unknown as new (
			store?: unknown,
		) => object)();
		try {
			for (const instance of [undefined, noDatabase]) {
				service.instance = instance;
				expect(await answers()).toEqual(['not set up', 'not set up']);
			}
		} finally {
			service.instance = saved;
		}
		// Another failure is n8n's to tell.
		processedData.failNext = new Error('the database is gone');
		expect((await answers())[0]).toBe('threw: the database is gone');
	});

	it("lockWorkflow / lockLooksOurs / unlockWorkflow / recordInNode / removeFromNode / modeConflict / hasProcessedData: n8n-core hands the store the workflow and the node, one row per scope (test/helpers/processedDataStore.ts mirrors n8n-cli's DeduplicationHelper)", async () => {
		const store = new ProcessedDataStore();
		const restore = await useProcessedDataStore(store);
		const seen: unknown[] = [];
		let rows = { workflow: '', node: '' };
		try {
			await runProbe(async function () {
				rows = { workflow: String(this.getWorkflow().id), node: `n:${this.getNode().id}` };
				seen.push(hasProcessedData(this));
				// The lock: inserted once, held after, told from another node's incremental key, dropped.
				seen.push(await lockWorkflow(this), await lockWorkflow(this), await lockLooksOurs(this));
				await unlockWorkflow(this);
				seen.push(await lockWorkflow(this));
				await unlockWorkflow(this);
				// The count: recorded once, out again.
				seen.push([...(await recordInNode(this, ['a', 'b'], 10))]);
				seen.push([...(await recordInNode(this, ['b', 'c'], 10))]);
				await removeFromNode(this, ['b']);
				seen.push([...(await recordInNode(this, ['b'], 10))]);
				// Another node of the workflow wrote the workflow's row in entries mode.
				await this.helpers.checkProcessedAndRecord(['x'], 'workflow', { mode: 'entries' });
				seen.push(
					await lockWorkflow(this).catch((error: Error) =>
						modeConflict(error.message) ? 'mode conflict' : error.message,
					),
				);
				return [[]];
			});
		} finally {
			restore();
		}
		expect(seen).toEqual([
			true,
			true,
			false,
			true,
			true,
			['a', 'b'],
			['c'],
			['b'],
			'mode conflict',
		]);
		// Scope 'node' is the node's row (by id), 'workflow' the workflow's, shared by its nodes.
		expect(store.row(rows.workflow, rows.node)).toEqual({
			mode: 'entries',
			data: [expect.any(String), expect.any(String), expect.any(String)],
		});
		expect(store.row(rows.workflow, '')).toEqual({ mode: 'entries', data: [expect.any(String)] });
		expect(WORKFLOW_LOCK + 1).toBeGreaterThan(WORKFLOW_LOCK);
		// DeduplicationHelper.validateMode's words in n8n 2.41.1.
		expect(modeConflict(new DeduplicationError(MODE_MISMATCH).message)).toBe(true);
		expect(modeConflict('Deduplication Failed: Invalid value.')).toBe(false);
	});

	it("insertConflict: of two lockWorkflow calls at once on a missing row, the second's insert fails with the database's duplicate-key error, recognised (PostgreSQL, SQLite, MySQL/MariaDB words)", async () => {
		const store = new ProcessedDataStore();
		const restore = await useProcessedDataStore(store);
		// Both read the missing row before either writes, as two workers do.
		store.between = async () => {
			for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
		};
		const seen: unknown[] = [];
		try {
			await runProbe(async function () {
				const answers = await Promise.allSettled([lockWorkflow(this), lockWorkflow(this)]);
				for (const answer of answers)
					seen.push(
						answer.status === 'fulfilled'
							? answer.value
							: insertConflict((answer.reason as Error).message)
								? 'insert conflict'
								: (answer.reason as Error).message,
					);
				await unlockWorkflow(this);
				return [[]];
			});
		} finally {
			restore();
		}
		expect(seen).toEqual([true, 'insert conflict']);
		// TypeORM's QueryFailedError carries the driver's words.
		for (const message of [
			'duplicate key value violates unique constraint "PK_processed_data"',
			'SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context',
			'SQLITE_CONSTRAINT_PRIMARYKEY: PRIMARY KEY must be unique',
			"ER_DUP_ENTRY: Duplicate entry 'wf-' for key 'PRIMARY'",
			"Duplicate entry 'wf-' for key 'processed_data.PRIMARY'",
		])
			expect(insertConflict(message)).toBe(true);
		for (const message of [
			'the database is gone',
			'SQLITE_CONSTRAINT: NOT NULL constraint failed: processed_data.value',
			'null value in column "value" violates not-null constraint',
			new DeduplicationError(MODE_MISMATCH).message,
		])
			expect(insertConflict(message)).toBe(false);
	});

	it("routedThrough: RoutingNode runs the pagination hook around a POST's request, and the request's network failure reaches it", async () => {
		hooked.length = 0;
		const run = await runNode({
			nodeType: ROUTED_PROBE,
			parameters: { operation: 'post' },
			credentials: { baseUrl: '', apiToken: 'unused' },
		});
		expect(run.error?.message).toBe('named by the hook');
		expect(hooked).toHaveLength(1);
		expect(JSON.stringify(hooked[0], Object.getOwnPropertyNames(hooked[0]))).toContain(
			'ECONNREFUSED',
		);
		// The node's own operations (a POST here), wired in form/operations.ts.
		const shortLink = await runNode({
			parameters: { resource: 'shortLink', operation: 'create', longUrl: 'https://example.com' },
			credentials: { baseUrl: `http://127.0.0.1:${closedPort}`, apiToken: 'unused' },
		});
		expect(shortLink.error?.message).toBe(
			`Could not connect to the service at 127.0.0.1:${closedPort}: the connection was refused`,
		);
	});

	it("REQUEST_OPTIONS: RoutingNode reads Request Options' Timeout, Proxy and Ignore SSL Issues as the send loop does", async () => {
		const options: RequestOptionsParameter = {
			timeout: 1234,
			proxy: 'http://user:secret@127.0.0.1:3128',
			allowUnauthorizedCerts: true,
		};
		const sentBy = async (parameter: RequestOptionsParameter) => {
			sentWith.length = 0;
			await runNode({
				nodeType: ROUTED_PROBE,
				parameters: { operation: 'capture', [REQUEST_OPTIONS]: parameter as INodeParameters },
				credentials: { baseUrl: '', apiToken: 'unused' },
			});
			const [sent] = sentWith;
			return {
				timeout: sent.timeout,
				proxy: sent.proxy,
				skipSslCertificateValidation: sent.skipSslCertificateValidation,
			};
		};
		const ours = (parameter: RequestOptionsParameter) => ({
			proxy: undefined,
			skipSslCertificateValidation: undefined,
			...requestSettings(node({}), parameter, {}, 0),
		});
		expect(await sentBy(options)).toEqual(ours(options));
		expect(await sentBy({})).toEqual(ours({}));
		expect(ours({}).timeout).toBe(DEFAULT_TIMEOUT_MS);
	});

	it('batchingOf: RoutingNode pauses Batch Interval before each batch of Items per Batch (0 or below: 1)', async () => {
		const items = [{}, {}, {}, {}, {}];
		for (const batchSize of [2, 0, -1]) {
			const parameter = { batching: { batch: { batchSize, batchInterval: 4321 } } };
			const asked = await waitsAskedIn(
				(ms) => ms === 4321,
				async () =>
					await runNode({
						nodeType: ROUTED_PROBE,
						parameters: { operation: 'capture', [REQUEST_OPTIONS]: parameter },
						credentials: { baseUrl: '', apiToken: 'unused' },
						items,
					}),
			);
			const { size, intervalMs } = batchingOf(parameter);
			const pauses = items.filter((_, index) => index > 0 && index % size === 0).length;
			expect({ batchSize, asked }).toEqual({ batchSize, asked: Array(pauses).fill(intervalMs) });
		}
	});

	it("expressionMayRead / the expression fast path: fields that only read the item get n8n's exact answer, without n8n's engine for plain values", async () => {
		const fields = ['to', 'message'].map((parameter) => ({
			parameter,
			to: ['body', parameter],
			locator: false,
		}));
		/** Each item's values as the fast path reads them and as n8n evaluates them; n8n's evaluations in the fast path. */
		const readings = async (items: IDataObject[], parameters: INodeParameters) => {
			let fast: Reading[] = [];
			let n8n: Reading[] = [];
			let evaluated = 0;
			await runProbe(
				async function () {
					const values = new FieldValues(this, fields);
					const spy = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue');
					try {
						fast = await Promise.all(items.map(async (_, index) => await values.read(index)));
						evaluated = spy.mock.calls.length;
					} finally {
						spy.mockRestore();
					}
					n8n = items.map((_, index): Reading => {
						try {
							return {
								values: fields.map((field) => this.getNodeParameter(field.parameter, index)),
							};
						} catch (error) {
							return { error };
						}
					});
					return [[]];
				},
				{ items, parameters },
			);
			const shown = (reading: Reading) =>
				'error' in reading ? { error: (reading.error as Error).message } : reading;
			return { fast: fast.map(shown), n8n: n8n.map(shown), evaluated };
		};
		const reads = {
			to: '={{ $json.phone }}',
			message: "=Hi {{ $json.text }}, {{ $json['line'].name }}",
		};
		const kinds = await readings(VALUE_KINDS, reads);
		expect(kinds.fast).toEqual(kinds.n8n);
		const plain = await readings(VALUE_KINDS.slice(0, 3), reads);
		expect(plain.evaluated).toBe(0);
		// A key n8n lets an expression read: the item's own value there, as the fast path takes it.
		const keys = [
			'name',
			'toString',
			'valueOf',
			'constructor',
			'prototype',
			'__proto__',
			'caller',
			'then',
		];
		const item = JSON.parse(
			JSON.stringify(Object.fromEntries(keys.map((key) => [key, `${key} value`]))),
		) as IDataObject;
		for (const key of keys) {
			const byKey = await readings([item], { to: `={{ $json['${key}'] }}`, message: '=' });
			expect({ key, fast: byKey.fast }).toEqual({ key, fast: byKey.n8n });
			if (expressionMayRead(key))
				expect({ key, n8n: byKey.n8n }).toEqual({ key, n8n: [{ values: [`${key} value`, ''] }] });
		}
		expect(expressionMayRead('name')).toBe(true);
		expect(expressionMayRead('constructor')).toBe(false);
	});

	it("setTimeoutOutput: when a wait times out, WorkflowExecute passes on the waiting node's execute data as the node left it, without running the node", async () => {
		let runs = 0;
		const waiting = await runProbe(
			async function () {
				runs++;
				setTimeoutOutput(this, { data: { timedOut: true }, question: { asked: 'who' } });
				await this.putExecutionToWait(new Date(Date.now() + 3_600_000));
				return [this.getInputData()];
			},
			{ items: [{ order: 17, data: { from: 'the trigger' } }] },
		);
		expect(waiting.run.data.waitTill).toBeInstanceOf(Date);
		const resumed = await waiting.resumeOnTimeout();
		expect(resumed.error).toBeUndefined();
		expect(runs).toBe(1);
		expect(resumed.items).toEqual([
			{
				json: { order: 17, data: { timedOut: true }, question: { asked: 'who' } },
				pairedItem: { item: 0 },
			},
		]);
	});

	it("nodeContextInWebhook: a webhook, run as n8n's server runs a waiting execution's (WebhookContext on the stored execution), reads what the node's execute kept in its node context", async () => {
		const kept = { page: { question: 'Refund?' }, question: { channel: 'sms' } };
		const waiting = await runProbe(async function () {
			this.getContext('node').kept = kept;
			await this.putExecutionToWait(new Date(Date.now() + 3_600_000));
			return [this.getInputData()];
		});
		// As n8n stores the waiting execution, and its waiting-webhook handler reads it back and runs
		// the waiting node's webhook in a workflow of its nodes.
		const stored = JSON.parse(JSON.stringify(waiting.run.data)) as IRunExecutionData;
		const [{ node }] = stored.executionData?.nodeExecutionStack ?? [];
		const nodeTypes: INodeTypes = {
			getByName: () => probeType,
			getByNameAndVersion: () => probeType,
			getKnownTypes: () => ({}),
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		const additionalData = {
			executionId: waiting.executionId,
			webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhookWaiting',
			formWaitingBaseUrl: 'http://127.0.0.1:5678/formWaiting',
			variables: {},
		} as unknown as IWorkflowExecuteAdditionalData;
		const webhookData = { httpMethod: 'GET', node: node.name, path: node.id } as IWebhookData;
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			'webhook',
			webhookData,
			[],
			stored,
		);
		expect(nodeContextInWebhook(context, 'kept')).toEqual(kept);
		expect(nodeContextInWebhook(context, 'other')).toBeUndefined();
	});

	it("requireSignedResume: n8n 1.x marks the execution for its resume link's signature check; 2.x has no such call", async () => {
		let hasCall = false;
		const run = await runProbe(async function () {
			hasCall =
				typeof (this as { setSignatureValidationRequired?: unknown })
					.setSignatureValidationRequired === 'function';
			requireSignedResume(this);
			return [[]];
		});
		expect(hasCall).toBe(ENGINE_MAJOR < 2);
		if (ENGINE_MAJOR < 2)
			expect((run.run.data as { validateSignature?: boolean }).validateSignature).toBe(true);
	});
});
