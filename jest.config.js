/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: { '^.+\\.ts$': 'ts-jest' },
	// Two cores: more workers only thrash.
	maxWorkers: 2,
	setupFiles: ['<rootDir>/test/helpers/env.ts'],
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	globalSetup: '<rootDir>/test/helpers/contract-setup.ts',
	globalTeardown: '<rootDir>/test/helpers/contract-teardown.ts',
	testTimeout: 30000,
};
