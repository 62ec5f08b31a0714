/**
 * How service answers become items or errors, through the engine against the sandbox: the
 * envelope is unwrapped, and every kind of failure the service or a gateway can produce
 * becomes a NodeApiError that says what happened and what to do.
 */
import { readEnvelope } from '../../../nodes/ConversationalMessaging/service/envelope';
import { jsonOf, SEND_SMS as sms, useSandbox } from '../../helpers/sandbox';

const suite = useSandbox();
const phones = (count: number) =>
	Array.from({ length: count }, (_, index) => ({
		phone: `5730012345${String(index).padStart(2, '0')}`,
	}));

afterEach(() => suite.sandbox.clearFaults());

describe('error envelopes', () => {
	it('a rejected token (envelope 401 on HTTP 401) says Unauthorized and how to fix it', async () => {
		const run = await suite.run(sms, { items: phones(1), apiToken: 'wrong-token' });
		expect(run.error?.message).toBe('The service answered 401: Unauthorized');
		expect(run.error?.description).toContain('Update the credential with the current token');
		expect((run.error as { httpCode?: string }).httpCode).toBe('401');
	});

	it('an envelope 401 on HTTP 200 is an error too', async () => {
		suite.sandbox.injectFault({ kind: 'errTrue', statusCode: 401, message: 'Unauthorized' });
		const run = await suite.run(sms, { items: phones(1) });
		expect(run.error?.message).toBe('The service answered 401: Unauthorized');
	});

	it('err: true on HTTP 200 is an error with the service message', async () => {
		suite.sandbox.injectFault({ kind: 'errTrue', message: 'Instance line-1 is disconnected' });
		const run = await suite.run(sms, { items: phones(1) });
		expect(run.error?.message).toBe('The service answered 400: Instance line-1 is disconnected');
		expect(run.items).toEqual([]);
	});

	it('an HTML page from a gateway is reported as such, with the HTTP status', async () => {
		suite.sandbox.injectFault({ kind: 'status', status: 502, html: true });
		const run = await suite.run(sms, { items: phones(1) });
		expect(run.error?.message).toMatch(
			/^The service answered HTTP 502 with a body that is not JSON/,
		);
		expect(run.error?.description).toContain('Retry On Fail');
	});

	it('429 reports the Retry-After wait', async () => {
		suite.sandbox.injectFault({ kind: 'status', status: 429, retryAfter: 7 });
		const run = await suite.run({
			resource: 'campaign',
			operation: 'get',
			campaignId: 'campaign-03',
		});
		expect(run.error?.message).toBe('The service answered 429: Too Many Requests');
		expect(run.error?.description).toContain('wait 7 s');
	});

	it('a send that the service keeps refusing with 429 fails once the wait allowed is used up, saying it was not carried out', async () => {
		suite.sandbox.injectFault({ kind: 'status', status: 429, retryAfter: 7 });
		const run = await suite.run(
			{ ...sms, messagingSendOptions: { maxWait: 5 } },
			{ items: phones(1) },
		);
		expect(run.error?.message).toBe('The service answered 429: Too Many Requests');
		expect(run.error?.description).toBe(
			'The service still refused the request after 1 try and 0 s of waiting (it asks to wait 7 s); it was not carried out. Lower Max Requests in Flight or raise Max Wait (Send Options), or send fewer items at a time.',
		);
		expect(run.requests).toHaveLength(1);
	});

	it('a malformed or empty body is an error, not an empty item', async () => {
		suite.sandbox.injectFault({ kind: 'malformed', times: 1 });
		const malformed = await suite.run(sms, { items: phones(1) });
		expect(malformed.error?.message).toMatch(/not JSON/);
		suite.sandbox.injectFault({ kind: 'empty', times: 1 });
		const empty = await suite.run(sms, { items: phones(1) });
		expect(empty.error?.message).toMatch(/empty answer/);
	});
});

describe('continue on fail', () => {
	it('gives one output per input: failed items carry the error and stay paired, the others are sent once', async () => {
		const items = [...phones(2), { phone: 'not a phone' }, ...phones(3).slice(2)];
		const before = suite.sandbox.state.sentMessages.size;
		const run = await suite.run(sms, { items, continueOnFail: true });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(4);
		expect(run.items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3].map((item) => ({ item })),
		);
		expect(run.items[2].json.error).toMatch(/^Recipient Phone: "not a phone"/);
		expect(run.requests).toHaveLength(3);
		expect(suite.sandbox.state.sentMessages.size - before).toBe(3);
		expect(jsonOf(run).filter((json) => json.status === 'queued')).toHaveLength(3);
	});

	it('a service error on one item leaves the others untouched', async () => {
		const run = await suite.run(
			{
				resource: 'shortLink',
				operation: 'update',
				shortLinkId: '={{ $json.id }}',
				newLongUrl: 'https://example.com/x',
			},
			{ items: [{ id: 'welcome' }, { id: 'missing' }, { id: 'welcome' }], continueOnFail: true },
		);
		expect(run.items).toHaveLength(3);
		// n8n shows an error item as its message alone: the node's message carries the fix.
		expect(run.items[1].json.error).toBe(
			'The service answered 404: Short link missing not found. Nothing exists with that identifier. Check the ID; the record may have been deleted. If every operation answers 404, check the Base URL of the credential.',
		);
		expect(run.items[1].pairedItem).toEqual({ item: 1 });
		expect(run.items[0].json).toMatchObject({ idUrl: 'welcome' });
	});
});

describe('redirects', () => {
	it('names where a redirect pointed by its origin only (its path and query could hold the token), or says it stays on the host', () => {
		const failure = (location?: string) => {
			const reading = readEnvelope({
				statusCode: 302,
				headers: location === undefined ? {} : { location },
				body: '',
			});
			return 'failure' in reading ? reading.failure : undefined;
		};
		expect(failure('https://api.example.com/v1/client?token=abc')).toEqual({
			message:
				'The service answered 302, a redirect to https://api.example.com: the request was not carried out there',
			description: expect.stringContaining(
				"Put the service's final address in the credential's Base URL",
			),
			httpCode: '302',
		});
		expect(failure('/v2/client?token=abc')?.message).toBe(
			'The service answered 302, a redirect to another address on the same host: the request was not carried out there',
		);
		expect(failure()?.message).toBe(
			'The service answered 302, a redirect to no address: the request was not carried out there',
		);
	});
});
