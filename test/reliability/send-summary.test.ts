/**
 * The hint a bulk send leaves above its output (sendLoop/sendSummary.ts), in n8n's engine against
 * the sandbox: what n8n stores in the run's task data (`hints`), which the editor shows in the
 * output panel. Its figures are checked against what the sandbox counted; no hint when nothing
 * happened. The node and the sandbox share a clock that stands still until a test moves it: the
 * service's allowance is not refilled, nor an outage over, however slowly the machine sends.
 */
import type { INodeExecutionData, INodeParameters, NodeExecutionHint } from 'n8n-workflow';

import { FakeClock } from '../../sandbox/clock';
import { SendSummary } from '../../nodes/ConversationalMessaging/sendLoop/sendSummary';
import type { RunResult } from '../helpers/engine';
import { nodeOnFakeClock, whileMoving } from '../helpers/nodeClock';
import { useSandbox } from '../helpers/sandbox';
import { until } from '../helpers/until';

const clock = new FakeClock();
const suite = useSandbox({ clock });
let restoreClock: () => void;
beforeAll(() => ({ restore: restoreClock } = nodeOnFakeClock(clock)));
afterAll(() => restoreClock());
afterEach(() => {
	suite.sandbox.setRateLimit(null);
	suite.sandbox.clearFaults();
});

const NODE_NAME = 'Conversational Messaging';

function sms(sendOptions: INodeParameters = {}): INodeParameters {
	return {
		resource: 'messaging',
		operation: 'sendSms',
		to: '={{ $json.phone }}',
		instance: 'line-1',
		message: '={{ $json.text }}',
		messagingSendOptions: sendOptions,
	};
}

const phoneOf = (run: string, index: number) => `573${run}${String(index).padStart(7, '0')}`;
const itemsFor = (run: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({
		phone: phoneOf(run, index),
		text: `summary ${run} #${index}`,
	}));

/** The hints n8n stored for the node's run. */
/** The send summary's hints (the countries reached have their own: phonePlans.test.ts). */
const hintsOf = (result: RunResult): NodeExecutionHint[] =>
	(result.run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? []).filter(
		(hint) => !hint.message.startsWith('Phone numbers:'),
	);

/** The one hint of the run: in the output panel. */
function onlyHint(result: RunResult): NodeExecutionHint {
	const hints = hintsOf(result);
	expect(hints).toHaveLength(1);
	expect(hints[0].location).toBe('outputPane');
	return hints[0];
}

/** How many times the service recorded each phone of the run. */
function deliveries(run: string): number[] {
	const counts = new Map<string, number>();
	for (const message of suite.sandbox.state.sentMessages.values()) {
		if (message.to.startsWith(`573${run}`))
			counts.set(message.to, (counts.get(message.to) ?? 0) + 1);
	}
	return [...counts.values()];
}

/** A count as the hint writes it: once, twice, 3 times, 1,204 times. */
const timesToNumber = (text: string) =>
	text === 'once' ? 1 : text === 'twice' ? 2 : Number(text.replace(/,| times$/g, ''));

const errorsOf = (items: INodeExecutionData[]) => items.filter((item) => item.error !== undefined);

