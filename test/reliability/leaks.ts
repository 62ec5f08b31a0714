/** Where a token can be read after a run, and where it travelled. */
import type { IDataObject } from 'n8n-workflow';

import type { RecordedRequest } from '../../sandbox/server';
import type { RunResult } from '../helpers/engine';
import { safeStringify } from './results';

/** The places a user, a log or n8n's execution store can read the token from. */
export function tokenLeaks(run: RunResult, token: string): string[] {
	const places: Array<[string, unknown]> = [
		['output items', safeStringify(run.items)],
		['error message', run.error?.message],
		['error description', run.error?.description],
		['error', safeStringify(run.error)],
		['execution data', safeStringify(run.run)],
	];
	return places.filter(([, text]) => String(text ?? '').includes(token)).map(([place]) => place);
}

/**
 * Errors of failed items that still hold the token in memory: a network error keeps the axios
 * request config (body, query) as its `cause`. n8n's error toJSON keeps only the cause's name
 * and message, so this never reaches the execution data; counted to show where it sits.
 */
export function errorsHoldingToken(run: RunResult, token: string): number {
	return run.items.filter((item) => {
		const config = (
			item.error?.cause as
				| { config?: { data?: unknown; params?: unknown; url?: unknown } }
				| undefined
		)?.config;
		return (
			config !== undefined &&
			safeStringify([config.data, config.params, config.url]).includes(token)
		);
	}).length;
}

/** The token travels in the body when there is one, else in the `token` query parameter; never in a header. */
export function tokenWhereDocumented(request: RecordedRequest, token: string): boolean {
	const query = request.query;
	const inHeaders = safeStringify(request.headers).includes(token);
	if (request.method === 'GET')
		return request.tokenLocation === 'query:token' && query.token === token && !inHeaders;
	return (
		request.tokenLocation === 'body' &&
		(request.body as IDataObject | undefined)?.token === token &&
		query.token === undefined &&
		query['api-token'] === undefined &&
		!inHeaders
	);
}
