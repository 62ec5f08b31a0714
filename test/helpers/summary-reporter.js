// Ends the run with the plain "N passed, N failed" line that CI reads in any language.
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		process.stdout.write(
			`jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
		);
	}
}
module.exports = SummaryReporter;
