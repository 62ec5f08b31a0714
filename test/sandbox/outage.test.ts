// Outage mode, on a FakeClock: an outage ends when the test moves the clock to its end, not after
// real milliseconds, so what is seen during and after it does not depend on the machine's speed.
import axios, { type AxiosInstance } from 'axios';
import * as http from 'http';
import * as net from 'net';
import { FakeClock, startSandbox, type Sandbox } from '../../sandbox/server';
import { until } from '../helpers/until';

const clock = new FakeClock();
let sb: Sandbox;
let client: AxiosInstance;

beforeAll(async () => {
	sb = await startSandbox({ seed: 1, clock });
	// A new connection per request: a kept-alive one would outlive the listening socket.
	client = axios.create({
		baseURL: sb.url,
		validateStatus: () => true,
		httpAgent: new http.Agent({ keepAlive: false }),
	});
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const sms = () =>
	client.post('/v1/sms', {
		token: sb.token,
		type: 'text',
		body: 'x',
		to: '573001234567',
		instance: 'i',
	});

/** 'connected' or the error code of a bare TCP connection to the port. */
function connect(port: number): Promise<string> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1', () => {
			socket.destroy();
			resolve('connected');
		});
		socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
	});
}

describe('sandbox.outage(ms)', () => {
	test('refuses new connections until its end on the clock, then listens again on the same port; counted once', async () => {
		expect(await connect(sb.port)).toBe('connected');
		const over = sb.outage(400);
		expect(sb.listening).toBe(false);
		expect(sb.outageEndsAt).toBe(clock.now() + 400);
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
		await expect(sms()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
		expect(sb.stats().outages).toBe(1);
		sb.reset(); // the outage goes on through a reset, which zeroes the counts
		expect([sb.listening, sb.stats().outages]).toEqual([false, 0]);
		clock.advance(399);
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
		expect(sb.listening).toBe(false);
		clock.advance(1);
		await over;
		expect([sb.listening, sb.outageEndsAt]).toEqual([true, undefined]);
		expect(await connect(sb.port)).toBe('connected');
		expect((await sms()).status).toBe(200);
		expect((await client.get('/__sandbox/outage')).data).toEqual({ listening: true });
	});

	test('a request already in hand when the outage begins is answered during it', async () => {
		sb.injectFault({ kind: 'latency', ms: 200, times: 1 });
		const inHand = sms();
		await clock.waiting(1); // it has arrived and waits out its latency
		const over = sb.outage(1500);
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
		clock.advance(200);
		const res = await inHand;
		expect(res.status).toBe(200);
		expect(sb.listening).toBe(false);
		expect(sb.state.sentMessages.size).toBe(1);
		clock.advance(1300);
		await over;
		expect((await sms()).status).toBe(200);
	});

	test('one asked for during another extends it to the later end, and all resolve when it listens again', async () => {
		const start = clock.now();
		const first = sb.outage(600);
		expect(sb.outageEndsAt).toBe(start + 600);
		const shorter = sb.outage(10);
		expect(sb.outageEndsAt).toBe(start + 600);
		const longer = sb.outage(1200);
		expect(sb.outageEndsAt).toBe(start + 1200);
		clock.advance(600); // the first one's end: still out
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
		expect(sb.listening).toBe(false);
		clock.advance(600);
		await Promise.all([first, shorter, longer]);
		expect(sb.listening).toBe(true);
		expect(sb.stats().outages).toBe(1);
		expect(await connect(sb.port)).toBe('connected');
	});

	test('an invalid length is refused and starts nothing', async () => {
		await expect(sb.outage(-1)).rejects.toThrow(
			'ms must be an integer from 0 to 2147483647, got -1',
		);
		await expect(sb.outage(1.5)).rejects.toThrow('got 1.5');
		await expect(sb.outage(NaN)).rejects.toThrow('got NaN');
		expect([sb.listening, sb.stats().outages]).toEqual([true, 0]);
	});

	test('close() during an outage resolves, settles the outage and does not listen again', async () => {
		const otherClock = new FakeClock();
		const other = await startSandbox({ clock: otherClock });
		other.injectFault({ kind: 'latency', ms: 2000 });
		const inHand = axios.post(`${other.url}/v1/client`, { token: other.token });
		await otherClock.waiting(1);
		const over = other.outage(500);
		await other.close();
		await over;
		await expect(inHand).rejects.toMatchObject({ code: 'ECONNRESET' });
		// Nothing left to happen: neither the latency's end nor the outage's.
		expect(otherClock.pending).toBe(0);
		otherClock.advance(2000);
		expect(await connect(other.port)).toBe('ECONNREFUSED');
		expect(other.listening).toBe(false);
		await expect(other.outage(10)).resolves.toBeUndefined();
	});
});

describe('control route /__sandbox/outage', () => {
	test('answers first, then the outage begins; GET tells whether it listens', async () => {
		const answer = await client.post('/__sandbox/outage', { ms: 600 });
		expect([answer.status, answer.data]).toEqual([200, { ms: 600 }]);
		await until(() => !sb.listening, 'the outage to begin');
		expect(sb.outageEndsAt).toBe(clock.now() + 600);
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
		clock.advance(600);
		await until(() => sb.listening, 'the outage to end');
		expect((await client.get('/__sandbox/outage')).data).toEqual({ listening: true });
		expect((await client.get('/__sandbox/requests')).data).toMatchObject({ outages: 1 });
	});

	test('a bad body is answered 400 with what is wrong, and no outage begins', async () => {
		const post = (body: string) =>
			client.post('/__sandbox/outage', body, {
				headers: { 'content-type': 'application/json' },
				transformRequest: (d) => d,
			});
		const cases: Array<[string, string]> = [
			['{ms: 5', 'body must be JSON'],
			['[5]', 'body must be {"ms": number}'],
			['{}', 'ms must be an integer from 0 to 2147483647, got undefined'],
			['{"ms": "5"}', 'got "5"'],
			['{"ms": 5, "at": 1}', 'at is not an outage field'],
			['{"ms": 2147483648}', 'got 2147483648'],
		];
		for (const [body, error] of cases) {
			const res = await post(body);
			expect([body, res.status, res.data.error]).toEqual([
				body,
				400,
				expect.stringContaining(error),
			]);
		}
		// A new connection is taken and answered: no outage began after any of the answers.
		expect((await client.get('/__sandbox/outage')).data).toEqual({ listening: true });
		expect([sb.listening, sb.stats().outages, clock.pending]).toEqual([true, 0, 0]);
	});
});
