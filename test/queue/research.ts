/**
 * The research phase of test/queue/queue.ts (issue 24, must hold 2): the two ways to wait for a
 * research, each with RESEARCHES executions started at once on two workers of concurrency 2 (4
 * slots), against a service (a sandbox of this phase's own) whose runs take RUN_MS:
 * - the example, examples/scheduled-research-without-holding-a-worker.json: Run without waiting,
 *   then Wait 2 minutes (over 65 s: n8n keeps the waiting execution in the database), Researcher >
 *   Get, If complete;
 * - the weekly example, examples/scheduled-researcher-run.json: Run with Wait for Completion, which
 *   polls inside the execution.
 * Both are started through a Webhook of the same name in place of their Schedule Trigger
 * (test/e2e/lib/examples.ts), answering at once; the rest is run as shipped. While the researches
 * wait or run, one call to the queue's Send SMS webhook tells whether a slot was free for it.
 */
import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { withWebhook } from '../e2e/lib/examples';
import type { N8nOptions, N8nServer, RestSession } from '../e2e/lib/n8n';
import {
	freePort,
	getExecution,
	importJson,
	sandboxCredential,
	sleep,
	startN8n,
	until,
} from '../e2e/lib/n8n';

/** What the phase needs of the driver (test/queue/queue.ts). */
export interface ResearchContext {
	main: N8nServer;
	session: RestSession;
	/** Instance i's user folder and environment: 0 the main's, 1 and 2 the workers'. */
	options: (i: number) => N8nOptions;
	/** Stops the workers of the bursts (SIGTERM: they finish what they hold first). */
	stopWorkers: () => Promise<void>;
	/** Hands a server this phase started to the driver, which stops it and keeps its log; run.sh checks it is gone. */
	adopt: (name: string, server: N8nServer) => void;
	/** A port this phase listens on, for run.sh to check it is closed at the end. */
	trackPort: (port: number) => void;
	/** One call to the queue's Send SMS webhook (one message), answered when Send SMS is done. */
	sendSms: (r: number) => Promise<{ status: number; sent: number; ms: number }>;
	sql: (query: string) => Promise<string[][]>;
	check: (name: string, ok: boolean, detail?: string) => void;
	note: (message: string) => void;
	/** Executions started at once in each way. */
	researches: number;
	/** How long the service takes to complete a run. */
	runMs: number;
}

/** The phase's workers: two, each running this many executions at once. */
export const RESEARCH_WORKER_CONCURRENCY = 2;
const WORKERS = ['research-worker-1', 'research-worker-2'];
const SLOTS = WORKERS.length * RESEARCH_WORKER_CONCURRENCY;
/** What way A's Send SMS call must answer within. */
const PROMPT_MS = 10_000;
const CREDENTIAL = { id: 'cmQueueResearch1', name: 'Queue mode: research service' };
const TERMINAL = new Set(['success', 'error', 'crashed', 'canceled']);

interface Way {
	key: 'loop' | 'polling';
	label: string;
	file: string;
	path: string;
	/** The node whose output is the report. */
	report: string;
}
const WAYS: Way[] = [
	{
		key: 'loop',
		label: 'research, the example (Run, then Wait 2 min and Get)',
		file: 'scheduled-research-without-holding-a-worker.json',
		path: 'cm-queue-research-loop',
		report: 'Keep Report',
	},
	{
		key: 'polling',
		label: 'research, Run with Wait for Completion',
		file: 'scheduled-researcher-run.json',
		path: 'cm-queue-research-polling',
		report: 'Keep Report',
	},
];

export interface WayFigures {
	key: Way['key'];
	executions: number;
	/** What the executions were doing when the Send SMS call was made. */
	atCall: { running: number; waiting: number; queued: number; heldPerWorker: number[] };
	/** The Send SMS webhook call: HTTP status, messages sent, time to answer. */
	sms: { status: number; sent: number; ms: number };
	/** Most executions of this way seen running at once (the database, read every second). */
	maxRunning: number;
	/** Slot time the executions held: the running ones at each reading times the time since the last. */
	slotMs: number;
	/** From the first start to the last execution finished. */
	wallMs: number;
	statuses: Record<string, number>;
	/** Executions whose report is the one the service holds for its researcher. */
	reports: number;
	/** Requests the service received: runs, and Gets (checks or polls). */
	runs: number;
	gets: number;
	/** Researchers that got exactly one run request. */
	runOnce: number;
	/** Executions whose two jobs (start, then after the wait) ran on different workers. */
	resumedElsewhere: number;
	/** Whether every execution finished within the time allowed. */
	finished: boolean;
}

