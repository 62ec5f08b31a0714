/**
 * The node tier's runner (test/helpers/lightRunner.mjs) on two workers where the second starts its
 * first file late (test/fixtures/light-runner/slowSecondWorker.mjs): each worker gets its set-up
 * data and the run ends. On jest-light-runner's own child-process runner this run hangs: the first
 * worker's answer went to both, the second was not listening yet, and its own request found no one.
 */
import { spawnSync } from 'child_process';
import { join } from 'path';

const root = join(__dirname, '..');
const fixtures = join(root, 'test/fixtures/light-runner');

it('gives each worker its set-up data, however late it starts its first file', () => {
	const config = {
		rootDir: fixtures,
		testMatch: ['**/*.check.js'],
		maxWorkers: 2,
		runner: join(root, 'test/helpers/lightRunner.mjs'),
		transform: {},
	};
	const result = spawnSync(
		process.execPath,
		[join(root, 'node_modules/jest/bin/jest.js'), '--config', JSON.stringify(config)],
		{
			cwd: root,
			encoding: 'utf8',
			env: { ...process.env, NODE_OPTIONS: `--import ${join(fixtures, 'slowSecondWorker.mjs')}` },
			// A hang is the failure: far longer than the run takes (2 to 3 s).
			timeout: 60_000,
		},
	);
	expect(result.signal).toBeNull();
	expect(result.stderr).toMatch(/Tests:\s+4 passed, 4 total/);
	expect(result.status).toBe(0);
}, 90_000);
