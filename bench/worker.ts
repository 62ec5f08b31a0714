/**
 * One measurement in a fresh process, so that its peak RSS is its own. Run by bench/main.ts with
 * the Node 24 runtime of scripts/n8n-env.sh's N8N_RUNTIME_DIR, through Node's own type stripping (no loader hooks
 * that would slow module loading): erasable TypeScript only, no relative imports.
 *
 *   node bench/worker.ts '<job as JSON>'   → one line of JSON on stdout
 */
import type { GlobalConfig } from '@n8n/config';
import type { Container as DiContainer } from '@n8n/di';
import type * as Core from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	ICredentialType,
} from 'n8n-workflow';
import * as nodeModule from 'node:module';
import * as diagnostics from 'node:diagnostics_channel';
import * as http from 'node:http';
import * as inspector from 'node:inspector/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Workflow = typeof import('n8n-workflow');

/**
 * A: our node; B: n8n's HTTP Request node; C: node:http alone; D: a minimal programmatic n8n node;
 * H: n8n's outbound HTTP alone (what every request helper of a node ends in), no engine.
 */
export type Variant = 'A' | 'B' | 'C' | 'D' | 'H';

/** Node settings of a send run (A, B, D): n8n's On Error and Options > Batching. */
export interface SendSettings {
	continueOnFail?: boolean;
	batching?: { batchSize: number; batchInterval: number };
	/** A: each expression in parentheses, so that n8n's engine evaluates it (the loop reads a bare `{{ $json.… }}` itself). */
	evaluated?: boolean;
	/** D: fields without expressions, one request at a time: the least memory a node that sends one request per item through n8n can use. */
	floor?: boolean;
	/** Profile the measured run (its time then counts the profiler too): SendResult.cpu. */
	profile?: boolean;
	/**
	 * The phones, spread over countries: each entry's first digits and its numbers' length (country
	 * code included); item i gets entry i mod n, its number i / n in the remaining digits. Without
	 * it, 57 30 then the item's number (Colombia).
	 */
	phones?: Array<[first: string, length: number]>;
	/** A: Send SMS's Recipient Rules > Send Window, every day, the zones read from each phone. */
	sendWindow?: { from: string; until: string };
}

/** Settings of an `executions` job. */
export interface ExecutionsSettings {
	continueOnFail?: boolean;
	/** A: Send Options' max wait, in seconds (the option named maxWait or maxRateLimitWait, whichever the node has). */
	maxWait?: number;
	/** B: Options > Batching. */
	batching?: { batchSize: number; batchInterval: number };
}

export type Job =
	/** items = 0: the process's own baseline (everything loaded, warm-up done, nothing sent). */
	| ({
			kind: 'send';
			variant: Variant;
			items: number;
			warmup: number;
			baseUrl: string;
			token: string;
			countExpressions?: boolean;
	  } & SendSettings)
	/**
	 * `executions` runs of Source → target started at once in this one process, each with its own
	 * `itemsPerExecution` phones (execution k sends phones k × itemsPerExecution onwards).
	 */
	| ({
			kind: 'executions';
			variant: 'A' | 'B';
			operation: 'sendSms' | 'injectCrmLead';
			executions: number;
			itemsPerExecution: number;
			baseUrl: string;
			token: string;
	  } & ExecutionsSettings)
	| { kind: 'load' }
	| {
			kind: 'researcher';
			baseUrl: string;
			token: string;
			researcherId: string;
			pollInterval: number;
	  };

export interface SendResult {
	ms: number;
	/** CPU time (user and system) of this process over the measured run: its own work, less swayed than ms by other work on the machine. */
	cpuMs: number;
	maxRssKb: number;
	/** JS heap still in use after the run and a full garbage collection, above that before the run (the output items are held). */
	liveKb: number;
	items: number;
	/** Output items that carry an error (continue-on-fail). */
	errorItems: number;
	/** The execution's error, when the node stopped on one (a settings run tolerates it). */
	error?: string;
	/** Expressions n8n evaluated during the measured run, when counted. */
	expressions?: number;
	/** Where the measured run's time went, when profiled: shares of the profile's samples, by owner. */
	cpu?: CpuShares;
	/** When profiled: this package's functions by their share of the samples (inclusive), the largest first. */
	functions?: FunctionShare[];
}

/** A function of this package in a profile: share of the samples with it on the stack, and with it the nearest of this package's frames to the leaf. */
export interface FunctionShare {
	/** `file.js:name:line`, the file relative to dist/nodes/ConversationalMessaging. */
	name: string;
	total: number;
	self: number;
}

/**
 * A profile's samples by who spent them. A sample in Node's own code (`node:` frames) counts for
 * the nearest caller that is not Node's: n8n's HTTP helper when axios opened the socket, this node
 * when it called JSON.parse; with no such caller (a socket's events, the event loop), `sockets`.
 * Each sample counts once (the sampling interval is even).
 */
