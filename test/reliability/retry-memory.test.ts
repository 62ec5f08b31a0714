/**
 * Retry On Fail's memory (sendLoop/runMemory.ts) is keyed by the run in n8n's terms (execution
 * id, node name, run index), not by the execute data object n8n happens to hand every try: a
 * future n8n that copies it between tries must still send nothing twice. And the memory goes
 * with the run: nothing left once a run returned, or failed with no try left.
 */
import { WorkflowExecute } from 'n8n-core';
import type { IExecuteData, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import {
	IDLE_RUN_MS,
	MAX_IDLE_RUNS,
	StepMemory,
	rememberedRuns,
	withRunMemory,
} from '../../nodes/ConversationalMessaging/sendLoop/runMemory';
import type { FakeClock } from '../../sandbox/clock';
import { nodeOnFakeClock } from '../helpers/nodeClock';
import { useSandbox } from '../helpers/sandbox';

const suite = useSandbox();
const NODE_NAME = 'Conversational Messaging';

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
		expect(rememberedRuns()).toBe(0);
	});
});

describe('the memory is freed with the run', () => {
	it('after a run that returned (Retry On Fail on, one try failed)', async () => {
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
		expect(rememberedRuns()).toBe(0);
	});

	it('after a run that failed on its last try, and one without Retry On Fail', async () => {
		suite.sandbox.injectFault({ kind: 'status', status: 500, match: { path: '/v1/sms' } });
		const retried = await suite.run(sms, {
			items: itemsFor('03', 3),
			retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
		});
		expect(retried.error?.message).toBe('The service answered 500: Internal Server Error');
		expect(rememberedRuns()).toBe(0);
		const once = await suite.run(sms, { items: itemsFor('04', 3) });
		expect(once.error?.message).toBe('The service answered 500: Internal Server Error');
		expect(rememberedRuns()).toBe(0);
	});
});

/** The node's context as the memory reads it: execution id, node, run index, execute data. */
function context(
	executionId: string | undefined,
	node: Partial<INode> = {},
	executeData: object = {},
): IExecuteFunctions {
	return {
		getExecutionId: () => executionId,
		getNode: () => ({ name: NODE_NAME, retryOnFail: true, maxTries: 3, ...node }),
		getWorkflowDataProxy: () => ({ $runIndex: 0 }),
		getExecuteData: () => executeData,
	} as unknown as IExecuteFunctions;
}

const fail = async () => {
	throw new Error('this try failed');
};

