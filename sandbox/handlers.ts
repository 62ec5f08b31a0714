// The service's 27 operations over the in-memory state, and the errors they answer with.
import type {
	Agent,
	Campaign,
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
import { shortUrlFor } from './state';

export type Body = Record<string, unknown>;
export interface Call {
	params: Record<string, string>;
	query: Record<string, unknown>;
	body: Body;
	/** The time the request is served, on the sandbox's clock. */
	now: number;
}
export type OperationHandler = (c: Call) => Body;

export class ServiceError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}
const notFound = (what: string, id: string) => new ServiceError(404, `${what} ${id} not found`);

const READABLE_FIELDS = [
	'name',
	'status',
	'description',
	'type',
	'model',
	'files',
	'process',
	'updated',
	'progress',
	'output',
	'output_format',
];

export function viewResearcher(r: Researcher, now: number): Body {
	const base = {
		id: r.id,
		name: r.name,
		description: r.description,
		model: r.model,
		type: r.type,
		files: r.files,
	};
	if (!r.run) {
		return {
			...base,
			status: 0,
			progress: 0,
			process: 'draft',
			updated: new Date(r.updated).toISOString(),
			output: null,
			output_format: null,
		};
	}
	const elapsed = now - r.run.startedAt;
	if (elapsed >= r.run.ms) {
		const done = Math.max(r.updated, r.run.startedAt + r.run.ms);
		return {
			...base,
			status: 2,
			progress: 100,
			process: 'done',
			updated: new Date(done).toISOString(),
			output: r.run.report,
			output_format: 'markdown',
		};
	}
	const progress = Math.min(99, Math.floor((elapsed * 100) / r.run.ms));
	const process =
		progress === 0 ? 'queued' : progress < 34 ? 'reading' : progress < 67 ? 'analysing' : 'writing';
	return {
		...base,
		status: 1,
		progress,
		process,
		updated: new Date(r.updated).toISOString(),
		output: null,
		output_format: null,
	};
}

function report(r: Researcher): string {
	const sources = r.files.map((f) => `- ${f.name} (${f.type}): ${f.url}`).join('\n') || '- none';
	return `# ${r.name}\n\n${r.description}\n\n## Sources\n${sources}\n\n## Findings\nThe ${r.model} model reviewed ${r.files.length} source(s) under policy ${r.type}.\n`;
}

function defined(o: Body): Body {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

export const OPERATION_IDS = [
	'agentGet',
	'agentCreate',
	'agentDelete',
	'contactGetMany',
	'contactAdd',
	'liveChatSessionCreate',
	'liveChatMessageSend',
	'legacyMessageSend',
	'legacyMessageGet',
	'smsSend',
	'socialnetSend',
	'crmLeadInject',
	'chatappNumberCheck',
	'shortLinkCreate',
	'shortLinkUpdate',
	'productCreate',
	'productGet',
	'productUpdate',
	'productDelete',
	'campaignGetMany',
	'campaignGet',
	'campaignGetDetails',
	'clientGet',
	'researcherCreate',
	'researcherGet',
	'researcherAddFiles',
	'researcherRun',
] as const;
export type OperationId = (typeof OPERATION_IDS)[number];

export interface Runtime {
	readonly state: SandboxState;
	id(prefix: string): string;
	researcherRunMs: number;
	/** The start of the short links' addresses: `<sandbox url>/s`. */
	shortLinkBase: string;
}

// Handlers receive input the contract has already validated.
export function makeHandlers(rt: Runtime): Record<OperationId, OperationHandler> {
	const send = (
		channel: SentMessage['channel'],
		{ body, now }: Call,
		status: SentMessage['status'],
		extra: Body,
	): Body => {
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
		rt.state.sentAt.set(m.id, now);
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
	const campaignView = (c: Campaign): Body => ({
		id: c.id,
		name: c.name,
		status: c.status,
		channel: c.channel,
		created: c.created,
	});
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
			const agent: Agent = {
				id: rt.id('agt'),
				name: body.name as string,
				phone: body.phone as string,
				email: body.email as string,
			};
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
			const existing =
				values.phone === undefined
					? undefined
					: [...list.values()].find((c) => c.phone === values.phone);
			const contact: Contact = { ...existing, ...values, id: existing?.id ?? rt.id('ctc') };
			list.set(contact.id, contact);
			return { ...contact, idList };
		},
		liveChatSessionCreate: ({ body }) => {
			const session: LiveChatSession = {
				id: rt.id('lcs'),
				instance: body.instance as string,
				name: body.name as string | undefined,
			};
			rt.state.liveChatSessions.set(session.id, session);
			return defined({ ...session });
		},
		liveChatMessageSend: (call) => {
			const to = call.body.to as string;
			if (!rt.state.liveChatSessions.has(to)) throw notFound('Session', to);
			return send('livechat', call, 'sent', { user: call.body.user ?? false });
		},
		legacyMessageSend: (call) =>
			send(
				'legacy',
				call,
				'queued',
				defined({
					caption: call.body.caption,
					filename: call.body.filename,
					lat: call.body.lat,
					lng: call.body.lng,
				}),
			),
		legacyMessageGet: ({ params }) => {
			const m = rt.state.sentMessages.get(params.ID_MESSAGE);
			if (!m || m.channel !== 'legacy') throw notFound('Message', params.ID_MESSAGE);
			return {
				id: m.id,
				to: m.to,
				type: m.type,
				body: m.body,
				status: m.status,
				instance: m.instance,
			};
		},
		smsSend: (call) => send('sms', call, 'queued', {}),
		socialnetSend: (call) =>
			send('socialnet', call, 'queued', defined({ caption: call.body.caption })),
		crmLeadInject: ({ body, now }) => {
			const { token: _token, ...fields } = body;
			const lead = {
				...fields,
				id: rt.id('lead'),
				channel: (body.channel as string | undefined) ?? 'chatapp',
			} as CrmLead;
			rt.state.crmLeads.set(lead.id, lead);
			rt.state.sentAt.set(lead.id, now);
			return { ...lead };
		},
		chatappNumberCheck: ({ body }) => {
			const number = body.number as string;
			const last = Number(number[number.length - 1]);
			const active = last % 2 === 0;
			return {
				response: {
					id: `${number}@c.us`,
					status: 200,
					isBusiness: active && last % 4 === 0,
					canReceiveMessage: active,
				},
			};
		},
		shortLinkCreate: ({ body }) => {
			const idUrl = (body.idUrl as string | undefined) ?? rt.id('s');
			if (rt.state.shortLinks.has(idUrl))
				throw new ServiceError(409, `Short link ${idUrl} already exists`);
			const link: ShortLink = {
				idUrl,
				longUrl: body.longUrl as string,
				shortUrl: shortUrlFor(rt.shortLinkBase, idUrl),
			};
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
			return {
				data: all.slice((page - 1) * limit, page * limit).map(campaignView),
				page,
				limit,
				total: all.length,
			};
		},
		campaignGet: ({ params }) => campaignView(campaign(params.ID_CAMPAIGN)),
		campaignGetDetails: ({ params }) => {
			const c = campaign(params.ID_CAMPAIGN);
			return {
				id: c.id,
				name: c.name,
				sent: c.sent,
				delivered: c.delivered,
				read: c.read,
				failed: c.failed,
			};
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
