// The sandbox's inbox page, like Mailpit for e-mail: every message the service sent on any channel
// (and every CRM lead), newest first, with its links clickable, and the short links created.
// Served by server.ts at GET / and /inbox; the short links at GET /s/<idUrl> redirect (302) to
// their long URL. Everything shown is escaped (messages are user content), and no API token this
// sandbox ever issued is shown, even inside a message, an idUrl or an attribute: every string a
// page renders goes through hide() (`show`), and so does the JSON of GET /__sandbox/messages.
import { createHash, randomBytes } from 'crypto';
import type * as http from 'http';

import type { CrmLead, SandboxState, SentMessage, ShortLink } from './state';
import { SHORT_LINK_PATH } from './state';

/** The inbox's addresses on the sandbox. */
export const INBOX_PATHS = ['/', '/inbox'];
/** What the page polls to know whether it should reload: `{"stamp": "..."}`. */
export const INBOX_STAMP_PATH = '/inbox/stamp';
/** The newest messages shown unless ?limit= says otherwise. */
export const INBOX_LIMIT = 200;

/** What precedes the answer page's link in a Send and Wait message (the node's LINK_LEAD). */
const ANSWER_LEAD = /Answer here: (\S+)\s*$/;
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`]+/g;
/** Punctuation that ends a sentence rather than the address before it. */
const TRAILING = /[.,;:!?)\]}]+$/;

export type InboxChannel = SentMessage['channel'] | 'crm';
/** A Map, not an object: `?channel=constructor` must not find an inherited property. */
const CHANNEL_LABELS = new Map<InboxChannel, string>([
	['sms', 'SMS'],
	['legacy', 'Chatapp (legacy)'],
	['socialnet', 'Socialnet'],
	['livechat', 'Live chat'],
	['crm', 'CRM lead'],
]);
const isInboxChannel = (name: string): name is InboxChannel =>
	CHANNEL_LABELS.has(name as InboxChannel);

export interface InboxEntry {
	id: string;
	channel: InboxChannel;
	to: string;
	instance: string;
	/** The clock's time it was received; undefined for one put into the state by hand. */
	at: number | undefined;
	type: string;
	status: string;
	text: string;
	/** Other fields worth showing (caption, file name, location, CRM area, tags...). */
	details: Array<[string, string]>;
}

function messageEntry(m: SentMessage, at: number | undefined, state: SandboxState): InboxEntry {
	const details: Array<[string, string]> = [];
	for (const [name, value] of Object.entries(m.extra)) {
		if (value === undefined) continue;
		if (name === 'user') {
			if (m.channel === 'livechat')
				details.push(['from', value === true ? 'the visitor' : 'the business']);
			continue;
		}
		details.push([name, String(value)]);
	}
	const session = m.channel === 'livechat' ? state.liveChatSessions.get(m.to) : undefined;
	if (session?.name) details.unshift(['session of', session.name]);
	return {
		id: m.id,
		channel: m.channel,
		to: m.to,
		instance: m.instance,
		at,
		type: m.type,
		status: m.status,
		text: m.body ?? '',
		details,
	};
}

const LEAD_SHOWN = new Set(['id', 'to', 'instance', 'text', 'channel']);

function leadEntry(lead: CrmLead, at: number | undefined): InboxEntry {
	const details: Array<[string, string]> = [['via', String(lead.channel)]];
	for (const [name, value] of Object.entries(lead)) {
		if (LEAD_SHOWN.has(name) || name === 'token' || value === undefined) continue;
		details.push([
			name,
			Array.isArray(value)
				? value.join(', ')
				: typeof value === 'object' && value !== null
					? JSON.stringify(value)
					: String(value),
		]);
	}
	return {
		id: lead.id,
		channel: 'crm',
		to: lead.to,
		instance: lead.instance,
		at,
		type: 'lead',
		status: 'received',
		text: String(lead.text ?? ''),
		details,
	};
}

/** Every message and CRM lead, newest first (those put into the state by hand, without a time, last). */
export function inboxEntries(state: SandboxState): InboxEntry[] {
	const entries: InboxEntry[] = [];
	const seen = new Set<string>();
	for (const [id, at] of [...state.sentAt].reverse()) {
		const message = state.sentMessages.get(id);
		const lead = message ? undefined : state.crmLeads.get(id);
		if (message) entries.push(messageEntry(message, at, state));
		else if (lead) entries.push(leadEntry(lead, at));
		seen.add(id);
	}
	for (const m of [...state.sentMessages.values()].reverse())
		if (!seen.has(m.id)) entries.push(messageEntry(m, undefined, state));
	for (const lead of [...state.crmLeads.values()].reverse())
		if (!seen.has(lead.id)) entries.push(leadEntry(lead, undefined));
	return entries;
}

/**
 * Changes whenever the inbox would show something else: the page reloads then. A digest of what
 * the page shows (every entry with its fields, every short link), so that any change counts: a
 * new message, a status changed, a short link updated to a URL of the same length, a change made
 * by hand to the state. `epoch` counts resets.
 */
export function inboxStamp(state: SandboxState, epoch: number): string {
	const shown = JSON.stringify([inboxEntries(state), [...state.shortLinks.values()]]);
	return `${epoch}.${createHash('sha256').update(shown).digest('base64url').slice(0, 22)}`;
}

export function escapeHtml(text: string): string {
	return text.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
	);
}

/** What a secret is replaced with wherever it would show. */
export const HIDDEN = '[token hidden]';

/**
 * The text with every occurrence of the secrets (of 4 characters or more) hidden, in one pass,
 * the longest first: a token inside another goes with it.
 */
export function hide(text: string, secrets: readonly string[]): string {
	return hider(secrets)(text);
}

/** hide() for these secrets, its pattern built once (a page hides hundreds of strings). */
function hider(secrets: readonly string[]): (text: string) => string {
	const hidden = secrets.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
	if (hidden.length === 0) return (text) => text;
	const pattern = new RegExp(
		hidden.map((secret) => secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
		'g',
	);
	return (text) => text.replace(pattern, HIDDEN);
}

/** The value with the secrets hidden in every string of it, keys too (for JSON). */
export function hideAll(value: unknown, secrets: readonly string[]): unknown {
	const hideIn = hider(secrets);
	const walk = (item: unknown): unknown => {
		if (typeof item === 'string') return hideIn(item);
		if (Array.isArray(item)) return item.map(walk);
		if (item && typeof item === 'object')
			return Object.fromEntries(
				Object.entries(item).map(([key, inner]) => [hideIn(key), walk(inner)]),
			);
		return item;
	};
	return walk(value);
}

/** How a page shows a string, in an element or as an attribute's value: the secrets hidden, then escaped. */
type Show = (text: string) => string;
function showing(secrets: readonly string[]): Show {
	const hideIn = hider(secrets);
	return (text) => escapeHtml(hideIn(text));
}

/** An http(s) address as a browser may follow it, or undefined. */
function webAddress(text: string): string | undefined {
	try {
		const url = new URL(text);
		return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
	} catch {
		return undefined;
	}
}

/** `href` and `label` shown (a web address's normal form could differ from the text hidden in it). */
const anchor = (show: Show, href: string, label: string, attributes = '') =>
	`<a href="${show(href)}" target="_blank" rel="noopener noreferrer"${attributes}>${show(label)}</a>`;

/** An address as a link when a browser may follow it (the secrets hidden first), else as text. */
function linkOrText(show: Show, secrets: readonly string[], address: string): string {
	const hidden = hide(address, secrets);
	const href = webAddress(hidden);
	return href ? anchor(show, href, hidden) : show(hidden);
}

/** Shown text whose web addresses are links (a short link of the sandbox resolves by its redirect). */
export function linkify(text: string, secrets: readonly string[]): string {
	const show = showing(secrets);
	// Hidden as a whole first: no secret escapes by straddling an address's edge.
	const hidden = hide(text, secrets);
	let html = '';
	let last = 0;
	for (const match of hidden.matchAll(URL_IN_TEXT)) {
		const raw = match[0].replace(TRAILING, '');
		const start = match.index ?? 0;
		const href = webAddress(raw);
		if (!href) continue;
		html +=
			show(hidden.slice(last, start)) + anchor(show, href, raw, ' data-testid="message-link"');
		last = start + raw.length;
	}
	return html + show(hidden.slice(last));
}

/** The short link of this sandbox that `link` is, if it is one. */
function shortLinkOf(link: string, state: SandboxState): ShortLink | undefined {
	for (const short of state.shortLinks.values()) if (short.shortUrl === link) return short;
	return undefined;
}

function timeCell(show: Show, at: number | undefined): string {
	if (at === undefined) return '<span class="muted">time unknown</span>';
	const iso = new Date(at).toISOString();
	return `<time datetime="${show(iso)}">${show(`${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`)}</time>`;
}

/** Found in the text as sent (a short link whose idUrl is a token still leads to its long URL); shown hidden. */
function answerBlock(entry: InboxEntry, state: SandboxState, secrets: readonly string[]): string {
	const link = ANSWER_LEAD.exec(entry.text)?.[1];
	if (!link) return '';
	const show = showing(secrets);
	const short = shortLinkOf(link, state);
	const target = webAddress(hide(short ? short.longUrl : link, secrets));
	if (!target) return '';
	const via = short
		? ` <span class="muted">(the short link <code>${show(short.idUrl)}</code> leads there)</span>`
		: '';
	return `<p class="answer">${anchor(show, target, 'Open answer page', ' class="button" data-testid="answer-link"')}${via}</p>`;
}

function entryRow(entry: InboxEntry, state: SandboxState, secrets: readonly string[]): string {
	const show = showing(secrets);
	const details = entry.details
		.map(([name, value]) => `<span><b>${show(name)}</b> ${linkify(value, secrets)}</span>`)
		.join(' ');
	const kind =
		entry.type && !['text', 'chat', 'lead'].includes(entry.type)
			? ` <span class="tag">${show(entry.type)}</span>`
			: '';
	const channel = show(entry.channel);
	return `<li class="message" data-testid="message" data-channel="${channel}" data-id="${show(entry.id)}" data-to="${show(entry.to)}">
