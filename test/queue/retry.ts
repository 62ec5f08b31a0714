/**
 * The retry phase of the queue run: a bulk send that stops part-way on one worker (the service
 * refuses item 6, On Error: Stop), then n8n's Retry of that execution (the Executions list's
 * `POST /rest/executions/:id/retry`) run by the other worker: the worker that failed is stopped
 * while the retry is queued and run, so only the other can take it, then replaced. Every phone gets
 * its message once, and the retry's output has every item, the accepted ones with their first
 * message ids.
 */
import type { Sandbox } from '../../sandbox/server';
import type { N8nServer, RestSession } from '../e2e/lib/n8n';
import { until, webhookBulkSmsWorkflow } from '../e2e/lib/n8n';

export const RETRY_WORKFLOW_ID = 'cmQueueRetry0001';
const RETRY_PATH = 'cm-queue-retry-after-stop';
const CONTACTS = 300;
const REFUSED = 5;

/** Send SMS that stops on the first failure; each message names the instance that sent it. */
export function retryWorkflow(credential: { id: string; name: string }) {
	return webhookBulkSmsWorkflow({
		id: RETRY_WORKFLOW_ID,
		name: 'Queue mode: bulk SMS that stops part-way',
		path: RETRY_PATH,
		credential,
		instance: 'sms-line',
		message: '={{ $json.text }} on {{ $env.CM_QUEUE_INSTANCE }}',
		settings: {},
	});
}

export interface RetryContext {
	sandbox: Sandbox;
	main: N8nServer;
	workers: N8nServer[];
	/** Each worker's name (CM_QUEUE_INSTANCE), in the order of `workers`. */
	names: string[];
	session: RestSession;
	sql: (query: string) => Promise<string[][]>;
	/** Starts a new worker in place of `workers[index]` (stopped), under the same name. */
	replaceWorker: (index: number) => Promise<void>;
	check: (name: string, ok: boolean, detail?: string) => void;
	note: (message: string) => void;
}

export interface RetryFigures {
	accepted: number;
	failedOn: string;
	retriedOn: string;
	once: number;
	twice: number;
	outputs: number;
	firstIdsKept: number;
}

const phoneOf = (index: number) => `5739${String(index).padStart(8, '0')}`;

/** What the service recorded for this phase: the messages to each phone, and who sent them. */
function delivered(sandbox: Sandbox) {
	const byPhone = new Map<string, Array<{ id: string; sender: string }>>();
	for (const message of sandbox.state.sentMessages.values()) {
		if (!message.to.startsWith('5739') || !message.body.startsWith('retry-')) continue;
		const sender = message.body.split(' on ').pop() ?? '';
		byPhone.set(message.to, [...(byPhone.get(message.to) ?? []), { id: message.id, sender }]);
	}
	return byPhone;
}

export async function retryPhase(ctx: RetryContext): Promise<RetryFigures> {
	const { sandbox, session, sql, check, note } = ctx;
	const contacts = Array.from({ length: CONTACTS }, (_, index) => ({
		phone: phoneOf(index),
		text: `retry-${index}`,
	}));
	note(`retry: ${CONTACTS} SMS, the service refuses item ${REFUSED + 1} once; then Retry`);
	sandbox.injectFault({
		kind: 'errTrue',
		message: 'body.to is not a number this line can reach',
		times: 1,
		match: { path: '/v1/sms', body: { to: contacts[REFUSED].phone } },
	});
	const last = async () =>
		Number((await sql('SELECT coalesce(max(id), 0) FROM execution_entity'))[0][0]);
	const settled = async (after: number) =>
		await until(
			`an execution of the retry workflow after ${after}, finished`,
			async () => {
				const rows = await sql(
					`SELECT id, status FROM execution_entity WHERE "workflowId" = '${RETRY_WORKFLOW_ID}' AND id > ${after} ORDER BY id`,
				);
				const row = rows[0];
				return row && !['new', 'running', 'waiting'].includes(row[1])
					? { id: row[0], status: row[1] }
					: undefined;
			},
			120_000,
		);
	let after = await last();
	const answer = await until('the retry webhook to start an execution', async () => {
		const response = await fetch(`${ctx.main.url}/webhook/${RETRY_PATH}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ contacts }),
		});
		await response.text();
		return response.status === 404 ? undefined : response.status;
	});
	const failed = await settled(after);
	const first = delivered(sandbox);
	const accepted = first.size;
	const failedOn = [...new Set([...first.values()].flat().map(({ sender }) => sender))].join(', ');
	const stored = (
		await sql(`SELECT data FROM execution_data WHERE "executionId" = ${failed.id}`)
	)[0]?.[0];
	const counted = `${accepted} of ${CONTACTS} items were sent and ${CONTACTS - accepted} were not sent`;
	check(
		`retry: the execution failed (webhook HTTP ${answer}) with an error counting what the service accepted`,
		failed.status === 'error' && accepted > 0 && (stored ?? '').includes(counted),
		`execution ${failed.id} ${failed.status} on ${failedOn}: "${counted}" ${stored?.includes(counted) ? 'in' : 'not in'} its stored error`,
	);

	// The worker that ran it stops (SIGTERM, idle): the retry can only be taken by the other. A
	// paused worker would not do: Redis hands a new job to a worker blocked waiting for one,
	// running or not. A new worker of the same name takes its place afterwards.
	const failedWorker = ctx.names.indexOf(failedOn);
	after = await last();
	if (failedWorker >= 0) await ctx.workers[failedWorker].stop();
	try {
		await session.request('POST', `/rest/executions/${failed.id}/retry`, { loadWorkflow: false });
	} finally {
		if (failedWorker >= 0) await ctx.replaceWorker(failedWorker);
	}
	const retried = await settled(after);
	const all = delivered(sandbox);
	const once = [...all.values()].filter((messages) => messages.length === 1).length;
	const twice = [...all.values()].filter((messages) => messages.length > 1).length;
	const retriedOn = [
		...new Set(
			[...all.entries()]
				.filter(([phone]) => !first.has(phone))
				.flatMap(([, messages]) => messages.map(({ sender }) => sender)),
		),
	].join(', ');
	check(
		'retry: the retry ran on the other worker, reached every phone once, none twice',
		retried.status === 'success' &&
			failedWorker >= 0 &&
			retriedOn !== '' &&
			!retriedOn.includes(failedOn) &&
			once === CONTACTS &&
			twice === 0,
		`execution ${retried.id} ${retried.status} on ${retriedOn} (failed on ${failedOn}): ${once} phones once, ${twice} twice`,
	);
	const { execution } = await session
		.request<{ data: { data: string } }>('GET', `/rest/executions/${retried.id}`)
		.then((response) => ({ execution: response.data }));
	// Each accepted message's id appears in the retry's stored output, with its mark.
	const output = execution.data;
	const firstIdsKept = [...first.values()].filter(([message]) =>
		output.includes(`"${message.id}"`),
	).length;
	const marks = output.split('"alreadySent"').length - 1;
	check(
		"retry: the retry's output keeps the first message ids of the items accepted before the stop",
		firstIdsKept === accepted && marks >= 1,
		`${firstIdsKept} of ${accepted} first ids in the stored output, alreadySent ${marks > 0 ? 'present' : 'absent'}`,
	);
	return { accepted, failedOn, retriedOn, once, twice, outputs: CONTACTS, firstIdsKept };
}
