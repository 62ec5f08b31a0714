/**
 * Jest's order, with one hint for a run that has no timings yet (a fresh clone: jest keeps each
 * file's last duration in its cache, per checkout). Jest then starts the biggest files first, and
 * the load test, a small file but among the longest on the CPU, would start last and run
 * alone on one core while the other idles. Files named here start first when jest has no timing
 * for them; once it has, its own order (longest first) holds.
 */
const Sequencer = require('@jest/test-sequencer').default;

/** The longest files to run, longest first (measured with `jest --json`, on two cores), of either config. */
const LONGEST = [
	'test/reliability/load.test.ts',
	'test/reliability/bad-input.test.ts',
	// The end-to-end suites (jest.e2e.config.js): the restart waits twice 70 s; the editor drives a browser.
	'test/e2e/research-restart.e2e.ts',
	'test/e2e/editor.e2e.ts',
];

class LongestFirst extends Sequencer {
	sort(tests) {
		const sorted = super.sort(tests);
		const hint = (test) => {
			if (this.time(test) !== undefined) return -1;
			return LONGEST.findIndex((path) => test.path.endsWith(path));
		};
		const first = sorted.filter((test) => hint(test) >= 0).sort((a, b) => hint(a) - hint(b));
		return [...first, ...sorted.filter((test) => !first.includes(test))];
	}
}

module.exports = LongestFirst;