export interface CpuShares {
	/** This package's code (dist/nodes, dist/credentials). */
	node: number;
	/** n8n's outbound HTTP: axios, @n8n/backend-network, n8n-core's request helpers, proxy-from-env. */
	helper: number;
	/** The rest of n8n: n8n-core, n8n-workflow, @n8n packages. */
	engine: number;
	/** Node's own JavaScript (sockets, streams, timers, the event loop) under no caller of ours or n8n's. */
	sockets: number;
	/** V8's and Node's native code with no JavaScript on the stack (`(program)`: libuv, the VM). */
	native: number;
	gc: number;
	idle: number;
	/** The bench's own code and anything else. */
	other: number;
}

/**
 * What a failed item's message says (message and description): `unsure`, that the service may
 * have carried it out (a connection cut or a timeout after the request was written); `unreachable`,
 * that the service could not be reached and the item was not sent; `other`, anything else.
 */
export type FailureKind = 'unsure' | 'unreachable' | 'other';

export interface ExecutionSummary {
	/** From the start of all executions to this one's end. */
	ms: number;
	/** Output items, error items included. */
	items: number;
	errorItems: number;
	/** The error that stopped the execution (without continue-on-fail). */
	error?: string;
	errorKind?: FailureKind;
}

export interface ExecutionsResult {
	/** From the first execution's start to the last one's end. */
	ms: number;
	/** When the executions were started, in ms since the epoch (performance.timeOrigin + now, comparable with the bench process's). */
	startedAt: number;
	maxRssKb: number;
	executions: ExecutionSummary[];
	/** Distinct failure messages, of error items and of stopped executions. */
	messages: Array<{
		kind: FailureKind;
		message: string;
		description?: string;
		items: number;
		executions: number;
	}>;
	/** Every error item's phone number (offset + index), by kind. */
	failed: Record<FailureKind, number[]>;
	/** The Send Options field the max wait went to, when one was set. */
	maxWaitOption?: string;
}

export interface LoadResult {
	/** n8n-core, n8n-workflow and the expression engine: what every node shares. */
	engineMs: number;
	/** n8n's PackageDirectoryLoader on the repo: require of dist/, description, request options. */
	loaderMs: number;
	properties: number;
	descriptionBytes: number;
	expressionEngine: string;
	httpRequestVersion: number;
}

export interface ResearcherResult {
	endedAt: number;
	/** Every GET of the researcher the node sent, by the time it left. */
	polls: number[];
	output: IDataObject;
}

const PACKAGE_NAME = 'n8n-nodes-conversational-messaging';
const SEND_OPTIONS = 'messagingSendOptions';
const INSTANCE = 'bench-line';
/** Item i's phone: Colombian, or from the spread (SendSettings.phones). */
const phoneOf = (i: number, phones?: SendSettings['phones']) => {
	if (!phones?.length) return `5730${String(i).padStart(8, '0')}`;
	const [first, length] = phones[i % phones.length];
	return `${first}${String(Math.floor(i / phones.length)).padStart(length - first.length, '0')}`;
};
const messageOf = (i: number) => `Your order ${i} is ready for pickup`;

const repoRoot = process.cwd();
// The runtime bench/run.sh exports (scripts/n8n-env.sh: the machine's cache, named for its pins).
const runtimeRequire = nodeModule.createRequire(
	join(process.env.N8N_RUNTIME_DIR ?? join(repoRoot, '.cache/n8n-runtime'), 'package.json'),
);

/**
 * n8n resolves a community package's `n8n-workflow` (a peer dependency) to its own copy. The repo's
 * dev copy would otherwise be loaded next to the engine's: twice the memory, and error classes
 * the engine does not recognise.
 */
function shareEnginesWorkflow(): void {
	const engineWorkflow = pathToFileURL(runtimeRequire.resolve('n8n-workflow')).href;
	const dist = pathToFileURL(join(repoRoot, 'dist')).href + '/';
	type Resolve = (
		specifier: string,
		context: { parentURL?: string },
	) => { url: string; shortCircuit?: boolean };
	const { registerHooks } = nodeModule as unknown as {
		registerHooks(hooks: {
			resolve(s: string, c: { parentURL?: string }, next: Resolve): ReturnType<Resolve>;
		}): void;
	};
	registerHooks({
		resolve: (specifier, context, next) =>
			specifier === 'n8n-workflow' && context.parentURL?.startsWith(dist)
				? { url: engineWorkflow, shortCircuit: true }
				: next(specifier, context),
	});
}

let loadedWorkflow: Workflow | undefined;

/**
 * n8n-core and n8n-workflow of the runtime, with the expression engine the n8n server starts
 * (its config: `vm`, isolated-vm, unless N8N_EXPRESSION_ENGINE says otherwise).
 */
async function loadEngine(): Promise<{ core: typeof Core; workflow: Workflow }> {
	shareEnginesWorkflow();
	const core = runtimeRequire('n8n-core') as typeof Core;
	const workflow = runtimeRequire('n8n-workflow') as Workflow;
	loadedWorkflow = workflow;
	const { Container } = runtimeRequire('@n8n/di') as { Container: typeof DiContainer };
	const { GlobalConfig: Config } = runtimeRequire('@n8n/config') as {
		GlobalConfig: typeof GlobalConfig;
	};
	const {
		engine,
		poolSize,
		maxCodeCacheSize,
		bridgeTimeout,
		bridgeMemoryLimit,
		idleTimeout,
		lazyAcquire,
		compileCache,
	} = Container.get(Config).expressionEngine;
	if (engine === 'legacy') workflow.Expression.setExpressionEngine(engine);
	else {
		await workflow.Expression.initExpressionEngine({
			engine,
			poolSize,
			maxCodeCacheSize,
			bridgeTimeout,
			bridgeMemoryLimit,
			idleTimeoutMs: idleTimeout === undefined ? undefined : idleTimeout * 1000,
			lazyAcquire,
			compileCache,
		});
	}
	return { core, workflow };
}