describe('the memory, by itself', () => {
	/** The node's clock, moved by the test: idle times without waiting for them. */
	let clock: FakeClock;
	let restore: () => void;
	beforeEach(() => ({ clock, restore } = nodeOnFakeClock()));
	afterEach(() => restore());

	it('a run left behind (its retry never came) is swept once idle longer than n8n waits between tries', async () => {
		await expect(withRunMemory(context('sweep'), fail)).rejects.toThrow('this try failed');
		expect(rememberedRuns()).toBe(1);
		clock.advance(IDLE_RUN_MS);
		await withRunMemory(context('another'), async () => [[]]);
		expect(rememberedRuns()).toBe(1);
		clock.advance(1);
		await withRunMemory(context('another'), async () => [[]]);
		expect(rememberedRuns()).toBe(0);
	});

	it('past MAX_IDLE_RUNS runs awaiting a try, the surplus is freed, never the run retrying', async () => {
		const item = { json: { phone: '1' } };
		const sent = { sent: [{ json: { ok: true } }] };
		/** A try, a millisecond after the last, that remembers the item sent; what it found from an earlier try. */
		const tryOnce = async (executionId: string) => {
			clock.advance(1);
			let found: unknown;
			await withRunMemory(context(executionId), async (step) => {
				step('').startTry([item]);
				found = step('').get(0, item);
				step('').set(0, item, sent);
				throw new Error('this try failed');
			}).catch(() => undefined);
			return found;
		};
		for (let run = 0; run <= MAX_IDLE_RUNS; run++) await tryOnce(`cap ${run}`);
		expect(rememberedRuns()).toBe(MAX_IDLE_RUNS + 1);
		// The longest idle run's retry sweeps: its own memory holds.
		expect(await tryOnce('cap 0')).toEqual(sent);
		expect(rememberedRuns()).toBe(MAX_IDLE_RUNS + 1);
		// Another run's sweep frees the longest idle now ('cap 1'), only it.
		await withRunMemory(context('cap, one more'), async () => [[]]);
		expect(rememberedRuns()).toBe(MAX_IDLE_RUNS);
		expect(await tryOnce('cap 1')).toBeUndefined();
		expect(await tryOnce('cap 2')).toEqual(sent);
		clock.advance(IDLE_RUN_MS + 1);
		await withRunMemory(context('cap, after the sweep'), async () => [[]]);
		expect(rememberedRuns()).toBe(0);
	});

	it('the tries n8n gives (Max Tries clamped to 2..5): the memory goes after the last', async () => {
		const node = { maxTries: 9 };
		for (let tryIndex = 1; tryIndex <= 5; tryIndex++) {
			await expect(withRunMemory(context('clamped', node), fail)).rejects.toThrow();
			expect(rememberedRuns()).toBe(tryIndex < 5 ? 1 : 0);
		}
	});

	it('a return whose first item has json.error is retried by n8n (checkFailure): kept until the last try', async () => {
		const failedItem: INodeExecutionData[][] = [[{ json: { error: 'x' } }]];
		await withRunMemory(context('checkFailure', { maxTries: 2 }), async () => failedItem);
		expect(rememberedRuns()).toBe(1);
		await withRunMemory(context('checkFailure', { maxTries: 2 }), async () => failedItem);
		expect(rememberedRuns()).toBe(0);
	});

	it('the same run on each try, another run index or execution is another run', async () => {
		const sent = { sent: [{ json: { ok: true } }] };
		const item = { json: { phone: '1' } };
		const remember = (fns: IExecuteFunctions) =>
			withRunMemory(fns, async (step) => {
				step('').startTry([item]);
				const before = step('').get(0, item);
				step('').set(0, item, sent);
				if (!before) throw new Error('first try');
				return [[]];
			});
		await expect(remember(context('e1'))).rejects.toThrow('first try');
		await expect(remember(context('e2'))).rejects.toThrow('first try');
		await expect(remember(context('e1'))).resolves.toEqual([[]]);
		await expect(remember(context('e2'))).resolves.toEqual([[]]);
		expect(rememberedRuns()).toBe(0);
	});

	it('without an execution id (a context made outside n8n executions): told apart by the execute data, never another run', async () => {
		const seen: boolean[] = [];
		const item = { json: {} };
		const tryWith = (executeData: object) =>
			withRunMemory(context(undefined, {}, executeData), async (step) => {
				step('').startTry([item]);
				seen.push(step('').get(0, item) !== undefined);
				step('').set(0, item, { sent: [item] });
				return [[{ json: { error: 'retry me' } }]];
			});
		const first = {};
		await tryWith(first);
		await tryWith({});
		await tryWith(first);
		expect(seen).toEqual([false, false, true]);
		clock.advance(IDLE_RUN_MS + 1);
		await withRunMemory(context('sweeper'), async () => [[]]);
		expect(rememberedRuns()).toBe(0);
	});

	it('a different input under the same key is never taken for one already sent', () => {
		const memory = new StepMemory(true);
		const sent = { sent: [{ json: { id: 1 } }] };
		memory.startTry([{ json: { a: 1 } }, { json: { a: 2 } }]);
		memory.set(0, { json: { a: 1 } }, sent);
		memory.set(1, { json: { a: 2 } }, sent);
		expect(memory.get(0, { json: { a: 1 } })).toBe(sent);
		expect(memory.get(1, { json: { a: 'changed' } })).toBeUndefined();
		memory.startTry([{ json: { a: 1 } }]);
		expect(memory.get(0, { json: { a: 1 } })).toBeUndefined();
	});

	it('without Retry On Fail nothing is kept', () => {
		const memory = new StepMemory(false);
		memory.startTry([{ json: {} }]);
		memory.set(0, { json: {} }, { sent: [] });
		expect(memory.get(0, { json: {} })).toBeUndefined();
	});
});
