import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { clock } from '../shared/clock';
import type { ServiceFailure } from '../shared/envelope';
import { headerValue, readEnvelope } from '../shared/envelope';

/** Seconds from a Retry-After header: a number of seconds or an HTTP date. */
function retryAfterSeconds(headers: IN8nHttpFullResponse['headers']): number | undefined {
	const value = (headerValue(headers, 'retry-after') ?? '').trim();
	if (value === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, (date - clock.now()) / 1000);
}

/** A "too fast" answer: HTTP 429 (or 429 in the envelope), or 503 with Retry-After. The service did not act on it. */
export function refusal(
	response: IN8nHttpFullResponse,
): { failure: ServiceFailure; overloaded: boolean; retryAfter?: number } | undefined {
	const reading = readEnvelope(response);
	if (!('failure' in reading)) return undefined;
	const retryAfter = retryAfterSeconds(response.headers);
	const overloaded = reading.failure.httpCode === '503' && retryAfter !== undefined;
	if (reading.failure.httpCode !== '429' && !overloaded) return undefined;
	return { failure: reading.failure, overloaded, retryAfter };
}
