import axios, { type AxiosInstance } from 'axios';
import * as net from 'net';
import { DEMO_TOKEN, FakeClock, startSandbox, type Sandbox } from '../../sandbox/server';

/** Latency faults wait on this clock: they let go when the test moves it, not after real time. */
const clock = new FakeClock();
let sb: Sandbox;
let http: AxiosInstance;

beforeAll(async () => {
	sb = await startSandbox({ seed: 1, clock });
	// raw text, so malformed and empty bodies reach the assertions as they were sent
	http = axios.create({ baseURL: sb.url, validateStatus: () => true, transformResponse: (d) => d });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const client = () => http.get(`/v1/client?token=${sb.token}`);
const sms = () =>
	http.post('/v1/sms', {
		token: sb.token,
		type: 'text',
		body: 'x',
		to: '573001234567',
		instance: 'i',
	});

describe('fault kinds', () => {
	test('latency holds the request for its time on the clock, then the request proceeds', async () => {
		sb.injectFault({ kind: 'latency', ms: 150, times: 1 });
		const held = sms();
		await clock.waiting(1);
		clock.advance(149);
		await new Promise((resolve) => setImmediate(resolve));
		expect([clock.pending, sb.state.sentMessages.size]).toEqual([1, 0]);
		clock.advance(1);
		expect((await held).status).toBe(200);
		expect(sb.state.sentMessages.size).toBe(1);
		expect((await sms()).status).toBe(200);
		expect(sb.requests.map((r) => r.fault)).toEqual(['latency', null]);
	});

	test('status answers with that HTTP status, an error envelope and Retry-After; the request is not executed', async () => {
		sb.injectFault({ kind: 'status', status: 429, retryAfter: 2, times: 1 });
		const res = await sms();
		expect(res.status).toBe(429);
		expect(res.headers['retry-after']).toBe('2');
		expect(JSON.parse(res.data)).toEqual({
			statusCode: 429,
			body: { err: true, message: 'Too Many Requests' },
		});
		expect(sb.state.sentMessages.size).toBe(0);
		expect((await sms()).status).toBe(200);
	});

	test('status with html answers a gateway page', async () => {
		sb.injectFault({ kind: 'status', status: 502, html: true, times: 1 });
		const res = await client();
		expect(res.status).toBe(502);
		expect(res.headers['content-type']).toMatch(/^text\/html/);
		expect(res.data).toContain('502 Bad Gateway');
	});

	test('errTrue answers HTTP 200 with an error envelope', async () => {
		sb.injectFault({ kind: 'errTrue', times: 1 });
		sb.injectFault({ kind: 'errTrue', statusCode: 503, message: 'Instance offline', times: 1 });
		const first = await client();
		const second = await client();
		expect([first.status, JSON.parse(first.data)]).toEqual([
			200,
			{ statusCode: 400, body: { err: true, message: 'Simulated service error' } },
		]);
		expect([second.status, JSON.parse(second.data)]).toEqual([
			200,
			{ statusCode: 503, body: { err: true, message: 'Instance offline' } },
		]);
	});

	test('redirect points to the same path and query on the other loopback host, which records what a client that follows it sends', async () => {
		sb.injectFault({ kind: 'redirect', status: 307, times: 2 });
		const held = await http.post(
			'/v1/sms',
			{ token: sb.token, type: 'text', body: 'x', to: '573001234567', instance: 'i' },
			{ maxRedirects: 0 },
		);
		expect(held.status).toBe(307);
		expect(held.headers.location).toBe(`${sb.elsewhere.url}/v1/sms`);
		expect(sb.elsewhere.requests).toEqual([]);
		// A client that follows a 307 sends the body, token included, to the other host.
		const followed = await sms();
		expect(followed.status).toBe(200);
		expect(sb.elsewhere.requests).toEqual([
			expect.objectContaining({
				method: 'POST',
				url: '/v1/sms',
				body: expect.stringContaining(sb.token),
			}),
		]);
		expect(sb.state.sentMessages.size).toBe(0);
		sb.reset();
		expect(sb.elsewhere.requests).toEqual([]);
	});

	test('malformed answers HTTP 200 with a body that is not JSON', async () => {
		sb.injectFault({ kind: 'malformed', times: 1 });
		const res = await client();
		expect(res.status).toBe(200);
		expect(res.headers['content-type']).toMatch(/^application\/json/);
		expect(() => JSON.parse(res.data)).toThrow();
	});

	test('empty answers HTTP 200 with no body', async () => {
		sb.injectFault({ kind: 'empty', times: 1 });
		const res = await client();
		expect([res.status, res.data]).toEqual([200, '']);
	});

	test('drop cuts the connection in the middle of the body', async () => {
		sb.injectFault({ kind: 'drop', times: 1 });
		await expect(client()).rejects.toThrow();
		expect(sb.requests[0]).toMatchObject({ fault: 'drop', status: 0 });
		expect((await client()).status).toBe(200);
	});
});

describe('cutAfterCommit', () => {
	test('the service carries the send out and records it, then the connection is cut before any byte of the answer', async () => {
		sb.injectFault({ kind: 'cutAfterCommit', times: 1 });
		await expect(sms()).rejects.toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
		expect([...sb.state.sentMessages.values()]).toEqual([
			expect.objectContaining({ channel: 'sms', to: '573001234567', body: 'x' }),
		]);
		expect(sb.requests[0]).toMatchObject({
			operationId: 'smsSend',
			fault: 'cutAfterCommit',
			status: 200,
		});
		expect((await sms()).status).toBe(200);
		expect(sb.state.sentMessages.size).toBe(2);
	});

	test('whatever the service answers is cut, an error too: the status it chose is recorded', async () => {
		sb.injectFault({ kind: 'cutAfterCommit', times: 1 });
		await expect(
			http.post('/v1/sms', {
				token: 'wrong',
				type: 'text',
				body: 'x',
				to: '573001234567',
				instance: 'i',
			}),
		).rejects.toMatchObject({ code: 'ECONNRESET' });
		expect(sb.requests[0]).toMatchObject({ fault: 'cutAfterCommit', status: 401 });
		expect(sb.state.sentMessages.size).toBe(0);
	});

	test('not one byte of the answer reaches the socket', async () => {
		sb.injectFault({ kind: 'cutAfterCommit', times: 1 });
		const body = JSON.stringify({
			token: sb.token,
			type: 'text',
			body: 'x',
			to: '573001234567',
			instance: 'i',
		});
		const received = await new Promise<string>((resolve, reject) => {
			let bytes = '';
			const socket = net.connect(sb.port, '127.0.0.1', () => {
				socket.write(
					`POST /v1/sms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
				);
			});
			socket.on('data', (chunk) => (bytes += chunk));
			socket.on('close', () => resolve(bytes));
			socket.on('error', reject);
		});
		expect(received).toBe('');
		expect(sb.state.sentMessages.size).toBe(1);
	});

	test('injected over HTTP, for a list of operations', async () => {
		const added = await axios.post(`${sb.url}/__sandbox/faults`, {
			kind: 'cutAfterCommit',
			match: { operationId: ['smsSend', 'socialnetSend'] },
			times: 2,
		});
		expect(added.data).toEqual({ faults: 1 });
		expect((await client()).status).toBe(200);
		await expect(sms()).rejects.toMatchObject({ code: 'ECONNRESET' });
		await expect(
			http.post('/v1/socialnet/send-chat', {
				token: sb.token,
				type: 'text',
				body: 'y',
				to: '573001234567',
				instance: 'i',
			}),
		).rejects.toMatchObject({ code: 'ECONNRESET' });
		expect((await sms()).status).toBe(200);
		expect(sb.requests.map((r) => r.fault)).toEqual([
			null,
			'cutAfterCommit',
			'cutAfterCommit',
			null,
		]);
		expect(sb.state.sentMessages.size).toBe(3);
	});

	test('the rate limit comes first: a refused request is not carried out and does not use up the fault', async () => {
		sb.setRateLimit({ perSecond: 0.001, burst: 1, maxConcurrent: 1 });
		sb.injectFault({ kind: 'cutAfterCommit', times: 2 });
		await expect(sms()).rejects.toMatchObject({ code: 'ECONNRESET' });
		// The cut request freed its room: this one meets the empty bucket, not the concurrency limit.
		expect((await sms()).status).toBe(429);
		expect(sb.state.sentMessages.size).toBe(1);
		expect(sb.requests.map((r) => [r.fault, r.status])).toEqual([
			['cutAfterCommit', 200],
			['rateLimited', 429],
		]);
		sb.setRateLimit(null);
		await expect(sms()).rejects.toMatchObject({ code: 'ECONNRESET' });
		expect((await sms()).status).toBe(200);
		expect(sb.state.sentMessages.size).toBe(3);
	});

	test('one outcome per request: a terminal fault injected first wins and leaves the cut for the next request', async () => {
		sb.injectFault({ kind: 'status', status: 500, times: 1 });
		sb.injectFault({ kind: 'cutAfterCommit', times: 1 });
		expect((await sms()).status).toBe(500);
		await expect(sms()).rejects.toMatchObject({ code: 'ECONNRESET' });
		expect(sb.state.sentMessages.size).toBe(1);
	});
});

describe('fault matching', () => {
	test('by operationId or path; unlimited by default until cleared', async () => {
		sb.injectFault({ kind: 'status', status: 500, match: { operationId: 'smsSend' } });
		sb.injectFault({ kind: 'status', status: 503, match: { path: '/v1/campaigns' } });
		expect((await client()).status).toBe(200);
		expect([(await sms()).status, (await sms()).status, (await sms()).status]).toEqual([
			500, 500, 500,
		]);
		expect((await http.get(`/v1/campaigns?token=${sb.token}`)).status).toBe(503);
		expect((await http.get(`/v1/campaigns/campaign-01?token=${sb.token}`)).status).toBe(200);
		sb.clearFaults();
		expect((await sms()).status).toBe(200);
	});

	test('a faulted request is still recorded and checked against the contract', async () => {
		sb.injectFault({ kind: 'empty' });
		await http.post('/v1/sms', {
			token: sb.token,
			type: 'text',
			to: '573001234567',
			instance: 'i',
		});
		expect(sb.requests[0]).toMatchObject({
			operationId: 'smsSend',
			valid: false,
			errors: ['body.body is required'],
			fault: 'empty',
		});
	});
});

describe('control routes under /__sandbox/', () => {
	const control = axios.create({ validateStatus: () => true });

	test('faults can be injected and cleared over HTTP, without a token', async () => {
		const added = await control.post(`${sb.url}/__sandbox/faults`, [
			{ kind: 'status', status: 500, match: { operationId: 'clientGet' }, times: 1 },
			{ kind: 'latency', ms: 1, match: { path: '/v1/sms' } },
		]);
		expect([added.status, added.data]).toEqual([200, { faults: 2 }]);
		expect((await client()).status).toBe(500);
		expect((await control.delete(`${sb.url}/__sandbox/faults`)).data).toEqual({ faults: 0 });
		expect((await sms()).status).toBe(200);
		expect(sb.requests.map((r) => r.fault)).toEqual(['status', null]);
		expect((await control.post(`${sb.url}/__sandbox/faults`, { kind: 'explode' })).status).toBe(
			400,
		);
	});

	test('requests reports counts per operationId, token places and violations', async () => {
		await client();
		await sms();
		await sms();
		await http.post('/v1/sms', {
			token: sb.token,
			type: 'text',
			body: 'x',
			to: '+57',
			instance: 'i',
		});
		const { data } = await control.get(`${sb.url}/__sandbox/requests`);
		expect(data).toMatchObject({
			total: 4,
			byOperation: { clientGet: 1, smsSend: 3 },
			violations: 1,
			tokenLocations: { body: 3, 'query:token': 1, 'query:api-token': 0, none: 0 },
			lastViolations: [
				{
					method: 'POST',
					path: '/v1/sms',
					operationId: 'smsSend',
					errors: ['body.to must match pattern "^[0-9]{6,15}$"'],
				},
			],
		});
	});

	test('rotate-token replaces the token at once and reset restores the seeded state', async () => {
		await sms();
		const { data } = await control.post(`${sb.url}/__sandbox/rotate-token`);
		expect(data.token).not.toBe(DEMO_TOKEN);
		expect((await http.get(`/v1/client?token=${DEMO_TOKEN}`)).status).toBe(401);
		expect((await http.get(`/v1/client?token=${data.token}`)).status).toBe(200);
		expect((await control.post(`${sb.url}/__sandbox/reset`)).data).toEqual({ token: DEMO_TOKEN });
		expect(sb.state.sentMessages.size).toBe(0);
		expect(sb.stats().total).toBe(0);
		expect((await client()).status).toBe(200);
		expect((await control.get(`${sb.url}/__sandbox/nothing`)).status).toBe(404);
	});
});
