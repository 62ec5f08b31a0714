/**
 * The node tier's runner (jest.config.js): jest-light-runner's child-process runner, with a channel
 * of its own for each test file.
 *
 * A worker process asks the runner once, at its first file, for its set-up data (the project's
 * config). jest-light-runner 0.7.x gives all the pool's files one channel and answers a request by
 * sending the data to every worker that has been sent a file: a worker still loading its runner
 * module got it before it listened for it, asked in its turn, got no answer and waited for ever
 * (CI's `npm test` hung on bad-input.test.ts with its worker idle). Here the answer goes only to
 * the worker that asked: tinypool hands a request to the channel of the file that worker runs.
 */
import ChildProcessRunner from 'jest-light-runner/child-process';

const REQUEST = 'jest-light-runner-get-worker-data';

/** One file's channel: the worker running it gets the set-up data when it asks. */
function fileChannel(workerData) {
	let toWorker;
	return {
		onMessage(listener) {
			toWorker = listener;
		},
		postMessage(message) {
			if (message === REQUEST) toWorker?.({ type: 'jest-light-runner-worker-data', workerData });
		},
	};
}

export default class LightRunner extends ChildProcessRunner {
	_runTest(test) {
		const projectConfig = test.context.config;
		const known = this._testRunners.has(projectConfig);
		// The first file creates the pool; its worker is the only one on the shared channel.
		const result = super._runTest(test);
		// One worker (maxWorkers 1) runs in jest's own process, without a channel.
		if (!known && this._runtime === 'child_process') {
			const runner = this._testRunners.get(projectConfig);
			// jest-light-runner is pinned (package.json): this reads its internals.
			if (typeof runner?.pool?.run !== 'function')
				throw new Error('lightRunner.mjs: jest-light-runner changed; see docs/DEVELOPING.md');
			const workerData = {
				globalConfig: this._globalConfig,
				projectConfig,
				runtime: this._runtime,
			};
			runner.run = (next) => runner.pool.run(next.path, { channel: fileChannel(workerData) });
		}
		return result;
	}
}
