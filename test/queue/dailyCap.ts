/**
 * The daily cap phase of the queue run: Max Messages per Person per Day (Recipient Rules) holds
 * when two workers send for the same workflow at once. Two executions of one workflow (Webhook →
 * Split Out → Send SMS with Max Messages per Person per Day 1), each to the same PHONES phones,
 * are started together by two webhook calls, so that each worker takes one and both run at the
 * same time; the count lives in n8n's processed-data store, in PostgreSQL, which both workers
 * share (how many each sends is whichever claims first: the total is what is checked). Then each phone has received exactly one SMS, and every other item came out skipped with
 * rule maxPerDay. Redis hands the two jobs to the two workers when both are idle, but nothing
 * promises it: a try whose executions ran on one worker, or one after the other, is checked the
 * same way and followed by another with new phones (at most TRIES).
 */
import type { Sandbox } from '../../sandbox/server';
import type { N8nServer } from '../e2e/lib/n8n';
import { until, webhookBulkSmsWorkflow } from '../e2e/lib/n8n';

export const CAP_WORKFLOW_ID = 'cmQueueDailyCap1';
const CAP_PATH = 'cm-queue-daily-cap';
const PHONES = 200;
const TRIES = 3;

/** Send SMS with Max Messages per Person per Day 1; each message names its execution and instance. */
export function capWorkflow(credential: { id: string; name: string }) {
	const workflow = webhookBulkSmsWorkflow({
		id: CAP_WORKFLOW_ID,
		name: 'Queue mode: bulk SMS, one a day per person',
		path: CAP_PATH,
		credential,
		instance: 'sms-line',
		message: '={{ $json.text }} (execution {{ $execution.id }} on {{ $env.CM_QUEUE_INSTANCE }})',
		settings: { onError: 'continueRegularOutput' },
	});
	const nodes = workflow.nodes.map((node) =>
		node.name === 'Send SMS'
			? { ...node, parameters: { ...node.parameters, messagingRecipientRules: { maxPerDay: 1 } } }
			: node,
	);
	return { ...workflow, nodes };
}

export interface CapContext {
	sandbox: Sandbox;
	main: N8nServer;
	workers: N8nServer[];
	/** Each worker's name (CM_QUEUE_INSTANCE), in the order of `workers`. */
	names: string[];
	sql: (query: string) => Promise<string[][]>;
	check: (name: string, ok: boolean, detail?: string) => void;
	note: (message: string) => void;
}

export interface CapTry {
	/** The two executions: id, the worker that ran it, its items sent and skipped by the cap. */
	executions: Array<{ id: string; worker: string; sent: number; capped: number; other: number }>;
	/** Both executions running at the same time, by their stored start and stop. */
	overlapMs: number;
	/** Phones that received one SMS, more than one, none. */
	once: number;
	twice: number;
	none: number;
	ms: number;
}

export interface CapFigures {
	phones: number;
	tries: CapTry[];
}

const phoneOf = (attempt: number, index: number) =>
	`5738${attempt}${String(index).padStart(7, '0')}`;
const MESSAGE_BODY = /^cap(\d)-\d+ \(execution (\d+) on ([\w-]+)\)$/;

/** The execution ids a worker's log says it started. */
const startedBy = (worker: N8nServer) =>
	new Set([...worker.log().matchAll(/Worker started execution (\d+) /g)].map((match) => match[1]));

interface WebhookItem {
	id?: unknown;
	to?: unknown;
	sent?: unknown;
	skipped?: { rule?: unknown; recipient?: unknown };
}

async function call(url: string, attempt: number, call: number): Promise<WebhookItem[]> {
	const contacts = Array.from({ length: PHONES }, (_, index) => ({
		phone: phoneOf(attempt, index),
		text: `cap${attempt}-${index}`,
	}));
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ call, contacts }),
		signal: AbortSignal.timeout(120_000),
	});
	const text = await response.text();
	if (response.status !== 200)
		throw new Error(`daily cap call ${call}: HTTP ${response.status} ${text}`);
	return JSON.parse(text) as WebhookItem[];
}

