import { sleep as n8nSleep } from 'n8n-workflow';

/** What the node reads of time: the moment, and a wait. */
export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

/** n8n's own sleep (nodes may not use timers of their own) and the system's time. */
export const systemClock: Clock = {
	now: () => Date.now(),
	sleep: async (ms) => await n8nSleep(ms),
};

let current: Clock = systemClock;

/**
 * The send engine's one clock (../engine/: pacing, outages, Batching, Retry-After, Retry On Fail
 * memory): its waits and readings of time go through it, so that a test can drive time instead
 * of waiting for it, whatever the machine's load (test/helpers/nodeClock.ts).
 */
export const clock: Clock = {
	now: () => current.now(),
	sleep: async (ms) => await current.sleep(ms),
};

/** For tests: runs the node on another clock until the returned function puts the system's back. */
export function useClock(next: Clock): () => void {
	current = next;
	return () => {
		current = systemClock;
	};
}
