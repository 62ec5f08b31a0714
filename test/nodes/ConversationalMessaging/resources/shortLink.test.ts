import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();

describe('Short Link', () => {
	it('creates a short link, with or without a chosen id', async () => {
		const chosen = await suite.run({
			resource: 'shortLink',
			operation: 'create',
			longUrl: 'https://example.com/sale',
			shortLinkFields: { idUrl: 'sale' },
		});
		const request = onlyRequest(chosen, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/short']);
		expect(sentBody(request)).toEqual({ longUrl: 'https://example.com/sale', idUrl: 'sale' });
		expect(jsonOf(chosen)).toEqual([
			expect.objectContaining({
				idUrl: 'sale',
				longUrl: 'https://example.com/sale',
				shortUrl: expect.any(String),
			}),
		]);
		const generated = await suite.run({
			resource: 'shortLink',
			operation: 'create',
			longUrl: 'https://example.com/other',
		});
		expect(sentBody(onlyRequest(generated, suite.sandbox.token))).toEqual({
			longUrl: 'https://example.com/other',
		});
	});

	it('updates the target of a link', async () => {
		const run = await suite.run({
			resource: 'shortLink',
			operation: 'update',
			shortLinkId: 'welcome',
			newLongUrl: 'https://example.com/new',
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['PATCH', '/v1/short']);
		expect(sentBody(request)).toEqual({ idUrl: 'welcome', longUrl: 'https://example.com/new' });
		expect(suite.sandbox.state.shortLinks.get('welcome')?.longUrl).toBe('https://example.com/new');
	});

	it('rejects a long URL that is not a web address', async () => {
		const run = await suite.run({
			resource: 'shortLink',
			operation: 'create',
			longUrl: 'example.com',
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('Long URL: "example.com" is not a web address');
	});

	it('reports an unknown link with the service message and a hint', async () => {
		const run = await suite.run({
			resource: 'shortLink',
			operation: 'update',
			shortLinkId: 'nope',
			newLongUrl: 'https://example.com/x',
		});
		expect(run.requests).toHaveLength(1);
		expect(run.error?.message).toMatch(/^The service answered 404: .*nope.*not found/i);
		expect(run.error?.description).toContain('Check the ID');
	});
});
