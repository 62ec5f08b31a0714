/**
 * Production conditions for the send loop, in n8n's engine against the sandbox: executions that
 * send to one account at once share its limit (one lane per account in this process, none left
 * when they end, two accounts apart); an outage of the service is waited out, and only what never
 * reached it is sent again; past Max Wait the unsent items fail saying so. The node and the
 * sandbox run on a clock the test moves while they work (test/helpers/nodeClock.ts): rate limits,
 * outages and waits take no real seconds, and what is asserted (counts, never times) holds
 * however fast the machine goes. The pace's figures are pacing.test.ts's and `npm run bench`'s.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox/server';
import { FakeClock, startSandbox } from '../../sandbox/server';
import { accountKey, openLanes } from '../../nodes/ConversationalMessaging/sendLoop/lane';
import { unreachedBy } from '../../nodes/ConversationalMessaging/service/network';
import { runNode } from '../helpers/engine';
import { nodeOnFakeClock, whileMoving } from '../helpers/nodeClock';
import { until } from '../helpers/until';
import { closedPortUrl } from './operations';

// +57 3<run><index>: a Colombian mobile number (10 digits after 57, starting with 3), as the phone check wants.
const phoneOf = (run: string, index: number) => `573${run}${String(index).padStart(7, '0')}`;

function smsParameters(sendOptions: INodeParameters = {}): INodeParameters {
	return {
		resource: 'messaging',
		operation: 'sendSms',
		to: '={{ $json.phone }}',
		instance: 'line-1',
		message: '={{ $json.text }}',
		messagingSendOptions: sendOptions,
	};
}

/** Sends `count` SMS in each of `executions` executions at once; returns each execution's output. */
function sendAtOnce(
	sandbox: Sandbox,
	run: string,
	executions: number,
	count: number,
	options: { continueOnFail?: boolean; sendOptions?: INodeParameters } = {},
) {
	return Promise.all(
		Array.from({ length: executions }, (_, execution) =>
			runNode({
				parameters: smsParameters(options.sendOptions),
				items: Array.from({ length: count }, (_, index) => ({
					phone: phoneOf(run, execution * count + index),
					text: `${run} ${execution}.${index}`,
				})),
				credentials: { baseUrl: sandbox.url, apiToken: sandbox.token },
				continueOnFail: options.continueOnFail,
			}),
		),
	);
}

/** How many times the service recorded each phone of the run, by phone. */
function deliveries(sandbox: Sandbox, run: string): Map<string, number> {
	const counts = new Map<string, number>();
	for (const message of sandbox.state.sentMessages.values()) {
		if (message.to.startsWith(`573${run}`))
			counts.set(message.to, (counts.get(message.to) ?? 0) + 1);
	}
	return counts;
}

const errorsOf = (items: INodeExecutionData[]) =>
	items.filter((item) => item.json.error !== undefined);

/** A service that stops listening resets the connections still in its accept queue, after their requests were written: those may have been carried out, and say so. */
function expectOnlyCutsFailed(items: INodeExecutionData[]): void {
	for (const item of errorsOf(items)) {
		// An error item's message goes on with its fix (n8n shows the item as its message alone).
		expect(item.error?.message).toMatch(
			/was cut before its answer arrived\. The service may still/,
		);
		expect(item.error?.description).toMatch(/may still have carried out the request/);
	}
}

/** Starts an outage of `ms` once `share` of the run's messages reached the service. */
function outageWhen(
	sandbox: Sandbox,
	run: string,
	total: number,
	share: number,
	ms: number,
): Promise<void> {
	return new Promise((resolve) => {
		const timer = setInterval(() => {
			if (deliveries(sandbox, run).size < total * share) return;
			clearInterval(timer);
			void sandbox.outage(ms).then(resolve);
		}, 2);
	});
}

/** The most lanes open at once while it watches. */
function watchLanes(): { stop(): number } {
	let most = 0;
	const watcher = setInterval(() => (most = Math.max(most, openLanes())), 1);
	return {
		stop: () => {
			clearInterval(watcher);
			return most;
		},
	};
}

