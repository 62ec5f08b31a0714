/**
 * The node tier's runner, jest-light-runner (jest.config.js), keeps no timeout, so a test or hook
 * that never settles would hold `npm test` forever. As under jest's own runner, a test or hook
 * fails once its timeout passes (the one given to it, else the config's testTimeout, which
 * jest.config.js hands over in CM_TEST_TIMEOUT_MS); what it left running goes on in the background.
 */
import { createRequire } from 'module';

interface Runnable {
	fn: (...args: unknown[]) => unknown;
}
interface AddEvent {
	name: string;
	fn?: unknown;
	timeout?: number;
	testName?: string;
	hookType?: string;
	/** Made where the test or hook was declared, so a failure points there (as jest's does). */
	asyncError?: Error;
}
interface Circus {
	addEventHandler(handler: (event: AddEvent) => void): void;
	getState(): { currentDescribeBlock: { children: Runnable[]; hooks: Runnable[] } };
}

// The jest-circus that jest-light-runner runs the tests with (not jest's own, an older major).
const circus = createRequire(require.resolve('jest-light-runner'))('jest-circus') as Circus;
const DEFAULT_TIMEOUT_MS = Number(process.env.CM_TEST_TIMEOUT_MS) || 30_000;

function limit(entry: Runnable, ms: number, what: string, declared = new Error()): void {
	const run = entry.fn;
	if (run.length > 0)
		throw new Error(
			`${what} takes a done callback, which this timeout cannot pass: return a promise`,
		);
	entry.fn = async function (this: unknown) {
		let timer: NodeJS.Timeout | undefined;
		const timedOut = new Promise<never>((_, reject) => {
			timer = setTimeout(() => {
				declared.message = `Exceeded timeout of ${ms} ms for ${what}`;
				reject(declared);
			}, ms);
		});
		try {
			return await Promise.race([run.call(this), timedOut]);
		} finally {
			clearTimeout(timer);
		}
	};
}

circus.addEventHandler((event) => {
	if (event.name !== 'add_test' && event.name !== 'add_hook') return;
	// jest-circus's own handler, which runs first, has just added it to the block, unless it refused it.
	const block = circus.getState().currentDescribeBlock;
	const entry = (event.name === 'add_test' ? block.children : block.hooks).at(-1);
	if (!entry || entry.fn !== event.fn) return;
	const what =
		event.name === 'add_test' ? `the test "${event.testName}"` : `a ${event.hookType} hook`;
	limit(entry, event.timeout ?? DEFAULT_TIMEOUT_MS, what, event.asyncError);
});
