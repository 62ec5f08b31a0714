/**
 * The pace of the sends to one service account, and its outages (sendLoop/pacer.ts, sendLoop/lane.ts),
 * on a clock the test moves: the figures are in that clock's time, the same on any machine under
 * any load (`npm run bench` measures the node in n8n against the sandbox in real time). The
 * service is the sandbox's token bucket (sandbox/rate-limit.ts) on the same clock, answering
 * LATENCY_MS after a request is let through. Each execution sends its items as the send loop
 * does: a refused item waits the service's Retry-After (1 s) aside, and an item whose request
 * never reached the service goes again once the outage is over.
 */
import type * as http from 'node:http';

import { FakeClock } from '../../../sandbox/clock';
import type { RateLimit } from '../../../sandbox/rate-limit';
import { RateLimiter } from '../../../sandbox/rate-limit';
import type { Member } from '../../../nodes/ConversationalMessaging/sendLoop/lane';
import {
	GaveUp,
	PROBE_MAX_MS,
	Stopped,
	joinLane,
	openLanes,
} from '../../../nodes/ConversationalMessaging/sendLoop/lane';
import { nodeOnFakeClock, runClock } from '../../helpers/nodeClock';

const LATENCY_MS = 2;
const RETRY_AFTER_MS = 1000;
const UNREACHED = { reason: 'the connection was refused', code: 'ECONNREFUSED' };
/** The response as the rate limiter sees it: it only waits for its close. */
const response = { once: () => undefined } as unknown as http.ServerResponse;

let clock: FakeClock;
let restore: () => void;
beforeEach(() => ({ clock, restore } = nodeOnFakeClock(new FakeClock(0))));
afterEach(() => restore());

let accounts = 0;

/** A service account: its limit, whether it can be reached, and what it saw. */
function service(limit: RateLimit | null) {
	const account = {
		token: `token ${++accounts}`,
		limiter: new RateLimiter(limit, clock),
		down: false,
		requests: 0,
		/** When each refusal was answered. */
		refusedAt: [] as number[],
		/** When each request was let through, whether it reached the service or not. */
		sentAt: [] as number[],
		send: async (): Promise<'accepted' | 'refused' | 'unreached'> => {
			account.sentAt.push(clock.now());
			const after = async (ms: number) =>
				await new Promise((done) => clock.after(ms, () => done(undefined)));
			if (account.down) return (await after(LATENCY_MS), 'unreached');
			await after(LATENCY_MS / 2);
			account.requests++;
			const refused = account.limiter.admit(response) !== undefined;
			await after(LATENCY_MS / 2);
			if (refused) account.refusedAt.push(clock.now());
			return refused ? 'refused' : 'accepted';
		},
	};
	return account;
}

type Account = ReturnType<typeof service>;

interface Execution {
	member: Member;
	accepted: number;
	/** Why items stopped waiting, instead of being sent. */
	stopped: Array<GaveUp | Stopped>;
	endedAt?: number;
}

/** One execution sending `items` to the account, as the send loop does. */
function execution(
	account: Account,
	items: number,
	settings: { maxWaitMs?: number; stopped?: () => boolean } = {},
): Execution {
	const member = joinLane(
		{ baseUrl: 'https://api.example.com', apiToken: account.token },
		{
			maxInFlight: 500,
			maxWaitMs: settings.maxWaitMs ?? 300_000,
			stopped: settings.stopped ?? (() => false),
		},
	);
	const run: Execution = { member, accepted: 0, stopped: [] };
	member.remaining = items;
	const sendItem = async () => {
		for (;;) {
			const ticket = await member.acquire();
			if (ticket instanceof GaveUp || ticket instanceof Stopped) return run.stopped.push(ticket);
			const answer = await account.send();
			member.release();
			if (answer === 'accepted') return (member.accept(ticket), run.accepted++);
			if (answer === 'unreached') member.unreachable(ticket, UNREACHED);
			else {
				member.refuse(ticket, false);
				await new Promise((resolve) => clock.after(RETRY_AFTER_MS, () => resolve(undefined)));
			}
		}
	};
	const sends = Array.from({ length: items }, async () => {
		await sendItem();
		member.remaining--;
	});
	void Promise.all(sends).then(() => {
		member.leave();
		run.endedAt = clock.now();
	});
	return run;
}

