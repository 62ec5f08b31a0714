/**
 * A bulk send that stops part-way (On Error: Stop), then n8n's Retry of the failed execution
 * (ExecutionService.retry, mode `retry`: a new execution on the stored copy, with the original or
 * the saved workflow), in n8n's engine against the sandbox. The stop's error says what became of
 * every item, in counts that match what the service recorded; the retry sends only what the
 * service did not get, gives the items it had accepted their first answers marked `alreadySent`,
 * and never sends again an item the service may have carried out.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox/server';
import { FakeClock, startSandbox } from '../../sandbox/server';
import type { RunResult } from '../helpers/engine';
import { processedData, runNode } from '../helpers/engine';
import { nodeOnFakeClock, whileMoving } from '../helpers/nodeClock';

const phoneOf = (run: string, index: number) => `573${run}${String(index).padStart(7, '0')}`;
const contactsFor = (run: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({
		phone: phoneOf(run, index),
		text: `stop ${run} #${index}`,
	}));

const SMS = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '={{ $json.phone }}',
	instance: 'line-1',
	message: '={{ $json.text }}',
};

let sandbox: Sandbox;
const clock = new FakeClock();
let restoreClock: () => void;
beforeAll(async () => {
	({ restore: restoreClock } = nodeOnFakeClock(clock));
	sandbox = await startSandbox({ port: 0, recordRequests: false, clock });
});
afterAll(async () => {
	restoreClock();
	await sandbox.close();
});
afterEach(() => sandbox.clearFaults());

const moving = async <T>(work: Promise<T>) => await whileMoving(clock, work);

/** How many times the service recorded each phone of the run, in item order. */
function deliveries(run: string, count: number): number[] {
	const counts = new Map<string, number>();
	for (const message of sandbox.state.sentMessages.values())
		counts.set(message.to, (counts.get(message.to) ?? 0) + 1);
	return Array.from({ length: count }, (_, index) => counts.get(phoneOf(run, index)) ?? 0);
}

/** The message ids the service gave each phone of the run. */
function messageIds(run: string): Map<string, string> {
	const ids = new Map<string, string>();
	for (const message of sandbox.state.sentMessages.values())
		if (message.to.startsWith(`573${run}`)) ids.set(message.to, message.id);
	return ids;
}

const send = async (
	run: string,
	count: number,
	options: { continueOnFail?: boolean; sendOptions?: INodeParameters } = {},
) =>
	await moving(
		runNode({
			parameters: { ...SMS, messagingSendOptions: options.sendOptions ?? {} },
			items: contactsFor(run, count),
			credentials: { baseUrl: sandbox.url, apiToken: sandbox.token },
			continueOnFail: options.continueOnFail,
		}),
	);

const executionIdOf = (result: RunResult) => result.executionId;

/** The stop's counts, read from its error's words. */
function countsIn(description: string | null | undefined) {
	const match =
		/^Item ([\d,]+) stopped the send \(n8n counts items from 0: the [\d,]+(?:st|nd|rd|th) item\): ([\d,]+) of ([\d,]+) items? (?:was|were) sent(?:(?:,| and) (this one|[\d,]+) may have been carried out(?: \(this one included\))?)?(?: and (this one|[\d,]+) (?:was|were) not sent)?/.exec(
			description ?? '',
		);
	if (!match) throw new Error(`no counts in: ${description}`);
	const number = (text?: string) =>
		text === 'this one' ? 1 : Number((text ?? '0').replace(/,/g, ''));
	return {
		item: number(match[1]),
		sent: number(match[2]),
		total: number(match[3]),
		unsure: number(match[4]),
		notSent: number(match[5]),
	};
}

/** Refuses one phone's SMS once, as the service refuses a number it does not take. */
function refuseOnce(phone: string): void {
	sandbox.injectFault({
		kind: 'errTrue',
		message: 'body.to is not a number this line can reach',
		times: 1,
		match: { path: '/v1/sms', body: { to: phone } },
	});
}