describe('the hint after a bulk send', () => {
	it('rate-limited: counts the refusals the service sent (429), the items each delivered once', async () => {
		suite.sandbox.setRateLimit({ perSecond: 50, burst: 5 });
		const before = suite.sandbox.stats();
		const running = suite.run(sms(), { items: itemsFor('01', 100) });
		// The clock stands still: the first requests beyond the 5 the bucket holds are refused.
		await until(() => suite.sandbox.stats().rateLimited > before.rateLimited, 'a refusal');
		const run = await whileMoving(clock, running);
		const after = suite.sandbox.stats();
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(100);
		expect(deliveries('01')).toEqual(Array.from({ length: 100 }, () => 1));

		const refused = after.rateLimited - before.rateLimited;
		expect(refused).toBeGreaterThan(0);
		expect(after.total - before.total).toBe(100 + refused);
		const hint = onlyHint(run);
		expect(hint.type).toBe('info');
		const match =
			/^The service pushed back (once|twice|[\d,]+ times) \(rate limit\); the node waited up to \d+\.\d s and sent (?:that request|those ([\d,]+) requests) again\. No item failed\.$/.exec(
				hint.message,
			);
		expect(match).not.toBeNull();
		expect(timesToNumber(match![1])).toBe(refused);
		if (refused > 1) expect(Number(match![2].replace(/,/g, ''))).toBe(refused);
	});

	it('rate-limited and overloaded (503 with Retry-After): each kind counted as the sandbox counted it', async () => {
		// Answers held 100 ms of the clock, which stands still: the node's first requests at once find room for 3.
		suite.sandbox.setRateLimit({ perSecond: 20, burst: 5, maxConcurrent: 3 });
		suite.sandbox.injectFault({ kind: 'latency', ms: 100 });
		const before = suite.sandbox.stats();
		const running = suite.run(sms(), { items: itemsFor('02', 30) });
		await until(() => suite.sandbox.stats().overloaded > before.overloaded, 'a 503');
		const run = await whileMoving(clock, running);
		const after = suite.sandbox.stats();
		expect(run.error).toBeUndefined();
		expect(deliveries('02')).toEqual(Array.from({ length: 30 }, () => 1));
		const rateLimited = after.rateLimited - before.rateLimited;
		const overloaded = after.overloaded - before.overloaded;
		expect(overloaded).toBeGreaterThan(0);
		const total = rateLimited + overloaded;
		const why = rateLimited
			? `${rateLimited} rate limit, ${overloaded} overloaded`
			: 'service overloaded';
		expect(onlyHint(run).message).toMatch(
			new RegExp(
				`^The service pushed back ${total === 1 ? 'once' : total === 2 ? 'twice' : `${total.toLocaleString('en-US')} times`} \\(${why}\\); the node waited up to \\d+\\.\\d s and sent (that request|those [\\d,]+ requests) again\\. No item failed\\.$`,
			),
		);
	});

	it('unlimited: no hint', async () => {
		const before = suite.sandbox.stats().total;
		const run = await suite.run(sms(), { items: itemsFor('03', 50) });
		expect(run.error).toBeUndefined();
		expect(suite.sandbox.stats().total - before).toBe(50);
		expect(hintsOf(run)).toEqual([]);
	});

	it('continue-on-fail with bad phones: the failed items counted, as a warning', async () => {
		const items = itemsFor('04', 10);
		items[3].phone = 'not a phone';
		items[7].phone = '12';
		const run = await suite.run(sms(), { items, continueOnFail: true });
		expect(errorsOf(run.items)).toHaveLength(2);
		const hint = onlyHint(run);
		expect(hint.type).toBe('warning');
		expect(hint.message).toBe(
			'2 of 10 items were not sent: items 3 and 7 (n8n counts items from 0). See their error items.',
		);
	});

	it('continue-on-fail with a service fault (HTTP 500) on 3 requests: 3 failed; a refusal given up on (Max Wait 0) is said not sent again', async () => {
		suite.sandbox.injectFault({
			kind: 'status',
			status: 500,
			times: 3,
			match: { path: '/v1/sms' },
		});
		const faulted = await suite.run(sms(), { items: itemsFor('05', 10), continueOnFail: true });
		expect(errorsOf(faulted.items)).toHaveLength(3);
		expect(onlyHint(faulted)).toEqual({
			message: expect.stringMatching(
				/^3 of 10 items were not sent: items \d+, \d+ and \d+ \(n8n counts items from 0\)\. See their error items\.$/,
			),
			type: 'warning',
			location: 'outputPane',
		});

		// The clock stands still: the bucket lets 1 through, and the other 2 are refused.
		suite.sandbox.setRateLimit({ perSecond: 1, burst: 1 });
		const before = suite.sandbox.stats().rateLimited;
		const refused = await suite.run(sms({ maxWait: 0 }), {
			items: itemsFor('06', 3),
			continueOnFail: true,
		});
		expect(suite.sandbox.stats().rateLimited - before).toBe(2);
		expect(errorsOf(refused.items)).toHaveLength(2);
		expect(onlyHint(refused).message).toMatch(
			/^The service pushed back twice \(rate limit\); those requests were not sent again\. 2 of 3 items were not sent: items \d and \d \(n8n counts items from 0\)\. See their error items\.$/,
		);
	});

	it('Retry On Fail after a fault on one item of 20: the item sent again and those the service had accepted skipped', async () => {
		suite.sandbox.injectFault({
			kind: 'status',
			status: 500,
			times: 1,
			match: { path: '/v1/sms' },
		});
		const run = await suite.run(sms(), {
			items: itemsFor('07', 20),
			retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
		});
		expect(run.error).toBeUndefined();
		expect(deliveries('07')).toEqual(Array.from({ length: 20 }, () => 1));
		expect(onlyHint(run)).toEqual({
			message:
				'Retry On Fail ran the node again: it skipped the 19 items the service had already accepted. No item failed.',
			type: 'info',
			location: 'outputPane',
		});
		// The countries hint of this try counts what it sent, and says so.
		const countries = (run.run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? []).filter(
			(hint) => hint.message.startsWith('Phone numbers:'),
		);
		expect(countries.map((hint) => hint.message)).toEqual([
			'Phone numbers: 1 to Colombia (+57), counting only what this run sent (the 19 items sent before it are not counted).',
		]);
	});

	it('an outage: the time the service could not be reached, and the request sent once it answered', async () => {
		// Over when the clock, moved while the node waits, has passed 1.2 s.
		const outage = suite.sandbox.outage(1200);
		const run = await whileMoving(clock, suite.run(sms(), { items: itemsFor('08', 1) }));
		await outage;
		expect(run.error).toBeUndefined();
		expect(deliveries('08')).toEqual([1]);
		expect(onlyHint(run).message).toMatch(
			/^The service could not be reached for \d+\.\d s: the node paused sending, then sent the request that had not reached it\. No item failed\.$/,
		);
	});
});

