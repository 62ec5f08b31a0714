import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { apiBaseUrl } from '../../shared/baseUrl';
import { CREDENTIAL_NAME } from '../../shared/constants';
import type { ServiceFailure } from '../../shared/envelope';
import { failureError, listRecords, readEnvelope } from '../../shared/envelope';
import { unreachedBy } from '../../shared/network';
import { NO_REDIRECTS } from '../../shared/redirects';
import { CAMPAIGN_PAGE_SIZE } from './getAll';

/**
 * The fields of a campaign record the list reads. The service's document does not show the
 * fields of its records, so the first of these keys that holds text or a number is taken (the
 * sandbox answers with `id` and `name`). Change them here if the live service names them
 * otherwise.
 */
export const CAMPAIGN_RECORD_FIELDS = {
	/** The identifier, which Get and Get Details put in their URL. */
	id: ['id', '_id', 'campaignId', 'idCampaign'],
	/** What the list shows; a record without any of them shows its identifier. */
	name: ['name', 'title', 'campaignName'],
};

/**
 * What a campaign ID typed By ID must look like. The document gives no format; an ID with a space
 * inside is taken to be a campaign's name typed in the wrong place (space around it is fine: the
 * node trims it). n8n anchors the regex with ^ and $. An empty ID matches: n8n's required check
 * says what is wrong then, and the editor would otherwise show this message next to it.
 */
export const CAMPAIGN_ID_PATTERN = {
	regex: '\\s*\\S*\\s*',
	errorMessage:
		'A campaign ID has no spaces: pick the campaign From List, or copy its ID from Campaign > Get Many',
};

/** The name of the list search method, in the node's `methods.listSearch`. */
export const SEARCH_CAMPAIGNS = 'searchCampaigns';

/**
 * Matches a search for typed text gathers before it answers: more than n8n's dropdown shows at once
 * (seven rows in n8n 2.41), so the list can be scrolled. With a search text, the editor asks for the
 * next page (`paginationToken`) only when the list is scrolled to its bottom, so a match on a later
 * page would be out of reach if the search answered with fewer.
 *
 * The service has no search parameter: the node reads the list page by page and matches the text
 * itself, and the editor searches anew, from page 1, after every pause in typing. The caps bound
 * one search's requests (which count against the account's rate limit: 50 pages, 2,500 campaigns)
 * and the time the editor shows its spinner. A search stopped by a cap answers with the matches it
 * has and a `paginationToken`; a campaign whose few matches lie further on is entered By ID.
 */
export const SEARCH_SCREENFUL = 10;
export const SEARCH_PAGE_CAP = 50;
export const SEARCH_TIME_CAP_MS = 10_000;

/** How long the editor waits for a page of campaigns. */
const PAGE_TIMEOUT_MS = 20_000;

export const TOKEN_REFUSED =
	'The service refused the API token: check the Conversational Messaging credential';

const REACH_ADVICE =
	'Check the Base URL of the Conversational Messaging credential, and that the service is running.';

/** Where the next search goes on: the service's page, and the first record of the page before (see below). */
interface PageMark {
	page: number;
	previousFirst?: string;
}

function readMark(paginationToken: string | undefined): PageMark {
	if (!paginationToken) return { page: 1 };
	try {
		const mark = JSON.parse(paginationToken) as PageMark;
		return Number.isInteger(mark.page) && mark.page > 0 ? mark : { page: 1 };
	} catch {
		return { page: 1 };
	}
}

function firstValue(record: IDataObject, keys: string[]): string | undefined {
	for (const key of keys) {
		const value = record[key];
		if (typeof value === 'string' && value.trim() !== '') return value;
		if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	}
	return undefined;
}

/** A record as the list shows it; undefined without an identifier, which could not be picked. */
function listItem(record: IDataObject): INodeListSearchItems | undefined {
	const id = firstValue(record, CAMPAIGN_RECORD_FIELDS.id);
	if (id === undefined) return undefined;
	// No `url`: the document names no page of a campaign that the editor could link to.
	return { name: firstValue(record, CAMPAIGN_RECORD_FIELDS.name)?.trim() ?? id, value: id };
}

/** The Base URL as the requests use it, without any user and password in it. */
function shownBaseUrl(baseUrl: unknown): string {
	return apiBaseUrl(baseUrl).replace(/\/\/[^/@]*@/, '//') || 'the Base URL';
}

