/**
 * `npm run dev` (scripts/dev.sh) on free ports and a temporary user folder: the editor serves, the
 * printed login works, the examples and the credential are there, the example form takes a real
 * submission, a second start reuses everything, and Ctrl-C leaves nothing listening.
 */
import { spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'fs';
import { connect } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

import { freePort, REPO_ROOT, removeUserFolder, RestSession } from './lib/n8n';

interface Dev {
	process: ChildProcess;
	output: () => string;
}

const exampleIds = readdirSync(join(REPO_ROOT, 'examples'))
	.filter((file) => file.endsWith('.json'))
	.map(
		(file) =>
			(JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as { id: string }).id,
	);

let ports: { n8n: number; sandbox: number; broker: number };
let userFolder: string;
let dev: Dev | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listening(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const socket = connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/** Starts `npm run dev` in its own process group, as a terminal would, and waits for its banner. */
async function startDev(): Promise<Dev> {
	const env = {
		...process.env,
		N8N_PORT: String(ports.n8n),
		SANDBOX_PORT: String(ports.sandbox),
		N8N_RUNNERS_BROKER_PORT: String(ports.broker),
		N8N_DEV_USER_FOLDER: userFolder,
	};
	const child = spawn('npm', ['run', 'dev'], {
		cwd: REPO_ROOT,
		env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout?.on('data', (chunk) => (output += chunk));
	child.stderr?.on('data', (chunk) => (output += chunk));
	const started = { process: child, output: () => output };
	const deadline = Date.now() + 240_000;
	while (!/Ready in \d+ s\./.test(output)) {
		if (child.exitCode !== null || Date.now() > deadline) {
			await stopDev(started);
			throw new Error(`npm run dev did not get ready:\n${output}`);
		}
		await sleep(250);
	}
	return started;
}

/** Ctrl-C: SIGINT to the whole process group (npm, then dev.sh, get it). */
async function stopDev(running: Dev): Promise<void> {
	const { process: child } = running;
	if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
	const exited = new Promise((resolve) => child.once('exit', resolve));
	process.kill(-child.pid, 'SIGINT');
	await exited;
}

/** Stopped with Ctrl-C: dev.sh finished its cleanup and n8n, its task runner broker and the sandbox are gone. */
async function expectStopped(running: Dev): Promise<void> {
	await stopDev(running);
	expect(running.output()).toContain('dev: stopped');
	expect(await Promise.all(Object.values(ports).map(listening))).toEqual([false, false, false]);
}

function login(output: string): { email: string; password: string } {
	const [, email, password] = /login\s+(\S+) \/ (\S+)/.exec(output) ?? [];
	return { email, password };
}

beforeAll(async () => {
	ports = { n8n: await freePort(), sandbox: await freePort(), broker: await freePort() };
	userFolder = mkdtempSync(join(tmpdir(), 'cm-dev-'));
});

afterAll(async () => {
	if (dev) await stopDev(dev);
	removeUserFolder(userFolder);
});

describe('npm run dev', () => {
	const editor = () => `http://127.0.0.1:${ports.n8n}`;
	const sandbox = () => `http://127.0.0.1:${ports.sandbox}`;

	it('serves the editor with the node, the examples and the sandbox credential, and the printed login', async () => {
		dev = await startDev();
		const output = dev.output();
		expect(output).toContain(editor());
		expect(output).toMatch(new RegExp(`${sandbox()}\\s+token demotoken0000`));
		expect(output).toMatch(new RegExp(`inbox\\s+${sandbox()}/\\s`));
		expect((await fetch(`${editor()}/`)).status).toBe(200);

		const { email, password } = login(output);
		const session = await RestSession.login(editor(), email, password);
		const workflows = await session.request<{ data: Array<{ id: string }> }>(
			'GET',
			'/rest/workflows',
		);
		expect(workflows.data.map((workflow) => workflow.id).sort()).toEqual([...exampleIds].sort());
		const credentials = await session.request<{ data: Array<{ id: string; name: string }> }>(
			'GET',
			'/rest/credentials',
		);
		expect(credentials.data).toEqual([
			expect.objectContaining({ id: 'cmSandboxCred001', name: 'Conversational Messaging sandbox' }),
		]);
		expect(await session.testCredential('cmSandboxCred001')).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		const types = await session.request<Array<{ name: string }>>('GET', '/types/nodes.json');
		expect(types.map((type) => type.name)).toContain(
			'n8n-nodes-conversational-messaging.conversationalMessaging',
		);
	});

	it('takes a submission of the example contact form as a CRM lead in the sandbox', async () => {
		const { email, password } = login(dev!.output());
		const session = await RestSession.login(editor(), email, password);
		await session.activate('cmExampleLead001');
		// The form's webhook is registered shortly after the activation answers.
		let page = await fetch(`${editor()}/form/contact-us`);
		for (let tries = 0; page.status === 404 && tries < 40; tries++) {
			await sleep(250);
			page = await fetch(`${editor()}/form/contact-us`);
		}
		expect(page.status).toBe(200);
		expect(await page.text()).toContain('<title>Contact us</title>');

		const answers = new FormData();
		answers.append('field-0', 'Ana Garcia');
		answers.append('field-1', '+57 300 123 4567');
		answers.append('field-2', 'Please call me about the spring offer');
		expect(
			(await fetch(`${editor()}/form/contact-us`, { method: 'POST', body: answers })).status,
		).toBe(200);

		// The form answers at once; the lead follows.
		let leads = 0;
		for (let tries = 0; leads === 0 && tries < 40; tries++) {
			await sleep(250);
			const stats = (await (await fetch(`${sandbox()}/__sandbox/requests`)).json()) as {
				byOperation: Record<string, number>;
				violations: number;
			};
			leads = stats.byOperation.crmLeadInject ?? 0;
			expect(stats.violations).toBe(0);
		}
		expect(leads).toBe(1);
		// The inbox the banner names shows it.
		const inbox = await (await fetch(`${sandbox()}/`)).text();
		expect(inbox).toContain('data-channel="crm"');
		expect(inbox).toContain('Please call me about the spring offer');
	});

	it('stops everything on Ctrl-C', async () => {
		await expectStopped(dev!);
	});

	it('starts again on the same folder without importing again, with the same login', async () => {
		const first = login(dev!.output());
		dev = await startDev();
		expect(dev.output()).not.toContain('importing');
		expect(login(dev.output())).toEqual(first);
		const session = await RestSession.login(editor(), first.email, first.password);
		const workflows = await session.request<{ data: Array<{ id: string }> }>(
			'GET',
			'/rest/workflows',
		);
		expect(workflows.data).toHaveLength(exampleIds.length);
		await expectStopped(dev);
	});
});
