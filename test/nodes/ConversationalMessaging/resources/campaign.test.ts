import { jsonOf, onlyRequest, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();

describe('Campaign', () => {
	it('gets a campaign and its details by id', async () => {
		const get = await suite.run({ resource: 'campaign', operation: 'get', campaignId: 'campaign-03' });
		expect([onlyRequest(get, suite.sandbox.token).method, get.requests[0].path]).toEqual(['GET', '/v1/campaigns/campaign-03']);
		expect(jsonOf(get)).toEqual([expect.objectContaining({ id: 'campaign-03' })]);
		const details = await suite.run({ resource: 'campaign', operation: 'getDetails', campaignId: 'campaign-03' });
		expect(onlyRequest(details, suite.sandbox.token).path).toBe('/v1/campaigns/campaign-03/details');
		expect(jsonOf(details)).toEqual([expect.objectContaining({ id: 'campaign-03', sent: expect.any(Number), delivered: expect.any(Number) })]);
	});

	it('returns up to Limit campaigns from the first page', async () => {
		const run = await suite.run({ resource: 'campaign', operation: 'getAll', returnAll: false, limit: 5 });
		const request = onlyRequest(run, suite.sandbox.token);
		expect(request.query).toMatchObject({ page: '1', limit: '5' });
		expect(jsonOf(run).map((campaign) => campaign.id)).toEqual(suite.sandbox.state.campaigns.slice(0, 5).map((campaign) => campaign.id));
		expect(run.items.every((item) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: 0 }))).toBe(true);
	});

	it('returns every campaign with Return All, page after page', async () => {
		const run = await suite.run({ resource: 'campaign', operation: 'getAll', returnAll: true });
		expect(run.requests.length).toBeGreaterThanOrEqual(1);
		run.requests.forEach((request, index) => expect(request.query.page).toBe(String(index + 1)));
		expect(jsonOf(run).map((campaign) => campaign.id)).toEqual(suite.sandbox.state.campaigns.map((campaign) => campaign.id));
	});
});
