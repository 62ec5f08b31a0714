// The verdict of `npm run test:compat -- --latest`: which n8n-core / n8n-workflow broke what.
//
//   node scripts/compat-verdict.mjs load <compat dir>               can this Node load them at all?
//   node scripts/compat-verdict.mjs results <compat dir> <jest.json> the engine suites, from jest's
//                                                                    --json output
//
// Prints the verdict and writes it (markdown, for the GitHub job summary) to .tmp/compat-latest/verdict.md.
// Exit code 0 when it passed, 1 when something broke.
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import { createRequire } from 'module';
import { basename, dirname, join, relative, resolve } from 'path';
import { fileURLToPath } from 'url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [mode, dirArg, resultsFile] = process.argv.slice(2);
const dir = resolve(root, dirArg ?? '');
const pkg = (name) =>
	JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8'));
const versions = `n8n-core ${pkg('n8n-core').version} / n8n-workflow ${pkg('n8n-workflow').version}`;

function finish(headline, details = [], section = '') {
	const broken = !headline.passed;
	const text = [`${versions}: ${headline.text}`, ...details.map((line) => `- ${line}`)].join('\n');
	console.log(`\n${text}${section && `\n\n${section}`}`);
	mkdirSync(join(root, '.tmp', 'compat-latest'), { recursive: true });
	writeFileSync(
		join(root, '.tmp', 'compat-latest', 'verdict.md'),
		`### Newest n8n on the registry: ${broken ? 'broken' : 'passed'}\n\n${text}\n${section && `\n${section}\n`}`,
	);
	process.exit(broken ? 1 : 0);
}

/** The Node ranges the packages ask for that this Node does not satisfy (engines.node). */
function nodeWanted() {
	let semver;
	try {
		semver = createRequire(join(root, 'package.json'))('semver');
	} catch {
		return [];
	}
	return ['n8n-core', 'n8n-workflow']
		.map((name) => [name, pkg(name).engines?.node])
		.filter(([, range]) => range && !semver.satisfies(process.version, range))
		.map(([name, range]) => `${name} asks for Node ${range}`);
}

if (mode === 'load') {
	// Loaded as jest will (CommonJS, from the compat dir): a release that needs a newer Node fails
	// here with one clear line instead of every suite failing on import.
	const load = createRequire(join(dir, 'package.json'));
	try {
		load('n8n-workflow');
		load('n8n-core');
	} catch (error) {
		const wanted = nodeWanted();
		const reason = String(error?.message ?? error).split('\n')[0];
		finish(
			{
				passed: false,
				text: `does NOT LOAD on this Node ${process.version}${wanted.length ? ` (${wanted.join(', ')})` : ''}: ${reason}`,
			},
			[
				'A newer Node may be needed: run `npm run test:compat -- --latest` on the Node that n8n release requires (`npm view n8n engines`).',
			],
		);
	}
	const wanted = nodeWanted();
	if (wanted.length)
		console.log(
			`Note: ${wanted.join(', ')}; this is Node ${process.version}. They load; the tests run on it.`,
		);
	process.exit(0);
}

if (mode !== 'results') {
	console.error('usage: compat-verdict.mjs load|results <compat dir> [jest.json]');
	process.exit(2);
}

let results;
try {
	results = JSON.parse(readFileSync(resultsFile, 'utf8'));
} catch {
	finish({
		passed: false,
		text: 'jest did not report results (it stopped before or while running the suites: see the log above)',
	});
}

const name = (file) => relative(join(root, 'test'), file.name);
/** One part of the run: its tests, the failed ones, and the files that failed (also those that could not run). */
function part(files) {
	const tests = files.flatMap((file) => file.assertionResults);
	const failed = tests.filter((test) => test.status === 'failed');
	const brokenFiles = files.filter((file) => file.status === 'failed');
	const failedIn = (file) =>
		file.assertionResults.filter((test) => test.status === 'failed').length;
	const each = brokenFiles.map(
		(file) => `${basename(file.name)} (${failedIn(file) || 'could not run'})`,
	);
	const one = brokenFiles[0];
	const where =
		brokenFiles.length === 1
			? `${basename(one.name)}${failedIn(one) ? '' : ', which could not run'}`
			: `${brokenFiles.length} files: ${each.join(', ')}`;
	return {
		files,
		tests,
		failed,
		brokenFiles,
		broken: `${failed.length} of ${tests.length} tests, in ${where}`,
	};
}

const engine = part(results.testResults);
const passedCount = (p) => p.tests.filter((test) => test.status === 'passed').length;

const engineText = !engine.files.length
	? 'engine suites DID NOT RUN'
	: engine.brokenFiles.length
		? `engine suites FAILED (${engine.broken})`
		: `engine suites passed (${passedCount(engine)} tests in ${engine.files.length} files)`;
const clean = engine.files.length > 0 && !engine.brokenFiles.length;
// Jest can fail with every test green (a global setup or teardown error, an interrupted run).
const outside =
	clean && !results.success
		? '; jest reported a failure outside the tests (see the log above)'
		: '';

const details = engine.brokenFiles.flatMap((file) => {
	const failed = file.assertionResults.filter((test) => test.status === 'failed');
	if (!failed.length)
		return [
			`${name(file)}: ${
				String(file.message)
					.replace(/\x1b\[[0-9;]*m/g, '')
					.split('\n')
					.find((line) => line.trim() && !line.includes('Test suite failed to run'))
					?.trim() ?? 'could not run'
			}`,
		];
	return failed.map((test) => `${name(file)} › ${test.fullName}`);
});
const shown = details.slice(0, 40);
if (details.length > shown.length)
	shown.push(`… and ${details.length - shown.length} more (see the log above)`);

/**
 * The n8n internals the node relies on (nodes/ConversationalMessaging/n8nInternals.ts), one line
 * each: its test in test/n8n/internals.test.ts is named after the shortcut it checks.
 */
const INTERNALS = join('n8n', 'internals.test.ts');
function internalsSection() {
	const file = results.testResults.find((candidate) => name(candidate) === INTERNALS);
	const heading = "#### n8n's internals the node relies on (test/n8n/internals.test.ts)\n\n";
	if (!file) return `${heading}- not run`;
	if (!file.assertionResults.length) return `${heading}- could not run (see above)`;
	const verdict = { passed: 'holds', failed: 'BROKEN' };
	return (
		heading +
		file.assertionResults
			.map((test) => `- ${verdict[test.status] ?? test.status}: ${test.title}`)
			.join('\n')
	);
}

finish({ passed: clean && !outside, text: `${engineText}${outside}` }, shown, internalsSection());
