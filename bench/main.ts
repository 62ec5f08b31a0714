/**
 * npm run bench (through bench/run.sh): Send SMS through our node (A), n8n's HTTP Request node (B),
 * plain node:http (C), a minimal programmatic n8n node (D) and n8n's outbound HTTP alone (H)
 * against the sandbox, every measurement in a fresh worker process (bench/worker.ts); A with a Send
 * Window open for every recipient against A without (issue 47), at 10,000 items; then bulk sends
 * against a rate-limited sandbox, load time, packed size and the researcher's polling. Writes the
 * figures into docs/PERFORMANCE.md between its bench markers. `--quick`: a short run that only
 * prints. `--window`: only the Send Window pairs, printed.
 *
 * The shared-limit and outage tables (bench/shared.ts) run last; alone with `--shared`, which
 * rewrites only their part of the document (between the bench:shared markers). `--shared --quick`:
 * 4,000 SMS and the 2 s outage only, printed. `--only <cells>` (implies --shared, prints only):
 * e.g. `--only 20x4000`, `--only A:100x10000:cof`, `--only outage`, `--only crm,A:cut` (`--only crm
 * --write`: writes the CRM table, its targets and failure messages into the shared section); `--list`
 * names the cells. `--timeout <s>`: kill a shared-table worker after that long (default: 3 x
 * ideal + the outage + 330 s). `--rate`: only this node's rate-limited rows (A, with and without
 * continue-on-fail), printed; `--items 600,1000` sets their sizes.
 */
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

import type { RecordedRequest, Sandbox } from '../sandbox/server';
import { startSandbox } from '../sandbox/server';
import { nextPollDelay } from '../nodes/ConversationalMessaging/resources/researcher/run';
import { readPhone } from '../nodes/ConversationalMessaging/checks/phone/reading';
import { zonesOfNumber } from '../nodes/ConversationalMessaging/checks/phone/timeZones';
import type {
	CpuShares,
	FunctionShare,
	Job,
	LoadResult,
	ResearcherResult,
	SendResult,
	SendSettings,
	Variant,
} from './worker';
import type { SharedRow } from './shared';
import {
	checkExecutionsRequests,
	measureShared,
	requestShape,
	selectCells,
	sharedCells,
	sharedReport,
	spliceCrm,
} from './shared';

const ROOT = join(__dirname, '..');
const DOC = join(ROOT, 'docs/PERFORMANCE.md');
const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';
const SHARED_START = '<!-- bench:shared:start -->';
const SHARED_END = '<!-- bench:shared:end -->';
const ARGS = process.argv.slice(2);
/** The value of `--name value` or `--name=value`. */
const option = (name: string): string | undefined => {
	const at = ARGS.indexOf(`--${name}`);
	if (at >= 0) return ARGS[at + 1];
	return ARGS.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
};
const QUICK = ARGS.includes('--quick');
const ONLY = (option('only') ?? '').split(',').filter(Boolean);
const SHARED = ARGS.includes('--shared') || ONLY.length > 0;
const LIST = ARGS.includes('--list');
/** With `--only crm`: write the CRM table and its targets into the document's shared section. */
const WRITE = ARGS.includes('--write');
const TIMEOUT_MS = option('timeout') ? Number(option('timeout')) * 1000 : undefined;
const RATE_ONLY = ARGS.includes('--rate');
/** `--window`: only the Send Window pairs (`--pairs N` of them), printed; `--profile`: profiled even when met. */
const WINDOW_ONLY = ARGS.includes('--window');

const LATENCIES = [0, 50];
/** Repetitions per item count: medians of fresh processes, fewer where one run takes long. */
const REPS: Record<number, number> = QUICK ? { 100: 1, 1000: 1 } : { 100: 5, 1000: 3, 10000: 1 };
const SIZES = Object.keys(REPS).map(Number);
/** Items run once in every worker before the measured run, so that it is not the first (JIT). */
const WARMUP = 50;
const VARIANTS: Variant[] = ['A', 'B', 'C', 'D', 'H'];
/** The cell of the A/C target, where A is also profiled. */
const AC_CELL = { latency: 50, items: 1000 };
/** The rate-limited service: the sandbox's token bucket. */
const RATE = { perSecond: 200, burst: 20 };
const RATE_SIZES = option('items')?.split(',').map(Number) ?? (QUICK ? [1000] : [1000, 10000]);

/**
 * Issue 47's Send Window: A with a window open for every recipient against A with every option
 * off, the same phones, in pairs of fresh processes (off then on, on then off, ...) at this size.
 */
const WINDOW = {
	items: 10_000,
	latencies: QUICK ? [0] : LATENCIES,
	pairs: Number(option('pairs') ?? (QUICK ? 3 : 5)),
	/** Every day; closed only from 23:59 to midnight, local time, which the bench waits out. */
	window: { from: '00:00', until: '23:59' },
	target: 1.05,
};
/**
 * The phones of both sides of the Send Window pair: each entry's first digits and its numbers'
 * length; item i gets entry i mod n, numbered i / n in the rest (checked by checkSpread: each a
 * number the node reads, each entry one list of zones). One zone or several (Alaska, the UK),
 * whole-hour, half-hour and 45-minute offsets, with and without daylight saving time.
 */
const SPREAD: Array<[first: string, length: number]> = [
	['57300', 12], // Colombia
	['1212555', 11], // New York
	['1310555', 11], // Los Angeles
	['1312555', 11], // Chicago
	['1303555', 11], // Denver
	['1602555', 11], // Phoenix (no DST)
	['1907555', 11], // Alaska: Adak and Anchorage
	['1808555', 11], // Honolulu
	['1416555', 11], // Toronto
	['34612', 11], // Spain
	['33612', 11], // France
	['447700', 12], // the UK: London, Guernsey, Isle of Man
	['491512', 13], // Germany
	['919812', 12], // India (+05:30)
	['977981', 13], // Nepal (+05:45)
	['61412', 11], // Australia (Sydney)
	['525512', 12], // Mexico
	['5511912', 13], // Brazil
	['8190', 12], // Japan
	['7912', 11], // Russia (Moscow)
	['62812', 13], // Indonesia (Jakarta)
];

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const mb = (kb: number) => kb / 1024;
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const percent = (share: number) => `${Math.round(share * 100)} %`;

/** Exit by signal: the process died, which measures nothing (isolated-vm rarely crashes at exit here). */
class WorkerKilled extends Error {
	name = 'WorkerKilled';
}

