/**
 * Runs the node through n8n's real engine in-process: n8n-core's WorkflowExecute drives the
 * declarative RoutingNode, the credential's authenticate() places the token, and requests
 * go over real HTTP to a server on 127.0.0.1. Only what the n8n server process would supply
 * around the engine (node type registry, decrypted credentials, hooks) is provided here.
 */
import {
	DataDeduplicationService,
	DirectoryLoader,
	ExecuteContext,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	RoutingNode,
	WorkflowExecute,
} from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	IDataDeduplicator,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeListSearchResult,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IRun,
	IWorkflowExecuteAdditionalData,
	ExecutionError,
	IVersionedNodeType,
} from 'n8n-workflow';
import {
	createEmptyRunExecutionData,
	ICredentialsHelper,
	NodeConnectionTypes,
	Workflow,
} from 'n8n-workflow';

import { ConversationalMessagingApi } from '../../credentials/ConversationalMessagingApi.credentials';
import { ConversationalMessaging } from '../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';

/** The engine's major version: 2 for the pinned n8n-core, 1 under jest.compat.config.js. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const ENGINE_MAJOR = Number(
	(require('n8n-core/package.json') as { version: string }).version.split('.')[0],
);

export const NODE_TYPE = 'n8n-nodes-conversational-messaging.conversationalMessaging';
const SOURCE_TYPE = 'test.itemsSource';

/** Emits the items it is given: the input of the node under test. */
class ItemsSource implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Items Source',
		name: 'itemsSource',
		group: ['input'],
		version: 1,
		description: 'Test input',
		defaults: { name: 'Items Source' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = JSON.parse(this.getNodeParameter('items', 0) as string) as IDataObject[];
		return [items.map((json) => ({ json }))];
	}
}

/**
 * The node type exactly as n8n prepares it: the loader adds the Request Options (e.g. batching),
 * and n8n's NodeTypes gives a declarative node an `execute` that runs RoutingNode (n8n's
 * `shouldAssignExecuteMethod`, also for a node with a `webhook`, as ours has for Send and Wait).
 */
export function loadNodeType(): INodeType {
	const nodeType: INodeType = new ConversationalMessaging();
	DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
	return routedByRoutingNode(nodeType);
}

/** A declarative node type run as n8n runs one: its `execute` is RoutingNode's. */
export function routedByRoutingNode(nodeType: INodeType): INodeType {
	nodeType.execute = async function (this: IExecuteFunctions) {
		return (await new RoutingNode(this as ExecuteContext, nodeType).runNode()) ?? [];
	};
	return nodeType;
}

/**
 * n8n's processed-data store, as the server gives it to nodes (its database, every worker's):
 * here in memory, entries mode only, as the node uses it.
 */
class MemoryDeduplicator implements IDataDeduplicator {
	private readonly scopes = new Map<string, Set<string>>();
	/** Set by a test: the store's next answer fails with it (n8n's database gone). */
	failNext?: Error;

	private entries(scope: DeduplicationScope, context: ICheckProcessedContextData): Set<string> {
		const key = `${context.workflow.id} ${scope === 'node' ? context.node?.id : ''}`;
		let entries = this.scopes.get(key);
		if (!entries) this.scopes.set(key, (entries = new Set()));
		return entries;
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
	) {
		const failure = this.failNext;
		this.failNext = undefined;
		if (failure) throw failure;
		const entries = this.entries(scope, context);
		const processed = items.filter((item) => entries.has(String(item)));
		const fresh = items.filter((item) => !entries.has(String(item)));
		fresh.forEach((item) => entries.add(String(item)));
		return { new: fresh, processed };
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
	) {
		items.forEach((item) => this.entries(scope, context).delete(String(item)));
	}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData) {
		this.entries(scope, context).clear();
	}

	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData) {
		return this.entries(scope, context).size;
	}
}
/** The engine's processed-data store (one per process, as n8n-core allows). */
export const processedData = new MemoryDeduplicator();
void DataDeduplicationService.init(processedData);

const credentialType = new ConversationalMessagingApi();
const nodeTypeUnderTest = loadNodeType();

/**
 * What n8n's CredentialsTester runs for a credential's `test` request: a node type whose only
 * property routes the test request (n8n 2.41's credentials-tester.service).
 */
const CREDENTIAL_TEST_TYPE = 'test.credentialTest';
const credentialTestNodeType: INodeType = {
	description: {
		displayName: 'Credential Test',
		name: 'credentialTest',
		group: ['transform'],
		version: 1,
		description: '',
		defaults: {},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: credentialType.name, required: true }],
		properties: [
			{
				displayName: 'Temp',
				name: 'temp',
				type: 'string',
				default: '',
				routing: { request: credentialType.test.request },
			},
		],
	},
};

const typesByName: Record<string, INodeType> = {
	[NODE_TYPE]: nodeTypeUnderTest,
	[CREDENTIAL_TEST_TYPE]: credentialTestNodeType,
	[SOURCE_TYPE]: new ItemsSource(),
};

