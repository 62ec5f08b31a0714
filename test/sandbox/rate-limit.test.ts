// Rate-limit mode, on a FakeClock: time stands still while the requests arrive and moves only when
// the test moves it, so the counts are exact however slowly a loaded machine delivers them.
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { FakeClock, startSandbox, type Sandbox } from '../../sandbox/server';
import { until } from '../helpers/until';

const clock = new FakeClock();
let sb: Sandbox;
let http: AxiosInstance;

beforeAll(async () => {
	sb = await startSandbox({ seed: 1, clock });
	http = axios.create({ baseURL: sb.url, validateStatus: () => true });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const sms = (to = sb) =>
	http.post(`${to.url}/v1/sms`, {
		token: to.token,
		type: 'text',
		body: 'x',
		to: '573001234567',
		instance: 'i',
	});
const together = (n: number) => Promise.all(Array.from({ length: n }, () => sms()));
const withStatus = (responses: AxiosResponse[], status: number) =>
	responses.filter((r) => r.status === status);

const TOO_MANY = { statusCode: 429, body: { err: true, message: 'Too Many Requests' } };
const UNAVAILABLE = { statusCode: 503, body: { err: true, message: 'Service Unavailable' } };

/** The responses with the status of a refusal, each checked: the error envelope and its Retry-After. */
function refusals(
	responses: AxiosResponse[],
	envelope: typeof TOO_MANY,
	retryAfter: string,
): AxiosResponse[] {
	const refused = withStatus(responses, envelope.statusCode);
	for (const res of refused) {
		expect(res.data).toEqual(envelope);
		expect(res.headers['retry-after']).toBe(retryAfter);
	}
	return refused;
}

describe('token bucket', () => {
	test('of 50 concurrent sends with a burst of 20, 20 are executed and 30 answered 429 with Retry-After, recorded and counted; 1 s later, perSecond more', async () => {
		sb.setRateLimit({ perSecond: 5, burst: 20 });
		const responses = await together(50);
		expect(withStatus(responses, 200)).toHaveLength(20);
		expect(refusals(responses, TOO_MANY, '1')).toHaveLength(30);
		expect(sb.state.sentMessages.size).toBe(20);
		const recorded = sb.requests.filter((r) => r.fault === 'rateLimited');
		expect(recorded).toHaveLength(30);
		expect(recorded.every((r) => r.status === 429 && r.operationId === 'smsSend' && r.valid)).toBe(
			true,
		);
		expect(sb.stats()).toMatchObject({ total: 50, rateLimited: 30, overloaded: 0 });

		clock.advance(1000);
		const later = await together(50);
		expect(withStatus(later, 200)).toHaveLength(5);
		expect(refusals(later, TOO_MANY, '1')).toHaveLength(45);
		expect(sb.state.sentMessages.size).toBe(25);
	});

	test('the bucket refills at perSecond, and Retry-After is the whole seconds until the next token', async () => {
		sb.setRateLimit({ perSecond: 0.5, burst: 1 });
		expect((await sms()).status).toBe(200);
		const empty = await sms();
		expect([empty.status, empty.headers['retry-after']]).toEqual([429, '2']);
		clock.advance(1000); // half a token
		const half = await sms();
		expect([half.status, half.headers['retry-after']]).toEqual([429, '1']);
		clock.advance(999);
		expect((await sms()).status).toBe(429);
		clock.advance(1);
		expect((await sms()).status).toBe(200);
		expect((await sms()).status).toBe(429);
		expect(sb.state.sentMessages.size).toBe(2);
	});

	test('the bucket holds at most burst tokens, however long it stays unused', async () => {
		sb.setRateLimit({ perSecond: 10, burst: 3 });
		expect(withStatus(await together(5), 200)).toHaveLength(3);
		clock.advance(60_000);
		expect(withStatus(await together(10), 200)).toHaveLength(3);
		expect(sb.state.sentMessages.size).toBe(6);
	});

	test('the limit applies before faults and validation: a refused request meets no fault and gets 429 even when invalid', async () => {
		sb.setRateLimit({ perSecond: 1, burst: 1 });
		expect((await sms()).status).toBe(200);
		sb.injectFault({ kind: 'status', status: 500, times: 1 });
		const invalid = await http.post('/v1/sms', {
			token: sb.token,
			type: 'text',
			to: '573001234567',
			instance: 'i',
		});
		expect([invalid.status, invalid.data]).toEqual([429, TOO_MANY]);
		expect(sb.requests[1]).toMatchObject({
			operationId: 'smsSend',
			valid: false,
			errors: ['body.body is required'],
			fault: 'rateLimited',
			status: 429,
		});
		sb.setRateLimit(null);
		expect((await sms()).status).toBe(500);
		expect((await sms()).status).toBe(200);
	});

	test("setRateLimit(null) lets everything through; reset() restores the option's limit with a full bucket", async () => {
		// On the same still clock: the bucket is full after reset() by the reset, not by time passing.
		const limited = await startSandbox({ rateLimit: { perSecond: 1, burst: 1 }, clock });
		try {
			expect([(await sms(limited)).status, (await sms(limited)).status]).toEqual([200, 429]);
			limited.setRateLimit(null);
			expect(limited.rateLimit).toBeNull();
			const responses = await Promise.all(Array.from({ length: 30 }, () => sms(limited)));
			expect(withStatus(responses, 200)).toHaveLength(30);
			limited.reset();
			expect(limited.rateLimit).toEqual({ perSecond: 1, burst: 1 });
			expect([(await sms(limited)).status, (await sms(limited)).status]).toEqual([200, 429]);
			expect(limited.state.sentMessages.size).toBe(1);
		} finally {
			await limited.close();
		}
	});

	test('an invalid limit is refused by setRateLimit and by startSandbox', async () => {
		expect(() => sb.setRateLimit({ perSecond: 0, burst: 1 })).toThrow(
			'perSecond must be a number above 0',
		);
		await expect(startSandbox({ rateLimit: { perSecond: 1, burst: 0 } })).rejects.toThrow(
			'burst must be an integer of 1 or more',
		);
		expect(sb.rateLimit).toBeNull();
	});
});

describe('maxConcurrent', () => {
	test('with a latency fault of 300 ms, of 5 concurrent sends 2 are executed and 3 answered 503 with Retry-After 1', async () => {
		sb.setRateLimit({ perSecond: 100, burst: 100, maxConcurrent: 2 });
		sb.injectFault({ kind: 'latency', ms: 300 });
		const sends = together(5);
		await until(() => sb.stats().total === 5, 'the 5 sends to arrive');
		// The 3 refused are answered at once; the 2 admitted wait out their latency on the clock.
		expect([clock.pending, sb.state.sentMessages.size]).toEqual([2, 0]);
		clock.advance(300);
		const responses = await sends;
		expect(withStatus(responses, 200)).toHaveLength(2);
		expect(refusals(responses, UNAVAILABLE, '1')).toHaveLength(3);
		expect(sb.state.sentMessages.size).toBe(2);
		expect(sb.requests.filter((r) => r.fault === 'overloaded' && r.status === 503)).toHaveLength(3);
		expect(sb.stats()).toMatchObject({ total: 5, rateLimited: 0, overloaded: 3 });
		// Answered requests free their room.
		const next = together(2);
		await until(() => sb.stats().total === 7, 'the next 2 sends to arrive');
		clock.advance(300);
		expect(withStatus(await next, 200)).toHaveLength(2);
	});
});

describe('control route /__sandbox/rate-limit', () => {
	const control = axios.create({ validateStatus: () => true });
	const route = () => `${sb.url}/__sandbox/rate-limit`;
	// Sent as written: axios would quote a string that is not JSON.
	const putRaw = (body: string) =>
		control.put(route(), body, {
			headers: { 'content-type': 'application/json' },
			transformRequest: (d) => d,
		});

	test('sets, reads and clears the limit; control routes themselves are never limited', async () => {
		expect((await control.get(route())).data).toBeNull();
		const set = await control.put(route(), { perSecond: 1, burst: 1, maxConcurrent: 4 });
		expect([set.status, set.data]).toEqual([200, { perSecond: 1, burst: 1, maxConcurrent: 4 }]);
		expect((await control.get(route())).data).toEqual({ perSecond: 1, burst: 1, maxConcurrent: 4 });
		expect(sb.rateLimit).toEqual({ perSecond: 1, burst: 1, maxConcurrent: 4 });
		expect([(await sms()).status, (await sms()).status]).toEqual([200, 429]);
		expect((await control.get(`${sb.url}/__sandbox/requests`)).data).toMatchObject({
			total: 2,
			rateLimited: 1,
		});
		const cleared = await putRaw('null');
		expect([cleared.status, cleared.data]).toEqual([200, null]);
		expect((await sms()).status).toBe(200);
	});

	test('a bad body is answered 400 with what is wrong, and the limit stays as it was', async () => {
		const notJson = await putRaw('{perSecond: 1');
		expect([notJson.status, notJson.data.error]).toEqual([
			400,
			expect.stringContaining('body must be JSON'),
		]);
		const wrong = await control.put(route(), {
			perSecond: 0,
			burst: 1.5,
			maxConcurrent: 0,
			rps: 3,
		});
		expect(wrong.status).toBe(400);
		expect(wrong.data.error.split('; ')).toEqual([
			'rps is not a rate-limit field',
			'perSecond must be a number above 0, got 0',
			'burst must be an integer of 1 or more, got 1.5',
			'maxConcurrent must be an integer of 1 or more, got 0',
		]);
		expect((await putRaw('[1, 2]')).status).toBe(400);
		expect((await putRaw('"fast"')).status).toBe(400);
		expect((await control.get(route())).data).toBeNull();
	});
});
