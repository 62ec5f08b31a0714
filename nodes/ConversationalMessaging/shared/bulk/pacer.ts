import { sleep } from 'n8n-workflow';

/**
 * How fast the send loop may go: how many requests at once, and, once the service has refused a
 * request for going too fast, how many a second.
 *
 * At once: SLOW_START at first, one more with every accepted request (doubling each round trip,
 * as TCP's slow start does) up to Max Requests in Flight, so that a service with a small burst
 * allowance refuses a few requests rather than all of them. After the first refusal it grows by
 * one per round trip's worth of accepted requests; a 503 (the service is overloaded) takes one off.
 *
 * A second: no limit until the first refusal (the service's limits are not documented). A
 * service that refuses requests beyond its limit accepts just its limit, so at every refusal the
 * rate becomes what it accepted over the last WINDOW_MS (no more than the rate was). Between
 * refusals the rate grows by RATE_GROWTH a second, probing for room that has come free, and
 * making up quickly for a count taken low (answers read late while this process was busy).
 *
 * Once the last items have started, a refusal would hold the end back by a whole Retry-After:
 * the rate stops growing and comes down to FINAL_PACE of what the service accepted over the last
 * WINDOW_MS (at just the service's limit, the slightest jitter is refused).
 *
 * A refused request waits what the service asked (Retry-After) before it is sent again, in its
 * turn; the others go on at the pace.
 */
const SLOW_START = 100;
const RATE_GROWTH = 0.5;
const WINDOW_MS = 1000;
const FINAL_PACE = 0.9;
/** The shortest time a count is taken over: the first answers come together. */
const MIN_SPAN_MS = 100;

export class Pacer {
	private allowedAtOnce: number;
	private slowStart = true;
	private acceptedSinceIncrease = 0;
	private inFlight = 0;
	private readonly waiting: Array<() => void> = [];
	/** Requests per second; Infinity until the service first refuses one. */
	private rate = Infinity;
	private probing = true;
	private line = Promise.resolve();
	private lastStart = 0;
	private firstAnswerAt = 0;
	/** When requests were accepted, oldest first, from `oldest` on: the last WINDOW_MS and more. */
	private acceptedAt: number[] = [];
	private oldest = 0;

	constructor(private readonly maxInFlight: number) {
		this.allowedAtOnce = Math.min(SLOW_START, maxInFlight);
	}

	/** Waits for a place among the requests in flight and for the pace, then takes the place. */
	async acquire(): Promise<void> {
		while (this.inFlight >= this.allowedAtOnce) await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.inFlight++;
		// In line, each at the rate of its turn, so that a change of rate holds for the requests already waiting.
		const turn = this.line.then(async () => {
			const wait = this.lastStart + 1000 / this.rate - Date.now();
			if (wait > 0) await sleep(wait);
			this.lastStart = Date.now();
		});
		this.line = turn;
		await turn;
	}

	release(): void {
		this.inFlight--;
		this.waiting.shift()?.();
	}

	/** The service accepted a request (whatever its answer, it did not say "too fast"). */
	accept(): void {
		const now = Date.now();
		this.firstAnswerAt ||= now;
		this.acceptedAt.push(now);
		// About `rate` requests are accepted a second: each adds RATE_GROWTH/rate of the rate.
		if (Number.isFinite(this.rate) && this.probing) this.rate += RATE_GROWTH;
		if (this.allowedAtOnce < this.maxInFlight && (this.slowStart || ++this.acceptedSinceIncrease >= this.allowedAtOnce)) {
			this.acceptedSinceIncrease = 0;
			this.allowedAtOnce++;
			this.waiting.shift()?.();
		}
	}

	/** The service refused a request for going too fast (429), or for being overloaded (503). */
	refuse(overloaded: boolean): void {
		this.slowStart = false;
		if (overloaded) this.allowedAtOnce = Math.max(1, Math.min(this.allowedAtOnce, this.inFlight) - 1);
		this.firstAnswerAt ||= Date.now();
		this.slowDownToAccepted();
	}

	/** The last items have started: no more probing for room. */
	lastItemsStarted(): void {
		this.probing = false;
		if (Number.isFinite(this.rate)) this.slowDownToAccepted(FINAL_PACE);
	}

	private slowDownToAccepted(share = 1): void {
		const accepted = this.acceptedPerSecond(Date.now());
		// Nothing accepted says nothing of the limit: the pace stays.
		if (accepted > 0) this.rate = Math.max(1, Math.min(this.rate, accepted * share));
	}

	/** Requests accepted per second over the last WINDOW_MS, or since the first answer when that is shorter. */
	private acceptedPerSecond(now: number): number {
		while (this.oldest < this.acceptedAt.length && this.acceptedAt[this.oldest] <= now - WINDOW_MS) this.oldest++;
		if (this.oldest > 1024) {
			this.acceptedAt = this.acceptedAt.slice(this.oldest);
			this.oldest = 0;
		}
		return ((this.acceptedAt.length - this.oldest) * 1000) / Math.max(MIN_SPAN_MS, Math.min(WINDOW_MS, now - this.firstAnswerAt));
	}

	/** The wait before a refused request is sent again: the service's Retry-After, or a backoff with jitter. */
	static waitBeforeRetry(retryAfterSeconds: number | undefined, attempt: number): number {
		if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) return retryAfterSeconds * 1000;
		return Math.min(30_000, 500 * 2 ** attempt) * (0.5 + Math.random());
	}
}
