/**
 * Resolves once `condition()` holds, looking every 10 ms. Waits for something to happen (a
 * request to arrive, a server to listen again), never measures how long it took: the deadline is
 * there only so that a hang fails with `what` instead of jest's timeout.
 */
export async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
