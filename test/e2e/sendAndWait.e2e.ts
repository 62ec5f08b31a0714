/**
 * Send and Wait for Response in real n8n 2.41.1, on every channel: a webhook starts the
 * workflow, the node sends the question with n8n's signed link (shortened for SMS) through the
 * sandbox, and the execution waits. Opening the link (a chatapp link-preview fetch, a browser)
 * shows the page and decides nothing; submitting it resumes the execution with n8n's output
 * shape; a second submission changes nothing. Limit Wait Time ends a wait by itself. A bad
 * recipient fails before anything is sent. The canary token is searched for in every message,
 * link, page and stored execution.
 */
import { randomUUID } from 'crypto';
import { readFileSync } from 'fs';
import { join } from 'path';

import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { canaryToken } from '../reliability/results';
import { answerLinkIn, linkTarget } from './lib/answers';
import type { N8nServer } from './lib/n8n';
import {
	createUserFolder,
	executionStatus,
	getExecution,
	importJson,
	listExecutions,
	N8N_MAJOR,
	REPO_ROOT,
	removeUserFolder,
	RestSession,
	sandboxCredential,
	settledExecution,
	startByWebhook,
	startN8n,
	until,
} from './lib/n8n';

const NODE_TYPE = 'n8n-nodes-conversational-messaging.conversationalMessaging';
const token = canaryToken();
const credential = sandboxCredential('', token, 'cmWaitCred000001');
/** User agents of link-preview fetchers (a chatapp's, a socialnet's) and of a browser. */
const PREVIEW_AGENTS = [
	'WhatsApp/2.24.6.77 A',
	'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
	'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
];

/** As a page shows text: n8n's view escapes labels; the node escapes the question. */
const escaped = (text: string) =>
	text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
const BROWSER_AGENT =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

type Channel = 'sms' | 'socialnet' | 'chatapp' | 'liveChat';
const CHANNELS: Channel[] = ['chatapp', 'liveChat', 'sms', 'socialnet'];
/** The sandbox's name of each channel's messages. */
const SANDBOX_CHANNEL: Record<Channel, string> = {
	chatapp: 'legacy',
	liveChat: 'livechat',
	sms: 'sms',
	socialnet: 'socialnet',
};

let sandbox: Sandbox;
let server: N8nServer;
let session: RestSession;
let userFolder: string;
let liveChatSession: string;
/** Every page and answer n8n gave: searched for the token. */
const pages: string[] = [];

/** Each channel's recipient and instance fields under Send and Wait. */
function recipientParameters(channel: Channel, recipient: string): Record<string, string> {
	switch (channel) {
		case 'sms':
			return { instance: 'line-1', to: recipient };
		case 'socialnet':
			return { socialnetInstance: 'line-1', recipientId: recipient };
		case 'chatapp':
			return { legacyInstance: 'qr-1', recipient: recipient };
		case 'liveChat':
			return { liveChatInstance: 'web-1', sessionId: recipient };
	}
}

const workflowIdOf = (name: string) =>
	`cmWait${name
		.replace(/[^A-Za-z0-9]/g, '')
		.slice(0, 10)
		.padEnd(10, '0')}`;

/** Webhook (answers at once) → Ask (Send and Wait) → Done (a no-op that shows the execution went on). */
function waitWorkflow(name: string, ask: Record<string, unknown>) {
	const node = (
		nodeName: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: Record<string, unknown>,
	) => ({ id: randomUUID(), name: nodeName, type, typeVersion, position: [x, 0], parameters });
	return {
		id: workflowIdOf(name),
		name: `Send and Wait: ${name}`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			Webhook: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] },
			Ask: { main: [[{ node: 'Done', type: 'main', index: 0 }]] },
		},
		nodes: [
			{
				...node('Webhook', 'n8n-nodes-base.webhook', 2.1, 0, {
					httpMethod: 'POST',
					path: `wait-${name}`,
					responseMode: 'onReceived',
					options: {},
				}),
				webhookId: randomUUID(),
			},
			{
				...node('Ask', NODE_TYPE, 1, 220, {
					resource: 'messaging',
					operation: 'sendAndWait',
					message: '={{ $json.body.question }}',
					...ask,
				}),
				credentials: { conversationalMessagingApi: { id: credential.id, name: credential.name } },
			},
			node('Done', 'n8n-nodes-base.noOp', 1, 440, {}),
		],
	};
}

