/**
 * The node tier's runner (jest.config.js): jest-light-runner in worker threads, its default mode,
 * as the package exports it (nothing of its own, none of jest-light-runner's internals read).
 *
 * Each worker thread gets its set-up data (the project's config) from the pool that creates it
 * (tinypool's workerData), before it loads its first file. jest-light-runner's child-process mode
 * (jest-light-runner/child-process, every version to 0.8.2) has each worker ask for that data at
 * its first file instead, on one channel shared by all the pool's files, and sends the answer to
 * every worker that has been sent a file: a worker still loading its runner module got it before
 * it listened, asked in its turn, got no answer and waited for ever (CI's `npm test` hung so on
 * bad-input.test.ts). A worker thread asks nothing, so it cannot miss the answer, and no test
 * stages that race (it needed jest-light-runner's internal file paths). Before moving the pinned
 * jest-light-runner, check that worker threads still get their data from the pool.
 *
 * Worker threads read TypeScript through tsx's hooks registered in each thread
 * (./typescript.mjs); process.memoryUsage() and process.cpuUsage() there are the whole jest
 * process's, both workers together.
 */
import { createRunner } from 'jest-light-runner';

export default createRunner({ runtime: 'worker_threads' });
