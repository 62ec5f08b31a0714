// Fault injection: sandbox-only, no such thing exists in the real service.
import * as http from 'http';

import type { OperationId } from './handlers';
import { errorEnvelope, readBody, sendJson } from './http-io';

export interface FaultMatch {
	/** One operationId, or a list: the request's must be one of them. */
	operationId?: string | string[];
	/** Exact request path without query string. */
	path?: string;
	/** Query parameters the request must carry, with these values. */
	query?: Record<string, string>;
	/** Fields the JSON body must carry at its top level, with these values (`{ "to": "573001234567" }`). */
	body?: Record<string, string>;
}
export type Fault = { match?: FaultMatch; times?: number } & (
	| { kind: 'latency'; ms: number }
	| { kind: 'status'; status: number; retryAfter?: number; html?: boolean }
	/** HTTP 200 with an error envelope (statusCode default 400). */
	| { kind: 'errTrue'; message?: string; statusCode?: number }
	| { kind: 'malformed' }
	| { kind: 'empty' }
	| { kind: 'drop' }
	/**
	 * A redirect (301, 302, 303, 307, 308) to the same path and query on another host: `to` (an
	 * origin), by default the sandbox's other loopback host (`elsewhere`).
	 */
	| { kind: 'redirect'; status: number; to?: string }
	/**
	 * The service carries the request out (the handler runs, the state keeps what it did), then the
	 * connection is cut before any byte of the answer: the client cannot tell whether it happened.
	 */
	| { kind: 'cutAfterCommit' }
);
/** The faults that answer instead of the service. */
export type TerminalFault = Exclude<Fault, { kind: 'latency' | 'cutAfterCommit' }>;
const FAULT_KINDS = new Set<string>([
	'latency',
	'status',
	'errTrue',
	'malformed',
	'empty',
	'drop',
	'redirect',
	'cutAfterCommit',
]);

/** The operations that send a message (each leaves one in `state.sentMessages`): what --cut-after-commit cuts. */
export const SEND_OPERATION_IDS: OperationId[] = [
	'smsSend',
	'socialnetSend',
	'legacyMessageSend',
	'liveChatMessageSend',
];

/** The body of `POST /__sandbox/faults`: one fault or an array of them. */
export function parseFaults(raw: string): { faults: Fault[] } | { error: string } {
	let list: Fault[];
	try {
		const parsed = JSON.parse(raw) as Fault | Fault[];
		list = Array.isArray(parsed) ? parsed : [parsed];
	} catch {
		return { error: 'body must be a fault or an array of faults (JSON)' };
	}
	if (list.some((f) => !f || !FAULT_KINDS.has(f.kind)))
		return { error: `kind must be one of ${[...FAULT_KINDS].join(', ')}` };
	return { faults: list };
}

/** The injected faults, each with the number of requests it may still hit. */
export class FaultList {
	private active: Array<{ fault: Fault; left: number }> = [];

	get size(): number {
		return this.active.length;
	}

	add(fault: Fault): void {
		this.active.push({ fault, left: fault.times ?? Infinity });
	}

	clear(): void {
		this.active = [];
	}

	/**
	 * What a request meets: the sum of the matching latencies and the first matching fault of the
	 * other kinds, one outcome per request: a terminal fault (answers instead of the service) or
	 * cutAfterCommit (the service answers, the answer is lost).
	 */
	take(
		operationId: string | null,
		path: string,
		query: Record<string, unknown>,
		body?: unknown,
	): { latency: number; terminal?: TerminalFault; cutAfterCommit: boolean } {
		let latency = 0;
		let terminal: TerminalFault | undefined;
		let cutAfterCommit = false;
		for (const f of this.active) {
			if (f.left <= 0 || !matches(f.fault.match, operationId, path, query, body)) continue;
			if (f.fault.kind === 'latency') latency += f.fault.ms;
			else if (terminal || cutAfterCommit) continue;
			else if (f.fault.kind === 'cutAfterCommit') cutAfterCommit = true;
			else terminal = f.fault;
			f.left--;
		}
		if (this.active.some((f) => f.left <= 0)) this.active = this.active.filter((f) => f.left > 0);
		return { latency, terminal, cutAfterCommit };
	}
}

