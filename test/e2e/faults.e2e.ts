/**
 * A representative subset of the fault matrix (test/reliability/faults.test.ts) in real n8n
 * 2.41.1: bulk Send SMS behind a webhook (one `n8n start` for the file, executions triggered over
 * HTTP), with continue-on-fail, stopping on fail, and with Retry On Fail. Each case is checked in
 * the webhook's answer, in the execution n8n stored (read back through its REST API) and in the
 * sandbox's record of what it sent. Then every execution n8n stored, every file in its user
 * folder (the SQLite database with its WAL, the event log) and its process log are searched for
 * the canary token.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';

import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { tokenWhereDocumented } from '../reliability/leaks';
import { SERVICE_FAULTS } from '../reliability/fault-cases';
import { canaryToken } from '../reliability/results';
import type { ExecutionSummary, N8nServer } from './lib/n8n';
import {
	createUserFolder,
	getExecution,
	importJson,
	listExecutions,
	removeUserFolder,
	RestSession,
	sandboxCredential,
	startN8n,
	webhookBulkSmsWorkflow,
} from './lib/n8n';

const token = canaryToken();
const credential = sandboxCredential('', token, 'cmFaultsCred0001');
const CONTACTS = 5;
/** With continue-on-fail, the fault hits the first requests to arrive and spares the others. */
const FAILING = 2;
const WAIT_BETWEEN_TRIES_MS = 100;

type Mode = 'continue' | 'stop' | 'retry';
const MODES: Mode[] = ['continue', 'stop', 'retry'];
const SETTINGS: Record<Mode, Record<string, unknown>> = {
	continue: { onError: 'continueRegularOutput' },
	stop: {},
	// n8n keeps maxTries within 2..5 and waitBetweenTries within 0..5000 ms, and reads 0 as 1000.
	retry: { retryOnFail: true, maxTries: 3, waitBetweenTries: WAIT_BETWEEN_TRIES_MS },
};
const workflowId = (mode: Mode) => `cmFaults${mode.padEnd(8, '0')}`;

const bulkSms = (mode: Mode) =>
	webhookBulkSmsWorkflow({
		id: workflowId(mode),
		name: `Faults: bulk SMS (${mode})`,
		path: `faults-${mode}`,
		credential: { id: credential.id, name: credential.name },
		instance: 'line-1',
		message: '={{ $json.text }}',
		settings: SETTINGS[mode],
	});

/** The faults of the engine's matrix that a webhook call can meet in real n8n, with the same expected messages. */
const IN_REAL_N8N = [
	'HTTP 500',
	'HTTP 502 with an HTML body',
	'HTTP 429 with Retry-After',
	'Connection dropped mid-response',
	'Malformed JSON body',
	'err: true on HTTP 200',
	'Envelope 401 on HTTP 200',
	'Redirect (307) to another host',
];
const CASES = SERVICE_FAULTS.filter((fault) => IN_REAL_N8N.includes(fault.name));
const RETRY_CASES = CASES.filter(
	(c) => c.name === 'HTTP 500' || c.name === 'HTTP 429 with Retry-After',
);

/** What n8n stores of a run: the parts these checks read. */
interface StoredError {
	message?: string;
	description?: string;
	httpCode?: string;
	name?: string;
}
interface StoredItem {
	json: Record<string, unknown>;
	pairedItem?: { item: number; input?: number } | number | Array<{ item: number }>;
}
interface StoredRun {
	resultData: {
		lastNodeExecuted?: string;
		error?: StoredError;
		runData: Record<string, Array<{ data?: { main: StoredItem[][] }; error?: StoredError }>>;
	};
}

let sandbox: Sandbox;
let server: N8nServer;
let session: RestSession;
let userFolder: string;
/** Every webhook answer, as text: searched for the token too. */
const answers: string[] = [];
/** Webhook calls that started an execution (a 404 while the webhook registers does not). */
let executionsStarted = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls a workflow's webhook; the first calls after activation can meet a 404 while it registers. */
async function call(
	mode: Mode,
	contacts: Array<{ phone: string; text: string }>,
): Promise<{ status: number; body: unknown; ms: number }> {
	for (const deadline = Date.now() + 30_000; ; ) {
		const began = Date.now();
		const response = await fetch(`${server.url}/webhook/faults-${mode}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ contacts }),
		});
		const text = await response.text();
		const ms = Date.now() - began;
		if (response.status !== 404 || Date.now() > deadline) {
			answers.push(text);
			if (response.status !== 404) executionsStarted++;
			let body: unknown = text;
			try {
				body = JSON.parse(text) as unknown;
			} catch {
				// kept as text
			}
			return { status: response.status, body, ms };
		}
		await sleep(500);
	}
}

const hash = (text: string) =>
	[...text].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) | 0, 7);
/** Distinct phones and texts per case: the sandbox's record tells each case's messages apart. */
const contactsFor = (label: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({
		phone: `5731${String(Math.abs(hash(label)) % 1000).padStart(3, '0')}${String(index).padStart(5, '0')}`,
		text: `${label} #${index}`,
	}));
