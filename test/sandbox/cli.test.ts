// The sandbox's command line (sandbox/cli.ts), run as `npm run sandbox` runs it, on a free port.
import axios from 'axios';
import { spawn, type ChildProcess } from 'child_process';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');
const running = new Set<Run>();

afterEach(async () => {
	for (const run of running) run.child.kill('SIGTERM');
	await Promise.all([...running].map((run) => run.exited));
	running.clear();
});

interface Run {
	child: ChildProcess;
	/** Everything printed so far, stdout and stderr. */
	output(): string;
	exited: Promise<number | null>;
}

/** The CLI with these flags and SANDBOX_* variables only (none from the environment of the tests). */
function runCli(args: string[], env: Record<string, string> = {}): Run {
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([name]) => !name.startsWith('SANDBOX_')),
	);
	const child = spawn(
		process.execPath,
		['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', ...args],
		{ cwd: ROOT, env: { ...inherited, ...env } },
	);
	let text = '';
	child.stdout!.on('data', (chunk) => (text += chunk));
	child.stderr!.on('data', (chunk) => (text += chunk));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	const run = { child, output: () => text, exited };
	running.add(run);
	return run;
}

async function until(cli: Run, pattern: RegExp, ms = 20000): Promise<RegExpMatchArray> {
	const deadline = Date.now() + ms;
	for (;;) {
		const found = cli.output().match(pattern);
		if (found) return found;
		if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${cli.output()}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}

async function started(
	args: string[],
	env?: Record<string, string>,
): Promise<Run & { url: string }> {
	const cli = runCli(args, env);
	const [, url] = await until(cli, /Sandbox listening on (\S+)/);
	await until(cli, /Controls: /);
	return { ...cli, url };
}

const sms = (url: string) =>
	axios.post(`${url}/v1/sms`, {
		token: 'demotoken0000',
		type: 'text',
		body: 'x',
		to: '573001234567',
		instance: 'i',
	});

test('--cut-after-commit N (the flag winning over the environment) cuts the next N sends after carrying them out', async () => {
	const cli = await started(['--cut-after-commit', '1'], { SANDBOX_CUT_AFTER_COMMIT: '5' });
	expect(cli.output()).toContain(
		'Cut after commit: the next 1 sends (smsSend, socialnetSend, legacyMessageSend, liveChatMessageSend)',
	);
	expect((await axios.get(`${cli.url}/v1/client?token=demotoken0000`)).status).toBe(200);
	await expect(sms(cli.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
	expect((await sms(cli.url)).status).toBe(200);
	expect((await axios.get(`${cli.url}/__sandbox/messages`)).data.messages).toHaveLength(2);
});

test('SANDBOX_OUTAGE_MS and SANDBOX_OUTAGE_AT: one outage, announced, at that time after start', async () => {
	const cli = await started([], { SANDBOX_OUTAGE_MS: '300', SANDBOX_OUTAGE_AT: '500' });
	expect(cli.output()).toMatch(/Outage: not listening from \S+Z \(in 500 ms\) for 300 ms/);
	await until(cli, /Outage: stopped listening for 300 ms/);
	await until(cli, /Outage over: listening again on /);
	expect((await axios.get(`${cli.url}/__sandbox/requests`)).data).toMatchObject({ outages: 1 });
});

test('an outage needs both its length and its time; bad numbers are refused', async () => {
	const alone = runCli(['--outage-ms', '300']);
	expect(await alone.exited).toBe(2);
	expect(alone.output()).toContain(
		'--outage-ms (how long) and --outage-at (ms after start) go together',
	);
	const negative = runCli(['--outage-at', '10'], { SANDBOX_OUTAGE_MS: '-5' });
	expect(await negative.exited).toBe(2);
	expect(negative.output()).toContain('--outage-ms must be a non-negative integer, got -5');
});

test('prints the inbox address at start, where the page of the messages sent is', async () => {
	const cli = await started([]);
	const [, inbox] = await until(cli, /Inbox: (\S+)/);
	expect(inbox).toBe(`${cli.url}/`);
	expect(cli.output()).toContain(`short links are ${cli.url}/s/<idUrl>`);
	await sms(cli.url);
	const page = await axios.get(inbox);
	expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
	expect(page.data).toContain('data-testid="message" data-channel="sms"');
	expect(page.data).not.toContain('demotoken0000');
});
