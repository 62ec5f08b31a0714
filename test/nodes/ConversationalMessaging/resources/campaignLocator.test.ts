/**
 * Campaign ID as a resource locator: its list (the node's `methods.listSearch`, run as n8n runs it
 * for the editor, with a real credential against the sandbox), and Get and Get Details reading the
 * locator's value through n8n's engine.
 */
import type {
	IDataObject,
	INode,
	INodeListSearchItems,
	INodeParameterResourceLocator,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { CAMPAIGN_PAGE_SIZE } from '../../../../nodes/ConversationalMessaging/resources/campaign/getAll';
import {
	CAMPAIGN_ID_PATTERN,
	SEARCH_CAMPAIGNS,
	SEARCH_SCREENFUL,
	TOKEN_REFUSED,
} from '../../../../nodes/ConversationalMessaging/resources/campaign/search';
import type { ListSearchOptions } from '../../../helpers/engine';
import { ENGINE_MAJOR, NODE_TYPE, loadNodeType, searchList } from '../../../helpers/engine';
import {
	expectTokenWhereDocumented,
	jsonOf,
	onlyRequest,
	useSandbox,
} from '../../../helpers/sandbox';
import { closedPortUrl } from '../../../reliability/operations';

// More campaigns than two pages hold: the list has three pages.
const suite = useSandbox({ campaigns: CAMPAIGN_PAGE_SIZE * 2 + 20 });
const WRONG_TOKEN = 'wrongToken9f8e7d6c5b4a';

const campaigns = () => suite.sandbox.state.campaigns;
const asItem = (campaign: { id: string; name: string }): INodeListSearchItems => ({
	name: campaign.name,
	value: campaign.id,
});

/** The editor's request for the list, with the sandbox's credential unless told otherwise. */
async function search(options: Partial<ListSearchOptions> = {}) {
	const before = suite.sandbox.requests.length;
	const result = await searchList(SEARCH_CAMPAIGNS, {
		credentials: { baseUrl: suite.sandbox.url, apiToken: suite.sandbox.token },
		parameters: {
			resource: 'campaign',
			operation: 'get',
			campaignId: { __rl: true, mode: 'list', value: '' },
		},
		...options,
	});
	return { result, requests: suite.sandbox.requests.slice(before) };
}

/** What the list search threw, with everything the editor could show of it. */
async function searchError(options: Partial<ListSearchOptions>) {
	const error = await search(options).then(
		() => undefined,
		(thrown: unknown) => thrown as Error & { description?: string; httpCode?: string },
	);
	if (!error) throw new Error('the list search did not fail');
	return { error, shown: [error.message, error.description, JSON.stringify(error)].join('\n') };
}

const locator = (
	mode: 'list' | 'id',
	value: string,
	extra: Partial<INodeParameterResourceLocator> = {},
): INodeParameterResourceLocator => ({
	__rl: true,
	mode,
	value,
	...extra,
});

describe('Campaign ID list (From List)', () => {
	afterEach(() => suite.sandbox.reset());

	it('lists the first page of campaigns by name, with a token for the next, in one request', async () => {
		const { result, requests } = await search();
		expect(result.results).toEqual(campaigns().slice(0, CAMPAIGN_PAGE_SIZE).map(asItem));
		expect(result.results.every((item) => item.url === undefined)).toBe(true);
		expect(result.paginationToken).toEqual(expect.any(String));
		expect(requests).toHaveLength(1);
		expect([requests[0].method, requests[0].path, requests[0].valid]).toEqual([
			'GET',
			'/v1/campaigns',
			true,
		]);
		expect(requests[0].query).toMatchObject({ page: '1', limit: String(CAMPAIGN_PAGE_SIZE) });
		expectTokenWhereDocumented(requests[0], suite.sandbox.token);
	});

	it('walks the pages with the pagination token, each campaign once, and ends at the short page', async () => {
		const seen: INodeListSearchItems[] = [];
		// Without a search text, one page per call: the pages each call read.
		const pages: string[][] = [];
		let paginationToken: string | undefined;
		do {
			const { result, requests } = await search({ paginationToken });
			pages.push(requests.map((request) => String(request.query.page)));
			seen.push(...result.results);
			paginationToken = result.paginationToken;
		} while (paginationToken !== undefined && pages.length < 10);
		expect(pages).toEqual([['1'], ['2'], ['3']]);
		expect(seen).toEqual(campaigns().map(asItem));
	});

	it('filters by name, in any case, and by ID, reading on until a screenful of matches or the end', async () => {
		const target = campaigns()[CAMPAIGN_PAGE_SIZE * 2 + 5];
		const word = target.name.split(' ')[0];
		const { result, requests } = await search({ filter: ` ${word.toUpperCase()} ` });
		// The matches of the pages read, in the list's order; it read on only while it had fewer than a screenful.
		const inPages = (pages: number) =>
			campaigns()
				.slice(0, CAMPAIGN_PAGE_SIZE * pages)
				.filter((campaign) => campaign.name.toLowerCase().includes(word.toLowerCase()));
		expect(requests.map((request) => request.query.page)).toEqual(
			requests.map((_, index) => String(index + 1)),
		);
		expect(result.results).toEqual(inPages(requests.length).map(asItem));
		expect(inPages(requests.length - 1).length).toBeLessThan(SEARCH_SCREENFUL);
		if (result.paginationToken !== undefined)
			expect(result.results.length).toBeGreaterThanOrEqual(SEARCH_SCREENFUL);

		// One match in the list: every page is read, in one call, to the short last page.
		const byId = await search({ filter: target.id });
		expect(byId.result).toEqual({ results: [asItem(target)] });
		expect(byId.requests).toHaveLength(3);

		const none = await search({ filter: 'no campaign is called this' });
		expect(none.result).toEqual({ results: [] });
		expect(none.requests).toHaveLength(3);
	});

	it('shows the ID of a campaign that has no name', async () => {
		campaigns()[0].name = '';
		const { result } = await search();
		expect(result.results[0]).toEqual({ name: campaigns()[0].id, value: campaigns()[0].id });
	});

	it('says the token was refused (HTTP 401), naming the credential, never the token', async () => {
		const { error, shown } = await searchError({
			credentials: { baseUrl: suite.sandbox.url, apiToken: WRONG_TOKEN },
		});
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe(TOKEN_REFUSED);
		expect(error.httpCode).toBe('401');
		expect(error.description).toMatch(/^The service answered 401: Unauthorized\. /);
		expect(shown).not.toContain(WRONG_TOKEN);
		expect(shown).not.toContain(suite.sandbox.token);
	});

	it('says the token was refused when the service answers 401 in the envelope of an HTTP 200', async () => {
		suite.sandbox.injectFault({
			kind: 'errTrue',
			statusCode: 401,
			message: 'Unauthorized',
			match: { operationId: 'campaignGetMany' },
		});
		const { error, shown } = await searchError({});
		expect([error.message, error.httpCode]).toEqual([TOKEN_REFUSED, '401']);
		expect(shown).not.toContain(suite.sandbox.token);
	});

	it("passes on the service's other failures with their status", async () => {
		suite.sandbox.injectFault({
			kind: 'errTrue',
			statusCode: 500,
			message: 'Campaign store offline',
			match: { operationId: 'campaignGetMany' },
		});
		const { error, shown } = await searchError({});
		expect([error.message, error.httpCode]).toEqual([
			'The service answered 500: Campaign store offline',
			'500',
		]);
		expect(shown).not.toContain(suite.sandbox.token);
	});

	it('says a stopped service could not be reached at its Base URL, never the token nor a password in it', async () => {
		const baseUrl = await closedPortUrl();
		const withPassword = baseUrl.replace('//', '//joe.user:p@ss@');
		const { error, shown } = await searchError({
			credentials: { baseUrl: `${withPassword}/v1/`, apiToken: suite.sandbox.token },
		});
		expect(error.message).toBe(
			`Could not reach the service at ${baseUrl}: the connection was refused`,
		);
		expect(error.httpCode).toBe('ECONNREFUSED');
		expect(error.description).toBe(
			'Check the Base URL of the Conversational Messaging credential, and that the service is running.',
		);
		expect(shown).not.toContain(suite.sandbox.token);
		expect(shown).not.toContain('joe.user');
		expect(shown).not.toContain('ss@');
	});
});

describe('Campaign ID in Get and Get Details', () => {
	const getBy = (campaignId: unknown, operation = 'get', items?: IDataObject[]) =>
		suite.run(
			{ resource: 'campaign', operation, campaignId: campaignId as INodeParameterResourceLocator },
			{ items },
		);

	it('reads a campaign picked From List (its value, not the name shown)', async () => {
		const run = await getBy(
			locator('list', 'campaign-03', { cachedResultName: 'Whatever it was called' }),
		);
		expect(onlyRequest(run, suite.sandbox.token).path).toBe('/v1/campaigns/campaign-03');
		expect(jsonOf(run)).toEqual([expect.objectContaining({ id: 'campaign-03' })]);
		const details = await getBy(locator('list', 'campaign-03'), 'getDetails');
		expect(onlyRequest(details, suite.sandbox.token).path).toBe(
			'/v1/campaigns/campaign-03/details',
		);
	});

	it('reads a campaign By ID, trimmed, and encodes it into the path', async () => {
		const run = await getBy(locator('id', ' campaign-04 '), 'getDetails');
		expect(onlyRequest(run, suite.sandbox.token).path).toBe('/v1/campaigns/campaign-04/details');
		const odd = await getBy(locator('id', 'a/b?c'));
		expect(odd.requests.map((request) => request.path)).toEqual(['/v1/campaigns/a%2Fb%3Fc']);
		expect(odd.error?.message).toBe('The service answered 404: Campaign a/b?c not found');
	});

	it('still reads a plain string (a value saved before the locator) and an expression in the locator', async () => {
		const plain = await getBy('campaign-05');
		expect(onlyRequest(plain, suite.sandbox.token).path).toBe('/v1/campaigns/campaign-05');
		const mapped = await getBy(locator('id', '={{ $json.id }}'), 'get', [
			{ id: 'campaign-06' },
			{ id: 'campaign-07' },
		]);
		expect(mapped.requests.map((request) => request.path)).toEqual([
			'/v1/campaigns/campaign-06',
			'/v1/campaigns/campaign-07',
		]);
		const plainExpression = await getBy('={{ $json.id }}', 'get', [{ id: 'campaign-08' }]);
		expect(plainExpression.requests.map((request) => request.path)).toEqual([
			'/v1/campaigns/campaign-08',
		]);
	});

	it("takes the ID from an AI agent's $fromAI() in the locator (tool mode)", async () => {
		// As a tool, the node runs on one item holding the model's arguments; $fromAI reads them.
		const run = await getBy(
			locator('id', "={{ $fromAI('campaignId', 'ID of the campaign', 'string') }}"),
			'getDetails',
			[{ campaignId: 'campaign-09' }],
		);
		expect(run.error).toBeUndefined();
		expect(run.requests.map((request) => request.path)).toEqual([
			'/v1/campaigns/campaign-09/details',
		]);
	});

	it("is refused by n8n before the run when empty, or when By ID holds a name (the mode's regex)", async () => {
		const before = suite.sandbox.requests.length;
		// n8n 1.x's engine says only that the workflow has issues.
		const issue = (words: string) => (ENGINE_MAJOR >= 2 ? words : 'The workflow has issues');
		await expect(getBy(locator('list', ''))).rejects.toThrow(
			issue('Parameter "Campaign ID" is required.'),
		);
		await expect(getBy(locator('id', ''))).rejects.toThrow(
			issue('Parameter "Campaign ID" is required.'),
		);
		await expect(getBy(locator('id', 'Spring Launch 3'))).rejects.toThrow(
			issue(CAMPAIGN_ID_PATTERN.errorMessage),
		);
		await expect(getBy(locator('id', 'campaign-03'))).resolves.toMatchObject({ error: undefined });
		expect(suite.sandbox.requests.length).toBe(before + 1);
	});

	it("shows the editor only n8n's required issue for an empty By ID, and the pattern's for an ID with a space", () => {
		// The issues the editor shows next to the field (n8n-workflow's NodeHelpers, as the editor calls it).
		const nodeType = loadNodeType();
		const issuesOf = (campaignId: INodeParameterResourceLocator) => {
			const node: INode = {
				id: 'n',
				name: 'Campaign',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { resource: 'campaign', operation: 'get', campaignId },
			};
			return NodeHelpers.getNodeParametersIssues(
				nodeType.description.properties,
				node,
				nodeType.description,
			)?.parameters?.campaignId;
		};
		expect(issuesOf(locator('id', ''))).toEqual(['Parameter "Campaign ID" is required.']);
		expect(issuesOf(locator('list', ''))).toEqual(['Parameter "Campaign ID" is required.']);
		expect(issuesOf(locator('id', 'Spring Launch 3'))).toEqual([CAMPAIGN_ID_PATTERN.errorMessage]);
		expect(issuesOf(locator('id', ' campaign-03 '))).toBeUndefined();
	});

	it('names the field before any request when an expression in the locator gives nothing usable', async () => {
		const empty = await getBy(locator('id', '={{ $json.id }}'), 'get', [{ id: ' ' }]);
		expect([empty.error?.message, empty.requests.length]).toEqual(['Campaign ID: is required', 0]);
		const object = await getBy(locator('id', '={{ $json.id }}'), 'get', [{ id: { nested: true } }]);
		expect([object.error?.message, object.requests.length]).toEqual([
			'Campaign ID: expected text, got an object',
			0,
		]);
	});
});
