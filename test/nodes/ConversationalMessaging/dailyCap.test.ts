/**
 * Max Messages per Person per Day's count (nodes/ConversationalMessaging/recipientRules/dailyCap.ts)
 * over n8n's processed-data store as n8n's server has it (test/helpers/processedDataStore.ts: n8n-core's
 * DataDeduplicationService over an in-memory DeduplicationHelper, read-modify-write included), on
 * the node's clock driven by the test.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { FakeClock } from '../../../sandbox/clock';
import {
	lockWorkflow,
	recordInNode,
	WORKFLOW_LOCK,
} from '../../../nodes/ConversationalMessaging/n8nProcessedData';
import {
	BATCH,
	DailyCap,
	ROUND_GAP_MS,
} from '../../../nodes/ConversationalMessaging/recipientRules/dailyCap';
import { STALE_MS } from '../../../nodes/ConversationalMessaging/recipientRules/workflowLock';
import { clock } from '../../../nodes/ConversationalMessaging/clock';
import { nodeOnFakeClock, runClock } from '../../helpers/nodeClock';
import {
	ProcessedDataStore,
	processedDataFns,
	useProcessedDataStore,
} from '../../helpers/processedDataStore';

const WORKFLOW = 'wfCap';
const NODE = 'sendSms';
const DAY = '2026-11-29';
const MAX_WAIT = 300_000;

let store: ProcessedDataStore;
let fake: FakeClock;
let restoreStore: () => void;
let restoreClock: () => void;

beforeEach(async () => {
	store = new ProcessedDataStore();
	restoreStore = await useProcessedDataStore(store);
	({ clock: fake, restore: restoreClock } = nodeOnFakeClock());
});

afterEach(() => {
	restoreClock();
	restoreStore();
});

/** A worker's run of the node: its own execute context on the same workflow and node. */
const worker = () => processedDataFns(WORKFLOW, NODE);

type Settled<T> = { value: T } | { error: Error };

/** Waits for every one of `work` while the clock moves `stepMs` a turn of the event loop. */
async function settle<T>(work: Array<Promise<T>>, stepMs = 1): Promise<Array<Settled<T>>> {
	const results: Array<Settled<T> | undefined> = work.map(() => undefined);
	work.forEach((promise, index) =>
		promise.then(
			(value) => (results[index] = { value }),
			(error: Error) => (results[index] = { error }),
		),
	);
	await runClock(fake, () => results.every((result) => result !== undefined), stepMs);
	return results as Array<Settled<T>>;
}

const valueOf = <T>(settled: Settled<T>): T => {
	if ('error' in settled) throw settled.error;
	return settled.value;
};

async function claimAll(cap: DailyCap, people: string[], day = DAY) {
	return (await settle(people.map((person) => cap.claim(person, day)))).map(valueOf);
}

/** The promise, its rejection handled now (it is awaited later, once the clock has run). */
const later = <T>(promise: Promise<T>): Promise<T> => {
	promise.catch(() => {});
	return promise;
};

/** Whether a call of the store is a stale check (lockLooksOurs records WORKFLOW_LOCK + 1). */
const staleChecks = (target: ProcessedDataStore) => {
	let checks = 0;
	const check = target.checkProcessedAndRecord.bind(target);
	target.checkProcessedAndRecord = async (items, scope, contextData, options) => {
		if (scope === 'workflow' && items.length === 1 && items[0] === WORKFLOW_LOCK + 1) checks++;
		return await check(items, scope, contextData, options);
	};
	return () => checks;
};

/** A worker's run that the test cancels (n8n's execution cancel signal). */
const cancellable = () => {
	const controller = new AbortController();
	const fns = {
		...worker(),
		getExecutionCancelSignal: () => controller.signal,
	} as unknown as IExecuteFunctions;
	return { fns, cancel: () => controller.abort() };
};

const slotsOf = (answers: Array<{ slot: string } | { capped: true }>) =>
	answers.map((answer) => ('slot' in answer ? answer.slot : 'capped'));