/** The messages the sandbox sent with each of these texts. */
const sentWith = (texts: string[]) =>
	texts.map((text) =>
		[...sandbox.state.sentMessages.values()].filter((message) => message.body === text),
	);
/** The requests the sandbox got for this text, in order. */
const requestsFor = (text: string) =>
	sandbox.requests.filter((request) =>
		JSON.stringify(request.body ?? null).includes(JSON.stringify(text)),
	);

const matches = (text: string | undefined, expected: string | RegExp) =>
	typeof expected === 'string' ? text === expected : expected.test(text ?? '');
const readable = (message: string) =>
	!/TypeError|Cannot read|is not a function|undefined|^Bad request$/.test(message);

/** The one execution of this workflow that is not in `before`, once n8n has stored it as finished. */
async function newExecution(
	before: Set<string>,
	mode: Mode,
): Promise<{ summary: ExecutionSummary; run: StoredRun }> {
	const deadline = Date.now() + 15_000;
	for (;;) {
		const fresh = (await listExecutions(session)).executions.filter(
			(execution) => !before.has(execution.id) && execution.workflowId === workflowId(mode),
		);
		if (fresh.length > 1)
			throw new Error(`${fresh.length} new executions of ${mode}, expected one`);
		if (fresh.length === 1 && !['new', 'running', 'waiting'].includes(fresh[0].status)) {
			const { execution } = await getExecution<StoredRun>(session, fresh[0].id);
			return { summary: fresh[0], run: execution.data };
		}
		if (Date.now() > deadline)
			throw new Error(`no finished execution of ${mode} stored: ${JSON.stringify(fresh)}`);
		await sleep(200);
	}
}
const executionIds = async () =>
	new Set((await listExecutions(session)).executions.map((execution) => execution.id));

/** The input item a stored output item was paired to. */
function pairedIndex(item: StoredItem): number | undefined {
	const paired = item.pairedItem;
	if (typeof paired === 'number') return paired;
	if (Array.isArray(paired)) return paired.length === 1 ? paired[0].item : undefined;
	return paired?.item;
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, token });
	// Installed as n8n installs it, without the repo's node_modules: the node's errors are then of
	// n8n's own NodeApiError class, and n8n keeps their httpCode (a linked repo's are re-wrapped,
	// with httpCode "none").
	userFolder = createUserFolder({ install: 'copy' });
	await importJson(
		'credentials',
		[{ ...credential, data: { ...credential.data, baseUrl: sandbox.url } }],
		{ userFolder },
	);
	await importJson('workflow', MODES.map(bulkSms), { userFolder });
	// At debug, n8n logs each execution's errors in full: the log search then reads them too.
	server = await startN8n({ userFolder, env: { N8N_LOG_LEVEL: 'debug' } });
	// Activated by the owner over REST, as test/queue/queue.ts does: `import:workflow` cannot
	// activate before an owner exists.
	session = await RestSession.asOwner(server.url);
	for (const mode of MODES) await session.activate(workflowId(mode));
}, 180_000);

afterEach(() => sandbox.clearFaults());

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

