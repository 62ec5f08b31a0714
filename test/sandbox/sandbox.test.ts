import axios, { type AxiosInstance, type Method } from 'axios';
import type OpenAPIBackend from 'openapi-backend';
import {
	FakeClock,
	loadContract,
	OPERATION_IDS,
	startSandbox,
	type Sandbox,
} from '../../sandbox/server';

type Payload = Record<string, any>;

/** A researcher's run goes on as this clock moves, by the test's hand. */
const clock = new FakeClock();
let sb: Sandbox;
let http: AxiosInstance;
let api: OpenAPIBackend;
const RUN_MS = 600;

beforeAll(async () => {
	sb = await startSandbox({ seed: 1, researcherRunMs: RUN_MS, clock });
	http = axios.create({ baseURL: sb.url, validateStatus: () => true });
	({ api } = await loadContract());
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const withToken = (data: Payload = {}) => ({ token: sb.token, ...data });

/** Calls an operation that must succeed, checks the response against the contract, returns body minus err. */
async function ok(
	operationId: string,
	method: Method,
	url: string,
	data?: Payload,
): Promise<Payload> {
	const res = await http.request({ method, url, data });
	expect({
		operationId,
		status: res.status,
		statusCode: res.data.statusCode,
		err: res.data.body?.err,
	}).toEqual({ operationId, status: 200, statusCode: 200, err: false });
	expect({
		operationId,
		errors: api.validator.validateResponse(res.data, operationId, 200).errors,
	}).toEqual({ operationId, errors: null });
	const { err: _err, ...payload } = res.data.body;
	return payload;
}

async function fails(
	method: Method,
	url: string,
	data?: unknown,
): Promise<{ status: number; message: string }> {
	const res = await http.request({ method, url, data });
	expect(res.data).toEqual({
		statusCode: res.status,
		body: { err: true, message: expect.any(String) },
	});
	return { status: res.status, message: res.data.body.message };
}

test('a tour of all 27 operations answers per contract, with the payload shapes the node relies on', async () => {
	const t = `token=${sb.token}`;
	const agent = await ok(
		'agentCreate',
		'POST',
		'/v1/agent',
		withToken({ name: 'Ana Ruiz', phone: '573001112233', email: 'ana@example.com' }),
	);
	expect(agent).toEqual({
		id: expect.any(String),
		name: 'Ana Ruiz',
		phone: '573001112233',
		email: 'ana@example.com',
	});
	expect(await ok('agentGet', 'GET', `/v1/agent?id=${agent.id}&${t}`)).toEqual(agent);
	expect(await ok('agentDelete', 'DELETE', '/v1/agent', withToken({ id: agent.id }))).toEqual({
		id: agent.id,
		deleted: true,
	});

	const contact = await ok(
		'contactAdd',
		'POST',
		'/v1/contact',
		withToken({ idList: 'list-1', values: { phone: '573009998877', name: 'Leo', city: 'Cali' } }),
	);
	expect(contact).toEqual({
		id: expect.any(String),
		idList: 'list-1',
		phone: '573009998877',
		name: 'Leo',
		city: 'Cali',
	});
	const contacts = await ok('contactGetMany', 'GET', `/v1/contact?id=list-1&${t}`);
	expect(contacts).toEqual({ idList: 'list-1', data: expect.any(Array), total: 6 });
	expect(contacts.data[5]).toEqual({
		id: contact.id,
		phone: '573009998877',
		name: 'Leo',
		city: 'Cali',
	});

	const session = await ok(
		'liveChatSessionCreate',
		'POST',
		'/v1/live-chat/session',
		withToken({ instance: 'web-1', name: 'Leo' }),
	);
	expect(session).toEqual({ id: expect.any(String), instance: 'web-1', name: 'Leo' });
	expect(
		await ok(
			'liveChatMessageSend',
			'POST',
			'/v1/live-chat',
			withToken({ type: 'text', body: 'Hi', to: session.id, instance: 'web-1', user: true }),
		),
	).toEqual({ id: expect.any(String), to: session.id, type: 'text', status: 'sent' });

	const legacy = await ok(
		'legacyMessageSend',
		'POST',
		'/v1/msg-wh',
		withToken({
			type: 'document',
			body: 'https://files.example/a.pdf',
			to: '573001234567',
			instance: 'qr-1',
			filename: 'a.pdf',
		}),
	);
	expect(legacy).toEqual({
		id: expect.any(String),
		to: '573001234567',
		type: 'document',
		status: 'queued',
	});
	expect(await ok('legacyMessageGet', 'GET', `/v1/msg-wh/${legacy.id}?instance=qr-1&${t}`)).toEqual(
		{
			id: legacy.id,
			to: '573001234567',
			type: 'document',
			body: 'https://files.example/a.pdf',
			status: 'queued',
			instance: 'qr-1',
		},
	);

	expect(
		await ok(
			'smsSend',
			'POST',
			'/v1/sms',
			withToken({ type: 'text', body: 'Code 1234', to: '573001234567', instance: 'sms-1' }),
		),
	).toEqual({ id: expect.any(String), to: '573001234567', type: 'text', status: 'queued' });
	expect(
		await ok(
			'socialnetSend',
			'POST',
			'/v1/socialnet/send-chat',
			withToken({
				type: 'image',
				body: 'https://img.example/x.png',
				to: 'psid-77',
				instance: 'page-1',
				caption: 'New',
			}),
		),
	).toEqual({ id: expect.any(String), to: 'psid-77', type: 'image', status: 'queued' });
	expect(sb.state.sentMessages.size).toBe(4);

	const lead = await ok(
		'crmLeadInject',
		'POST',
		'/v1/crm',
		withToken({
			to: '573001234567@c.us',
			instance: 'i-1',
			text: 'Lead',
			area: 'sales',
			agent: 'agent-1',
			tags: ['vip'],
			channel: 'sn-messenger',
		}),
	);
	expect(lead).toEqual({
		id: expect.any(String),
		to: '573001234567@c.us',
		instance: 'i-1',
		text: 'Lead',
		area: 'sales',
		agent: 'agent-1',
		tags: ['vip'],
		channel: 'sn-messenger',
	});
	expect(
		await ok(
			'chatappNumberCheck',
			'POST',
			'/v1/valid-chatapp',
			withToken({ instance: 'i-1', number: '573001234568' }),
		),
	).toEqual({
		response: { id: '573001234568@c.us', status: 200, isBusiness: true, canReceiveMessage: true },
	});
	expect(
		(
			await ok(
				'chatappNumberCheck',
				'POST',
				'/v1/valid-chatapp',
				withToken({ instance: 'i-1', number: '573001234567' }),
			)
		).response,
	).toEqual({ id: '573001234567@c.us', status: 200, isBusiness: false, canReceiveMessage: false });

	const link = await ok(
		'shortLinkCreate',
		'POST',
		'/v1/short',
		withToken({ longUrl: 'https://example.com/a' }),
	);
	expect(link).toEqual({
		idUrl: expect.any(String),
		longUrl: 'https://example.com/a',
		shortUrl: `${sb.url}/s/${link.idUrl}`,
	});
	expect(
		await ok(
			'shortLinkUpdate',
			'PATCH',
			'/v1/short',
			withToken({ idUrl: link.idUrl, longUrl: 'https://example.com/b' }),
		),
	).toEqual({ ...link, longUrl: 'https://example.com/b' });

	const fields = {
		name: 'Mug',
		description: 'Blue mug',
		descriptionai: 'A blue mug',
		code: 'MUG-1',
		price: 12.5,
		category: ['kitchen'],
	};
	const created = await ok('productCreate', 'POST', '/v1/shop/products', withToken(fields));
	expect(created).toEqual({ id: expect.any(String), ...fields, status: 1 });
	expect(await ok('productGet', 'GET', `/v1/shop/products/${created.id}?${t}`)).toEqual(created);
	const update = { ...fields, price: 10, image: 'https://img.example/mug.png', status: 1 };
	expect(
		await ok('productUpdate', 'PUT', `/v1/shop/products/${created.id}`, withToken(update)),
	).toEqual({ id: created.id, ...update });
	expect(await ok('productDelete', 'DELETE', `/v1/shop/products/${created.id}?${t}`)).toEqual({
		id: created.id,
		deleted: true,
	});

	const page = await ok('campaignGetMany', 'GET', `/v1/campaigns?page=1&limit=10&${t}`);
	expect(page).toMatchObject({ page: 1, limit: 10, total: 23 });
	expect(await ok('campaignGet', 'GET', `/v1/campaigns/campaign-01?${t}`)).toEqual(page.data[0]);
	expect(await ok('campaignGetDetails', 'GET', `/v1/campaigns/campaign-01/details?${t}`)).toEqual({
		id: 'campaign-01',
		name: page.data[0].name,
		sent: expect.any(Number),
		delivered: expect.any(Number),
		read: expect.any(Number),
		failed: expect.any(Number),
	});
	expect(Object.keys(await ok('clientGet', 'GET', `/v1/client?${t}`)).sort()).toEqual([
		'created',
		'email',
		'id',
		'name',
		'plan',
	]);

	const files = [{ url: 'https://example.com/a.pdf', name: 'a.pdf', type: 'document' }];
	const researcher = await ok(
		'researcherCreate',
		'POST',
		'/v1/researcher',
		withToken({ name: 'Scan', description: 'Market', model: 'fast', type: 'policy-1', files }),
	);
	expect(researcher).toMatchObject({
		id: expect.any(String),
		name: 'Scan',
		description: 'Market',
		model: 'fast',
		type: 'policy-1',
		files,
		status: 0,
		progress: 0,
		output: null,
	});
	expect(
		await ok('researcherGet', 'GET', `/v1/researcher/${researcher.id}?fields=name,status&${t}`),
	).toEqual({ id: researcher.id, name: 'Scan', status: 0 });
	const more = [{ url: 'https://example.com', name: 'site', type: 'url' }];
	expect(
		(
			await ok(
				'researcherAddFiles',
				'PATCH',
				`/v1/researcher/${researcher.id}`,
				withToken({ files: more }),
			)
		).files,
	).toEqual([...files, ...more]);
	expect(
		await ok('researcherRun', 'PUT', `/v1/researcher/${researcher.id}`, withToken({ status: 1 })),
	).toMatchObject({ status: 1, progress: 0 });

	const stats = sb.stats();
	expect(stats.violations).toBe(0);
	expect(Object.keys(stats.byOperation).sort()).toEqual([...OPERATION_IDS].sort());
	expect(sb.requests.every((r) => r.valid && r.status === 200)).toBe(true);
});

test('a researcher goes from draft to running with rising progress to completed with output, as its run time passes', async () => {
	const url = '/v1/researcher/researcher-1';
	const fields = 'status,progress,process,output,output_format,updated';
	const view = () => ok('researcherGet', 'GET', `${url}?fields=${fields}&token=${sb.token}`);
	expect(await view()).toMatchObject({ status: 0, progress: 0, process: 'draft', output: null });
	const ranAt = clock.now();
	await ok('researcherRun', 'PUT', url, withToken({ status: 1 }));
	const running: Payload[] = [await view()];
	for (const step of [150, 150, 150, 149]) {
		clock.advance(step);
		running.push(await view());
	}
	expect(running.map((s) => [s.status, s.progress, s.process])).toEqual([
		[1, 0, 'queued'],
		[1, 25, 'reading'],
		[1, 50, 'analysing'],
		[1, 75, 'writing'],
		[1, 99, 'writing'],
	]);
	expect(running.every((s) => s.output === null && s.output_format === null)).toBe(true);
	clock.advance(1);
	const done = await view();
	expect(done).toEqual({
		id: 'researcher-1',
		status: 2,
		progress: 100,
		process: 'done',
		output: expect.stringMatching(/\S/),
		output_format: 'markdown',
		updated: new Date(ranAt + RUN_MS).toISOString(),
	});
	clock.advance(60_000);
	expect(await view()).toEqual(done);
	expect(sb.researcherView('researcher-1')).toMatchObject(done);
	// a completed researcher can run again
	expect(await ok('researcherRun', 'PUT', url, withToken({ status: 1 }))).toMatchObject({
		status: 1,
		progress: 0,
		output: null,
	});
});

describe('token', () => {
	test.each([
		['body', 'POST', '/v1/sms', true, 'body'],
		['query token', 'POST', '/v1/sms?token=', false, 'query:token'],
		['query api-token', 'GET', '/v1/client?api-token=', false, 'query:api-token'],
		['query token on GET', 'GET', '/v1/client?token=', false, 'query:token'],
	] as const)(
		'in the %s is accepted and its place recorded',
		async (_name, method, url, inBody, location) => {
			const sms = { type: 'text', body: 'x', to: '573001234567', instance: 'i' };
			const data = method === 'GET' ? undefined : inBody ? withToken(sms) : sms;
			const res = await http.request({ method, url: inBody ? url : url + sb.token, data });
			expect(res.status).toBe(200);
			expect(sb.requests[0]).toMatchObject({ valid: true, tokenLocation: location });
		},
	);

	test('missing or wrong gives the 401 Unauthorized envelope', async () => {
		const unauthorized = { statusCode: 401, body: { err: true, message: 'Unauthorized' } };
		const missing = await http.get('/v1/client');
		expect([missing.status, missing.data]).toEqual([401, unauthorized]);
		const wrong = await http.post('/v1/sms', {
			token: 'nope',
			type: 'text',
			body: 'x',
			to: '573001234567',
			instance: 'i',
		});
		expect([wrong.status, wrong.data]).toEqual([401, unauthorized]);
		expect(sb.requests.map((r) => [r.valid, r.tokenLocation])).toEqual([
			[false, null],
			[true, 'body'],
		]);
		expect(sb.requests[0].errors).toEqual([expect.stringContaining('token is missing')]);
		expect(sb.state.sentMessages.size).toBe(0);
	});

	test('a rotated token replaces the old one at once', async () => {
		const old = sb.token;
		const fresh = sb.rotateToken();
		expect(fresh).toMatch(/^[A-Za-z0-9]+$/);
		expect(fresh).not.toBe(old);
		expect((await http.get(`/v1/client?token=${old}`)).status).toBe(401);
		expect((await http.get(`/v1/client?token=${fresh}`)).status).toBe(200);
	});
});

describe('invalid requests get 400 naming the field', () => {
	test.each([
		[
			'contactAdd',
			'POST',
			'/v1/contact',
			{ idList: 'list-1', values: { phone: '+57 300' } },
			'body.values.phone must match pattern "^[0-9]{6,15}$"',
		],
		[
			'agentCreate',
			'POST',
			'/v1/agent',
			{ phone: '573001112233', email: 'a@b.co' },
			'body.name is required',
		],
		[
			'smsSend',
			'POST',
			'/v1/sms',
			{ type: 'text', body: 'x', to: '573001234567', instance: 'i', sender: 'me' },
			'body.sender is not allowed',
		],
		[
			'legacyMessageSend',
			'POST',
			'/v1/msg-wh',
			{ type: 'chat', body: 'x', to: '573001234567', instance: 'i', caption: 'c' },
			'caption is only allowed when type is image or video',
		],
		[
			'legacyMessageSend',
			'POST',
			'/v1/msg-wh',
			{ type: 'text', body: 'x', to: '573001234567', instance: 'i' },
			'body.type must be one of chat, image',
		],
		[
			'crmLeadInject',
			'POST',
			'/v1/crm',
			{ to: '573001234567', instance: 'i', text: 't' },
			'body.to must match pattern "^[0-9]{6,15}@c\\.us$"',
		],
		[
			'crmLeadInject',
			'POST',
			'/v1/crm',
			{ to: '573001234567@c.us', instance: 'i', text: 't', agent: 'agent-1' },
			'agent is only allowed together with area',
		],
		[
			'researcherRun',
			'PUT',
			'/v1/researcher/researcher-1',
			{ status: 2 },
			'body.status must be one of 1',
		],
		[
			'productCreate',
			'POST',
			'/v1/shop/products',
			{
				name: 'n',
				description: 'd',
				descriptionai: 'd',
				code: 'c',
				price: '9.90',
				category: ['x'],
			},
			'body.price must be number',
		],
	] as const)('%s: %s %s', async (_op, method, url, data, message) => {
		const res = await fails(method, url, withToken(data));
		expect(res.status).toBe(400);
		expect(res.message).toContain(message);
		expect(sb.requests[0]).toMatchObject({
			valid: false,
			errors: expect.arrayContaining([expect.stringContaining(message)]),
		});
	});

	test('query parameters and malformed JSON', async () => {
		expect(await fails('GET', `/v1/campaigns?page=0&token=${sb.token}`)).toEqual({
			status: 400,
			message: 'query.page must be >= 1',
		});
		expect(
			(await fails('GET', `/v1/researcher/researcher-1?fields=status,secret&token=${sb.token}`))
				.message,
		).toMatch(/^query\.fields must match pattern/);
		const malformed = await http.post(`/v1/sms?token=${sb.token}`, '{"type":', {
			headers: { 'content-type': 'application/json' },
		});
		expect([malformed.status, malformed.data.body.message]).toEqual([
			400,
			expect.stringMatching(/^body is not valid JSON/),
		]);
	});
});

test('unknown ids give 404 "... not found", unknown routes 404 and other methods 405', async () => {
	const t = `token=${sb.token}`;
	const cases: Array<[Method, string, Payload | undefined, string]> = [
		['GET', `/v1/agent?id=agent-x&${t}`, undefined, 'Agent agent-x not found'],
		['DELETE', '/v1/agent', withToken({ id: 'agent-x' }), 'Agent agent-x not found'],
		['GET', `/v1/contact?id=list-x&${t}`, undefined, 'List list-x not found'],
		[
			'POST',
			'/v1/live-chat',
			withToken({ type: 'text', body: 'x', to: 'lcs-x', instance: 'i' }),
			'Session lcs-x not found',
		],
		['GET', `/v1/msg-wh/msg-x?${t}`, undefined, 'Message msg-x not found'],
		[
			'PATCH',
			'/v1/short',
			withToken({ idUrl: 'nope', longUrl: 'https://example.com' }),
			'Short link nope not found',
		],
		['GET', `/v1/shop/products/p-x?${t}`, undefined, 'Product p-x not found'],
		['DELETE', `/v1/shop/products/p-x?${t}`, undefined, 'Product p-x not found'],
		['GET', `/v1/campaigns/c-x?${t}`, undefined, 'Campaign c-x not found'],
		['GET', `/v1/campaigns/c-x/details?${t}`, undefined, 'Campaign c-x not found'],
		['GET', `/v1/researcher/r-x?${t}`, undefined, 'Researcher r-x not found'],
		['PUT', '/v1/researcher/r-x', withToken({ status: 1 }), 'Researcher r-x not found'],
	];
	for (const [method, url, data, message] of cases)
		expect(await fails(method, url, data)).toEqual({ status: 404, message });
	expect(await fails('GET', `/v1/nothing?${t}`)).toEqual({
		status: 404,
		message: 'Route GET /v1/nothing not found',
	});
	expect(await fails('PATCH', '/v1/agent', withToken())).toEqual({
		status: 405,
		message: 'Method PATCH not allowed on /v1/agent',
	});
	expect(sb.stats().violations).toBe(2);
});

test('campaigns paginate over several pages', async () => {
	const pages: Payload[] = [];
	for (let page = 1; page <= 4; page++)
		pages.push(
			await ok('campaignGetMany', 'GET', `/v1/campaigns?page=${page}&limit=10&token=${sb.token}`),
		);
	expect(pages.map((p) => [p.page, p.limit, p.total, p.data.length])).toEqual([
		[1, 10, 23, 10],
		[2, 10, 23, 10],
		[3, 10, 23, 3],
		[4, 10, 23, 0],
	]);
	const ids = pages.flatMap((p) => p.data.map((c: Payload) => c.id));
	expect(new Set(ids).size).toBe(23);
	expect(await ok('campaignGetMany', 'GET', `/v1/campaigns?token=${sb.token}`)).toEqual(pages[0]);
});

describe('determinism and options', () => {
	let twin: Sandbox;
	beforeAll(async () => {
		twin = await startSandbox({ seed: 1, errorsAsHttp200: true, maxRecorded: 2 });
	});
	afterAll(() => twin.close());

	test('the same seed gives the same data and ids, another seed other data', async () => {
		const other = await startSandbox({ seed: 2 });
		await other.close();
		// Short links carry their sandbox's own address (its port); all else is the same.
		const portless = (s: Sandbox) => ({
			...s.state,
			shortLinks: [...s.state.shortLinks.values()].map((l) => ({
				...l,
				shortUrl: l.shortUrl.replace(s.url, ''),
			})),
		});
		expect(portless(twin)).toEqual(portless(sb));
		expect(other.state.campaigns).not.toEqual(sb.state.campaigns);
		const create = async (base: string, token: string) =>
			(
				await axios.post(`${base}/v1/agent`, {
					token,
					name: 'A',
					phone: '573001112233',
					email: 'a@b.co',
				})
			).data.body.id;
		const first = await create(sb.url, sb.token);
		expect(await create(twin.url, twin.token)).toBe(first);
		sb.reset();
		expect(await create(sb.url, sb.token)).toBe(first);
	});

	test('errorsAsHttp200 keeps the envelope statusCode but answers HTTP 200; maxRecorded bounds requests', async () => {
		const twinHttp = axios.create({ baseURL: twin.url, validateStatus: () => true });
		const res = await twinHttp.get(`/v1/agent?id=agent-x&token=${twin.token}`);
		expect([res.status, res.data]).toEqual([
			200,
			{ statusCode: 404, body: { err: true, message: 'Agent agent-x not found' } },
		]);
		await twinHttp.get('/v1/client');
		await twinHttp.get(`/v1/client?token=${twin.token}`);
		expect(twin.requests.map((r) => r.status)).toEqual([200, 200]);
		expect(twin.stats().total).toBeGreaterThanOrEqual(3);
	});
});
