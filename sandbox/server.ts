// Local emulator of the Conversational Messaging Service. Routing and request validation come from
// sandbox/openapi.yaml through openapi-backend; state is in memory and deterministic from the seed.
import * as http from 'http';
import { readFileSync } from 'fs';
import { join } from 'path';
import { parse as parseYaml } from 'yaml';
import OpenAPIBackend from 'openapi-backend';
import type { Document, Operation, Request as ApiRequest, ValidationResult } from 'openapi-backend';

export const CONTRACT_PATH = join(__dirname, 'openapi.yaml');
// Alphanumeric like real tokens (the contract describes them so); it is a sandbox, not a secret.
export const DEMO_TOKEN = 'demotoken0000';
export const SHORT_LINK_BASE = 'https://short.example';

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
	/** HTTP status sent; 0 when the connection was dropped. */
	status: number;
	fault: Fault['kind'] | null;
}

export interface SandboxStats {
	total: number;
	/** Requests per operationId; unrouted requests count under `(none)`. */
	byOperation: Record<string, number>;
	violations: number;
	tokenLocations: Record<TokenLocation | 'none', number>;
	/** The latest 100 contract violations. */
	lastViolations: Array<Pick<RecordedRequest, 'method' | 'path' | 'operationId' | 'errors'>>;
}

// Fault injection: sandbox-only, no such thing exists in the real service.
export interface FaultMatch {
	operationId?: string;
	/** Exact request path without query string. */
	path?: string;
	/** Query parameters the request must carry, with these values. */
	query?: Record<string, string>;
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
);
type TerminalFault = Exclude<Fault, { kind: 'latency' }>;
const FAULT_KINDS = new Set<string>(['latency', 'status', 'errTrue', 'malformed', 'empty', 'drop', 'redirect']);

/** What reached the other host a redirect points to. */
export interface ElsewhereRequest {
	method: string;
	url: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

export interface Agent { id: string; name: string; phone: string; email: string }
export type Contact = { id: string } & Record<string, unknown>;
export interface LiveChatSession { id: string; instance: string; name?: string }
export interface SentMessage {
	id: string;
	channel: 'livechat' | 'legacy' | 'sms' | 'socialnet';
	to: string;
	type: string;
	body: string;
	instance: string;
	status: 'sent' | 'queued';
	extra: Record<string, unknown>;
}
export type CrmLead = { id: string; to: string; channel: string; instance: string; text: string } & Record<string, unknown>;
export interface ShortLink { idUrl: string; longUrl: string; shortUrl: string }
export interface Product {
	id: string;
	name: string;
	description: string;
	descriptionai: string;
	code: string;
	price: number;
	category: string[];
	image?: string;
	status: number;
}
export interface Campaign {
	id: string;
	name: string;
	status: 'draft' | 'scheduled' | 'running' | 'finished';
	channel: string;
	created: string;
	sent: number;
	delivered: number;
	read: number;
	failed: number;
}
export interface Client { id: string; name: string; email: string; plan: string; created: string }
export interface ResearcherFile { url: string; name: string; type: string }
export interface Researcher {
	id: string;
	name: string;
	description: string;
	model: string;
	type: string;
	files: ResearcherFile[];
	updated: number;
	run?: { startedAt: number; ms: number; report: string };
}
export interface SandboxState {
	agents: Map<string, Agent>;
	contactLists: Map<string, Map<string, Contact>>;
	liveChatSessions: Map<string, LiveChatSession>;
	/** Every message sent on any channel, by id. */
	sentMessages: Map<string, SentMessage>;
	crmLeads: Map<string, CrmLead>;
	shortLinks: Map<string, ShortLink>;
	products: Map<string, Product>;
	campaigns: Campaign[];
	client: Client;
	researchers: Map<string, Researcher>;
}

export interface Sandbox {
	url: string;
	port: number;
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
	/** Back to the seeded state, initial token, no faults, no recorded requests. */
	reset(): void;
	close(): Promise<void>;
}

type AjvError = NonNullable<ValidationResult['errors']>[number];
type Body = Record<string, unknown>;
interface Call { params: Record<string, string>; query: Record<string, unknown>; body: Body; now: number }
type OperationHandler = (c: Call) => Body;

class ServiceError extends Error {
	constructor(readonly status: number, message: string) {
		super(message);
	}
}
const notFound = (what: string, id: string) => new ServiceError(404, `${what} ${id} not found`);

// One parsed and compiled contract per process: sandboxes only read it. Exported so tests can
// validate responses against the same compiled document.
let contract: Promise<{ api: OpenAPIBackend; queryTokenNames: string[] }> | undefined;
export function loadContract(): Promise<{ api: OpenAPIBackend; queryTokenNames: string[] }> {
	contract ??= (async () => {
		const document = parseYaml(readFileSync(CONTRACT_PATH, 'utf8')) as Document;
		const api = await new OpenAPIBackend({
			definition: document,
			// quick: skip re-validating the document (the contract lint test does) and compile validators lazily
			quick: true,
			coerceTypes: true,
			// verbose exposes the rule descriptions of anyOf groups for error messages
			ajvOpts: { allErrors: true, verbose: true },
			customizeAjv: (ajv) => {
				ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
				ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);
				ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
				return ajv;
			},
		}).init();
		// Memoise the flattened operation list: the router rebuilds it twice per request otherwise.
		const operations = api.router.getOperations();
		api.router.getOperations = () => operations;
		const declared = operations.map((o) => o.operationId).sort().join();
		if (declared !== [...OPERATION_IDS].sort().join()) throw new Error('The contract operations differ from the sandbox handlers');
		const schemes = Object.values(api.definition.components?.securitySchemes ?? {}) as Array<{ type: string; in?: string; name?: string }>;
		const queryTokenNames = schemes.filter((s) => s.type === 'apiKey' && s.in === 'query').map((s) => s.name as string);
		return { api, queryTokenNames };
	})();
	return contract;
}