describe('a 300-item Send SMS whose service refuses item 6, then Retry', () => {
	it.each([
		['Retry with original workflow', '41', undefined],
		['Retry with currently saved workflow', '42', { notes: 'saved again' }],
	])(
		'%s: the error counts what the service got; the retry reaches every phone once, 300 items out, the first ones with their first message ids',
		async (_name, run, saved) => {
			refuseOnce(phoneOf(run, 5));
			const failed = await send(run, 300);

			expect(failed.error?.message).toBe(
				'The service answered 400: body.to is not a number this line can reach',
			);
			const counts = countsIn(failed.error?.description);
			const delivered = deliveries(run, 300);
			const accepted = delivered.filter((times) => times === 1).length;
			expect(counts).toEqual({
				item: 5,
				sent: accepted,
				total: 300,
				unsure: 0,
				notSent: 300 - accepted,
			});
			expect(accepted).toBeGreaterThan(0);
			expect(accepted).toBeLessThan(300);
			expect(failed.error?.description).toContain(
				`Retry (Executions list) sends only the ${300 - accepted} not sent. If the service refused this item for its value, first set Settings > On Error to Continue and use Retry with currently saved workflow.`,
			);
			// The item's own advice follows.
			expect(failed.error?.description).toMatch(
				/The service refused the request for what it contains/,
			);
			const firstIds = messageIds(run);

			const retried = await moving(failed.retry(saved));

			expect(retried.error).toBeUndefined();
			expect(deliveries(run, 300)).toEqual(Array.from({ length: 300 }, () => 1));
			expect(retried.items).toHaveLength(300);
			const byPhone = new Map(retried.items.map((item) => [item.json.to as string, item]));
			const firstExecution = executionIdOf(failed);
			for (const [phone, id] of firstIds) {
				const item = byPhone.get(phone) as INodeExecutionData;
				expect(item.json.id).toBe(id);
				expect(item.json.alreadySent).toEqual({
					executionId: firstExecution,
					sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
				});
			}
			const sentNow = retried.items.filter((item) => item.json.alreadySent === undefined);
			expect(sentNow).toHaveLength(300 - accepted);
			// Each output item pairs with its input item.
			retried.items.forEach((item) =>
				expect(item.json.to).toBe(phoneOf(run, (item.pairedItem as { item: number }).item)),
			);
			const hints = (
				retried.run.data.resultData.runData['Conversational Messaging']?.[0] as {
					hints?: Array<{ message: string }>;
				}
			).hints;
			expect(hints?.map((hint) => hint.message).join(' ')).toContain(
				`${accepted} items by execution ${firstExecution}`,
			);
		},
	);

	it('a retry that stops again keeps what both runs sent: the retry of the retry reaches every phone once', async () => {
		refuseOnce(phoneOf('43', 5));
		const first = await send('43', 300);
		expect(first.error).toBeDefined();
		// The retry meets another refusal, further on.
		refuseOnce(phoneOf('43', 250));
		const second = await moving(first.retry());
		const counts = countsIn(second.error?.description);
		const delivered = deliveries('43', 300);
		expect(counts.item).toBe(250);
		expect(counts.sent).toBe(delivered.filter((times) => times === 1).length);
		expect(delivered.every((times) => times <= 1)).toBe(true);

		const third = await moving(second.retry());
		expect(third.error).toBeUndefined();
		expect(deliveries('43', 300)).toEqual(Array.from({ length: 300 }, () => 1));
		expect(third.items).toHaveLength(300);
		const by = new Set(
			third.items.map((item) => (item.json.alreadySent as IDataObject | undefined)?.executionId),
		);
		// Items from the first execution and from the second, and those sent now.
		expect(by).toEqual(new Set([executionIdOf(first), executionIdOf(second), undefined]));
	});
});