/** `timeoutMs`: the worker is killed (SIGKILL) after that long, and the promise rejects. `env`: added to the worker's environment only. */
function spawnWorker<T>(
	job: Job,
	timeoutMs?: number,
	env: Record<string, string> = {},
): Promise<T> {
	return new Promise((resolve, reject) => {
		// Same Node 24 as this process; type stripping instead of tsx, so module loading is not hooked.
		const child = spawn(
			process.execPath,
			[
				'--disable-warning=MODULE_TYPELESS_PACKAGE_JSON',
				'--expose-gc',
				join(__dirname, 'worker.ts'),
				JSON.stringify(job),
			],
			{
				cwd: ROOT,
				// n8n's default level (info) turns debug logging off too; error keeps stdout for the result.
				env: { ...process.env, N8N_LOG_LEVEL: 'error', ...env },
				stdio: ['ignore', 'pipe', 'inherit'],
			},
		);
		let out = '';
		let timedOut = false;
		const timer =
			timeoutMs === undefined
				? undefined
				: setTimeout(() => {
						timedOut = true;
						child.kill('SIGKILL');
					}, timeoutMs);
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		child.on('error', reject);
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			if (timedOut)
				return reject(
					new Error(`stuck: the worker was killed after ${Math.round((timeoutMs ?? 0) / 1000)} s`),
				);
			if (signal)
				return reject(new WorkerKilled(`worker ${JSON.stringify(job)} killed by ${signal}`));
			if (code !== 0) return reject(new Error(`worker ${JSON.stringify(job)} exited with ${code}`));
			try {
				resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as T);
			} catch (error) {
				reject(
					new Error(
						`worker ${JSON.stringify(job)} wrote no result (${(error as Error).message}): ${out.slice(0, 200)}`,
					),
				);
			}
		});
	});
}

/**
 * A worker killed by a signal is run again, twice at most; any other failure stops the bench.
 * `beforeEach`: runs before every attempt (a sandbox reset, so that a run again is not counted twice).
 */
async function runWorker<T>(job: Job, beforeEach?: () => void): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			beforeEach?.();
			return await spawnWorker<T>(job);
		} catch (error) {
			if (!(error instanceof WorkerKilled) || attempt === 3) throw error;
			log(`${error.message}; running it again`);
		}
	}
}

type SendJob = Extract<Job, { kind: 'send' }>;

const sendJob = (
	sandbox: Sandbox,
	variant: Variant,
	items: number,
	warmup = WARMUP,
	settings: SendSettings = {},
): SendJob => ({
	kind: 'send',
	variant,
	items,
	warmup,
	baseUrl: sandbox.url,
	token: sandbox.token,
	...settings,
});

/** Every variant must send the same requests; also counts the expressions n8n evaluates per item. */
async function checkSameRequests(): Promise<{
	summary: string;
	expressionsPerItem: Partial<Record<Variant, number>>;
}> {
	const sandbox = await startSandbox({ port: 0, recordRequests: true });
	const seen: Partial<Record<Variant, RecordedRequest[]>> = {};
	const expressionsPerItem: Partial<Record<Variant, number>> = {};
	try {
		for (const variant of VARIANTS) {
			const result = await runWorker<SendResult>(
				{ ...sendJob(sandbox, variant, 2, 0), countExpressions: variant !== 'C' },
				() => sandbox.reset(),
			);
			seen[variant] = [...sandbox.requests];
			if (result.expressions !== undefined) expressionsPerItem[variant] = result.expressions / 2;
		}
	} finally {
		await sandbox.close();
	}
	const reference = (seen.A ?? []).map(requestShape);
	for (const variant of VARIANTS) {
		const shapes = (seen[variant] ?? []).map(requestShape).sort();
		if (
			reference.length !== 2 ||
			JSON.stringify(shapes) !== JSON.stringify([...reference].sort())
		) {
			throw new Error(
				`${variant} does not send what A sends:\n${shapes.join('\n')}\nA:\n${reference.join('\n')}`,
			);
		}
	}
	const [first] = seen.A ?? [];
	const keys = Object.keys(first.body as Record<string, unknown>).join(', ');
	return {
		summary: `${first.method} ${first.path}, JSON body {${keys}}, content-type ${first.headers['content-type']}, connection: ${first.headers.connection}, one connection per request`,
		expressionsPerItem,
	};
}

interface Cell {
	ms: number[];
	rssKb: number[];
	liveKb: number[];
}

async function measureSends(sandbox: Sandbox): Promise<Map<string, Cell>> {
	const cells = new Map<string, Cell>();
	for (const latency of LATENCIES) {
		for (const items of SIZES) {
			for (let rep = 0; rep < REPS[items]; rep++) {
				// Rotate the order (ABCDH, BCDHA, ...) so that no variant always runs first.
				const order = VARIANTS.map((_, i) => VARIANTS[(i + rep) % VARIANTS.length]);
				for (const variant of order) {
					sandbox.reset();
					if (latency) sandbox.injectFault({ kind: 'latency', ms: latency });
					const result = await runWorker<SendResult>(sendJob(sandbox, variant, items));
					const key = `${latency}/${items}/${variant}`;
					const cell = cells.get(key) ?? { ms: [], rssKb: [], liveKb: [] };
					cell.ms.push(result.ms);
					cell.rssKb.push(result.maxRssKb);
					cell.liveKb.push(result.liveKb);
					cells.set(key, cell);
					log(
						`${latency} ms latency, ${items} items, ${variant}: ${fixed(result.ms / items, 3)} ms/item, peak RSS ${fixed(mb(result.maxRssKb), 0)} MB`,
					);
				}
			}
		}
	}
	return cells;
}

/** The spread's phones as the worker makes them (phoneOf in bench/worker.ts). */
const spreadPhone = (i: number) => {
	const [first, length] = SPREAD[i % SPREAD.length];
	return `${first}${String(Math.floor(i / SPREAD.length)).padStart(length - first.length, '0')}`;
};

interface Spread {
	/** Calling codes. */
	codes: number;
	/** Every zone the phones may be in. */
	zones: string[];
	/** Distinct lists of zones (what the verdict memo keys on). */
	lists: number;
}

/** Every phone of the spread is one the node reads (no Default Country), and each entry keeps one list of zones. */
function checkSpread(items: number): Spread {
	const listOf = new Map<number, string>();
	const codes = new Set<string>();
	for (let i = 0; i < items; i++) {
		const phone = spreadPhone(i);
		const reading = readPhone(`+${phone}`);
		if ('problem' in reading) throw new Error(`the spread's phone ${phone}: ${reading.problem}`);
		codes.add(reading.code);
		const zones = zonesOfNumber(phone).join(' ');
		const entry = i % SPREAD.length;
		if (!zones || (listOf.has(entry) && listOf.get(entry) !== zones))
			throw new Error(
				`the spread's phone ${phone} has zones "${zones}", not "${listOf.get(entry)}"`,
			);
		listOf.set(entry, zones);
	}
	const lists = new Set(listOf.values());
	return {
		codes: codes.size,
		zones: [...new Set([...lists].flatMap((list) => list.split(' ')))].sort(),
		lists: lists.size,
	};
}