export interface ResearchFigures {
	researches: number;
	runMs: number;
	slots: number;
	loop: WayFigures;
	polling: WayFigures;
}

interface StoredRun {
	resultData: {
		runData: Record<
			string,
			Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }>> } }>
		>;
	};
}

const tally = (values: Iterable<string>) => {
	const counts: Record<string, number> = {};
	for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
	return counts;
};

/** Execution ids a worker's log says it started and finished (one line per job). */
function jobs(server: N8nServer): { started: string[]; finished: string[] } {
	const log = server.log();
	const ids = (verb: string) =>
		[...log.matchAll(new RegExp(`Worker ${verb} execution (\\d+) `, 'g'))].map((m) => m[1]);
	return { started: ids('started'), finished: ids('finished') };
}

/** Jobs a worker has started and not finished, among these executions: the slots they hold. */
function held(server: N8nServer, ids: Set<string>): number {
	const { started, finished } = jobs(server);
	return started.filter((id) => ids.has(id)).length - finished.filter((id) => ids.has(id)).length;
}

export async function researchPhase(ctx: ResearchContext): Promise<ResearchFigures> {
	const { check, note } = ctx;
	note(
		`research: ${ctx.researches} researches of ${ctx.runMs / 1000} s at once, each way, on ${WORKERS.length} workers of concurrency ${RESEARCH_WORKER_CONCURRENCY}`,
	);
	const sandbox = await startSandbox({ port: 0, researcherRunMs: ctx.runMs });
	ctx.trackPort(sandbox.port);
	try {
		const credential = {
			...sandboxCredential(sandbox.url, sandbox.token, CREDENTIAL.id),
			name: CREDENTIAL.name,
		};
		const workflows = WAYS.map((way) => withWebhook(way.file, way.path, CREDENTIAL));
		// Imported next to the running main (the CLI writes to the same database), then activated.
		await importJson('credentials', [credential], ctx.options(0));
		await importJson('workflow', workflows, ctx.options(0));
		for (const { id } of workflows) await ctx.session.activate(id);

		await ctx.stopWorkers();
		const workers = await startWorkers(ctx);
		note(`research: workers ${workers.map((w) => w.url).join(' ')} at concurrency 2`);

		const figures: Partial<Record<Way['key'], WayFigures>> = {};
		for (const [i, way] of WAYS.entries())
			figures[way.key] = await runWay(ctx, sandbox, workers, way, workflows[i].id, i);
		const loop = figures.loop as WayFigures;
		const polling = figures.polling as WayFigures;
		check(
			'research: the Send SMS call waited for a slot under Wait for Completion, not under the example',
			polling.sms.ms > 6 * loop.sms.ms,
			`${(loop.sms.ms / 1000).toFixed(1)} s through the example, ${(polling.sms.ms / 1000).toFixed(1)} s with Wait for Completion`,
		);
		check(
			'research: the service saw no contract violation',
			sandbox.stats().lastViolations.length === 0,
			JSON.stringify(sandbox.stats().lastViolations.slice(0, 2)),
		);
		return { researches: ctx.researches, runMs: ctx.runMs, slots: SLOTS, loop, polling };
	} finally {
		await sandbox.close();
	}
}

async function startWorkers(ctx: ResearchContext): Promise<N8nServer[]> {
	const started = await Promise.allSettled(
		WORKERS.map(async (name, i) => {
			const options = ctx.options(i + 1);
			return startN8n({
				...options,
				env: { ...options.env, CM_QUEUE_INSTANCE: name },
				port: await freePort(),
				command: 'worker',
				args: [`--concurrency=${RESEARCH_WORKER_CONCURRENCY}`],
			});
		}),
	);
	started.forEach((s, i) => s.status === 'fulfilled' && ctx.adopt(WORKERS[i], s.value));
	const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
	if (failure) throw failure.reason;
	return started.map((s) => (s as PromiseFulfilledResult<N8nServer>).value);
}