function matches(
	m: FaultMatch | undefined,
	operationId: string | null,
	path: string,
	query: Record<string, unknown>,
	body: unknown,
): boolean {
	if (!m) return true;
	if (m.operationId && ![m.operationId].flat().includes(operationId as string)) return false;
	if (m.path && m.path !== path) return false;
	const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
	if (m.body && !Object.entries(m.body).every(([name, value]) => String(fields[name]) === value))
		return false;
	return !m.query || Object.entries(m.query).every(([name, value]) => query[name] === value);
}

/** Answers as the fault says; returns the HTTP status sent (0 when the connection is dropped). */
export function sendFault(
	req: http.IncomingMessage,
	res: http.ServerResponse,
	f: TerminalFault,
	elsewhereUrl: string,
): number {
	switch (f.kind) {
		case 'redirect': {
			res.writeHead(f.status, {
				location: `${f.to ?? elsewhereUrl}${req.url ?? '/'}`,
				'content-length': 0,
			});
			res.end();
			return f.status;
		}
		case 'status': {
			const headers: http.OutgoingHttpHeaders =
				f.retryAfter === undefined ? {} : { 'retry-after': String(f.retryAfter) };
			const reason = http.STATUS_CODES[f.status] ?? 'Error';
			if (!f.html) {
				sendJson(res, f.status, errorEnvelope(f.status, reason), headers);
				return f.status;
			}
			const html = `<html><head><title>${f.status} ${reason}</title></head><body><h1>${f.status} ${reason}</h1></body></html>`;
			res.writeHead(f.status, {
				'content-type': 'text/html; charset=utf-8',
				'content-length': Buffer.byteLength(html),
				...headers,
			});
			res.end(html);
			return f.status;
		}
		case 'errTrue':
			sendJson(
				res,
				200,
				errorEnvelope(f.statusCode ?? 400, f.message ?? 'Simulated service error'),
			);
			return 200;
		case 'malformed': {
			const text = '{"statusCode":200,"body":{"err":false,';
			res.writeHead(200, {
				'content-type': 'application/json; charset=utf-8',
				'content-length': Buffer.byteLength(text),
			});
			res.end(text);
			return 200;
		}
		case 'empty':
			res.writeHead(200, {
				'content-type': 'application/json; charset=utf-8',
				'content-length': 0,
			});
			res.end();
			return 200;
		case 'drop': {
			// Promise a full body, deliver half of it, then cut the connection.
			const text = JSON.stringify({ statusCode: 200, body: { err: false, id: 'dropped' } });
			res.writeHead(200, {
				'content-type': 'application/json; charset=utf-8',
				'content-length': Buffer.byteLength(text),
			});
			res.write(text.slice(0, text.length >> 1), () => res.socket?.destroy());
			return 0;
		}
	}
}

/** What reached the other host a redirect points to. */
export interface ElsewhereRequest {
	method: string;
	url: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/** The other loopback host of redirect faults: records what reaches it, answers like a send. */
export async function startElsewhere(): Promise<{
	url: string;
	requests: ElsewhereRequest[];
	close(): Promise<void>;
}> {
	const requests: ElsewhereRequest[] = [];
	const server = http.createServer((req, res) => {
		readBody(req).then(
			(body) => {
				requests.push({
					method: req.method ?? 'GET',
					url: req.url ?? '/',
					headers: req.headers,
					body,
				});
				sendJson(res, 200, {
					statusCode: 200,
					body: { err: false, id: 'elsewhere', status: 'queued' },
				});
			},
			() => res.destroy(),
		);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.2', () => resolve());
	});
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.2:${port}`,
		requests,
		close: async () => {
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await closed;
		},
	};
}
