// Local emulator of the Conversational Messaging Service. Routing and request validation come from
// sandbox/openapi.yaml through openapi-backend; state is in memory and deterministic from the seed.
// This file is the HTTP server: the request pipeline, the /__sandbox/* control routes and the
// Sandbox handle; contract.ts, state.ts, handlers.ts, faults.ts, rate-limit.ts, outage.ts and clock.ts
// hold the rest.
// Beside the API, for people: the inbox page at / and /inbox, and the short links at /s/<idUrl>
// (inbox.ts).
import * as http from 'http';
import type { Operation, Request as ApiRequest } from 'openapi-backend';

import { realClock, type Clock } from './clock';
import { describeError, loadContract } from './contract';
import {
	FaultList,
	parseFaults,
	sendFault,
	startElsewhere,
	type ElsewhereRequest,
	type Fault,
} from './faults';
import {
	makeHandlers,
	ServiceError,
	viewResearcher,
	type Body,
	type OperationId,
} from './handlers';
import { errorEnvelope, readBody, sendJson } from './http-io';
import {
	hideAll,
	INBOX_PATHS,
	INBOX_STAMP_PATH,
	inboxStamp,
	parseInboxQuery,
	renderInbox,
	sendHtml,
	serveShortLink,
} from './inbox';
import { Outage, parseOutageBody } from './outage';
import {
	parseRateLimitBody,
	RateLimiter,
	sendRefusal,
	type RateLimit,
	type Refusal,
} from './rate-limit';
import { makeRng, seedState, SHORT_LINK_PATH, type SandboxState } from './state';

// What other files import from the sandbox, from its one entry point.
export { FakeClock, realClock, type Clock } from './clock';
export { CONTRACT_PATH, loadContract } from './contract';
export { SEND_OPERATION_IDS, type ElsewhereRequest, type Fault, type FaultMatch } from './faults';
export { OPERATION_IDS, type OperationId } from './handlers';
export type { OutageView } from './outage';
export type { RateLimit } from './rate-limit';
export { INBOX_PATHS } from './inbox';
export { SHORT_LINK_PATH } from './state';
export type {
	Agent,
	Campaign,
	Client,
	Contact,
	CrmLead,
	LiveChatSession,
	Product,
	Researcher,
	ResearcherFile,
	SandboxState,
	SentMessage,
	ShortLink,
} from './state';

// Alphanumeric like real tokens (the contract describes them so); it is a sandbox, not a secret.
export const DEMO_TOKEN = 'demotoken0000';

export interface SandboxOptions {
	/** 0 = a free port. */
	port?: number;
	seed?: number;
	token?: string;
	/** Duration of a researcher run, from status 1 to completion. */
	researcherRunMs?: number;
	/** false: keep no RecordedRequest objects (stats are still counted). */
	recordRequests?: boolean;
	/** Ring limit of `requests`; the oldest are dropped first. */
	maxRecorded?: number;
	/** Emulate a service that reports errors only in the envelope: every error goes out as HTTP 200. */
	errorsAsHttp200?: boolean;
	/** How many campaigns to seed (23 by default: three pages of 10, the documented example size). */
	campaigns?: number;
	/**
	 * Emulate a service behind a gateway that allows `perSecond` requests a second, `burst` at once,
	 * and optionally only `maxConcurrent` in hand. The gateway's refusals (429, 503) keep their HTTP
	 * status even with errorsAsHttp200: they never reach the service.
	 */
	rateLimit?: RateLimit;
	/**
	 * The time the sandbox runs on: real time by default. A test passes a FakeClock and moves it,
	 * so that rate limits, outages, researcher runs and latency faults follow its steps.
	 */
	clock?: Clock;
}

export type TokenLocation = 'body' | 'query:token' | 'query:api-token';

export interface RecordedRequest {
	method: string;
	path: string;
	query: Record<string, unknown>;
	body: unknown;
	headers: Record<string, string | string[] | undefined>;
	operationId: string | null;
	/** Whether the request honours the contract (route, parameters, body, token present). */
	valid: boolean;
	errors: string[];
	/** Where a valid token was found, else where a token was offered, else null. */
	tokenLocation: TokenLocation | null;
	/**
	 * HTTP status sent; 0 when the connection was dropped. With cutAfterCommit, the status the
	 * service answered with, which the cut kept from the client.
	 */
	status: number;
	/** The injected fault it met, or the rate limit that refused it. */
	fault: Fault['kind'] | Refusal['kind'] | null;
}