/** The local time in a zone, 'HH:MM'. */
const localTime = (zone: string, ms: number) =>
	new Intl.DateTimeFormat('en-GB', {
		timeZone: zone,
		hour: '2-digit',
		minute: '2-digit',
		hourCycle: 'h23',
	}).format(ms);

/**
 * Waits until the Send Window stays open in every zone for the next two minutes (longer than a
 * worker at WINDOW.items takes), so that no item is held and both sides send the same: the window
 * closes for its last minute of each local day.
 */
async function awaitOpenWindow(zones: string[]): Promise<void> {
	const closed = WINDOW.window.until;
	for (;;) {
		const now = Date.now();
		const closing = zones.find((zone) =>
			Array.from({ length: 13 }, (_, k) => now + k * 10_000).some(
				(ms) => localTime(zone, ms) === closed,
			),
		);
		if (!closing) return;
		log(`Send Window: ${closed} is near in ${closing}; waiting for its midnight`);
		await new Promise((resolve) => setTimeout(resolve, 15_000));
	}
}

/** A with the spread, the Send Window on or off. */
const windowJob = (sandbox: Sandbox, on: boolean, items: number, warmup = WARMUP): SendJob =>
	sendJob(sandbox, 'A', items, warmup, {
		phones: SPREAD,
		...(on ? { sendWindow: WINDOW.window } : {}),
	});

/** With the Send Window on, A sends the very requests it sends with it off (none held), for every entry of the spread. */
async function checkWindowRequests(spread: Spread): Promise<void> {
	const sandbox = await startSandbox({ port: 0, recordRequests: true });
	const seen: string[][] = [];
	try {
		for (const on of [false, true]) {
			await awaitOpenWindow(spread.zones);
			await runWorker<SendResult>(windowJob(sandbox, on, 2 * SPREAD.length, 0), () =>
				sandbox.reset(),
			);
			seen.push(sandbox.requests.map(requestShape).sort());
		}
	} finally {
		await sandbox.close();
	}
	const [off, on] = seen;
	if (off.length !== 2 * SPREAD.length || JSON.stringify(off) !== JSON.stringify(on))
		throw new Error(
			`with the Send Window on, A does not send what it sends with it off:\n${on.join('\n')}\noff:\n${off.join('\n')}`,
		);
}

interface WindowCell {
	latency: number;
	off: number[];
	on: number[];
	/** on / off of each pair, in order. */
	ratios: number[];
	/** The same of the worker's CPU time over the measured run. */
	cpuRatios: number[];
	/** The machine's 1-minute load average before and after the pairs: the wall times' ratios are only as good as it is low. */
	load: [number, number];
}

/** The Send Window pairs: at each latency, WINDOW.pairs times off and on, alternating which goes first. */
async function measureWindow(sandbox: Sandbox, spread: Spread): Promise<WindowCell[]> {
	const cells: WindowCell[] = [];
	for (const latency of WINDOW.latencies) {
		const cell: WindowCell = {
			latency,
			off: [],
			on: [],
			ratios: [],
			cpuRatios: [],
			load: [loadavg()[0], NaN],
		};
		for (let pair = 0; pair < WINDOW.pairs; pair++) {
			const ms: Record<'off' | 'on', number> = { off: NaN, on: NaN };
			const cpuMs: Record<'off' | 'on', number> = { off: NaN, on: NaN };
			for (const on of pair % 2 ? [true, false] : [false, true]) {
				if (on) await awaitOpenWindow(spread.zones);
				sandbox.reset();
				if (latency) sandbox.injectFault({ kind: 'latency', ms: latency });
				const result = await runWorker<SendResult>(windowJob(sandbox, on, WINDOW.items));
				ms[on ? 'on' : 'off'] = result.ms;
				cpuMs[on ? 'on' : 'off'] = result.cpuMs;
				log(
					`${latency} ms latency, ${WINDOW.items} items, A with the spread, Send Window ${on ? 'on' : 'off'}: ${fixed(result.ms / WINDOW.items, 3)} ms/item, worker CPU ${fixed(result.cpuMs / WINDOW.items, 3)} ms/item`,
				);
			}
			cell.off.push(ms.off);
			cell.on.push(ms.on);
			cell.ratios.push(ms.on / ms.off);
			cell.cpuRatios.push(cpuMs.on / cpuMs.off);
		}
		cell.load[1] = loadavg()[0];
		log(
			`${latency} ms latency: Send Window on / off ${cell.ratios.map((r) => fixed(r, 3)).join(', ')}, median ${fixed(median(cell.ratios), 3)}; worker CPU ${cell.cpuRatios.map((r) => fixed(r, 3)).join(', ')}, median ${fixed(median(cell.cpuRatios), 3)}`,
		);
		cells.push(cell);
	}
	return cells;
}

/** One more run with the Send Window on at 0 ms, profiled: where its time went, by function of this package. */
async function profileWindow(sandbox: Sandbox, spread: Spread): Promise<FunctionShare[]> {
	await awaitOpenWindow(spread.zones);
	sandbox.reset();
	const { functions } = await runWorker<SendResult>({
		...windowJob(sandbox, true, WINDOW.items),
		profile: true,
	});
	const hot = (functions ?? []).filter(
		(f, rank) => rank < 8 || /^(recipientRules\/|checks\/phone\/zones)/.test(f.name),
	);
	log(
		`Send Window on, profiled (share of samples, with callees / nearest of the package's frames): ${hot
			.map((f) => `${f.name} ${fixed(f.total * 100, 1)} % / ${fixed(f.self * 100, 1)} %`)
			.join('; ')}`,
	);
	return functions ?? [];
}

/** A at the A/C target's cell once more, profiled (its time, which the profiler slows, is not kept). */
async function profileA(sandbox: Sandbox): Promise<CpuShares> {
	sandbox.reset();
	sandbox.injectFault({ kind: 'latency', ms: AC_CELL.latency });
	const { cpu } = await runWorker<SendResult>({
		...sendJob(sandbox, 'A', AC_CELL.items),
		profile: true,
	});
	if (!cpu) throw new Error('the profiled run of A gave no profile');
	log(
		`A profiled: ${Object.entries(cpu)
			.map(([owner, share]) => `${owner} ${percent(share)}`)
			.join(', ')}`,
	);
	return cpu;
}

/** Runs at the largest size beside the table: A when n8n evaluates its fields, and the memory floor of any node. */
const OTHER_RUNS: Array<{
	label: string;
	variant: Variant;
	settings: SendSettings;
	latencies: number[];
}> = [
	{
		label: 'A, its fields in parentheses (`{{ ($json.phone) }}`), so that n8n evaluates them',
		variant: 'A',
		settings: { evaluated: true },
		latencies: LATENCIES,
	},
	// One at a time at 50 ms would take 10,000 × 50 ms; latency does not change what a request leaves behind.
	{
		label:
			'D without expressions, one request at a time: the floor of a node that sends one request per item through n8n',
		variant: 'D',
		settings: { floor: true },
		latencies: [0],
	},
];