<div class="head"><span class="channel ch-${channel}">${show(CHANNEL_LABELS.get(entry.channel) ?? entry.channel)}</span>${kind}
<span class="to">to <b data-testid="recipient">${show(entry.to)}</b></span>
<span class="muted">on ${show(entry.instance ?? '')} · ${show(entry.status ?? '')}</span>
<span class="when">${timeCell(show, entry.at)}</span></div>
<div class="text" data-testid="message-text">${linkify(entry.text, secrets)}</div>
${details ? `<div class="details">${details}</div>` : ''}${answerBlock(entry, state, secrets)}</li>`;
}

function shortLinkRow(link: ShortLink, secrets: readonly string[]): string {
	const show = showing(secrets);
	return `<tr data-testid="short-link" data-id="${show(link.idUrl)}"><td><code>${show(link.idUrl)}</code></td>
<td>${linkOrText(show, secrets, link.shortUrl)}</td><td>${linkOrText(show, secrets, link.longUrl)}</td></tr>`;
}

const STYLE = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#1d2330;color:#fff;padding:12px 16px}
header h1{font-size:18px;margin:0 0 4px}
header p{margin:0;font-size:13px;color:#c9cdd6}
header>*{max-width:856px;margin-left:auto;margin-right:auto}
header a{color:#9cc3ff}
main{max-width:880px;margin:0 auto;padding:12px}
nav{display:flex;flex-wrap:wrap;gap:6px;margin:4px 0 12px}
nav a{padding:4px 10px;border-radius:14px;background:#e3e6ec;color:#1d2330;text-decoration:none;font-size:13px}
nav a.on{background:#1d2330;color:#fff}
ol{list-style:none;margin:0;padding:0}
.message{background:#fff;border-radius:8px;padding:10px 12px;margin:0 0 10px;box-shadow:0 1px 2px #0002}
.head{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline;font-size:13px}
.when{margin-left:auto;color:#5c6370}
.channel{font-weight:600;padding:1px 8px;border-radius:10px;background:#e3e6ec}
.ch-sms{background:#ffe3b3}.ch-legacy{background:#c8f0d0}.ch-socialnet{background:#d5e2ff}.ch-livechat{background:#f3d5ff}.ch-crm{background:#ffd6d6}
.tag{font-size:12px;padding:0 6px;border:1px solid #c9cdd6;border-radius:8px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:8px 0 4px}
.details{font-size:13px;color:#3b4250;display:flex;flex-wrap:wrap;gap:2px 12px;overflow-wrap:anywhere}
.muted{color:#5c6370}
a{color:#0b57d0}
.answer{margin:8px 0 2px}
.button{display:inline-block;padding:7px 14px;border-radius:6px;background:#0b57d0;color:#fff;text-decoration:none;font-weight:600}
.empty{padding:24px;text-align:center;color:#5c6370;background:#fff;border-radius:8px}
h2{font-size:16px;margin:20px 0 8px}
.table{overflow-x:auto;background:#fff;border-radius:8px;box-shadow:0 1px 2px #0002}
table{border-collapse:collapse;width:100%;font-size:13px}
td,th{padding:6px 10px;border-bottom:1px solid #eceef2;text-align:left;vertical-align:top;overflow-wrap:anywhere}
code{font:12px ui-monospace,Menlo,Consolas,monospace}
`;

