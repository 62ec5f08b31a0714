// Rate-limit mode: the sandbox behind a gateway that allows `perSecond` requests a second (a token
// bucket of `burst` tokens) and, optionally, only `maxConcurrent` requests in hand at once. Sandbox
// only, like faults: the real service's limits are not documented.
import * as http from 'http';

import type { Clock } from './clock';
import { errorEnvelope, sendJson } from './http-io';

export interface RateLimit {
	/** Tokens added to the bucket a second. */
	perSecond: number;
	/** The bucket's size: how many requests may arrive together after a quiet spell. It starts full. */
	burst: number;
	/** How many requests may be in hand at once, from arrival until the answer is sent. */
	maxConcurrent?: number;
}

/** A request the gateway turns away: no token left (429) or no room (503). */
export interface Refusal {
	kind: 'rateLimited' | 'overloaded';
	status: 429 | 503;
	/** Whole seconds, at least 1. */
	retryAfter: number;
}

const SHAPE = '{"perSecond": number, "burst": number, "maxConcurrent"?: number} or null';

/** Checks a rate limit from a control request, the CLI or an option; null lifts the limit. */
export function parseRateLimit(value: unknown): { limit: RateLimit | null } | { error: string } {
	if (value === null) return { limit: null };
	if (typeof value !== 'object' || Array.isArray(value))
		return { error: `a rate limit must be ${SHAPE}` };
	const { perSecond, burst, maxConcurrent, ...rest } = value as Record<string, unknown>;
	const atLeastOne = (n: unknown) => Number.isInteger(n) && (n as number) >= 1;
	// String() so that NaN and Infinity read as themselves (JSON says null).
	const got = (v: unknown) => `, got ${typeof v === 'number' ? String(v) : JSON.stringify(v)}`;
	const problems = [
		...Object.keys(rest).map((name) => `${name} is not a rate-limit field`),
		...(typeof perSecond === 'number' && Number.isFinite(perSecond) && perSecond > 0
			? []
			: [`perSecond must be a number above 0${got(perSecond)}`]),
		...(atLeastOne(burst) ? [] : [`burst must be an integer of 1 or more${got(burst)}`]),
		...(maxConcurrent === undefined || atLeastOne(maxConcurrent)
			? []
			: [`maxConcurrent must be an integer of 1 or more${got(maxConcurrent)}`]),
	];
	if (problems.length) return { error: problems.join('; ') };
	const limit: RateLimit = { perSecond: perSecond as number, burst: burst as number };
	if (maxConcurrent !== undefined) limit.maxConcurrent = maxConcurrent as number;
	return { limit };
}

/** The body of `PUT /__sandbox/rate-limit`. */
export function parseRateLimitBody(raw: string): ReturnType<typeof parseRateLimit> {
	let value: unknown;
	try {
		value = JSON.parse(raw);
	} catch {
		return { error: `body must be JSON: ${SHAPE}` };
	}
	return parseRateLimit(value);
}

export class RateLimiter {
	private limit: RateLimit | null = null;
	private tokens = 0;
	/** The clock's time of the last refill. */
	private refilledAt = 0;
	/** Admitted requests not yet answered; counted with or without a limit, so that one set mid-flight sees them. */
	private inHand = 0;

	constructor(
		limit: RateLimit | null,
		private readonly clock: Clock,
	) {
		this.set(limit);
	}

	get current(): RateLimit | null {
		return this.limit && { ...this.limit };
	}

	/** Sets or (null) lifts the limit; the bucket starts full. Throws on an invalid limit. */
	set(limit: RateLimit | null): void {
		const parsed = parseRateLimit(limit);
		if ('error' in parsed) throw new Error(`Invalid rate limit: ${parsed.error}`);
		this.limit = parsed.limit;
		this.tokens = parsed.limit?.burst ?? 0;
		this.refilledAt = this.clock.now();
	}

	/**
	 * Admits a request on its arrival, or says why not. An admitted request is in hand until its
	 * response closes (sent or cut). Room is checked before the bucket, so a request turned away as
	 * overloaded spends no token; a refused request takes no room, being answered at once.
	 */
	admit(res: http.ServerResponse): Refusal | undefined {
		const limit = this.limit;
		if (limit?.maxConcurrent !== undefined && this.inHand >= limit.maxConcurrent)
			return { kind: 'overloaded', status: 503, retryAfter: 1 };
		if (limit) {
			const now = this.clock.now();
			// Never below 0: a wall clock set back refills nothing, and the bucket counts on from now.
			const elapsed = Math.max(0, now - this.refilledAt);
			this.tokens = Math.min(limit.burst, this.tokens + (elapsed / 1000) * limit.perSecond);
			this.refilledAt = now;
			if (this.tokens < 1)
				return {
					kind: 'rateLimited',
					status: 429,
					retryAfter: Math.max(1, Math.ceil((1 - this.tokens) / limit.perSecond)),
				};
			this.tokens--;
		}
		this.inHand++;
		res.once('close', () => this.inHand--);
		return undefined;
	}
}

/** The gateway's answer: its HTTP status and Retry-After, in the service's error envelope. */
export function sendRefusal(res: http.ServerResponse, refusal: Refusal): void {
	sendJson(
		res,
		refusal.status,
		errorEnvelope(refusal.status, http.STATUS_CODES[refusal.status] as string),
		{ 'retry-after': String(refusal.retryAfter) },
	);
}