interface OtherRow {
	latency: number;
	label: string;
	variant: Variant;
	ms: number;
	rssKb: number;
}

async function measureOtherRuns(sandbox: Sandbox, items: number): Promise<OtherRow[]> {
	const rows: OtherRow[] = [];
	for (const latency of LATENCIES) {
		for (const { label, variant, settings } of OTHER_RUNS.filter((run) =>
			run.latencies.includes(latency),
		)) {
			sandbox.reset();
			if (latency) sandbox.injectFault({ kind: 'latency', ms: latency });
			const result = await runWorker<SendResult>(
				sendJob(sandbox, variant, items, WARMUP, settings),
			);
			rows.push({ latency, label, variant, ms: result.ms, rssKb: result.maxRssKb });
			log(
				`${latency} ms latency, ${items} items, ${label}: ${fixed(result.ms / items, 3)} ms/item, peak RSS ${fixed(mb(result.maxRssKb), 0)} MB`,
			);
		}
	}
	return rows;
}

interface RateRow {
	items: number;
	label: string;
	ms: number;
	once: number;
	twice: number;
	never: number;
	errorItems: number;
	error?: string;
	requests: number;
	refused: number;
}

const RATE_CONFIGS: Array<{ label: string; variant: Variant; settings: SendSettings }> = [
	{ label: 'A, defaults', variant: 'A', settings: { continueOnFail: false } },
	{ label: 'A, On Error: Continue', variant: 'A', settings: { continueOnFail: true } },
	{ label: 'B, defaults', variant: 'B', settings: { continueOnFail: false } },
	{ label: 'B, On Error: Continue', variant: 'B', settings: { continueOnFail: true } },
	// What n8n's docs suggest: Items per Batch = the requests allowed per Batch Interval.
	{
		label: `B, Batching ${RATE.perSecond} per 1000 ms, On Error: Continue`,
		variant: 'B',
		settings: {
			continueOnFail: true,
			batching: { batchSize: RATE.perSecond, batchInterval: 1000 },
		},
	},
];

/** Bulk sends against a service that allows RATE: who got the message, how often, at what cost. */
async function measureRateLimited(): Promise<RateRow[]> {
	const rows: RateRow[] = [];
	for (const items of RATE_SIZES) {
		for (const { label, variant, settings } of RATE_CONFIGS.filter(
			(config) => !RATE_ONLY || config.variant === 'A',
		)) {
			const sandbox = await startSandbox({ port: 0, recordRequests: false, rateLimit: RATE });
			try {
				const result = await runWorker<SendResult>(
					sendJob(sandbox, variant, items, 0, settings),
					() => sandbox.reset(),
				);
				const sends = new Map<string, number>();
				for (const message of sandbox.state.sentMessages.values())
					sends.set(message.to, (sends.get(message.to) ?? 0) + 1);
				const counts = [...sends.values()];
				const stats = sandbox.stats();
				const row: RateRow = {
					items,
					label,
					ms: result.ms,
					once: counts.filter((count) => count === 1).length,
					twice: counts.filter((count) => count > 1).length,
					never: items - sends.size,
					errorItems: result.errorItems,
					error: result.error,
					requests: stats.total,
					refused: stats.rateLimited,
				};
				rows.push(row);
				log(
					`rate-limited ${items} items, ${label}: ${row.once} delivered once, ${row.twice} twice, ${row.never} never, ${row.errorItems} error items, ${fixed(row.requests / items)} requests/item, ${fixed(row.ms / 1000, 1)} s, ${fixed(row.ms / ((items / RATE.perSecond) * 1000))} x ideal`,
				);
			} finally {
				await sandbox.close();
			}
		}
	}
	return rows;
}

/** Peak RSS of each variant's process with everything loaded and warmed up, and nothing sent. */
async function measureBaselines(sandbox: Sandbox): Promise<Record<Variant, number>> {
	const baseline = {} as Record<Variant, number>;
	for (const variant of VARIANTS) {
		const runs: number[] = [];
		for (let rep = 0; rep < (QUICK ? 1 : 3); rep++) {
			sandbox.reset();
			runs.push((await runWorker<SendResult>(sendJob(sandbox, variant, 0))).maxRssKb);
		}
		baseline[variant] = median(runs);
		log(`baseline ${variant}: peak RSS ${fixed(mb(baseline[variant]), 0)} MB`);
	}
	return baseline;
}

async function measureLoad(): Promise<LoadResult & { runs: number }> {
	const runs: LoadResult[] = [];
	for (let rep = 0; rep < (QUICK ? 1 : 5); rep++)
		runs.push(await runWorker<LoadResult>({ kind: 'load' }));
	return {
		...runs[0],
		engineMs: median(runs.map((r) => r.engineMs)),
		loaderMs: median(runs.map((r) => r.loaderMs)),
		runs: runs.length,
	};
}

interface Pack {
	size: number;
	unpackedSize: number;
	entryCount: number;
	files: Array<{ path: string; size: number }>;
}

function packedSize(): Pack & { mapsBytes: number; declarationsBytes: number } {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	const [pack] = JSON.parse(out) as Pack[];
	const bytesOf = (suffix: string) =>
		pack.files.filter((f) => f.path.endsWith(suffix)).reduce((sum, f) => sum + f.size, 0);
	return { ...pack, mapsBytes: bytesOf('.js.map'), declarationsBytes: bytesOf('.d.ts') };
}

interface PollingRow {
	runMs: number;
	baseMs: number;
	source: 'measured' | 'simulated';
	polls: number;
	/** From the completion of the run in the service to the node's answer. */
	addedMs: number;
	/** The wait before the poll that saw the run complete. */
	intervalMs: number;
	minGapMs: number;
	maxGapMs: number;
}

/** The node's wait loop (waitForResearch) replayed on a clock, with its own schedule function. */
function simulatePolling(runMs: number, baseMs: number, timeoutMs = 30 * 60_000): PollingRow {
	const polls: number[] = [];
	let delay: number | undefined;
	let waited = 0;
	while (waited < runMs && waited < timeoutMs) {
		delay = nextPollDelay(baseMs, delay, waited);
		waited += Math.min(delay, timeoutMs - waited);
		polls.push(waited);
	}
	const gaps = polls.map((t, i) => t - (i ? polls[i - 1] : 0));
	return {
		runMs,
		baseMs,
		source: 'simulated',
		polls: polls.length,
		addedMs: waited - runMs,
		intervalMs: delay ?? 0,
		minGapMs: Math.min(...gaps),
		maxGapMs: Math.max(...gaps),
	};
}

