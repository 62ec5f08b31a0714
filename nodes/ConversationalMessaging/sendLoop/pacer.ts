import { clock } from '../clock';

/**
 * How fast the sends to one service account may go, for every execution of this process that
 * sends to it (./lane.ts); what was measured, and what did not work: docs/PERFORMANCE.md.
 *
 * At once: SLOW_START at first (the first round trips of a fresh process are slow: these keep the
 * service busy meanwhile, and a small burst allowance refuses some of them, not hundreds), then
 * one more per accepted request up to the lane's largest Max Requests in Flight; after the first
 * refusal, one more per round trip's worth of accepted requests; a 503 takes one off.
 *
 * A second: no limit until the first refusal (the service's limits are not documented). A service
 * that refuses requests beyond its limit accepts just its limit, so each refusal sets the rate (not
 * only lowers it: a count taken low on a busy process is put right by the next) to what was
 * accepted over the last WINDOW_MS: from SETTLE_MS after the first refusal, counted from it (the
 * burst allowance left out), before that since the first answer (FIRST_SPAN_MS at least: a guess
 * on the high side, put right by the refusals it brings). From HOLD_MS after a refusal the rate
 * grows by RATE_GROWTH of itself a second, for room come free (another process's share). A turn
 * missed while the process was busy is made up, within CATCH_UP_MS. In the tail (less than TAIL_MS
 * of work left at the limit) a refusal would hold the end back by a whole Retry-After: the rate
 * stops growing and comes down to FINAL_PACE of the limit (at just the limit the slightest jitter
 * is refused), and no turn is made up.
 */
const SLOW_START = 50;
const RATE_GROWTH = 0.5;
const WINDOW_MS = 1000;
const SETTLE_MS = 500;
const FIRST_SPAN_MS = 50;
const HOLD_MS = 1000;
const CATCH_UP_MS = 50;
const TAIL_MS = 1000;
const FINAL_PACE = 0.95;

export class Pacer {
	private readonly atOnce = new Slots(SLOW_START);
	private slowStart = true;
	private acceptedSinceIncrease = 0;
	/** Requests a second; Infinity until the service first refuses one. */
	private rate = Infinity;
	/** What the service accepted a second, as last counted. */
	private limit = Infinity;
	private inTail = false;
	private line = Promise.resolve();
	private nextTurn = 0;
	private firstRefusedAt?: number;
	private lastRefusedAt = -Infinity;
	/** When requests were accepted, oldest first: the last WINDOW_MS and more. */
	private accepted: number[] = [];

	/** `lane`: the largest Max Requests in Flight of its executions, and how many items they have left. */
	constructor(private readonly lane: { maxInFlight(): number; remaining(): number }) {}

	/** Waits for a place among the requests in flight and for the pace, takes the place, and says when. */
	async acquire(): Promise<number> {
		const maxInFlight = this.lane.maxInFlight();
		if (this.atOnce.size > maxInFlight) this.atOnce.resize(maxInFlight);
		await this.atOnce.take();
		// In line, each at the rate of its turn, so that a change of rate holds for the requests already waiting.
		const turn = this.line.then(async () => {
			this.inTail =
				Number.isFinite(this.limit) && this.lane.remaining() <= (this.limit * TAIL_MS) / 1000;
			if (this.inTail) this.rate = Math.max(1, Math.min(this.rate, this.limit * FINAL_PACE));
			const now = clock.now();
			const at = Math.max(this.nextTurn, now - (this.inTail ? 0 : CATCH_UP_MS));
			if (at > now) await clock.sleep(at - now);
			this.nextTurn = at + 1000 / this.rate;
		});
		this.line = turn;
		await turn;
		return clock.now();
	}

	release(): void {
		this.atOnce.give();
	}

	/** The service accepted a request (whatever its answer, it did not say "too fast"). */
	accept(): void {
		const now = clock.now();
		this.accepted.push(now);
		// Forgotten a window at a time, once the oldest is two windows old.
		if (this.accepted[0] <= now - 2 * WINDOW_MS)
			this.accepted = this.accepted.filter((at) => at > now - WINDOW_MS);
		// About `rate` requests are accepted a second: each adds RATE_GROWTH / rate of the rate.
		if (!this.inTail && now - this.lastRefusedAt >= HOLD_MS) this.rate += RATE_GROWTH;
		if (
			this.atOnce.size < this.lane.maxInFlight() &&
			(this.slowStart || ++this.acceptedSinceIncrease >= this.atOnce.size)
		) {
			this.acceptedSinceIncrease = 0;
			this.atOnce.resize(this.atOnce.size + 1);
		}
	}

	/** The service refused a request for going too fast (429), or for being overloaded (503). */
	refuse(overloaded: boolean): void {
		const now = clock.now();
		this.firstRefusedAt ??= now;
		this.lastRefusedAt = now;
		this.slowStart = false;
		if (overloaded)
			this.atOnce.resize(Math.max(1, Math.min(this.atOnce.size, this.atOnce.inUse) - 1));
		const firstAnswer = Math.min(this.accepted[0] ?? now, this.firstRefusedAt);
		const from =
			now - this.firstRefusedAt >= SETTLE_MS
				? Math.max(now - WINDOW_MS, this.firstRefusedAt)
				: now - Math.min(WINDOW_MS, Math.max(FIRST_SPAN_MS, now - firstAnswer));
		const accepted = this.accepted.filter((at) => at >= from).length;
		// Nothing accepted says nothing of the limit.
		if (!accepted) return;
		this.limit = (accepted * 1000) / (now - from);
		this.rate = Math.max(1, this.limit * (this.inTail ? FINAL_PACE : 1));
	}

	/** After an outage: requests at once start over from SLOW_START; the rate found stays. */
	restart(): void {
		this.slowStart = true;
		this.atOnce.resize(Math.min(SLOW_START, this.lane.maxInFlight()));
	}

	/** The wait before a refused request is sent again: the service's Retry-After, or a backoff with jitter. */
	static waitBeforeRetry(retryAfterSeconds: number | undefined, attempt: number): number {
		const asked = retryAfterSeconds ?? NaN;
		if (Number.isFinite(asked) && asked >= 0) return asked * 1000;
		return Math.min(30_000, 500 * 2 ** attempt) * (0.5 + Math.random());
	}
}

/** A number of places (`size`), taken and given back in turn. */
export class Slots {
	inUse = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(public size: number) {}

	async take(): Promise<void> {
		while (this.inUse >= this.size)
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.inUse++;
	}

	give(): void {
		this.inUse--;
		this.waiting.shift()?.();
	}

	resize(size: number): void {
		for (let more = size - this.size; more > 0; more--) this.waiting.shift()?.();
		this.size = size;
	}
}
