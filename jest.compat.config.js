/**
 * The engine suites against another n8n engine, installed by scripts/ensure-compat.sh: by default
 * n8n 1.x's (n8n 1.123.x: n8n-core 1.122.48, n8n-workflow 1.120.31, in .cache/compat-1x);
 * N8N_COMPAT_DIR=.cache/compat-latest for the registry's newest (npm run test:compat -- --latest).
 * The node and the tests load that n8n-core and n8n-workflow instead of the 2.41 ones (the types
 * stay 2.41's).
 */
const path = require('path');
const { projects, ...global } = require('./jest.config');

const dir = path.resolve(__dirname, process.env.N8N_COMPAT_DIR || '.cache/compat-1x');
const { displayName: _name, ...node } = projects.find((project) => project.displayName === 'node');

/** @type {import('jest').Config} */
module.exports = {
	...global,
	...node,
	/**
	 * Only the files whose result can change with the engine: those that run the node through n8n's
	 * engine (test/helpers/engine.ts, directly or through the sandbox helper), or load it with
	 * n8n-core (package, description) or n8n-workflow's helpers (form), and the checks of the n8n
	 * internals the node relies on (test/n8n/). That is the files under these folders and the
	 * package test, but the pure ones and the 2.x-only one listed below: a new test there runs on
	 * both engines unless listed. The tooling tier (sandbox, lint, workflows) and the pages' words
	 * (test/words.test.ts) touch no engine and are not run here.
	 */
	testMatch: [
		'<rootDir>/test/n8n/**/*.test.ts',
		'<rootDir>/test/nodes/**/*.test.ts',
		'<rootDir>/test/reliability/**/*.test.ts',
		'<rootDir>/test/credentials/**/*.test.ts',
		'<rootDir>/test/package.test.ts',
	],
	testPathIgnorePatterns: [
		'/node_modules/',
		// Pure functions of the node's own, no n8n code runs: the same on every engine, so run once, by
		// `npm test`. A file that runs the node, reads its description or calls n8n-workflow's
		// helpers (NodeHelpers, a NodeOperationError's words) stays on both engines.
		// A research's completion rule (resources/researcher/completion.ts).
		'<rootDir>/test/nodes/ConversationalMessaging/resources/researcherCompletion.test.ts',
		// An SMS's encoding and segments, look-alike characters (checks/sms.ts).
		'<rootDir>/test/nodes/ConversationalMessaging/smsSegments.test.ts',
		// Every phone refusal's example numbers, read again (checks/phone/reading.ts).
		'<rootDir>/test/nodes/ConversationalMessaging/phoneErrors.test.ts',
		// The Send Window's time math and its time-zone table (recipientRules/, checks/phone/zones.ts).
		'<rootDir>/test/nodes/ConversationalMessaging/sendWindow.test.ts',
		// The pace and outages of one account's lane, on a fake clock (sendLoop/lane.ts, pacer.ts).
		'<rootDir>/test/nodes/ConversationalMessaging/pacing.test.ts',
		// n8n 2.41's AI-builder packages (node catalogue, workflow SDK) on 2.41's n8n-workflow: n8n 1.x has no such builders.
		'<rootDir>/test/nodes/ConversationalMessaging/aiBuilders.test.ts',
		// n8n's lint rules on the node's own words (descriptions, option lists), the same on every
		// engine; and ESLint loads its config with a dynamic import, which jest's own runner refuses.
		'<rootDir>/test/nodes/ConversationalMessaging/lintedDescription.test.ts',
		// The Default Country's labels from the runtime's ICU (checks/phone/countryList.ts), the same on
		// every engine; it loads the module again through require.cache, which jest's own registry ignores.
		'<rootDir>/test/nodes/ConversationalMessaging/countryLabels.test.ts',
	],
	// Jest's own runner, one sandbox per file: the other engine is put in place by jest's resolver.
	runner: 'jest-runner',
	setupFiles: ['<rootDir>/test/helpers/env.ts'],
	moduleNameMapper: { '^n8n-(core|workflow)((/.*)?)$': `${dir}/node_modules/n8n-$1$2` },
	setupFilesAfterEnv: ['<rootDir>/test/helpers/compat-engine.ts'],
	// Type errors are the 2.41 build's business (npm test); this run is about behaviour.
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};
