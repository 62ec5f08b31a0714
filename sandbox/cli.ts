// npx tsx sandbox/cli.ts [--port 8787] [--seed 1] [--token X] [--run-ms 3000]
// Env: SANDBOX_PORT, SANDBOX_SEED, SANDBOX_TOKEN, SANDBOX_RUN_MS. Flags win over env.
import { DEMO_TOKEN, startSandbox } from './server';

function option(flag: string, env: string): string | undefined {
	const i = process.argv.indexOf(flag);
	return i >= 0 ? process.argv[i + 1] : process.env[env];
}

function integer(flag: string, env: string, fallback: number): number {
	const raw = option(flag, env);
	if (raw === undefined) return fallback;
	const n = Number(raw);
	if (!Number.isInteger(n) || n < 0) {
		console.error(`${flag} must be a non-negative integer, got ${raw}`);
		process.exit(2);
	}
	return n;
}

async function main(): Promise<void> {
	const sandbox = await startSandbox({
		port: integer('--port', 'SANDBOX_PORT', 8787),
		seed: integer('--seed', 'SANDBOX_SEED', 1),
		token: option('--token', 'SANDBOX_TOKEN') ?? DEMO_TOKEN,
		researcherRunMs: integer('--run-ms', 'SANDBOX_RUN_MS', 3000),
		// A long-running sandbox keeps counters only, not every request.
		recordRequests: false,
	});
	console.log(`Sandbox listening on ${sandbox.url}`);
	console.log(`Token: ${sandbox.token}`);
	console.log(`Controls: ${sandbox.url}/__sandbox/{requests,faults,rotate-token,reset}`);
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
