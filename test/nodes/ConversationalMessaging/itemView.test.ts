/**
 * The item view the send loop and Send and Wait give the description's hooks (shared/itemView.ts)
 * against n8n's own single-item context (n8n-core's ExecuteSingleContext, what RoutingNode gives
 * them), built from the same workflow, execution and input: every method n8n answers per item
 * is called on both for item 2 of 3 and must answer the same. A method ExecuteSingleContext
 * defines that the table does not call fails the test, and so does a table whose answers would
 * not tell item 2 from item 0.
 */
import { ExecuteContext, ExecuteSingleContext } from 'n8n-core';
import type {
	IExecuteData,
	IExecuteSingleFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { createEmptyRunExecutionData, NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { itemView } from '../../../nodes/ConversationalMessaging/shared/itemView';

const CREDENTIAL = 'conversationalMessagingApi';
const ITEM = 2;
const ITEMS: INodeExecutionData[] = [0, 1, 2].map((n) => ({
	json: { n, name: `item ${n}` },
	binary: {
		data: { data: Buffer.from(`binary of item ${n}`).toString('base64'), mimeType: 'text/plain' },
	},
}));

const nodeType: INodeType = {
	description: {
		displayName: 'Hooks',
		name: 'hooks',
		group: ['transform'],
		version: 1,
		description: '',
		defaults: {},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL, required: true }],
		properties: [{ displayName: 'Text', name: 'text', type: 'string', default: '' }],
	},
};
const nodeTypes: INodeTypes = {
	getByName: () => nodeType,
	getByNameAndVersion: () => nodeType,
	getKnownTypes: () => ({}),
};

const node: INode = {
	id: 'hooks',
	name: 'Hooks',
	type: 'test.hooks',
	typeVersion: 1,
	position: [0, 0],
	parameters: { text: '={{ $json.name }} (#{{ $itemIndex }})' },
	credentials: { [CREDENTIAL]: { id: '1', name: 'account' } },
};

/** The credentials a request helper authenticated with last (it stops there: nothing is sent). */
let authenticatedWith: unknown;

/** The credential as n8n resolves it for an item: this helper answers with the item index n8n asked for. */
const additionalData = {
	credentialsHelper: {
		getDecrypted: async (...args: unknown[]) => ({
			resolvedFor: (args[6] as { itemIndex?: number } | undefined)?.itemIndex,
		}),
		getParentTypes: () => [],
		getCredentialsProperties: () => [],
		isCredentialUsableByNode: () => true,
		preAuthentication: async () => undefined,
		authenticate: async (credentials: unknown) => {
			authenticatedWith = credentials;
			throw new Error('stopped before sending');
		},
	},
	getRuntimeCredential: async (_data: unknown, alias: string) => ({ alias }),
	variables: {},
	restApiUrl: 'http://127.0.0.1:5678/rest',
	instanceBaseUrl: 'http://127.0.0.1:5678',
	webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhookWaiting',
	formWaitingBaseUrl: 'http://127.0.0.1:5678/formWaiting',
	executionId: 'item-view',
} as unknown as IWorkflowExecuteAdditionalData;