const WORKFLOWS = [
	...CHANNELS.flatMap((channel) => [
		waitWorkflow(`${channel}-approval`, {
			sendAndWaitChannel: channel,
			...recipientParameters(channel, `={{ $json.body.recipient }}`),
			responseType: 'approval',
			approvalOptions: {
				values: { approvalType: 'double', approveLabel: 'Refund it', disapproveLabel: 'Keep it' },
			},
		}),
		waitWorkflow(`${channel}-text`, {
			sendAndWaitChannel: channel,
			...recipientParameters(channel, `={{ $json.body.recipient }}`),
			responseType: 'freeText',
		}),
	]),
	waitWorkflow('sms-form', {
		sendAndWaitChannel: 'sms',
		...recipientParameters('sms', `={{ $json.body.recipient }}`),
		responseType: 'customForm',
		formFields: {
			values: [
				{
					fieldLabel: 'Delivery address',
					fieldType: 'textarea',
					requiredField: true,
					placeholder: '<i>Street, number, city</i>',
				},
				{
					fieldLabel: 'Time slot',
					fieldType: 'dropdown',
					requiredField: true,
					fieldOptions: { values: [{ option: 'Morning' }, { option: 'Afternoon' }] },
				},
				{ fieldLabel: 'Rating (<i>1-5</i>)', fieldType: 'number' },
				{
					fieldLabel: 'Extras',
					fieldType: 'checkbox',
					fieldOptions: { values: [{ option: 'Gift wrap' }, { option: 'Call first' }] },
				},
				{
					fieldType: 'hiddenField',
					fieldName: 'ref',
					fieldValue: '=order-{{ $json.body.question.match(/order (\\d+)/)[1] }}',
				},
				{ fieldLabel: 'Photo', fieldType: 'file', multipleFiles: true },
				{ fieldType: 'html', html: 'Leave it at <b>the door</b> if nobody answers.' },
			],
		},
	}),
	// Approve Only: one tap answers.
	waitWorkflow('sms-group', {
		sendAndWaitChannel: 'sms',
		...recipientParameters('sms', `={{ $json.body.recipients }}`),
		responseType: 'approval',
	}),
	waitWorkflow('limit', {
		sendAndWaitChannel: 'socialnet',
		...recipientParameters('socialnet', 'psid-limit'),
		options: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 3, resumeUnit: 'seconds' },
			},
		},
	}),
];

/**
 * An example of examples/ with its Manual Trigger swapped for a Webhook of the same name (a test
 * cannot click), on this file's credential.
 */
function exampleOnWebhook(file: string, path: string) {
	const example = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as {
		id: string;
		nodes: Array<Record<string, unknown>>;
	};
	const nodes = example.nodes.map((node) => {
		if (node.type === 'n8n-nodes-base.manualTrigger') {
			return {
				...node,
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
				webhookId: randomUUID(),
			};
		}
		return node.credentials
			? {
					...node,
					credentials: { conversationalMessagingApi: { id: credential.id, name: credential.name } },
				}
			: node;
	});
	return { ...example, nodes };
}

/**
 * Calls an example's webhook (the first calls after activation can meet a 404 while it registers);
 * gives a way to the execution it started, once n8n lists it: the example's own, whatever other
 * tests start meanwhile.
 */
async function callExample(path: string, workflowId: string): Promise<() => Promise<string>> {
	const known = new Set(
		(await listExecutions(session)).executions.map((execution) => execution.id),
	);
	await until(
		`the webhook ${path}`,
		async () =>
			(await fetch(`${server.url}/webhook/${path}`, { method: 'POST' })).status === 200
				? true
				: undefined,
		WAIT_MS,
	);
	return async () => await executionOf(workflowId, known);
}

/** The reminder example's waits (1 hour, then 30 minutes) shortened for the test. */
const REMINDER_LIMIT_SECONDS = 2;

/** An example whose every Limit Wait Time is `seconds` instead of its own. */
function withLimitsOf<T extends { nodes: Array<Record<string, unknown>> }>(
	example: T,
	seconds: number,
): T {
	const nodes = example.nodes.map((node) => {
		const parameters = node.parameters as { options?: { limitWaitTime?: unknown } } | undefined;
		if (!parameters?.options?.limitWaitTime) return node;
		const limitWaitTime = {
			values: { limitType: 'afterTimeInterval', resumeAmount: seconds, resumeUnit: 'seconds' },
		};
		return {
			...node,
			parameters: { ...parameters, options: { ...parameters.options, limitWaitTime } },
		};
	});
	return { ...example, nodes };
}