/** A test's own node type, run by `runNode({ nodeType: type, ... })` (test/n8n/internals.test.ts). */
export function registerNodeType(type: string, nodeType: INodeType): void {
	typesByName[type] = nodeType;
}

const nodeTypes: INodeTypes = {
	getByName: (type: string) => typesByName[type] as INodeType | IVersionedNodeType,
	getByNameAndVersion: (type: string) => typesByName[type],
	getKnownTypes: () => ({}),
};

class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly data: ICredentialDataDecryptedObject) {
		super();
	}

	getParentTypes() {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_type: string,
		requestOptions: IHttpRequestOptions,
	) {
		const authenticate = credentialType.authenticate;
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

	isCredentialUsableByNode() {
		return true;
	}

	async getDecrypted() {
		return { ...this.data };
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used by the engine');
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties() {
		return credentialType.properties;
	}
}

export interface RunOptions {
	parameters: INodeParameters;
	items?: IDataObject[];
	/** The decrypted credential: Base URL and token, and any other of its fields (allowed domains). */
	credentials: { baseUrl: string; apiToken: string } & ICredentialDataDecryptedObject;
	continueOnFail?: boolean;
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
	nodeType?: string;
	/** The node's output connected back to its input: it runs again on its output (run index 1, 2...). */
	loop?: boolean;
	/** The workflow's time zone (Settings > Timezone); n8n's default, America/New_York, when not given. */
	timezone?: string;
}

export interface RunResult {
	/** The execution's id (a retry has its own). */
	executionId: string;
	items: INodeExecutionData[];
	error?: ExecutionError;
	run: IRun;
	/** For an execution put to wait: runs it on as n8n's wait tracker does once Limit Wait Time passes. */
	resumeOnTimeout: () => Promise<RunResult>;
	/**
	 * For a failed execution: n8n's Retry of it (ExecutionService.retry), a new execution in mode
	 * `retry` on a stored copy; `saved`: "Retry with currently saved workflow", the node as changed.
	 */
	retry: (saved?: Partial<INode>) => Promise<RunResult>;
}

let executionCounter = 0;

/** What the n8n server supplies around the engine, with these decrypted credentials. */
/** The execution's lifecycle hooks, as n8n's server makes them (none registered here). */
const hooksFor = (mode: 'manual' | 'retry', executionId: string) =>
	new ExecutionLifecycleHooks(mode, executionId, {
		id: 'test',
		name: 'test',
		nodes: [],
		connections: {},
		active: false,
	} as never);

function additionalDataFor(credentials: RunOptions['credentials']): IWorkflowExecuteAdditionalData {
	const executionId = String(++executionCounter);
	return {
		credentialsHelper: new TestCredentialsHelper(credentials),
		hooks: hooksFor('manual', executionId),
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678',
		formBaseUrl: 'http://127.0.0.1:5678/form',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/formWaiting',
		formTestBaseUrl: 'http://127.0.0.1:5678/formTest',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhookWaiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhookTest',
		mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcpTest',
		variables: {},
		logAiEvent: () => {},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		executeWorkflow: async () => {
			throw new Error('not used');
		},
		startRunnerTask: async () => {
			throw new Error('not used');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export async function runNode(options: RunOptions): Promise<RunResult> {
	const source: INode = {
		id: 'source',
		name: 'Source',
		type: SOURCE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { items: JSON.stringify(options.items ?? [{}]) },
	};
	const node: INode = {
		id: 'node',
		name: 'Conversational Messaging',
		type: options.nodeType ?? NODE_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: options.parameters,
		credentials: {
			conversationalMessagingApi: { id: '1', name: 'Conversational Messaging account' },
		},
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(options.retryOnFail
			? {
					retryOnFail: true,
					maxTries: options.retryOnFail.maxTries,
					waitBetweenTries: options.retryOnFail.waitBetweenTries,
				}
			: {}),
	};
	const toNode = { main: [[{ node: node.name, type: NodeConnectionTypes.Main, index: 0 }]] };
	const connections = { Source: toNode, ...(options.loop ? { [node.name]: toNode } : {}) };
	const settings = options.timezone ? { timezone: options.timezone } : undefined;
	const workflow = new Workflow({
		id: 'test',
		name: 'test',
		nodes: [source, node],
		connections,
		active: false,
		nodeTypes,
		settings,
	});
	const additionalData = additionalDataFor(options.credentials);

	const execute = new WorkflowExecute(additionalData, 'manual');
	const rebuild = (changes: Partial<INode>) =>
		new Workflow({
			id: 'test',
			name: 'test',
			nodes: [source, { ...node, ...changes }],
			connections,
			active: false,
			nodeTypes,
			settings,
		});
	// n8n-core 2.x takes an options object; 1.x (npm run test:compat) positional arguments.
	const run = await (ENGINE_MAJOR >= 2
		? execute.run({ workflow, startNode: source })
		: (execute.run as unknown as (workflow: Workflow, startNode: INode) => Promise<IRun>)(
				workflow,
				source,
			));
	return resultOf(run, workflow, additionalData, node.name, rebuild);
}

function resultOf(
	run: IRun,
	workflow: Workflow,
	additionalData: IWorkflowExecuteAdditionalData,
	nodeName: string,
	rebuild: (changes: Partial<INode>) => Workflow,
): RunResult {
	const taskData = run.data.resultData.runData[nodeName]?.[0];
	const storedCopy = () => JSON.parse(JSON.stringify(run.data)) as IRun['data'];
	/** Runs a stored execution on, as n8n's wait tracker and its Retry do: a new WorkflowExecute on it. */
	const runStored = async (
		data: IWorkflowExecuteAdditionalData,
		mode: 'manual' | 'retry',
		stored: IRun['data'],
		on: Workflow,
	) =>
		resultOf(
			await new WorkflowExecute(data, mode, stored).processRunExecutionData(on),
			on,
			data,
			nodeName,
			rebuild,
		);
	return {
		executionId: String(additionalData.executionId),
		items: taskData?.data?.main?.[0] ?? [],
		error: run.data.resultData.error ?? taskData?.error,
		run,
		resumeOnTimeout: async () =>
			// Through JSON, as n8n stores a waiting execution and reads it back.
			await runStored(additionalData, 'manual', storedCopy(), workflow),
		retry: async (saved) => {
			// As n8n stores the execution and its Retry reads it back: the failed run's data dropped.
			const stored = storedCopy();
			const { lastNodeExecuted } = stored.resultData;
			if (lastNodeExecuted) {
				delete stored.resultData.error;
				const runs = stored.resultData.runData[lastNodeExecuted];
				if (runs?.length && runs[runs.length - 1].error !== undefined) runs.pop();
			}
			const retried = saved ? rebuild(saved) : workflow;
			for (const entry of stored.executionData?.nodeExecutionStack ?? [])
				entry.node = retried.getNode(entry.node.name) ?? entry.node;
			const executionId = String(++executionCounter);
			const retryData = {
				...additionalData,
				executionId,
				hooks: hooksFor('retry', executionId),
			} as IWorkflowExecuteAdditionalData;
			return await runStored(retryData, 'retry', stored, retried);
		},
	};
}

/**
 * The credential test as n8n's CredentialsTester runs and judges it (RoutingNode on a temporary
 * node, outside any workflow run): an HTTP error fails with the message
 * of the `responseCode` rule for its status, else with its status text; another error with its
 * code or message; an answer, with the message of the first `responseSuccessBody` rule whose key
 * holds its value; else "Connection successful!".
 */
export async function testCredential(
	credentials: RunOptions['credentials'],
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: CREDENTIAL_TEST_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: '1', name: 'Conversational Messaging account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(credentials),
		'internal',
		createEmptyRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	let items: INodeExecutionData[] = [];
	let error: (Error & { cause?: unknown }) | undefined;
	try {
		items = (await new RoutingNode(context, credentialTestNodeType).runNode())?.[0] ?? [];
	} catch (thrown) {
		error = thrown as Error;
	}
	const rules = credentialType.test.rules ?? [];
	if (error) {
		const cause = error.cause as
			| { response?: { status: number; statusText?: string }; code?: string }
			| undefined;
		const status = cause?.response?.status;
		if (status !== undefined) {
			const rule = rules.find(
				(candidate) => candidate.type === 'responseCode' && candidate.properties.value === status,
			);
			if (rule) return { status: 'Error', message: rule.properties.message };
			if (status < 199 || status > 299)
				return {
					status: 'Error',
					message: cause?.response?.statusText || `Received HTTP status code: ${status}`,
				};
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: error.message };
	}
	for (const rule of rules) {
		if (rule.type !== 'responseSuccessBody') continue;
		const found = rule.properties.key
			.split('.')
			.reduce<unknown>((value, key) => (value as IDataObject | undefined)?.[key], items[0]?.json);
		if (found === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

export interface ListSearchOptions {
	credentials: RunOptions['credentials'];
	/** The node's parameters as the editor sends them (resource, operation, ...). */
	parameters?: INodeParameters;
	filter?: string;
	paginationToken?: string;
	/** The locator's path in the node, as the editor sends it. */
	path?: string;
}

/**
 * A resource locator's list, as n8n's DynamicNodeParametersService runs it for the editor
 * (POST /rest/dynamic-node-parameters/resource-locator-results): the node's `methods.listSearch`
 * method called on a LoadOptionsContext of a temporary node that holds the editor's parameters
 * and the credential, outside any execution.
 */
export async function searchList(
	methodName: string,
	options: ListSearchOptions,
): Promise<INodeListSearchResult> {
	const method = nodeTypeUnderTest.methods?.listSearch?.[methodName];
	if (!method) throw new Error(`no listSearch method ${methodName}`);
	const parameters = options.parameters ?? {};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [credentialType.name]: { id: '1', name: 'Conversational Messaging account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = {
		...additionalDataFor(options.credentials),
		currentNodeParameters: parameters,
	};
	const context = new LoadOptionsContext(
		workflow,
		node,
		additionalData,
		options.path ?? 'parameters',
	);
	return await method.call(context, options.filter, options.paginationToken);
}