async function runWay(
	ctx: ResearchContext,
	sandbox: Sandbox,
	workers: N8nServer[],
	way: Way,
	workflowId: string,
	call: number,
): Promise<WayFigures> {
	const { check, note, sql, researches: n } = ctx;
	const after = Number((await sql('SELECT coalesce(max(id), 0) FROM execution_entity'))[0][0]);
	const opsBefore = sandbox.stats().byOperation;
	const requestsBefore = sandbox.requests.length;
	const statuses = async () =>
		new Map(
			(
				await sql(
					`SELECT id, status FROM execution_entity WHERE "workflowId" = '${workflowId}' AND id > ${after} ORDER BY id`,
				)
			).map(([id, status]) => [id, status]),
		);
	note(`${way.label}: ${n} executions started at once`);

	// Every few seconds of a run: how many executions run, the most seen; when all have finished.
	let maxRunning = 0;
	let slotMs = 0;
	let sampling = true;
	const sampler = (async () => {
		for (let last = Date.now(); sampling; ) {
			const now = await statuses();
			const running = [...now.values()].filter((s) => s === 'running').length;
			maxRunning = Math.max(maxRunning, running);
			slotMs += running * (Date.now() - last);
			last = Date.now();
			await sleep(1000);
		}
	})();

	const began = Date.now();
	// The first calls after activation can meet a 404 (no execution started): called again.
	const answers = await Promise.all(
		Array.from({ length: n }, () =>
			until(`the ${way.path} webhook`, async () => {
				const response = await fetch(`${ctx.main.url}/webhook/${way.path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
				});
				await response.text();
				return response.status === 404 ? undefined : response.status;
			}),
		),
	);
	const waitsInDatabase = way.key === 'loop';
	const ready = await until(
		waitsInDatabase
			? `the ${n} executions to wait in the database`
			: `the executions to fill the ${SLOTS} slots`,
		async () => {
			const now = await statuses();
			const counts = tally(now.values());
			const readyNow = waitsInDatabase
				? now.size === n && counts.waiting === n
				: (counts.running ?? 0) >= SLOTS;
			return readyNow ? now : undefined;
		},
		120_000,
	);
	const ids = new Set(ready.keys());
	const counts = tally(ready.values());
	const atCall = {
		running: counts.running ?? 0,
		waiting: counts.waiting ?? 0,
		queued: counts.new ?? 0,
		heldPerWorker: workers.map((worker) => held(worker, ids)),
	};
	note(
		`${way.label}: ${JSON.stringify(atCall)} at ${((Date.now() - began) / 1000).toFixed(1)} s; calling the Send SMS webhook`,
	);
	const sms = await ctx.sendSms(call);
	note(`${way.label}: Send SMS answered ${sms.status} in ${(sms.ms / 1000).toFixed(1)} s`);

	// The example: a 2-minute wait, a check; Wait for Completion: one wave of SLOTS runs after another.
	const waves = Math.ceil(n / SLOTS);
	const allowedMs = waitsInDatabase
		? 2 * 60_000 + ctx.runMs + 120_000
		: waves * (ctx.runMs + 60_000) + 60_000;
	let final = await statuses();
	const deadline = Date.now() + allowedMs;
	while (
		!(final.size === n && [...final.values()].every((s) => TERMINAL.has(s))) &&
		Date.now() < deadline
	) {
		await sleep(1000);
		final = await statuses();
	}
	const wallMs = Date.now() - began;
	sampling = false;
	await sampler;
	const finished = final.size === n && [...final.values()].every((s) => TERMINAL.has(s));
	const finalCounts = tally(final.values());

	// Each report against the service's record of its researcher; each researcher's run requests.
	let reports = 0;
	const researchers: string[] = [];
	for (const id of final.keys()) {
		if (final.get(id) !== 'success') continue;
		const { execution } = await getExecution<StoredRun>(ctx.session, id);
		const report = execution.data.resultData.runData[way.report]?.[0]?.data?.main[0]?.[0]?.json;
		const researcherId = String(report?.researcherId ?? '');
		researchers.push(researcherId);
		const service = sandbox.researcherView(researcherId);
		if (
			service?.status === 2 &&
			typeof report?.report === 'string' &&
			report.report === service.output &&
			report.report.includes('Competitor B offers')
		)
			reports++;
	}
	const ops = sandbox.stats().byOperation;
	const made = (operation: string) => (ops[operation] ?? 0) - (opsBefore[operation] ?? 0);
	const runRequests = sandbox.requests
		.slice(requestsBefore)
		.filter((r) => r.operationId === 'researcherRun');
	const runOnce =
		new Set(researchers).size === researchers.length
			? researchers.filter((rid) => runRequests.filter((r) => r.path.includes(rid)).length === 1)
					.length
			: 0;
	const ran = workers.map((worker) => new Set(jobs(worker).started));
	const resumedElsewhere = [...ids].filter((id) => ran.every((set) => set.has(id))).length;

	const figures: WayFigures = {
		key: way.key,
		executions: final.size,
		atCall,
		sms,
		maxRunning,
		slotMs,
		wallMs,
		statuses: finalCounts,
		reports,
		runs: made('researcherRun'),
		gets: made('researcherGet'),
		runOnce,
		resumedElsewhere,
		finished,
	};
	const startedOk = answers.every((status) => status === 200);
	if (waitsInDatabase) {
		check(
			`${way.label}: ${n} started at once all wait in the database, holding no worker slot`,
			startedOk &&
				atCall.waiting === n &&
				atCall.running === 0 &&
				atCall.heldPerWorker.every((h) => h === 0),
			`webhook answers ${JSON.stringify(tally(answers.map(String)))}; at the Send SMS call: ${atCall.waiting} waiting, ${atCall.running} running, slots held per worker ${atCall.heldPerWorker.join(', ')}`,
		);
		check(
			`${way.label}: a Send SMS webhook call meanwhile answered within ${PROMPT_MS / 1000} s`,
			sms.status === 200 && sms.sent === 1 && sms.ms < PROMPT_MS,
			`HTTP ${sms.status}, ${sms.sent} sent, in ${(sms.ms / 1000).toFixed(1)} s`,
		);
	} else {
		const heldMs = Math.min(60_000, ctx.runMs / 2);
		check(
			`${way.label}: ${n} started at once held all ${SLOTS} worker slots, the others queued`,
			startedOk &&
				atCall.running === SLOTS &&
				atCall.queued === n - SLOTS &&
				atCall.heldPerWorker.every((h) => h === RESEARCH_WORKER_CONCURRENCY),
			`webhook answers ${JSON.stringify(tally(answers.map(String)))}; at the Send SMS call: ${atCall.running} running, ${atCall.queued} queued, slots held per worker ${atCall.heldPerWorker.join(', ')}`,
		);
		check(
			`${way.label}: the same Send SMS call waited for a slot, over ${heldMs / 1000} s`,
			sms.status === 200 && sms.sent === 1 && sms.ms > heldMs,
			`HTTP ${sms.status}, ${sms.sent} sent, in ${(sms.ms / 1000).toFixed(1)} s`,
		);
	}
	check(
		`${way.label}: all ${n} succeeded with the researcher's report; the service saw one run per researcher (${n})`,
		finished &&
			finalCounts.success === n &&
			reports === n &&
			figures.runs === n &&
			made('researcherCreate') === n &&
			runOnce === n,
		`${JSON.stringify(finalCounts)} in ${(wallMs / 1000).toFixed(0)} s${finished ? '' : ` (not all finished within ${allowedMs / 1000} s)`}; ${reports} reports as the service holds them; ${figures.runs} run requests, ${runOnce} researchers run once; ${figures.gets} Gets; at most ${maxRunning} running at once, ${(slotMs / 1000).toFixed(0)} slot-seconds held`,
	);
	return figures;
}
