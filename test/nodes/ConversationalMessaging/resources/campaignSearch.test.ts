/**
 * Campaign ID's list searched in a long list (the node's `methods.listSearch`, run as n8n runs it
 * for the editor, against the sandbox). The service cannot search, so a search reads pages until
 * it has a screenful of matches: n8n 2.41's editor asks for more (the `paginationToken`) only when
 * the user scrolls the list, which a list of a few rows, or "No results", cannot be.
 */
import type { INodeListSearchItems } from 'n8n-workflow';

import { CAMPAIGN_PAGE_SIZE } from '../../../../nodes/ConversationalMessaging/resources/campaign/getAll';
import {
	SEARCH_CAMPAIGNS,
	SEARCH_PAGE_CAP,
	SEARCH_SCREENFUL,
	SEARCH_TIME_CAP_MS,
} from '../../../../nodes/ConversationalMessaging/resources/campaign/search';
import { searchList } from '../../../helpers/engine';
import { useSandbox } from '../../../helpers/sandbox';

// More pages than one search reads: the list has SEARCH_PAGE_CAP + 4 pages, the last one short.
const PAGES = SEARCH_PAGE_CAP + 4;
const suite = useSandbox({ campaigns: CAMPAIGN_PAGE_SIZE * (PAGES - 1) + 20 });

const campaigns = () => suite.sandbox.state.campaigns;
const asItem = (campaign: { id: string; name: string }): INodeListSearchItems => ({
	name: campaign.name,
	value: campaign.id,
});

/** No seeded name holds it (they are made of words like Spring and Launch), nor any ID. */
const MARK = 'Quasar';

/** Names the campaigns at these places in the list after MARK; they are the search's only matches. */
function mark(indexes: number[]) {
	return indexes.map((index) => {
		const campaign = campaigns()[index];
		campaign.name = `${MARK} Offer ${index}`;
		return campaign;
	});
}

/** The place in the list of the n-th campaign (from 0) of a page (from 1). */
const at = (page: number, n = 7) => (page - 1) * CAMPAIGN_PAGE_SIZE + n;

/** The editor's request for the list, with the search text typed in the dropdown. */
async function search(filter: string, paginationToken?: string) {
	const before = suite.sandbox.requests.length;
	const result = await searchList(SEARCH_CAMPAIGNS, {
		credentials: { baseUrl: suite.sandbox.url, apiToken: suite.sandbox.token },
		parameters: {
			resource: 'campaign',
			operation: 'get',
			campaignId: { __rl: true, mode: 'list', value: '' },
		},
		filter,
		paginationToken,
	});
	const pages = suite.sandbox.requests.slice(before).map((request) => Number(request.query.page));
	return { result, pages };
}

const range = (from: number, to: number) =>
	Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('Campaign ID list searched in a long list', () => {
	afterEach(() => {
		jest.restoreAllMocks();
		suite.sandbox.reset();
	});

	it('reads on, in one call, past pages of few matches until a screenful; the token goes on from there', async () => {
		// One match every third page: the tenth is on page 28.
		const marked = mark(range(0, SEARCH_SCREENFUL + 1).map((n) => at(1 + 3 * n)));
		const first = await search(MARK.toLowerCase());
		expect(first.pages).toEqual(range(1, 28));
		expect(first.result.results).toEqual(marked.slice(0, SEARCH_SCREENFUL).map(asItem));
		expect(first.result.paginationToken).toEqual(expect.any(String));

		// Scrolled to the bottom: the rest, to the end of the list, each match once.
		const next = await search(MARK.toLowerCase(), first.result.paginationToken);
		expect(next.pages).toEqual(range(29, PAGES));
		expect(next.result).toEqual({ results: marked.slice(SEARCH_SCREENFUL).map(asItem) });
	});

	it('reads to the end of the list in one call when the few matches are far apart, the last near the end', async () => {
		// Past what one search read before (5 pages), within the cap.
		campaigns().length = CAMPAIGN_PAGE_SIZE * 30 + 20;
		const marked = mark([at(2), at(16), at(31, 15)]);
		const { result, pages } = await search(` ${MARK.toUpperCase()} `);
		expect(pages).toEqual(range(1, 31));
		// No token: the list ended, and "No more" is true.
		expect(result).toEqual({ results: marked.map(asItem) });
	});

	it('stops at the page cap with a token when the only match is near the end of a longer list', async () => {
		const [target] = mark([at(PAGES, 3)]);
		const first = await search(MARK);
		expect(first.pages).toEqual(range(1, SEARCH_PAGE_CAP));
		expect(first.result.results).toEqual([]);
		expect(first.result.paginationToken).toEqual(expect.any(String));
		// The editor shows "No results" and never asks for this; the token leads to the match.
		const next = await search(MARK, first.result.paginationToken);
		expect(next.pages).toEqual(range(SEARCH_PAGE_CAP + 1, PAGES));
		expect(next.result).toEqual({ results: [asItem(target)] });
	});

	it('stops at the time cap with a token, after at least one page', async () => {
		// A slow service: the clock moves a quarter of the cap with every page the sandbox answers.
		const now = Date.now.bind(Date);
		const start = suite.sandbox.requests.length;
		jest
			.spyOn(Date, 'now')
			.mockImplementation(
				() => now() + (suite.sandbox.requests.length - start) * (SEARCH_TIME_CAP_MS / 4),
			);
		const { result, pages } = await search('no campaign is called this');
		expect(pages).toEqual([1, 2, 3, 4]);
		expect(result.results).toEqual([]);
		expect(result.paginationToken).toEqual(expect.any(String));
	});

	it('reads one page per call without a search text, however long the list', async () => {
		const { result, pages } = await search('');
		expect(pages).toEqual([1]);
		expect(result.results).toEqual(campaigns().slice(0, CAMPAIGN_PAGE_SIZE).map(asItem));
		expect(result.paginationToken).toEqual(expect.any(String));
	});
});
