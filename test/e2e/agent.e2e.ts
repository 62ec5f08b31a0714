/**
 * n8n's AI Agent (Agent V3, @n8n/n8n-nodes-langchain in n8n 2.41.1) with this node, in real n8n,
 * driven by a scripted OpenAI-compatible chat model on loopback (lib/model.ts) through n8n's
 * OpenAI Chat Model node (Chat Completions, the Responses API off) and an `openAiApi` credential
 * whose Base URL is that server. A Webhook starts each run with the prompt.
 *
 * 1. The node as a tool (usableAsTool): Messaging > Send SMS with `to` and `message` from
 *    `$fromAI()`. The model calls it with a formatted phone: one SMS goes out with the phone as
 *    digits, and the model's next request carries the tool result. With a phone that is not one,
 *    nothing is sent and the tool result the model gets is the node's error naming the field.
 *    The canary API token is in no request the model received. The tool name and description
 *    n8n generated (from the node's name and the operation's action) are asserted.
 * 2. Human review: n8n's generated HITL variant of this node (`conversationalMessagingHitlTool`,
 *    Send and Wait by SMS) gates the node as a tool doing Short Link > Create (tool --ai_tool-->
 *    HITL --ai_tool--> agent). The model calls the gated tool, the execution waits, two reviewers
 *    each get an SMS with a short link to n8n's page, signed for them; the second approving runs
 *    the gated tool once, the output names them, and the agent finishes with its result; the
 *    first declining runs nothing and the model is told the call was rejected.
 */
import { randomUUID } from 'crypto';

import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { canaryToken } from '../reliability/results';
import type { ChatRequestBody, ModelReply, ModelServer } from './lib/model';
import { lastUserText, SCRIPTED_MODEL, startModelServer, toolResults } from './lib/model';
import { answerLinkIn } from './lib/answers';
import type { N8nServer } from './lib/n8n';
import {
	createUserFolder,
	executionStatus,
	getExecution,
	importJson,
	removeUserFolder,
	RestSession,
	sandboxCredential,
	settledExecution,
	startByWebhook,
	startN8n,
	until,
} from './lib/n8n';

const PACKAGE = 'n8n-nodes-conversational-messaging';
const TOOL_TYPE = `${PACKAGE}.conversationalMessagingTool`;
const HITL_TYPE = `${PACKAGE}.conversationalMessagingHitlTool`;

const token = canaryToken();
const credential = sandboxCredential('', token, 'cmAgentCred00001');
const openAiCredential = { id: 'cmAgentOpenAi001', name: 'Scripted model', type: 'openAiApi' };
/** The OpenAI key n8n sends to the scripted model (not a secret; searched for nothing). */
const MODEL_KEY = 'sk-scripted-e2e-key';

const SMS_WORKFLOW = 'cmAgentSms000001';
const REVIEW_WORKFLOW = 'cmAgentReview001';
/** The reviewers: a group, each with a link of their own; the first answer decides. */
const REVIEWERS = ['+57 300 555 0199', '+57 300 555 0198'];

let sandbox: Sandbox;
let model: ModelServer;
let server: N8nServer;
let session: RestSession;
let userFolder: string;

/** Each run's script, by its prompt: a run's prompt is unique, so runs never mix. */
const scripts = new Map<string, (body: ChatRequestBody) => ModelReply>();

/**
 * A two-turn script: call the tool with these arguments, then, once the tool result is in the
 * conversation, answer with it.
 */
function callThenAnswer(toolName: string, args: Record<string, unknown>) {
	return (body: ChatRequestBody): ModelReply => {
		const results = toolResults(body);
		if (results.length === 0) return { toolCalls: [{ name: toolName, arguments: args }] };
		return { content: `Final answer. The tool said: ${results[results.length - 1].content}` };
	};
}

const node = (
	name: string,
	type: string,
	typeVersion: number,
	position: [number, number],
	parameters: Record<string, unknown>,
) => ({ id: randomUUID(), name, type, typeVersion, position, parameters });

