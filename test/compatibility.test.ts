/**
 * README's Compatibility table stays true: the n8n versions it names are the ones the scripts run,
 * read from where the scripts take them (package.json's devDependencies for the 2.x engine,
 * scripts/ensure-compat.sh for the 1.x engine, tools/n8n-runtime*\/package.json for real n8n, which
 * scripts/ensure-n8n.sh installs). Bumping a version there without the table fails here. And the
 * files the compat run leaves out (jest.compat.config.js) are still there to be left out.
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';

const root = join(__dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const json = (path: string) =>
	JSON.parse(read(path)) as {
		dependencies?: Record<string, string>;
		devDependencies?: Record<string, string>;
	};
const VERSION = /\b\d+\.\d+\.\d+\b/g;

/** The value of `name=x.y.z` in a shell script. */
const shellPin = (path: string, name: string) => {
	const found = new RegExp(`^${name}=(\\d+\\.\\d+\\.\\d+)$`, 'm').exec(read(path));
	if (!found) throw new Error(`${path} pins no ${name}=x.y.z`);
	return found[1];
};

/** What the scripts run. */
const used = {
	'2.x': {
		n8n: json('tools/n8n-runtime/package.json').dependencies?.n8n,
		core: json('package.json').devDependencies?.['n8n-core'],
		workflow: json('package.json').devDependencies?.['n8n-workflow'],
	},
	'1.x': {
		n8n: json('tools/n8n-runtime-1x/package.json').dependencies?.n8n,
		core: shellPin('scripts/ensure-compat.sh', 'core'),
		workflow: shellPin('scripts/ensure-compat.sh', 'workflow'),
	},
};
const allUsed = Object.values(used).flatMap((line) => Object.values(line));

const readme = read('README.md');
const section = readme.slice(
	readme.indexOf('\n## Compatibility\n'),
	readme.indexOf('\n## ', readme.indexOf('\n## Compatibility\n') + 1),
);
/** The table's rows, by their first cell. */
const rows = section
	.split('\n')
	.filter(
		(line) => line.startsWith('| ') && !line.startsWith('| n8n |') && !line.startsWith('| ---'),
	)
	.map((line) => line.split(' | ')[0].slice(2));
const row = (first: string) =>
	section.split('\n').find((line) => line.startsWith(`| **${first}**`)) ?? '';

describe('README Compatibility table', () => {
	it('reads every version from the scripts (exact pins, not ranges)', () => {
		for (const version of allUsed) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
		expect(readme.indexOf('\n## Compatibility\n')).toBeGreaterThan(0);
	});

	it('has a row for n8n 2.x, for n8n 1.x and for the newest on the registry', () => {
		expect(rows).toEqual([
			`**${used['2.x'].n8n}**`,
			`**${used['1.x'].n8n}** (the last 1.x line)`,
			expect.stringContaining('**the newest on the npm registry**'),
		]);
	});

	it.each(Object.entries(used))(
		'n8n %s: the row names the real n8n and the engine (n8n-core, n8n-workflow) the scripts run',
		(_line, { n8n, core, workflow }) => {
			const text = row(n8n!);
			expect(text).toContain(`real n8n ${n8n}`);
			expect(text).toContain(`n8n-core ${core} and n8n-workflow ${workflow}`);
			// No other version: a stale one left beside the new would still read as tested.
			expect([...new Set(text.match(VERSION))].sort()).toEqual(
				[...new Set([n8n, core, workflow])].sort(),
			);
		},
	);

	it('the 1.x row is the one test:compat runs: the 1.x engine and real n8n with N8N_RUNTIME=1x', () => {
		const script = read('scripts/test-compat.sh');
		expect(script).toMatch(/^bash scripts\/ensure-compat\.sh$/m);
		expect(script).toMatch(/^N8N_RUNTIME=1x bash test\/e2e\/run\.sh /m);
		expect(row(used['1.x'].n8n!)).toContain('`npm run test:compat`');
	});

	it('the newest row names the weekly workflow and the command it runs', () => {
		const text =
			section.split('\n').find((line) => line.includes('**the newest on the npm registry**')) ?? '';
		expect(text).toContain('`.github/workflows/newest-n8n.yml`');
		expect(read('.github/workflows/newest-n8n.yml')).toContain('npm run test:compat -- --latest');
		expect(text).toContain('`npm run test:compat -- --latest`');
		expect(text.match(VERSION)).toBeNull();
	});

	it("the comments of the compat scripts and docs/DEVELOPING.md's test:compat lines name no other version", () => {
		const texts = [
			read('scripts/test-compat.sh'),
			read('scripts/ensure-compat.sh'),
			read('jest.compat.config.js'),
			...read('docs/DEVELOPING.md')
				.split('\n')
				.filter((line) => line.startsWith('npm run test:compat')),
		];
		const named = texts.flatMap((text) => text.match(VERSION) ?? []);
		expect(named.length).toBeGreaterThan(0);
		expect(named.filter((version) => !allUsed.includes(version))).toEqual([]);
	});
});

describe("the compat run's left-out files", () => {
	it('exist: a file moved or renamed is named again where it is, or comes back to the run', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const compat = require('../jest.compat.config.js') as { testPathIgnorePatterns: string[] };
		const files = compat.testPathIgnorePatterns
			.filter((pattern) => pattern.startsWith('<rootDir>/'))
			.map((pattern) => pattern.slice('<rootDir>/'.length));
		expect(files.length).toBeGreaterThan(0);
		expect(files.filter((file) => !existsSync(join(root, file)))).toEqual([]);
	});
});
