// The sandbox's time. Every reading of the time and every wait in the sandbox goes through one
// Clock: real time by default (the CLI, `npm run dev`), or a FakeClock a test moves by hand, so
// that what the rate limit admits, when an outage ends, how far a researcher has got and when a
// latency fault lets go follow the test's steps, not the machine's speed.

export interface Clock {
	/** Milliseconds since the epoch, as Date.now() reads them. */
	now(): number;
	/** Calls `fn` once `ms` have passed on this clock; the function returned cancels the call. */
	after(ms: number, fn: () => void): () => void;
}

export const realClock: Clock = {
	now: () => Date.now(),
	after: (ms, fn) => {
		const timer = setTimeout(fn, ms);
		return () => clearTimeout(timer);
	},
};

interface Timer {
	at: number;
	fn: () => void;
}

/**
 * A clock that stands still until the test moves it. Its calls fall due only in advance(), each
 * with the clock set to its time, in order of time (then of asking).
 */
export class FakeClock implements Clock {
	private time: number;
	private timers: Timer[] = [];
	private watchers: Array<{ count: number; resolve(): void }> = [];

	/** Starts at `start` (by default 2026-01-01T00:00:00Z): the same times on every run. */
	constructor(start = Date.UTC(2026, 0, 1)) {
		this.time = start;
	}

	now(): number {
		return this.time;
	}

	after(ms: number, fn: () => void): () => void {
		const timer: Timer = { at: this.time + Math.max(0, ms), fn };
		this.timers.push(timer);
		this.watchers = this.watchers.filter((w) => {
			if (this.timers.length < w.count) return true;
			w.resolve();
			return false;
		});
		return () => {
			this.timers = this.timers.filter((t) => t !== timer);
		};
	}

	/** How many calls are waiting for their time. */
	get pending(): number {
		return this.timers.length;
	}

	/** Resolves once `count` calls are waiting: the sandbox has reached the waits a test means to move past. */
	waiting(count: number): Promise<void> {
		if (this.timers.length >= count) return Promise.resolve();
		return new Promise((resolve) => this.watchers.push({ count, resolve }));
	}

	/** Moves the time on by `ms`, making each call that falls due on the way. */
	advance(ms: number): void {
		if (!(ms >= 0)) throw new Error(`a clock only moves forward, got ${ms} ms`);
		const end = this.time + ms;
		for (;;) {
			// The earliest due; among equals the first asked for. A call made on the way is seen too.
			const next = this.timers.reduce<Timer | undefined>(
				(first, t) => (t.at <= end && (!first || t.at < first.at) ? t : first),
				undefined,
			);
			if (!next) break;
			this.timers = this.timers.filter((t) => t !== next);
			this.time = next.at;
			next.fn();
		}
		this.time = end;
	}
}
