/**
 * The engine suites against n8n 1.x's engine (n8n 1.123.x: n8n-core 1.122.48, n8n-workflow
 * 1.120.31, installed by scripts/ensure-compat.sh into .cache/compat-1x): the node and the tests
 * load that n8n-core and n8n-workflow instead of the 2.41 ones (the types stay 2.41's).
 */
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	moduleNameMapper: { '^n8n-(core|workflow)((/.*)?)$': '<rootDir>/.cache/compat-1x/node_modules/n8n-$1$2' },
	// Type errors are the 2.41 build's business (npm test); this run is about behaviour.
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};
