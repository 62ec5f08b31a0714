// Rate-limit mode. No assertion on elapsed time: counts, statuses, headers and state only.
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { startSandbox, type Sandbox } from '../../sandbox/server';

let sb: Sandbox;
let http: AxiosInstance;

beforeAll(async () => {
	sb = await startSandbox({ seed: 1 });
	http = axios.create({ baseURL: sb.url, validateStatus: () => true });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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

/** The responses with the status of a refusal, each checked: the error envelope, Retry-After in whole seconds. */
function refusals(responses: AxiosResponse[], envelope: typeof TOO_MANY): AxiosResponse[] {
	const refused = withStatus(responses, envelope.statusCode);
	for (const res of refused) {
		expect(res.data).toEqual(envelope);
		expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
	}
	return refused;
}

describe('token bucket', () => {
	test('of 50 concurrent sends with a burst of 20, 20 are executed and 30 answered 429 with Retry-After, recorded and counted', async () => {
		sb.setRateLimit({ perSecond: 1, burst: 20 });
		const responses = await together(50);
		expect(withStatus(responses, 200)).toHaveLength(20);
		expect(refusals(responses, TOO_MANY)).toHaveLength(30);
		expect(sb.state.sentMessages.size).toBe(20);
		const recorded = sb.requests.filter((r) => r.fault === 'rateLimited');
		expect(recorded).toHaveLength(30);
		expect(recorded.every((r) => r.status === 429 && r.operationId === 'smsSend' && r.valid)).toBe(
			true,
		);
		expect(sb.stats()).toMatchObject({ total: 50, rateLimited: 30, overloaded: 0 });
	});

	test('the bucket refills at perSecond', async () => {
		sb.setRateLimit({ perSecond: 20, burst: 1 });
		expect((await sms()).status).toBe(200);
		expect((await sms()).status).toBe(429);
		await sleep(200);
		expect((await sms()).status).toBe(200);
		expect(sb.state.sentMessages.size).toBe(2);
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
		const limited = await startSandbox({ rateLimit: { perSecond: 1, burst: 1 } });
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
		const responses = await together(5);
		expect(withStatus(responses, 200)).toHaveLength(2);
		expect(refusals(responses, UNAVAILABLE).map((res) => res.headers['retry-after'])).toEqual([
			'1',
			'1',
			'1',
		]);
		expect(sb.state.sentMessages.size).toBe(2);
		expect(sb.requests.filter((r) => r.fault === 'overloaded' && r.status === 503)).toHaveLength(3);
		expect(sb.stats()).toMatchObject({ total: 5, rateLimited: 0, overloaded: 3 });
		// Answered requests free their room.
		expect(withStatus(await together(2), 200)).toHaveLength(2);
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
