/** The end-to-end suites: real n8n (and a real browser), run by test/e2e/run.sh. */
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': 'ts-jest' },
	// One real n8n at a time: two cores.
	maxWorkers: 1,
	setupFiles: ['<rootDir>/test/helpers/env.ts'],
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	testTimeout: 300000,
};
