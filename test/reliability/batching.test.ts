/**
 * Settings > Request Options > Batching (n8n's own options, which this node declares itself): the
 * items go in groups of Items per Batch, each group Batch Interval after the one before. The node
 * runs on a clock the test moves (test/helpers/nodeClock.ts), so the counts are exact on any
 * machine: before the clock reaches a group's time, none of its requests has gone; once it does,
 * all of them go.
 */
import { nodeOnFakeClock } from '../helpers/nodeClock';
import { useSandbox } from '../helpers/sandbox';
import { until } from '../helpers/until';
import { collectResults } from './results';

const ITEMS = 500;
const BATCH_SIZE = 50;
const BATCH_INTERVAL_MS = 20;
const BATCHES = ITEMS / BATCH_SIZE;

const suite = useSandbox();
const { results, save } = collectResults('batching');
afterAll(save);

it(`sends ${ITEMS} items in batches of ${BATCH_SIZE}, each batch ${BATCH_INTERVAL_MS} ms after the one before and not 1 ms sooner, each item once`, async () => {
	const items = Array.from({ length: ITEMS }, (_, index) => ({
		phone: `57310${String(index).padStart(7, '0')}`,
		text: `Batch #${index}`,
	}));
	const parameters = {
		resource: 'messaging',
		operation: 'sendSms',
		to: '={{ $json.phone }}',
		instance: 'line-1',
		message: '={{ $json.text }}',
		requestOptions: {
			batching: { batch: { batchSize: BATCH_SIZE, batchInterval: BATCH_INTERVAL_MS } },
		},
	};
	const { clock, restore } = nodeOnFakeClock();
	const before = suite.sandbox.requests.length;
	const arrived = () => suite.sandbox.requests.slice(before);
	const batchOf = (request: { body: unknown }) =>
		Math.floor(
			Number(/#(\d+)$/.exec(String((request.body as { body?: string }).body))?.[1]) / BATCH_SIZE,
		);
	/** Per batch: the requests of later batches that had arrived when it was due (none may have). */
	const early: number[] = [];
	try {
		const running = suite.run(parameters, { items, continueOnFail: true });
		for (let batch = 0; batch < BATCHES; batch++) {
			// This batch has gone, and every later item waits for the clock: nothing more comes until it moves.
			const waiting = ITEMS - (batch + 1) * BATCH_SIZE;
			await until(
				() => arrived().length === (batch + 1) * BATCH_SIZE && clock.pending === waiting,
				`batch ${batch + 1} of ${BATCHES} (${arrived().length} arrived, ${clock.pending} waiting)`,
			);
			early.push(arrived().filter((request) => batchOf(request) > batch).length);
			expect(arrived().filter((request) => batchOf(request) === batch)).toHaveLength(BATCH_SIZE);
			if (batch === BATCHES - 1) break;
			clock.advance(BATCH_INTERVAL_MS - 1);
			expect(clock.pending).toBe(waiting);
			clock.advance(1);
			expect(clock.pending).toBe(waiting - BATCH_SIZE);
		}
		const run = await running;
		expect(run.error).toBeUndefined();
		expect(
			run.items.map((item) => [(item.pairedItem as { item: number }).item, item.json.to]),
		).toEqual(items.map((item, index) => [index, item.phone]));
		expect(run.requests).toHaveLength(ITEMS);
		expect(early).toEqual(early.map(() => 0));
	} finally {
		restore();
	}
	results.batching = {
		items: ITEMS,
		batchSize: BATCH_SIZE,
		batchIntervalMs: BATCH_INTERVAL_MS,
		batches: BATCHES,
		earlyArrivals: early.reduce((sum, count) => sum + count, 0),
	};
}, 60_000);

it('On Error: Stop: once an item fails, the batches still waiting send nothing', async () => {
	// The first batch's one item fails its check (no request); the others wait for their batches.
	// Its failure involves no I/O: it is settled before the test sees the others waiting.
	const phones = ['not a phone', '573100000002', '573100000003'];
	const { clock, restore } = nodeOnFakeClock();
	const before = suite.sandbox.requests.length;
	try {
		const running = suite.run(
			{
				resource: 'messaging',
				operation: 'sendSms',
				to: '={{ $json.phone }}',
				instance: 'line-1',
				message: 'Hi',
				requestOptions: { batching: { batch: { batchSize: 1, batchInterval: 1000 } } },
			},
			{ items: phones.map((phone) => ({ phone })) },
		);
		await until(() => clock.pending === 2, 'the later batches waiting');
		clock.advance(2000);
		const run = await running;
		expect(run.error?.message).toMatch(/not a phone/);
		expect(suite.sandbox.requests.length).toBe(before);
	} finally {
		restore();
	}
});
