/**
 * Real n8n for the end-to-end suites: the cached n8n 2.41.1 (scripts/ensure-n8n.sh) run through
 * scripts/n8n.sh on 127.0.0.1, with this repo's package linked in as an installed community
 * package, in a fresh user folder per suite.
 */
import { execFile, execFileSync, spawn } from 'child_process';
import { randomUUID } from 'crypto';
import type { ChildProcess } from 'child_process';
import {
	cpSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'fs';
import { createServer } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

export const REPO_ROOT = join(__dirname, '..', '..', '..');
const N8N_SH = join(REPO_ROOT, 'scripts', 'n8n.sh');
/** The n8n the suites run: 2.41.1, or with N8N_RUNTIME=1x the 1.x line (scripts/n8n-env.sh). */
export const N8N_VERSION = (
	JSON.parse(
		readFileSync(
			join(
				REPO_ROOT,
				'tools',
				`n8n-runtime${process.env.N8N_RUNTIME ? `-${process.env.N8N_RUNTIME}` : ''}`,
				'package.json',
			),
			'utf8',
		),
	) as { dependencies: { n8n: string } }
).dependencies.n8n;
export const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
/** Where the default n8n runtime is installed: the machine's cache, named for its pins (scripts/n8n-env.sh). */
export const RUNTIME_DIR = (
	/^export N8N_RUNTIME_DIR=(.*)$/m.exec(
		execFileSync('bash', [join(REPO_ROOT, 'scripts', 'n8n-env.sh')], {
			env: { ...process.env, N8N_RUNTIME: '' },
			encoding: 'utf8',
		}),
	) as RegExpExecArray
)[1];
const PACKAGE_NAME = 'n8n-nodes-conversational-messaging';

export const OWNER = {
	email: 'owner@example.com',
	firstName: 'Ada',
	lastName: 'Owner',
	password: 'Sandbox-Pass-2026',
};

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

export interface UserFolderOptions {
	/**
	 * `link` (the default): the repo linked in. The node then runs with the repo's node_modules,
	 * its own copy of n8n-workflow (a devDependency) among them, so n8n's `instanceof NodeApiError`
	 * does not know the node's errors. `copy`: what npm publishes (package.json's `files`), with
	 * package.json stripped of its dev and peer dependencies as n8n's installer does: n8n-workflow
	 * then resolves to n8n's own, as in a real install.
	 */
	install?: 'link' | 'copy';
}

/**
 * A new n8n user folder with this package installed the way n8n installs community packages:
 * under .n8n/nodes/node_modules, listed in .n8n/nodes/package.json (a link to the repo or a copy
 * of its package, whose dist/ must be built).
 */
export function createUserFolder(options: UserFolderOptions = {}): string {
	const folder = mkdtempSync(join(tmpdir(), 'cm-n8n-'));
	const nodesDir = join(folder, '.n8n', 'nodes');
	mkdirSync(join(nodesDir, 'node_modules'), { recursive: true });
	const packageDir = join(nodesDir, 'node_modules', PACKAGE_NAME);
	if (options.install === 'copy') {
		const {
			devDependencies: _dev,
			peerDependencies: _peer,
			optionalDependencies: _optional,
			...manifest
		} = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<
			string,
			unknown
		>;
		cpSync(join(REPO_ROOT, 'dist'), join(packageDir, 'dist'), {
			recursive: true,
			filter: (source) => !/\.(map|d\.ts)$/.test(source),
		});
		writeFileSync(join(packageDir, 'package.json'), JSON.stringify(manifest, null, 2));
	} else {
		symlinkSync(REPO_ROOT, packageDir, 'dir');
	}
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE_NAME]: '*' },
		}),
	);
	return folder;
}

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

export interface N8nOptions {
	userFolder: string;
	/** Extra environment, e.g. a database or queue mode. */
	env?: NodeJS.ProcessEnv;
}

async function baseEnv({ userFolder, env }: N8nOptions): Promise<NodeJS.ProcessEnv> {
	// jest sets NODE_ENV=test, under which n8n exits at once without a word.
	const { NODE_ENV: _testMode, ...inherited } = process.env;
	return {
		...inherited,
		N8N_USER_FOLDER: userFolder,
		N8N_SKIP_ENSURE: '1',
		// Each process gets its own task-runner broker port, so several can run at once.
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_LOG_LEVEL: 'warn',
		...env,
	};
}

