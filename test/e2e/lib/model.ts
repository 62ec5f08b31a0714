/**
 * A scripted OpenAI-compatible chat model on 127.0.0.1, for n8n's AI Agent in the end-to-end
 * suites: POST /v1/chat/completions (and /chat/completions) answers what the test's script says
 * for the conversation it received (tool calls, or a final answer), as JSON or, when the client
 * asks for `stream: true`, as server-sent events. GET /v1/models lists the one scripted model.
 * Every request is recorded as it arrived (headers, raw body, parsed body), so a test can read
 * what the agent sent: the tools it offered, the tool results, and whatever else went out.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

export const SCRIPTED_MODEL = 'scripted-model-1';

export interface ModelToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

export interface ModelMessage {
	role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | string;
	/** Text, or content parts (`[{ type: 'text', text }]`) as some clients send them. */
	content?: string | Array<{ type: string; text?: string }> | null;
	tool_calls?: ModelToolCall[];
	tool_call_id?: string;
	name?: string;
}

export interface ModelTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequestBody {
	model?: string;
	messages: ModelMessage[];
	tools?: ModelTool[];
	stream?: boolean;
	stream_options?: { include_usage?: boolean };
	[key: string]: unknown;
}

export interface RecordedModelRequest {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	/** The body as received, before parsing: what a leak search should look at. */
	raw: string;
	/** The parsed body of a chat completion request. */
	body?: ChatRequestBody;
	/** The HTTP status the server answered. */
	status: number;
}

/** What the script tells the model to answer. */
export type ModelReply =
	| {
			toolCalls: Array<{ name: string; arguments: Record<string, unknown>; id?: string }>;
			content?: string;
	  }
	| { content: string }
	/** An API error, as OpenAI sends them. */
	| { status: number; error: string };

export type ModelScript = (
	body: ChatRequestBody,
	request: RecordedModelRequest,
) => ModelReply | Promise<ModelReply>;

export interface ModelServer {
	/** http://127.0.0.1:<port> */
	url: string;
	/** The base URL a client (n8n's OpenAI credential `url`) is given: `${url}/v1`. */
	baseUrl: string;
	requests: RecordedModelRequest[];
	/** The chat completion requests only, in arrival order. */
	chatRequests(): Array<RecordedModelRequest & { body: ChatRequestBody }>;
	/** Scripts that threw, and requests the server could not read: the test should see none. */
	problems: string[];
	close(): Promise<void>;
}

/** The text of a message, whichever shape its content has. */
export function textOf(message: ModelMessage | undefined): string {
	const content = message?.content;
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
	return '';
}

/** The tool results in a conversation (role `tool`), in order. */
export function toolResults(
	body: ChatRequestBody,
): Array<{ toolCallId: string | undefined; content: string }> {
	return body.messages
		.filter((message) => message.role === 'tool')
		.map((message) => ({ toolCallId: message.tool_call_id, content: textOf(message) }));
}

/** The last user message of a conversation. */
export function lastUserText(body: ChatRequestBody): string {
	return textOf([...body.messages].reverse().find((message) => message.role === 'user'));
}

function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
	});
	res.end(text);
}

const openAiError = (message: string, type = 'invalid_request_error') => ({
	error: { message, type, param: null, code: null },
});

export async function startModelServer(script: ModelScript): Promise<ModelServer> {
	const requests: RecordedModelRequest[] = [];
	const problems: string[] = [];
	let completions = 0;
	let callIds = 0;

	const server = http.createServer((req, res) => {
		void (async () => {
			const path = (req.url ?? '/').split('?')[0];
			const recorded: RecordedModelRequest = {
				method: req.method ?? '',
				path,
				headers: req.headers,
				raw: '',
				status: 0,
			};
			requests.push(recorded);
			const answer = (status: number, body: unknown) => {
				recorded.status = status;
				sendJson(res, status, body);
			};
			try {
				recorded.raw = await readBody(req);
				if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
					return answer(200, {
						object: 'list',
						data: [{ id: SCRIPTED_MODEL, object: 'model', created: 0, owned_by: 'e2e' }],
					});
				}
				if (
					req.method !== 'POST' ||
					!(path === '/v1/chat/completions' || path === '/chat/completions')
				) {
					return answer(
						404,
						openAiError(`No route ${req.method} ${path} on the scripted model server`),
					);
				}
				let body: ChatRequestBody;
				try {
					body = JSON.parse(recorded.raw) as ChatRequestBody;
				} catch {
					problems.push(`unparseable chat request body: ${recorded.raw.slice(0, 200)}`);
					return answer(400, openAiError('The body is not JSON'));
				}
				recorded.body = body;
				if (!Array.isArray(body.messages)) {
					problems.push('chat request without messages');
					return answer(400, openAiError('messages is required'));
				}
				let reply: ModelReply;
				try {
					reply = await script(body, recorded);
				} catch (error) {
					problems.push(`script failed: ${(error as Error).message}`);
					return answer(
						500,
						openAiError(`The script failed: ${(error as Error).message}`, 'server_error'),
					);
				}
				if ('status' in reply) return answer(reply.status, openAiError(reply.error));

				const id = `chatcmpl-scripted-${++completions}`;
				const created = Math.floor(Date.now() / 1000);
				const model = body.model ?? SCRIPTED_MODEL;
				const toolCalls: ModelToolCall[] | undefined =
					'toolCalls' in reply
						? reply.toolCalls.map((call) => ({
								id: call.id ?? `call_scripted_${++callIds}`,
								type: 'function',
								function: { name: call.name, arguments: JSON.stringify(call.arguments) },
							}))
						: undefined;
				const content = reply.content ?? (toolCalls ? null : '');
				const finishReason = toolCalls ? 'tool_calls' : 'stop';
				const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

				if (body.stream === true) {
					recorded.status = 200;
					res.writeHead(200, {
						'content-type': 'text/event-stream',
						'cache-control': 'no-cache',
						connection: 'keep-alive',
					});
					const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
						res.write(
							`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`,
						);
					chunk([
						{ index: 0, delta: { role: 'assistant', content: content ?? '' }, finish_reason: null },
					]);
					toolCalls?.forEach((call, index) =>
						chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }]),
					);
					chunk([{ index: 0, delta: {}, finish_reason: finishReason }]);
					if (body.stream_options?.include_usage) chunk([], { usage });
					res.end('data: [DONE]\n\n');
					return;
				}
				return answer(200, {
					id,
					object: 'chat.completion',
					created,
					model,
					choices: [
						{
							index: 0,
							message: {
								role: 'assistant',
								content,
								...(toolCalls ? { tool_calls: toolCalls } : {}),
							},
							logprobs: null,
							finish_reason: finishReason,
						},
					],
					usage,
				});
			} catch (error) {
				problems.push(`server error: ${(error as Error).message}`);
				if (!res.headersSent)
					answer(500, openAiError('Scripted model server error', 'server_error'));
				else res.end();
			}
		})();
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	const url = `http://127.0.0.1:${port}`;
	return {
		url,
		baseUrl: `${url}/v1`,
		requests,
		problems,
		chatRequests: () =>
			requests.filter(
				(request): request is RecordedModelRequest & { body: ChatRequestBody } =>
					request.body !== undefined,
			),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