/** The clock of the node and of `sandbox`. */
const clock = new FakeClock();
let restoreClock: () => void;
let sandbox: Sandbox;
beforeAll(async () => {
	({ restore: restoreClock } = nodeOnFakeClock(clock));
	sandbox = await startSandbox({ recordRequests: false, clock });
});
afterAll(async () => {
	restoreClock();
	await sandbox.close();
});
afterEach(() => sandbox.setRateLimit(null));

/** The runs, while the clock moves. */
const moving = <T>(work: Promise<T>) => whileMoving(clock, work);

describe('executions sending to one account share its limit', () => {
	it('10 executions of 60 SMS against 100/s: every phone once, no item failed, one lane, none left', async () => {
		sandbox.setRateLimit({ perSecond: 100, burst: 10 });
		const refusedBefore = sandbox.stats().rateLimited;
		const lanes = watchLanes();
		const sending = sendAtOnce(sandbox, '11', 10, 60);
		// The clock held, the bucket cannot refill: past its burst of 10, the service refuses.
		await until(() => sandbox.stats().rateLimited > refusedBefore, 'the first refusal');
		const runs = await moving(sending);
		expect(lanes.stop()).toBe(1);
		expect(runs.map((run) => run.error?.message)).toEqual(runs.map(() => undefined));
		expect(runs.map((run) => run.items.length)).toEqual(runs.map(() => 60));
		expect(runs.flatMap((run) => errorsOf(run.items))).toEqual([]);
		const counts = deliveries(sandbox, '11');
		expect(counts.size).toBe(600);
		expect([...counts.values()].every((count) => count === 1)).toBe(true);
		expect(openLanes()).toBe(0);
	});

	it('one lane per account, named by a hash that holds no token: two tokens or two Base URLs are two lanes', async () => {
		const key = accountKey({ baseUrl: 'https://api.example.com/v1/', apiToken: 'secret-token-1' });
		expect(key).toMatch(/^[0-9a-f]{64}$/);
		expect(key).toBe(
			accountKey({ baseUrl: 'https://api.example.com', apiToken: 'secret-token-1' }),
		);
		expect(key).not.toBe(
			accountKey({ baseUrl: 'https://api.example.com', apiToken: 'secret-token-2' }),
		);
		expect(key).not.toBe(
			accountKey({ baseUrl: 'https://other.example.com', apiToken: 'secret-token-1' }),
		);

		// Two accounts at once: a slow one (20/s, its clock standing still: 5 go, the rest wait) and
		// another, on a clock of its own that holds each answer 100 ms. While both send, two lanes.
		const otherClock = new FakeClock();
		const other = await startSandbox({ recordRequests: false, clock: otherClock });
		try {
			sandbox.setRateLimit({ perSecond: 20, burst: 5 });
			other.injectFault({ kind: 'latency', ms: 100 });
			const slow = sendAtOnce(sandbox, '12', 1, 30);
			const fast = sendAtOnce(other, '13', 1, 300);
			await until(() => openLanes() === 2, 'a lane for each account');
			// The other account's 300 are not held to the slow one's pace: they are all sent while it waits.
			const [fastRun] = await whileMoving(otherClock, fast);
			expect(fastRun.error).toBeUndefined();
			expect(deliveries(other, '13').size).toBe(300);
			expect(deliveries(sandbox, '12').size).toBeLessThanOrEqual(5);
			expect(openLanes()).toBe(1);
			const [slowRun] = await moving(slow);
			expect(slowRun.error).toBeUndefined();
			expect(deliveries(sandbox, '12').size).toBe(30);
			expect(openLanes()).toBe(0);
		} finally {
			await other.close();
		}
	});
});