/** Reloads when the stamp changes (a new message), every 2 s; the page works without it. */
const SCRIPT = `
(function(){
  for (const t of document.querySelectorAll('time[datetime]')) { const d = new Date(t.getAttribute('datetime')); t.textContent = d.toLocaleString(); t.title = d.toISOString(); }
  const stamp = document.body.dataset.stamp;
  setInterval(function(){
    fetch(${JSON.stringify(INBOX_STAMP_PATH)}, { cache: 'no-store' }).then(function(r){ return r.json(); }).then(function(j){ if (j.stamp !== stamp) location.reload(); }).catch(function(){});
  }, 2000);
})();
`;

export interface InboxOptions {
	/** The sandbox's address, `http://127.0.0.1:8787`. */
	url: string;
	/** Never shown: hidden wherever they appear (every API token the sandbox issued). */
	secrets: readonly string[];
	stamp: string;
	/** Only this channel; undefined for all. */
	channel?: InboxChannel;
	limit: number;
}

/** `?channel=` (one of the inbox's channels, else all) and `?limit=` (a positive integer, else INBOX_LIMIT). */
export function parseInboxQuery(query: URLSearchParams): { channel?: InboxChannel; limit: number } {
	const channel = query.get('channel') ?? '';
	const limit = Number(query.get('limit'));
	return {
		...(isInboxChannel(channel) && { channel }),
		limit: Number.isInteger(limit) && limit > 0 ? limit : INBOX_LIMIT,
	};
}

