/**
 * `npm run dev` on a fresh clone runs its one-time installs through `quietly`
 * (scripts/lib/quietly.sh): the user sees what is being installed, how long it takes and where
 * the log is, never the thousands of lines of npm and the C compiler; a failure shows the end of
 * the log. Here with a command as loud as the sqlite3 build, and one that fails.
 */
import { spawnSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const root = join(__dirname, '..');
let folder: string;

beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'quietly-'))));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A word for bash, in single quotes. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `quietly` in bash with a 1 s progress interval. What it tells the user (its stderr) goes
 * to the file `$SAID`, so that a command can wait for it.
 */
function quietly(label: string, log: string, command: string) {
	const said = join(folder, 'said.txt');
	rmSync(said, { force: true });
	const script = `source scripts/lib/quietly.sh; quietly ${quoted(label)} ${quoted(log)} bash -c ${quoted(command)} 2>"$SAID"`;
	const result = spawnSync('bash', ['-c', script], {
		cwd: root,
		env: { ...process.env, QUIETLY_EVERY: '1', SAID: said },
		encoding: 'utf8',
		timeout: 60_000,
	});
	return { ...result, stderr: existsSync(said) ? readFileSync(said, 'utf8') : '' };
}

describe('quietly (the first run of npm run dev)', () => {
	it('shows the step, its progress and its time, and keeps the output in the log', () => {
		const log = join(folder, 'logs', 'install.log');
		// It ends only once the user has seen its progress, however fast or slow the machine.
		const noisy =
			'for i in $(seq 1 5000); do echo "warning: unused variable $i" >&2; done; until grep -q "\\.\\.\\. [0-9]* s" "$SAID"; do sleep 0.1; done; echo built';
		const result = quietly('installing n8n (one time, about 5 minutes)', log, noisy);
		expect(result.status).toBe(0);
		expect(result.stdout).toBe('');
		const lines = result.stderr.trim().split('\n');
		expect(lines[0]).toBe(`dev: installing n8n (one time, about 5 minutes) (full log: ${log})`);
		expect(lines.slice(1, -1).length).toBeGreaterThanOrEqual(1);
		for (const line of lines.slice(1, -1)) expect(line).toMatch(/^dev: {3}\.\.\. \d+ s$/);
		expect(lines.at(-1)).toMatch(/^dev: {3}done in \d+ s$/);
		expect(result.stderr).not.toContain('warning');
		const kept = readFileSync(log, 'utf8').trim().split('\n');
		expect(kept).toHaveLength(5001);
		expect(kept.at(-1)).toBe('built');
	});

	it('on failure, says so with the exit status and shows the end of the log', () => {
		const log = join(folder, 'failed.log');
		const result = quietly(
			'installing the npm dependencies',
			log,
			'for i in $(seq 1 100); do echo "line $i"; done; echo "npm error network unreachable"; exit 3',
		);
		expect(result.status).toBe(3);
		expect(result.stderr).toContain(
			`dev: ERROR: installing the npm dependencies failed (exit 3); the end of ${log}:`,
		);
		expect(result.stderr).toContain('npm error network unreachable');
		expect(result.stderr).toContain('line 62');
		expect(result.stderr).not.toContain('line 61\n');
	});
});