/** A real Run with Wait for Completion against a sandbox whose runs last `runMs`. */
async function measurePolling(runMs: number, pollSeconds: number): Promise<PollingRow> {
	const sandbox = await startSandbox({ port: 0, recordRequests: false, researcherRunMs: runMs });
	try {
		const researcherId = 'researcher-1';
		const result = await runWorker<ResearcherResult>({
			kind: 'researcher',
			baseUrl: sandbox.url,
			token: sandbox.token,
			researcherId,
			pollInterval: pollSeconds,
		});
		const run = sandbox.state.researchers.get(researcherId)?.run;
		if (!run || result.output.progress !== 100)
			throw new Error(`the researcher run did not complete: ${JSON.stringify(result.output)}`);
		const completedAt = run.startedAt + run.ms;
		const gaps = result.polls.map((t, i) => t - (i ? result.polls[i - 1] : run.startedAt));
		return {
			runMs,
			baseMs: pollSeconds * 1000,
			source: 'measured',
			polls: result.polls.length,
			addedMs: result.endedAt - completedAt,
			intervalMs: gaps[gaps.length - 1],
			minGapMs: Math.min(...gaps),
			maxGapMs: Math.max(...gaps),
		};
	} finally {
		await sandbox.close();
	}
}

function machine(): string {
	const model =
		/model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ??
		cpus()[0]?.model ??
		'unknown';
	return `${cpus().length} × ${model}, ${fixed(totalmem() / 2 ** 30, 1)} GiB`;
}

function versions(): string {
	const runtime = join(
		process.env.N8N_RUNTIME_DIR ?? join(ROOT, '.cache/n8n-runtime'),
		'node_modules',
	);
	const version = (name: string) =>
		(JSON.parse(readFileSync(join(runtime, name, 'package.json'), 'utf8')) as { version: string })
			.version;
	return `n8n ${version('n8n')} (n8n-core ${version('n8n-core')}, n8n-workflow ${version('n8n-workflow')}, n8n-nodes-base ${version('n8n-nodes-base')}), Node ${process.version}`;
}