/** A page, and the nonce its own style and script carry (for the Content-Security-Policy). */
export interface Page {
	html: string;
	nonce: string;
}

export function renderInbox(state: SandboxState, options: InboxOptions): Page {
	const show = showing(options.secrets);
	const all = inboxEntries(state);
	const chosen = options.channel ? all.filter((entry) => entry.channel === options.channel) : all;
	const shown = chosen.slice(0, options.limit);
	const counts = new Map<InboxChannel, number>();
	for (const entry of all) counts.set(entry.channel, (counts.get(entry.channel) ?? 0) + 1);
	const tab = (channel: InboxChannel | undefined, label: string, n: number) =>
		`<a href="${show(channel ? `/inbox?channel=${channel}` : '/inbox')}"${options.channel === channel ? ' class="on"' : ''}>${show(`${label} (${n})`)}</a>`;
	const tabs = [
		tab(undefined, 'All', all.length),
		...[...CHANNEL_LABELS]
			.filter(([channel]) => counts.has(channel))
			.map(([channel, label]) => tab(channel, label, counts.get(channel)!)),
	].join('');
	const more =
		chosen.length > shown.length
			? `<p class="muted">${show(`The newest ${shown.length} of ${chosen.length}:`)} <a href="${show(`?${options.channel ? `channel=${options.channel}&` : ''}limit=${chosen.length}`)}">show all</a>.</p>`
			: '';
	const list = shown.length
		? `<ol data-testid="messages">${shown.map((entry) => entryRow(entry, state, options.secrets)).join('\n')}</ol>${more}`
		: '<p class="empty" data-testid="no-messages">No message sent yet. Run a workflow that sends one: it shows up here within 2 seconds.</p>';
	const links = [...state.shortLinks.values()].reverse();
	const nonce = randomBytes(16).toString('base64');
	const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${show(`Sandbox inbox (${all.length})`)}</title>
<noscript><meta http-equiv="refresh" content="10"></noscript>
<style nonce="${nonce}">${STYLE}</style></head>
<body data-stamp="${show(options.stamp)}">
<header><h1>Sandbox inbox</h1>
<p>What the Conversational Messaging sandbox at ${show(options.url)} sent, newest first, on every channel. Links in messages open; short links lead to their long address. It refreshes by itself.
As JSON: <a href="/__sandbox/messages">/__sandbox/messages</a>.</p></header>
<main>
<nav>${tabs}</nav>
${list}
<h2>${show(`Short links (${links.length})`)}</h2>
<div class="table"><table data-testid="short-links"><thead><tr><th>idUrl</th><th>Short link</th><th>Leads to</th></tr></thead><tbody>
${links.map((link) => shortLinkRow(link, options.secrets)).join('\n')}
</tbody></table></div>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>
`;
	return { html, nonce };
}

/**
 * Headers of every page: no script but ours, nothing framed, no address handed on to the pages
 * linked. With a nonce, only the style and script that carry it; without, no script at all.
 */
function pageHeaders(html: string, nonce?: string): http.OutgoingHttpHeaders {
	const scripts = nonce ? `'nonce-${nonce}'` : "'none'";
	return {
		'content-type': 'text/html; charset=utf-8',
		'content-length': Buffer.byteLength(html),
		'cache-control': 'no-store',
		'referrer-policy': 'no-referrer',
		'x-content-type-options': 'nosniff',
		'content-security-policy': `default-src 'none'; style-src ${nonce ? `'nonce-${nonce}'` : "'unsafe-inline'"}; script-src ${scripts}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
	};
}

