/**
 * The research run of test/queue/queue.ts (`npm run test:research`, weekly; issue 24, must hold
 * 2; the e2e suite keeps one restart-proof research: test/e2e/research-restart.e2e.ts): the two
 * ways to wait for a research, each with RESEARCHES executions started at once on two workers of
 * concurrency 2 (4 slots), against a service (a sandbox of this phase's own) whose runs take RUN_MS:
 * - the example, examples/scheduled-research-without-holding-a-worker.json: Run without waiting,
 *   then Wait 2 minutes (over 65 s: n8n keeps the waiting execution in the database), Researcher >
 *   Get, If complete, else back to the Wait. The run (RUN_MS, 150 s by default) outlasts the Wait,
 *   so each research is checked at least twice: a worker that resumes an execution finds the run
 *   going on and puts the execution back to wait;
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
/** The example's Wait, as shipped. */
const WAIT_MS = 120_000;
/**
 * Under Wait for Completion, the Send SMS call must answer within the run's time and this much:
 * Run's longest poll interval (60 s), by which the first running research sees its run end.
 * Queued behind the other researches instead, it would wait a second run's time.
 */
export const FIRST_FREED_MS = 60_000;
const CREDENTIAL = { id: 'cmQueueResearch1', name: 'Queue mode: research service' };
const TERMINAL = new Set(['success', 'error', 'crashed', 'canceled']);

interface Way {
	key: 'loop' | 'polling';
	label: string;
	file: string;
	path: string;
	/** The node whose output is the report. */
	report: string;
	/** The example's node that checks the research (Researcher > Get, with `complete`): one run per check. */
	check?: string;
}
const WAYS: Way[] = [
	{
		key: 'loop',
		label: 'research, the example (Run, then Wait 2 min and Get)',
		file: 'scheduled-research-without-holding-a-worker.json',
		path: 'cm-queue-research-loop',
		report: 'Keep Report',
		check: 'Check Research',
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
	/** Executions whose jobs (start, then one after each wait) did not all run on the same worker. */
	resumedElsewhere: number;
	/** The example: how many executions ran its check node how many times ({"2": 20}: 20 checked twice). */
	checks: Record<string, number>;
	/** The example: executions checked at least minChecks times, the first check's `complete` false, the last's true. */
	looped: number;
	/** The least number of checks each research needed: its run outlasts that many Waits but one. */
	minChecks: number;
	/** How many executions had how many worker jobs (the workers' logs). */
	jobs: Record<string, number>;
	/** The example: executions with one job more than checks (one to start, one per check). */
	jobPerCheck: number;
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
			Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } }>
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
	if (ctx.runMs <= WAIT_MS)
		note(
			`research: a run of ${ctx.runMs / 1000} s does not outlast the example's ${WAIT_MS / 1000}-s Wait: its check of two checks per research fails`,
		);
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
	let heldPerWorker = workers.map((worker) => held(worker, ids));
	let atStatuses = ready;
	if (waitsInDatabase) {
		// n8n 2.41 saves `waiting` before the worker logs "Worker finished execution": up to 10 s
		// more for each worker's log to show no slot held, then the database read again.
		const by = Date.now() + 10_000;
		while (heldPerWorker.some((h) => h !== 0) && Date.now() < by) {
			await sleep(250);
			heldPerWorker = workers.map((worker) => held(worker, ids));
		}
		atStatuses = await statuses();
	}
	const counts = tally(atStatuses.values());
	const atCall = {
		running: counts.running ?? 0,
		waiting: counts.waiting ?? 0,
		queued: counts.new ?? 0,
		heldPerWorker,
	};
	note(
		`${way.label}: ${JSON.stringify(atCall)} at ${((Date.now() - began) / 1000).toFixed(1)} s; calling the Send SMS webhook`,
	);
	const sms = await ctx.sendSms(call);
	note(`${way.label}: Send SMS answered ${sms.status} in ${(sms.ms / 1000).toFixed(1)} s`);

	// The example: a 2-minute wait and a check until the run is complete (the last check at most a
	// Wait after the run's end); Wait for Completion: one wave of SLOTS runs after another.
	const waves = Math.ceil(n / SLOTS);
	const allowedMs = waitsInDatabase
		? ctx.runMs + WAIT_MS + 120_000
		: waves * (ctx.runMs + 60_000) + 60_000;
	// Check k comes about k Waits after the run started: the first to find it complete, at or after RUN_MS.
	const minChecks = Math.max(2, Math.ceil(ctx.runMs / WAIT_MS));
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
	// The example: each check's `complete`, in the order of the checks (the runs of its check node).
	let reports = 0;
	const researchers: string[] = [];
	const checksOf = new Map<string, number>();
	let looped = 0;
	for (const id of final.keys()) {
		if (final.get(id) !== 'success') continue;
		const { execution } = await getExecution<StoredRun>(ctx.session, id);
		const { runData } = execution.data.resultData;
		if (way.check) {
			const completes = (runData[way.check] ?? []).map(
				(run) => run.data?.main[0]?.[0]?.json.complete,
			);
			checksOf.set(id, completes.length);
			if (
				completes.length >= minChecks &&
				completes[0] === false &&
				completes[completes.length - 1] === true
			)
				looped++;
		}
		const report = runData[way.report]?.[0]?.data?.main[0]?.[0]?.json;
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
	// Worker jobs per execution: through the example, one to start and one per check (each check
	// that found the run going on put the execution back to wait, and its job ended).
	const started = workers.flatMap((worker) => jobs(worker).started);
	const jobsOf = new Map([...ids].map((id) => [id, started.filter((s) => s === id).length]));
	const jobPerCheck = [...ids].filter(
		(id) => checksOf.has(id) && jobsOf.get(id) === (checksOf.get(id) as number) + 1,
	).length;

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
		checks: tally([...checksOf.values()].map(String)),
		looped,
		minChecks,
		jobs: tally([...jobsOf.values()].map(String)),
		jobPerCheck,
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
		// It goes ahead of the queued researches (higher priority) and takes the first slot freed: the
		// first running one ends at its first poll after its run's end.
		check(
			`${way.label}: the same Send SMS call waited for a slot, over ${heldMs / 1000} s, and took the first one freed: within the run's ${ctx.runMs / 1000} s + ${FIRST_FREED_MS / 1000} s`,
			sms.status === 200 &&
				sms.sent === 1 &&
				sms.ms > heldMs &&
				sms.ms < ctx.runMs + FIRST_FREED_MS,
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
	if (way.check)
		check(
			`${way.label}: each research checked at least ${minChecks} times (its ${ctx.runMs / 1000}-s run outlasts the ${WAIT_MS / 1000}-s Wait): ${way.check} first found it not complete, last complete, and each check that found it running put the execution back to wait, ending its job`,
			finished && figures.gets >= minChecks * n && looped === n && jobPerCheck === n,
			`${figures.gets} Gets (${(figures.gets / n).toFixed(1)} per research); executions by number of checks ${JSON.stringify(figures.checks)}, ${looped} with the first \`complete: false\` and the last \`complete: true\`; by number of worker jobs ${JSON.stringify(figures.jobs)}, ${jobPerCheck} with one job more than checks; ${resumedElsewhere} ran on both workers`,
		);
	return figures;
}
