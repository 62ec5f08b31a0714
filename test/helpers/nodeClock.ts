import type { Clock } from '../../nodes/ConversationalMessaging/shared/clock';
import { useClock } from '../../nodes/ConversationalMessaging/shared/clock';

/**
 * The node's clock (nodes/ConversationalMessaging/shared/clock.ts) for a wait that leads only to
 * one of the node's own limits (a service that never answers: Max Wait, the first contact's
 * 10 s; Retry-After): each sleep moves the clock on by its length at once, so the node reaches
 * the same decisions as on the system's clock without the wall time, whatever the machine's load.
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