// mulberry32: tiny, seedable, good enough for sample data.
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

interface Rng {
	int(max: number): number;
	pick<T>(items: readonly T[]): T;
	chars(n: number): string;
	digits(n: number): string;
}
function makeRng(seed: number): Rng {
	const next = prng(seed);
	const int = (max: number) => Math.floor(next() * max);
	const fill = (n: number, radix: number) => Array.from({ length: n }, () => int(radix).toString(radix)).join('');
	return { int, pick: (items) => items[int(items.length)], chars: (n) => fill(n, 36), digits: (n) => fill(n, 10) };
}

const FIRST_NAMES = ['Ana', 'Luis', 'Marta', 'Jorge', 'Sofia', 'Diego', 'Lucia', 'Pablo', 'Elena', 'Tomas'];
const LAST_NAMES = ['Garcia', 'Lopez', 'Torres', 'Ruiz', 'Vargas', 'Rojas', 'Castro', 'Mendez'];
const PRODUCTS = ['Coffee beans', 'Tea sampler', 'Ceramic mug', 'Cold brew kit', 'Espresso cups', 'Milk frother'];
const CAMPAIGN_WORDS = ['Spring', 'Summer', 'Launch', 'Loyalty', 'Flash', 'Reminder', 'Welcome', 'Renewal'];
const BASE_TIME = Date.UTC(2024, 0, 1);

