import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { clock } from '../../clock';
import { apiBaseUrl, CREDENTIAL_NAME, withoutUserInfo } from '../../service/account';
import type { ServiceFailure } from '../../service/envelope';
import { failureError, listRecords, readEnvelope } from '../../service/envelope';
import { unreachedBy } from '../../service/network';
import { NO_REDIRECTS } from '../../service/redirects';
import { CAMPAIGN_PAGE_SIZE } from './getAll';

/** The service does not document its records' fields: the first of these keys with a value is read. */
const CAMPAIGN_RECORD_FIELDS = {
	id: ['id', '_id', 'campaignId', 'idCampaign'],
	name: ['name', 'title', 'campaignName'],
};

/**
 * No documented format; a space inside is taken for a name typed in the wrong place. An empty ID
 * matches, so that only n8n's required check speaks then (n8n anchors the regex).
 */
export const CAMPAIGN_ID_PATTERN = {
	regex: '\\s*\\S*\\s*',
	errorMessage:
		'A campaign ID has no spaces: pick the campaign From List, or copy its ID from Campaign > Get Many',
};

export const SEARCH_CAMPAIGNS = 'searchCampaigns';

/**
 * The service has no search: the node reads pages and matches the text itself, gathering more
 * than n8n's dropdown shows (seven rows), as the editor asks for the next page only once the list
 * is scrolled. The caps bound one search's requests (they count against the rate limit) and the
 * spinner's time; a capped search answers what it has.
 */
export const SEARCH_SCREENFUL = 10;
export const SEARCH_PAGE_CAP = 50;
export const SEARCH_TIME_CAP_MS = 10_000;

export const TOKEN_REFUSED =
	'The service refused the API token: check the Conversational Messaging credential';

/** Where the next search goes on; `previousFirst` spots a service that ignores `page`. */
interface PageMark {
	page: number;
	previousFirst?: string;
}

function readMark(paginationToken: string | undefined): PageMark {
	try {
		const mark = JSON.parse(paginationToken ?? '') as PageMark;
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

/** Undefined without an identifier, which could not be picked. */
function listItem(record: IDataObject): INodeListSearchItems | undefined {
	const id = firstValue(record, CAMPAIGN_RECORD_FIELDS.id);
	if (id === undefined) return undefined;
	// No `url`: the document names no page of a campaign that the editor could link to.
	return { name: firstValue(record, CAMPAIGN_RECORD_FIELDS.name)?.trim() ?? id, value: id };
}

/** In words the editor shows next to its "Check credential" link. */
function listFailure(failure: ServiceFailure): ServiceFailure {
	if (failure.httpCode !== '401' && failure.httpCode !== '403') return failure;
	return {
		message: TOKEN_REFUSED,
		description: `${failure.message}. ${failure.description}`,
		httpCode: failure.httpCode,
	};
}

/** In words only, as the request's error holds the token; the Base URL without user:password. */
function requestFailure(error: unknown, credentialBaseUrl: unknown): ServiceFailure {
	const baseUrl = withoutUserInfo(apiBaseUrl(credentialBaseUrl)) || 'the Base URL';
	const unreached = unreachedBy(error);
	const words = error instanceof Error && error.message ? error.message : 'no answer';
	return {
		message: unreached
			? `Could not reach the service at ${baseUrl}: ${unreached.reason}`
			: `The service at ${baseUrl} did not give the list of campaigns: ${words}`,
		description:
			'Check the Base URL of the Conversational Messaging credential, and that the service is running.',
		httpCode: unreached?.code ?? '',
	};
}

async function readPage(
	this: ILoadOptionsFunctions,
	page: number,
	credentials: ICredentialDataDecryptedObject,
): Promise<IDataObject[]> {
	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_NAME, {
			method: 'GET',
			url: '/v1/campaigns',
			qs: { page, limit: CAMPAIGN_PAGE_SIZE },
			headers: { Accept: 'application/json' },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: 20_000,
			...NO_REDIRECTS,
		})) as IN8nHttpFullResponse;
	} catch (error) {
		throw await failureError.call(this, requestFailure(error, credentials.baseUrl), credentials);
	}
	const reading = readEnvelope(response);
	if ('failure' in reading)
		throw await failureError.call(this, listFailure(reading.failure), credentials);
	return listRecords(reading.payload);
}

/** One page per call; with a search text, the campaigns whose name or ID contains it, in any case. */
export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const credentials = await this.getCredentials<ICredentialDataDecryptedObject>(CREDENTIAL_NAME);
	const wanted = (filter ?? '').trim().toLowerCase();
	const matches = (item: INodeListSearchItems) =>
		item.name.toLowerCase().includes(wanted) || String(item.value).toLowerCase().includes(wanted);
	let { page, previousFirst } = readMark(paginationToken);
	const results: INodeListSearchItems[] = [];
	const started = clock.now();
	for (let read = 1; ; read++) {
		const records = await readPage.call(this, page, credentials);
		const items = records.map(listItem);
		if (records.length && items.every((item) => item === undefined))
			throw await failureError.call(
				this,
				{
					message: `The service listed campaigns without an identifier (none of ${CAMPAIGN_RECORD_FIELDS.id.join(', ')})`,
					description: 'Enter the campaign By ID instead.',
					httpCode: '',
				},
				credentials,
			);
		const first = records.length
			? String(items[0]?.value ?? JSON.stringify(records[0]))
			: undefined;
		// A service that ignores `page` answers page 1 again: the list ends there, not in a loop.
		if (first !== undefined && first === previousFirst) return { results };
		previousFirst = first;
		results.push(
			...items.filter((item): item is INodeListSearchItems => item !== undefined && matches(item)),
		);
		if (records.length < CAMPAIGN_PAGE_SIZE) return { results };
		page++;
		if (
			!wanted ||
			results.length >= SEARCH_SCREENFUL ||
			read >= SEARCH_PAGE_CAP ||
			clock.now() - started >= SEARCH_TIME_CAP_MS
		)
			break;
	}
	return { results, paginationToken: JSON.stringify({ page, previousFirst } satisfies PageMark) };
}

export const campaignListSearch = { [SEARCH_CAMPAIGNS]: searchCampaigns };
