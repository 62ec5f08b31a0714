import { sleep as n8nSleep } from 'n8n-workflow';

export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

/** n8n's sleep: nodes may not use timers of their own. */
const systemClock: Clock = {
	now: () => Date.now(),
	sleep: async (ms) => await n8nSleep(ms),
};

let current: Clock = systemClock;

/** The node's one clock (its waits and time limits), so tests drive time instead of waiting on the machine's load. */
export const clock: Clock = {
	now: () => current.now(),
	sleep: async (ms) => await current.sleep(ms),
};

/** For tests; returns the function that puts the system's clock back. */
export function useClock(next: Clock): () => void {
	current = next;
	return () => {
		current = systemClock;
	};
}