/** Runs an n8n CLI command (import:credentials, import:workflow, execute, ...). */
export async function n8nCli(args: string[], options: N8nOptions): Promise<CliResult> {
	const env = await baseEnv(options);
	return await new Promise((resolve) => {
		execFile(
			N8N_SH,
			args,
			{ env, cwd: options.userFolder, maxBuffer: 256 * 1024 * 1024 },
			(error, stdout, stderr) => {
				resolve({
					code: error ? Number((error as { code?: number }).code ?? 1) : 0,
					stdout,
					stderr,
				});
			},
		);
	});
}

export async function importJson(
	kind: 'credentials' | 'workflow',
	data: unknown,
	options: N8nOptions,
): Promise<void> {
	const file = join(options.userFolder, `import-${kind}-${Date.now()}.json`);
	writeFileSync(file, JSON.stringify(data));
	const result = await n8nCli([`import:${kind}`, `--input=${file}`], options);
	if (result.code !== 0)
		throw new Error(`n8n import:${kind} failed: ${result.stderr}\n${result.stdout}`);
}

/**
 * `n8n execute --id`: the run data it prints, also when the run failed. n8n prints it through its
 * logger at level info, pretty-printed: the top-level braces are the only ones alone on a line.
 */
export async function executeWorkflow(
	id: string,
	options: N8nOptions,
): Promise<{ result: CliResult; run?: ExecutedRun }> {
	const result = await n8nCli(['execute', `--id=${id}`, '--rawOutput'], {
		...options,
		env: { N8N_LOG_LEVEL: 'info', ...options.env },
	});
	const json = /^\{$[\s\S]*?^\}$/m.exec(result.stdout);
	let run: ExecutedRun | undefined;
	if (json) {
		try {
			run = JSON.parse(json[0]) as ExecutedRun;
		} catch {
			run = undefined;
		}
	}
	return { result, run };
}

export interface ExecutedRun {
	status?: string;
	data: {
		resultData: {
			runData: Record<
				string,
				Array<{
					data?: { main: Array<Array<{ json: Record<string, unknown>; error?: unknown }>> };
					error?: { message: string };
					/** The hints the node left above its output (n8n's execution hints). */
					hints?: Array<{ message: string; type?: string; location?: string }>;
				}>
			>;
			error?: { message: string };
		};
	};
}

/** The output items of a node in an executed run. */
export function outputOf(
	run: ExecutedRun,
	nodeName: string,
	outputIndex = 0,
): Array<Record<string, unknown>> {
	const task = run.data.resultData.runData[nodeName]?.[0];
	return (task?.data?.main[outputIndex] ?? []).map((item) => item.json);
}

export interface N8nServer {
	url: string;
	port: number;
	process: ChildProcess;
	log: () => string;
	stop(): Promise<void>;
}

export interface StartOptions extends N8nOptions {
	/** The HTTP port: n8n's for `start`, the health server's for `worker`. */
	port?: number;
	/** `worker` runs a queue-mode worker with its health server on 127.0.0.1 (queue mode env comes from `env`). */
	command?: 'start' | 'worker';
	/** Extra command-line flags, e.g. `--concurrency=10`. */
	args?: string[];
}

/**
 * `n8n start` (or `n8n worker`), ready when /healthz/readiness answers 200 (plain /healthz answers
 * before the REST routes exist; a worker's readiness waits for its database and Redis).
 */