function commit(): string {
	const git = (...args: string[]) =>
		execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
	return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'nodes', 'credentials', 'package.json') ? ' with uncommitted changes to the package' : ''}`;
}

const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
const seconds = (ms: number) =>
	ms >= 10_000 ? `${fixed(ms / 1000, 0)} s` : `${fixed(ms / 1000, 1)} s`;

function report(parts: {
	started: Date;
	loadBefore: number;
	elapsedMs: number;
	requests: Awaited<ReturnType<typeof checkSameRequests>>;
	cells: Map<string, Cell>;
	baseline: Record<Variant, number>;
	load: Awaited<ReturnType<typeof measureLoad>>;
	pack: ReturnType<typeof packedSize>;
	polling: PollingRow[];
	rateRows: RateRow[];
	otherRows: OtherRow[];
	/** The shared-limit and outage section, already written (bench/shared.ts). */
	shared?: string;
	/** A at the A/C target's cell, profiled. */
	profile: CpuShares;
	/** The Send Window pairs; profiled (this package's functions) when the target is missed. */
	window: WindowParts;
}): string {
	const { cells, baseline, load, pack, polling, requests, rateRows, otherRows } = parts;
	const perItem = (latency: number, items: number, variant: Variant) =>
		median(cells.get(`${latency}/${items}/${variant}`)?.ms ?? [NaN]) / items;
	const netMb = (latency: number, items: number, variant: Variant) =>
		mb(median(cells.get(`${latency}/${items}/${variant}`)?.rssKb ?? [NaN]) - baseline[variant]);
	const liveMb = (latency: number, items: number, variant: Variant) =>
		mb(median(cells.get(`${latency}/${items}/${variant}`)?.liveKb ?? [NaN]));
	const lines: string[] = [];
	const add = (...more: string[]) => lines.push(...more);

	add(
		`Generated by \`npm run bench\` on ${parts.started.toISOString().slice(0, 16).replace('T', ' ')} UTC in ${fixed(parts.elapsedMs / 60_000, 1)} min (commit ${commit()}).`,
		'',
		`- Machine: ${machine()}; 1-minute load average before the run ${fixed(parts.loadBefore)} (other work on the machine skews the figures)`,
		`- Runtime: ${versions()}; expression engine \`${load.expressionEngine}\` (n8n's default); HTTP Request node version ${load.httpRequestVersion}`,
		`- A: this node (Send SMS, through its send loop); B: n8n's HTTP Request node; C: node:http alone, every request at once; D: a minimal programmatic n8n node, one getNodeParameter per field and one httpRequestWithAuthentication per item, every item at once; H: n8n's outbound HTTP alone (\`OutboundHttp.requests().request\`, where n8n's request helpers end), every request at once, no engine: the least a node pays that sends through n8n's helpers, as n8n requires`,
		`- Requests (checked identical for ${VARIANTS.join(', ')}): ${requests.summary}`,
		`- Expressions n8n evaluates per item: A ${requests.expressionsPerItem.A ?? '?'}, B ${requests.expressionsPerItem.B ?? '?'}, D ${requests.expressionsPerItem.D ?? '?'}`,
		`- Every figure: a fresh process, warmed up with ${WARMUP} items, then one measured run of N items; time per item = run time / N, median of the repetitions; memory = peak RSS (\`resourceUsage().maxRSS\`) minus the same process's peak with 0 items (${VARIANTS.map((v) => `${v} ${fixed(mb(baseline[v]), 0)} MB`).join(', ')})`,
		`- Send Window: A with Recipient Rules > Send Window From ${WINDOW.window.from} Until ${WINDOW.window.until} every day (open for every recipient; checked to send the same requests as without it) against A with every option off, both to the same phones over ${parts.window.spread.codes} calling codes (${parts.window.spread.lists} lists of zones, ${parts.window.spread.zones.length} zones), ${WINDOW.items.toLocaleString('en')} items, in pairs of fresh processes that alternate which goes first; on / off is the median of the pairs' ratios`,
		'',
		'### Send SMS, per item',
		'',
		'| Latency | Items | Reps | A ms/item | B ms/item | C ms/item | D ms/item | H ms/item | A/B | A/C | A/D | A/H | A MB | B MB | C MB | D MB | H MB |',
		'|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
	);
	for (const latency of LATENCIES) {
		for (const items of SIZES) {
			const [a, b, c, d, h] = VARIANTS.map((v) => perItem(latency, items, v));
			// Clamped: a run's peak can fall a little below its baseline's.
			const memory = VARIANTS.map((v) => fixed(Math.max(0, netMb(latency, items, v)), 0));
			add(
				`| ${latency} ms | ${items.toLocaleString('en')} | ${REPS[items]} | ${[a, b, c, d, h].map((v) => fixed(v, 3)).join(' | ')} | ${[b, c, d, h].map((v) => fixed(a / v)).join(' | ')} | ${memory.join(' | ')} |`,
			);
		}
	}

	const largest = SIZES[SIZES.length - 1];
	const otherMb = (row: OtherRow) => mb(row.rssKb - baseline[row.variant]);
	const floorMb = otherRows.filter((row) => row.variant === 'D').map(otherMb);
	add(
		'',
		`### Other runs at ${largest.toLocaleString('en')} items`,
		'',
		'| Latency | Run | ms/item | MB |',
		'|---:|---|---:|---:|',
		...otherRows.map(
			(row) =>
				`| ${row.latency} ms | ${row.label} | ${fixed(row.ms / largest, 3)} | ${fixed(otherMb(row), 0)} |`,
		),
	);
	const windowReport = sendWindowReport(parts.window);
	add('', ...windowReport.table);
	// The targets are set at 1,000 items and more: at 100, a run lasts a few milliseconds.
	const targetSizes = SIZES.filter((n) => n >= 1000);
	const ratiosAB = LATENCIES.flatMap((l) =>
		targetSizes.map((n) => perItem(l, n, 'A') / perItem(l, n, 'B')),
	);
	const ratiosAD = LATENCIES.flatMap((l) =>
		targetSizes.map((n) => perItem(l, n, 'A') / perItem(l, n, 'D')),
	);
	const ac = acTarget(
		perItem(AC_CELL.latency, AC_CELL.items, 'A') / perItem(AC_CELL.latency, AC_CELL.items, 'C'),
		perItem(AC_CELL.latency, AC_CELL.items, 'H') / perItem(AC_CELL.latency, AC_CELL.items, 'C'),
		parts.profile,
	);
	const scaling = LATENCIES.map((l) => perItem(l, largest, 'A') / perItem(l, 1000, 'A'));
	const memory = LATENCIES.map((l) => netMb(l, largest, 'A'));
	add(
		'',
		'### Targets',
		'',
		'| Target | Measured | |',
		'|---|---|---|',
		`| A/B ≤ 1.0 at ${targetSizes.map((n) => n.toLocaleString('en')).join(' and ')} items, 0 and 50 ms | ${fixed(Math.min(...ratiosAB))} to ${fixed(Math.max(...ratiosAB))} | ${verdict(Math.max(...ratiosAB) <= 1)} |`,
		`| A/D ≤ 1.15 at the same | ${fixed(Math.min(...ratiosAD))} to ${fixed(Math.max(...ratiosAD))} | ${verdict(Math.max(...ratiosAD) <= 1.15)} |`,
		ac,
		...(largest > 1000
			? [
					`| A per item at ${largest.toLocaleString('en')} ≤ 1.2 × at 1,000 | ${scaling.map((s, i) => `${fixed(s)} (${LATENCIES[i]} ms)`).join(', ')} | ${verdict(Math.max(...scaling) <= 1.2)} |`,
				]
			: []),
		windowReport.target,
		`| A peak memory at ${largest.toLocaleString('en')} items ≤ 150 MB above baseline | ${memory.map((m, i) => `${fixed(m, 0)} MB (${LATENCIES[i]} ms)`).join(', ')}; D, every item at once, ${LATENCIES.map((l) => `${fixed(netMb(l, largest, 'D'), 0)} MB`).join(', ')}; D without expressions, one request at a time (the floor of a node sending one request per item through n8n), ${floorMb.map((m) => `${fixed(m, 0)} MB`).join(', ')}; A's heap still in use after a full GC: ${LATENCIES.map((l) => `${fixed(liveMb(l, largest, 'A'), 0)} MB`).join(', ')} | ${verdict(Math.max(...memory) <= 150)} |`,
	);

	const pollingOk = polling.every(
		(p) => p.addedMs <= p.intervalMs + 250 && p.minGapMs >= p.baseMs - 50,
	);
	const long = polling.find((p) => p.runMs >= 5 * 60_000);
	add(
		`| Wait for Completion: ≤ 1 interval after completion, ≤ 1 request per interval | see below | ${verdict(pollingOk)} |`,
		`| Wait for Completion: the interval grows for long runs | ${long ? `${seconds(long.baseMs)} → ${seconds(long.intervalMs)} over 5 min` : 'not run'} | ${verdict(!!long && long.intervalMs > long.baseMs)} |`,
		...rateTargets(rateRows),
		'',
		...rateTable(rateRows),
		'',
		'### Loading and package',
		'',
		`- Load the package and build its description (n8n-core's \`PackageDirectoryLoader\` on the repo: require of \`dist/\`, request options added, description validated): **${fixed(load.loaderMs, 0)} ms** (median of ${load.runs} fresh processes); ${load.properties} top-level properties, ${fixed(load.descriptionBytes / 1024, 0)} KiB of description JSON. For scale, n8n-core with its expression engine takes ${fixed(load.engineMs, 0)} ms to load in the same process.`,
		`- Packed (\`npm pack --dry-run --json\`): ${fixed(pack.size / 1024, 1)} KiB, ${fixed(pack.unpackedSize / 1024, 1)} KiB unpacked, ${pack.entryCount} files, of which source maps ${fixed(pack.mapsBytes / 1024, 1)} KiB and type declarations ${fixed(pack.declarationsBytes / 1024, 1)} KiB unpacked.`,
		'',
		'### Researcher: Run with Wait for Completion',
		'',
		'"Added" is the time from the run completing in the service to the node returning it; "interval" is the wait before the poll that saw it complete; gaps are between consecutive requests (the first from the start of the run). Measured runs are allowed 250 ms for the last request and the engine.',
		'',
		'| Run | Poll interval | Source | Polls | Added after completion | Interval | Gaps min / max |',
		'|---:|---:|---|---:|---:|---:|---|',
		...polling.map(
			(p) =>
				`| ${seconds(p.runMs)} | ${seconds(p.baseMs)} | ${p.source} | ${p.polls} | ${seconds(p.addedMs)} | ${seconds(p.intervalMs)} | ${seconds(p.minGapMs)} / ${seconds(p.maxGapMs)} |`,
		),
	);
	if (parts.shared) add('', SHARED_START, parts.shared, SHARED_END);
	return lines.join('\n');
}

/**
 * Issue 6's target, A/C ≤ 1.5. Where it is missed, the row says whether any node could meet it: H
 * is the least a node pays that sends through n8n's request helpers, as n8n requires; with H/C
 * over 1.5 the target is out of every such node's reach, and A/H is what this node adds above that
 * floor. A's profile says where its time went; it does not make the miss n8n's.
 */