/** Webhook (answers at once) → AI Agent, on the scripted model; `tools` are wired by the caller. */
function agentWorkflow(
	id: string,
	path: string,
	tools: Array<Record<string, unknown>>,
	toolConnections: Record<string, unknown>,
) {
	return {
		id,
		name: `Agent: ${path}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				...node('Webhook', 'n8n-nodes-base.webhook', 2.1, [0, 0], {
					httpMethod: 'POST',
					path,
					responseMode: 'onReceived',
					options: {},
				}),
				webhookId: randomUUID(),
			},
			node('AI Agent', '@n8n/n8n-nodes-langchain.agent', 3.1, [220, 0], {
				promptType: 'define',
				text: '={{ $json.body.prompt }}',
				options: {},
			}),
			{
				...node('Scripted Model', '@n8n/n8n-nodes-langchain.lmChatOpenAi', 1.3, [100, 220], {
					model: { __rl: true, mode: 'id', value: SCRIPTED_MODEL },
					responsesApiEnabled: false,
					options: { maxRetries: 0 },
				}),
				credentials: { openAiApi: { id: openAiCredential.id, name: openAiCredential.name } },
			},
			...tools,
		],
		connections: {
			Webhook: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'Scripted Model': {
				ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
			},
			...toolConnections,
		},
	};
}

const cmCredentials = { conversationalMessagingApi: { id: credential.id, name: credential.name } };

/** Scenario 1: the node as the agent's tool, Messaging > Send SMS. */
const smsWorkflow = agentWorkflow(
	SMS_WORKFLOW,
	'agent-sms',
	[
		{
			...node('Send SMS', TOOL_TYPE, 1, [340, 220], {
				resource: 'messaging',
				operation: 'sendSms',
				instance: 'sms-line-1',
				to: "={{ $fromAI('to', 'Phone number of the recipient, with its country code', 'string') }}",
				message: "={{ $fromAI('message', 'Text of the SMS', 'string') }}",
			}),
			credentials: cmCredentials,
		},
	],
	{ 'Send SMS': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] } },
);

/** Scenario 2: Short Link > Create as a tool, gated by this node's HITL variant (SMS approval). */
const reviewWorkflow = agentWorkflow(
	REVIEW_WORKFLOW,
	'agent-review',
	[
		{
			...node('Create Short Link', TOOL_TYPE, 1, [340, 440], {
				resource: 'shortLink',
				operation: 'create',
				longUrl: "={{ $fromAI('longUrl', 'The web address to shorten', 'string') }}",
			}),
			credentials: cmCredentials,
		},
		{
			...node('Human Review', HITL_TYPE, 1, [340, 220], {
				resource: 'messaging',
				operation: 'sendAndWait',
				// n8n's default ("...Input:\n{{ $tool.parameters }}") renders the input object as
				// "[object Object]" in 2.41.1; this one reads the tool's name and input with $tool.
				message:
					'=The agent wants to run {{ $tool.name }} on {{ $tool.parameters.longUrl }}. Approve?',
				sendAndWaitChannel: 'sms',
				instance: 'line-1',
				to: REVIEWERS.join(', '),
				approvalOptions: { values: { approvalType: 'double' } },
			}),
			credentials: cmCredentials,
			webhookId: randomUUID(),
		},
	],
	{
		'Create Short Link': { ai_tool: [[{ node: 'Human Review', type: 'ai_tool', index: 0 }]] },
		'Human Review': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
	},
);

/** The end of n8n's log, for a failure's message. */
const logTail = () => (server ? `\n--- n8n log (tail) ---\n${server.log().slice(-4000)}` : '');

interface StoredRun {
	resultData: {
		error?: { message?: string };
		lastNodeExecuted?: string;
		runData: Record<
			string,
			Array<{
				data?: Record<string, Array<Array<{ json: Record<string, unknown> }>>>;
				error?: { message?: string };
			}>
		>;
	};
}

/** Starts a run of a workflow through its webhook, with a prompt; gives the execution's id. */
async function startRun(
	workflowId: string,
	path: string,
	prompt: string,
	script: (body: ChatRequestBody) => ModelReply,
): Promise<string> {
	scripts.set(prompt, script);
	return await startByWebhook(session, { path, workflowId, body: { prompt }, context: logTail });
}

const statusOf = (id: string) => executionStatus(session, id);

const settled = (id: string) => settledExecution<StoredRun>(session, id, { context: logTail });

/** The agent's final output (its last run's first item). */
function agentOutput(run: StoredRun): unknown {
	const runs = run.resultData.runData['AI Agent'] ?? [];
	return runs[runs.length - 1]?.data?.main?.[0]?.[0]?.json?.output;
}

/** The chat requests the model received for one prompt, in order. */
const requestsFor = (prompt: string) =>
	model.chatRequests().filter((request) => lastUserText(request.body) === prompt);

/** Requests to the sandbox's service API (its control routes left out) since `from`. */
const serviceRequestsSince = (from: number) =>
	sandbox.requests.slice(from).filter((request) => !request.path.startsWith('/__sandbox'));

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, token });
	model = await startModelServer((body) => {
		const prompt = lastUserText(body);
		const script = scripts.get(prompt);
		if (!script) throw new Error(`no script for the prompt ${JSON.stringify(prompt)}`);
		return script(body);
	});
	userFolder = createUserFolder({ install: 'copy' });
	await importJson(
		'credentials',
		[
			{ ...credential, data: { ...credential.data, baseUrl: sandbox.url } },
			{ ...openAiCredential, data: { apiKey: MODEL_KEY, url: model.baseUrl, header: false } },
		],
		{ userFolder },
	);
	await importJson('workflow', [smsWorkflow, reviewWorkflow], { userFolder });
	server = await startN8n({ userFolder });
	session = await RestSession.asOwner(server.url);
	for (const workflow of [smsWorkflow, reviewWorkflow]) await session.activate(workflow.id);
}, 180_000);

afterAll(async () => {
	await server?.stop();
	await model?.close();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

afterEach(() => {
	// A request the scripts could not answer is a failure of whichever test made it.
	expect(model.problems).toEqual([]);
});

describe('AI Agent with Conversational Messaging as a tool, in real n8n', () => {
	it('sends the SMS the model asked for, with the phone as digits, and gives the model the result', async () => {
		const prompt = 'Tell +57 300 555 0101 that order 17 has shipped. (run a)';
		const before = sandbox.requests.length;
		const id = await startRun(SMS_WORKFLOW, 'agent-sms', prompt, (body) =>
			callThenAnswer(body.tools?.[0]?.function.name ?? 'missing', {
				to: '+57 300 555 0101',
				message: 'Order 17 has shipped (run a)',
			})(body),
		);
		const { status, run, raw } = await settled(id);
		expect(status).toBe('success');
		expect(raw).not.toContain(token);

		// Exactly one SMS, to the phone's digits, with the text the model wrote.
		const sends = serviceRequestsSince(before);
		expect(sends.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v1/sms']);
		const sent = [...sandbox.state.sentMessages.values()].filter(
			(message) => message.body === 'Order 17 has shipped (run a)',
		);
		expect(sent).toHaveLength(1);
		expect(sent[0]).toEqual(
			expect.objectContaining({
				channel: 'sms',
				to: '573005550101',
				instance: 'sms-line-1',
				type: 'text',
			}),
		);

		// The model was asked twice: the tool call, then the answer with the tool result in it.
		const requests = requestsFor(prompt);
		expect(requests).toHaveLength(2);
		const [first, second] = requests.map((request) => request.body);
		expect(toolResults(first)).toEqual([]);
		const call = second.messages.find(
			(message) => message.role === 'assistant' && message.tool_calls?.length,
		)?.tool_calls?.[0];
		expect(call?.function.name).toBe('Send_SMS');
		// n8n keeps the call's id among the arguments it replays in the history.
		expect(JSON.parse(call?.function.arguments ?? '{}')).toEqual(
			expect.objectContaining({ to: '+57 300 555 0101', message: 'Order 17 has shipped (run a)' }),
		);
		const results = toolResults(second);
		expect(results).toHaveLength(1);
		expect(results[0].toolCallId).toBe(call?.id);
		// The service's answer for the message, as the node outputs it.
		expect(results[0].content).toContain(sent[0].id);
		expect(results[0].content).toContain('queued');
		expect(agentOutput(run)).toEqual(`Final answer. The tool said: ${results[0].content}`);

		// What n8n offered the model: the tool named after the node, described from the
		// operation's action, with the $fromAI() keys as its parameters.
		const tools = first.tools ?? [];
		expect(tools.map((tool) => tool.function.name)).toEqual(['Send_SMS']);
		expect(tools[0].function.description).toBe('Send an SMS in Conversational Messaging');
		const parameters = tools[0].function.parameters as {
			properties: Record<string, { type: string; description?: string }>;
			required?: string[];
		};
		expect(Object.keys(parameters.properties).sort()).toEqual(['message', 'to']);
		expect(parameters.properties.to).toEqual(
			expect.objectContaining({
				type: 'string',
				description: 'Phone number of the recipient, with its country code',
			}),
		);
		expect([...(parameters.required ?? [])].sort()).toEqual(['message', 'to']);
	});

	it('a phone that is not one: nothing is sent, and the model gets the node error naming Recipient Phone', async () => {
		const prompt = 'Text "call me maybe" that order 18 is late. (run b)';
		const before = sandbox.requests.length;
		const id = await startRun(SMS_WORKFLOW, 'agent-sms', prompt, (body) =>
			callThenAnswer(body.tools?.[0]?.function.name ?? 'missing', {
				to: 'call me maybe',
				message: 'Order 18 is late (run b)',
			})(body),
		);
		const { status, run } = await settled(id);
		// A failing tool does not fail the agent: n8n gives the error to the model as the result.
		expect(status).toBe('success');
		expect(serviceRequestsSince(before)).toEqual([]);
		expect(
			[...sandbox.state.sentMessages.values()].filter((message) => message.body.includes('run b')),
		).toEqual([]);

		const requests = requestsFor(prompt);
		expect(requests).toHaveLength(2);
		const results = toolResults(requests[1].body);
		expect(results).toHaveLength(1);
		expect(results[0].content).toContain(
			'Recipient Phone: \\"call me maybe\\" is not a phone number',
		);
		// The tool's output items as JSON: one item holding the node's error.
		expect(JSON.parse(results[0].content)).toEqual([
			{ error: expect.stringMatching(/^Recipient Phone: "call me maybe" is not a phone number/) },
		]);
		expect(agentOutput(run)).toContain('Recipient Phone');
		// The tool's run in n8n records the same error.
		const toolRuns = run.resultData.runData['Send SMS'] ?? [];
		expect(JSON.stringify(toolRuns[toolRuns.length - 1])).toContain('Recipient Phone');
	});
});

describe('AI Agent with Conversational Messaging as the human review of a tool (HITL), in real n8n', () => {
	/**
	 * Starts a run whose model calls the gated Short Link tool; waits until the execution waits
	 * and the reviewer's SMS is in the sandbox; gives the page's address behind its short link.
	 */
	async function askForReview(prompt: string, longUrl: string) {
		const messagesBefore = new Set(sandbox.state.sentMessages.keys());
		const linksBefore = new Set(sandbox.state.shortLinks.keys());
		const id = await startRun(REVIEW_WORKFLOW, 'agent-review', prompt, (body) =>
			callThenAnswer(body.tools?.[0]?.function.name ?? 'missing', {
				toolParameters: { longUrl },
				hitlParameters: {},
			})(body),
		);
		await until(
			`execution ${id} to wait`,
			async () => {
				const status = await statusOf(id);
				if (['error', 'success', 'crashed', 'canceled'].includes(status))
					throw new Error(
						`execution ${id} ended (${status}) instead of waiting: ${(await getExecution(session, id)).raw.slice(0, 3000)}`,
					);
				return status === 'waiting' ? true : undefined;
			},
			undefined,
			logTail,
		);
		const sms = [...sandbox.state.sentMessages.values()].filter(
			(message) => !messagesBefore.has(message.id),
		);
		// One SMS to each reviewer, in the order given.
		expect(sms.map((message) => message.to)).toEqual(['573005550199', '573005550198']);
		for (const message of sms) {
			expect(message).toEqual(expect.objectContaining({ channel: 'sms', instance: 'line-1' }));
			expect(message.body).not.toContain(token);
		}
		const links = sms.map((message) => answerLinkIn(message.body));
		for (const link of links) expect(link.startsWith(`${sandbox.url}/s/`)).toBe(true);
		// While it waits, the new short links are the review's (one per reviewer), not the gated tool's.
		const newLinks = [...sandbox.state.shortLinks.values()].filter(
			(shortLink) => !linksBefore.has(shortLink.idUrl),
		);
		expect(newLinks.map((shortLink) => shortLink.shortUrl).sort()).toEqual([...links].sort());
		const urls = links.map(
			(link) => newLinks.find((shortLink) => shortLink.shortUrl === link)?.longUrl ?? '',
		);
		urls.forEach((url, index) => {
			expect(url).toMatch(
				new RegExp(`^http://127\\.0\\.0\\.1:\\d+/webhook-waiting/.+\\?to=${index + 1}&signature=`),
			);
			expect(url).not.toContain(token);
		});
		return { id, sms: sms[0], urls, linksBefore };
	}

	/** As n8n's form page posts a tap on one of Approve and Decline's two buttons. */
	async function answer(url: string, decision: 'approve' | 'decline') {
		const body = new FormData();
		body.append('approved', String(decision === 'approve'));
		const response = await fetch(url, { method: 'POST', body });
		const html = await response.text();
		expect(response.status).toBe(200);
		expect(html).toContain('Your answer was recorded');
		expect(html).not.toContain(token);
	}

	it("n8n's human review variant keeps Approval only: Response Type hidden, the Custom Form's fields with it", async () => {
		type Property = {
			name: string;
			type: string;
			default?: unknown;
			displayOptions?: { show?: Record<string, unknown[]> };
		};
		const types = await session.request<
			| { data: Array<{ name: string; properties: Property[] }> }
			| Array<{ name: string; properties: Property[] }>
		>('GET', '/types/nodes.json');
		const hitl = (Array.isArray(types) ? types : types.data).find(
			(type) => type.name === HITL_TYPE,
		);
		const named = (name: string) => hitl?.properties.filter((property) => property.name === name);
		expect(named('responseType')).toEqual([
			expect.objectContaining({ type: 'hidden', default: 'approval' }),
		]);
		const formFields = ['defineForm', 'formFields', 'jsonOutput'].flatMap(
			(name) => named(name) ?? [],
		);
		expect(formFields).toHaveLength(3);
		for (const field of formFields)
			expect(field.displayOptions?.show?.responseType).toEqual(['customForm']);
	});

	it('approve: the gated tool runs once, and the agent finishes with its result', async () => {
		const prompt = 'Shorten https://shop.example/spring-sale?run=approve for the campaign.';
		const longUrl = 'https://shop.example/spring-sale?run=approve';
		const { id, sms, urls, linksBefore } = await askForReview(prompt, longUrl);
		// The second reviewer answers.
		const url = urls[1];
		// The review message as configured, with the tool's name and input from $tool.
		expect(sms.body.replace(/\S+$/, '<link>')).toBe(
			`The agent wants to run Create_Short_Link on ${longUrl}. Approve?\n\nAnswer here: <link>`,
		);

		// The model offered the gated tool under its own name, its input wrapped for the review.
		const [first] = requestsFor(prompt).map((request) => request.body);
		const tools = first.tools ?? [];
		expect(tools.map((tool) => tool.function.name)).toEqual(['Create_Short_Link']);
		expect(tools[0].function.description).toBe('Create a short link in Conversational Messaging');
		expect(
			Object.keys(
				(tools[0].function.parameters as { properties: Record<string, unknown> }).properties,
			).sort(),
		).toEqual(['hitlParameters', 'toolParameters']);

		// The gated tool has not run while the review waits.
		expect(
			[...sandbox.state.shortLinks.values()].filter((shortLink) => shortLink.longUrl === longUrl),
		).toEqual([]);
		expect(requestsFor(prompt)).toHaveLength(1);

		// Opening the page shows the question and decides nothing.
		const page = await fetch(url);
		const html = await page.text();
		expect(page.status).toBe(200);
		expect(html).toContain('The agent wants to run Create_Short_Link');
		expect(html).toContain('Decline');
		expect(await statusOf(id)).toBe('waiting');

		const before = sandbox.requests.length;
		await answer(url, 'approve');
		const { status, run, raw } = await settled(id);
		expect(status).toBe('success');
		// The approval ran the gated tool, once, and nothing else.
		expect(
			serviceRequestsSince(before).map((request) => `${request.method} ${request.path}`),
		).toEqual(['POST /v1/short']);
		const created = [...sandbox.state.shortLinks.values()].filter(
			(shortLink) => !linksBefore.has(shortLink.idUrl) && shortLink.longUrl === longUrl,
		);
		expect(created).toHaveLength(1);
		// The review node's output as the agent read it: our webhook's answer, naming who gave it.
		const review = JSON.stringify(run.resultData.runData['Human Review']);
		expect(review).toContain('"approved":true');
		expect(review).toContain('"respondedBy":{"recipient":"573005550198"');

		const requests = requestsFor(prompt);
		expect(requests).toHaveLength(2);
		const results = toolResults(requests[1].body);
		expect(results).toHaveLength(1);
		expect(results[0].content).toContain(created[0].shortUrl);
		expect(agentOutput(run)).toContain(created[0].shortUrl);
		expect(raw).not.toContain(token);
	});

	it('decline: the gated tool does not run, and the model is told the call was rejected', async () => {
		const prompt = 'Shorten https://shop.example/spring-sale?run=decline for the campaign.';
		const longUrl = 'https://shop.example/spring-sale?run=decline';
		const { id, urls } = await askForReview(prompt, longUrl);
		const before = sandbox.requests.length;
		await answer(urls[0], 'decline');
		const { status, run, raw } = await settled(id);
		expect(status).toBe('success');
		expect(serviceRequestsSince(before)).toEqual([]);
		expect(
			[...sandbox.state.shortLinks.values()].filter((shortLink) => shortLink.longUrl === longUrl),
		).toEqual([]);
		expect(JSON.stringify(run.resultData.runData['Human Review'])).toContain('"approved":false');

		const requests = requestsFor(prompt);
		expect(requests).toHaveLength(2);
		const call = requests[1].body.messages.find(
			(message) => message.role === 'assistant' && message.tool_calls?.length,
		)?.tool_calls?.[0];
		const results = toolResults(requests[1].body);
		expect(results).toHaveLength(1);
		expect(results[0].toolCallId).toBe(call?.id);
		expect(results[0].content).toMatch(/rejected the tool call to Create Short Link/);
		expect(results[0].content).not.toContain(sandbox.shortLinkBase);
		expect(agentOutput(run)).toMatch(/rejected/);
		expect(raw).not.toContain(token);
	});
});

describe('across every run of this file', () => {
	it('the canary API token is in no request the model server received', () => {
		// Both scenarios: 2 requests each for the SMS runs, 2 each for the review runs.
		expect(model.chatRequests()).toHaveLength(8);
		// Chat Completions only: the Responses API is off in the model node.
		expect([
			...new Set(model.requests.map((request) => `${request.method} ${request.path}`)),
		]).toEqual(['POST /v1/chat/completions']);
		const leaks = model.requests.filter(
			(request) => request.raw.includes(token) || JSON.stringify(request.headers).includes(token),
		);
		expect(leaks).toEqual([]);
		// The model's own key is what authenticated n8n to it.
		expect(
			model
				.chatRequests()
				.every((request) => request.headers.authorization === `Bearer ${MODEL_KEY}`),
		).toBe(true);
	});
});