export async function startN8n(options: StartOptions): Promise<N8nServer> {
	const port = options.port ?? (await freePort());
	const command = options.command ?? 'start';
	const portEnv: NodeJS.ProcessEnv =
		command === 'worker'
			? {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(port),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				}
			: { N8N_PORT: String(port) };
	const env = { ...(await baseEnv(options)), ...portEnv };
	const child = spawn(N8N_SH, [command, ...(options.args ?? [])], {
		env,
		cwd: options.userFolder,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout?.on('data', (chunk) => (output += chunk));
	child.stderr?.on('data', (chunk) => (output += chunk));
	const url = `http://127.0.0.1:${port}`;
	// A process killed by a signal has a signalCode and no exitCode.
	const exited = () => child.exitCode !== null || child.signalCode !== null;
	const stop = async () => {
		if (exited() || child.pid === undefined) return;
		const done = new Promise((resolve) => child.once('exit', resolve));
		process.kill(-child.pid, 'SIGTERM');
		const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 10_000);
		await done;
		clearTimeout(timer);
	};
	const deadline = Date.now() + 120_000;
	while (Date.now() < deadline) {
		if (exited())
			throw new Error(
				`n8n ${command} exited with ${child.exitCode ?? child.signalCode}:\n${output}`,
			);
		try {
			const response = await fetch(`${url}/healthz/readiness`);
			// n8n 1.x is ready a few seconds before its REST routes exist (a worker has none).
			const routed = command === 'worker' || (await fetch(`${url}/rest/settings`)).status !== 404;
			if (response.status === 200 && routed)
				return { url, port, process: child, log: () => output, stop };
		} catch {
			// not listening yet
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	await stop();
	throw new Error(`n8n ${command} did not become ready on ${url}:\n${output}`);
}

/** A signed-in REST session (the owner is created on first use). */
export class RestSession {
	private cookie = '';

	constructor(readonly url: string) {}

	static async asOwner(url: string): Promise<RestSession> {
		const session = new RestSession(url);
		const setup = await fetch(`${url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(OWNER),
		});
		if (setup.status === 200) {
			session.cookie = session.cookieFrom(setup);
			return session;
		}
		return await RestSession.login(url, OWNER.email, OWNER.password);
	}

	/** Signs in an existing user. */
	static async login(url: string, email: string, password: string): Promise<RestSession> {
		const session = new RestSession(url);
		const login = await fetch(`${url}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: email, password }),
		});
		if (login.status !== 200)
			throw new Error(`login failed: ${login.status} ${await login.text()}`);
		session.cookie = session.cookieFrom(login);
		return session;
	}

	private cookieFrom(response: Response): string {
		const auth = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
		if (!auth) throw new Error('no n8n-auth cookie');
		return auth.split(';')[0];
	}

	get authCookie(): string {
		return this.cookie;
	}

	async request<T>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.url}${path}`, {
			method,
			headers: {
				cookie: this.cookie,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	/** Activates a stored workflow (its triggers and webhooks start listening). */
	async activate(workflowId: string): Promise<void> {
		const { data } = await this.request<{ data: { versionId: string } }>(
			'GET',
			`/rest/workflows/${workflowId}`,
		);
		await this.request('POST', `/rest/workflows/${workflowId}/activate`, {
			versionId: data.versionId,
		});
	}

	/** n8n's own credential test (the one behind the editor's Test button). */
	async testCredential(id: string): Promise<{ status: string; message: string }> {
		const stored = await this.request<{
			data: { name: string; type: string; data: Record<string, unknown> };
		}>('GET', `/rest/credentials/${id}?includeData=true`);
		const { data } = await this.request<{ data: { status: string; message: string } }>(
			'POST',
			'/rest/credentials/test',
			{
				credentials: { id, name: stored.data.name, type: stored.data.type, data: stored.data.data },
			},
		);
		return data;
	}
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long to wait (60 s by default), and what to add to the failure (an n8n log, say). */
export interface WaitOptions {
	ms?: number;
	context?: () => string;
}

/**
 * Reads every 250 ms until the value is defined; after `ms`, fails naming what it waited for,
 * with what `context` adds (an n8n log, say).
 */
export async function until<T>(
	what: string,
	read: () => Promise<T | undefined> | T | undefined,
	ms = 60_000,
	context: () => string = () => '',
): Promise<T> {
	for (const deadline = Date.now() + ms; ; ) {
		const value = await read();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}${context()}`);
		await sleep(250);
	}
}

export function removeUserFolder(folder: string): void {
	rmSync(folder, { recursive: true, force: true });
}

/** The credential pointing n8n at a sandbox. */
export function sandboxCredential(baseUrl: string, apiToken: string, id = 'cmSandboxCred001') {
	return {
		id,
		name: 'Conversational Messaging sandbox',
		type: 'conversationalMessagingApi',
		data: { baseUrl, apiToken },
	};
}

/**
 * Parses flatted JSON, the encoding of an execution's run data in n8n's REST API: a JSON array
 * whose first entry is the root; every string inside an object or array is the index of the
 * entry that holds the value.
 */
export function parseFlatted(text: string): unknown {
	// Strings inside entries are references: wrapped, they stay apart from the string entries.
	const input = (
		JSON.parse(text, (_key, value: unknown) =>
			typeof value === 'string' ? new String(value) : value,
		) as unknown[]
	).map((entry) => (entry instanceof String ? String(entry) : entry));
	const revived = new Set<object>();
	const entry = (index: number): unknown => {
		const target = input[index];
		if (typeof target !== 'object' || target === null || revived.has(target)) return target;
		revived.add(target);
		const record = target as Record<string, unknown>;
		for (const key of Object.keys(record)) {
			const value = record[key];
			if (value instanceof String) record[key] = entry(Number(value));
		}
		return target;
	};
	return entry(0);
}

/** An execution as listed by n8n's REST API. */
export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
}

/**
 * Every execution n8n stored, newest first, read page by page (`GET /rest/executions`, 100 a
 * page): n8n 2.x pages by `nextCursor`, n8n 1.x by the last id seen (`lastId`).
 */