function seedState(rng: Rng, campaignCount: number): SandboxState {
	const person = () => `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
	const phone = () => `57${rng.digits(10)}`;
	const agents = new Map<string, Agent>();
	for (let i = 1; i <= 3; i++) {
		const name = person();
		agents.set(`agent-${i}`, { id: `agent-${i}`, name, phone: phone(), email: `${name.toLowerCase().replace(' ', '.')}@example.com` });
	}
	const list1 = new Map<string, Contact>();
	for (let i = 1; i <= 5; i++) list1.set(`contact-${i}`, { id: `contact-${i}`, phone: phone(), name: person() });
	const products = new Map<string, Product>();
	for (let i = 1; i <= 3; i++) {
		products.set(`product-${i}`, {
			id: `product-${i}`,
			name: rng.pick(PRODUCTS),
			description: 'Seeded sandbox product',
			descriptionai: 'A product of the sandbox catalogue',
			code: `SKU-${rng.digits(5)}`,
			price: (100 + rng.int(9900)) / 100,
			category: [rng.pick(['coffee', 'tea', 'accessories'])],
			image: `https://images.example/product-${i}.png`,
			status: 1,
		});
	}
	const campaigns: Campaign[] = [];
	for (let i = 1; i <= campaignCount; i++) {
		const sent = 50 + rng.int(950);
		const failed = rng.int(Math.floor(sent / 10));
		const delivered = sent - failed;
		campaigns.push({
			id: `campaign-${String(i).padStart(2, '0')}`,
			name: `${rng.pick(CAMPAIGN_WORDS)} ${rng.pick(CAMPAIGN_WORDS)} ${i}`,
			status: rng.pick(['draft', 'scheduled', 'running', 'finished'] as const),
			channel: rng.pick(['chatapp', 'sms', 'socialnet']),
			created: new Date(BASE_TIME + i * 86_400_000 + rng.int(86_400) * 1000).toISOString(),
			sent,
			delivered,
			read: rng.int(delivered + 1),
			failed,
		});
	}
	const clientName = `${rng.pick(LAST_NAMES)} ${rng.pick(['Coffee', 'Retail', 'Logistics'])}`;
	return {
		agents,
		contactLists: new Map([['list-1', list1], ['list-2', new Map()]]),
		liveChatSessions: new Map(),
		sentMessages: new Map(),
		crmLeads: new Map(),
		shortLinks: new Map([['welcome', { idUrl: 'welcome', longUrl: 'https://example.com/welcome', shortUrl: `${SHORT_LINK_BASE}/welcome` }]]),
		products,
		campaigns,
		client: {
			id: `client-${rng.chars(6)}`,
			name: clientName,
			email: `admin@${clientName.toLowerCase().replace(' ', '-')}.example`,
			plan: rng.pick(['starter', 'business', 'enterprise']),
			created: new Date(BASE_TIME - rng.int(365) * 86_400_000).toISOString(),
		},
		researchers: new Map([['researcher-1', {
			id: 'researcher-1',
			name: 'Market scan',
			description: 'Seeded draft researcher',
			model: 'balance',
			type: 'policy-default',
			files: [{ url: 'https://example.com/brief.pdf', name: 'brief.pdf', type: 'document' }],
			updated: BASE_TIME,
		}]]),
	};
}

const READABLE_FIELDS = ['name', 'status', 'description', 'type', 'model', 'files', 'process', 'updated', 'progress', 'output', 'output_format'];

function viewResearcher(r: Researcher, now: number): Body {
	const base = { id: r.id, name: r.name, description: r.description, model: r.model, type: r.type, files: r.files };
	if (!r.run) {
		return { ...base, status: 0, progress: 0, process: 'draft', updated: new Date(r.updated).toISOString(), output: null, output_format: null };
	}
	const elapsed = now - r.run.startedAt;
	if (elapsed >= r.run.ms) {
		const done = Math.max(r.updated, r.run.startedAt + r.run.ms);
		return { ...base, status: 2, progress: 100, process: 'done', updated: new Date(done).toISOString(), output: r.run.report, output_format: 'markdown' };
	}
	const progress = Math.min(99, Math.floor((elapsed * 100) / r.run.ms));
	const process = progress === 0 ? 'queued' : progress < 34 ? 'reading' : progress < 67 ? 'analysing' : 'writing';
	return { ...base, status: 1, progress, process, updated: new Date(r.updated).toISOString(), output: null, output_format: null };
}

function report(r: Researcher): string {
	const sources = r.files.map((f) => `- ${f.name} (${f.type}): ${f.url}`).join('\n') || '- none';
	return `# ${r.name}\n\n${r.description}\n\n## Sources\n${sources}\n\n## Findings\nThe ${r.model} model reviewed ${r.files.length} source(s) under policy ${r.type}.\n`;
}

