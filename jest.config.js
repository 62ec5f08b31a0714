/**
 * The jest suites in two tiers, as two projects (`npx jest <file>` finds a file in either):
 * - node: the node's behaviour in n8n's engine (the engine suites, the contract check, reliability,
 *   the form), its pure functions (phone numbers, SMS segments, the Send Window, pacing) and the
 *   words of the pages a user reads: `npm test`, the fast tier (jest --selectProjects node).
 * - tooling: the project's own tools, not the node: the sandbox, the lint and scan set-up, the CI
 *   workflows, the dev script's installer output, the README's compatibility table:
 *   `npm run test:tooling`. .ci/run and the CI workflow run both.
 */
const shared = {
	rootDir: __dirname,
	preset: 'ts-jest',
	testEnvironment: 'node',
	// How jest itself loads TypeScript (the tooling tier's files, the node tier's global set-up).
	transform: { '^.+\\.ts$': 'ts-jest' },
	setupFiles: ['<rootDir>/test/helpers/env.ts'],
};

/** The tooling tier's files (paths from the repository root). */
const TOOLING = [
	'test/sandbox/',
	'test/verification.test.ts',
	'test/workflows.test.ts',
	'test/quietly.test.ts',
	'test/compatibility.test.ts',
];

/** @type {import('jest').Config} */
const node = {
	...shared,
	displayName: 'node',
	/**
	 * jest-light-runner: each worker thread loads n8n's engine once for all its files, where jest's
	 * own runner loads it again for each file in a sandbox of its own (about 2 s of CPU each, half
	 * of the tier's time). The files share the worker's modules: every suite starts its own sandbox
	 * (its own Base URL, so its own lanes) and puts back what it changes (the clock, spies). In
	 * worker threads, its default mode (the file says why not its child processes).
	 */
	runner: '<rootDir>/test/helpers/lightRunner.mjs',
	setupFiles: ['<rootDir>/test/helpers/typescript.mjs', ...shared.setupFiles],
	setupFilesAfterEnv: ['<rootDir>/test/helpers/testTimeout.ts'],
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: [
		'/node_modules/',
		'<rootDir>/test/e2e/',
		...TOOLING.map((path) => `<rootDir>/${path}`),
	],
	// Every operation reached and no request outside the contract, checked after the whole tier;
	// the reliability report written to .tmp/reliability/.
	globalSetup: '<rootDir>/test/helpers/contract-setup.ts',
	globalTeardown: '<rootDir>/test/helpers/contract-teardown.ts',
};

/** @type {import('jest').Config} */
const tooling = {
	...shared,
	displayName: 'tooling',
	roots: ['<rootDir>/test'],
	testMatch: TOOLING.map((path) => `<rootDir>/${path}${path.endsWith('/') ? '**/*.test.ts' : ''}`),
};

/** A test's or hook's time limit unless it gives its own. */
const TEST_TIMEOUT_MS = 30_000;
// The node tier's runner applies none: test/helpers/testTimeout.ts does, from this, in its workers.
process.env.CM_TEST_TIMEOUT_MS = String(TEST_TIMEOUT_MS);

/** @type {import('jest').Config} */
module.exports = {
	projects: [node, tooling],
	// Two cores: more workers only thrash.
	maxWorkers: 2,
	testSequencer: '<rootDir>/test/helpers/sequencer.js',
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	testTimeout: TEST_TIMEOUT_MS,
};