/** Our package as n8n loads a community package: its package.json, then the files it lists. */
async function loadPackage(
	core: typeof Core,
): Promise<{ node: INodeType; credential: ICredentialType }> {
	const loader = new core.PackageDirectoryLoader(repoRoot);
	await loader.loadAll();
	return {
		node: loader.nodeTypes.conversationalMessaging.type as INodeType,
		credential: loader.credentialTypes.conversationalMessagingApi.type,
	};
}

/** n8n's HTTP Request node, all its versions. */
function httpRequestNode(): IVersionedNodeType {
	const { HttpRequest } = runtimeRequire(
		'n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js',
	) as { HttpRequest: new () => IVersionedNodeType };
	return new HttpRequest();
}

interface Target {
	type: string;
	typeVersion: number;
	nodeType: INodeType | IVersionedNodeType;
	parameters: INodeParameters;
	credential?: ICredentialType;
}

/**
 * D, the floor of any n8n node: a programmatic node doing what any node must, one
 * getNodeParameter per field and one httpRequestWithAuthentication (our credential) per item, all
 * items at once, as the HTTP Request node starts them.
 */
function minimalNode(
	workflow: Workflow,
	credential: ICredentialType,
	oneAtATime = false,
): INodeType {
	const text = (name: string) => ({
		displayName: name,
		name,
		type: 'string' as const,
		default: '',
	});
	return {
		description: {
			displayName: 'Bench Minimal SMS',
			name: 'benchMinimalSms',
			group: ['output'],
			version: 1,
			description: 'The least an n8n node does per item',
			defaults: { name: 'Minimal' },
			inputs: [workflow.NodeConnectionTypes.Main],
			outputs: [workflow.NodeConnectionTypes.Main],
			credentials: [{ name: credential.name, required: true }],
			properties: [text('to'), text('instance'), text('message')],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const items = this.getInputData();
			const send = async (i: number) => {
				const body = {
					type: 'text',
					to: this.getNodeParameter('to', i),
					instance: this.getNodeParameter('instance', i),
					body: this.getNodeParameter('message', i),
				};
				const options = {
					method: 'POST' as const,
					url: '/v1/sms',
					body,
					json: true,
					headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
				};
				return (await this.helpers.httpRequestWithAuthentication.call(
					this,
					credential.name,
					options,
				)) as IDataObject;
			};
			const answers: IDataObject[] = [];
			if (oneAtATime) for (let i = 0; i < items.length; i++) answers.push(await send(i));
			else answers.push(...(await Promise.all(items.map((_, i) => send(i)))));
			return [
				answers.map((answer, i) => ({
					json: (answer.body as IDataObject) ?? answer,
					pairedItem: { item: i },
				})),
			];
		},
	};
}

async function sendSmsTarget(
	core: typeof Core,
	workflow: Workflow,
	job: Extract<Job, { kind: 'send' }>,
): Promise<Target> {
	const batching = job.batching ? { batching: { batch: job.batching } } : {};
	if (job.variant === 'A' || job.variant === 'D') {
		const { node, credential } = await loadPackage(core);
		if (job.variant === 'D') {
			const fields = job.floor
				? { to: phoneOf(0), message: messageOf(0) }
				: { to: '={{ $json.phone }}', message: '={{ $json.message }}' };
			return {
				type: 'bench.minimalSms',
				typeVersion: 1,
				nodeType: minimalNode(workflow, credential, job.floor),
				credential,
				parameters: { ...fields, instance: INSTANCE },
			};
		}
		const fields = job.evaluated
			? { to: '={{ ($json.phone) }}', message: '={{ ($json.message) }}' }
			: { to: '={{ $json.phone }}', message: '={{ $json.message }}' };
		return {
			type: `${PACKAGE_NAME}.conversationalMessaging`,
			typeVersion: 1,
			nodeType: node,
			credential,
			parameters: {
				resource: 'messaging',
				operation: 'sendSms',
				...fields,
				instance: INSTANCE,
				...(job.batching ? { requestOptions: batching } : {}),
				...(job.sendWindow
					? { messagingRecipientRules: { sendWindow: { window: { ...job.sendWindow } } } }
					: {}),
			},
		};
	}
	const pair = (name: string, value: string) => ({ name, value });
	// The request A sends: same method, path, headers and JSON body, token included.
	const body = [
		pair('type', 'text'),
		pair('to', '={{ $json.phone }}'),
		pair('instance', INSTANCE),
		pair('body', '={{ $json.message }}'),
		pair('token', job.token),
	];
	return httpRequestTarget(`${job.baseUrl}/v1/sms`, body, job.batching);
}

