import { clock } from '../shared/clock';
import { Slots } from './slots';

/**
 * How fast the sends to one service account may go, for every execution of this process that
 * sends to it (./lane.ts): how many requests at once, and, once the service has refused a
 * request for going too fast, how many a second.
 *
 * At once: SLOW_START at first, one more with every accepted request (doubling each round trip,
 * as TCP's slow start does) up to Max Requests in Flight, so that a service with a small burst
 * allowance refuses a few requests rather than all of them. After the first refusal it grows by
 * one per round trip's worth of accepted requests; a 503 (the service is overloaded) takes one off.
 *
 * A second: no limit until the first refusal (the service's limits are not documented). A
 * service that refuses requests beyond its limit accepts just its limit, so at every refusal the
 * rate becomes what it accepted (no more than the rate was), counted since the first refusal of
 * the last WINDOW_MS (the service had no room left then and now, so no burst allowance inflates
 * the count), else over the last WINDOW_MS. From HOLD_MS after a refusal the rate grows by
 * RATE_GROWTH of itself a second, probing for room that has come free (another process's share, a count taken
 * low), as long as more than TAIL_MS of work is left.
 *
 * In the tail, a refusal would hold the end back by a whole Retry-After: the rate stops growing
 * and comes down to FINAL_PACE of what the service accepted (at just the service's limit, the
 * slightest jitter is refused).
 *
 * A refused request waits what the service asked (Retry-After) before it is sent again, in its
 * turn; the others go on at the pace.
 */
const SLOW_START = 10;
const RATE_GROWTH = 0.5;
const WINDOW_MS = 1000;
/** The first answers come together: a count is taken over this at least. */
const MIN_SPAN_MS = 100;
/** After a refusal the rate holds this long before it grows again: a refused request comes back after about a second. */
const HOLD_MS = 1000;
const TAIL_MS = 1000;
const FINAL_PACE = 0.9;

export class Pacer {
	private readonly atOnce: Slots;
	private slowStart = true;
	private acceptedSinceIncrease = 0;
	/** Requests per second; Infinity until the service first refuses one. */
	private rate = Infinity;
	private inTail = false;
	private line = Promise.resolve();
	private lastStart = 0;
	private firstAnswerAt = 0;
	private lastRefusedAt = 0;
	/** When requests were accepted, and when refused, oldest first: the last WINDOW_MS and more. */
	private readonly acceptedAt = new Times();
	private readonly refusedAt = new Times();

	/** `remaining`: how many items are still to be sent by the lane's executions. */
	constructor(
		private maxInFlight: number,
		private readonly remaining: () => number,
	) {
		this.atOnce = new Slots(Math.min(SLOW_START, maxInFlight));
	}

	/** The largest Max Requests in Flight of the executions sending. */
	setMaxInFlight(maxInFlight: number): void {
		this.maxInFlight = maxInFlight;
		if (this.atOnce.size > maxInFlight) this.atOnce.resize(maxInFlight);
	}

	/** Waits for a place among the requests in flight and for the pace, then takes the place. */
	async acquire(): Promise<void> {
		await this.atOnce.take();
		// In line, each at the rate of its turn, so that a change of rate holds for the requests already waiting.
		const turn = this.line.then(async () => {
			this.followTail();
			const wait = this.lastStart + 1000 / this.rate - clock.now();
			if (wait > 0) await clock.sleep(wait);
			this.lastStart = clock.now();
		});
		this.line = turn;
		await turn;
	}

	release(): void {
		this.atOnce.give();
	}

	/** The service accepted a request (whatever its answer, it did not say "too fast"). */
	accept(): void {
		const now = clock.now();
		this.firstAnswerAt ||= now;
		this.acceptedAt.add(now);
		this.acceptedAt.forget(now - WINDOW_MS);
		// About `rate` requests are accepted a second: each adds RATE_GROWTH / rate of the rate.
		if (Number.isFinite(this.rate) && !this.inTail && now - this.lastRefusedAt >= HOLD_MS)
			this.rate += RATE_GROWTH;
		if (
			this.atOnce.size < this.maxInFlight &&
			(this.slowStart || ++this.acceptedSinceIncrease >= this.atOnce.size)
		) {
			this.acceptedSinceIncrease = 0;
			this.atOnce.resize(this.atOnce.size + 1);
		}
	}

	/** The service refused a request for going too fast (429), or for being overloaded (503). */
	refuse(overloaded: boolean): void {
		const now = clock.now();
		this.slowStart = false;
		if (overloaded)
			this.atOnce.resize(Math.max(1, Math.min(this.atOnce.size, this.atOnce.inUse) - 1));
		this.firstAnswerAt ||= now;
		this.slowDownToAccepted(now, this.inTail ? FINAL_PACE : 1);
		this.refusedAt.add(now);
		this.lastRefusedAt = now;
	}

	/** After an outage: requests at once start over from SLOW_START; the rate found stays. */
	restart(): void {
		this.slowStart = true;
		this.atOnce.resize(Math.min(SLOW_START, this.maxInFlight));
	}

	/** Enters the tail when less than TAIL_MS of work is left at the rate, and leaves it when more work comes. */
	private followTail(): void {
		const tail = Number.isFinite(this.rate) && this.remaining() <= (this.rate * TAIL_MS) / 1000;
		if (tail && !this.inTail) this.slowDownToAccepted(clock.now(), FINAL_PACE);
		this.inTail = tail;
	}

	private slowDownToAccepted(now: number, share: number): void {
		const accepted = this.acceptedPerSecond(now);
		// Nothing accepted says nothing of the limit: the pace stays.
		if (accepted > 0) this.rate = Math.max(1, Math.min(this.rate, accepted * share));
	}

	/** Requests accepted per second since the first refusal of the last WINDOW_MS (at least MIN_SPAN_MS ago), else over the last WINDOW_MS or since the first answer. */
	private acceptedPerSecond(now: number): number {
		this.acceptedAt.forget(now - WINDOW_MS);
		this.refusedAt.forget(now - WINDOW_MS);
		const anchor = this.refusedAt.first();
		const from =
			anchor !== undefined && anchor <= now - MIN_SPAN_MS
				? anchor
				: Math.max(now - WINDOW_MS, this.firstAnswerAt);
		return (this.acceptedAt.countAfter(from) * 1000) / Math.max(MIN_SPAN_MS, now - from);
	}

	/** The wait before a refused request is sent again: the service's Retry-After, or a backoff with jitter. */
	static waitBeforeRetry(retryAfterSeconds: number | undefined, attempt: number): number {
		if (
			retryAfterSeconds !== undefined &&
			Number.isFinite(retryAfterSeconds) &&
			retryAfterSeconds >= 0
		)
			return retryAfterSeconds * 1000;
		return Math.min(30_000, 500 * 2 ** attempt) * (0.5 + Math.random());
	}
}

/** Times in increasing order, the old ones forgotten in chunks. */
class Times {
	private times: number[] = [];
	private oldest = 0;

	add(time: number): void {
		this.times.push(time);
	}

	forget(until: number): void {
		while (this.oldest < this.times.length && this.times[this.oldest] <= until) this.oldest++;
		if (this.oldest > 1024) {
			this.times = this.times.slice(this.oldest);
			this.oldest = 0;
		}
	}

	countAfter(time: number): number {
		let count = 0;
		for (let i = this.times.length - 1; i >= this.oldest && this.times[i] > time; i--) count++;
		return count;
	}

	first(): number | undefined {
		return this.times[this.oldest];
	}
}
