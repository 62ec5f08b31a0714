// npx tsx sandbox/cli.ts [--port 8787] [--seed 1] [--token X] [--run-ms 3000] [--rate N [--burst N] [--max-concurrent N]]
//   [--outage-ms N --outage-at N] [--cut-after-commit N]
// Env: SANDBOX_PORT, SANDBOX_SEED, SANDBOX_TOKEN, SANDBOX_RUN_MS, SANDBOX_RATE, SANDBOX_BURST,
// SANDBOX_MAX_CONCURRENT, SANDBOX_OUTAGE_MS, SANDBOX_OUTAGE_AT, SANDBOX_CUT_AFTER_COMMIT. Flags win over env.
// --outage-ms N --outage-at T: once, T ms after it starts listening, stop listening for N ms.
// --cut-after-commit N: the next N requests of the send operations are carried out, then their
// connection is cut without an answer.
import { realClock } from './clock';
import { MAX_OUTAGE_MS } from './outage';
import { parseRateLimit, type RateLimit } from './rate-limit';
import { DEMO_TOKEN, SEND_OPERATION_IDS, startSandbox, type Sandbox } from './server';

function option(flag: string, env: string): string | undefined {
	const i = process.argv.indexOf(flag);
	return i >= 0 ? process.argv[i + 1] : process.env[env];
}

function fail(message: string): never {
	console.error(message);
	process.exit(2);
}

function integer(flag: string, env: string, fallback: number): number {
	const raw = option(flag, env);
	if (raw === undefined) return fallback;
	const n = Number(raw);
	if (!Number.isInteger(n) || n < 0) fail(`${flag} must be a non-negative integer, got ${raw}`);
	return n;
}

/** The rate limit of --rate, --burst and --max-concurrent; the burst is the rate unless given. */
function rateLimit(): RateLimit | undefined {
	const rate = option('--rate', 'SANDBOX_RATE');
	const burst = option('--burst', 'SANDBOX_BURST');
	const maxConcurrent = option('--max-concurrent', 'SANDBOX_MAX_CONCURRENT');
	if (rate === undefined) {
		if (burst !== undefined || maxConcurrent !== undefined)
			fail('--burst and --max-concurrent need --rate');
		return undefined;
	}
	const perSecond = Number(rate);
	const parsed = parseRateLimit({
		perSecond,
		// A fractional rate still needs a bucket of at least one whole request.
		burst: burst === undefined ? Math.max(1, Math.ceil(perSecond) || 1) : Number(burst),
		...(maxConcurrent !== undefined && { maxConcurrent: Number(maxConcurrent) }),
	});
	if ('error' in parsed) fail(`--rate, --burst, --max-concurrent: ${parsed.error}`);
	return parsed.limit ?? undefined;
}

/** The outage of --outage-ms and --outage-at; each needs the other (an outage at once is rarely what one wants). */
function outagePlan(): { ms: number; at: number } | undefined {
	const given = [
		option('--outage-ms', 'SANDBOX_OUTAGE_MS'),
		option('--outage-at', 'SANDBOX_OUTAGE_AT'),
	];
	if (given.every((v) => v === undefined)) return undefined;
	if (given.some((v) => v === undefined))
		fail('--outage-ms (how long) and --outage-at (ms after start) go together');
	const ms = integer('--outage-ms', 'SANDBOX_OUTAGE_MS', 0);
	const at = integer('--outage-at', 'SANDBOX_OUTAGE_AT', 0);
	if (ms > MAX_OUTAGE_MS || at > MAX_OUTAGE_MS)
		fail(`--outage-ms and --outage-at must be at most ${MAX_OUTAGE_MS}`);
	return { ms, at };
}

function scheduleOutage(sandbox: Sandbox, plan: { ms: number; at: number }): void {
	console.log(
		`Outage: not listening from ${new Date(realClock.now() + plan.at).toISOString()} (in ${plan.at} ms) for ${plan.ms} ms`,
	);
	realClock.after(plan.at, () => {
		console.log(`Outage: stopped listening for ${plan.ms} ms`);
		sandbox.outage(plan.ms).then(
			() => console.log(`Outage over: listening again on ${sandbox.url}`),
			(err: Error) => console.error(err.message),
		);
	});
}

async function main(): Promise<void> {
	const outage = outagePlan();
	const cuts = integer('--cut-after-commit', 'SANDBOX_CUT_AFTER_COMMIT', 0);
	const sandbox = await startSandbox({
		port: integer('--port', 'SANDBOX_PORT', 8787),
		seed: integer('--seed', 'SANDBOX_SEED', 1),
		token: option('--token', 'SANDBOX_TOKEN') ?? DEMO_TOKEN,
		researcherRunMs: integer('--run-ms', 'SANDBOX_RUN_MS', 3000),
		rateLimit: rateLimit(),
		// A long-running sandbox keeps counters only, not every request.
		recordRequests: false,
	});
	console.log(`Sandbox listening on ${sandbox.url}`);
	console.log(
		`Inbox: ${sandbox.inboxUrl} (every message sent, newest first, with its links; short links are ${sandbox.shortLinkBase}/<idUrl>)`,
	);
	console.log(`Token: ${sandbox.token}`);
	const limit = sandbox.rateLimit;
	if (limit) {
		const concurrent =
			limit.maxConcurrent === undefined ? '' : `, at most ${limit.maxConcurrent} at once`;
		console.log(`Rate limit: ${limit.perSecond} requests/s, burst ${limit.burst}${concurrent}`);
	}
	if (cuts > 0) {
		sandbox.injectFault({
			kind: 'cutAfterCommit',
			match: { operationId: SEND_OPERATION_IDS },
			times: cuts,
		});
		console.log(
			`Cut after commit: the next ${cuts} sends (${SEND_OPERATION_IDS.join(', ')}) are carried out, then cut without an answer`,
		);
	}
	if (outage) scheduleOutage(sandbox, outage);
	console.log(
		`Controls: ${sandbox.url}/__sandbox/{requests,messages,faults,rate-limit,outage,rotate-token,reset}`,
	);
	const stop = () => {
		sandbox.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((err) => {
	console.error(err.message);
	process.exit(1);
});