function acTarget(ac: number, hc: number, cpu: CpuShares): string {
	const shares: Array<[string, number]> = [
		["n8n's HTTP helper", cpu.helper],
		["Node's sockets and event loop", cpu.sockets],
		['native code', cpu.native],
		["n8n's engine", cpu.engine],
		['this node', cpu.node],
		['garbage collection', cpu.gc],
		['idle', cpu.idle],
		['other', cpu.other],
	];
	const where = `A/C ${fixed(ac)}; H/C ${fixed(hc)} (n8n's outbound HTTP alone); A/H ${fixed(ac / hc)}; A's time (profile): ${shares.map(([owner, share]) => `${owner} ${percent(share)}`).join(', ')}`;
	const status =
		ac <= 1.5
			? 'met'
			: hc > 1.5
				? "**missed**: out of reach of any node sending through n8n's helpers (H/C > 1.5)"
				: '**missed**';
	return `| A/C ≤ 1.5 at ${AC_CELL.items.toLocaleString('en')} items, ${AC_CELL.latency} ms | ${where} | ${status} |`;
}

type WindowParts = { spread: Spread; cells: WindowCell[]; profile?: FunctionShare[] };

/** The Send Window's table and its target's row. */
function sendWindowReport(window: WindowParts): { table: string[]; target: string } {
	const ratios = window.cells.map((cell) => median(cell.ratios));
	const cpuRatios = window.cells.map((cell) => median(cell.cpuRatios));
	const table = [
		`### Send Window at ${WINDOW.items.toLocaleString('en')} items`,
		'',
		'| Latency | Pairs | A, every option off, ms/item | A, Send Window on, ms/item | On / off, each pair | On / off | Worker CPU on / off, each pair | Worker CPU on / off | Load average before / after |',
		'|---:|---:|---:|---:|---|---:|---|---:|---|',
		...window.cells.map(
			(cell, i) =>
				`| ${cell.latency} ms | ${cell.ratios.length} | ${fixed(median(cell.off) / WINDOW.items, 3)} | ${fixed(median(cell.on) / WINDOW.items, 3)} | ${cell.ratios.map((r) => fixed(r, 3)).join(', ')} | ${fixed(ratios[i], 3)} | ${cell.cpuRatios.map((r) => fixed(r, 3)).join(', ')} | ${fixed(cpuRatios[i], 3)} | ${cell.load.map((l) => fixed(l)).join(' / ')} |`,
		),
	];
	// The window's own functions, the largest share first (check's, with its callees, holds the rest).
	const hot = (window.profile ?? [])
		.filter((f) => /^(recipientRules\/|checks\/phone\/zones)/.test(f.name) && f.total >= 0.0005)
		.slice(0, 6);
	const where = window.profile
		? `; profiled with it on at 0 ms, share of samples with callees / nearest of the package's frames: ${hot.length ? hot.map((f) => `\`${f.name}\` ${fixed(f.total * 100, 1)} % / ${fixed(f.self * 100, 1)} %`).join(', ') : 'none of recipientRules/ or checks/phone/zones.js over 0.05 %'}`
		: '';
	const cpu = cpuRatios.map((r, i) => `${fixed(r, 3)} (${window.cells[i].latency} ms)`).join(', ');
	const windowShare = hot[0]?.total ?? 0;
	const load = window.cells.flatMap((cell) => cell.load);
	const status =
		Math.max(...ratios) <= WINDOW.target
			? 'met'
			: window.profile && Math.max(...cpuRatios) <= WINDOW.target && windowShare < WINDOW.target - 1
				? `**missed** on wall time only: the worker's CPU time is within and the window's code ${fixed(windowShare * 100, 1)} % of the profile; the machine was loaded (1-minute load average ${fixed(Math.min(...load))} to ${fixed(Math.max(...load))}): run it again`
				: '**missed**';
	return {
		table,
		target: `| Send Window on / off at ${WINDOW.items.toLocaleString('en')} items ≤ ${WINDOW.target} | ${ratios.map((r, i) => `${fixed(r, 3)} (${window.cells[i].latency} ms)`).join(', ')}; the worker's CPU time, on / off: ${cpu}${where} | ${status} |`,
	};
}

const ideal = (row: RateRow) => (row.items / RATE.perSecond) * 1000;

/** Our node, with default settings, against the rate-limited service. */
function rateTargets(rows: RateRow[]): string[] {
	const ours = rows.filter((row) => row.label.startsWith('A,'));
	const exact = ours.every((row) => row.once === row.items && row.errorItems === 0 && !row.error);
	const perItem = Math.max(...ours.map((row) => row.requests / row.items));
	const time = Math.max(...ours.map((row) => row.ms / ideal(row)));
	const where = `${RATE.perSecond}/s, burst ${RATE.burst}, ${RATE_SIZES.map((n) => n.toLocaleString('en')).join(' and ')} SMS, with and without continue-on-fail`;
	return [
		`| Rate-limited (${where}): every phone once, 0 failed | ${ours.map((row) => `${row.once}/${row.items}`).join(', ')} once, ${ours.reduce((sum, row) => sum + row.errorItems, 0)} failed | ${verdict(exact)} |`,
		`| Rate-limited: ≤ 1.5 requests per item | ${fixed(perItem)} at most | ${verdict(perItem <= 1.5)} |`,
		`| Rate-limited: wall time ≤ 1.3 × items / rate | ${fixed(time)} × at most | ${verdict(time <= 1.3)} |`,
	];
}

function rateTable(rows: RateRow[]): string[] {
	return [
		`### Bulk sends against a rate-limited service`,
		'',
		`The sandbox allows ${RATE.perSecond} requests per second with a burst of ${RATE.burst} (a token bucket) and answers HTTP 429 with \`Retry-After\` beyond it, without carrying the request out. Each run: a fresh sandbox, a fresh process, N Send SMS items to distinct phones, no warm-up. "Ideal" is N / ${RATE.perSecond} per second.`,
		'',
		'| Items | Node and settings | Delivered once | More than once | Never | Error items | Execution | Requests per item | 429 answers | Wall time | × ideal |',
		'|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|',
		...rows.map(
			(row) =>
				`| ${row.items.toLocaleString('en')} | ${row.label} | ${row.once} | ${row.twice} | ${row.never} | ${row.errorItems} | ${row.error ? `failed: ${row.error.replace(/\|/g, '/').slice(0, 60)}` : 'succeeded'} | ${fixed(row.requests / row.items)} | ${row.refused} | ${seconds(row.ms)} | ${fixed(row.ms / ideal(row))} |`,
		),
	];
}

/** Replaces the shared-limit section only (inside the generated part; added at its end the first time). */
function writeSharedDoc(section: string): void {
	const current = readFileSync(DOC, 'utf8');
	const end = current.indexOf(END);
	if (end < 0) throw new Error(`${DOC} has no ${END}`);
	const start = current.indexOf(SHARED_START);
	const stop = current.indexOf(SHARED_END);
	const wrapped = `${SHARED_START}\n${section}\n${SHARED_END}`;
	const next =
		start >= 0 && stop > start
			? `${current.slice(0, start)}${wrapped}${current.slice(stop + SHARED_END.length)}`
			: `${current.slice(0, end)}\n${wrapped}\n${current.slice(end)}`;
	writeFileSync(DOC, next);
}