function defined(o: Body): Body {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

export const OPERATION_IDS = [
	'agentGet', 'agentCreate', 'agentDelete', 'contactGetMany', 'contactAdd', 'liveChatSessionCreate', 'liveChatMessageSend',
	'legacyMessageSend', 'legacyMessageGet', 'smsSend', 'socialnetSend', 'crmLeadInject', 'chatappNumberCheck', 'shortLinkCreate',
	'shortLinkUpdate', 'productCreate', 'productGet', 'productUpdate', 'productDelete', 'campaignGetMany', 'campaignGet',
	'campaignGetDetails', 'clientGet', 'researcherCreate', 'researcherGet', 'researcherAddFiles', 'researcherRun',
] as const;
export type OperationId = (typeof OPERATION_IDS)[number];

interface Runtime { readonly state: SandboxState; id(prefix: string): string; researcherRunMs: number }

// Handlers receive input the contract has already validated.
function makeHandlers(rt: Runtime): Record<OperationId, OperationHandler> {
	const send = (channel: SentMessage['channel'], body: Body, status: SentMessage['status'], extra: Body): Body => {
		const m: SentMessage = {
			id: rt.id('msg'),
			channel,
			to: body.to as string,
			type: body.type as string,
			body: body.body as string,
			instance: body.instance as string,
			status,
			extra,
		};
		rt.state.sentMessages.set(m.id, m);
		return { id: m.id, to: m.to, type: m.type, status };
	};
	const productFields = (body: Body): Omit<Product, 'id' | 'status'> => ({
		name: body.name as string,
		description: body.description as string,
		descriptionai: body.descriptionai as string,
		code: body.code as string,
		price: body.price as number,
		category: body.category as string[],
	});
	const product = (id: string): Product => {
		const p = rt.state.products.get(id);
		if (!p) throw notFound('Product', id);
		return p;
	};
	const campaign = (id: string): Campaign => {
		const c = rt.state.campaigns.find((x) => x.id === id);
		if (!c) throw notFound('Campaign', id);
		return c;
	};
	const campaignView = (c: Campaign): Body => ({ id: c.id, name: c.name, status: c.status, channel: c.channel, created: c.created });
	const researcher = (id: string): Researcher => {
		const r = rt.state.researchers.get(id);
		if (!r) throw notFound('Researcher', id);
		return r;
	};

	return {
		agentGet: ({ query }) => {
			const agent = rt.state.agents.get(String(query.id));
			if (!agent) throw notFound('Agent', String(query.id));
			return { ...agent };
		},
		agentCreate: ({ body }) => {
			const agent: Agent = { id: rt.id('agt'), name: body.name as string, phone: body.phone as string, email: body.email as string };
			rt.state.agents.set(agent.id, agent);
			return { ...agent };
		},
		agentDelete: ({ body }) => {
			const id = body.id as string;
			if (!rt.state.agents.delete(id)) throw notFound('Agent', id);
			return { id, deleted: true };
		},
		contactGetMany: ({ query }) => {
			const idList = String(query.id);
			const list = rt.state.contactLists.get(idList);
			if (!list) throw notFound('List', idList);
			return { idList, data: [...list.values()].map((c) => ({ ...c })), total: list.size };
		},
		contactAdd: ({ body }) => {
			const idList = body.idList as string;
			const list = rt.state.contactLists.get(idList);
			if (!list) throw notFound('List', idList);
			const values = body.values as Body;
			// A phone already in the list updates that contact rather than duplicating it.
			const existing = values.phone === undefined ? undefined : [...list.values()].find((c) => c.phone === values.phone);
			const contact: Contact = { ...existing, ...values, id: existing?.id ?? rt.id('ctc') };
			list.set(contact.id, contact);
			return { ...contact, idList };
		},
		liveChatSessionCreate: ({ body }) => {
			const session: LiveChatSession = { id: rt.id('lcs'), instance: body.instance as string, name: body.name as string | undefined };
			rt.state.liveChatSessions.set(session.id, session);
			return defined({ ...session });
		},
		liveChatMessageSend: ({ body }) => {
			const to = body.to as string;
			if (!rt.state.liveChatSessions.has(to)) throw notFound('Session', to);
			return send('livechat', body, 'sent', { user: body.user ?? false });
		},
		legacyMessageSend: ({ body }) =>
			send('legacy', body, 'queued', defined({ caption: body.caption, filename: body.filename, lat: body.lat, lng: body.lng })),
		legacyMessageGet: ({ params }) => {
			const m = rt.state.sentMessages.get(params.ID_MESSAGE);
			if (!m || m.channel !== 'legacy') throw notFound('Message', params.ID_MESSAGE);
			return { id: m.id, to: m.to, type: m.type, body: m.body, status: m.status, instance: m.instance };
		},
		smsSend: ({ body }) => send('sms', body, 'queued', {}),
		socialnetSend: ({ body }) => send('socialnet', body, 'queued', defined({ caption: body.caption })),
		crmLeadInject: ({ body }) => {
			const { token: _token, ...fields } = body;
			const lead = { ...fields, id: rt.id('lead'), channel: (body.channel as string | undefined) ?? 'chatapp' } as CrmLead;
			rt.state.crmLeads.set(lead.id, lead);
			return { ...lead };
		},
		chatappNumberCheck: ({ body }) => {
			const number = body.number as string;
			const last = Number(number[number.length - 1]);
			const active = last % 2 === 0;
			return { response: { id: `${number}@c.us`, status: 200, isBusiness: active && last % 4 === 0, canReceiveMessage: active } };
		},
		shortLinkCreate: ({ body }) => {
			const idUrl = (body.idUrl as string | undefined) ?? rt.id('s');
			if (rt.state.shortLinks.has(idUrl)) throw new ServiceError(409, `Short link ${idUrl} already exists`);
			const link: ShortLink = { idUrl, longUrl: body.longUrl as string, shortUrl: `${SHORT_LINK_BASE}/${idUrl}` };
			rt.state.shortLinks.set(idUrl, link);
			return { ...link };
		},
		shortLinkUpdate: ({ body }) => {
			const link = rt.state.shortLinks.get(body.idUrl as string);
			if (!link) throw notFound('Short link', body.idUrl as string);
			link.longUrl = body.longUrl as string;
			return { ...link };
		},
		productCreate: ({ body }) => {
			const created: Product = { ...productFields(body), id: rt.id('prd'), status: 1 };
			rt.state.products.set(created.id, created);
			return { ...created };
		},
		productGet: ({ params }) => ({ ...product(params.ID_PRODUCT) }),
		productUpdate: ({ params, body }) => {
			const updated: Product = {
				...productFields(body),
				id: product(params.ID_PRODUCT).id,
				image: body.image as string,
				status: body.status as number,
			};
			rt.state.products.set(updated.id, updated);
			return { ...updated };
		},
		productDelete: ({ params }) => {
			rt.state.products.delete(product(params.ID_PRODUCT).id);
			return { id: params.ID_PRODUCT, deleted: true };
		},
		campaignGetMany: ({ query }) => {
			const page = Number(query.page ?? 1);
			const limit = Number(query.limit ?? 10);
			const all = rt.state.campaigns;
			return { data: all.slice((page - 1) * limit, page * limit).map(campaignView), page, limit, total: all.length };
		},
		campaignGet: ({ params }) => campaignView(campaign(params.ID_CAMPAIGN)),
		campaignGetDetails: ({ params }) => {
			const c = campaign(params.ID_CAMPAIGN);
			return { id: c.id, name: c.name, sent: c.sent, delivered: c.delivered, read: c.read, failed: c.failed };
		},
		clientGet: () => ({ ...rt.state.client }),
		researcherCreate: ({ body, now }) => {
			const r: Researcher = {
				id: rt.id('rsr'),
				name: body.name as string,
				description: body.description as string,
				model: body.model as string,
				type: body.type as string,
				files: [...(body.files as ResearcherFile[])],
				updated: now,
			};
			rt.state.researchers.set(r.id, r);
			return viewResearcher(r, now);
		},
		researcherGet: ({ params, query, now }) => {
			const view = viewResearcher(researcher(params.ID_RESEARCHER), now);
			const fields = query.fields === undefined ? READABLE_FIELDS : String(query.fields).split(',');
			return Object.fromEntries([['id', view.id], ...fields.map((f) => [f, view[f]])]);
		},
		researcherAddFiles: ({ params, body, now }) => {
			const r = researcher(params.ID_RESEARCHER);
			r.files.push(...(body.files as ResearcherFile[]));
			r.updated = now;
			return viewResearcher(r, now);
		},
		researcherRun: ({ params, now }) => {
			const r = researcher(params.ID_RESEARCHER);
			// A running researcher is left as is, so a retried run request does not restart it.
			if (viewResearcher(r, now).status !== 1) {
				r.run = { startedAt: now, ms: rt.researcherRunMs, report: report(r) };
				r.updated = now;
			}
			return viewResearcher(r, now);
		},
	};
}

function describeError(e: AjvError): string | undefined {
	// Failures inside an anyOf rule are summed up by the rule's own description.
	if (e.schemaPath.includes('/anyOf/')) return undefined;
	if (e.keyword === 'parse') return `body is not valid JSON (${e.message})`;
	const where = e.instancePath.split('/').slice(1).map((s, i) => (i === 0 && s === 'requestBody' ? 'body' : s)).join('.') || 'request';
	const params = e.params as Record<string, unknown>;
	switch (e.keyword) {
		case 'required':
			return where === 'request' ? `${params.missingProperty === 'requestBody' ? 'body' : params.missingProperty} is required` : `${where}.${params.missingProperty} is required`;
		case 'additionalProperties':
			return `${where}.${params.additionalProperty} is not allowed`;
		case 'enum':
			return `${where} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
		case 'anyOf':
			return `${where}: ${(e.parentSchema as { description?: string } | undefined)?.description ?? e.message}`;
		default:
			return `${where} ${e.message}`;
	}
}

function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: http.OutgoingHttpHeaders = {}): void {
	const text = JSON.stringify(payload);
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

/** The other loopback host of redirect faults: records what reaches it, answers like a send. */
async function startElsewhere(): Promise<{ url: string; requests: ElsewhereRequest[]; close(): Promise<void> }> {
	const requests: ElsewhereRequest[] = [];
	const server = http.createServer((req, res) => {
		readBody(req).then((body) => {
			requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
			sendJson(res, 200, { statusCode: 200, body: { err: false, id: 'elsewhere', status: 'queued' } });
		}, () => res.destroy());
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

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const { api, queryTokenNames } = await loadContract();
	const seed = options.seed ?? 1;
	const initialToken = options.token ?? DEMO_TOKEN;
	const recordRequests = options.recordRequests ?? true;
	const maxRecorded = options.maxRecorded ?? 10_000;

	let rng = makeRng(seed);
	let seq = 0;
	let state = seedState(rng, options.campaigns ?? 23);
	let token = initialToken;
	let faults: Array<{ fault: Fault; left: number }> = [];
	const requests: RecordedRequest[] = [];
	let stats: SandboxStats;
	const resetStats = () => {
		stats = { total: 0, byOperation: {}, violations: 0, tokenLocations: { body: 0, 'query:token': 0, 'query:api-token': 0, none: 0 }, lastViolations: [] };
	};
	resetStats();
	const handlers = makeHandlers({
		get state() {
			return state;
		},
		id: (prefix) => `${prefix}_${(++seq).toString(36).padStart(3, '0')}${rng.chars(5)}`,
		researcherRunMs: options.researcherRunMs ?? 3000,
	});
	const timers = new Set<NodeJS.Timeout>();
	const delay = (ms: number) =>
		new Promise<void>((resolve) => {
			const t = setTimeout(() => {
				timers.delete(t);
				resolve();
			}, ms);
			timers.add(t);
		});

	const sendError = (res: http.ServerResponse, status: number, message: string) =>
		sendJson(res, options.errorsAsHttp200 ? 200 : status, { statusCode: status, body: { err: true, message } });

	const takeFaults = (operationId: string | null, path: string, query: Record<string, unknown>) => {
		let latency = 0;
		let terminal: TerminalFault | undefined;
		for (const f of faults) {
			const m = f.fault.match;
			const queryDiffers = m?.query && Object.entries(m.query).some(([name, value]) => query[name] !== value);
			if (f.left <= 0 || (m?.operationId && m.operationId !== operationId) || (m?.path && m.path !== path) || queryDiffers) continue;
			if (f.fault.kind === 'latency') latency += f.fault.ms;
			else if (terminal) continue;
			else terminal = f.fault;
			f.left--;
		}
		if (faults.some((f) => f.left <= 0)) faults = faults.filter((f) => f.left > 0);
		return { latency, terminal };
	};

	const sendFault = (req: http.IncomingMessage, res: http.ServerResponse, f: TerminalFault): number => {
		switch (f.kind) {
			case 'redirect': {
				res.writeHead(f.status, { location: `${f.to ?? elsewhere.url}${req.url ?? '/'}`, 'content-length': 0 });
				res.end();
				return f.status;
			}
			case 'status': {
				const headers: http.OutgoingHttpHeaders = f.retryAfter === undefined ? {} : { 'retry-after': String(f.retryAfter) };
				const reason = http.STATUS_CODES[f.status] ?? 'Error';
				if (!f.html) {
					sendJson(res, f.status, { statusCode: f.status, body: { err: true, message: reason } }, headers);
					return f.status;
				}
				const html = `<html><head><title>${f.status} ${reason}</title></head><body><h1>${f.status} ${reason}</h1></body></html>`;
				res.writeHead(f.status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), ...headers });
				res.end(html);
				return f.status;
			}
			case 'errTrue':
				sendJson(res, 200, { statusCode: f.statusCode ?? 400, body: { err: true, message: f.message ?? 'Simulated service error' } });
				return 200;
			case 'malformed': {
				const text = '{"statusCode":200,"body":{"err":false,';
				res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
				res.end(text);
				return 200;
			}
			case 'empty':
				res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': 0 });
				res.end();
				return 200;
			case 'drop': {
				// Promise a full body, deliver half of it, then cut the connection.
				const text = JSON.stringify({ statusCode: 200, body: { err: false, id: 'dropped' } });
				res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
				res.write(text.slice(0, text.length >> 1), () => res.socket?.destroy());
				return 0;
			}
		}
	};

	const record = (r: RecordedRequest) => {
		stats.total++;
		const key = r.operationId ?? '(none)';
		stats.byOperation[key] = (stats.byOperation[key] ?? 0) + 1;
		stats.tokenLocations[r.tokenLocation ?? 'none']++;
		if (!r.valid) {
			stats.violations++;
			stats.lastViolations.push({ method: r.method, path: r.path, operationId: r.operationId, errors: r.errors });
			if (stats.lastViolations.length > 100) stats.lastViolations.shift();
		}
		if (!recordRequests) return;
		requests.push(r);
		if (requests.length > maxRecorded) requests.shift();
	};

	const control = async (req: http.IncomingMessage, res: http.ServerResponse, path: string, raw: string) => {
		const route = `${req.method} ${path}`;
		if (route === 'GET /__sandbox/requests') return sendJson(res, 200, stats);
		if (route === 'POST /__sandbox/rotate-token') return sendJson(res, 200, { token: sandbox.rotateToken() });
		if (route === 'POST /__sandbox/reset') {
			sandbox.reset();
			return sendJson(res, 200, { token });
		}
		if (route === 'DELETE /__sandbox/faults') {
			sandbox.clearFaults();
			return sendJson(res, 200, { faults: 0 });
		}
		if (route === 'POST /__sandbox/faults') {
			let list: Fault[];
			try {
				const parsed = JSON.parse(raw) as Fault | Fault[];
				list = Array.isArray(parsed) ? parsed : [parsed];
			} catch {
				return sendJson(res, 400, { error: 'body must be a fault or an array of faults (JSON)' });
			}
			if (list.some((f) => !f || !FAULT_KINDS.has(f.kind))) return sendJson(res, 400, { error: `kind must be one of ${[...FAULT_KINDS].join(', ')}` });
			list.forEach((f) => sandbox.injectFault(f));
			return sendJson(res, 200, { faults: faults.length });
		}
		return sendJson(res, 404, { error: `no sandbox control route ${route}` });
	};

	const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
		const url = req.url ?? '/';
		const q = url.indexOf('?');
		const path = q < 0 ? url : url.slice(0, q);
		const raw = await readBody(req);
		if (path.startsWith('/__sandbox/')) return control(req, res, path, raw);

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
		const apiReq: ApiRequest = { method: req.method ?? 'GET', path, query: rawQuery, headers: req.headers as ApiRequest['headers'], body };
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
		if (body && typeof body === 'object' && 'token' in body) offered.push(['body', (body as Body).token]);
		for (const name of queryTokenNames) if (query[name] !== undefined) offered.push([`query:${name}` as TokenLocation, query[name]]);
		const accepted = offered.find(([, value]) => value === token);
		if (offered.length === 0) errors.push('token is missing (body token, query token or api-token)');

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

		const { latency, terminal } = faults.length ? takeFaults(operationId, path, query) : { latency: 0, terminal: undefined };
		if (latency) {
			rec.fault = 'latency';
			await delay(latency);
		}
		if (terminal) {
			rec.fault = terminal.kind;
			rec.status = sendFault(req, res, terminal);
			return;
		}
		const fail = (e: ServiceError) => {
			rec.status = options.errorsAsHttp200 ? 200 : e.status;
			sendError(res, e.status, e.message);
		};
		if (routeError) return fail(routeError);
		if (!accepted) return fail(new ServiceError(401, 'Unauthorized'));
		if (errors.length) return fail(new ServiceError(400, errors.join('; ')));
		try {
			const payload = handlers[operationId as OperationId]({
				params: input?.params ?? {},
				query: (input?.query ?? {}) as Record<string, unknown>,
				body: (body ?? {}) as Body,
				now: Date.now(),
			});
			rec.status = 200;
			sendJson(res, 200, { statusCode: 200, body: { err: false, ...payload } });
		} catch (err) {
			fail(err instanceof ServiceError ? err : new ServiceError(500, `Sandbox failure: ${err.message}`));
		}
	};

	const server = http.createServer((req, res) => {
		handle(req, res).catch((err) => {
			if (!res.headersSent) sendError(res, 500, `Sandbox failure: ${err.message}`);
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
	});
	const port = (server.address() as { port: number }).port;
	const elsewhere = await startElsewhere();

	const sandbox: Sandbox = {
		url: `http://127.0.0.1:${port}`,
		port,
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
			return r && viewResearcher(r, Date.now());
		},
		rotateToken: () => {
			token = `tok${rng.chars(21)}`;
			return token;
		},
		injectFault: (fault) => {
			faults.push({ fault, left: fault.times ?? Infinity });
		},
		clearFaults: () => {
			faults = [];
		},
		reset: () => {
			rng = makeRng(seed);
			seq = 0;
			state = seedState(rng, options.campaigns ?? 23);
			token = initialToken;
			faults = [];
			requests.length = 0;
			elsewhere.requests.length = 0;
			resetStats();
		},
		close: async () => {
			for (const t of timers) clearTimeout(t);
			timers.clear();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await Promise.all([closed, elsewhere.close()]);
		},
	};
	return sandbox;
}
