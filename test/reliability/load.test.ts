/**
 * Load: a few thousand items of Send SMS through one node execution (the send loop) against the
 * sandbox. No item may be lost or duplicated. 3,000 in `npm test`, the fast tier; the ten
 * thousands are the queue suite's (`npm run test:queue`: 10,000 messages through real n8n's
 * workers, each once) and `npm run bench`'s; `CM_LOAD_ITEMS=10000` runs this one at that size.
 * The memory printed is the Jest process's (its worker threads share it): the node, n8n's
 * engine, and the sandbox serving the requests, beside the suites the other worker runs. It is not asserted (it depends on
 * the machine and on what ran before), and it is not the README's figure: that one is the node
 * alone, measured by `npm run bench` in a fresh process with the sandbox in another, minus the
 * same process's peak with 0 items (docs/PERFORMANCE.md).
 */
import { useSandbox } from '../helpers/sandbox';
import { collectResults, megabytes } from './results';

const ITEMS = Number(process.env.CM_LOAD_ITEMS) || 3_000;
const RSS_SAMPLE_MS = 20;

// The requests themselves are not kept; the sandbox still counts them.
const suite = useSandbox({ recordRequests: false });
const { results, save } = collectResults('load');
afterAll(save);

it(`sends ${ITEMS} SMS items in one execution: one output per item, each message sent exactly once`, async () => {
	const items = Array.from({ length: ITEMS }, (_, index) => ({
		phone: `57300${String(index).padStart(7, '0')}`,
		text: `Load #${index}`,
	}));
	const parameters = {
		resource: 'messaging',
		operation: 'sendSms',
		to: '={{ $json.phone }}',
		instance: 'line-1',
		message: '={{ $json.text }}',
	};
	const sentBefore = new Set(suite.sandbox.state.sentMessages.keys());
	const requestsBefore = suite.sandbox.stats().total;

	const rssBefore = process.memoryUsage.rss();
	let rssPeak = rssBefore;
	const sampler = setInterval(
		() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())),
		RSS_SAMPLE_MS,
	);
	const startedAt = Date.now();
	const cpuBefore = process.cpuUsage();
	const run = await suite.run(parameters, { items, continueOnFail: true });
	const cpu = process.cpuUsage(cpuBefore);
	const durationMs = Date.now() - startedAt;
	clearInterval(sampler);
	rssPeak = Math.max(rssPeak, process.memoryUsage.rss());

	expect(run.error).toBeUndefined();
	expect(run.items).toHaveLength(ITEMS);
	const strays = run.items.filter(
		(item, index) =>
			(item.pairedItem as { item: number }).item !== index ||
			item.json.to !== items[index].phone ||
			item.json.error,
	);
	expect(strays).toEqual([]);

	const sent = [...suite.sandbox.state.sentMessages.values()].filter(
		(message) => !sentBefore.has(message.id),
	);
	const timesSent = new Map<string, number>();
	for (const message of sent)
		timesSent.set(
			`${message.to} ${message.body}`,
			(timesSent.get(`${message.to} ${message.body}`) ?? 0) + 1,
		);
	const lost = items.filter((item) => !timesSent.has(`${item.phone} ${item.text}`)).length;
	const duplicated = [...timesSent.values()].filter((count) => count > 1).length;
	expect({ sent: sent.length, distinct: timesSent.size, lost, duplicated }).toEqual({
		sent: ITEMS,
		distinct: ITEMS,
		lost: 0,
		duplicated: 0,
	});
	const stats = suite.sandbox.stats();
	expect(stats.total - requestsBefore).toBe(ITEMS);
	expect(stats.violations).toBe(0);

	results.load = {
		items: ITEMS,
		itemsOut: run.items.length,
		distinctSends: timesSent.size,
		lost,
		duplicated,
		requests: stats.total - requestsBefore,
		durationMs,
		cpuMs: Math.round((cpu.user + cpu.system) / 1000),
		rssBeforeMb: megabytes(rssBefore),
		rssPeakMb: megabytes(rssPeak),
		maxRssMb: megabytes(process.resourceUsage().maxRSS * 1024),
	};
	process.stdout.write(
		`load: ${ITEMS} items in ${(durationMs / 1000).toFixed(1)} s (${Math.round(ITEMS / (durationMs / 1000))} items/s, CPU ${(results.load.cpuMs / 1000).toFixed(1)} s), ` +
			`${run.items.length} outputs, ${timesSent.size} distinct sends, ${lost} lost, ${duplicated} duplicated; ` +
			`the Jest process's RSS (both worker threads: node, engine and sandbox together; the node alone: npm run bench) ${results.load.rssBeforeMb} MB before, ` +
			`peak ${results.load.rssPeakMb} MB (+${megabytes(rssPeak - rssBefore)} MB), worker's maxRSS ${results.load.maxRssMb} MB\n`,
	);
}, 240_000);