/** `nonce`: the one the page's style and script carry (renderInbox's); none for a page without script. */
export function sendHtml(
	res: http.ServerResponse,
	status: number,
	html: string,
	head: boolean,
	nonce?: string,
): void {
	res.writeHead(status, pageHeaders(html, nonce));
	res.end(head ? undefined : html);
}

function notFoundPage(idUrl: string, url: string, secrets: readonly string[]): string {
	const show = showing(secrets);
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Short link not found</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:24px;color:#1d2330}</style></head>
<body><h1>Short link not found</h1><p>The sandbox at ${show(url)} has no short link <code>${show(idUrl)}</code> (a reset forgets the links created).</p>
<p><a href="/inbox">The inbox</a> lists the short links it has.</p></body></html>
`;
}

function notWebPage(link: ShortLink, secrets: readonly string[]): string {
	const show = showing(secrets);
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not a web address</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:24px;color:#1d2330}</style></head>
<body><h1>Not a web address</h1><p>The short link <code>${show(link.idUrl)}</code> leads to <code>${show(link.longUrl)}</code>, which a browser cannot open.</p></body></html>
`;
}

/**
 * GET (or HEAD) on `/s/<idUrl>`: 302 to the link's long URL; 404 for an unknown idUrl; 400 when
 * the long URL is not an http(s) address. Returns false when `path` is not a short link's.
 */
export function serveShortLink(
	res: http.ServerResponse,
	path: string,
	head: boolean,
	state: SandboxState,
	url: string,
	secrets: readonly string[],
): boolean {
	const prefix = `${SHORT_LINK_PATH}/`;
	if (
		!path.startsWith(prefix) ||
		path.length === prefix.length ||
		path.indexOf('/', prefix.length) >= 0
	)
		return false;
	let idUrl: string;
	try {
		idUrl = decodeURIComponent(path.slice(prefix.length));
	} catch {
		idUrl = path.slice(prefix.length);
	}
	const link = state.shortLinks.get(idUrl);
	if (!link) {
		sendHtml(res, 404, notFoundPage(idUrl, url, secrets), head);
		return true;
	}
	const target = webAddress(link.longUrl);
	if (!target) {
		sendHtml(res, 400, notWebPage(link, secrets), head);
		return true;
	}
	res.writeHead(302, {
		location: target,
		'cache-control': 'no-store',
		'referrer-policy': 'no-referrer',
		'content-length': 0,
	});
	res.end();
	return true;
}