describe('two Retries of the same failed execution', () => {
	it('the second, whose copy does not know what the first sent, sends nothing and says to retry the newest; that one finishes, every phone once', async () => {
		refuseOnce(phoneOf('45', 5));
		const first = await send('45', 300);
		refuseOnce(phoneOf('45', 250));
		const second = await moving(first.retry());
		expect(second.error).toBeDefined();
		const before = deliveries('45', 300);

		const again = await moving(first.retry());
		expect(again.error?.message).toBe(
			`Execution ${first.executionId} was retried already: this retry sent nothing`,
		);
		expect(again.error?.description).toContain(
			`Retry that one instead (in the Executions list, the newest retry of ${first.executionId} that did not fail with this message)`,
		);
		expect(deliveries('45', 300)).toEqual(before);

		const newest = await moving(second.retry());
		expect(newest.error).toBeUndefined();
		expect(deliveries('45', 300)).toEqual(Array.from({ length: 300 }, () => 1));
	});

	it('with On Error: Continue, the second Retry gives every item as an error item, sending nothing (n8n would pass the input on as if sent)', async () => {
		refuseOnce(phoneOf('47', 5));
		const first = await send('47', 50);
		// Its first Retry is refused the same item again.
		refuseOnce(phoneOf('47', 5));
		expect((await moving(first.retry())).error).toBeDefined();
		const before = deliveries('47', 50);
		const again = await moving(first.retry({ onError: 'continueRegularOutput' }));
		expect(again.error).toBeUndefined();
		expect(again.items).toHaveLength(50);
		again.items.forEach((item, index) => {
			// The error item says what to do, in its message too (n8n shows it alone).
			expect(item.error?.message).toMatch(
				/was retried already: this retry sent nothing\. Another Retry of it/,
			);
			expect(item.pairedItem).toEqual({ item: index });
		});
		expect(deliveries('47', 50)).toEqual(before);
	});

	it("when n8n's processed-data store fails, the Retry sends nothing and says to retry again", async () => {
		refuseOnce(phoneOf('48', 5));
		const first = await send('48', 50);
		const before = deliveries('48', 50);
		processedData.failNext = new Error('SQLITE_BUSY: database is locked');
		const blocked = await moving(first.retry());
		expect(blocked.error?.message).toBe(
			"Could not note this Retry in n8n's processed-data store: nothing was sent",
		);
		expect(blocked.error?.description).toBe(
			"SQLITE_BUSY: database is locked. Retry again once n8n's database answers.",
		);
		expect(deliveries('48', 50)).toEqual(before);
		// Nothing was noted: the next Retry goes through.
		expect((await moving(first.retry())).error).toBeUndefined();
		expect(deliveries('48', 50)).toEqual(Array.from({ length: 50 }, () => 1));
	});

	it('Retry On Fail inside a Retry is not taken for a second Retry', async () => {
		refuseOnce(phoneOf('46', 5));
		const first = await send('46', 100);
		// The retry's first try meets a 500 on another item; its second try goes through.
		sandbox.injectFault({
			kind: 'status',
			status: 500,
			times: 1,
			match: { path: '/v1/sms', body: { to: phoneOf('46', 80) } },
		});
		const retried = await moving(
			first.retry({ retryOnFail: true, maxTries: 2, waitBetweenTries: 10 }),
		);
		expect(retried.error).toBeUndefined();
		expect(deliveries('46', 100)).toEqual(Array.from({ length: 100 }, () => 1));
	});
});

describe('a stop that comes before the items an earlier try sent', () => {
	it('Retry On Fail whose second try stops at once on a remembered item keeps every item the first try sent: counts and the record hold them, and Retry sends none twice', async () => {
		// Item 6 is held 20 s (on the test's clock) and then cut after the service carried it out:
		// meanwhile the first try sends all the others. The second try stops at item 6, long before
		// the items beyond its window of items at work.
		const held = { path: '/v1/sms', body: { to: phoneOf('44', 5) } };
		sandbox.injectFault({ kind: 'latency', ms: 20_000, times: 1, match: held });
		sandbox.injectFault({ kind: 'cutAfterCommit', times: 1, match: held });
		const failed = await moving(
			runNode({
				parameters: { ...SMS, messagingSendOptions: { maxInFlight: 20 } },
				items: contactsFor('44', 1000),
				credentials: { baseUrl: sandbox.url, apiToken: sandbox.token },
				retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
			}),
		);
		const delivered = deliveries('44', 1000);
		expect(delivered.every((times) => times === 1)).toBe(true);
		expect(countsIn(failed.error?.description)).toEqual({
			item: 5,
			sent: 999,
			total: 1000,
			unsure: 1,
			notSent: 0,
		});
		const retried = await moving(failed.retry({ onError: 'continueRegularOutput' }));
		expect(deliveries('44', 1000)).toEqual(delivered);
		expect(retried.items).toHaveLength(1000);
		expect(retried.items.filter((item) => item.error).map((item) => item.pairedItem)).toEqual([
			{ item: 5 },
		]);
	});
});

