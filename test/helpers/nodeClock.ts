import { FakeClock } from '../../sandbox/clock';
import type { Clock } from '../../nodes/ConversationalMessaging/clock';
import { useClock } from '../../nodes/ConversationalMessaging/clock';

/**
 * The node's clock (nodes/ConversationalMessaging/clock.ts) for a wait that leads only to
 * one of the node's own limits (a service that never answers: Max Wait, the first contact's
 * 10 s; Retry-After): each sleep moves the clock on by its length at once, so the node reaches
 * the same decisions as on the system's clock without the wall time, whatever the machine's load.
 * Sleeps are not ordered: two waiting at once move the clock by both their lengths (time runs
 * faster than the node's waits add up to), so a test asserts decisions, never how long they took.
 * Not for a wait on something that takes real time (a sandbox outage ending on its own clock).
 */
export function skippingClock(): Clock {
	let skipped = 0;
	return {
		now: () => Date.now() + skipped,
		sleep: async (ms) => {
			skipped += Math.max(0, ms);
			await new Promise((resolve) => setImmediate(resolve));
		},
	};
}

/** Runs `body` with the node on a skipping clock, then puts the system's clock back. */
export async function onSkippingClock<T>(body: () => Promise<T>): Promise<T> {
	const restore = useClock(skippingClock());
	try {
		return await body();
	} finally {
		restore();
	}
}

/**
 * Runs the node on a FakeClock (the sandbox's: time stands still until the test moves it), so
 * that its waits (pace, Retry-After, outages, Batching) follow the test's steps instead of the
 * machine's speed. `restore` puts the system's clock back.
 */
export function nodeOnFakeClock(clock = new FakeClock()): {
	clock: FakeClock;
	restore: () => void;
} {
	const restore = useClock({
		now: () => clock.now(),
		// A wait of 0 yields to the event loop (the send loop's field reading does), and passes no time.
		sleep: async (ms) =>
			await new Promise<void>((resolve) =>
				ms > 0 ? clock.after(ms, resolve) : setImmediate(resolve),
			),
	});
	return { clock, restore };
}

/**
 * Moves the clock on `stepMs` at a time until `done()`, letting whatever the last step woke up
 * run to its next wait in between. For code that waits on the clock only (no I/O).
 */
export async function runClock(clock: FakeClock, done: () => boolean, stepMs = 1): Promise<void> {
	while (!done()) {
		await new Promise((resolve) => setImmediate(resolve));
		if (!done()) clock.advance(stepMs);
	}
}

/**
 * Waits for `work` while moving the clock on `stepMs` for every millisecond of real time: for
 * code that also waits on real I/O (the sandbox over HTTP), where no step can tell that all is
 * quiet. What a test asserts must then hold however far the clock got meanwhile.
 */
export async function whileMoving<T>(clock: FakeClock, work: Promise<T>, stepMs = 10): Promise<T> {
	let done = false;
	const settled = work.finally(() => (done = true));
	while (!done) {
		await new Promise((resolve) => setTimeout(resolve, 1));
		if (!done) clock.advance(stepMs);
	}
	return await settled;
}