async function oneTry(ctx: CapContext, attempt: number): Promise<CapTry> {
	const { sandbox, sql } = ctx;
	const url = `${ctx.main.url}/webhook/${CAP_PATH}`;
	const after = Number((await sql('SELECT coalesce(max(id), 0) FROM execution_entity'))[0][0]);
	const began = Date.now();
	const answers = await Promise.all([call(url, attempt, 1), call(url, attempt, 2)]);
	const ms = Date.now() - began;
	const rows = await until(
		'the two executions of the daily cap workflow to finish',
		async () => {
			const found = await sql(
				`SELECT id, status, extract(epoch from "startedAt") * 1000, extract(epoch from "stoppedAt") * 1000 FROM execution_entity WHERE "workflowId" = '${CAP_WORKFLOW_ID}' AND id > ${after} ORDER BY id`,
			);
			return found.length === 2 && found.every(([, status]) => status === 'success')
				? found
				: undefined;
		},
		60_000,
	);
	const overlapMs =
		Math.min(...rows.map((row) => Number(row[3]))) - Math.max(...rows.map((row) => Number(row[2])));
	// Which execution answered which call: the id its sent messages carry, else the one left.
	const received = new Map<string, number>();
	const executionOf = new Map<string, string>();
	for (const message of sandbox.state.sentMessages.values()) {
		const match = MESSAGE_BODY.exec(message.body);
		if (!match || Number(match[1]) !== attempt) continue;
		received.set(message.to, (received.get(message.to) ?? 0) + 1);
		executionOf.set(message.id, match[2]);
	}
	const ids = rows.map(([id]) => id);
	const executions = answers.map((items) => {
		const sentIds = items
			.filter((item) => typeof item.id === 'string')
			.map((item) => String(item.id));
		const id = executionOf.get(sentIds[0] ?? '');
		return {
			id,
			sent: sentIds.length,
			capped: items.filter((item) => item.sent === false && item.skipped?.rule === 'maxPerDay')
				.length,
			other: items.length - sentIds.length,
		};
	});
	// An execution that sent nothing is the other one.
	for (const execution of executions)
		execution.id ??= ids.find((id) => !executions.some((other) => other.id === id));
	const logs = ctx.workers.map(startedBy);
	const phones = Array.from({ length: PHONES }, (_, index) => phoneOf(attempt, index));
	return {
		executions: executions.map(({ id, sent, capped, other }) => ({
			id: id ?? '?',
			worker: ctx.names.filter((_, i) => id !== undefined && logs[i].has(id)).join('+') || '?',
			sent,
			capped,
			other: other - capped,
		})),
		overlapMs,
		once: phones.filter((phone) => received.get(phone) === 1).length,
		twice: phones.filter((phone) => (received.get(phone) ?? 0) > 1).length,
		none: phones.filter((phone) => !received.has(phone)).length,
		ms,
	};
}

const describeTry = (t: CapTry) =>
	`${t.executions
		.map(
			(e) =>
				`execution ${e.id} on ${e.worker}: ${e.sent} sent, ${e.capped} skipped maxPerDay, ${e.other} other`,
		)
		.join(
			'; ',
		)}; running together ${(t.overlapMs / 1000).toFixed(1)} s; phones once ${t.once}, more than once ${t.twice}, none ${t.none}; answered in ${(t.ms / 1000).toFixed(1)} s`;

export async function capPhase(ctx: CapContext): Promise<CapFigures> {
	const { check, note } = ctx;
	const tries: CapTry[] = [];
	const apart = (t: CapTry) =>
		new Set(t.executions.map((e) => e.worker)).size === 2 &&
		t.executions.every((e) => ctx.names.includes(e.worker)) &&
		t.overlapMs > 0;
	for (let attempt = 1; attempt <= TRIES; attempt++) {
		note(
			`daily cap: two executions of Send SMS (Max Messages per Person per Day 1) to the same ${PHONES} phones at once (try ${attempt})`,
		);
		const t = await oneTry(ctx, attempt);
		tries.push(t);
		note(`daily cap, try ${attempt}: ${describeTry(t)}`);
		if (apart(t)) break;
	}
	const last = tries[tries.length - 1];
	check(
		'daily cap: two executions of one workflow, started together, ran at the same time on the two workers',
		apart(last),
		`${tries.length} ${tries.length === 1 ? 'try' : 'tries'}; the last: ${last.executions.map((e) => `execution ${e.id} on ${e.worker}`).join(', ')}, running together ${(last.overlapMs / 1000).toFixed(1)} s`,
	);
	const held = (t: CapTry) =>
		t.once === PHONES &&
		t.twice === 0 &&
		t.none === 0 &&
		t.executions.reduce((n, e) => n + e.sent, 0) === PHONES &&
		t.executions.reduce((n, e) => n + e.capped, 0) === PHONES &&
		t.executions.every((e) => e.sent + e.capped === PHONES && e.other === 0);
	check(
		`daily cap: each of the ${PHONES} phones received exactly one SMS, and every other item came out skipped with rule maxPerDay`,
		tries.every(held),
		tries.map((t, i) => `try ${i + 1}: ${describeTry(t)}`).join(' | '),
	);
	return { phones: PHONES, tries };
}