const ended =
	(...runs: Execution[]) =>
	() =>
		runs.every((run) => run.endedAt !== undefined);
const endOf = (runs: Execution[]) => Math.max(...runs.map((run) => run.endedAt as number));
const acceptedOf = (runs: Execution[]) => runs.reduce((sum, run) => sum + run.accepted, 0);

describe('the pace against a rate limit', () => {
	it.each([
		[600, 1],
		[1000, 1],
		[4000, 20],
	])(
		'%i items in %i execution(s) against 200/s with a burst of 20: within 1.05 × ideal, at most 1.2 requests per item, no refusal in the last second',
		async (items, executions) => {
			const account = service({ perSecond: 200, burst: 20 });
			const runs = Array.from({ length: executions }, () => execution(account, items / executions));
			expect(openLanes()).toBe(1);
			await runClock(clock, ended(...runs));
			expect(acceptedOf(runs)).toBe(items);
			expect(endOf(runs) / ((items / 200) * 1000)).toBeLessThanOrEqual(1.05);
			expect(account.requests / items).toBeLessThanOrEqual(1.2);
			// In the tail the pace keeps below the limit: a refusal there would hold the end back by its Retry-After.
			expect(Math.max(...account.refusedAt)).toBeLessThan(endOf(runs) - RETRY_AFTER_MS);
			expect(openLanes()).toBe(0);
		},
	);

	it('10 executions of 60 against 100/s with a burst of 10: at most 1.3 requests per item; 200 one-item executions against 20/s with a burst of 20: within the ideal, at most 1.6', async () => {
		const shared = service({ perSecond: 100, burst: 10 });
		const executions = Array.from({ length: 10 }, () => execution(shared, 60));
		await runClock(clock, ended(...executions));
		expect(acceptedOf(executions)).toBe(600);
		expect(shared.requests / 600).toBeLessThanOrEqual(1.3);

		// The burst allowance is a whole second's worth here: the count leaves it out once settled.
		const leads = service({ perSecond: 20, burst: 20 });
		const start = clock.now();
		const oneEach = Array.from({ length: 200 }, () => execution(leads, 1));
		await runClock(clock, ended(...oneEach));
		expect(acceptedOf(oneEach)).toBe(200);
		// Against a limit this small, the first requests at once are mostly refused (each goes again after 1 s).
		expect(leads.requests / 200).toBeLessThanOrEqual(1.6);
		// Ideal: 200 at 20/s; the burst lets 20 go at once.
		expect((endOf(oneEach) - start) / 10_000).toBeLessThanOrEqual(1);
	});

	it('a service that halves its limit midway (another client took its share): the pace follows', async () => {
		const account = service({ perSecond: 200, burst: 20 });
		const run = execution(account, 2000);
		await runClock(clock, () => clock.now() >= 2000);
		account.limiter.set({ perSecond: 100, burst: 10 });
		const left = 2000 - run.accepted;
		await runClock(clock, ended(run));
		// What was left at 100/s, and a second to find the new limit.
		expect((run.endedAt as number) - 2000).toBeLessThanOrEqual(left * 10 + 1000);
	});

	it('without a limit, nothing waits for a pace: 1,000 items in the time of their round trips', async () => {
		const account = service(null);
		const run = execution(account, 1000);
		await runClock(clock, ended(run));
		expect(run.accepted).toBe(1000);
		expect(run.endedAt).toBeLessThan(50 * LATENCY_MS);
	});
});

