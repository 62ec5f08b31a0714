/**
 * The node tier's runner, jest-light-runner (jest.config.js), keeps no test timeout, so a test
 * that never settles would hold `npm test` forever. As under jest's own runner, a test fails once
 * its timeout passes (`it(name, fn, ms)`, else DEFAULT_TIMEOUT_MS, the config's testTimeout); what
 * it left running goes on in the background.
 */
import { createRequire } from 'module';

const DEFAULT_TIMEOUT_MS = 30_000;

interface TestEntry {
	name: string;
	fn: () => unknown;
}
interface Circus {
	addEventHandler(handler: (event: { name: string; timeout?: number }) => void): void;
	getState(): { currentDescribeBlock: { children: Array<TestEntry | { type: string }> } };
}

// The jest-circus that jest-light-runner runs the tests with (not jest's own, an older major).
const circus = createRequire(require.resolve('jest-light-runner'))('jest-circus') as Circus;

circus.addEventHandler((event) => {
	if (event.name !== 'add_test') return;
	// jest-circus's own handler, which runs first, has just added the test to the current block.
	const test = circus.getState().currentDescribeBlock.children.at(-1) as TestEntry;
	const run = test.fn;
	const ms = event.timeout ?? DEFAULT_TIMEOUT_MS;
	test.fn = async function (this: unknown) {
		let timer: NodeJS.Timeout | undefined;
		const timedOut = new Promise<never>((_, reject) => {
			timer = setTimeout(
				() => reject(new Error(`Exceeded timeout of ${ms} ms for the test "${test.name}"`)),
				ms,
			);
		});
		try {
			return await Promise.race([run.call(this), timedOut]);
		} finally {
			clearTimeout(timer);
		}
	};
});