function contexts(itemIndex: number) {
	const workflow = new Workflow({
		id: 'w',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const inputData = { main: [ITEMS] };
	const executeData: IExecuteData = { node, data: inputData, source: null };
	const runExecutionData = createEmptyRunExecutionData();
	const single = new ExecuteSingleContext(
		workflow,
		node,
		additionalData,
		'manual',
		runExecutionData,
		0,
		ITEMS,
		inputData,
		itemIndex,
		executeData,
	);
	const all = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'manual',
		runExecutionData,
		0,
		ITEMS,
		inputData,
		executeData,
		[],
	);
	return {
		single: single as unknown as IExecuteSingleFunctions,
		all,
		view: itemView(all, itemIndex),
	};
}

/** An answer or the message of what was thrown, so that both compare. */
async function answer(call: () => unknown): Promise<unknown> {
	try {
		return { value: await call() };
	} catch (error) {
		return { threw: (error as Error).message };
	}
}

type Case = (context: IExecuteSingleFunctions) => unknown;

/** The single-item signatures n8n-core implements (n8n-workflow's types still ask for an item index). */
const singleItem = (c: IExecuteSingleFunctions) =>
	c as unknown as {
		evaluateExpression(expression: string, itemIndex?: number): unknown;
		getWorkflowDataProxy(): ReturnType<IExecuteSingleFunctions['getWorkflowDataProxy']>;
	};

/** Each method ExecuteSingleContext answers per item (its own methods, and the helpers whose signature differs from the node's). */
const CASES: Record<string, Case> = {
	getItemIndex: (c) => c.getItemIndex(),
	getInputData: async (c) => [
		c.getInputData(),
		c.getInputData(0, NodeConnectionTypes.Main),
		c.getInputData(0, NodeConnectionTypes.AiTool),
		await answer(() => c.getInputData(1)),
	],
	getNodeParameter: (c) => [c.getNodeParameter('text'), c.getNodeParameter('notThere', 'fallback')],
	evaluateExpression: (c) => [
		singleItem(c).evaluateExpression('={{ $json.n }}'),
		singleItem(c).evaluateExpression('={{ $itemIndex }}:{{ $input.item.json.name }}'),
		c.evaluateExpression('={{ $json.n }}', 1),
	],
	getWorkflowDataProxy: (c) => {
		const proxy = singleItem(c).getWorkflowDataProxy();
		return [proxy.$json, proxy.$itemIndex, proxy.$input.item?.json, proxy.$binary?.data?.mimeType];
	},
	getCredentials: async (c) => await c.getCredentials(CREDENTIAL),
	getRuntimeCredential: async (c) => await c.getRuntimeCredential('alias'),
	'helpers.assertBinaryData': async (c) => [
		c.helpers.assertBinaryData('data'),
		c.helpers.assertBinaryData('data', 0),
		await answer(() => c.helpers.assertBinaryData('missing')),
		c.helpers.assertBinaryData(ITEMS[0].binary!.data as never),
	],
	// Not a signature of its own, but it reads the credential through `this` (the hooks call it so).
	'helpers.httpRequestWithAuthentication': async (c) => {
		authenticatedWith = undefined;
		const failure = await answer(() =>
			c.helpers.httpRequestWithAuthentication.call(c, CREDENTIAL, {
				url: 'http://127.0.0.1:9/never',
			}),
		);
		return { authenticatedWith, failure };
	},
	'helpers.getBinaryDataBuffer': async (c) => [
		(await c.helpers.getBinaryDataBuffer('data')).toString(),
		(await c.helpers.getBinaryDataBuffer('data', 0)).toString(),
	],
};

/** Answers that are the same for every item by n8n's design: the table cannot tell items apart by them. */
const ITEM_INDEPENDENT = new Set(['getRuntimeCredential']);

const methodsOf = (object: object): string[] => {
	const names = new Set<string>();
	for (
		let proto = object;
		proto && proto !== Object.prototype;
		proto = Object.getPrototypeOf(proto) as object
	) {
		for (const name of Object.getOwnPropertyNames(proto))
			if (name !== 'constructor' && typeof (object as Record<string, unknown>)[name] === 'function')
				names.add(name);
	}
	return [...names];
};

describe("the item view answers as n8n's ExecuteSingleContext, for its item", () => {
	const { single, all, view } = contexts(ITEM);

	it('the table calls every method n8n answers per item', () => {
		const own = Object.getOwnPropertyNames(ExecuteSingleContext.prototype).filter(
			(name) => name !== 'constructor',
		);
		expect(own.filter((name) => !(name in CASES))).toEqual([]);
		const helpers = single.helpers as unknown as Record<string, unknown>;
		const allHelpers = all.helpers as unknown as Record<string, unknown>;
		const differing = Object.keys(helpers).filter(
			(name) =>
				typeof helpers[name] === 'function' &&
				(allHelpers[name] as { length?: number } | undefined)?.length !==
					(helpers[name] as () => void).length,
		);
		expect(differing.filter((name) => !(`helpers.${name}` in CASES))).toEqual([]);
	});

	it('the view has every method and helper of the single-item context', () => {
		const viewRecord = view as unknown as Record<string, unknown>;
		expect(methodsOf(single).filter((name) => typeof viewRecord[name] !== 'function')).toEqual([]);
		const viewHelpers = view.helpers as unknown as Record<string, unknown>;
		expect(
			Object.keys(single.helpers).filter((name) => typeof viewHelpers[name] !== 'function'),
		).toEqual([]);
	});

	it.each(Object.keys(CASES))('%s', async (name) => {
		const call = CASES[name];
		if (!(name.startsWith('helpers.') || name in single)) return; // not in this n8n (getRuntimeCredential before 2.x)
		const expected = await answer(() => call(single));
		expect(await answer(() => call(view))).toEqual(expected);
		if (!ITEM_INDEPENDENT.has(name))
			expect(await answer(() => call(contexts(0).single))).not.toEqual(expected);
	});

	it('a binary helper on an input the node does not have is refused, as n8n fails on it', async () => {
		await expect(answer(() => view.helpers.assertBinaryData('data', 1))).resolves.toHaveProperty(
			'threw',
		);
		await expect(answer(() => single.helpers.assertBinaryData('data', 1))).resolves.toHaveProperty(
			'threw',
		);
	});
});
