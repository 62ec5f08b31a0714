// npx tsx sandbox/cli.ts [--port 8787] [--seed 1] [--token X] [--run-ms 3000] [--rate N [--burst N] [--max-concurrent N]]
// Env: SANDBOX_PORT, SANDBOX_SEED, SANDBOX_TOKEN, SANDBOX_RUN_MS, SANDBOX_RATE, SANDBOX_BURST,
// SANDBOX_MAX_CONCURRENT. Flags win over env.
import { parseRateLimit, type RateLimit } from './rate-limit';
import { DEMO_TOKEN, startSandbox } from './server';

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
		if (burst !== undefined || maxConcurrent !== undefined) fail('--burst and --max-concurrent need --rate');
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

async function main(): Promise<void> {
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
	console.log(`Token: ${sandbox.token}`);
	const limit = sandbox.rateLimit;
	if (limit) {
		const concurrent = limit.maxConcurrent === undefined ? '' : `, at most ${limit.maxConcurrent} at once`;
		console.log(`Rate limit: ${limit.perSecond} requests/s, burst ${limit.burst}${concurrent}`);
	}
	console.log(`Controls: ${sandbox.url}/__sandbox/{requests,faults,rate-limit,rotate-token,reset}`);
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
