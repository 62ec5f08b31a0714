/**
 * The run's memory (sendLoop/runMemory.ts) lives in the node's context, which n8n keeps with the
 * execution: Retry On Fail's next try reads it whatever execute data object n8n hands that try (a
 * future n8n that copies it between tries must still send nothing twice). It is kept only when a
 * run ends unfinished, and goes once a run of the node returns.
 */
import { WorkflowExecute } from 'n8n-core';
import type { IDataObject, IExecuteData, IExecuteFunctions, INode } from 'n8n-workflow';

import {
	ConversationalMessaging,
	RESOURCES,
} from '../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import { customOperationsOf } from '../../nodes/ConversationalMessaging/customOperations';
import type { BulkSpec } from '../../nodes/ConversationalMessaging/form/operations';
import { sendSmsOperation } from '../../nodes/ConversationalMessaging/resources/messaging/sendSms';

import type { Done } from '../../nodes/ConversationalMessaging/sendLoop/runMemory';
import { RunMemory } from '../../nodes/ConversationalMessaging/sendLoop/runMemory';
import type { RunResult } from '../helpers/engine';
import { registerNodeType } from '../helpers/engine';
import { useSandbox } from '../helpers/sandbox';

const suite = useSandbox();
const NODE_NAME = 'Conversational Messaging';
const MARKED = 'test.conversationalMessagingMarkedAnswers';
const originalRunNode = (WorkflowExecute.prototype as unknown as { runNode: RunNode }).runNode;

/** What the run left in the node's context for whoever runs it again, if anything. */
const kept = (run: RunResult) =>
	(run.run.data.executionData?.contextData?.[`node:${NODE_NAME}`] as IDataObject | undefined)
		?.sentBeforeStop;

const sms = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '={{ $json.phone }}',
	instance: 'line-1',
	message: '={{ $json.text }}',
};
const itemsFor = (run: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({
		phone: `573${run}${String(index).padStart(7, '0')}`,
		text: `retry memory ${run} #${index}`,
	}));

/** How many times the service recorded each message of the run, in item order. */
const deliveries = (items: Array<{ text: string }>) =>
	items.map(
		({ text }) =>
			[...suite.sandbox.state.sentMessages.values()].filter((message) => message.body === text)
				.length,
	);

type RunNode = (
	this: WorkflowExecute,
	workflow: unknown,
	executionData: IExecuteData,
	...rest: unknown[]
) => Promise<unknown>;

/** Every try of the node gets its own copy of the execute data, as a future n8n might hand it. */
function copyExecuteDataPerTry(): {
	tries: IExecuteData[];
	/** How many requests the sandbox had received when each try started. */
	requestsBefore: number[];
	restore: () => void;
} {
	const prototype = WorkflowExecute.prototype as unknown as { runNode: RunNode };
	const original = prototype.runNode;
	const tries: IExecuteData[] = [];
	const requestsBefore: number[] = [];
	const spy = jest.spyOn(prototype, 'runNode').mockImplementation(function (
		this: WorkflowExecute,
		workflow,
		executionData,
		...rest
	) {
		if (executionData.node.name !== NODE_NAME)
			return original.call(this, workflow, executionData, ...rest);
		const copy = structuredClone(executionData);
		tries.push(copy);
		requestsBefore.push(suite.sandbox.requests.length);
		return original.call(this, workflow, copy, ...rest);
	});
	return { tries, requestsBefore, restore: () => spy.mockRestore() };
}

afterEach(() => {
	suite.sandbox.clearFaults();
	jest.restoreAllMocks();
});

describe('Retry On Fail without object identity', () => {
	it('Retry On Fail with copied execute data: 20 of 20 once (a 500 and a 429 among them)', async () => {
		const items = itemsFor('01', 20);
		suite.sandbox.injectFault({
			kind: 'status',
			status: 500,
			times: 1,
			match: { path: '/v1/sms' },
		});
		suite.sandbox.injectFault({
			kind: 'status',
			status: 429,
			retryAfter: 1,
			times: 1,
			match: { path: '/v1/sms' },
		});
		const copies = copyExecuteDataPerTry();
		// Max Wait 0: the loop does not wait out the 429 itself, so it fails the try and reaches
		// Retry On Fail, as the 500 does.
		const run = await suite.run(
			{ ...sms, messagingSendOptions: { maxWait: 0 } },
			{ items, retryOnFail: { maxTries: 3, waitBetweenTries: 10 } },
		);
		copies.restore();

		expect(copies.tries).toHaveLength(2);
		// The 500 and the 429 each failed the first try; the second sent those two items, only them.
		const text = (request: { body: unknown }) => (request.body as { body?: string }).body;
		const secondTry = suite.sandbox.requests.slice(copies.requestsBefore[1]);
		expect(secondTry.map(text).sort()).toEqual(
			run.requests
				.filter((request) => request.status !== 200)
				.map(text)
				.sort(),
		);
		expect(run.requests).toHaveLength(22);
		expect(copies.tries[0]).not.toBe(copies.tries[1]);
		expect(
			run.requests
				.map((request) => request.status)
				.filter((status) => status !== 200)
				.sort(),
		).toEqual([429, 500]);
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(20);
		expect(run.items.map((item) => item.json)).toEqual(
			items.map((item) => expect.objectContaining({ to: item.phone, status: 'queued' })),
		);
		expect(deliveries(items)).toEqual(items.map(() => 1));
		expect(kept(run)).toBeUndefined();
	});
});