describe('an outage', () => {
	it('pauses every request but one probe: 250 ms after the failure, then each interval 1.5 times the last, up to 2 s', async () => {
		const account = service(null);
		account.down = true;
		execution(account, 20, { maxWaitMs: 12_000 });
		await runClock(clock, () => clock.now() >= 12_000);
		// The 20 went at once; then one at a time, each the interval after the last failed.
		const probes = account.sentAt.slice(20);
		expect(account.sentAt.slice(0, 20)).toEqual(Array.from({ length: 20 }, () => 0));
		const gaps = probes.map((at, i) => at - (i ? probes[i - 1] + LATENCY_MS : LATENCY_MS));
		// 375, 562.5, 843.75, 1265.6, 1898.4: to the millisecond the test moves the clock by.
		expect(gaps).toEqual([250, 375, 563, 844, 1266, 1899, 2000, 2000]);
	});

	it('the first answer resumes every request; the wait is counted once, for the execution', async () => {
		const account = service(null);
		account.down = true;
		const run = execution(account, 50);
		await runClock(clock, () => clock.now() >= 6000);
		expect(run.accepted).toBe(0);
		account.down = false;
		await runClock(clock, ended(run));
		expect(run.accepted).toBe(50);
		expect(account.requests).toBe(50);
		// From the first failure to the probe that was answered (at most PROBE_MAX_MS after 6 s).
		expect(run.member.outageMs).toBeGreaterThanOrEqual(6000 - LATENCY_MS);
		expect(run.member.outageMs).toBeLessThanOrEqual(6000 + PROBE_MAX_MS);
	});

	it('past Max Wait, the items not sent give up, saying how long; while the service never answered, after 10 s at most', async () => {
		const account = service({ perSecond: 100, burst: 10 });
		const run = execution(account, 400, { maxWaitMs: 5000 });
		await runClock(clock, () => clock.now() >= 1000);
		account.down = true;
		await runClock(clock, ended(run));
		expect(run.accepted).toBeGreaterThan(0);
		expect(run.accepted + run.stopped.length).toBe(400);
		expect(
			run.stopped.every(
				(end) => end instanceof GaveUp && end.waitedMs === 5000 && !end.firstContact,
			),
		).toBe(true);
		expect(run.member.outageMs).toBe(5000);

		const never = service(null);
		never.down = true;
		const start = clock.now();
		const wrongUrl = execution(never, 3);
		await runClock(clock, ended(wrongUrl));
		expect(
			wrongUrl.stopped.every(
				(end) => end instanceof GaveUp && end.waitedMs === 10_000 && end.firstContact,
			),
		).toBe(true);
		expect((wrongUrl.endedAt as number) - start).toBeLessThanOrEqual(10_000 + PROBE_MAX_MS);
	});

	it('an execution that starts the lane of an idle account during an outage waits its Max Wait, not 10 s: the service answered this process before', async () => {
		const account = service(null);
		const earlier = execution(account, 5);
		await runClock(clock, ended(earlier));
		expect(openLanes()).toBe(0);
		account.down = true;
		const start = clock.now();
		const run = execution(account, 3, { maxWaitMs: 30_000 });
		await runClock(clock, () => clock.now() >= start + 20_000);
		account.down = false;
		await runClock(clock, ended(run));
		expect(run.stopped).toEqual([]);
		expect(run.accepted).toBe(3);
	});

	it('an execution stopped while its items wait: they stop waiting, and its lane goes', async () => {
		const account = service(null);
		account.down = true;
		let stopped = false;
		const run = execution(account, 5, { stopped: () => stopped });
		await runClock(clock, () => clock.now() >= 1000);
		stopped = true;
		await runClock(clock, ended(run));
		expect(run.stopped).toHaveLength(5);
		expect(run.stopped.every((end) => end instanceof Stopped)).toBe(true);
		expect(openLanes()).toBe(0);
	});

	it('an execution stopped while its items wait for the pace (On Error: Stop, a cancel): none of them is sent', async () => {
		const account = service({ perSecond: 10, burst: 5 });
		let stopped = false;
		const run = execution(account, 40, { stopped: () => stopped });
		// Refused once, the items go at the pace the service accepts: most of them still wait.
		await runClock(clock, () => account.refusedAt.length > 0 && clock.now() >= 2000);
		const sentBefore = account.sentAt.length;
		stopped = true;
		await runClock(clock, ended(run));
		expect(account.sentAt.length).toBe(sentBefore);
		expect(run.stopped.length).toBeGreaterThan(20);
		expect(run.stopped.every((end) => end instanceof Stopped)).toBe(true);
		expect(run.accepted + run.stopped.length).toBe(40);
		expect(openLanes()).toBe(0);
	});
});
