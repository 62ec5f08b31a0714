/**
 * The research loop example (examples/scheduled-research-without-holding-a-worker.json) in real
 * n8n, `n8n start`, stopped and started again while its execution waits: the wait is in the
 * database, so the execution resumes after the restart, checks the run until it is complete and
 * keeps the report, and the service saw one run. The same restart under the weekly example
 * (Run with Wait for Completion, polling inside the execution) loses its execution: n8n marks it
 * crashed, and nothing reads the research, which goes on in the service.
 *
 * The runnable copy differs from the file in two ways, both to keep the test to a few minutes: a
 * Webhook of the same name in place of the Schedule Trigger (a test cannot wait for 07:00), and a
 * Wait of 70 s instead of 2 minutes (still over the 65 s from which n8n keeps a waiting execution
 * in the database, not in the process). The sandbox's run goes on until the first check after
 * the restart has found it running; then the service finishes it, and the second check, 70 s
 * later, finds it complete: the loop is seen going round whatever the restart takes.
 */
import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import type { ExampleWorkflow } from './lib/examples';
import { withWebhook } from './lib/examples';
import type { N8nServer } from './lib/n8n';
import {
	createUserFolder,
	executionStatus,
	importJson,
	N8N_MAJOR,
	removeUserFolder,
	RestSession,
	sandboxCredential,
	settledExecution,
	startByWebhook,
	startN8n,
	until,
} from './lib/n8n';

/** Longer than the test: the test ends the run itself (finishRuns). */
const RUN_MS = 60 * 60_000;
const WAIT_SECONDS = 70;
const WEBHOOK_PATH = 'research-restart';
/** The weekly example (Run with Wait for Completion), for the same restart. */
const POLLING_PATH = 'research-restart-polling';

function runnableExample(): ExampleWorkflow {
	const example = withWebhook('scheduled-research-without-holding-a-worker.json', WEBHOOK_PATH);
	const nodes = example.nodes.map((node) => {
		if (node.type === 'n8n-nodes-base.wait') {
			expect(node.parameters).toEqual({ amount: 2, unit: 'minutes' });
			return { ...node, parameters: { amount: WAIT_SECONDS, unit: 'seconds' } };
		}
		return node;
	});
	return { ...example, nodes };
}

interface StoredRun {
	resultData: {
		error?: { message?: string };
		runData: Record<
			string,
			Array<{ startTime: number; data?: { main: Array<Array<{ json: Record<string, unknown> }>> } }>
		>;
	};
}

let sandbox: Sandbox;

/** The service finishes every research run now. */
function finishRuns(): void {
	for (const researcher of sandbox.state.researchers.values())
		if (researcher.run)
			researcher.run.ms = Math.min(researcher.run.ms, Date.now() - researcher.run.startedAt);
}
let server: N8nServer | undefined;
let userFolder: string;
/** Every n8n log of this file, for a failure's message. */
const logs: string[] = [];
const context = () =>
	`\n${[...logs, server?.log() ?? ''].join('\n--- restart ---\n').slice(-6000)}`;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, researcherRunMs: RUN_MS });
	userFolder = createUserFolder({ install: 'copy' });
	await importJson('credentials', [sandboxCredential(sandbox.url, sandbox.token)], { userFolder });
	await importJson(
		'workflow',
		[runnableExample(), withWebhook('scheduled-researcher-run.json', POLLING_PATH)],
		{ userFolder },
	);
}, 120_000);

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

// The example's Set 3.5 (and Schedule Trigger 1.4, swapped for a Webhook here) are n8n 2.x's: 1.x has neither.
const describe2x = N8N_MAJOR >= 2 ? describe : describe.skip;