describe('faults in real n8n', () => {
	it('runs every fault chosen for real n8n', () =>
		expect(CASES.map((fault) => fault.name)).toEqual(IN_REAL_N8N));

	it.each(CASES)(
		'$name: continue-on-fail gives one item per contact, the failed ones errors paired to their contact, the others sent once',
		async ({ name, fault, message, recovers }) => {
			const contacts = contactsFor(`continue ${name}`, CONTACTS);
			const before = await executionIds();
			sandbox.injectFault({ ...fault, times: FAILING });
			const { status, body } = await call('continue', contacts);
			expect(status).toBe(200);
			const items = body as Array<Record<string, unknown>>;
			expect(items).toHaveLength(CONTACTS);

			// The stored run pairs each Send SMS item to a Split Out item, that is to a contact.
			const { summary, run } = await newExecution(before, 'continue');
			expect(summary.status).toBe('success');
			const inputs = run.resultData.runData['Split Out'][0].data?.main[0] ?? [];
			const outputs = run.resultData.runData['Send SMS'][0].data?.main[0] ?? [];
			expect(inputs.map((item) => item.json)).toEqual(contacts);
			expect(outputs.map((item) => item.json)).toEqual(items);
			const pairs = outputs.map(pairedIndex);
			// One output item per contact, each contact answered for once.
			expect([...pairs].sort()).toEqual(contacts.map((_, index) => index));

			const sent = sentWith(contacts.map((contact) => contact.text));
			const failed: number[] = [];
			outputs.forEach((item, index) => {
				const contact = pairs[index] as number;
				if (item.json.error === undefined) {
					expect(item.json).toMatchObject({ to: contacts[contact].phone, status: 'queued' });
					expect(sent[contact].map((message) => message.to)).toEqual([contacts[contact].phone]);
				} else {
					failed.push(contact);
					// n8n shows an error item as its message alone: the node's message goes on with its fix.
					expect(Object.keys(item.json)).toEqual(['error']);
					const said = String(item.json.error).split('. ')[0];
					if (typeof message === 'string')
						expect(String(item.json.error).startsWith(message)).toBe(true);
					else expect(said).toMatch(message);
					expect(readable(item.json.error as string)).toBe(true);
					expect(sent[contact]).toEqual([]);
				}
			});
			// A fault the send loop recovers from (a 429) fails no item: the refused ones waited and went again.
			const failing = recovers ? 0 : FAILING;
			expect(failed).toHaveLength(failing);
			const once = sent.filter((messages) => messages.length === 1).length;
			const twice = sent.filter((messages) => messages.length > 1).length;
			expect({ once, twice }).toEqual({ once: CONTACTS - failing, twice: 0 });
			process.stdout.write(
				`real n8n: ${name}: ${CONTACTS} in, ${items.length} out, ${failed.length} errors, ${once} sent once, ${twice} twice\n`,
			);
		},
	);

	it.each(CASES.filter((fault) => fault.recovers))(
		'$name: stopping on fail, the execution succeeds once the send loop has sent the refused message again',
		async ({ name, fault }) => {
			const before = await executionIds();
			sandbox.injectFault({ ...fault, times: 1 });
			const [contact] = contactsFor(`stop ${name}`, 1);
			const { status, body } = await call('stop', [contact]);
			expect(status).toBe(200);
			expect(body).toEqual([expect.objectContaining({ to: contact.phone, status: 'queued' })]);
			const { summary } = await newExecution(before, 'stop');
			expect(summary.status).toBe('success');
			expect(requestsFor(contact.text).map((request) => request.status)).toEqual([
				fault.kind === 'status' ? fault.status : 0,
				200,
			]);
			expect(sentWith([contact.text]).map((messages) => messages.length)).toEqual([1]);
			process.stdout.write(
				`real n8n: ${name}, stopping on fail: refused once, sent again by the send loop, execution ${summary.id} ${summary.status}\n`,
			);
		},
	);

	it.each(CASES.filter((fault) => !fault.recovers))(
		'$name: stopping on fail, the execution n8n stores fails with the readable message',
		async ({ name, fault, message, description, httpCode }) => {
			const before = await executionIds();
			sandbox.injectFault({ ...fault, times: 1 });
			const [contact] = contactsFor(`stop ${name}`, 1);
			const { status, body } = await call('stop', [contact]);
			expect(status).toBe(500);
			const { summary, run } = await newExecution(before, 'stop');
			expect(summary.status).toBe('error');
			const { error, lastNodeExecuted, runData } = run.resultData;
			expect(lastNodeExecuted).toBe('Send SMS');
			expect(matches(error?.message, message)).toBe(true);
			expect(readable(error?.message ?? '')).toBe(true);
			description.forEach((part) => expect(error?.description).toContain(part));
			expect(error?.httpCode).toBe(httpCode);
			// The node's own run carries the same error.
			expect(runData['Send SMS'][0].error?.message).toBe(error?.message);
			expect(sentWith([contact.text])).toEqual([[]]);
			process.stdout.write(
				`real n8n: ${name}, stopping on fail: webhook HTTP ${status} ${JSON.stringify(body)}, execution ${summary.id} stored as ${summary.status}: "${error?.message}" (${error?.name}, httpCode ${error?.httpCode})\n`,
			);
		},
	);

	it.each(RETRY_CASES)(
		'$name once: Retry On Fail recovers and the message is sent exactly once',
		async ({ name, fault }) => {
			const before = await executionIds();
			const [contact] = contactsFor(`retry ${name}`, 1);
			sandbox.injectFault({ ...fault, times: 1 });
			const { status, body, ms } = await call('retry', [contact]);
			expect(status).toBe(200);
			expect(body).toEqual([expect.objectContaining({ to: contact.phone, status: 'queued' })]);
			const { summary, run } = await newExecution(before, 'retry');
			expect(summary.status).toBe('success');
			expect(run.resultData.error).toBeUndefined();
			// The first attempt met the fault, the second went through.
			const statuses = requestsFor(contact.text).map((request) => request.status);
			expect(statuses).toEqual([fault.kind === 'status' ? fault.status : 0, 200]);
			expect(sentWith([contact.text]).map((messages) => messages.length)).toEqual([1]);
			expect(ms).toBeGreaterThanOrEqual(WAIT_BETWEEN_TRIES_MS);
			const retryAfter =
				fault.kind === 'status' && fault.retryAfter !== undefined
					? `, Retry-After ${fault.retryAfter} s ${ms >= fault.retryAfter * 1000 ? 'honoured' : 'not honoured'}`
					: '';
			process.stdout.write(
				`real n8n: ${name} once, Retry On Fail: ${statuses.length} attempts (HTTP ${statuses.join(', then ')}), execution ${summary.status}, 1 sent, answered in ${ms} ms (waitBetweenTries ${WAIT_BETWEEN_TRIES_MS} ms${retryAfter})\n`,
			);
		},
	);

	it('leaves the token in no stored execution, webhook answer, file of the user folder or log line', async () => {
		const { executions, raw: pages } = await listExecutions(session);
		const ids = [...new Set(executions.map((execution) => execution.id))];
		// Every execution the calls started is there.
		expect(ids).toHaveLength(executionsStarted);
		expect(executionsStarted).toBe(CASES.length * 2 + RETRY_CASES.length);
		const stored = [...pages];
		for (const id of ids) stored.push((await getExecution(session, id)).raw);
		const inExecutions = stored.filter((text) => text.includes(token)).length;
		const inAnswers = answers.filter((text) => text.includes(token)).length;

		// Everything n8n wrote in its folder (the package's link excepted): the SQLite database and
		// its WAL, the event log, its config.
		const n8nFolder = join(userFolder, '.n8n');
		const files: string[] = [];
		const walk = (dir: string) => {
			for (const entry of readdirSync(dir, { withFileTypes: true })) {
				const path = join(dir, entry.name);
				if (entry.isDirectory() && path !== join(n8nFolder, 'nodes')) walk(path);
				else if (entry.isFile()) files.push(path);
			}
		};
		walk(n8nFolder);
		const databaseFiles = files.filter((file) =>
			/^database\.sqlite/.test(relative(n8nFolder, file)),
		);
		expect(databaseFiles.map((file) => relative(n8nFolder, file))).toContain('database.sqlite');
		const contents = files.map((file) => ({
			file: relative(n8nFolder, file),
			bytes: readFileSync(file),
		}));
		const inFiles = contents.filter(({ bytes }) => bytes.includes(token)).map(({ file }) => file);
		const inLog = server.log().split(token).length - 1;
		const found = inExecutions + inAnswers + inFiles.length + inLog;
		process.stdout.write(
			`real n8n: ${ids.length} executions exported, token found ${found} times (executions ${inExecutions}, webhook answers ${inAnswers}, ` +
				`user folder ${inFiles.length}${inFiles.length ? ` [${inFiles.join(', ')}]` : ''} of ${files.length} files [${contents.map(({ file }) => file).join(', ')}], log ${inLog})\n`,
		);
		expect({ inExecutions, inAnswers, inFiles, inLog }).toEqual({
			inExecutions: 0,
			inAnswers: 0,
			inFiles: [],
			inLog: 0,
		});

		// The search reads what n8n stored: the run data of the executions is in the database files
		// in plain text (the credential is encrypted), the log holds the executions' errors, and the
		// token did travel, in every request's body.
		const sentText = contactsFor('continue HTTP 500', CONTACTS)[CONTACTS - 1].text;
		expect(stored.some((text) => text.includes(sentText))).toBe(true);
		expect(
			contents.filter(
				({ file, bytes }) =>
					databaseFiles.includes(join(n8nFolder, file)) && bytes.includes(sentText),
			),
		).not.toEqual([]);
		expect(databaseFiles.reduce((size, file) => size + statSync(file).size, 0)).toBeGreaterThan(0);
		expect(server.log()).toContain('Workflow execution finished with error');
		expect(server.log()).toContain('The service answered 401: Unauthorized');
		expect(sandbox.requests.length).toBeGreaterThan(0);
		expect(sandbox.requests.filter((request) => !tokenWhereDocumented(request, token))).toEqual([]);
		// The redirect cases sent nothing on to the address the redirect named.
		expect(
			sandbox.requests.filter((request) => request.fault === 'redirect').length,
		).toBeGreaterThan(0);
		expect(sandbox.elsewhere.requests).toEqual([]);
	});
});
