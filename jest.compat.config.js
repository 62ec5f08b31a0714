/**
 * The engine suites against another n8n engine, installed by scripts/ensure-compat.sh: by default
 * n8n 1.x's (n8n 1.123.x: n8n-core 1.122.48, n8n-workflow 1.120.31, in .cache/compat-1x);
 * N8N_COMPAT_DIR=.cache/compat-latest for the registry's newest (npm run test:compat -- --latest).
 * The node and the tests load that n8n-core and n8n-workflow instead of the 2.41 ones (the types
 * stay 2.41's).
 */
const path = require('path');
const base = require('./jest.config');

const dir = path.resolve(__dirname, process.env.N8N_COMPAT_DIR || '.cache/compat-1x');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	moduleNameMapper: { '^n8n-(core|workflow)((/.*)?)$': `${dir}/node_modules/n8n-$1$2` },
	setupFilesAfterEnv: ['<rootDir>/test/helpers/compat-engine.ts'],
	// Type errors are the 2.41 build's business (npm test); this run is about behaviour.
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};