describe('what the retry never sends again', () => {
	it('an item the service may have carried out (its connection cut after it did) is named again, never sent; every other item goes out', async () => {
		sandbox.injectFault({
			kind: 'cutAfterCommit',
			times: 1,
			match: { path: '/v1/sms', body: { to: phoneOf('51', 3) } },
		});
		// Two in flight at a time: the stop leaves items not sent.
		const failed = await send('51', 40, { sendOptions: { maxInFlight: 2 } });
		const counts = countsIn(failed.error?.description);
		expect(counts.item).toBe(3);
		expect(counts.unsure).toBe(1);
		expect(counts.notSent).toBeGreaterThan(0);
		expect(failed.error?.description).toContain(
			'never the one that may have been carried out: check it in the dashboard. With On Error at Stop, the Retry then stops on it again',
		);
		expect(deliveries('51', 40)[3]).toBe(1);

		const retried = await moving(failed.retry());
		// Every other item was sent; the one that may have been carried out stops the retry, named.
		expect(deliveries('51', 40)).toEqual(Array.from({ length: 40 }, () => 1));
		expect(retried.error?.message).toBe(
			`Execution ${executionIdOf(failed)} may have carried this item out already: it is not sent again`,
		);
		expect(countsIn(retried.error?.description)).toEqual({
			item: 3,
			sent: 39,
			total: 40,
			unsure: 1,
			notSent: 0,
		});

		// With On Error: Continue in the saved workflow, the retry goes through: one error item.
		const continued = await moving(retried.retry({ onError: 'continueRegularOutput' }));
		expect(continued.error).toBeUndefined();
		expect(continued.items).toHaveLength(40);
		// The error item's message carries its fix: n8n shows an error item as its message alone.
		expect(continued.items[3].error?.message).toBe(
			`Execution ${executionIdOf(failed)} may have carried this item out already: it is not sent again. ${continued.items[3].error?.description}`,
		);
		// Named again with the words of its first failure, not of the retry that named it.
		expect(continued.items[3].error?.description).toMatch(
			/^There: The connection to the service at .* was cut before its answer arrived\. Check in the dashboard/,
		);
		expect(deliveries('51', 40)).toEqual(Array.from({ length: 40 }, () => 1));
	});

	it('an outage longer than Max Wait part-way: the items not sent fail saying so; after the outage, Retry reaches every phone once', async () => {
		sandbox.setRateLimit({ perSecond: 100, burst: 10 });
		const outage = new Promise<void>((resolve) => {
			const timer = setInterval(() => {
				if (deliveries('61', 300).filter(Boolean).length < 100) return;
				clearInterval(timer);
				void sandbox.outage(4000).then(resolve);
			}, 2);
		});
		const failed = await send('61', 300, { sendOptions: { maxWait: 2 } });
		await moving(outage);
		sandbox.setRateLimit(null);
		const counts = countsIn(failed.error?.description);
		const delivered = deliveries('61', 300).filter((times) => times === 1).length;
		// A connection the stopping service cut after the request was written may or may not have been carried out.
		expect(counts.sent).toBeLessThanOrEqual(delivered);
		expect(delivered).toBeLessThanOrEqual(counts.sent + counts.unsure);
		expect(counts.notSent).toBeGreaterThan(0);

		const retried = await moving(failed.retry({ onError: 'continueRegularOutput' }));
		// Those are error items, named and not sent; every other phone gets its message once.
		const named = new Set(
			retried.items
				.filter((item) => item.error)
				.map((item) => (item.pairedItem as { item: number }).item),
		);
		retried.items
			.filter((item) => item.error)
			.forEach((item) => expect(item.error?.message).toMatch(/may have carried this item out/));
		expect(named.size).toBe(counts.unsure);
		deliveries('61', 300).forEach((times, index) =>
			named.has(index) ? expect(times).toBeLessThanOrEqual(1) : expect(times).toBe(1),
		);
		expect(retried.items).toHaveLength(300);
	});
});
