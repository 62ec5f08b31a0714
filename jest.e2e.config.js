/** The end-to-end suites: real n8n (and a real browser), run by test/e2e/run.sh. */
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': 'ts-jest' },
	// Two suites at a time, each with its own n8n, user folder, sandbox and free ports: they spend
	// much of their time waiting (n8n starting, Wait nodes, the sandbox's research runs), so on two
	// cores two overlap well (the whole e2e run: 483 s against 928 s one at a time, both green).
	maxWorkers: 2,
	setupFiles: ['<rootDir>/test/helpers/env.ts'],
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	testTimeout: 300000,
};
