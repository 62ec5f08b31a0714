/** The end-to-end suites: real n8n (and a real browser), run by test/e2e/run.sh. */
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': 'ts-jest' },
	// Three suites at a time, each with its own n8n, user folder, sandbox and free ports: they spend
	// much of their time waiting (n8n starting, Wait nodes, the research restart's two 70 s waits),
	// so on two cores they overlap (one at a time: 928 s; two: 483 s). The longest start first.
	maxWorkers: 3,
	testSequencer: '<rootDir>/test/helpers/sequencer.js',
	setupFiles: ['<rootDir>/test/helpers/env.ts'],
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	testTimeout: 300000,
};
