// The service's entities and the seeded, deterministic state a sandbox starts from (and returns
// to on reset): the same seed gives the same agents, contacts, products, campaigns and client.

/** Where the sandbox serves its short links: `<sandbox url>/s/<idUrl>` redirects to the long URL. */
export const SHORT_LINK_PATH = '/s';

/** The short address of `idUrl` on the sandbox whose short links start with `base` (`http://127.0.0.1:8787/s`). */
export function shortUrlFor(base: string, idUrl: string): string {
	return `${base}/${encodeURIComponent(idUrl)}`;
}

export interface Agent {
	id: string;
	name: string;
	phone: string;
	email: string;
}
export type Contact = { id: string } & Record<string, unknown>;
export interface LiveChatSession {
	id: string;
	instance: string;
	name?: string;
}
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
export type CrmLead = {
	id: string;
	to: string;
	channel: string;
	instance: string;
	text: string;
} & Record<string, unknown>;
export interface ShortLink {
	idUrl: string;
	longUrl: string;
	shortUrl: string;
}
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
export interface Client {
	id: string;
	name: string;
	email: string;
	plan: string;
	created: string;
}
export interface ResearcherFile {
	url: string;
	name: string;
	type: string;
}
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
	/**
	 * When each message and CRM lead was received (the clock's time), by id, in the order received: what
	 * the inbox page (sandbox/inbox.ts) lists, newest first.
	 */
	sentAt: Map<string, number>;
	shortLinks: Map<string, ShortLink>;
	products: Map<string, Product>;
	campaigns: Campaign[];
	client: Client;
	researchers: Map<string, Researcher>;
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

export interface Rng {
	int(max: number): number;
	pick<T>(items: readonly T[]): T;
	chars(n: number): string;
	digits(n: number): string;
}
export function makeRng(seed: number): Rng {
	const next = prng(seed);
	const int = (max: number) => Math.floor(next() * max);
	const fill = (n: number, radix: number) =>
		Array.from({ length: n }, () => int(radix).toString(radix)).join('');
	return {
		int,
		pick: (items) => items[int(items.length)],
		chars: (n) => fill(n, 36),
		digits: (n) => fill(n, 10),
	};
}

const FIRST_NAMES = [
	'Ana',
	'Luis',
	'Marta',
	'Jorge',
	'Sofia',
	'Diego',
	'Lucia',
	'Pablo',
	'Elena',
	'Tomas',
];
const LAST_NAMES = ['Garcia', 'Lopez', 'Torres', 'Ruiz', 'Vargas', 'Rojas', 'Castro', 'Mendez'];
const PRODUCTS = [
	'Coffee beans',
	'Tea sampler',
	'Ceramic mug',
	'Cold brew kit',
	'Espresso cups',
	'Milk frother',
];
const CAMPAIGN_WORDS = [
	'Spring',
	'Summer',
	'Launch',
	'Loyalty',
	'Flash',
	'Reminder',
	'Welcome',
	'Renewal',
];
const BASE_TIME = Date.UTC(2024, 0, 1);

/** `shortLinkBase`: the start of the short links' addresses, `<sandbox url>/s`. */
export function seedState(rng: Rng, campaignCount: number, shortLinkBase: string): SandboxState {
	const person = () => `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
	// Colombian mobiles (3 then 9 digits): numbers its numbering plan admits, so they pass the phone check.
	const phone = () => `573${rng.digits(10).slice(1)}`;
	const agents = new Map<string, Agent>();
	for (let i = 1; i <= 3; i++) {
		const name = person();
		agents.set(`agent-${i}`, {
			id: `agent-${i}`,
			name,
			phone: phone(),
			email: `${name.toLowerCase().replace(' ', '.')}@example.com`,
		});
	}
	const list1 = new Map<string, Contact>();
	for (let i = 1; i <= 5; i++)
		list1.set(`contact-${i}`, { id: `contact-${i}`, phone: phone(), name: person() });
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
		contactLists: new Map([
			['list-1', list1],
			['list-2', new Map()],
		]),
		liveChatSessions: new Map(),
		sentMessages: new Map(),
		crmLeads: new Map(),
		sentAt: new Map(),
		shortLinks: new Map([
			[
				'welcome',
				{
					idUrl: 'welcome',
					longUrl: 'https://example.com/welcome',
					shortUrl: shortUrlFor(shortLinkBase, 'welcome'),
				},
			],
		]),
		products,
		campaigns,
		client: {
			id: `client-${rng.chars(6)}`,
			name: clientName,
			email: `admin@${clientName.toLowerCase().replace(' ', '-')}.example`,
			plan: rng.pick(['starter', 'business', 'enterprise']),
			created: new Date(BASE_TIME - rng.int(365) * 86_400_000).toISOString(),
		},
		researchers: new Map([
			[
				'researcher-1',
				{
					id: 'researcher-1',
					name: 'Market scan',
					description: 'Seeded draft researcher',
					model: 'balance',
					type: 'policy-default',
					files: [{ url: 'https://example.com/brief.pdf', name: 'brief.pdf', type: 'document' }],
					updated: BASE_TIME,
				},
			],
		]),
	};
}
