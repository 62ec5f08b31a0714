/**
 * A representative subset of the fault matrix (test/reliability/faults.test.ts) in real n8n
 * 2.41.1: bulk Send SMS behind a webhook, with continue-on-fail, stopping on fail, and with
 * Retry On Fail. Then every execution n8n stored, its database files and its log are searched
 * for the canary token.
 */
import { randomUUID } from 'crypto';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import type { Fault, Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { canaryToken } from '../reliability/results';
import type { N8nServer } from './lib/n8n';
import { createUserFolder, importJson, removeUserFolder, RestSession, sandboxCredential, startN8n } from './lib/n8n';

const token = canaryToken();
const credential = sandboxCredential('', token, 'cmFaultsCred0001');
const CONTACTS = 5;
const FAILING = 2;

type Mode = 'continue' | 'stop' | 'retry';
const SETTINGS: Record<Mode, Record<string, unknown>> = {
	continue: { onError: 'continueRegularOutput' },
	stop: {},
	retry: { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 },
};
const workflowId = (mode: Mode) => `cmFaults${mode.padEnd(8, '0')}`;

function bulkSms(mode: Mode) {
	const node = (name: string, type: string, typeVersion: number, x: number, parameters: Record<string, unknown>) => ({ id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters });
	return {
		id: workflowId(mode),
		name: `Faults: bulk SMS (${mode})`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] },
		},
		nodes: [
			{
				...node('Webhook', 'n8n-nodes-base.webhook', 2.1, 0, { httpMethod: 'POST', path: `faults-${mode}`, responseMode: 'lastNode', responseData: 'allEntries', options: {} }),
				webhookId: randomUUID(),
			},
			node('Split Out', 'n8n-nodes-base.splitOut', 1, 220, { fieldToSplitOut: 'body.contacts', options: {} }),
			{
				...node('Send SMS', 'n8n-nodes-conversational-messaging.conversationalMessaging', 1, 440, {
					resource: 'messaging',
					operation: 'sendSms',
					to: '={{ $json.phone }}',
					instance: 'line-1',
					message: '={{ $json.text }}',
				}),
				...SETTINGS[mode],
				credentials: { conversationalMessagingApi: { id: credential.id, name: credential.name } },
			},
		],
	};
}

interface FaultCase {
	name: string;
	fault: Fault;
	/** What the message of a failed item says (names the status, or the network failure). */
	message: RegExp;
}

const CASES: FaultCase[] = [
	{ name: 'HTTP 500', fault: { kind: 'status', status: 500 }, message: /^The service answered 500: Internal Server Error$/ },
	{ name: 'HTTP 502 with an HTML body', fault: { kind: 'status', status: 502, html: true }, message: /^The service answered HTTP 502 with a body that is not JSON/ },
	{ name: 'HTTP 429 with Retry-After', fault: { kind: 'status', status: 429, retryAfter: 7 }, message: /^The service answered 429: Too Many Requests$/ },
	{ name: 'Connection dropped mid-response', fault: { kind: 'drop' }, message: /^The connection to the service at 127\.0\.0\.1:\d+ was cut before its answer arrived$/ },
	{ name: 'Malformed JSON body', fault: { kind: 'malformed' }, message: /^The service answered HTTP 200 with a body that is not JSON/ },
	{ name: 'err: true on HTTP 200', fault: { kind: 'errTrue', message: 'Instance line-1 is disconnected' }, message: /^The service answered 400: Instance line-1 is disconnected$/ },
	{ name: 'Envelope 401 on HTTP 200', fault: { kind: 'errTrue', statusCode: 401, message: 'Unauthorized' }, message: /^The service answered 401: Unauthorized$/ },
];

let sandbox: Sandbox;
let server: N8nServer;
let session: RestSession;
let userFolder: string;

/** Calls a workflow's webhook; the first calls after activation can meet a 404 while it registers. */
async function call(mode: Mode, contacts: Array<{ phone: string; text: string }>): Promise<{ status: number; body: unknown }> {
	for (const deadline = Date.now() + 30_000; ; ) {
		const response = await fetch(`${server.url}/webhook/faults-${mode}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ contacts }),
		});
		const text = await response.text();
		if (response.status !== 404 || Date.now() > deadline) return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

const contactsFor = (label: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({ phone: `5731${String(Math.abs(hash(label)) % 1000).padStart(3, '0')}${String(index).padStart(5, '0')}`, text: `${label} #${index}` }));
const hash = (text: string) => [...text].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) | 0, 7);
/** How many times the sandbox sent each of these texts. */
const sendsOf = (texts: string[]) => texts.map((text) => [...sandbox.state.sentMessages.values()].filter((message) => message.body === text).length);

interface StoredExecution {
	id: string;
	status: string;
	workflowId: string;
}

async function executions(): Promise<StoredExecution[]> {
	const { data } = await session.request<{ data: { results: StoredExecution[] } }>('GET', '/rest/executions?limit=100');
	return data.results;
}

/** An execution as n8n's REST API gives it, with its run data, as raw text. */
async function storedText(id: string): Promise<string> {
	return JSON.stringify(await session.request<unknown>('GET', `/rest/executions/${id}`));
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, token });
	userFolder = createUserFolder();
	await importJson('credentials', [{ ...credential, data: { ...credential.data, baseUrl: sandbox.url } }], { userFolder });
	await importJson('workflow', (['continue', 'stop', 'retry'] as Mode[]).map(bulkSms), { userFolder });
	server = await startN8n({ userFolder });
	session = await RestSession.asOwner(server.url);
	for (const mode of ['continue', 'stop', 'retry'] as Mode[]) {
		const { data } = await session.request<{ data: { versionId: string } }>('GET', `/rest/workflows/${workflowId(mode)}`);
		await session.request('POST', `/rest/workflows/${workflowId(mode)}/activate`, { versionId: data.versionId });
	}
}, 180_000);