export interface SandboxStats {
	total: number;
	/** Requests per operationId; unrouted requests count under `(none)`. */
	byOperation: Record<string, number>;
	violations: number;
	tokenLocations: Record<TokenLocation | 'none', number>;
	/** The latest 100 contract violations. */
	lastViolations: Array<Pick<RecordedRequest, 'method' | 'path' | 'operationId' | 'errors'>>;
	/** Refused with 429: no token left in the rate limit's bucket. */
	rateLimited: number;
	/** Refused with 503: more than the rate limit's maxConcurrent in hand. */
	overloaded: number;
	/** Outages started (one extended by another counts once). */
	outages: number;
}

export interface Sandbox {
	/** `http://127.0.0.1:<port>`: the API, and for people the inbox page at `/` (or `/inbox`). */
	url: string;
	port: number;
	/** The inbox page: every message sent, newest first, with its links (`<url>/`). */
	inboxUrl: string;
	/** Where short links start: `<url>/s`; `<url>/s/<idUrl>` redirects to the link's long URL. */
	shortLinkBase: string;
	/** The current token (changes on rotateToken and reset). */
	readonly token: string;
	requests: RecordedRequest[];
	/** Live state; replaced by reset(). */
	readonly state: SandboxState;
	stats(): SandboxStats;
	/** The researcher as the service shows it now (status, progress, output computed from time). */
	researcherView(id: string): Record<string, unknown> | undefined;
	rotateToken(): string;
	/**
	 * Another host on loopback (127.0.0.2), where redirect faults point by default: it records
	 * every request and answers like a successful send, as a hijacked address would.
	 */
	elsewhere: { url: string; requests: ElsewhereRequest[] };
	injectFault(f: Fault): void;
	clearFaults(): void;
	/** The rate limit in force, or null. */
	readonly rateLimit: RateLimit | null;
	/** Sets (with a full bucket) or, with null, lifts the rate limit until reset(). Throws on an invalid limit. */
	setRateLimit(limit: RateLimit | null): void;
	/**
	 * Stops listening for `ms`, then listens again on the same host and port: meanwhile new
	 * connections are refused (ECONNREFUSED); connections already accepted stay open and their
	 * requests are answered. Resolves when it listens again, or when close() ends the outage;
	 * rejects if the port cannot be had again, or on an invalid `ms` (an integer from 0 up).
	 * Asked for during an outage, it extends it to whichever end is later.
	 */
	outage(ms: number): Promise<void>;
	/** False during an outage. */
	readonly listening: boolean;
	/** During an outage, when it is due to end (the clock's time); else undefined. */
	readonly outageEndsAt: number | undefined;
	/**
	 * Back to the seeded state, initial token, no faults, the option's rate limit, no recorded
	 * requests. An outage under way goes on.
	 */
	reset(): void;
	/** Also during an outage: ends it without listening again. */
	close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const { api, queryTokenNames } = await loadContract();
	const seed = options.seed ?? 1;
	const initialToken = options.token ?? DEMO_TOKEN;
	const recordRequests = options.recordRequests ?? true;
	const maxRecorded = options.maxRecorded ?? 10_000;
	const clock = options.clock ?? realClock;