describe2x('research without holding a worker, across an n8n restart', () => {
	it(
		'the execution waits in the database, resumes after n8n restarts, and keeps the report of the one run',
		async () => {
			const { id: workflowId } = runnableExample();
			server = await startN8n({ userFolder });
			let session = await RestSession.asOwner(server.url);
			await session.activate(workflowId);
			const executionId = await startByWebhook(session, {
				path: WEBHOOK_PATH,
				workflowId,
				body: {},
				ms: 60_000,
				context,
			});

			// Run started, then the Wait: over 65 s, so n8n stores the execution as waiting.
			await until(
				'the execution to wait',
				async () =>
					(await executionStatus(session, executionId)) === 'waiting' ? true : undefined,
				60_000,
				context,
			);
			expect(sandbox.stats().byOperation).toMatchObject({
				researcherCreate: 1,
				researcherAddFiles: 1,
				researcherRun: 1,
			});
			expect(sandbox.stats().byOperation.researcherGet ?? 0).toBe(0);

			// SIGTERM, as a deploy or a container stop would; n8n gone before the first check.
			await server.stop();
			logs.push(server.log());
			const stopped = Date.now();
			expect(sandbox.stats().byOperation.researcherGet ?? 0).toBe(0);

			server = await startN8n({ userFolder });
			session = await RestSession.asOwner(server.url);
			// The first check, in the n8n started again, finds the run going on; then it ends.
			await until(
				'the first check',
				() => ((sandbox.stats().byOperation.researcherGet ?? 0) >= 1 ? true : undefined),
				3 * 60_000,
				context,
			);
			finishRuns();
			const { status, run } = await settledExecution<StoredRun>(session, executionId, {
				ms: 3 * 60_000,
				context,
			});
			expect({ status, error: run.resultData.error?.message }).toEqual({
				status: 'success',
				error: undefined,
			});

			const checks = run.resultData.runData['Check Research'];
			expect(checks.map((task) => task.data?.main[0][0].json.complete)).toEqual([false, true]);
			// Every check ran after the restart, in the n8n started again.
			expect(checks[0].startTime).toBeGreaterThan(stopped);

			const [created] = run.resultData.runData['Create Researcher'][0].data!.main[0].map(
				(item) => item.json,
			);
			const report = run.resultData.runData['Keep Report'][0].data!.main[0].map(
				(item) => item.json,
			);
			const finished = sandbox.researcherView(String(created.id));
			expect(report).toEqual([
				{
					researcherId: created.id,
					name: finished?.name,
					report: finished?.output,
					format: 'markdown',
					finishedAt: finished?.updated,
				},
			]);
			expect(String(report[0].report)).toContain('Competitor B offers');

			const calls = sandbox.stats().byOperation;
			expect({
				researcherCreate: calls.researcherCreate,
				researcherAddFiles: calls.researcherAddFiles,
				researcherRun: calls.researcherRun,
				researcherGet: calls.researcherGet,
			}).toEqual({
				researcherCreate: 1,
				researcherAddFiles: 1,
				researcherRun: 1,
				researcherGet: 2,
			});
			expect(sandbox.stats().lastViolations).toEqual([]);
		},
		10 * 60_000,
	);

	it(
		'the same restart loses an execution that waits with Wait for Completion: the research goes on, nothing reads it',
		async () => {
			const { id: workflowId } = withWebhook('scheduled-researcher-run.json', POLLING_PATH);
			// Run alone (jest -t), this test starts its n8n.
			server ??= await startN8n({ userFolder });
			let session = await RestSession.asOwner(server.url);
			await session.activate(workflowId);
			const before = { ...sandbox.stats().byOperation };
			const made = (operation: string) =>
				(sandbox.stats().byOperation[operation] ?? 0) - (before[operation] ?? 0);
			const executionId = await startByWebhook(session, {
				path: POLLING_PATH,
				workflowId,
				body: {},
				ms: 60_000,
				context,
			});
			// Polling inside the execution (first poll after 5 s): it runs, holding its slot.
			await until(
				'the first poll',
				() => (made('researcherGet') >= 1 ? true : undefined),
				60_000,
				context,
			);
			expect(await executionStatus(session, executionId)).toBe('running');
			expect(made('researcherRun')).toBe(1);

			// SIGTERM: n8n waits for running executions; lib/n8n's stop() sends SIGKILL after 10 s,
			// as `docker stop` does.
			await server.stop();
			logs.push(server.log());
			server = await startN8n({ userFolder });
			session = await RestSession.asOwner(server.url);
			const polls = made('researcherGet');
			const { status, run } = await settledExecution<StoredRun>(session, executionId, {
				ms: 60_000,
				context,
			});
			expect(status).toBe('crashed');
			expect(run?.resultData.runData['Keep Report']).toBeUndefined();
			// Nothing polls any more; the research goes on in the service.
			await new Promise((resolve) => setTimeout(resolve, 12_000));
			expect(made('researcherGet')).toBe(polls);
			expect(made('researcherRun')).toBe(1);
		},
		5 * 60_000,
	);
});