/** The examples use n8n 2.x's node versions (Set 3.5), which n8n 1.x does not have. */
const EXAMPLES =
	N8N_MAJOR >= 2
		? [
				exampleOnWebhook('sms-approval-before-refund.json', 'wait-refund-example'),
				exampleOnWebhook('sms-delivery-form.json', 'wait-form-example'),
				withLimitsOf(
					exampleOnWebhook('sms-group-approval-with-reminder.json', 'wait-reminder-example'),
					REMINDER_LIMIT_SECONDS,
				),
			]
		: [];

/** How long this file waits for n8n and the sandbox before failing. */
const WAIT_MS = 30_000;

const start = (name: string, body: Record<string, unknown>) =>
	startByWebhook(session, {
		path: `wait-${name}`,
		workflowId: workflowIdOf(name),
		body,
		ms: WAIT_MS,
		answers: pages,
	});

const statusOf = (id: string) => executionStatus(session, id);

interface StoredRun {
	resultData: {
		error?: { message?: string };
		runData: Record<
			string,
			Array<{
				data?: { main: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }>> };
			}>
		>;
	};
}

const settled = (id: string) => settledExecution<StoredRun>(session, id, { ms: WAIT_MS });

const outputOf = (run: StoredRun, node: string) =>
	run.resultData.runData[node]?.[0]?.data?.main[0] ?? [];

/** The message the sandbox received with this question, and the link in it. */
async function messageWith(question: string) {
	const message = await until(
		`the message "${question}"`,
		() => [...sandbox.state.sentMessages.values()].find((sent) => sent.body.startsWith(question)),
		WAIT_MS,
	);
	return { message, link: answerLinkIn(message.body) };
}

const target = (link: string) => linkTarget(sandbox, link);

async function open(url: string, userAgent: string) {
	const response = await fetch(url, { headers: { 'user-agent': userAgent } });
	const html = await response.text();
	pages.push(html);
	return { status: response.status, html, headers: response.headers };
}

/** Posts the answer as n8n's form page does: multipart/form-data, one `field-<n>` per field. */
async function submit(url: string, form: Record<string, string | Blob>) {
	const body = new FormData();
	for (const [name, value] of Object.entries(form)) body.append(name, value);
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'user-agent': BROWSER_AGENT },
		body,
	});
	const html = await response.text();
	pages.push(html);
	return { status: response.status, html };
}

/** A choice as the page posts it: the JSON list of the options ticked. */
const choice = (...options: string[]) => JSON.stringify(options);

const RESPONDED_AT = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** The recipient as sent: a phone as digits, an identifier as it is. */
const sentAs = (channel: Channel, recipient: string) =>
	['sms', 'chatapp'].includes(channel) ? recipient.replace(/\D/g, '') : recipient;

/** The instance name each channel's test uses. */
const instanceOf = (channel: Channel) => Object.values(recipientParameters(channel, ''))[0];

/** Where and when it was asked, and of whom with which message; on n8n 1.x too. */
function questionFacts(channel: Channel, recipient: string, messageId: string) {
	// What an SMS question cost, as a Send SMS output says it (issue 41).
	const sms = channel === 'sms' ? { smsCost: expect.objectContaining({ encoding: 'GSM-7' }) } : {};
	return {
		channel,
		instance: instanceOf(channel),
		askedAt: RESPONDED_AT,
		recipients: [{ recipient: sentAs(channel, recipient), messageId, ...sms }],
	};
}

/** Who answered: the one recipient asked, with their message. */
const respondedBy = (channel: Channel, recipient: string, messageId: string) => ({
	recipient: sentAs(channel, recipient),
	channel,
	instance: instanceOf(channel),
	messageId,
});