describe('the wording', () => {
	it('nothing happened: no hint', () => {
		const summary = new SendSummary(3);
		for (const item of [0, 1, 2]) {
			summary.sending(item, clock.now());
			summary.reached(item);
		}
		expect(summary.hint(0)).toBeUndefined();
	});

	it('one refusal, sent again: singular', () => {
		const summary = new SendSummary(1);
		summary.sending(0, clock.now());
		summary.refused(0, false);
		summary.sending(0, clock.now() + 2500);
		expect(summary.hint(0)?.message).toMatch(
			/^The service pushed back once \(rate limit\); the node waited up to 2\.\d s and sent that request again\. No item failed\.$/,
		);
	});

	it('both kinds, one refused request given up, one failed item of 1,500', () => {
		const summary = new SendSummary(1500);
		[0, 1, 2, 3].forEach((item) => summary.refused(item, item === 3));
		[0, 1, 2].forEach((item) => summary.sending(item, clock.now() + 1000));
		summary.failedItem(3);
		expect(summary.hint(0)).toEqual({
			message: expect.stringMatching(
				/^The service pushed back 4 times \(3 rate limit, 1 overloaded\); the node waited up to 1\.\d s and sent 3 of those requests again\. 1 of 1,500 items was not sent: item 3 \(n8n counts items from 0\)\. See its error item\.$/,
			),
			type: 'warning',
			location: 'outputPane',
		});
	});

	it('an outage, 40 requests that had not reached the service sent again', () => {
		const summary = new SendSummary(40);
		for (let item = 0; item < 40; item++) {
			summary.sending(item, clock.now());
			summary.unreached(item);
			summary.sending(item, clock.now());
			summary.reached(item);
		}
		expect(summary.hint(22_500)?.message).toBe(
			'The service could not be reached for 22.5 s: the node paused sending, then sent the 40 requests that had not reached it. No item failed.',
		);
	});

	it('names up to five failed items, counted from 0 as n8n does, and counts the rest', () => {
		const summary = new SendSummary(100);
		[40, 2, 9, 0, 77, 13, 5].forEach((item) => summary.failedItem(item));
		expect(summary.hint(0)?.message).toBe(
			'7 of 100 items were not sent: items 0, 2, 5, 9, 13 and 2 more (n8n counts items from 0). See their error items.',
		);
	});
});