export async function listExecutions(
	session: RestSession,
): Promise<{ executions: ExecutionSummary[]; raw: string[] }> {
	const executions: ExecutionSummary[] = [];
	const raw: string[] = [];
	let next: string | null = '';
	do {
		const page: { data: { results: ExecutionSummary[]; nextCursor?: string | null } } =
			await session.request('GET', `/rest/executions?limit=100${next}`);
		raw.push(JSON.stringify(page));
		const { results, nextCursor } = page.data;
		executions.push(...results);
		if (nextCursor !== undefined)
			next = nextCursor === null ? null : `&cursor=${encodeURIComponent(nextCursor)}`;
		else next = results.length === 100 ? `&lastId=${results[results.length - 1].id}` : null;
	} while (next !== null);
	return { executions, raw };
}

/**
 * Starts a workflow through its webhook (POST `/webhook/<path>` with a JSON body; the first calls
 * after activation can meet a 404 while the webhook registers); gives the id of the execution it
 * started. Every answer's text goes to `answers`, when given.
 */
export async function startByWebhook(
	session: RestSession,
	spec: { path: string; workflowId: string; body: unknown; answers?: string[] } & WaitOptions,
): Promise<string> {
	const known = new Set(
		(await listExecutions(session)).executions.map((execution) => execution.id),
	);
	await until(
		`the webhook ${spec.path}`,
		async () => {
			const response = await fetch(`${session.url}/webhook/${spec.path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(spec.body),
			});
			const text = await response.text();
			spec.answers?.push(text);
			return response.status === 200 ? true : undefined;
		},
		spec.ms,
		spec.context,
	);
	return await until(
		`the execution of ${spec.path}`,
		async () =>
			(await listExecutions(session)).executions.find(
				(execution) => !known.has(execution.id) && execution.workflowId === spec.workflowId,
			)?.id,
		spec.ms,
		spec.context,
	);
}

export async function executionStatus(session: RestSession, id: string): Promise<string> {
	return (await getExecution(session, id)).execution.status;
}

/** The execution once it has finished (neither new, running nor waiting), with its run data. */
export async function settledExecution<Data>(
	session: RestSession,
	id: string,
	{ ms, context }: WaitOptions = {},
): Promise<{ status: string; run: Data; raw: string }> {
	return await until(
		`execution ${id} to finish`,
		async () => {
			const { execution, raw } = await getExecution<Data>(session, id);
			return ['new', 'running', 'waiting'].includes(execution.status)
				? undefined
				: { status: execution.status, run: execution.data, raw };
		},
		ms,
		context,
	);
}

/** An execution with its run data (`GET /rest/executions/:id`): as n8n sent it, and with the data decoded. */
export async function getExecution<Data = unknown>(
	session: RestSession,
	id: string,
): Promise<{ raw: string; execution: ExecutionSummary & { data: Data } }> {
	const response = await session.request<{ data: ExecutionSummary & { data: string } }>(
		'GET',
		`/rest/executions/${id}`,
	);
	return {
		raw: JSON.stringify(response),
		execution: { ...response.data, data: parseFlatted(response.data.data) as Data },
	};
}

/**
 * Bulk SMS behind a webhook: Webhook (POST, answers with Send SMS's items when it is done) →
 * Split Out on `body.contacts` (no Code node: it needs task runners) → Send SMS to each
 * `{phone, text}` contact. `message` is the Message parameter, `settings` the node's own
 * settings (On Error, Retry On Fail).
 */
export function webhookBulkSmsWorkflow(spec: {
	id: string;
	name: string;
	path: string;
	credential: { id: string; name: string };
	instance: string;
	message: string;
	settings: Record<string, unknown>;
}) {
	const node = (
		name: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: Record<string, unknown>,
	) => ({
		id: randomUUID(),
		name,
		type,
		typeVersion,
		position: [x, 0],
		parameters,
	});
	return {
		id: spec.id,
		name: spec.name,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] },
		},
		nodes: [
			{
				...node('Webhook', 'n8n-nodes-base.webhook', 2.1, 0, {
					httpMethod: 'POST',
					path: spec.path,
					responseMode: 'lastNode',
					responseData: 'allEntries',
					options: {},
				}),
				webhookId: randomUUID(),
			},
			node('Split Out', 'n8n-nodes-base.splitOut', 1, 220, {
				fieldToSplitOut: 'body.contacts',
				options: {},
			}),
			{
				...node('Send SMS', 'n8n-nodes-conversational-messaging.conversationalMessaging', 1, 440, {
					resource: 'messaging',
					operation: 'sendSms',
					to: '={{ $json.phone }}',
					instance: spec.instance,
					message: spec.message,
				}),
				...spec.settings,
				credentials: { conversationalMessagingApi: spec.credential },
			},
		],
	};
}