/** Starts the workflow, checks the message and that opening the link decides nothing; gives the page's address. */
async function askAndOpen(name: string, channel: Channel, question: string, recipient: string) {
	const id = await start(name, { question, recipient });
	const { message, link } = await messageWith(question);
	expect(message.channel).toBe(SANDBOX_CHANNEL[channel]);
	// Phones arrive as digits (the plain send's check normalises them); ids as they are.
	expect(message.to).toContain(
		['sms', 'chatapp'].includes(channel) ? recipient.replace(/\D/g, '') : recipient,
	);
	expect(message.body).not.toContain(token);
	// The SMS's short link is the sandbox's own, which redirects to the page.
	if (channel === 'sms') expect(link.startsWith(`${sandbox.url}/s/`)).toBe(true);
	else expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook-waiting\//);
	const url = target(link);
	expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook-waiting\/.+\?to=1&signature=/);
	expect(url).not.toContain(token);
	await until(
		`execution ${id} to wait`,
		async () => ((await statusOf(id)) === 'waiting' ? true : undefined),
		WAIT_MS,
	);
	for (const agent of [...PREVIEW_AGENTS, BROWSER_AGENT]) {
		const page = await open(url, agent);
		expect(page.status).toBe(200);
		expect(page.html).toContain(escaped(question));
		expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
	}
	expect(await statusOf(id)).toBe('waiting');
	return { id, url, messageId: message.id };
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, token });
	liveChatSession = 'lcs-e2e-1';
	sandbox.state.liveChatSessions.set(liveChatSession, {
		id: liveChatSession,
		instance: 'web-1',
		name: 'Visitor',
	});
	userFolder = createUserFolder({ install: 'copy' });
	await importJson(
		'credentials',
		[{ ...credential, data: { ...credential.data, baseUrl: sandbox.url } }],
		{ userFolder },
	);
	await importJson('workflow', [...WORKFLOWS, ...EXAMPLES], { userFolder });
	server = await startN8n({ userFolder });
	session = await RestSession.asOwner(server.url);
	for (const workflow of [...WORKFLOWS, ...EXAMPLES]) await session.activate(workflow.id);
}, 180_000);

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

const RECIPIENT: Record<Channel, () => string> = {
	sms: () => '+57 300 555 0101',
	chatapp: () => '573005550102',
	socialnet: () => 'psid-7781',
	liveChat: () => liveChatSession,
};

/** The SMS sent to these phones whose text starts so, once there are as many as phones. */
const questionsTo = (phones: string[], start: string, ms = WAIT_MS) =>
	until(
		`${phones.length} SMS "${start}"`,
		() => {
			const found = [...sandbox.state.sentMessages.values()].filter(
				(sent) => phones.includes(sent.to) && sent.body.startsWith(start),
			);
			return found.length >= phones.length ? found : undefined;
		},
		ms,
	);

/** The execution of a workflow started now: the first n8n lists of it that `known` does not hold. */
async function executionOf(workflowId: string, known: Set<string>) {
	return await until(
		`an execution of ${workflowId}`,
		async () =>
			(await listExecutions(session)).executions.find(
				(execution) => execution.workflowId === workflowId && !known.has(execution.id),
			)?.id,
		WAIT_MS,
	);
}

/**
 * The reminder example (its limits 2 seconds), run alongside the other tests: n8n's wait tracker
 * resumes a timed-out wait within about a minute, twice here. Nobody answers the managers' SMS,
 * nor the reminders; the backup approves.
 */
async function runReminderExample() {
	const id = await (await callExample('wait-reminder-example', 'cmExampleWait002'))();
	const managers = ['573005550141', '573005550142'];
	const asked = await questionsTo(managers, 'Refund of 250 USD for order 23: approve?');
	const reminded = await questionsTo(managers, 'Reminder: refund of 250 USD for order 23', 150_000);
	// The first links lead to a wait that ended: n8n's own page (once the execution waits again:
	// before, n8n answers that it is running), and nothing decided.
	const late = await until(
		"the first link to lead to n8n's page",
		async () => {
			const page = await open(target(answerLinkIn(asked[0].body)), BROWSER_AGENT);
			return page.html.includes('No action required') ? page : undefined;
		},
		WAIT_MS,
	);
	const [backup] = await questionsTo(
		['573005550149'],
		'Refund of 250 USD for order 23: the managers did not answer',
		150_000,
	);
	// The SMS goes out a moment before n8n stores the execution as waiting: until then n8n answers
	// that it is running, and nothing is recorded.
	const answered = await until(
		"the backup's answer to be recorded",
		async () => {
			const tried = await submit(target(answerLinkIn(backup.body)), { approved: 'true' });
			return tried.status === 200 ? tried : undefined;
		},
		WAIT_MS,
	);
	const { status, run } = await settled(id);
	return { status, run, asked, reminded, late, backup, answered };
}
let reminderExample: ReturnType<typeof runReminderExample> | undefined;

