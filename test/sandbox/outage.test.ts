// Outage mode. No assertion on elapsed time beyond generous bounds: refusals, answers and flags.
import axios, { type AxiosInstance } from 'axios';
import * as http from 'http';
import * as net from 'net';
import { startSandbox, type Sandbox } from '../../sandbox/server';

let sb: Sandbox;
let client: AxiosInstance;

beforeAll(async () => {
	sb = await startSandbox({ seed: 1 });
	// A new connection per request: a kept-alive one would outlive the listening socket.
	client = axios.create({
		baseURL: sb.url,
		validateStatus: () => true,
		httpAgent: new http.Agent({ keepAlive: false }),
	});
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await sleep(10);
	}
}

describe('sandbox.outage(ms)', () => {
	test('refuses new connections, then listens again on the same port; counted once', async () => {
		expect(await connect(sb.port)).toBe('connected');
		const over = sb.outage(400);
		expect(sb.listening).toBe(false);
		expect(sb.outageEndsAt).toEqual(expect.any(Number));
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
		await expect(sms()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
		expect(sb.stats().outages).toBe(1);
		sb.reset(); // the outage goes on through a reset, which zeroes the counts
		expect([sb.listening, sb.stats().outages]).toEqual([false, 0]);
		await over;
		expect([sb.listening, sb.outageEndsAt]).toEqual([true, undefined]);
		expect(await connect(sb.port)).toBe('connected');
		expect((await sms()).status).toBe(200);
		expect((await client.get('/__sandbox/outage')).data).toEqual({ listening: true });
	});

	test('a request already in hand when the outage begins is answered during it', async () => {
		sb.injectFault({ kind: 'latency', ms: 200, times: 1 });
		const inHand = sms();
		await until(() => sb.stats().total === 1, 'the request to arrive');
		const over = sb.outage(1500);
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
		const res = await inHand;
		expect(res.status).toBe(200);
		expect(sb.listening).toBe(false);
		expect(sb.state.sentMessages.size).toBe(1);
		await over;
		expect((await sms()).status).toBe(200);
	});

	test('one asked for during another extends it to the later end, and both resolve when it listens again', async () => {
		const first = sb.outage(600);
		const end = sb.outageEndsAt as number;
		const shorter = sb.outage(10);
		expect(sb.outageEndsAt).toBe(end);
		const longer = sb.outage(1200);
		expect(sb.outageEndsAt).toBeGreaterThan(end);
		await shorter;
		expect(sb.listening).toBe(true);
		await Promise.all([first, longer]);
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
		const other = await startSandbox();
		other.injectFault({ kind: 'latency', ms: 2000 });
		const inHand = axios.post(`${other.url}/v1/client`, { token: other.token });
		await until(() => other.stats().total === 1, 'the request to arrive');
		const over = other.outage(500);
		await other.close();
		await over;
		await expect(inHand).rejects.toMatchObject({ code: 'ECONNRESET' });
		await sleep(700);
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
		expect(await connect(sb.port)).toBe('ECONNREFUSED');
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
		await sleep(50);
		expect([sb.listening, sb.stats().outages]).toEqual([true, 0]);
	});
});
