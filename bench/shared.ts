/**
 * The shared-limit and outage tables of `npm run bench` (bench/main.ts; `npm run bench -- --shared`
 * runs only these). Every row: a fresh sandbox in this process, a fresh worker process
 * (bench/worker.ts, job kind `executions`) running N executions of the workflow at once, each with
 * phones of its own; then what the sandbox holds says who got a message, and how often.
 *
 * Cells are named so that one can be run alone: `A:20x4000:cof` (our node, 20 executions, 4,000
 * SMS in all, On Error: Continue), `B:100x10000:cof`, `A:crm`, `A:crm:legacy` (the worker with
 * N8N_EXPRESSION_ENGINE=legacy), `A:outage2s`, `B:outage20s`,
 * `A:budget`, `A:cut`. `--only 20x4000` runs every cell with all those tags (`--only A:cof`,
 * `--only outage`, `--only crm,A:cut`); `--list` prints them.
 */
import { loadavg } from 'node:os';

import type { RateLimit, RecordedRequest, Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import type { ExecutionsResult, FailureKind, Job } from './worker';

type ExecutionsJob = Extract<Job, { kind: 'executions' }>;

/** Runs a job in a fresh worker process (`env` added to its environment only); rejects when it fails, crashes or outlives timeoutMs. */
export type Spawn = <T>(job: Job, timeoutMs?: number, env?: Record<string, string>) => Promise<T>;

/** The service of the shared-limit and outage tables (the rate-limited table's). */
export const SHARED_RATE: RateLimit = { perSecond: 200, burst: 20 };
/** Inject CRM Lead's service: a slower endpoint. */
export const CRM_RATE: RateLimit = { perSecond: 20, burst: 20 };
const EXECUTIONS = [1, 20, 100];
const CRM_EXECUTIONS = 200;
const OUTAGE_ITEMS = 2000;
const OUTAGES_MS = [2000, 20_000];
/** Send Options' max wait for the row whose outage outlasts it. */
const BUDGET_WAIT_S = 5;
const BUDGET_OUTAGE_MS = 20_000;
const CUT_REQUESTS = 65;
/** B in the outage table: Batching at the pace the service allows (20 items per 100 ms = 200/s). */
const B_BATCHING = { batchSize: 20, batchInterval: 100 };

export type Table = 'shared' | 'crm' | 'outage';

export interface SharedCell {
	id: string;
	/** What `--only` matches: the id's parts, the table, `cof` or `stop`. */
	tags: string[];
	table: Table;
	/** Node and settings, for the tables. */
	label: string;
	job: Omit<ExecutionsJob, 'baseUrl' | 'token'>;
	items: number;
	/** The sandbox's limit; null: none (a floor row, its × ideal still at idealRate). */
	rate: RateLimit | null;
	/** Requests per second "ideal" is counted at. */
	idealRate: number;
	outageMs?: number;
	cutAfterCommit?: number;
	/** Added to the worker's environment (e.g. the expression engine). */
	env?: Record<string, string>;
}

const thousands = (n: number) => n.toLocaleString('en');

function cell(
	table: Table,
	id: string,
	label: string,
	job: SharedCell['job'],
	rate: RateLimit,
	extra: Partial<SharedCell> = {},
): SharedCell {
	const tags = [
		...new Set([
			...id.split(':'),
			table,
			job.continueOnFail ? 'cof' : 'stop',
			...(extra.tags ?? []),
		]),
	];
	return {
		id,
		label,
		table,
		job,
		items: job.executions * job.itemsPerExecution,
		rate,
		idealRate: rate.perSecond,
		...extra,
		tags,
	};
}

const LEGACY_LABEL = '`N8N_EXPRESSION_ENGINE=legacy` (this worker only)';
/** The default engine's rows (the `vm` engine, n8n's default): no env of their own. */
const defaultEngine = (row: SharedRow) => !row.cell.env?.N8N_EXPRESSION_ENGINE;

/** Every cell, in the order they run. `quick`: 4,000 SMS only, the 2 s outage only. */
export function sharedCells(quick = false): SharedCell[] {
	const cells: SharedCell[] = [];
	const onError = (cof: boolean) => (cof ? 'On Error: Continue' : 'On Error: Stop');
	for (const total of quick ? [4000] : [4000, 10_000]) {
		for (const executions of EXECUTIONS) {
			const size = `${executions}x${total}`;
			const job = {
				kind: 'executions' as const,
				operation: 'sendSms' as const,
				executions,
				itemsPerExecution: total / executions,
			};
			// One execution is the rate-limited table's case; both settings are measured from 20 on.
			for (const cof of executions === 1 ? [false] : [false, true]) {
				cells.push(
					cell(
						'shared',
						`A:${size}${cof ? ':cof' : ''}`,
						`A, ${onError(cof)}`,
						{ ...job, variant: 'A', continueOnFail: cof },
						SHARED_RATE,
					),
				);
			}
			// B stops at its first 429 without continue-on-fail: only the continuing run says how much it delivers.
			cells.push(
				cell(
					'shared',
					`B:${size}:cof`,
					`B, ${onError(true)}`,
					{ ...job, variant: 'B', continueOnFail: true },
					SHARED_RATE,
				),
			);
		}
	}
	const crm = {
		kind: 'executions' as const,
		operation: 'injectCrmLead' as const,
		executions: CRM_EXECUTIONS,
		itemsPerExecution: 1,
	};
	cells.push(
		cell(
			'crm',
			'A:crm',
			`A, ${onError(false)}`,
			{ ...crm, variant: 'A', continueOnFail: false },
			CRM_RATE,
		),
	);
	cells.push(
		cell(
			'crm',
			'A:crm:cof',
			`A, ${onError(true)}`,
			{ ...crm, variant: 'A', continueOnFail: true },
			CRM_RATE,
		),
	);
	cells.push(
		cell(
			'crm',
			'B:crm:cof',
			`B, ${onError(true)}`,
			{ ...crm, variant: 'B', continueOnFail: true },
			CRM_RATE,
		),
	);
	// What starting 200 executions costs in one process, with no limit to wait for.
	cells.push(
		cell(
			'crm',
			'A:crm:nolimit',
			'A, On Error: Stop, no rate limit (the floor)',
			{ ...crm, variant: 'A', continueOnFail: false },
			CRM_RATE,
			{ rate: null },
		),
	);
	// The same with n8n's legacy expression engine (no isolate per execution), in that worker only.
	const legacy = { env: { N8N_EXPRESSION_ENGINE: 'legacy' }, tags: ['legacy'] };
	cells.push(
		cell(
			'crm',
			'A:crm:legacy',
			`A, On Error: Stop, ${LEGACY_LABEL}`,
			{ ...crm, variant: 'A', continueOnFail: false },
			CRM_RATE,
			legacy,
		),
	);
	cells.push(
		cell(
			'crm',
			'A:crm:nolimit:legacy',
			`A, On Error: Stop, no rate limit (the floor), ${LEGACY_LABEL}`,
			{ ...crm, variant: 'A', continueOnFail: false },
			CRM_RATE,
			{ ...legacy, rate: null },
		),
	);
	const one = {
		kind: 'executions' as const,
		operation: 'sendSms' as const,
		executions: 1,
		itemsPerExecution: OUTAGE_ITEMS,
		continueOnFail: true,
	};
	for (const ms of quick ? [OUTAGES_MS[0]] : OUTAGES_MS) {
		const name = `outage${ms / 1000}s`;
		cells.push(
			cell(
				'outage',
				`A:${name}`,
				`A, outage ${ms / 1000} s`,
				{ ...one, variant: 'A' },
				SHARED_RATE,
				{ outageMs: ms },
			),
		);
		cells.push(
			cell(
				'outage',
				`B:${name}`,
				`B, Batching ${B_BATCHING.batchSize} per ${B_BATCHING.batchInterval} ms, outage ${ms / 1000} s`,
				{ ...one, variant: 'B', batching: B_BATCHING },
				SHARED_RATE,
				{
					outageMs: ms,
				},
			),
		);
	}
	cells.push(
		cell(
			'outage',
			'A:budget',
			`A, Max Wait ${BUDGET_WAIT_S} s, outage ${BUDGET_OUTAGE_MS / 1000} s (longer than the wait budget)`,
			{ ...one, variant: 'A', maxWait: BUDGET_WAIT_S },
			SHARED_RATE,
			{
				outageMs: BUDGET_OUTAGE_MS,
			},
		),
	);
	cells.push(
		cell(
			'outage',
			'A:cut',
			`A, ${CUT_REQUESTS} requests cut after commit`,
			{ ...one, variant: 'A' },
			SHARED_RATE,
			{ cutAfterCommit: CUT_REQUESTS },
		),
	);
	return cells;
}

/** The cells `--only` names: each filter is tags joined by `:`, all of which a cell must have. */
export function selectCells(cells: SharedCell[], filters: string[]): SharedCell[] {
	if (!filters.length) return cells;
	const picked = cells.filter((c) =>
		filters.some((filter) => filter.split(':').every((tag) => c.tags.includes(tag))),
	);
	if (!picked.length)
		throw new Error(`--only ${filters.join(',')} matches no cell; --list names them`);
	return picked;
}

export interface SharedRow {
	cell: SharedCell;
	/** Wall time, from the first execution's start to the last one's end (the timeout when killed). */
	ms: number;
	once: number;
	twice: number;
	never: number;
	/** Error items (On Error: Continue), by what their message says. */
	kinds: Record<FailureKind, number>;
	errorItems: number;
	failedExecutions: number;
	/** Items left without output by executions that stopped on an error. */
	stoppedItems: number;
	/** Never delivered, and failed without saying it may have been carried out (or its execution stopped). NaN: unknown. */
	givenUpUnsent: number;
	/** Never delivered, and no error said anything about it. NaN: unknown. */
	lost: number;
	/** Phones whose fate differs from what the node said: delivered twice, or not once without an error, or delivered though its error does not say it may have been. */
	mismatched: number;
	requests: number;
	refused: number;
	messages: ExecutionsResult['messages'];
	/** Execution ends, from the start: first and last (spread of a shared limit's fairness). */
	ends?: { first: number; last: number };
	outage?: { delivered: number; afterMs: number; trigger: string; error?: string };
	maxWaitOption?: string;
	/** The worker failed or was killed (stuck): the sandbox's counts stand, the node's side is unknown. */
	problem?: string;
	/** Deliveries to phones outside the run (none expected). */
	strays: number;
	/**
	 * Seen in the sandbox (this process; its state polled every 2 ms), in ms from the executions'
	 * start (the worker's clock: both are performance.timeOrigin + now): the first request it
	 * received, the last it received, and the last it accepted (a message or lead created).
	 */
	service?: { firstRequest: number; lastRequest: number; lastAccepted: number };
}

export const failedItems = (row: SharedRow) => row.errorItems + row.stoppedItems;
const idealMs = (row: SharedRow) => (row.cell.items / row.cell.idealRate) * 1000;
/** The node's part: from the first request the sandbox received to the last it accepted, over ideal. NaN: unknown. */
export const nodePart = (row: SharedRow) =>
	row.service ? (row.service.lastAccepted - row.service.firstRequest) / idealMs(row) : NaN;
/** When the first execution's first request reached the sandbox, from the start. NaN: unknown. */
const firstReached = (row: SharedRow) => row.service?.firstRequest ?? NaN;

interface ServiceWatch {
	/** Stops watching; the times in ms since the epoch (NaN: nothing seen). */
	finish(): { firstRequest: number; lastRequest: number; lastAccepted: number };
}

/**
 * Polls the sandbox every 2 ms: when its request count first moves, when it last moves, and when
 * its messages or leads last grow (an accepted request; a 429 creates none). The sandbox's
 * records have no creation time, and sandbox/ is not the bench's to change.
 */
function watchService(sandbox: Sandbox, c: SharedCell): ServiceWatch {
	const now = () => performance.timeOrigin + performance.now();
	const accepted = () =>
		c.job.operation === 'sendSms' ? sandbox.state.sentMessages.size : sandbox.state.crmLeads.size;
	let requests = 0;
	let delivered = accepted();
	let firstRequest = NaN;
	let lastRequest = NaN;
	let lastAccepted = NaN;
	const poll = () => {
		const t = now();
		const total = sandbox.stats().total;
		if (total !== requests) {
			if (Number.isNaN(firstRequest)) firstRequest = t;
			lastRequest = t;
			requests = total;
		}
		const size = accepted();
		if (size !== delivered) {
			lastAccepted = t;
			delivered = size;
		}
	};
	const timer = setInterval(poll, 2);
	return {
		finish: () => {
			poll();
			clearInterval(timer);
			return { firstRequest, lastRequest, lastAccepted };
		},
	};
}

/** How long a cell may run: the node waits at most 300 s per item by default; beyond that, it is stuck. */
function timeoutOf(c: SharedCell, override?: number): number {
	if (override) return override;
	return Math.round(3 * (c.items / c.idealRate) * 1000 + (c.outageMs ?? 0) + 330_000);
}

interface OutageWatch {
	/** Stops watching; waits for an outage under way; says when it began. */
	finish(): Promise<SharedRow['outage']>;
}

/**
 * Calls `sandbox.outage(ms)` when a third of the phones are delivered, or a third of the ideal time
 * after the first delivery, whichever comes first (so that a node that delivers less still meets it).
 */
function outageWhenAThirdIsIn(sandbox: Sandbox, c: SharedCell): OutageWatch {
	const third = c.items / 3;
	const thirdOfIdeal = ((c.items / c.idealRate) * 1000) / 3;
	let firstAt: number | undefined;
	let info: SharedRow['outage'];
	let running: Promise<void> | undefined;
	const timer = setInterval(() => {
		const delivered = sandbox.state.sentMessages.size;
		const now = performance.now();
		if (firstAt === undefined && delivered > 0) firstAt = now;
		if (firstAt === undefined) return;
		const byCount = delivered >= third;
		if (!byCount && now - firstAt < thirdOfIdeal) return;
		clearInterval(timer);
		const began = {
			delivered,
			afterMs: now - firstAt,
			trigger: byCount ? 'a third delivered' : 'a third of the ideal time',
		};
		info = began;
		running = sandbox.outage(c.outageMs ?? 0).catch((error: Error) => {
			info = { ...began, error: error.message };
		});
	}, 5);
	return {
		finish: async () => {
			clearInterval(timer);
			await running;
			return info;
		},
	};
}

/** Who got a message, per phone number (the bench's phones are 5730 and eight digits: the number). */
function deliveries(sandbox: Sandbox, c: SharedCell): { counts: Uint32Array; strays: number } {
	const counts = new Uint32Array(c.items);
	let strays = 0;
	const recipients =
		c.job.operation === 'sendSms'
			? [...sandbox.state.sentMessages.values()].map((m) => m.to)
			: [...sandbox.state.crmLeads.values()].map((lead) => lead.to);
	for (const to of recipients) {
		const number = /^5730(\d{8})(@c\.us)?$/.exec(String(to));
		const i = number ? Number(number[1]) : -1;
		if (i >= 0 && i < c.items) counts[i]++;
		else strays++;
	}
	return { counts, strays };
}

function tally(
	c: SharedCell,
	sandbox: Sandbox,
	result: ExecutionsResult | undefined,
	problem: string | undefined,
	timeoutMs: number,
): SharedRow {
	const { counts, strays } = deliveries(sandbox, c);
	const stats = sandbox.stats();
	const kinds: Record<FailureKind, number> = { unsure: 0, unreachable: 0, other: 0 };
	const failed = new Map<number, FailureKind>();
	for (const kind of ['unsure', 'unreachable', 'other'] as const) {
		for (const i of result?.failed[kind] ?? []) failed.set(i, kind);
		kinds[kind] = result?.failed[kind].length ?? 0;
	}
	const per = c.job.itemsPerExecution;
	const stopped = new Set<number>();
	let stoppedItems = 0;
	result?.executions.forEach((execution, k) => {
		if (!execution.error) return;
		stopped.add(k);
		stoppedItems += per - execution.items;
	});
	let once = 0;
	let twice = 0;
	let never = 0;
	let givenUpUnsent = 0;
	let lost = 0;
	let mismatched = 0;
	counts.forEach((count, i) => {
		if (count === 1) once++;
		else if (count > 1) twice++;
		else never++;
		const kind = failed.get(i);
		const executionStopped = stopped.has(Math.floor(i / per));
		if (count === 0 && kind !== 'unsure') {
			if (kind || executionStopped) givenUpUnsent++;
			else lost++;
		}
		// Delivered though its error does not say it may have been: the user would send it again.
		if (
			count > 1 ||
			(kind === undefined && !executionStopped && count !== 1) ||
			(kind !== undefined && kind !== 'unsure' && count > 0)
		)
			mismatched++;
	});
	const ends = result?.executions.map((execution) => execution.ms);
	return {
		cell: c,
		ms: result?.ms ?? timeoutMs,
		once,
		twice,
		never,
		kinds,
		errorItems: result ? kinds.unsure + kinds.unreachable + kinds.other : NaN,
		failedExecutions: result ? stopped.size : NaN,
		stoppedItems: result ? stoppedItems : NaN,
		givenUpUnsent: result ? givenUpUnsent : NaN,
		lost: result ? lost : NaN,
		mismatched: result ? mismatched : NaN,
		requests: stats.total,
		refused: stats.rateLimited,
		messages: result?.messages ?? [],
		...(ends?.length ? { ends: { first: Math.min(...ends), last: Math.max(...ends) } } : {}),
		...(result?.maxWaitOption ? { maxWaitOption: result.maxWaitOption } : {}),
		...(problem ? { problem } : {}),
		strays,
	};
}

async function measureOnce(
	c: SharedCell,
	spawn: Spawn,
	timeoutOverride?: number,
): Promise<SharedRow> {
	const sandbox = await startSandbox({
		port: 0,
		recordRequests: false,
		...(c.rate ? { rateLimit: c.rate } : {}),
	});
	try {
		if (c.cutAfterCommit)
			sandbox.injectFault({
				kind: 'cutAfterCommit',
				times: c.cutAfterCommit,
				match: { operationId: 'smsSend' },
			});
		const watch = c.outageMs === undefined ? undefined : outageWhenAThirdIsIn(sandbox, c);
		const service = watchService(sandbox, c);
		const timeoutMs = timeoutOf(c, timeoutOverride);
		let result: ExecutionsResult | undefined;
		let problem: string | undefined;
		try {
			result = await spawn<ExecutionsResult>(
				{ ...c.job, baseUrl: sandbox.url, token: sandbox.token },
				timeoutMs,
				c.env,
			);
		} catch (error) {
			if ((error as Error).name === 'WorkerKilled') throw error;
			problem = (error as Error).message;
		}
		const seen = service.finish();
		const outage = await watch?.finish();
		const row = tally(c, sandbox, result, problem, timeoutMs);
		if (result?.startedAt !== undefined && !Number.isNaN(seen.firstRequest)) {
			const from = (t: number) => t - result.startedAt;
			row.service = {
				firstRequest: from(seen.firstRequest),
				lastRequest: from(seen.lastRequest),
				lastAccepted: from(seen.lastAccepted),
			};
		}
		if (c.outageMs !== undefined)
			row.outage = outage ?? {
				delivered: NaN,
				afterMs: NaN,
				trigger: 'never: the run ended first',
			};
		return row;
	} finally {
		await sandbox.close();
	}
}

const count = (n: number) => (Number.isNaN(n) ? '?' : String(n));
const fixed = (n: number, digits = 2) => (Number.isNaN(n) ? '?' : n.toFixed(digits));
const seconds = (ms: number) =>
	Number.isNaN(ms)
		? '?'
		: ms >= 10_000
			? `${(ms / 1000).toFixed(0)} s`
			: `${(ms / 1000).toFixed(1)} s`;

/** One line per row, as it is measured. */
export function describeRow(row: SharedRow): string {
	const c = row.cell;
	const parts = [
		`${c.id} (${c.label}, ${c.job.executions} x ${c.job.itemsPerExecution}):`,
		`${row.once} once, ${row.twice} more than once, ${row.never} never;`,
		`failed ${count(failedItems(row))} (${count(row.errorItems)} error items: ${row.kinds.unsure} may have been carried out, ${row.kinds.unreachable} not reached/not sent, ${row.kinds.other} other; ${count(row.failedExecutions)} executions stopped, ${count(row.stoppedItems)} items in them without output);`,
		`given up unsent ${count(row.givenUpUnsent)}, lost ${count(row.lost)}, mismatched ${count(row.mismatched)};`,
		`${fixed(row.requests / c.items)} requests/item, ${row.refused} 429;`,
		`${seconds(row.ms)} = ${fixed(row.ms / idealMs(row))} x ideal`,
		...(row.service
			? [
					`(sandbox: first request at ${seconds(row.service.firstRequest)}, last at ${seconds(row.service.lastRequest)}, last accepted at ${seconds(row.service.lastAccepted)}; node's part ${fixed(nodePart(row))} x ideal)`,
				]
			: []),
		...(row.ends && c.job.executions > 1
			? [`(executions ended ${seconds(row.ends.first)} to ${seconds(row.ends.last)})`]
			: []),
		...(row.outage
			? [
					`; outage after ${seconds(row.outage.afterMs)} at ${row.outage.delivered} delivered (${row.outage.trigger})${row.outage.error ? `: ${row.outage.error}` : ''}`,
				]
			: []),
		...(row.maxWaitOption ? [`; max wait via ${row.maxWaitOption}`] : []),
		...(row.strays ? [`; ${row.strays} deliveries to phones outside the run`] : []),
		...(row.problem ? [`; PROBLEM: ${row.problem}`] : []),
		`; load ${loadavg()[0].toFixed(1)}`,
	];
	const messages = row.messages
		.slice(0, 3)
		.map((m) => `\n    ${m.items} items, ${m.executions} executions [${m.kind}]: ${m.message}`);
	return parts.join(' ') + messages.join('');
}

/** Measures the cells one after the other; a worker that crashed (a signal) is run again with a fresh sandbox, twice at most. */
export async function measureShared(
	cells: SharedCell[],
	spawn: Spawn,
	log: (line: string) => void,
	timeoutOverride?: number,
): Promise<SharedRow[]> {
	const rows: SharedRow[] = [];
	for (const c of cells) {
		for (let attempt = 1; ; attempt++) {
			try {
				const row = await measureOnce(c, spawn, timeoutOverride);
				rows.push(row);
				log(describeRow(row));
				break;
			} catch (error) {
				if ((error as Error).name !== 'WorkerKilled' || attempt === 3) throw error;
				log(`${(error as Error).message}; running ${c.id} again`);
			}
		}
	}
	return rows;
}

/** A and B must send the same request for both operations of these tables; phones of two executions must differ. */
/** What two variants must send alike: method, path, body (keys sorted), headers that matter, validity. */
export function requestShape(r: RecordedRequest): string {
	return JSON.stringify({
		method: r.method,
		path: r.path,
		body: Object.fromEntries(
			Object.entries(r.body as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
		),
		contentType: r.headers['content-type'],
		accept: r.headers.accept,
		connection: r.headers.connection,
		valid: r.valid,
	});
}

export async function checkExecutionsRequests(spawn: Spawn): Promise<string> {
	const sandbox = await startSandbox({ port: 0, recordRequests: true });
	const summaries: string[] = [];
	try {
		for (const operation of ['sendSms', 'injectCrmLead'] as const) {
			const seen: Record<string, string[]> = {};
			for (const variant of ['A', 'B'] as const) {
				sandbox.reset();
				const result = await spawn<ExecutionsResult>({
					kind: 'executions',
					variant,
					operation,
					executions: 2,
					itemsPerExecution: 1,
					continueOnFail: false,
					baseUrl: sandbox.url,
					token: sandbox.token,
				});
				const failure = result.executions.find(
					(execution) => execution.error || execution.items !== 1,
				);
				if (failure)
					throw new Error(
						`${variant} ${operation}: an execution failed: ${failure.error ?? `${failure.items} items`}`,
					);
				seen[variant] = sandbox.requests.map(requestShape).sort();
			}
			if (
				seen.A.length !== 2 ||
				seen.A[0] === seen.A[1] ||
				JSON.stringify(seen.A) !== JSON.stringify(seen.B)
			) {
				throw new Error(
					`${operation}: B does not send what A sends, or two executions sent the same:\nA:\n${seen.A.join('\n')}\nB:\n${seen.B.join('\n')}`,
				);
			}
			const { method, path, body } = JSON.parse(seen.A[0]) as {
				method: string;
				path: string;
				body: Record<string, unknown>;
			};
			summaries.push(`${operation}: ${method} ${path} {${Object.keys(body).join(', ')}}`);
		}
	} finally {
		await sandbox.close();
	}
	return summaries.join('; ');
}

const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
const cellText = (text: string) => text.replace(/\|/g, '/').replace(/\s+/g, ' ');

function problemNote(row: SharedRow): string {
	return row.problem ? ` (${cellText(row.problem).slice(0, 80)})` : '';
}

function limitTable(rows: SharedRow[]): string[] {
	return [
		"| Cell | Node and settings | Executions × items | Delivered once | More than once | Never | Failed items | Failed executions | Requests per item | 429 answers | Wall time | × ideal | First execution reached the node at | Node's part × ideal |",
		'|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
		...rows.map((row) => {
			const c = row.cell;
			return `| \`${c.id}\` | ${c.label}${problemNote(row)} | ${c.job.executions} × ${thousands(c.job.itemsPerExecution)} | ${count(row.once)} | ${count(row.twice)} | ${count(row.never)} | ${count(failedItems(row))} | ${count(row.failedExecutions)} | ${fixed(row.requests / c.items)} | ${count(row.refused)} | ${seconds(row.ms)} | ${fixed(row.ms / idealMs(row))} | ${seconds(firstReached(row))} | ${fixed(nodePart(row))} |`;
		}),
	];
}

function outageTable(rows: SharedRow[]): string[] {
	return [
		'| Cell | Run | Outage began (after the first delivery) | Delivered once | More than once | Never | Failed: may have been carried out | Failed: not reached, not sent | Failed: other | Given up unsent | Lost without error | Requests per item | Wall time |',
		'|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
		...rows.map((row) => {
			const c = row.cell;
			const outage = row.outage;
			const began =
				c.outageMs === undefined
					? '–'
					: !outage || Number.isNaN(outage.afterMs)
						? 'never'
						: `${seconds(outage.afterMs)} in, ${outage.delivered} delivered${outage.error ? ` (failed: ${cellText(outage.error)})` : ''}`;
			return `| \`${c.id}\` | ${c.label}${problemNote(row)} | ${began} | ${count(row.once)} | ${count(row.twice)} | ${count(row.never)} | ${count(row.kinds.unsure)} | ${count(row.kinds.unreachable)} | ${count(row.kinds.other + (Number.isNaN(row.stoppedItems) ? 0 : row.stoppedItems))} | ${count(row.givenUpUnsent)} | ${count(row.lost)} | ${fixed(row.requests / c.items)} | ${seconds(row.ms)} |`;
		}),
	];
}

function targets(rows: SharedRow[]): string[] {
	const line = (
		target: string,
		subset: SharedRow[],
		measured: (rows: SharedRow[]) => string,
		ok: (row: SharedRow) => boolean,
	) =>
		subset.length
			? `| ${target} | ${measured(subset)} | ${verdict(subset.every((row) => !row.problem && ok(row)))} |`
			: `| ${target} | not run | |`;
	const shared = rows.filter(
		(row) =>
			row.cell.table === 'shared' && row.cell.job.variant === 'A' && row.cell.job.executions >= 20,
	);
	const crm = rows.filter(
		(row) => row.cell.table === 'crm' && row.cell.job.variant === 'A' && row.cell.rate,
	);
	const crmDefault = crm.filter(defaultEngine);
	const crmLegacy = crm.filter((row) => !defaultEngine(row));
	const crmFloor = rows.find(
		(row) =>
			row.cell.table === 'crm' &&
			row.cell.job.variant === 'A' &&
			!row.cell.rate &&
			defaultEngine(row),
	);
	const outages = rows.filter(
		(row) =>
			row.cell.table === 'outage' && row.cell.job.variant === 'A' && /^A:outage/.test(row.cell.id),
	);
	const budget = rows.filter((row) => row.cell.id === 'A:budget');
	const cut = rows.filter((row) => row.cell.id === 'A:cut');
	const exactOnce = (row: SharedRow) => row.once === row.cell.items && failedItems(row) === 0;
	/** All runs in a word when they are exact, else the ones that are not. */
	const onceOf = (subset: SharedRow[]) => {
		const off = subset.filter((row) => !exactOnce(row));
		if (!off.length) return `every phone once, 0 failed, in all ${subset.length} runs`;
		return off
			.map(
				(row) =>
					`${row.cell.id}: ${count(row.once)}/${row.cell.items} once, ${count(failedItems(row))} failed`,
			)
			.join('; ');
	};
	/** The largest value, and the cell it comes from. */
	const maxOf = (subset: SharedRow[], value: (row: SharedRow) => number) => {
		const worst = subset.reduce((a, b) => (value(b) > value(a) ? b : a));
		return `${fixed(value(worst))} at most (\`${worst.cell.id}\`)`;
	};
	const perItem = (row: SharedRow) => row.requests / row.cell.items;
	const timeRatio = (row: SharedRow) => row.ms / idealMs(row);
	const outageText = (subset: SharedRow[]) =>
		subset
			.map(
				(row) =>
					`${row.cell.id}: ${count(row.givenUpUnsent)} given up unsent, ${count(row.twice)} twice, failed ${count(row.kinds.unsure)} unsure / ${count(row.kinds.unreachable)} not sent / ${count(row.kinds.other + row.stoppedItems)} other, ${count(row.mismatched)} phones not as said`,
			)
			.join('; ');
	return [
		'| Target | Measured | |',
		'|---|---|---|',
		line(
			`20 and 100 executions at once, ${[...new Set(shared.map((row) => thousands(row.cell.items)))].join(' and ') || 'N'} SMS, with and without continue-on-fail: every phone once, 0 failed`,
			shared,
			onceOf,
			exactOnce,
		),
		line(
			'The same: ≤ 1.5 requests per item',
			shared,
			(subset) => maxOf(subset, perItem),
			(row) => perItem(row) <= 1.5,
		),
		line(
			'The same: wall time ≤ 1.3 × items / rate',
			shared,
			(subset) => `× ${maxOf(subset, timeRatio)}`,
			(row) => timeRatio(row) <= 1.3,
		),
		line(
			`${CRM_EXECUTIONS} single-item Inject CRM Lead executions at once, ${CRM_RATE.perSecond}/s burst ${CRM_RATE.burst}: every lead once, 0 failed`,
			crm,
			onceOf,
			exactOnce,
		),
		line(
			'The same: wall time ≤ 1.3 × ideal',
			crmDefault,
			(subset) => {
				const worst = subset.reduce((a, b) => (timeRatio(b) > timeRatio(a) ? b : a));
				const reached = Math.min(...subset.map(firstReached));
				const why =
					timeRatio(worst) > 1.3
						? `; n8n's start of each execution, not the send: n8n-core's \`WorkflowExecute\` acquires an expression isolate per execution and, the pool (size 1) used up, all ${CRM_EXECUTIONS} cold-start one at once, so the first execution reached the node only ${seconds(reached)} after the start${crmFloor ? ` (the floor row, no limit: ${seconds(crmFloor.ms)})` : ''}`
						: '';
				const part = `node's part (first request to the last accepted, in the sandbox) × ${fixed(Math.max(...subset.map(nodePart)))} at most`;
				const legacy = crmLegacy.length
					? `; with n8n's legacy expression engine (\`${crmLegacy.map((row) => row.cell.id).join('`, `')}\`, not the default) wall × ${crmLegacy.map((row) => fixed(timeRatio(row))).join(', ')}, node's part × ${crmLegacy.map((row) => fixed(nodePart(row))).join(', ')}`
					: '';
				return `wall with n8n's default \`vm\` expression engine × ${maxOf(subset, timeRatio)}${why}; ${part}${legacy}`;
			},
			(row) => timeRatio(row) <= 1.3,
		),
		line(
			`Outage of ${OUTAGES_MS.map((ms) => `${ms / 1000} s`).join(' and ')} amid ${thousands(OUTAGE_ITEMS)} SMS: 0 given up unsent, 0 sent twice, the only failures "may have been carried out", every other phone once`,
			outages,
			outageText,
			(row) =>
				row.givenUpUnsent === 0 &&
				row.twice === 0 &&
				row.kinds.unreachable === 0 &&
				row.kinds.other === 0 &&
				row.stoppedItems === 0 &&
				row.mismatched === 0 &&
				!Number.isNaN(row.outage?.afterMs ?? NaN) &&
				!row.outage?.error,
		),
		line(
			`Outage (${BUDGET_OUTAGE_MS / 1000} s) longer than Max Wait (${BUDGET_WAIT_S} s): the unsent items fail saying the service could not be reached and they were not sent, 0 sent twice`,
			budget,
			outageText,
			(row) =>
				row.twice === 0 &&
				row.kinds.other === 0 &&
				row.stoppedItems === 0 &&
				row.lost === 0 &&
				row.mismatched === 0 &&
				row.kinds.unreachable > 0,
		),
		line(
			`${CUT_REQUESTS} requests cut after commit: those items fail naming the uncertainty, 0 sent twice, every other phone once`,
			cut,
			outageText,
			(row) =>
				row.kinds.unsure === CUT_REQUESTS &&
				row.kinds.unreachable === 0 &&
				row.kinds.other === 0 &&
				row.stoppedItems === 0 &&
				row.twice === 0 &&
				row.mismatched === 0,
		),
	];
}

function messageList(rows: SharedRow[]): string[] {
	const lines: string[] = [];
	for (const row of rows) {
		if (!row.messages.length) continue;
		const listed = row.messages
			.slice(0, 3)
			.map(
				(m) =>
					`${m.items ? `${m.items} items` : ''}${m.items && m.executions ? ', ' : ''}${m.executions ? `${m.executions} executions` : ''} (${m.kind}): "${cellText(m.message).slice(0, 160)}"`,
			);
		const more = row.messages.length > 3 ? `; ${row.messages.length - 3} other messages` : '';
		lines.push(`- \`${row.cell.id}\`: ${listed.join('; ')}${more}`);
	}
	return lines.length ? lines : ['- none'];
}

/** The generated section of docs/PERFORMANCE.md for these tables. */
export function sharedReport(rows: SharedRow[], header: string, requests: string): string {
	const of = (table: Table) => rows.filter((row) => row.cell.table === table);
	/** A table's section, left out when none of its cells ran (--only). */
	const section = (table: Table, title: string, setup: string, rows_: string[]) =>
		of(table).length ? [title, '', setup, '', ...rows_, ''] : [];
	const lines: string[] = [
		'### Shared rate limit and outages',
		'',
		header,
		'',
		...section(
			'shared',
			'#### Executions sharing one rate limit',
			`One worker process runs N executions of Source → node at once (N concurrent \`WorkflowExecute\` runs, as one n8n main process or queue worker runs concurrent executions), each sending its own phones (Source emits its contacts from an offset of its own), against one sandbox that allows ${SHARED_RATE.perSecond} requests per second with a burst of ${SHARED_RATE.burst} and answers HTTP 429 with \`Retry-After\` beyond it. A fresh sandbox and a fresh process per row, no warm-up. Counted from the sandbox's state: phones delivered once, more than once, never. Failed items: error items (On Error: Continue) plus the items of executions that stopped on an error. Wall time: from the first execution's start to the last one's end; ideal = items / ${SHARED_RATE.perSecond} per second. "First execution reached the node at" and "Node's part × ideal": seen in the sandbox, as in the CRM table below. Requests checked identical for A and B: ${requests}.`,
			limitTable(of('shared')),
		),
		...section(
			'crm',
			CRM_TITLE,
			`${CRM_EXECUTIONS} executions of one Inject CRM Lead each, started at once in one process (as ${CRM_EXECUTIONS} form submissions or webhook calls would), against ${CRM_RATE.perSecond} requests per second with a burst of ${CRM_RATE.burst}; ideal = ${CRM_EXECUTIONS} / ${CRM_RATE.perSecond} per second = ${CRM_EXECUTIONS / CRM_RATE.perSecond} s (counting the burst, the last of ${CRM_EXECUTIONS} requests can be accepted ${(CRM_EXECUTIONS - CRM_RATE.burst) / CRM_RATE.perSecond} s after the first: a node's part of ${fixed((CRM_EXECUTIONS - CRM_RATE.burst) / CRM_EXECUTIONS)}). ` +
				`The wall time here is mostly n8n's, not the node's: with n8n's default \`vm\` expression engine, n8n-core's \`WorkflowExecute.initializeExecution\` calls \`workflow.expression.acquireIsolate()\` for every execution, and with the pool (size 1) used up each of the ${CRM_EXECUTIONS} executions cold-starts an isolate of its own at the same moment (@n8n/expression-runtime's \`ExpressionEvaluator.acquire\` → \`createBridge\`), so no execution reaches the node for seconds; the node then sends at the limit. ` +
				`Two columns separate the two, both seen in the sandbox (in the bench's process, its request count and its leads polled every 2 ms; the worker's start on the same clock): "First execution reached the node at", the sandbox's first request after the executions' start (n8n's start-up of the executions: the node sends as soon as it runs); "Node's part × ideal", from that first request to the last request the sandbox accepted (not a 429), over ideal. ` +
				`The \`nolimit\` rows have no limit: what starting ${CRM_EXECUTIONS} executions at once costs in one process. The \`legacy\` rows run the worker with \`N8N_EXPRESSION_ENGINE=legacy\` (n8n's legacy expression engine, no isolate per execution; that worker's environment only, not n8n's default): the same ${CRM_EXECUTIONS} executions when their start-up is cheap.`,
			limitTable(of('crm')),
		),
		...section(
			'outage',
			'#### Outages amid a bulk send',
			`${thousands(OUTAGE_ITEMS)} Send SMS in one execution, On Error: Continue, against ${SHARED_RATE.perSecond}/s burst ${SHARED_RATE.burst}, so that the send lasts about ${OUTAGE_ITEMS / SHARED_RATE.perSecond} s and the outage lands in its middle (without a limit it would be over in under a second). The bench polls the sandbox every 5 ms and calls \`sandbox.outage(ms)\` once a third of the phones are delivered, or a third of the ideal time after the first delivery, whichever comes first; during it the sandbox does not listen (new connections are refused, those already accepted are answered), then listens again on the same port. Failures are sorted by what their message says: "may have been carried out" (a connection cut after the request was written), "could not be reached … not sent", or other (items of a stopped execution included). Given up unsent: never delivered, and failed without saying it may have been carried out; lost: never delivered and no error. Requests per item: those the sandbox received (a refused connection is none). B: the HTTP Request node with Batching ${B_BATCHING.batchSize} items per ${B_BATCHING.batchInterval} ms (the service's pace) and On Error: Continue. "Max Wait" is the node's Send Options field (\`maxWait\`, formerly \`maxRateLimitWait\`); "cut after commit": the sandbox carries out the first ${CUT_REQUESTS} requests it admits, then cuts their connections before answering.`,
			outageTable(of('outage')),
		),
		'#### Targets: shared limit and outages',
		'',
		...targets(rows),
		'',
		'Failure messages (the three most frequent per row):',
		'',
		...messageList(rows),
	];
	return lines.join('\n');
}

const CRM_TITLE = '#### Inject CRM Lead: single-item executions at once';

/**
 * `--only crm --write`: the CRM table, its targets and its failure messages put into the document's
 * shared section (`doc`: the whole section as written), the rest left as it is; `header` says when
 * and at which commit these rows were made, as they differ from the section's own header.
 */
export function spliceCrm(doc: string, rows: SharedRow[], header: string): string {
	const all = sharedCells().filter((c) => c.table === 'crm');
	const ran = new Set(rows.map((row) => row.cell.id));
	if (rows.some((row) => row.cell.table !== 'crm') || all.some((c) => !ran.has(c.id)))
		throw new Error(
			`--write needs exactly the CRM cells (--only crm): ${all.map((c) => c.id).join(', ')}`,
		);
	const generated = sharedReport(rows, header, '').split('\n');
	const lines = doc.split('\n');
	// The CRM subsection: from its title to the next subsection.
	const from = generated.indexOf(CRM_TITLE);
	const to = generated.findIndex((line, i) => i > from && line.startsWith('#### '));
	const section = generated.slice(from, to);
	section.splice(
		4,
		0,
		`${header.replace(/^Generated/, 'These rows, their two targets and their failure messages: generated')} Not from the same run, nor necessarily the same commit, as the rest of this section (its header names that run).`,
		'',
	);
	const start = lines.indexOf(CRM_TITLE);
	if (start < 0) throw new Error(`the document has no "${CRM_TITLE}"`);
	const end = lines.findIndex((line, i) => i > start && line.startsWith('#### '));
	lines.splice(start, end - start, ...section);
	// Their targets: the lines of the targets table that were measured, each in place of its line.
	for (const target of generated.filter(
		(line) =>
			line.startsWith('| ') && !line.endsWith('| not run | |') && generated.indexOf(line) > to,
	)) {
		const name = target.split(' | ')[0];
		const at = lines.findIndex((line) => line.startsWith(`${name} | `));
		if (at < 0 || !name.startsWith('| ')) continue;
		lines[at] = target;
	}
	// Their failure messages, in place of the CRM rows' old ones.
	const ids = [...ran].map((id) => `- \`${id}\`:`);
	const old = lines
		.map((line, i) => (ids.some((id) => line.startsWith(id)) ? i : -1))
		.filter((i) => i >= 0);
	const fresh = generated.filter((line) => ids.some((id) => line.startsWith(id)));
	const at = old.length ? old[0] : lines.length;
	for (const i of old.reverse()) lines.splice(i, 1);
	lines.splice(at, 0, ...fresh);
	return lines.join('\n');
}