describe('Send and Wait for Response in real n8n', () => {
	beforeAll(() => {
		if (!EXAMPLES.length) return;
		reminderExample = runReminderExample();
		// Awaited by its own test below; a failure before then is that test's.
		reminderExample.catch(() => undefined);
	});

	it.each(CHANNELS)(
		'%s: Approve resumes with approved true, when and whom, and a second answer changes nothing',
		async (channel) => {
			const question = `Refund of 400 USD for order 17 (${channel}, approve)?`;
			const recipient = RECIPIENT[channel]();
			const { id, url, messageId } = await askAndOpen(
				`${channel}-approval`,
				channel,
				question,
				recipient,
			);
			const page = await open(url, BROWSER_AGENT);
			expect(page.html).toContain('Refund it');
			expect(page.html).toContain('Keep it');
			// n8n's own form page, not a page of the node's.
			expect(page.html).toContain("id='n8n-form'");
			const missing = await submit(url, {});
			expect(missing.status).toBe(400);
			expect(await statusOf(id)).toBe('waiting');
			// The tap on Refund it, as the page posts it.
			const answered = await submit(url, { approved: 'true' });
			expect(answered.status).toBe(200);
			expect(answered.html).toContain('Your answer was recorded');
			const { status, run, raw } = await settled(id);
			expect(status).toBe('success');
			expect(outputOf(run, 'Ask').map((item) => item.json)).toEqual([
				{
					data: {
						approved: true,
						respondedAt: RESPONDED_AT,
						respondedBy: respondedBy(channel, recipient, messageId),
					},
					question: questionFacts(channel, recipient, messageId),
				},
			]);
			expect(outputOf(run, 'Done')).toHaveLength(1);
			expect(raw).not.toContain(token);

			const again = await submit(url, { approved: 'false' });
			expect(again.html).not.toContain('Your answer was recorded');
			const after = await settled(id);
			expect(outputOf(after.run, 'Ask')[0]?.json.data).toEqual({
				approved: true,
				respondedAt: RESPONDED_AT,
				respondedBy: respondedBy(channel, recipient, messageId),
			});
		},
	);

	it.each(CHANNELS)('%s: Decline resumes with approved false', async (channel) => {
		const question = `Refund of 90 USD for order 18 (${channel}, decline)?`;
		const { id, url } = await askAndOpen(
			`${channel}-approval`,
			channel,
			question,
			RECIPIENT[channel](),
		);
		// An answer that is neither button is no answer.
		expect((await submit(url, { approved: 'maybe' })).status).toBe(400);
		await submit(url, { approved: 'false' });
		const { status, run } = await settled(id);
		expect(status).toBe('success');
		expect(outputOf(run, 'Ask')[0]?.json.data).toEqual({
			approved: false,
			respondedAt: RESPONDED_AT,
			respondedBy: expect.objectContaining({ channel }),
		});
	});

	it.each(CHANNELS)('%s: Free Text resumes with the text typed', async (channel) => {
		const question = `Why was order 19 returned? (${channel})`;
		const recipient = RECIPIENT[channel]();
		const { id, url, messageId } = await askAndOpen(
			`${channel}-text`,
			channel,
			question,
			recipient,
		);
		const page = await open(url, BROWSER_AGENT);
		expect(page.html).toContain('<textarea');
		expect((await submit(url, { 'field-0': '  ' })).status).toBe(400);
		await submit(url, { 'field-0': 'The box arrived <b>crushed</b> & wet' });
		const { status, run } = await settled(id);
		expect(status).toBe('success');
		expect(outputOf(run, 'Ask').map((item) => item.json)).toEqual([
			{
				data: {
					text: 'The box arrived <b>crushed</b> & wet',
					respondedAt: RESPONDED_AT,
					respondedBy: respondedBy(channel, recipient, messageId),
				},
				question: questionFacts(channel, recipient, messageId),
			},
		]);
	});

	it("Custom Form over SMS: the page shows the fields escaped; a form without a required field, an altered signature or another execution's link resume nothing; the answers come out as n8n gives them", async () => {
		const recipient = '+57 300 555 0177';
		const first = await askAndOpen(
			'sms-form',
			'sms',
			'Where should we deliver <b>order 21</b>?',
			recipient,
		);
		const other = await askAndOpen(
			'sms-form',
			'sms',
			'Where should we deliver order 22?',
			recipient,
		);
		const page = await open(first.url, BROWSER_AGENT);
		for (const label of ['Delivery address', 'Time slot', 'Afternoon', 'Rating', 'Gift wrap'])
			expect(page.html).toContain(label);
		expect(page.html).toContain('&lt;i&gt;Street, number, city&lt;/i&gt;');
		expect(page.html).toContain('Leave it at the door if nobody answers.');
		expect(page.html).toContain('Rating (&lt;i&gt;1-5&lt;/i&gt;)');
		expect(page.html).not.toMatch(/<b>the door|<i>Street|<b>order|<i>1-5/);
		const answers = {
			'field-0': '  Calle 10 # 4-21, Bogota ',
			'field-1': 'Afternoon',
			'field-2': '4',
			'field-3': choice('Gift wrap', 'Call first'),
			'field-4': 'changed-by-the-page',
		};
		const { 'field-0': _address, ...withoutAddress } = answers;
		expect((await submit(first.url, withoutAddress)).status).toBe(400);
		// A choice the form does not offer, in its dropdown or its checkboxes, is no answer.
		expect((await submit(first.url, { ...answers, 'field-1': 'Midnight' })).status).toBe(400);
		expect((await submit(first.url, { ...answers, 'field-3': choice('Cake') })).status).toBe(400);
		const signature = new URL(first.url).searchParams.get('signature') ?? '';
		const forged = new URL(first.url);
		forged.searchParams.set('signature', `${signature.slice(0, -2)}xx`);
		expect((await submit(forged.toString(), answers)).status).not.toBe(200);
		const crossed = new URL(first.url);
		crossed.searchParams.set('signature', new URL(other.url).searchParams.get('signature') ?? '');
		expect((await submit(crossed.toString(), answers)).status).not.toBe(200);
		expect([await statusOf(first.id), await statusOf(other.id)]).toEqual(['waiting', 'waiting']);

		const photo = new Blob(['not really a jpeg'], { type: 'image/jpeg' });
		const body = new FormData();
		for (const [name, value] of Object.entries(answers)) body.append(name, value);
		body.append('field-5', photo, 'door.jpg');
		const answered = await fetch(first.url, {
			method: 'POST',
			headers: { 'user-agent': BROWSER_AGENT },
			body,
		});
		expect(answered.status).toBe(200);
		pages.push(await answered.text());
		const { status, run } = await settled(first.id);
		expect(status).toBe('success');
		const [item] = outputOf(run, 'Ask') as Array<{
			json: Record<string, unknown>;
			binary?: Record<string, { fileName?: string; mimeType?: string }>;
		}>;
		expect(item.json).toEqual({
			data: {
				// A textarea's answer as typed, as n8n's form gives it (Text and Email are trimmed).
				'Delivery address': '  Calle 10 # 4-21, Bogota ',
				'Time slot': 'Afternoon',
				'Rating (<i>1-5</i>)': 4,
				Extras: ['Gift wrap', 'Call first'],
				ref: 'order-21',
				Photo: [{ filename: 'door.jpg', mimetype: 'image/jpeg', size: 17 }],
				respondedAt: RESPONDED_AT,
				respondedBy: respondedBy('sms', recipient, first.messageId),
			},
			question: questionFacts('sms', recipient, first.messageId),
		});
		// One upload: one binary, named as n8n's form names it.
		expect(Object.keys(item.binary ?? {})).toEqual(['Photo']);
		expect(item.binary?.Photo).toEqual(
			expect.objectContaining({ fileName: 'door.jpg', mimeType: 'image/jpeg' }),
		);
		expect(await statusOf(other.id)).toBe('waiting');
	});

	it('SMS to a group: each recipient gets one question with a link of their own; the second approves with one tap and the output names them; the first then finds nothing to answer; the execution ran once', async () => {
		const question = 'Refund of 250 USD for order 31: approve? (group)';
		const phones = ['+57 300 555 0131', '+57 300 555 0132', '+57 300 555 0133'];
		const digits = phones.map((phone) => phone.replace(/\D/g, ''));
		const known = new Set((await listExecutions(session)).executions.map(({ id }) => id));
		const id = await start('sms-group', { question, recipients: phones.join(', ') });
		const messages = await questionsTo(digits, question);
		// In the order given, one each.
		const byPhone = digits.map((phone) => messages.filter((sent) => sent.to === phone));
		expect(byPhone.map((sent) => sent.length)).toEqual([1, 1, 1]);
		const [first, second, third] = byPhone.map(([sent]) => sent);
		await until(
			`execution ${id} to wait`,
			async () => ((await statusOf(id)) === 'waiting' ? true : undefined),
			WAIT_MS,
		);
		const urls = [first, second, third].map((sent) => target(answerLinkIn(sent.body)));
		expect(urls.map((url) => new URL(url).searchParams.get('to'))).toEqual(['1', '2', '3']);
		// Previews and GETs decide nothing.
		for (const url of urls) expect((await open(url, PREVIEW_AGENTS[0])).status).toBe(200);
		// A link altered to another recipient's place, or one's place with another's signature, is
		// refused by n8n, whatever form is posted to it.
		const altered = new URL(urls[1]);
		altered.searchParams.set('to', '1');
		expect((await submit(altered.toString(), {})).status).toBe(401);
		const crossed = new URL(urls[0]);
		crossed.searchParams.set('signature', new URL(urls[1]).searchParams.get('signature') ?? '');
		expect((await submit(crossed.toString(), {})).status).toBe(401);
		expect(await statusOf(id)).toBe('waiting');

		// The second's answer, posted with a field that names the first's place: who answered is
		// the signed place of the link, never anything posted.
		const answered = await submit(urls[1], { to: '1' });
		expect(answered.status).toBe(200);
		expect(answered.html).toContain('Your answer was recorded');
		const { status, run } = await settled(id);
		expect(status).toBe('success');
		expect(outputOf(run, 'Ask').map((item) => item.json)).toEqual([
			{
				data: {
					approved: true,
					respondedAt: RESPONDED_AT,
					respondedBy: {
						recipient: digits[1],
						channel: 'sms',
						instance: 'line-1',
						messageId: second.id,
					},
				},
				question: {
					channel: 'sms',
					instance: 'line-1',
					askedAt: RESPONDED_AT,
					recipients: [first, second, third].map((sent, index) => ({
						recipient: digits[index],
						messageId: sent.id,
						smsCost: expect.objectContaining({ encoding: 'GSM-7' }),
					})),
				},
			},
		]);
		expect(outputOf(run, 'Done')).toHaveLength(1);

		// The first opens their link after the decision: n8n's page, nothing to answer.
		const late = await open(urls[0], BROWSER_AGENT);
		expect(late.html).toContain('No action required');
		const lateAnswer = await submit(urls[0], {});
		expect(lateAnswer.html).not.toContain('Your answer was recorded');
		// A second answer of the one who decided decides nothing either.
		expect((await submit(urls[1], {})).html).not.toContain('Your answer was recorded');
		const after = await settled(id);
		expect(outputOf(after.run, 'Ask')[0]?.json.data).toEqual(
			expect.objectContaining({ respondedBy: expect.objectContaining({ recipient: digits[1] }) }),
		);
		// One execution, one question each.
		const runs = (await listExecutions(session)).executions.filter(
			(execution) => execution.workflowId === workflowIdOf('sms-group') && !known.has(execution.id),
		);
		expect(runs.map((execution) => execution.id)).toEqual([id]);
		expect(
			[...sandbox.state.sentMessages.values()].filter((sent) => sent.body.startsWith(question)),
		).toHaveLength(3);
	});

	(EXAMPLES.length ? it : it.skip)(
		'the reminder example: nobody answers the managers nor the reminder, the backup approves, and the workflow goes on with their answer',
		async () => {
			const { status, run, asked, reminded, late, backup, answered } = await (reminderExample ??
				runReminderExample());
			expect(status).toBe('success');
			expect(late.html).toContain('No action required');
			expect(answered.status).toBe(200);
			// The timeouts say whom the question went to and when; the reminder went to the same.
			const [timedOut] = outputOf(run, 'Ask Managers').map((item) => item.json);
			expect(timedOut).toEqual(
				expect.objectContaining({
					data: { timedOut: true, timedOutAt: expect.any(String), approved: false },
					question: expect.objectContaining({
						askedAt: RESPONDED_AT,
						recipients: asked.map((sent) =>
							expect.objectContaining({ recipient: sent.to, messageId: sent.id }),
						),
					}),
				}),
			);
			expect(reminded.map((sent) => sent.to).sort()).toEqual(asked.map((sent) => sent.to).sort());
			expect(outputOf(run, 'Decision').map((item) => item.json)).toEqual([
				{
					order: '23',
					approved: true,
					approvedBy: '573005550149',
					answeredAt: RESPONDED_AT,
					askedAt: RESPONDED_AT,
				},
			]);
			expect(backup.to).toBe('573005550149');
			const toCustomer = [...sandbox.state.sentMessages.values()].filter(
				(sent) => sent.to === '573001234523',
			);
			expect(toCustomer.map((sent) => sent.body)).toEqual([
				'Order 23: your refund of 250 USD was approved.',
			]);
		},
		200_000,
	);

	it('Limit Wait Time: without an answer the execution goes on by itself, and its input item says it timed out, with the question asked', async () => {
		const id = await start('limit', { question: 'Anyone there? (limit)' });
		const { message } = await messageWith('Anyone there? (limit)');
		// n8n's wait tracker looks for executions to resume once a minute.
		const { status, run } = await until(
			'the limit to end the wait',
			async () => {
				const { execution } = await getExecution<StoredRun>(session, id);
				return execution.status === 'success'
					? { status: execution.status, run: execution.data }
					: undefined;
			},
			100_000,
		);
		expect(status).toBe('success');
		// On 1.x too: the question's facts are kept from the send, before the wait.

		expect(outputOf(run, 'Ask').map((item) => item.json)).toEqual([
			expect.objectContaining({
				body: expect.objectContaining({ question: 'Anyone there? (limit)' }),
				data: { timedOut: true, timedOutAt: expect.any(String), approved: false },
				question: questionFacts('socialnet', 'psid-limit', message.id),
			}),
		]);
		expect(outputOf(run, 'Done')).toHaveLength(1);
	}, 150_000);

	(EXAMPLES.length ? it : it.skip)(
		'the example: the manager approves by SMS, then the customer is told by SMS',
		async () => {
			const executionId = await callExample('wait-refund-example', 'cmExampleWait001');
			const { message, link } = await messageWith('Refund of 400 USD for order 17: approve?');
			expect([message.to, message.instance]).toEqual(['573005550199', 'sms-line-1']);
			expect(link.startsWith(`${sandbox.url}/s/`)).toBe(true);
			expect((await fetch(link, { redirect: 'manual' })).headers.get('location')).toBe(
				target(link),
			);
			// The SMS goes out before the execution waits: the page answers 409 until it does.
			const id = await executionId();
			await until(
				`execution ${id} to wait`,
				async () => ((await statusOf(id)) === 'waiting' ? true : undefined),
				WAIT_MS,
			);
			const page = await open(target(link), BROWSER_AGENT);
			expect(page.html).toContain('Approve refund');
			await submit(target(link), { approved: 'true' });
			const { status } = await settled(id);
			expect(status).toBe('success');
			const toCustomer = [...sandbox.state.sentMessages.values()].filter(
				(sent) => sent.to === '573001234567',
			);
			expect(toCustomer.map((sent) => sent.body)).toEqual([
				'Order 17: your refund of 400 USD was approved.',
			]);
		},
	);

	(EXAMPLES.length ? it : it.skip)(
		'the form example: the customer fills in the delivery form by SMS, the answers are written on and confirmed by SMS',
		async () => {
			const executionId = await callExample('wait-form-example', 'cmExampleForm001');
			const { message, link } = await messageWith('Order 21 is ready: where and when');
			expect(message.to).toBe('573007654321');
			const page = await open(target(link), BROWSER_AGENT);
			for (const label of ['Delivery of order 21', 'Delivery address', 'Time slot', 'Evening'])
				expect(page.html).toContain(label);
			const answered = await submit(target(link), {
				'field-0': 'Calle 10 # 4-21, Bogota',
				'field-1': 'Evening',
				'field-2': '',
			});
			expect(answered.status).toBe(200);
			const id = await executionId();
			const { status, run } = await settled(id);
			expect(status).toBe('success');
			expect(outputOf(run, 'Delivery Record').map((item) => item.json)).toEqual([
				{
					order: '21',
					address: 'Calle 10 # 4-21, Bogota',
					slot: 'Evening',
					note: null,
					answeredAt: RESPONDED_AT,
					askedMessageId: message.id,
					timedOut: false,
				},
			]);
			const confirmations = [...sandbox.state.sentMessages.values()].filter(
				(sent) => sent.to === '573007654321' && sent.body.startsWith('Order 21: we deliver'),
			);
			expect(confirmations.map((sent) => sent.body)).toEqual([
				'Order 21: we deliver to Calle 10 # 4-21, Bogota (Evening).',
			]);
		},
	);

	it('a bad recipient fails before anything is sent, naming the field', async () => {
		const before = sandbox.requests.length;
		const id = await start('sms-approval', { question: 'Bad phone?', recipient: 'call me maybe' });
		const { status, run } = await settled(id);
		expect(status).toBe('error');
		expect(run.resultData.error?.message).toMatch(/Recipient Phone/);
		expect(
			sandbox.requests.slice(before).filter((request) => request.path !== '/__sandbox'),
		).toEqual([]);
	});

	it('the token is in no message, link, page or stored execution', async () => {
		expect(
			[...sandbox.state.sentMessages.values()].filter((message) =>
				JSON.stringify(message).includes(token),
			),
		).toEqual([]);
		expect(
			[...sandbox.state.shortLinks.values()].filter((link) => JSON.stringify(link).includes(token)),
		).toEqual([]);
		expect(pages.filter((page) => page.includes(token))).toEqual([]);
		const { executions } = await listExecutions(session);
		expect(executions.length).toBeGreaterThan(12);
		for (const execution of executions)
			expect((await getExecution(session, execution.id)).raw).not.toContain(token);
	});
});