/** B: n8n's HTTP Request node POSTing these JSON body fields, with Options > Batching if given. */
function httpRequestTarget(
	url: string,
	body: Array<{ name: string; value: string }>,
	batching?: { batchSize: number; batchInterval: number },
): Target {
	const nodeType = httpRequestNode();
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: nodeType.description.defaultVersion ?? nodeType.currentVersion,
		nodeType,
		parameters: {
			method: 'POST',
			url,
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Accept', value: 'application/json' }] },
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: { parameters: body },
			options: batching ? { batching: { batch: batching } } : {},
		},
	};
}

/** Emits `count` contacts from number `offset` on: the input of the node measured. */
function itemsSource(workflow: Workflow, phones?: SendSettings['phones']): INodeType {
	return {
		description: {
			displayName: 'Bench Source',
			name: 'benchSource',
			group: ['input'],
			version: 1,
			description: 'Contacts to message',
			defaults: { name: 'Bench Source' },
			inputs: [workflow.NodeConnectionTypes.Main],
			outputs: [workflow.NodeConnectionTypes.Main],
			properties: [
				{ displayName: 'Count', name: 'count', type: 'number', default: 0 },
				{ displayName: 'Offset', name: 'offset', type: 'number', default: 0 },
			],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const count = this.getNodeParameter('count', 0) as number;
			const offset = this.getNodeParameter('offset', 0) as number;
			return [
				Array.from({ length: count }, (_, i) => ({
					json: { phone: phoneOf(offset + i, phones), message: messageOf(offset + i) },
				})),
			];
		},
	};
}