	// Refuses an invalid limit before anything listens (it would be left open).
	const limiter = new RateLimiter(options.rateLimit ?? null, clock);
	// Listening first, so that the short links (the seeded one too) carry the sandbox's own address
	// when the port is chosen by the system (port 0). The requests are handled once all is set up,
	// below, with no await in between.
	const elsewhere = await startElsewhere();
	const server = http.createServer();
	try {
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
		});
	} catch (err) {
		await elsewhere.close();
		throw err;
	}
	const port = (server.address() as { port: number }).port;
	const url = `http://127.0.0.1:${port}`;
	const shortLinkBase = `${url}${SHORT_LINK_PATH}`;

	let rng = makeRng(seed);
	let seq = 0;
	let state = seedState(rng, options.campaigns ?? 23, shortLinkBase);
	/** Counts resets, for the inbox page to notice one. */
	let epoch = 0;
	let token = initialToken;
	/** Every API token this sandbox issued (rotated out or not, across resets): never shown on its pages. */
	const issuedTokens = new Set<string>([initialToken]);
	const faults = new FaultList();
	const requests: RecordedRequest[] = [];
	let stats: SandboxStats;
	const resetStats = () => {
		stats = {
			total: 0,
			byOperation: {},
			violations: 0,
			tokenLocations: { body: 0, 'query:token': 0, 'query:api-token': 0, none: 0 },
			lastViolations: [],
			rateLimited: 0,
			overloaded: 0,
			outages: 0,
		};
	};
	resetStats();
	const handlers = makeHandlers({
		get state() {
			return state;
		},
		id: (prefix) => `${prefix}_${(++seq).toString(36).padStart(3, '0')}${rng.chars(5)}`,
		researcherRunMs: options.researcherRunMs ?? 3000,
		shortLinkBase,
	});
	/** The latency faults' waits under way, each by the function that cancels it (on close). */
	const delays = new Set<() => void>();
	const delay = (ms: number) =>
		new Promise<void>((resolve) => {
			const cancel = clock.after(ms, () => {
				delays.delete(cancel);
				resolve();
			});
			delays.add(cancel);
		});

	const sendError = (res: http.ServerResponse, status: number, message: string) =>
		sendJson(res, options.errorsAsHttp200 ? 200 : status, errorEnvelope(status, message));

	const record = (r: RecordedRequest) => {
		stats.total++;
		const key = r.operationId ?? '(none)';
		stats.byOperation[key] = (stats.byOperation[key] ?? 0) + 1;
		stats.tokenLocations[r.tokenLocation ?? 'none']++;
		if (!r.valid) {
			stats.violations++;
			stats.lastViolations.push({
				method: r.method,
				path: r.path,
				operationId: r.operationId,
				errors: r.errors,
			});
			if (stats.lastViolations.length > 100) stats.lastViolations.shift();
		}
		if (!recordRequests) return;
		requests.push(r);
		if (requests.length > maxRecorded) requests.shift();
	};

	/** Every API token issued, never shown on the pages nor in /__sandbox/messages. */
	const secrets = () => [...issuedTokens];

	const control = async (
		req: http.IncomingMessage,
		res: http.ServerResponse,
		path: string,
		raw: string,
	) => {
		const route = `${req.method} ${path}`;
		if (route === 'GET /__sandbox/requests') return sendJson(res, 200, stats);
		// What recipients got, newest first, with the short links: to read a message (and open its link) by hand.
		// The same as a page: the inbox (/).
		if (route === 'GET /__sandbox/messages') {
			const sentAt = (id: string) => {
				const at = state.sentAt.get(id);
				return at === undefined ? {} : { sentAt: new Date(at).toISOString() };
			};
			const messages = [...state.sentMessages.values()]
				.reverse()
				.map((m) => ({ ...m, ...sentAt(m.id) }));
			// Linked from the inbox: the tokens hidden as there.
			return sendJson(
				res,
				200,
				hideAll(
					{ inbox: `${url}/`, messages, shortLinks: [...state.shortLinks.values()] },
					secrets(),
				),
			);
		}
		if (route === 'POST /__sandbox/rotate-token')
			return sendJson(res, 200, { token: sandbox.rotateToken() });
		if (route === 'POST /__sandbox/reset') {
			sandbox.reset();
			return sendJson(res, 200, { token });
		}
		if (route === 'DELETE /__sandbox/faults') {
			sandbox.clearFaults();
			return sendJson(res, 200, { faults: 0 });
		}
		if (route === 'POST /__sandbox/faults') {
			const parsed = parseFaults(raw);
			if ('error' in parsed) return sendJson(res, 400, parsed);
			parsed.faults.forEach((f) => sandbox.injectFault(f));
			return sendJson(res, 200, { faults: faults.size });
		}
		if (route === 'GET /__sandbox/outage') return sendJson(res, 200, outage.view);
		if (route === 'POST /__sandbox/outage') {
			const parsed = parseOutageBody(raw);
			if ('error' in parsed) return sendJson(res, 400, parsed);
			// Only once the answer is out: the caller learns the outage is coming before it cannot connect.
			res.once('finish', () => startOutage(parsed.ms));
			return sendJson(res, 200, { ms: parsed.ms });
		}
		if (route === 'GET /__sandbox/rate-limit') return sendJson(res, 200, limiter.current);
		if (route === 'PUT /__sandbox/rate-limit') {
			const parsed = parseRateLimitBody(raw);
			if ('error' in parsed) return sendJson(res, 400, parsed);
			sandbox.setRateLimit(parsed.limit);
			return sendJson(res, 200, limiter.current);
		}
		return sendJson(res, 404, { error: `no sandbox control route ${route}` });
	};

	/** The pages for people (inbox, short links): true when `path` is one, answered. Not API requests: not recorded. */
	const page = (
		req: http.IncomingMessage,
		res: http.ServerResponse,
		path: string,
		rawQuery: string,
	): boolean => {
		if (req.method !== 'GET' && req.method !== 'HEAD') return false;
		const head = req.method === 'HEAD';
		if (INBOX_PATHS.includes(path)) {
			const { html, nonce } = renderInbox(state, {
				url,
				secrets: secrets(),
				stamp: inboxStamp(state, epoch),
				...parseInboxQuery(new URLSearchParams(rawQuery)),
			});
			sendHtml(res, 200, html, head, nonce);
			return true;
		}
		if (path === INBOX_STAMP_PATH) {
			sendJson(res, 200, { stamp: inboxStamp(state, epoch) }, { 'cache-control': 'no-store' });
			return true;
		}
		return serveShortLink(res, path, head, state, url, secrets());
	};

	const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
		const url = req.url ?? '/';
		const q = url.indexOf('?');
		const path = q < 0 ? url : url.slice(0, q);
		if (path.startsWith('/__sandbox/')) return control(req, res, path, await readBody(req));
		if (page(req, res, path, q < 0 ? '' : url.slice(q + 1))) {
			req.resume();
			return;
		}

		// Who answers, in order: the gateway's rate limit, on arrival; then injected faults; then the
		// service (route, token, contract, handler). A real gateway refuses before the service looks at
		// the request. Every request is still checked against the contract and recorded: that is the
		// sandbox watching the client, not an answer.
		const refusal = limiter.admit(res);
		const raw = await readBody(req);

		let body: unknown;
		if (raw !== '') {
			try {
				body = JSON.parse(raw);
			} catch {
				body = raw; // the validator reports it as malformed JSON
			}
		}
		const rawQuery = q < 0 ? '' : url.slice(q + 1);
		const query: Record<string, unknown> = Object.fromEntries(new URLSearchParams(rawQuery));
		const apiReq: ApiRequest = {
			method: req.method ?? 'GET',
			path,
			query: rawQuery,
			headers: req.headers as ApiRequest['headers'],
			body,
		};
		let operation: Operation | undefined;
		let routeError: ServiceError | undefined;
		try {
			operation = api.router.matchOperation(apiReq, true);
		} catch (err) {
			routeError = String(err.message).startsWith('405')
				? new ServiceError(405, `Method ${apiReq.method} not allowed on ${path}`)
				: new ServiceError(404, `Route ${apiReq.method} ${path} not found`);
		}
		const errors: string[] = [];
		let input: ApiRequest | undefined;
		if (operation) {
			const validation = api.validator.validateRequest(apiReq, operation);
			// coerced carries the path parameters and the typed query (e.g. page as a number)
			input = validation.coerced;
			for (const e of validation.errors ?? []) {
				const message = describeError(e);
				if (message && !errors.includes(message)) errors.push(message);
			}
		} else {
			errors.push(routeError!.message);
		}

		// The token may travel in the body or in one of the query parameters the contract declares.
		const offered: Array<[TokenLocation, unknown]> = [];
		if (body && typeof body === 'object' && 'token' in body)
			offered.push(['body', (body as Body).token]);
		for (const name of queryTokenNames)
			if (query[name] !== undefined) offered.push([`query:${name}` as TokenLocation, query[name]]);
		const accepted = offered.find(([, value]) => value === token);
		if (offered.length === 0)
			errors.push('token is missing (body token, query token or api-token)');

		const operationId = operation?.operationId ?? null;
		const rec: RecordedRequest = {
			method: apiReq.method,
			path,
			query,
			body,
			headers: req.headers,
			operationId,
			valid: errors.length === 0,
			errors,
			tokenLocation: (accepted ?? offered[0])?.[0] ?? null,
			status: 0,
			fault: null,
		};
		record(rec);

		if (refusal) {
			rec.fault = refusal.kind;
			rec.status = refusal.status;
			stats[refusal.kind]++;
			return sendRefusal(res, refusal);
		}
		const { latency, terminal, cutAfterCommit } = faults.take(operationId, path, query, body);
		if (latency) {
			rec.fault = 'latency';
			await delay(latency);
		}
		if (terminal) {
			rec.fault = terminal.kind;
			rec.status = sendFault(req, res, terminal, elsewhere.url);
			return;
		}
		const refused =
			routeError ??
			(!accepted
				? new ServiceError(401, 'Unauthorized')
				: errors.length
					? new ServiceError(400, errors.join('; '))
					: undefined);
		const answer = serve(refused, () =>
			handlers[operationId as OperationId]({
				params: input?.params ?? {},
				query: (input?.query ?? {}) as Record<string, unknown>,
				body: (body ?? {}) as Body,
				now: clock.now(),
			}),
		);
		rec.status = answer.status;
		if (cutAfterCommit) {
			// Done and recorded; the connection is lost before the first byte of the answer.
			rec.fault = 'cutAfterCommit';
			req.socket.destroy();
			return;
		}
		sendJson(res, answer.status, answer.payload);
	};

	/** The service's answer: the error found before the handler, else what the handler did (or its error). */
	const serve = (
		refused: ServiceError | undefined,
		run: () => Body,
	): { status: number; payload: unknown } => {
		const failure = (e: ServiceError) => ({
			status: options.errorsAsHttp200 ? 200 : e.status,
			payload: errorEnvelope(e.status, e.message),
		});
		if (refused) return failure(refused);
		try {
			return { status: 200, payload: { statusCode: 200, body: { err: false, ...run() } } };
		} catch (err) {
			return failure(
				err instanceof ServiceError
					? err
					: new ServiceError(500, `Sandbox failure: ${err.message}`),
			);
		}
	};

	server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
		handle(req, res).catch((err) => {
			if (!res.headersSent) sendError(res, 500, `Sandbox failure: ${err.message}`);
		});
	});
	const outage = new Outage(server, '127.0.0.1', port, () => stats.outages++, clock);
	// From the control route, where no one awaits it: a failure to listen again is told, not thrown.
	const startOutage = (ms: number) => {
		outage.begin(ms).catch((err: Error) => console.error(err.message));
	};

	const sandbox: Sandbox = {
		url,
		port,
		inboxUrl: `${url}/`,
		shortLinkBase,
		get token() {
			return token;
		},
		requests,
		elsewhere: { url: elsewhere.url, requests: elsewhere.requests },
		get state() {
			return state;
		},
		stats: () => structuredClone(stats),
		researcherView: (id) => {
			const r = state.researchers.get(id);
			return r && viewResearcher(r, clock.now());
		},
		rotateToken: () => {
			token = `tok${rng.chars(21)}`;
			issuedTokens.add(token);
			return token;
		},
		injectFault: (fault) => faults.add(fault),
		clearFaults: () => faults.clear(),
		get rateLimit() {
			return limiter.current;
		},
		setRateLimit: (limit) => limiter.set(limit),
		outage: (ms) => outage.begin(ms),
		get listening() {
			return outage.view.listening;
		},
		get outageEndsAt() {
			return outage.view.endsAt;
		},
		reset: () => {
			rng = makeRng(seed);
			seq = 0;
			state = seedState(rng, options.campaigns ?? 23, shortLinkBase);
			epoch++;
			token = initialToken;
			issuedTokens.add(token);
			faults.clear();
			limiter.set(options.rateLimit ?? null);
			requests.length = 0;
			elsewhere.requests.length = 0;
			resetStats();
		},
		close: async () => {
			for (const cancel of delays) cancel();
			delays.clear();
			await outage.stop();
			// In an outage the server is not listening, and close() hands its callback
			// ERR_SERVER_NOT_RUNNING once the connections are gone: closed all the same.
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await Promise.all([closed, elsewhere.close()]);
		},
	};
	return sandbox;
}