describe('DailyCap', () => {
	it('gives each person at most N slots a day, two claims of one batch counting against each other, across runs', async () => {
		const first = new DailyCap(worker(), 2, MAX_WAIT);
		const answers = await claimAll(first, ['111', '111', '111', '222']);
		expect(slotsOf(answers)).toEqual([
			`cap 111 ${DAY} 1`,
			`cap 111 ${DAY} 2`,
			'capped',
			`cap 222 ${DAY} 1`,
		]);
		// Another day is another count.
		expect(slotsOf(await claimAll(first, ['111'], '2026-11-30'))).toEqual(['cap 111 2026-11-30 1']);
		await settle([first.flush()]);
		// The slot 222 did not take was recorded to be read, then taken out again; the lock dropped.
		expect(store.has(WORKFLOW, `n:${NODE}`, `cap 222 ${DAY} 2`)).toBe(false);
		expect(store.has(WORKFLOW, `n:${NODE}`, `cap 222 ${DAY} 1`)).toBe(true);
		expect(store.row(WORKFLOW, '')).toBeUndefined();

		// The next execution, on another worker, reads the same count.
		const second = new DailyCap(worker(), 2, MAX_WAIT);
		expect(slotsOf(await claimAll(second, ['111', '222', '222']))).toEqual([
			'capped',
			`cap 222 ${DAY} 2`,
			'capped',
		]);
		// A person known full is capped without asking the store again.
		const calls = store.calls.checkProcessedAndRecord;
		expect(slotsOf(await claimAll(second, ['222']))).toEqual(['capped']);
		expect(store.calls.checkProcessedAndRecord).toBe(calls);
	});

	it('holds N in total when two workers claim for the same people at once, through a store that loses racing writes', async () => {
		const PEOPLE = 40;
		const MAX = 2;
		// Three turns of the event loop between each call's read and its write, as a database's round trip.
		store.between = async () => {
			for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
		};
		// The store races: two records of the same entry at once (over an existing row; of two
		// inserts of a missing one, the second fails) are both new, one write lost.
		const raw = [worker(), worker()];
		await settle([raw[0].helpers.checkProcessedAndRecord(['first'], 'node', { mode: 'entries' })]);
		const both = await settle(
			raw.map(
				async (fns) =>
					await fns.helpers.checkProcessedAndRecord(['control'], 'node', { mode: 'entries' }),
			),
		);
		expect(both.map((answer) => valueOf(answer).new)).toEqual([['control'], ['control']]);
		expect(store.lostUpdates.get(`n:${NODE}`)).toBe(1);
		store.resetCounts();

		const caps = [new DailyCap(worker(), MAX, MAX_WAIT), new DailyCap(worker(), MAX, MAX_WAIT)];
		const claims: Array<Promise<{ slot: string } | { capped: true }>> = [];
		// Each worker claims MAX + 1 messages for every person, interleaved, a pair each 20 ms: each
		// worker's batches (one each ROUND_GAP_MS) alternate with the other's on the lock.
		for (let round = 0; round <= MAX; round++)
			for (let person = 0; person < PEOPLE; person++) {
				for (const cap of caps) claims.push(cap.claim(`57300${person}`, DAY));
				for (let turn = 0; turn < 4; turn++) {
					await new Promise((resolve) => setImmediate(resolve));
					fake.advance(5);
				}
			}
		const answers = (await settle(claims)).map(valueOf);
		await settle(caps.map(async (cap) => await cap.flush()));

		const slots = answers.flatMap((answer) => ('slot' in answer ? [answer.slot] : []));
		const perPerson = new Map<string, number>();
		for (const slot of slots) {
			const person = slot.split(' ')[1];
			perPerson.set(person, (perPerson.get(person) ?? 0) + 1);
		}
		// Every person got exactly N, each slot once, both workers taking some.
		expect(new Set(slots).size).toBe(slots.length);
		expect([...perPerson.values()]).toEqual(Array(PEOPLE).fill(MAX));
		expect(slots.length).toBe(PEOPLE * MAX);
		const byWorker = caps.map((_, index) =>
			answers.filter((answer, at) => at % 2 === index && 'slot' in answer),
		);
		expect(byWorker.every((taken) => taken.length > 0)).toBe(true);
		// The workers did contend: a try of the lock found it held (an update of the workflow's row)
		// or lost the race to insert it.
		const contended = (store.updates.get('') ?? 0) + (store.failedInserts.get('') ?? 0);
		expect(contended).toBeGreaterThan(0);
		// Without the lock (a store whose workflow row every caller gets at once), the same race
		// sends some people more than N.
		const unlocked = new (class extends ProcessedDataStore {
			async checkProcessedAndRecord(
				...args: Parameters<ProcessedDataStore['checkProcessedAndRecord']>
			) {
				const [items, scope] = args;
				return scope === 'workflow'
					? { new: items, processed: [] }
					: await super.checkProcessedAndRecord(...args);
			}
		})();
		unlocked.between = store.between;
		restoreStore();
		restoreStore = await useProcessedDataStore(unlocked);
		// The node's row there already (two inserts at once: the second fails).
		await settle([
			worker().helpers.checkProcessedAndRecord(['first'], 'node', { mode: 'entries' }),
		]);
		const bare = [new DailyCap(worker(), MAX, MAX_WAIT), new DailyCap(worker(), MAX, MAX_WAIT)];
		const bareClaims: Array<Promise<{ slot: string } | { capped: true }>> = [];
		for (let round = 0; round <= MAX; round++)
			for (let person = 0; person < PEOPLE; person++)
				for (const cap of bare) bareClaims.push(cap.claim(`57300${person}`, DAY));
		const bareSlots = (await settle(bareClaims)).map(valueOf).filter((answer) => 'slot' in answer);
		// Both workers recorded the same slots at once: each thinks it took them.
		expect(bareSlots.length).toBeGreaterThan(PEOPLE * MAX);
		for (let person = 0; person < PEOPLE; person++)
			for (let k = 1; k <= MAX + 1; k++)
				expect(store.has(WORKFLOW, `n:${NODE}`, `cap 57300${person} ${DAY} ${k}`)).toBe(k <= MAX);
	});

	it('frees a released slot: for a claim of the same run at once, for the next run after flush', async () => {
		const cap = new DailyCap(worker(), 1, MAX_WAIT);
		const [taken] = slotsOf(await claimAll(cap, ['333']));
		expect(taken).toBe(`cap 333 ${DAY} 1`);
		cap.release(taken);
		const records = store.calls.checkProcessedAndRecord;
		// Taken over as it is, recorded already.
		expect(slotsOf(await claimAll(cap, ['333', '333']))).toEqual([taken, 'capped']);
		expect(store.calls.checkProcessedAndRecord).toBe(records);
		cap.release(taken);
		await settle([cap.flush()]);
		expect(store.has(WORKFLOW, `n:${NODE}`, taken)).toBe(false);
		expect(store.row(WORKFLOW, '')).toBeUndefined();
		const next = new DailyCap(worker(), 1, MAX_WAIT);
		expect(slotsOf(await claimAll(next, ['333']))).toEqual([taken]);
	});

	it("names a workflow row of another node's mode, never clears it, and sends nothing", async () => {
		// A Remove Duplicates node with Scope: Workflow (Keep Items Where: Value Is New).
		const other = processedDataFns(WORKFLOW, 'removeDuplicates');
		await settle([other.helpers.checkProcessedAndRecord(['x'], 'workflow', { mode: 'entries' })]);
		const cap = new DailyCap(worker(), 1, MAX_WAIT);
		const [answer] = await settle([cap.claim('444', DAY)]);
		expect('error' in answer && answer.error.message).toBe(
			"Max Messages per Person per Day: another node of this workflow keeps its data in n8n's processed-data store with Scope Workflow: nothing was sent",
		);
		expect('error' in answer && (answer.error as { description?: string }).description).toMatch(
			/incompatible setting of the ‘Keep Items Where’ parameter.*Set that node's Scope to Node/,
		);
		// Every later claim fails alike, without a call.
		const calls = store.calls.checkProcessedAndRecord;
		const [later] = await settle([cap.claim('555', DAY)]);
		expect('error' in later && later.error.message).toMatch(/Scope Workflow: nothing was sent/);
		expect(store.calls.checkProcessedAndRecord).toBe(calls);
		expect(store.row(WORKFLOW, '')).toEqual({ mode: 'entries', data: [expect.any(String)] });
		expect(store.row(WORKFLOW, `n:${NODE}`)).toBeUndefined();
	});

	it("names a workflow row of another node's incremental keys after two stale checks, never clearing it", async () => {
		// A Remove Duplicates node with Scope: Workflow, Value Is Higher than Any Previous Value.
		const other = processedDataFns(WORKFLOW, 'removeDuplicates');
		const latest = { mode: 'latestIncrementalKey' } as const;
		await settle([other.helpers.checkProcessedAndRecord([42], 'workflow', latest)]);
		const cap = new DailyCap(worker(), 1, MAX_WAIT);
		const started = fake.now();
		const [answer] = await settle([cap.claim('444', DAY)], 20);
		expect('error' in answer && answer.error.message).toMatch(
			/another node of this workflow keeps its data .* with Scope Workflow: nothing was sent/,
		);
		expect(fake.now() - started).toBeGreaterThanOrEqual(2 * STALE_MS);
		expect(store.row(WORKFLOW, '')).toEqual({ mode: 'latestIncrementalKey', data: 42 });
	});

	it('takes over a lock left by a crashed worker after STALE_MS of waiting on it, not before', async () => {
		// A worker that took the lock and died.
		const [taken] = await settle([lockWorkflow(worker())]);
		expect(valueOf(taken)).toBe(true);
		expect(store.row(WORKFLOW, '')).toEqual({ mode: 'latestIncrementalKey', data: WORKFLOW_LOCK });
		const cap = new DailyCap(worker(), 1, MAX_WAIT);
		const started = fake.now();
		const answers = (await settle([cap.claim('666', DAY)], 10)).map(valueOf);
		const waited = fake.now() - started;
		expect(slotsOf(answers)).toEqual([`cap 666 ${DAY} 1`]);
		expect(waited).toBeGreaterThanOrEqual(STALE_MS);
		expect(waited).toBeLessThan(STALE_MS + 5_000 + 1_000);
		await settle([cap.flush()]);
		expect(store.row(WORKFLOW, '')).toBeUndefined();
	});

	it('with a Max Wait under the stale rule (0 included), still takes over a lock left by a crashed worker', async () => {
		await settle([lockWorkflow(worker())]);
		const cap = new DailyCap(worker(), 1, 0);
		const started = fake.now();
		const answers = (await settle([cap.claim('666', DAY)], 10)).map(valueOf);
		expect(slotsOf(answers)).toEqual([`cap 666 ${DAY} 1`]);
		const waited = fake.now() - started;
		expect(waited).toBeGreaterThanOrEqual(STALE_MS);
		expect(waited).toBeLessThan(STALE_MS + 5_000 + 1_000);
		await settle([cap.flush()]);
		expect(store.row(WORKFLOW, '')).toBeUndefined();
	});

	it('gives up after Max Wait (never less than the stale rule needs) on a lock others keep taking, saying nothing was sent, and records nothing', async () => {
		// Each time the lock is cleared, another execution takes it at once.
		const retaken = new (class extends ProcessedDataStore {
			async clearAllProcessedItems(
				...args: Parameters<ProcessedDataStore['clearAllProcessedItems']>
			) {
				await super.clearAllProcessedItems(...args);
				if (args[0] === 'workflow') await lockWorkflow(worker());
			}
		})();
		restoreStore();
		restoreStore = await useProcessedDataStore(retaken);
		await settle([lockWorkflow(worker())]);
		const checks = staleChecks(retaken);
		const cap = new DailyCap(worker(), 1, 10_000);
		const started = fake.now();
		const [answer] = await settle([cap.claim('777', DAY)], 10);
		const waited = fake.now() - started;
		const message = 'error' in answer ? answer.error.message : '';
		const description =
			'error' in answer ? (answer.error as { description?: string }).description : '';
		const seconds = (text = '', pattern: RegExp) => Number(pattern.exec(text)?.[1]);
		expect(message).toMatch(
			/^Max Messages per Person per Day: the count in n8n's processed-data store stayed in use by other executions for \d+ s \(Max Wait 10 s\): nothing was sent$/,
		);
		// The stale rule's time, its jitter and margin: STALE_MS + 5 s to STALE_MS + 10 s.
		for (const shown of [
			seconds(message, /for (\d+) s/),
			seconds(
				description,
				/never less than (\d+) s, the time in which a count left in use by a crashed worker is taken over/,
			),
		]) {
			expect(shown).toBeGreaterThanOrEqual((STALE_MS + 5_000) / 1000);
			expect(shown).toBeLessThanOrEqual((STALE_MS + 10_000) / 1000);
		}
		// The stale rule ran (a Max Wait of 10 s did not cut it short), once.
		expect(checks()).toBe(1);
		expect(waited).toBeGreaterThanOrEqual(STALE_MS + 5_000);
		expect(waited).toBeLessThan(STALE_MS + 10_000 + 1_000);
		expect(retaken.row(WORKFLOW, `n:${NODE}`)).toBeUndefined();
		expect(retaken.row(WORKFLOW, '')).toEqual({
			mode: 'latestIncrementalKey',
			data: WORKFLOW_LOCK,
		});
	});

	it('stops waiting on the lock when the execution is cancelled: the waiting claims fail, nothing sent, and flush gives up', async () => {
		// A slot taken and given back, then another execution holds the lock.
		const { fns, cancel } = cancellable();
		const cap = new DailyCap(fns, 1, MAX_WAIT);
		const [slot] = slotsOf(await claimAll(cap, ['999']));
		cap.release(slot);
		await settle([lockWorkflow(worker())]);
		const checks = staleChecks(store);
		const calls = store.calls.checkProcessedAndRecord;
		const claims: Array<Promise<unknown>> = [cap.claim('1000', DAY), cap.claim('1001', DAY)];
		claims.push(cap.exclusive(async () => {}));
		const waiting = fake.now();
		await runClock(fake, () => fake.now() - waiting >= 1_000, 10);
		// Still waiting (1 s in), trying the lock.
		expect(store.calls.checkProcessedAndRecord).toBeGreaterThan(calls + 10);
		const cancelledAt = fake.now();
		cancel();
		const answers = await settle(claims, 1);
		expect(fake.now() - cancelledAt).toBeLessThan(200);
		for (const answer of answers)
			expect('error' in answer && answer.error.message).toBe(
				"Max Messages per Person per Day: the execution was cancelled while waiting for the day's count in n8n's processed-data store: nothing was sent",
			);
		// Given up cleanly: the slot stays counted (fewer sent, never more), the other's lock alone.
		const [flushed] = await settle([cap.flush()]);
		expect(flushed).toEqual({ value: undefined });
		expect(store.has(WORKFLOW, `n:${NODE}`, slot)).toBe(true);
		expect(store.has(WORKFLOW, `n:${NODE}`, `cap 1000 ${DAY} 1`)).toBe(false);
		expect(store.row(WORKFLOW, '')).toEqual({ mode: 'latestIncrementalKey', data: WORKFLOW_LOCK });
		expect(checks()).toBe(0);
	});

	it('answers every claim of 8 executions contending for the lock (lost insert races are contention, not failures), the totals exact', async () => {
		const EXECUTIONS = 8;
		const PEOPLE = 12;
		const MAX = 2;
		// A database's round trip between each call's read and its write.
		store.between = async () => await clock.sleep(10);
		const caps = Array.from({ length: EXECUTIONS }, () => new DailyCap(worker(), MAX, MAX_WAIT));
		const claims: Array<Promise<{ slot: string } | { capped: true }>> = [];
		// Every execution claims MAX + 1 for every person, in its own order, one claim each 40 ms.
		for (let step = 0; step < PEOPLE * (MAX + 1); step++) {
			caps.forEach((cap, index) =>
				claims.push(later(cap.claim(`5731${(step + index * 5) % PEOPLE}`, DAY))),
			);
			for (let turn = 0; turn < 8; turn++) {
				await new Promise((resolve) => setImmediate(resolve));
				fake.advance(5);
			}
		}
		const settled = await settle(claims, 5);
		expect(settled.filter((answer) => 'error' in answer)).toEqual([]);
		await settle(
			caps.map(async (cap) => await cap.flush()),
			5,
		);
		const slots = settled.map(valueOf).flatMap((answer) => ('slot' in answer ? [answer.slot] : []));
		expect(new Set(slots).size).toBe(slots.length);
		expect(slots.length).toBe(PEOPLE * MAX);
		for (let person = 0; person < PEOPLE; person++)
			for (let k = 1; k <= MAX + 1; k++)
				expect(store.has(WORKFLOW, `n:${NODE}`, `cap 5731${person} ${DAY} ${k}`)).toBe(k <= MAX);
		// They did contend: many lost races to insert the lock, some several in a row for one cap.
		expect(store.failedInserts.get('')).toBeGreaterThan(3 * EXECUTIONS);
		expect(store.lostUpdates.get(`n:${NODE}`) ?? 0).toBe(0);
		expect(store.row(WORKFLOW, '')).toBeUndefined();
	});

	it('gives a waiter its turn between two busy holders with slow holds, for longer than the stale rule: no live lock cleared, no write lost', async () => {
		// Each call of the store takes 200 ms between its read and its write (a slow database).
		store.between = async () => await clock.sleep(200);
		const checks = staleChecks(store);
		// Two writes of the node's row at once would lose one's change.
		let writing = 0;
		let overlaps = 0;
		const record = store.checkProcessedAndRecord.bind(store);
		store.checkProcessedAndRecord = async (items, scope, contextData, options) => {
			if (scope !== 'node') return await record(items, scope, contextData, options);
			if (++writing > 1) overlaps++;
			try {
				return await record(items, scope, contextData, options);
			} finally {
				writing--;
			}
		};
		let stop = false;
		// Busy 1: a Retry's notes, one after another, each hold 400 ms more.
		const notes: string[] = [];
		const noting = worker();
		const noter = new DailyCap(noting, 1, MAX_WAIT);
		const noted = (async () => {
			while (!stop)
				await noter.exclusive(async () => {
					const note = `note ${notes.length}`;
					await clock.sleep(400);
					await recordInNode(noting, [note], 50_000);
					notes.push(note);
				});
		})();
		// Busy 2: a send claiming a new person each 100 ms: its holds (over 250 ms) follow each other.
		const sender = new DailyCap(worker(), 1, MAX_WAIT);
		const sent: Array<Promise<{ slot: string } | { capped: true }>> = [];
		const sending = (async () => {
			while (!stop) {
				sent.push(later(sender.claim(`5740${sent.length}`, DAY)));
				await clock.sleep(100);
			}
		})();
		// The waiter: a claim each 2 s (or once answered), for 45 s; each answered long before the stale rule's STALE_MS.
		const waiter = new DailyCap(worker(), 1, MAX_WAIT);
		const waits: number[] = [];
		const started = fake.now();
		while (fake.now() - started < STALE_MS + 15_000) {
			const asked = fake.now();
			const [answer] = await settle([waiter.claim(`5750${waits.length}`, DAY)], 5);
			expect(valueOf(answer)).toEqual({ slot: `cap 5750${waits.length} ${DAY} 1` });
			waits.push(fake.now() - asked);
			await runClock(fake, () => fake.now() - asked >= 2_000, 5);
		}
		stop = true;
		await settle([noted, sending], 5);
		const answers = (await settle(sent, 5)).map(valueOf);
		await settle([noter.flush(), sender.flush(), waiter.flush()], 5);

		// Nobody ever took the lock for stale: every hold was live, and one at a time.
		expect(checks()).toBe(0);
		expect(overlaps).toBe(0);
		// The waiter's turns: a coin toss with the other waiter at each give-back (about 1 s apart),
		// never lost for long (half the stale rule's time: about 15 tosses lost in a row).
		expect(waits.length).toBeGreaterThanOrEqual(15);
		expect(Math.max(...waits)).toBeLessThan(STALE_MS / 2);
		expect(store.lostUpdates.get(`n:${NODE}`) ?? 0).toBe(0);
		// Every write there: each note, each sent person's slot, each of the waiter's.
		expect(notes.length).toBeGreaterThan(10);
		for (const note of notes) expect(store.has(WORKFLOW, `n:${NODE}`, note)).toBe(true);
		expect(answers.length).toBeGreaterThan(100);
		answers.forEach((answer, index) => {
			expect(answer).toEqual({ slot: `cap 5740${index} ${DAY} 1` });
			expect(store.has(WORKFLOW, `n:${NODE}`, `cap 5740${index} ${DAY} 1`)).toBe(true);
		});
		waits.forEach((_, index) =>
			expect(store.has(WORKFLOW, `n:${NODE}`, `cap 5750${index} ${DAY} 1`)).toBe(true),
		);
		expect(store.row(WORKFLOW, '')).toBeUndefined();
	});

	it("fails with the store's words when n8n's processed-data store is not set up, or its database fails", async () => {
		restoreStore();
		restoreStore = await useProcessedDataStore(store);
		const service = (await import('n8n-core')).DataDeduplicationService as unknown as {
			instance?: unknown;
		};
		const saved = service.instance;
		service.instance = undefined;
		try {
			const [answer] = await settle([new DailyCap(worker(), 1, MAX_WAIT).claim('888', DAY)]);
			expect('error' in answer && answer.error.message).toBe(
				"Max Messages per Person per Day needs n8n's processed-data store, which is not set up here: nothing was sent",
			);
		} finally {
			service.instance = saved;
		}
		const failing = worker();
		const gone = new Error('the database is gone');
		const fns = {
			...failing,
			helpers: {
				...failing.helpers,
				checkProcessedAndRecord: async () => await Promise.reject(gone),
			},
		} as unknown as IExecuteFunctions;
		const [answer] = await settle([new DailyCap(fns, 1, MAX_WAIT).claim('888', DAY)]);
		expect('error' in answer && answer.error.message).toBe(
			"Max Messages per Person per Day: could not read the day's count in n8n's processed-data store: nothing was sent",
		);
	});

	it('settles a 10,000-item send in few batches: at most BATCH a batch, one batch each ROUND_GAP_MS', async () => {
		const ITEMS = 10_000;
		// All at once (a service that takes them as fast as they come).
		const burst = new DailyCap(worker(), 1, MAX_WAIT);
		const people = Array.from({ length: ITEMS }, (_, index) => `4470000${index}`);
		await claimAll(burst, people);
		await settle([burst.flush()]);
		const burstCalls = { ...store.calls };
		const burstRounds = store.calls.clearAllProcessedItems;
		expect(burstRounds).toBe(ITEMS / BATCH);
		// Lock, record, unlock: nothing to take out with a cap of 1.
		expect(burstCalls).toEqual({
			checkProcessedAndRecord: 2 * burstRounds,
			removeProcessed: 0,
			clearAllProcessedItems: burstRounds,
		});

		// At a service's pace of 100 a second (one claim each 10 ms), cap 3: the count read for
		// three slots each, two taken out again.
		store.resetCounts();
		const paced = new DailyCap(worker(), 3, MAX_WAIT);
		const claims: Array<Promise<unknown>> = [];
		for (let index = 0; index < ITEMS; index++) {
			claims.push(paced.claim(`4480000${index}`, DAY));
			await new Promise((resolve) => setImmediate(resolve));
			fake.advance(10);
		}
		await settle(claims);
		await settle([paced.flush()]);
		const rounds = store.calls.clearAllProcessedItems;
		expect(rounds).toBeLessThanOrEqual((ITEMS * 10) / ROUND_GAP_MS + 2);
		expect(store.calls).toEqual({
			checkProcessedAndRecord: 2 * rounds,
			removeProcessed: rounds,
			clearAllProcessedItems: rounds,
		});
		// The report's figures.
		// 20,000 claims through the in-memory store: about 5 s alone, more under a loaded machine.
	}, 120_000);

	it("exclusive runs a write to the node's row (a Retry's note) while no count writes it", async () => {
		const retrying = new DailyCap(worker(), 1, MAX_WAIT);
		const counting = new DailyCap(worker(), 1, MAX_WAIT);
		const order: string[] = [];
		let finishNote: () => void = () => {};
		const note = retrying.exclusive(async () => {
			order.push('note begins');
			await new Promise<void>((resolve) => (finishNote = resolve));
			order.push('note ends');
		});
		await runClock(fake, () => order.length > 0);
		const claim = counting.claim('333', DAY).then((answer) => {
			order.push('claim answered');
			return answer;
		});
		// The claim waits on the lock the note holds, however long it takes.
		for (let turn = 0; turn < 50; turn++) await runClock(fake, () => true, 10);
		fake.advance(1_000);
		await new Promise((resolve) => setImmediate(resolve));
		expect(order).toEqual(['note begins']);
		finishNote();
		const [answer] = await settle([claim]);
		await note;
		expect(valueOf(answer)).toEqual({ slot: `cap 333 ${DAY} 1` });
		expect(order).toEqual(['note begins', 'note ends', 'claim answered']);
	});

	it('answers a claim made right after another was answered, while the batch that answered it winds down', async () => {
		const cap = new DailyCap(worker(), 1, MAX_WAIT);
		await claimAll(cap, ['888']);
		// Known taken: answered without a call, then a claim in that answer's own continuation.
		const [both] = await settle([
			cap.claim('888', DAY).then(async (answer) => [answer, await cap.claim('889', DAY)]),
		]);
		expect(valueOf(both)).toEqual([{ capped: true }, { slot: `cap 889 ${DAY} 1` }]);
	});
});