/** What the n8n server supplies around the engine: decrypted credentials, hooks, URLs. */
function additionalData(
	core: typeof Core,
	workflow: Workflow,
	credential: ICredentialType | undefined,
	data: ICredentialDataDecryptedObject,
	executionId = '1',
): IWorkflowExecuteAdditionalData {
	// As n8n's CredentialsHelper does for a credential whose authenticate is a function.
	class BenchCredentialsHelper extends workflow.ICredentialsHelper {
		getParentTypes() {
			return [];
		}
		isCredentialUsableByNode() {
			return true;
		}
		async authenticate(
			credentials: ICredentialDataDecryptedObject,
			_type: string,
			requestOptions: IHttpRequestOptions,
		) {
			const authenticate = credential?.authenticate;
			return typeof authenticate === 'function'
				? await authenticate(credentials, requestOptions)
				: requestOptions;
		}
		async preAuthentication() {
			return undefined;
		}
		async runPreAuthentication() {
			return undefined;
		}
		async getCredentials(): Promise<never> {
			throw new Error('not used by the engine');
		}
		async getDecrypted() {
			return { ...data };
		}
		async updateCredentials() {}
		async updateCredentialsOauthTokenData() {}
		getCredentialsProperties() {
			return credential?.properties ?? [];
		}
	}
	const base = 'http://127.0.0.1:5678';
	return {
		credentialsHelper: new BenchCredentialsHelper(),
		hooks: new core.ExecutionLifecycleHooks('manual', executionId, {
			id: 'bench',
			name: 'bench',
			nodes: [],
			connections: {},
			active: false,
		} as never),
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/formWaiting`,
		formTestBaseUrl: `${base}/formTest`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhookWaiting`,
		webhookTestBaseUrl: `${base}/webhookTest`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcpTest`,
		variables: {},
		logAiEvent: () => {},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/**
 * Runs Source (count items from number offset on) → target through n8n's WorkflowExecute; returns
 * the target's output and error. Calls may overlap: each is an execution of its own.
 */
function engineRunner(
	core: typeof Core,
	workflow: Workflow,
	target: Target,
	baseUrl: string,
	token: string,
	settings: SendSettings = {},
) {
	const sourceType = 'bench.itemsSource';
	const types: Record<string, INodeType | IVersionedNodeType> = {
		[sourceType]: itemsSource(workflow, settings.phones),
		[target.type]: target.nodeType,
	};
	const byVersion = (type: string, version?: number): INodeType => {
		const found = types[type];
		return 'nodeVersions' in found ? found.getNodeType(version) : found;
	};
	const nodeTypes: INodeTypes = {
		getByName: (type) => types[type],
		getByNameAndVersion: byVersion,
		getKnownTypes: () => ({}),
	};
	let executions = 0;
	return async (
		count: number,
		offset = 0,
	): Promise<{ items: INodeExecutionData[]; error?: string; errorDescription?: string }> => {
		const data = additionalData(
			core,
			workflow,
			target.credential,
			{ baseUrl, apiToken: token },
			String(++executions),
		);
		const source: INode = {
			id: 'source',
			name: 'Source',
			type: sourceType,
			typeVersion: 1,
			position: [0, 0],
			parameters: { count, offset },
		};
		const node: INode = {
			id: 'target',
			name: 'Target',
			type: target.type,
			typeVersion: target.typeVersion,
			position: [200, 0],
			parameters: target.parameters,
			...(target.credential
				? { credentials: { [target.credential.name]: { id: '1', name: 'bench' } } }
				: {}),
			...(settings.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		};
		const run: IRun = await new core.WorkflowExecute(data, 'manual').run({
			workflow: new workflow.Workflow({
				id: 'bench',
				name: 'bench',
				nodes: [source, node],
				connections: {
					Source: {
						main: [[{ node: 'Target', type: workflow.NodeConnectionTypes.Main, index: 0 }]],
					},
				},
				active: false,
				nodeTypes,
			}),
			startNode: source,
		});
		const task = run.data.resultData.runData.Target?.[0];
		const error = run.data.resultData.error ?? task?.error;
		const description = (error as { description?: unknown } | undefined)?.description;
		return {
			items: task?.data?.main?.[0] ?? [],
			error: error?.message,
			...(typeof description === 'string' ? { errorDescription: description } : {}),
		};
	};
}

/**
 * H: the same requests through n8n's outbound HTTP (`OutboundHttp.requests().request`, where
 * `httpRequest` and `httpRequestWithAuthentication` end: axios, n8n's proxy and agent set-up), all
 * in flight at once, without the engine. A node may send no other way (n8n's lint forbids
 * node:http in a community node): this is the least any node pays per request.
 */
function helperRunner(baseUrl: string, token: string) {
	runtimeRequire('n8n-core');
	const { Container } = runtimeRequire('@n8n/di') as { Container: typeof DiContainer };
	const { OutboundHttp } = runtimeRequire('@n8n/backend-network') as {
		OutboundHttp: new () => {
			requests(): { request(options: object): Promise<{ body: IDataObject }> };
		};
	};
	const outbound = Container.get(OutboundHttp);
	return allAtOnce(async (i) => {
		const { body } = await outbound.requests().request({
			method: 'POST',
			url: `${baseUrl}/v1/sms`,
			json: true,
			headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			body: smsBody(i, token),
			returnFullResponse: true,
		});
		return body;
	});
}

/** C: the same requests with node's http, all in flight at once, one connection each (agent: false sends `connection: close`, as n8n does). */
function floorRunner(baseUrl: string, token: string) {
	const { hostname, port } = new URL(baseUrl);
	return allAtOnce(
		(i) =>
			new Promise<IDataObject>((resolve, reject) => {
				const body = JSON.stringify(smsBody(i, token));
				const request = http.request(
					{
						host: hostname,
						port,
						method: 'POST',
						path: '/v1/sms',
						agent: false,
						headers: {
							accept: 'application/json',
							'content-type': 'application/json',
							'content-length': Buffer.byteLength(body),
						},
					},
					(response) => {
						const chunks: Buffer[] = [];
						response.on('data', (chunk: Buffer) => chunks.push(chunk));
						response.on('end', () =>
							resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as IDataObject),
						);
						response.on('error', reject);
					},
				);
				request.on('error', reject);
				request.end(body);
			}),
	);
}

/** Item i's Send SMS body as C and H send it, the token in it (A's and D's credential adds theirs). */
const smsBody = (i: number, token: string) => ({
	type: 'text',
	to: phoneOf(i),
	instance: INSTANCE,
	body: messageOf(i),
	token,
});

/** C's and H's run: every request at once, each answer an envelope the service accepted. */
function allAtOnce(send: (i: number) => Promise<IDataObject>) {
	const accepted = async (i: number) => {
		const envelope = await send(i);
		if ((envelope.body as IDataObject | undefined)?.err !== false)
			throw new Error(`request ${i} failed: ${JSON.stringify(envelope)}`);
		return envelope;
	};
	return async (count: number) => ({
		items: await Promise.all(Array.from({ length: count }, (_, i) => accepted(i))),
	});
}

/** Calls `count` for every expression n8n evaluates: each one builds a data proxy and, with the vm engine, enters the isolate. */
function onExpression(workflow: Workflow, count: () => void): void {
	const prototype = workflow.Expression.prototype;
	const resolve = prototype.resolveSimpleParameterValue;
	prototype.resolveSimpleParameterValue = function (...args: Parameters<typeof resolve>) {
		if (typeof args[0] === 'string' && args[0].startsWith('=')) count();
		return resolve.apply(this, args);
	};
}

async function send(job: Extract<Job, { kind: 'send' }>): Promise<SendResult> {
	let run: (count: number) => Promise<{ items: unknown[]; error?: string }>;
	let expressions = 0;
	if (job.variant === 'C') {
		run = floorRunner(job.baseUrl, job.token);
	} else if (job.variant === 'H') {
		run = helperRunner(job.baseUrl, job.token);
	} else {
		const { core, workflow } = await loadEngine();
		if (job.countExpressions) onExpression(workflow, () => expressions++);
		run = engineRunner(
			core,
			workflow,
			await sendSmsTarget(core, workflow, job),
			job.baseUrl,
			job.token,
			job,
		);
	}
	// A warm process, as a running n8n is: the measured run does not pay for compiling the code.
	if (job.warmup > 0) {
		const warm = await run(job.warmup);
		if (warm.error) throw new Error(`${job.variant}: the warm-up failed: ${warm.error}`);
	}
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	expressions = 0;
	const profiler = job.profile ? await startProfiler() : undefined;
	const cpuBefore = process.cpuUsage();
	const started = performance.now();
	const output = job.items > 0 ? await run(job.items) : { items: [] };
	const ms = performance.now() - started;
	const cpu = process.cpuUsage(cpuBefore);
	const cpuMs = (cpu.user + cpu.system) / 1000;
	const profile = profiler ? await profiler.stop() : undefined;
	const shares = profile ? cpuShares(profile) : undefined;
	const maxRssKb = process.resourceUsage().maxRSS;
	gc?.();
	const liveKb = (process.memoryUsage().heapUsed - heapBefore) / 1024;
	const settingsRun = job.continueOnFail !== undefined || job.batching !== undefined;
	if (!settingsRun && (output.error || output.items.length !== job.items))
		throw new Error(
			`${job.variant}: ${output.items.length} items out of ${job.items} ${output.error ?? ''}${job.sendWindow ? ' (the others held by the Send Window?)' : ''}`,
		);
	const errorItems = output.items.filter(
		(item) => (item as INodeExecutionData).json?.error !== undefined,
	).length;
	return {
		ms,
		cpuMs,
		maxRssKb,
		liveKb,
		items: output.items.length,
		errorItems,
		...(output.error ? { error: output.error } : {}),
		...(job.countExpressions ? { expressions } : {}),
		...(shares ? { cpu: shares } : {}),
		...(profile ? { functions: ownFunctions(profile) } : {}),
	};
}

interface Profile {
	nodes: Array<{
		id: number;
		callFrame: { functionName: string; url: string; lineNumber?: number };
		children?: number[];
	}>;
	samples: number[];
}

/** V8's sampling profiler through the inspector, started now; `stop` gives its profile. */
async function startProfiler(): Promise<{ stop(): Promise<Profile> }> {
	const session = new inspector.Session();
	session.connect();
	await session.post('Profiler.enable');
	await session.post('Profiler.setSamplingInterval', { interval: 200 });
	await session.post('Profiler.start');
	return {
		async stop() {
			const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
			session.disconnect();
			return profile;
		},
	};
}

/** This package's code, as the profile names its files. */
const OWN_CODE = ['nodes', 'credentials'].map(
	(dir) => `${pathToFileURL(join(repoRoot, 'dist', dir)).href}/`,
);
const OWNERS: Array<[keyof CpuShares, (url: string) => boolean]> = [
	['node', (url) => OWN_CODE.some((prefix) => url.startsWith(prefix))],
	[
		'helper',
		(url) =>
			/\/(axios|@n8n\/backend-network|proxy-from-env|follow-redirects)\/|\/request-helpers\//.test(
				url,
			),
	],
	['engine', (url) => /\/(n8n-core|n8n-workflow|@n8n\/[^/]+)\//.test(url)],
];
/** V8's own entries (a Map: a function may be named toString). */
const SPECIAL = new Map<string, keyof CpuShares>([
	['(garbage collector)', 'gc'],
	['(idle)', 'idle'],
	['(program)', 'native'],
]);

function cpuShares(profile: Profile): CpuShares {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parentOf = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parentOf.set(child, node.id);
	const ownerOf = new Map<number, keyof CpuShares>();
	const owner = (id: number): keyof CpuShares => {
		const known = ownerOf.get(id);
		if (known) return known;
		const { functionName, url } = byId.get(id)!.callFrame;
		const parent = parentOf.get(id);
		const found: keyof CpuShares =
			SPECIAL.get(functionName) ??
			(url && !url.startsWith('node:')
				? (OWNERS.find(([, owns]) => owns(url))?.[0] ?? 'other')
				: parent === undefined
					? 'sockets'
					: owner(parent));
		ownerOf.set(id, found);
		return found;
	};
	const shares: CpuShares = {
		node: 0,
		helper: 0,
		engine: 0,
		sockets: 0,
		native: 0,
		gc: 0,
		idle: 0,
		other: 0,
	};
	for (const id of profile.samples) shares[owner(id)]++;
	for (const key of Object.keys(shares) as Array<keyof CpuShares>)
		shares[key] /= profile.samples.length || 1;
	return shares;
}

/** The node's own files, as the profile names them: relative to this prefix. */
const NODE_DIST = `${pathToFileURL(join(repoRoot, 'dist/nodes/ConversationalMessaging')).href}/`;

/**
 * This package's functions in the profile, each counted once per sample it is on the stack of
 * (total), and once per sample it is the nearest of the package's frames to the leaf (self: its
 * own code and what it calls outside the package, Intl or a Map included). Those of 0.05 % and more.
 */
function ownFunctions(profile: Profile): FunctionShare[] {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parentOf = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parentOf.set(child, node.id);
	const nameOf = (id: number): string | undefined => {
		const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
		if (!OWN_CODE.some((prefix) => url.startsWith(prefix))) return undefined;
		const file = url.startsWith(NODE_DIST) ? url.slice(NODE_DIST.length) : url;
		return `${file}:${functionName || '(anonymous)'}:${(lineNumber ?? -1) + 1}`;
	};
	const total = new Map<string, number>();
	const self = new Map<string, number>();
	for (const leaf of profile.samples) {
		const seen = new Set<string>();
		for (let id: number | undefined = leaf; id !== undefined; id = parentOf.get(id)) {
			const name = nameOf(id);
			if (name === undefined) continue;
			if (!seen.size) self.set(name, (self.get(name) ?? 0) + 1);
			seen.add(name);
		}
		for (const name of seen) total.set(name, (total.get(name) ?? 0) + 1);
	}
	const samples = profile.samples.length || 1;
	return [...total]
		.map(([name, count]) => ({
			name,
			total: count / samples,
			self: (self.get(name) ?? 0) / samples,
		}))
		.filter((entry) => entry.total >= 0.0005)
		.sort((a, b) => b.total - a.total);
}

type ExecutionsJob = Extract<Job, { kind: 'executions' }>;

/** The Send Options field of the max wait: `maxWait`, or `maxRateLimitWait` before it was renamed. */
function maxWaitOption(node: INodeType): string {
	const sendOptions = node.description.properties.find(
		(property) => property.name === SEND_OPTIONS,
	);
	const names = ((sendOptions?.options ?? []) as Array<{ name: string }>).map(
		(option) => option.name,
	);
	const name = ['maxWait', 'maxRateLimitWait'].find((candidate) => names.includes(candidate));
	if (!name)
		throw new Error(`the node's ${SEND_OPTIONS} has no max wait option (has: ${names.join(', ')})`);
	return name;
}

/** A or B for an `executions` job: Send SMS or Inject CRM Lead, and the same request through the HTTP Request node. */
async function executionsTarget(
	core: typeof Core,
	job: ExecutionsJob,
): Promise<Target & { maxWaitOption?: string }> {
	const sms = job.operation === 'sendSms';
	if (job.variant === 'A') {
		const { node, credential } = await loadPackage(core);
		const option = job.maxWait === undefined ? undefined : maxWaitOption(node);
		const fields = sms
			? { to: '={{ $json.phone }}', message: '={{ $json.message }}' }
			: {
					contactPhone: '={{ $json.phone }}',
					leadMessage: '={{ $json.message }}',
					channel: 'chatapp',
				};
		return {
			type: `${PACKAGE_NAME}.conversationalMessaging`,
			typeVersion: 1,
			nodeType: node,
			credential,
			parameters: {
				resource: 'messaging',
				operation: job.operation,
				...fields,
				instance: INSTANCE,
				...(option ? { [SEND_OPTIONS]: { [option]: job.maxWait } } : {}),
			},
			...(option ? { maxWaitOption: option } : {}),
		};
	}
	const pair = (name: string, value: string) => ({ name, value });
	// The request A sends (bench/main.ts checks it): Inject CRM Lead adds @c.us to the phone.
	const body = sms
		? [
				pair('type', 'text'),
				pair('to', '={{ $json.phone }}'),
				pair('instance', INSTANCE),
				pair('body', '={{ $json.message }}'),
				pair('token', job.token),
			]
		: [
				pair('to', '={{ $json.phone }}@c.us'),
				pair('text', '={{ $json.message }}'),
				pair('channel', 'chatapp'),
				pair('instance', INSTANCE),
				pair('token', job.token),
			];
	return httpRequestTarget(`${job.baseUrl}/v1/${sms ? 'sms' : 'crm'}`, body, job.batching);
}

const UNSURE =
	/may (still )?have (been )?carried (it )?out|may have been (carried out|sent|delivered)/i;
const UNREACHED =
	/(could ?not|couldn't|cannot|can't|unable to) (be )?(reach|connect)|unreachable|not reachable/i;
const NOT_SENT =
	/\bnot (been )?sent\b|\bnever sent\b|\bnot carried out\b|\bnothing (was )?sent\b|\bnothing reached\b/i;

function kindOf(message: string, description = ''): FailureKind {
	const text = `${message} ${description}`;
	if (UNSURE.test(text)) return 'unsure';
	if (UNREACHED.test(text) && NOT_SENT.test(text)) return 'unreachable';
	return 'other';
}

/** The message and description of an output item that carries an error (ours, or the HTTP Request node's). */
function itemError(
	item: INodeExecutionData,
): { message: string; description?: string } | undefined {
	const error = item.error as { message?: unknown; description?: unknown } | undefined;
	const fromJson = item.json?.error as unknown;
	if (error === undefined && fromJson === undefined) return undefined;
	const json = (typeof fromJson === 'object' && fromJson !== null ? fromJson : {}) as {
		message?: unknown;
		description?: unknown;
	};
	const message =
		typeof error?.message === 'string'
			? error.message
			: typeof fromJson === 'string'
				? fromJson
				: String(json.message ?? JSON.stringify(fromJson));
	const description =
		typeof error?.description === 'string'
			? error.description
			: typeof json.description === 'string'
				? json.description
				: undefined;
	return { message, ...(description ? { description } : {}) };
}

/** Which item of the execution's input an output item answers. */
function pairedIndex(item: INodeExecutionData, fallback: number): number {
	const paired = item.pairedItem;
	if (typeof paired === 'number') return paired;
	if (Array.isArray(paired)) return paired[0]?.item ?? fallback;
	return paired?.item ?? fallback;
}

/** N executions at once in this process, as n8n runs concurrent executions of a workflow (one main process, or one worker). */
async function executions(job: ExecutionsJob): Promise<ExecutionsResult> {
	const { core, workflow } = await loadEngine();
	const target = await executionsTarget(core, job);
	const run = engineRunner(core, workflow, target, job.baseUrl, job.token, {
		continueOnFail: job.continueOnFail,
	});
	const messages = new Map<string, ExecutionsResult['messages'][number]>();
	const note = (
		message: string,
		description: string | undefined,
		field: 'items' | 'executions',
	) => {
		const kind = kindOf(message, description);
		const entry = messages.get(message) ?? {
			kind,
			message,
			...(description ? { description } : {}),
			items: 0,
			executions: 0,
		};
		entry[field]++;
		messages.set(message, entry);
		return kind;
	};
	const failed: ExecutionsResult['failed'] = { unsure: [], unreachable: [], other: [] };
	let done = 0;
	const started = performance.now();
	const progress = setInterval(() => {
		process.stderr.write(
			`worker: ${done}/${job.executions} executions ended after ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
		);
	}, 15_000);
	const summaries = await Promise.all(
		Array.from({ length: job.executions }, async (_, k): Promise<ExecutionSummary> => {
			const offset = k * job.itemsPerExecution;
			const output = await run(job.itemsPerExecution, offset);
			const ms = performance.now() - started;
			done++;
			let errorItems = 0;
			output.items.forEach((item, i) => {
				const error = itemError(item);
				if (!error) return;
				errorItems++;
				failed[note(error.message, error.description, 'items')].push(offset + pairedIndex(item, i));
			});
			const summary: ExecutionSummary = { ms, items: output.items.length, errorItems };
			if (output.error)
				Object.assign(summary, {
					error: output.error,
					errorKind: note(output.error, output.errorDescription, 'executions'),
				});
			return summary;
		}),
	);
	clearInterval(progress);
	return {
		ms: Math.max(...summaries.map((summary) => summary.ms)),
		startedAt: performance.timeOrigin + started,
		maxRssKb: process.resourceUsage().maxRSS,
		executions: summaries,
		messages: [...messages.values()].sort(
			(a, b) => b.items + b.executions - (a.items + a.executions),
		),
		failed,
		...(target.maxWaitOption ? { maxWaitOption: target.maxWaitOption } : {}),
	};
}

async function load(): Promise<LoadResult> {
	const started = performance.now();
	const { core, workflow } = await loadEngine();
	const engineLoaded = performance.now();
	const loader = new core.PackageDirectoryLoader(repoRoot);
	await loader.loadAll();
	const loaderMs = performance.now() - engineLoaded;
	const { description } = loader.nodeTypes.conversationalMessaging.type as INodeType;
	return {
		engineMs: engineLoaded - started,
		loaderMs,
		properties: description.properties.length,
		descriptionBytes: Buffer.byteLength(JSON.stringify(loader.types)),
		expressionEngine: workflow.Expression.getActiveImplementation(),
		httpRequestVersion: httpRequestNode().description.defaultVersion ?? 0,
	};
}

async function researcher(job: Extract<Job, { kind: 'researcher' }>): Promise<ResearcherResult> {
	const { core, workflow } = await loadEngine();
	const { node, credential } = await loadPackage(core);
	const polls: number[] = [];
	diagnostics.subscribe('http.client.request.start', (message) => {
		const { request } = message as { request: http.ClientRequest };
		if (request.method === 'GET' && request.path.startsWith(`/v1/researcher/${job.researcherId}`))
			polls.push(Date.now());
	});
	const run = engineRunner(
		core,
		workflow,
		{
			type: `${PACKAGE_NAME}.conversationalMessaging`,
			typeVersion: 1,
			nodeType: node,
			credential,
			parameters: {
				resource: 'researcher',
				operation: 'run',
				researcherId: job.researcherId,
				runOptions: { waitForCompletion: true, pollInterval: job.pollInterval, timeout: 30 },
			},
		},
		job.baseUrl,
		job.token,
	);
	const { items, error } = await run(1);
	if (error) throw new Error(`the researcher run failed: ${error}`);
	return { endedAt: Date.now(), polls, output: items[0].json };
}

async function main(): Promise<void> {
	const job = JSON.parse(process.argv[2]) as Job;
	const result =
		job.kind === 'send'
			? await send(job)
			: job.kind === 'executions'
				? await executions(job)
				: job.kind === 'load'
					? await load()
					: await researcher(job);
	// As n8n does on shutdown: exiting with live isolates can crash isolated-vm.
	await loadedWorkflow?.Expression.disposeExpressionEngine();
	// Written to a pipe, stdout is asynchronous: exit only once the whole line is out (an executions result can pass 64 KiB).
	await new Promise<void>((resolve, reject) =>
		process.stdout.write(`${JSON.stringify(result)}\n`, (error) =>
			error ? reject(error) : resolve(),
		),
	);
}

main().then(
	() => process.exit(0),
	(error: Error) => {
		process.stderr.write(`${error.stack ?? error.message}\n`);
		process.exit(1);
	},
);