describe('the memory is kept only while a run is unfinished', () => {
	it('gone after a run that returned (Retry On Fail on, one try failed)', async () => {
		const items = itemsFor('02', 5);
		suite.sandbox.injectFault({
			kind: 'status',
			status: 500,
			times: 1,
			match: { path: '/v1/sms' },
		});
		const run = await suite.run(sms, { items, retryOnFail: { maxTries: 2, waitBetweenTries: 10 } });
		expect(run.error).toBeUndefined();
		expect(deliveries(items)).toEqual(items.map(() => 1));
		expect(run.items.every((item) => item.json.alreadySent === undefined)).toBe(true);
		expect(kept(run)).toBeUndefined();
	});

	it("left by a run that failed on its last try, for n8n's Retry: the answers it accepted", async () => {
		// Every item but the third is accepted, on each try; the third fails both.
		const items = itemsFor('03', 3);
		suite.sandbox.injectFault({
			kind: 'status',
			status: 500,
			match: { path: '/v1/sms', body: { to: items[2].phone } },
		});
		const retried = await suite.run(
			{ ...sms, messagingSendOptions: { maxInFlight: 1 } },
			{ items, retryOnFail: { maxTries: 2, waitBetweenTries: 10 } },
		);
		expect(retried.error?.message).toBe('The service answered 500: Internal Server Error');
		expect(deliveries(items)).toEqual([1, 1, 0]);
		expect(
			(kept(retried) as { items: Array<{ item: number }> }).items.map(({ item }) => item),
		).toEqual([0, 1]);
	});
});

describe('a return n8n runs again (Retry On Fail after an answer whose first item has json.error)', () => {
	it('the next try sends nothing again: the answers come from the memory', async () => {
		// This node's Send SMS reader marks every answer with `error`, as a service answer might.
		const { description } = new ConversationalMessaging();
		const marked: BulkSpec = {
			...sendSmsOperation,
			records: (payload) => [{ ...payload, error: 'in the answer' }],
		};
		const resources = RESOURCES.map((resource) => ({
			...resource,
			operations: resource.operations.map((spec) => (spec === sendSmsOperation ? marked : spec)),
		}));
		registerNodeType(MARKED, {
			description,
			customOperations: customOperationsOf(resources, description),
		});
		const items = itemsFor('05', 3);
		let tries = 0;
		const prototype = WorkflowExecute.prototype as unknown as { runNode: RunNode };
		jest.spyOn(prototype, 'runNode').mockImplementation(function (
			this: WorkflowExecute,
			workflow,
			executionData,
			...rest
		) {
			if (executionData.node.name === NODE_NAME) tries++;
			return originalRunNode.call(this, workflow, executionData, ...rest);
		});
		const run = await suite.run(sms, {
			items,
			nodeType: MARKED,
			retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
		});
		expect(tries).toBe(2);
		expect(run.error).toBeUndefined();
		expect(deliveries(items)).toEqual([1, 1, 1]);
		expect(run.items.map((item) => item.json.error)).toEqual([
			'in the answer',
			'in the answer',
			'in the answer',
		]);
	});
});

/** A node context as n8n gives one: execution, node (its operation), run index, the context. */
function context(executionId: string, contextData: IDataObject, runIndex = 0): IExecuteFunctions {
	return {
		getExecutionId: () => executionId,
		getNode: () =>
			({
				name: NODE_NAME,
				parameters: { resource: 'messaging', operation: 'sendSms' },
			}) as unknown as INode,
		getWorkflowDataProxy: () => ({ $runIndex: runIndex }),
		getContext: () => contextData,
		helpers: {},
	} as unknown as IExecuteFunctions;
}

describe('the memory, by itself', () => {
	const item = { json: { phone: '1' } };
	const other = { json: { phone: '2' } };
	const sent = (executionId: string): Done => ({
		sent: [{ json: { id: 7 }, pairedItem: { item: 0 } }],
		by: { executionId, at: 0 },
	});

	it('what a run kept is read by the next run of the same item, index, run index and operation', async () => {
		const data: IDataObject = {};
		const first = await RunMemory.recall(context('e1', data));
		first.keep([item, other], [sent('e1'), undefined]);
		const next = await RunMemory.recall(context('e1', data));
		expect(next.get(0, item)).toEqual(sent('e1'));
		// Not sent: nothing kept; another input under the same index is never taken for the one sent.
		expect(next.get(1, other)).toBeUndefined();
		expect(next.get(0, other)).toBeUndefined();
		// Another run of the node (a loop) keeps its own.
		expect((await RunMemory.recall(context('e1', data, 1))).get(0, item)).toBeUndefined();
	});

	it('a run that stops first keeps what an earlier run did for the items it did not reach', async () => {
		const data: IDataObject = {};
		(await RunMemory.recall(context('e1', data))).keep([item, other], [sent('e1'), undefined]);
		const done: Array<Done | undefined> = [undefined, undefined];
		(await RunMemory.recall(context('e1', data))).keep([item, other], done);
		expect(done).toEqual([sent('e1'), undefined]);
		expect((await RunMemory.recall(context('e1', data))).get(0, item)).toEqual(sent('e1'));
	});

	it('forget leaves nothing for the next run', async () => {
		const data: IDataObject = {};
		const fns = context('e1', data);
		(await RunMemory.recall(fns)).keep([item], [sent('e1')]);
		RunMemory.forget(fns);
		expect(data).toEqual({});
		expect((await RunMemory.recall(context('e1', data))).get(0, item)).toBeUndefined();
	});
});
