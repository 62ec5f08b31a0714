/**
 * The node tier's runner (test/helpers/lightRunner.mjs) on two workers where the second loads its
 * runner module only once the first has its set-up data (test/fixtures/light-runner/): each worker
 * gets its data and the run ends. On jest-light-runner's own child-process runner this run hangs:
 * the first worker's answer went to both, the second was not listening yet, and its own request
 * found no one to answer it.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const root = join(__dirname, '..');
const fixtures = join(root, 'test/fixtures/light-runner');
let folder: string;

beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'light-runner-'))));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

it('gives each worker its set-up data, however late it starts its first file', () => {
	const config = {
		rootDir: fixtures,
		testMatch: ['**/*.check.js'],
		maxWorkers: 2,
		runner: join(root, 'test/helpers/lightRunner.mjs'),
		setupFiles: [join(fixtures, 'firstWorkerAnswered.mjs')],
		transform: {},
	};
	const hook = `--import ${join(fixtures, 'slowSecondWorker.mjs')}`;
	const result = spawnSync(
		process.execPath,
		[join(root, 'node_modules/jest/bin/jest.js'), '--config', JSON.stringify(config)],
		{
			cwd: root,
			encoding: 'utf8',
			env: {
				...process.env,
				NODE_OPTIONS: [process.env.NODE_OPTIONS, hook].filter(Boolean).join(' '),
				LIGHT_RUNNER_MARK: join(folder, 'first-worker-answered'),
			},
			// A hang is the failure: far longer than the run takes (2 to 3 s).
			timeout: 60_000,
		},
	);
	expect(result.signal).toBeNull();
	expect(result.stderr).toMatch(/Tests:\s+4 passed, 4 total/);
	expect(result.status).toBe(0);
}, 90_000);