describe('an outage of the service', () => {
	it('a 1 s outage in the middle of 600 SMS at 200/s (continue-on-fail): waited out; the only failures are connections the stopping service cut, each saying it may have been carried out; none sent twice', async () => {
		sandbox.setRateLimit({ perSecond: 200, burst: 20 });
		const outages = sandbox.stats().outages;
		const outage = outageWhen(sandbox, '21', 600, 1 / 3, 1000);
		const [run] = await moving(sendAtOnce(sandbox, '21', 1, 600, { continueOnFail: true }));
		await moving(outage);
		expect(sandbox.stats().outages).toBe(outages + 1);
		expect(run.items).toHaveLength(600);
		expectOnlyCutsFailed(run.items);
		const counts = deliveries(sandbox, '21');
		expect([...counts.values()].every((count) => count === 1)).toBe(true);
		// Every phone not delivered belongs to a failed item (a cut the service may not have read).
		const failedPhones = new Set(
			errorsOf(run.items).map((item) => phoneOf('21', (item.pairedItem as { item: number }).item)),
		);
		for (let index = 0; index < 600; index++)
			if (!counts.has(phoneOf('21', index))) expect(failedPhones).toContain(phoneOf('21', index));
	});

	it('an outage longer than Max Wait: the unsent items fail saying they were not sent, none is sent twice', async () => {
		sandbox.setRateLimit({ perSecond: 200, burst: 20 });
		const outage = outageWhen(sandbox, '22', 600, 1 / 3, 4000);
		const [run] = await moving(
			sendAtOnce(sandbox, '22', 1, 600, { continueOnFail: true, sendOptions: { maxWait: 2 } }),
		);
		await moving(outage);
		expect(run.items).toHaveLength(600);
		const notSent = errorsOf(run.items).filter((item) =>
			/could not be reached/.test(item.error?.message ?? ''),
		);
		expect(notSent.length).toBeGreaterThan(0);
		for (const item of notSent) {
			expect(item.error?.message).toMatch(
				/could not be reached for 2 s \(the connection was refused\): this item was not sent\. Nothing reached/,
			);
			expect(item.error?.description).toMatch(
				/^Nothing reached the service, so sending this item again cannot send it twice\./,
			);
			expect(
				deliveries(sandbox, '22').has(phoneOf('22', (item.pairedItem as { item: number }).item)),
			).toBe(false);
		}
		expectOnlyCutsFailed(run.items.filter((item) => !notSent.includes(item)));
		const counts = deliveries(sandbox, '22');
		expect([...counts.values()].every((count) => count === 1)).toBe(true);
		// Every item is delivered, or failed: none lost.
		const failedIndexes = new Set(
			errorsOf(run.items).map((item) => (item.pairedItem as { item: number }).item),
		);
		for (let index = 0; index < 600; index++)
			expect(counts.has(phoneOf('22', index)) || failedIndexes.has(index)).toBe(true);
	});

	it('a connection cut after the service carried the request out: that item fails saying so, and is not sent again', async () => {
		sandbox.injectFault({ kind: 'cutAfterCommit', times: 5, match: { path: '/v1/sms' } });
		const [run] = await moving(sendAtOnce(sandbox, '23', 1, 100, { continueOnFail: true }));
		const failed = errorsOf(run.items);
		expect(failed).toHaveLength(5);
		failed.forEach((item) =>
			expect(item.error?.description).toMatch(/may still have carried out the request/),
		);
		const counts = deliveries(sandbox, '23');
		expect(counts.size).toBe(100);
		expect([...counts.values()].every((count) => count === 1)).toBe(true);
	});

	it('an execution that starts during an outage, alone: it waits, and its item is delivered once', async () => {
		const outage = sandbox.outage(1500);
		const [run] = await moving(sendAtOnce(sandbox, '24', 1, 1));
		await moving(outage);
		expect(run.error).toBeUndefined();
		expect(deliveries(sandbox, '24').get(phoneOf('24', 0))).toBe(1);
		expect(openLanes()).toBe(0);
	});

	it('a Base URL where nothing listens: fails after a short wait (not Max Wait), saying nothing was sent and to check the Base URL', async () => {
		const url = await closedPortUrl();
		const run = await moving(
			runNode({
				parameters: smsParameters(),
				items: [{ phone: '573001234567', text: 'hi' }],
				credentials: { baseUrl: url, apiToken: 'x' },
			}),
		);
		expect(run.error?.message).toMatch(
			/^Could not connect to the service at 127\.0\.0\.1:\d+ for 10 s: the connection was refused$/,
		);
		expect((run.error as { description?: string }).description).toMatch(
			/Nothing reached the service.*Check the Base URL/,
		);
		expect(openLanes()).toBe(0);
	});

	it('without continue-on-fail, an outage is waited out the same: every phone once', async () => {
		sandbox.setRateLimit({ perSecond: 200, burst: 20 });
		const outage = outageWhen(sandbox, '25', 300, 1 / 3, 1000);
		const [run] = await moving(sendAtOnce(sandbox, '25', 1, 300));
		await moving(outage);
		// A cut connection would stop the run (On Error: Stop); then nothing else may be missing or doubled.
		if (run.error) expect(run.error.message).toMatch(/was cut before its answer arrived$/);
		else expect(run.items).toHaveLength(300);
		const counts = deliveries(sandbox, '25');
		expect([...counts.values()].every((count) => count === 1)).toBe(true);
		if (!run.error) expect(counts.size).toBe(300);
	});
});

