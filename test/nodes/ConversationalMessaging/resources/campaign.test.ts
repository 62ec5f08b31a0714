import { CAMPAIGN_PAGE_SIZE } from '../../../../nodes/ConversationalMessaging/resources/campaign/getAll';
import { jsonOf, onlyRequest, useSandbox } from '../../../helpers/sandbox';

// More campaigns than two pages hold, so that Return All has to walk three pages.
const suite = useSandbox({ campaigns: CAMPAIGN_PAGE_SIZE * 2 + 20 });
const allIds = () => suite.sandbox.state.campaigns.map((campaign) => campaign.id);

describe('Campaign', () => {
	it('gets a campaign and its details by id', async () => {
		const get = await suite.run({
			resource: 'campaign',
			operation: 'get',
			campaignId: 'campaign-03',
		});
		expect([onlyRequest(get, suite.sandbox.token).method, get.requests[0].path]).toEqual([
			'GET',
			'/v1/campaigns/campaign-03',
		]);
		expect(jsonOf(get)).toEqual([expect.objectContaining({ id: 'campaign-03' })]);
		const details = await suite.run({
			resource: 'campaign',
			operation: 'getDetails',
			campaignId: 'campaign-03',
		});
		expect(onlyRequest(details, suite.sandbox.token).path).toBe(
			'/v1/campaigns/campaign-03/details',
		);
		expect(jsonOf(details)).toEqual([
			expect.objectContaining({
				id: 'campaign-03',
				sent: expect.any(Number),
				delivered: expect.any(Number),
			}),
		]);
	});

	it('returns up to Limit campaigns from the first page', async () => {
		const run = await suite.run({
			resource: 'campaign',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect(request.query).toMatchObject({ page: '1', limit: '5' });
		expect(jsonOf(run).map((campaign) => campaign.id)).toEqual(allIds().slice(0, 5));
		expect(
			run.items.every((item) => JSON.stringify(item.pairedItem) === JSON.stringify({ item: 0 })),
		).toBe(true);
	});

	it('returns every campaign with Return All, page after page, and stops at the short page', async () => {
		const run = await suite.run({ resource: 'campaign', operation: 'getAll', returnAll: true });
		expect(run.requests.map((request) => request.query)).toEqual(
			[1, 2, 3].map((page) =>
				expect.objectContaining({ page: String(page), limit: String(CAMPAIGN_PAGE_SIZE) }),
			),
		);
		expect(run.requests.every((request) => request.valid)).toBe(true);
		expect(jsonOf(run).map((campaign) => campaign.id)).toEqual(allIds());
	});

	it('walks pages until a Limit larger than a page is met, no further', async () => {
		const run = await suite.run({
			resource: 'campaign',
			operation: 'getAll',
			returnAll: false,
			limit: CAMPAIGN_PAGE_SIZE + 5,
		});
		expect(run.requests).toHaveLength(2);
		expect(jsonOf(run).map((campaign) => campaign.id)).toEqual(
			allIds().slice(0, CAMPAIGN_PAGE_SIZE + 5),
		);
	});
});