/** A rejected token says so in words the editor shows next to its "Check credential" link. */
function listFailure(failure: ServiceFailure): ServiceFailure {
	if (failure.httpCode !== '401' && failure.httpCode !== '403') return failure;
	return {
		message: TOKEN_REFUSED,
		description: `${failure.message}. ${failure.description}`,
		httpCode: failure.httpCode,
	};
}

/** A request that got no answer. Only words are kept: the request's error holds the token. */
function requestFailure(error: unknown, baseUrl: string): ServiceFailure {
	const unreached = unreachedBy(error);
	if (unreached)
		return {
			message: `Could not reach the service at ${baseUrl}: ${unreached.reason}`,
			description: REACH_ADVICE,
			httpCode: unreached.code,
		};
	const words = error instanceof Error && error.message ? error.message : 'no answer';
	return {
		message: `The service at ${baseUrl} did not give the list of campaigns: ${words}`,
		description: REACH_ADVICE,
		httpCode: '',
	};
}

/** One page of `GET /v1/campaigns`, read like Campaign > Get Many reads it. */
async function readPage(
	this: ILoadOptionsFunctions,
	page: number,
	credentials: ICredentialDataDecryptedObject,
): Promise<IDataObject[]> {
	const request: IHttpRequestOptions = {
		method: 'GET',
		url: '/v1/campaigns',
		qs: { page, limit: CAMPAIGN_PAGE_SIZE },
		headers: { Accept: 'application/json' },
		json: true,
		returnFullResponse: true,
		// The envelope says what went wrong (a 401 may come on HTTP 200): every answer is read.
		ignoreHttpStatusErrors: true,
		timeout: PAGE_TIMEOUT_MS,
		...NO_REDIRECTS,
	};
	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(
			this,
			CREDENTIAL_NAME,
			request,
		)) as IN8nHttpFullResponse;
	} catch (error) {
		throw await failureError.call(
			this,
			requestFailure(error, shownBaseUrl(credentials.baseUrl)),
			credentials,
		);
	}
	const reading = readEnvelope(response);
	if ('failure' in reading)
		throw await failureError.call(this, listFailure(reading.failure), credentials);
	return listRecords(reading.payload);
}

/**
 * Campaign ID's From List: the campaigns, page by page (`paginationToken`), as the service lists
 * them, one page per call; with a search text, those whose name or ID contains it, in any case,
 * read on until a screenful of them, the end of the list or a cap (see above).
 */
export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const credentials = await this.getCredentials<ICredentialDataDecryptedObject>(CREDENTIAL_NAME);
	const wanted = (filter ?? '').trim().toLowerCase();
	const matches = (item: INodeListSearchItems) =>
		!wanted ||
		item.name.toLowerCase().includes(wanted) ||
		String(item.value).toLowerCase().includes(wanted);
	let { page, previousFirst } = readMark(paginationToken);
	const results: INodeListSearchItems[] = [];
	const started = Date.now();
	for (let read = 1; ; read++) {
		const records = await readPage.call(this, page, credentials);
		const items = records.map(listItem);
		if (records.length && items.every((item) => item === undefined)) {
			throw await failureError.call(
				this,
				{
					message: `The service listed campaigns without an identifier (none of ${CAMPAIGN_RECORD_FIELDS.id.join(', ')})`,
					description: 'Enter the campaign By ID instead.',
					httpCode: '',
				},
				credentials,
			);
		}
		const first = records.length
			? items[0]
				? String(items[0].value)
				: JSON.stringify(records[0])
			: undefined;
		// A service that ignores `page` answers page 1 again: the list ends there, not in a loop.
		if (first !== undefined && first === previousFirst) return { results };
		previousFirst = first;
		results.push(
			...items.filter((item): item is INodeListSearchItems => item !== undefined && matches(item)),
		);
		// A page shorter than asked for is the last.
		if (records.length < CAMPAIGN_PAGE_SIZE) return { results };
		page++;
		if (
			!wanted ||
			results.length >= SEARCH_SCREENFUL ||
			read >= SEARCH_PAGE_CAP ||
			Date.now() - started >= SEARCH_TIME_CAP_MS
		)
			break;
	}
	return { results, paginationToken: JSON.stringify({ page, previousFirst } satisfies PageMark) };
}

/** The node's `methods.listSearch`. */
export const campaignListSearch = { [SEARCH_CAMPAIGNS]: searchCampaigns };
