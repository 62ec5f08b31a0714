import { sleep } from 'n8n-workflow';

/**
 * How fast the send loop may go: at most `maxInFlight` requests at once, and, once the service
 * has refused a request for going too fast, a request rate learned from its refusals.
 *
 * The service's limits are not documented. Until the first refusal there is no rate limit. At
 * the first one, the rate becomes what the service accepted so far per second; every further
 * refusal lowers it by a fifth, at most once per ten requests' time, so a burst of refusals
 * that were already on their way counts once. Each accepted request raises it by RATE_GAIN/rate,
 * RATE_GAIN requests per second every second, back towards the limit. A 503 (the service is
 * overloaded) also takes one request off the number allowed at once. A refused request waits
 * what the service asked (Retry-After) before it is sent again; the others go on at the pace.
 */
const RATE_GAIN = 10;

export class Pacer {
	private allowedAtOnce: number;
	private inFlight = 0;
	private readonly waiting: Array<() => void> = [];
	/** Requests per second; Infinity until the service first refuses one. */
	private rate = Infinity;
	private nextStart = 0;
	private lastDecrease = 0;
	private acceptedSinceIncrease = 0;
	private readonly startedAt = Date.now();
	private accepted = 0;

	constructor(private readonly maxInFlight: number) {
		this.allowedAtOnce = maxInFlight;
	}

	/** Waits for a place among the requests in flight and for the pace, then takes the place. */
	async acquire(): Promise<void> {
		while (this.inFlight >= this.allowedAtOnce) await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.inFlight++;
		const now = Date.now();
		const start = Math.max(now, this.nextStart);
		if (Number.isFinite(this.rate)) this.nextStart = start + 1000 / this.rate;
		if (start > now) await sleep(start - now);
	}

	release(): void {
		this.inFlight--;
		this.waiting.shift()?.();
	}

	/** The service accepted a request (whatever its answer, it did not say "too fast"). */
	accept(): void {
		this.accepted++;
		if (Number.isFinite(this.rate)) this.rate += RATE_GAIN / this.rate;
		if (this.allowedAtOnce < this.maxInFlight && ++this.acceptedSinceIncrease >= this.allowedAtOnce) {
			this.acceptedSinceIncrease = 0;
			this.allowedAtOnce++;
			this.waiting.shift()?.();
		}
	}

	/** The service refused a request for going too fast (429), or for being overloaded (503). */
	refuse(overloaded: boolean): void {
		const now = Date.now();
		if (overloaded) this.allowedAtOnce = Math.max(1, Math.min(this.allowedAtOnce, this.inFlight) - 1);
		if (!Number.isFinite(this.rate)) {
			this.rate = Math.max(1, (this.accepted * 1000) / Math.max(1, now - this.startedAt));
		} else if (now - this.lastDecrease >= 10_000 / this.rate) {
			this.rate = Math.max(1, this.rate * 0.8);
		} else {
			return;
		}
		this.lastDecrease = now;
		this.nextStart = Math.max(this.nextStart, now + 1000 / this.rate);
	}

	/** The wait before a refused request is sent again: the service's Retry-After, or a backoff with jitter. */
	static waitBeforeRetry(retryAfterSeconds: number | undefined, attempt: number): number {
		if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) return retryAfterSeconds * 1000;
		return Math.min(30_000, 500 * 2 ** attempt) * (0.5 + Math.random());
	}
}
