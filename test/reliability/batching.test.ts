/**
 * Settings > Request Options > Batching (n8n's own options, which this node declares itself): n8n starts the items in
 * groups of Items per Batch and waits Batch Interval before starting the next group. Checked on
 * what the sandbox sees, with lower bounds only (a timer never fires much early; it can fire
 * late on a busy machine): no request of group g arrives before g intervals have passed.
 */
import type { RecordedRequest } from '../../sandbox/server';
import { useSandbox } from '../helpers/sandbox';
import { collectResults } from './results';

const ITEMS = 500;
const BATCH_SIZE = 50;
const BATCH_INTERVAL_MS = 20;
/** Node timers count whole milliseconds, so a wait can end up to 1 ms early. */
const TIMER_SLACK_MS = 1;

const suite = useSandbox();
const { results, save } = collectResults('batching');
afterAll(save);

/** Stamps each request with its arrival time as the sandbox records it. */
function stampArrivals(requests: RecordedRequest[]): {
	arrivals: Map<RecordedRequest, number>;
	stop(): void;
} {
	const arrivals = new Map<RecordedRequest, number>();
	const record = requests.push.bind(requests);
	requests.push = (...recorded: RecordedRequest[]) => {
		recorded.forEach((request) => arrivals.set(request, performance.now()));
		return record(...recorded);
	};
	// The override is an own property; deleting it brings back Array.prototype.push.
	return { arrivals, stop: () => Reflect.deleteProperty(requests, 'push') };
}

it(`spaces ${ITEMS} items in batches of ${BATCH_SIZE} every ${BATCH_INTERVAL_MS} ms, each sent once`, async () => {
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
	const stamps = stampArrivals(suite.sandbox.requests);
	const startedAt = performance.now();
	const run = await suite.run(parameters, { items, continueOnFail: true });
	const durationMs = performance.now() - startedAt;
	stamps.stop();

	expect(run.error).toBeUndefined();
	expect(
		run.items.map((item) => [(item.pairedItem as { item: number }).item, item.json.to]),
	).toEqual(items.map((item, index) => [index, item.phone]));
	expect(run.requests).toHaveLength(ITEMS);
	const indexes = run.requests.map((request) =>
		Number(/#(\d+)$/.exec(String((request.body as { body?: string }).body))?.[1]),
	);
	expect([...indexes].sort((a, b) => a - b)).toEqual(items.map((_, index) => index));

	const arrivals = run.requests.map((request, position) => ({
		batch: Math.floor(indexes[position] / BATCH_SIZE),
		at: stamps.arrivals.get(request)! - startedAt,
	}));
	const early = arrivals.filter(
		({ batch, at }) => at < batch * (BATCH_INTERVAL_MS - TIMER_SLACK_MS),
	);
	expect(early).toEqual([]);
	const batches = Math.ceil(ITEMS / BATCH_SIZE);
	const minimumDurationMs = (batches - 1) * (BATCH_INTERVAL_MS - TIMER_SLACK_MS);
	expect(durationMs).toBeGreaterThanOrEqual(minimumDurationMs);

	// Reported, not asserted: a late group can meet the next one on a busy machine.
	const times = arrivals.map(({ at }) => at).sort((a, b) => a - b);
	let maxArrivalsWithinInterval = 0;
	for (let first = 0, last = 0; last < times.length; last++) {
		while (times[last] - times[first] >= BATCH_INTERVAL_MS) first++;
		maxArrivalsWithinInterval = Math.max(maxArrivalsWithinInterval, last - first + 1);
	}
	results.batching = {
		items: ITEMS,
		batchSize: BATCH_SIZE,
		batchIntervalMs: BATCH_INTERVAL_MS,
		batches,
		durationMs: Math.round(durationMs),
		minimumDurationMs,
		earlyArrivals: early.length,
		maxArrivalsWithinInterval,
	};
	process.stdout.write(
		`batching: ${ITEMS} items, ${batches} batches of ${BATCH_SIZE} every ${BATCH_INTERVAL_MS} ms: ${Math.round(durationMs)} ms (at least ${minimumDurationMs}), ` +
			`0 requests early, at most ${maxArrivalsWithinInterval} requests within ${BATCH_INTERVAL_MS} ms\n`,
	);
}, 60_000);