/** The shared-limit and outage tables: the request check, then each cell; the section's text. */
async function runShared(
	started: Date,
	quick: boolean,
): Promise<{ section: string; rows: SharedRow[]; header: string }> {
	const cells = selectCells(sharedCells(quick), ONLY);
	log(`shared limit and outages: ${cells.map((c) => c.id).join(', ')}`);
	// Skipped for single cells (--only), run while tuning: it takes a few seconds and nothing is written.
	let requests = 'not checked (--only)';
	if (!ONLY.length) {
		log('checking that A and B send the same requests for Send SMS and Inject CRM Lead');
		requests = await checkExecutionsRequests(spawnWorker);
		log(requests);
	}
	const sharedStarted = Date.now();
	const [loadBefore] = loadavg();
	const rows = await measureShared(cells, spawnWorker, log, TIMEOUT_MS);
	const command = ONLY.length
		? ` -- --only ${ONLY.join(',')}${WRITE ? ' --write' : ''}`
		: SHARED
			? ' -- --shared'
			: '';
	const header = `Generated by \`npm run bench${command}\` on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, these tables in ${fixed((Date.now() - sharedStarted) / 60_000, 1)} min (commit ${commit()}; ${machine()}; 1-minute load average ${fixed(loadBefore)} before them, ${fixed(loadavg()[0])} after; ${versions()}).`;
	return { section: sharedReport(rows, header, requests), rows, header };
}

function writeDoc(generated: string): void {
	const current = existsSync(DOC)
		? readFileSync(DOC, 'utf8')
		: `# Performance\n\n${START}\n${END}\n`;
	const start = current.indexOf(START);
	const end = current.indexOf(END);
	if (start < 0 || end < start)
		throw new Error(`${DOC} has no ${START} ... ${END} section to fill`);
	writeFileSync(
		DOC,
		`${current.slice(0, start + START.length)}\n${generated}\n${current.slice(end)}`,
	);
}

/** The spread's phones and the Send Window's requests checked: the spread. */
async function checkWindow(): Promise<Spread> {
	const spread = checkSpread(WINDOW.items + WARMUP);
	log(
		`Send Window: checking that A sends the same with it on and off (${SPREAD.length} kinds of phones, ${spread.codes} calling codes, ${spread.lists} lists of zones, ${spread.zones.length} zones)`,
	);
	await checkWindowRequests(spread);
	return spread;
}

/** `--window`: the Send Window's checks, pairs and table, printed. */
async function windowOnly(): Promise<void> {
	const spread = await checkWindow();
	const sandbox = await startSandbox({ port: 0, recordRequests: false });
	try {
		const cells = await measureWindow(sandbox, spread);
		const missed = cells.some((cell) => median(cell.ratios) > WINDOW.target);
		const profile =
			missed || ARGS.includes('--profile') ? await profileWindow(sandbox, spread) : undefined;
		const { table, target } = sendWindowReport({ spread, cells, profile });
		process.stdout.write(
			`${[...table, '', '| Target | Measured | |', '|---|---|---|', target].join('\n')}\n`,
		);
	} finally {
		await sandbox.close();
	}
}

async function main(): Promise<void> {
	const started = new Date();
	const [loadBefore] = loadavg();
	if (LIST) {
		for (const c of sharedCells(QUICK))
			process.stdout.write(
				`${c.id}\t${c.label}, ${c.job.executions} x ${c.job.itemsPerExecution}\t(tags: ${c.tags.join(' ')})\n`,
			);
		return;
	}
	if (RATE_ONLY) {
		await measureRateLimited();
		return;
	}
	if (WINDOW_ONLY) {
		await windowOnly();
		return;
	}
	if (SHARED) {
		const { section, rows, header } = await runShared(started, QUICK);
		process.stdout.write(`${section}\n`);
		if (WRITE && ONLY.length) {
			const current = readFileSync(DOC, 'utf8');
			const start = current.indexOf(SHARED_START);
			const stop = current.indexOf(SHARED_END);
			if (start < 0 || stop < start)
				throw new Error(`${DOC} has no shared section to write the CRM rows into`);
			writeSharedDoc(
				spliceCrm(current.slice(start + SHARED_START.length + 1, stop - 1), rows, header),
			);
			log(`written to ${DOC} (the CRM table, its targets and failure messages only)`);
		} else if (QUICK || ONLY.length)
			log(`${ONLY.length ? '--only' : '--quick'}: docs/PERFORMANCE.md left as it is`);
		else {
			writeSharedDoc(section);
			log(`written to ${DOC} (the shared-limit section only)`);
		}
		return;
	}
	log(`checking that ${VARIANTS.join(', ')} send the same requests`);
	const requests = await checkSameRequests();
	log(requests.summary);
	const spread = await checkWindow();
	const sandbox = await startSandbox({ port: 0, recordRequests: false });
	let cells: Map<string, Cell>;
	let baseline: Record<Variant, number>;
	let otherRows: OtherRow[];
	let profile: CpuShares;
	let windowCells: WindowCell[];
	let windowProfile: FunctionShare[] | undefined;
	try {
		baseline = await measureBaselines(sandbox);
		cells = await measureSends(sandbox);
		windowCells = await measureWindow(sandbox, spread);
		if (windowCells.some((cell) => median(cell.ratios) > WINDOW.target))
			windowProfile = await profileWindow(sandbox, spread);
		profile = await profileA(sandbox);
		otherRows = await measureOtherRuns(sandbox, SIZES[SIZES.length - 1]);
	} finally {
		await sandbox.close();
	}
	log(`bulk sends against a sandbox that allows ${RATE.perSecond}/s`);
	const rateRows = await measureRateLimited();
	log('load time and packed size');
	const load = await measureLoad();
	const pack = packedSize();
	log('researcher polling (the measured runs take about 30 s)');
	const measured = await Promise.all(
		QUICK ? [measurePolling(2000, 1)] : [measurePolling(2000, 1), measurePolling(30_000, 5)],
	);
	const polling = [
		...measured,
		...[2000, 30_000, 5 * 60_000].map((runMs) => simulatePolling(runMs, 5000)),
	];
	// --quick leaves them out: they take about 10 minutes (--shared --quick runs a short set).
	const shared = QUICK ? undefined : (await runShared(started, false)).section;
	const generated = report({
		started,
		loadBefore,
		elapsedMs: Date.now() - started.getTime(),
		requests,
		cells,
		baseline,
		load,
		pack,
		polling,
		rateRows,
		otherRows,
		shared,
		profile,
		window: { spread, cells: windowCells, profile: windowProfile },
	});
	process.stdout.write(`${generated}\n`);
	if (QUICK) log('--quick: docs/PERFORMANCE.md left as it is');
	else {
		writeDoc(generated);
		log(`written to ${DOC}`);
	}
}

main().catch((error: Error) => {
	process.stderr.write(`bench: ${error.stack ?? error.message}\n`);
	process.exit(1);
});