describe('which failures never reached the service', () => {
	const system = (code: string, syscall: string, message = `${syscall} ${code} 127.0.0.1:1`) =>
		Object.assign(new Error(message), { code, syscall });
	const axios = (cause: Error, code?: string) =>
		Object.assign(new Error(cause.message), { isAxiosError: true, code, cause });
	const attempts = (code: string) =>
		Object.assign(
			new AggregateError(
				[system(code, 'connect'), system(code, 'connect', `connect ${code} ::1:1`)],
				'',
			),
			{ code },
		);
	/** What n8n-workflow 1.x's NodeApiError leaves of a request error. */
	const remnants = (code: string, message: string) => ({ httpCode: code, messages: [message] });

	it.each([
		[
			'connection refused',
			axios(system('ECONNREFUSED', 'connect'), 'ECONNREFUSED'),
			'ECONNREFUSED',
		],
		['unknown host', axios(system('ENOTFOUND', 'getaddrinfo'), 'ENOTFOUND'), 'ENOTFOUND'],
		[
			'DNS lookup failed for now',
			axios(system('EAI_AGAIN', 'getaddrinfo'), 'EAI_AGAIN'),
			'EAI_AGAIN',
		],
		[
			'no route to host while connecting',
			axios(system('EHOSTUNREACH', 'connect'), 'EHOSTUNREACH'),
			'EHOSTUNREACH',
		],
		['connect timeout', axios(system('ETIMEDOUT', 'connect'), 'ETIMEDOUT'), 'ETIMEDOUT'],
		[
			'every address of the host timed out (autoSelectFamily)',
			axios(attempts('ETIMEDOUT') as unknown as Error, 'ETIMEDOUT'),
			'ETIMEDOUT',
		],
		[
			'TLS handshake cut',
			axios(
				Object.assign(
					new Error(
						'Client network socket disconnected before secure TLS connection was established',
					),
					{ code: 'ECONNRESET' },
				),
				'ECONNRESET',
			),
			'ECONNRESET',
		],
		[
			'n8n 1.x: connection refused',
			remnants('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'),
			'ECONNREFUSED',
		],
		[
			'n8n 1.x: connect timeout',
			remnants('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443'),
			'ETIMEDOUT',
		],
		[
			'route lost after the request was written',
			axios(system('EHOSTUNREACH', 'read'), 'EHOSTUNREACH'),
			undefined,
		],
		[
			'timeout while reading the answer',
			axios(system('ETIMEDOUT', 'read'), 'ETIMEDOUT'),
			undefined,
		],
		[
			'connection reset after the request was written',
			axios(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'ECONNRESET'),
			undefined,
		],
		['n8n 1.x: reset while reading', remnants('ECONNRESET', 'read ECONNRESET'), undefined],
		['answer timeout', axios(new Error('timeout of 1000ms exceeded'), 'ECONNABORTED'), undefined],
		["the node's own error", new Error('The service answered 400'), undefined],
	])('%s', (_name, error, code) => {
		expect(unreachedBy(error)?.code).toBe(code);
	});

	it('a real refused request, as n8n wraps it', async () => {
		const url = await closedPortUrl();
		const { default: axiosClient } = await import('axios');
		const error = await axiosClient.post(`${url}/v1/sms`, {}).catch((failure: unknown) => failure);
		const { NodeApiError } = await import('n8n-workflow');
		const wrapped = new NodeApiError(
			{ id: '1', name: 'n', type: 't', typeVersion: 1, position: [0, 0], parameters: {} },
			error as never,
		);
		expect(unreachedBy(wrapped)).toEqual({
			reason: 'the connection was refused',
			code: 'ECONNREFUSED',
		});
	});
});