afterEach(() => sandbox.clearFaults());

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

describe('faults in real n8n', () => {
	it.each(CASES)('$name: continue-on-fail gives one item per contact, failed ones with the message, the others sent once', async ({ name, fault, message }) => {
		const contacts = contactsFor(`continue ${name}`, CONTACTS);
		sandbox.injectFault({ ...fault, times: FAILING });
		const { status, body } = await call('continue', contacts);
		expect(status).toBe(200);
		const items = body as Array<Record<string, unknown>>;
		expect(items).toHaveLength(CONTACTS);
		const failed = items.flatMap((item, index) => (item.error === undefined ? [] : [index]));
		expect(failed).toHaveLength(FAILING);
		failed.forEach((index) => expect(items[index]).toEqual({ error: expect.stringMatching(message) }));
		const sends = sendsOf(contacts.map((contact) => contact.text));
		// The items keep the order of the contacts: each success answers for its own contact.
		items.forEach((item, index) => {
			if (item.error === undefined) expect([item.to, sends[index]]).toEqual([contacts[index].phone, 1]);
			else expect(sends[index]).toBe(0);
		});
		process.stdout.write(`real n8n: ${name}: ${CONTACTS} in, ${items.length} out, ${failed.length} errors, ${sends.filter((n) => n === 1).length} sent once, ${sends.filter((n) => n > 1).length} twice\n`);
	});

	it.each(CASES)('$name: stopping on fail, the execution stored by n8n fails with the message', async ({ name, fault, message }) => {
		const before = new Set((await executions()).map((execution) => execution.id));
		sandbox.injectFault({ ...fault, times: 1 });
		const [contact] = contactsFor(`stop ${name}`, 1);
		const { status } = await call('stop', [contact]);
		expect(status).toBeGreaterThanOrEqual(500);
		const [execution] = (await executions()).filter((stored) => !before.has(stored.id) && stored.workflowId === workflowId('stop'));
		expect(execution?.status).toBe('error');
		// The run data is stored as flatted JSON: the message is one of its strings.
		const stored = JSON.parse(await storedText(execution.id)) as { data: { data: string } };
		const strings = (JSON.parse(stored.data.data) as unknown[]).filter((value): value is string => typeof value === 'string');
		expect(strings.filter((text) => message.test(text))).not.toEqual([]);
		expect(sendsOf([contact.text])).toEqual([0]);
	});

	it.each([CASES[0], CASES[2]])('$name once: Retry On Fail recovers and the message is sent exactly once', async ({ fault }) => {
		const [contact] = contactsFor(`retry ${fault.kind} ${JSON.stringify(fault)}`, 1);
		sandbox.injectFault({ ...fault, times: 1 });
		const { status, body } = await call('retry', [contact]);
		expect(status).toBe(200);
		expect(body).toEqual([expect.objectContaining({ to: contact.phone, status: 'queued' })]);
		expect(sendsOf([contact.text])).toEqual([1]);
	});

	it('leaves the token in no stored execution, database file or log line', async () => {
		const stored = await executions();
		expect(stored.length).toBeGreaterThanOrEqual(CASES.length * 2 + 2);
		let found = 0;
		for (const execution of stored) if ((await storedText(execution.id)).includes(token)) found++;
		const n8nFolder = join(userFolder, '.n8n');
		const databaseFiles = readdirSync(n8nFolder).filter((file) => file.startsWith('database.sqlite'));
		expect(databaseFiles).toContain('database.sqlite');
		const inDatabase = databaseFiles.filter((file) => readFileSync(join(n8nFolder, file)).includes(token));
		const inLog = server.log().includes(token);
		expect({ executions: found, databaseFiles: inDatabase, log: inLog }).toEqual({ executions: 0, databaseFiles: [], log: false });
		// The token did travel: every request to the sandbox carried it, in the body.
		expect(sandbox.requests.filter((request) => request.tokenLocation !== 'body')).toEqual([]);
		process.stdout.write(`real n8n: ${stored.length} executions exported, token found 0 times (executions, ${databaseFiles.length} database files, log)\n`);
	});
});
