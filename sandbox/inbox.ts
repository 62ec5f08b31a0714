// The sandbox's inbox page, like Mailpit for e-mail: every message the service sent on any channel
// (and every CRM lead), newest first, with its links clickable, and the short links created.
// Served by server.ts at GET / and /inbox; the short links at GET /s/<idUrl> redirect (302) to
// their long URL. Everything shown is escaped (messages are user content) and the API token is
// never shown, even inside a message.
import { randomBytes } from 'crypto';
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
const CHANNEL_LABELS: Record<InboxChannel, string> = {
	sms: 'SMS',
	legacy: 'Chatapp (legacy)',
	socialnet: 'Socialnet',
	livechat: 'Live chat',
	crm: 'CRM lead',
};

export interface InboxEntry {
	id: string;
	channel: InboxChannel;
	to: string;
	instance: string;
	/** Date.now() time it was received; undefined for one put into the state by hand. */
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
			if (m.channel === 'livechat') details.push(['from', value === true ? 'the visitor' : 'the business']);
			continue;
		}
		details.push([name, String(value)]);
	}
	const session = m.channel === 'livechat' ? state.liveChatSessions.get(m.to) : undefined;
	if (session?.name) details.unshift(['session of', session.name]);
	return { id: m.id, channel: m.channel, to: m.to, instance: m.instance, at, type: m.type, status: m.status, text: m.body ?? '', details };
}

const LEAD_SHOWN = new Set(['id', 'to', 'instance', 'text', 'channel']);

function leadEntry(lead: CrmLead, at: number | undefined): InboxEntry {
	const details: Array<[string, string]> = [['via', String(lead.channel)]];
	for (const [name, value] of Object.entries(lead)) {
		if (LEAD_SHOWN.has(name) || name === 'token' || value === undefined) continue;
		details.push([name, Array.isArray(value) ? value.join(', ') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)]);
	}
	return { id: lead.id, channel: 'crm', to: lead.to, instance: lead.instance, at, type: 'lead', status: 'received', text: String(lead.text ?? ''), details };
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
	for (const m of [...state.sentMessages.values()].reverse()) if (!seen.has(m.id)) entries.push(messageEntry(m, undefined, state));
	for (const lead of [...state.crmLeads.values()].reverse()) if (!seen.has(lead.id)) entries.push(leadEntry(lead, undefined));
	return entries;
}

/** Changes when the inbox would show something new: the page reloads then. */
export function inboxStamp(state: SandboxState, epoch: number): string {
	const links = [...state.shortLinks.values()].reduce((n, link) => n + link.longUrl.length, 0);
	return `${epoch}.${state.sentAt.size}.${state.sentMessages.size}.${state.crmLeads.size}.${state.shortLinks.size}.${links}`;
}

export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The text with every occurrence of the secrets hidden. */
function hide(text: string, secrets: readonly string[]): string {
	let out = text;
	for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[token hidden]');
	return out;
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

const anchor = (href: string, label: string, attributes = '') =>
	`<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer"${attributes}>${escapeHtml(label)}</a>`;

/** Escaped text whose web addresses are links (a short link of the sandbox resolves by its redirect). */
export function linkify(text: string): string {
	let html = '';
	let last = 0;
	for (const match of text.matchAll(URL_IN_TEXT)) {
		const raw = match[0].replace(TRAILING, '');
		const start = match.index ?? 0;
		const href = webAddress(raw);
		if (!href) continue;
		html += escapeHtml(text.slice(last, start)) + anchor(href, raw, ' data-testid="message-link"');
		last = start + raw.length;
	}
	return html + escapeHtml(text.slice(last));
}

/** The short link of this sandbox that `link` is, if it is one. */
function shortLinkOf(link: string, state: SandboxState): ShortLink | undefined {
	for (const short of state.shortLinks.values()) if (short.shortUrl === link) return short;
	return undefined;
}

function timeCell(at: number | undefined): string {
	if (at === undefined) return '<span class="muted">time unknown</span>';
	const iso = new Date(at).toISOString();
	return `<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`;
}

function answerBlock(entry: InboxEntry, state: SandboxState, secrets: readonly string[]): string {
	const link = ANSWER_LEAD.exec(entry.text)?.[1];
	if (!link) return '';
	const short = shortLinkOf(link, state);
	const target = webAddress(hide(short ? short.longUrl : link, secrets));
	if (!target) return '';
	const via = short ? ` <span class="muted">(the short link <code>${escapeHtml(short.idUrl)}</code> leads there)</span>` : '';
	return `<p class="answer">${anchor(target, 'Open answer page', ' class="button" data-testid="answer-link"')}${via}</p>`;
}

function entryRow(entry: InboxEntry, state: SandboxState, secrets: readonly string[]): string {
	const text = hide(entry.text, secrets);
	const details = entry.details
		.map(([name, value]) => `<span><b>${escapeHtml(name)}</b> ${linkify(hide(value, secrets))}</span>`)
		.join(' ');
	const kind = entry.type && !['text', 'chat', 'lead'].includes(entry.type) ? ` <span class="tag">${escapeHtml(entry.type)}</span>` : '';
	return `<li class="message" data-testid="message" data-channel="${entry.channel}" data-id="${escapeHtml(entry.id)}" data-to="${escapeHtml(hide(entry.to, secrets))}">
<div class="head"><span class="channel ch-${entry.channel}">${CHANNEL_LABELS[entry.channel]}</span>${kind}
<span class="to">to <b data-testid="recipient">${escapeHtml(hide(entry.to, secrets))}</b></span>
<span class="muted">on ${escapeHtml(hide(entry.instance ?? '', secrets))} · ${escapeHtml(entry.status ?? '')}</span>
<span class="when">${timeCell(entry.at)}</span></div>
<div class="text" data-testid="message-text">${linkify(text)}</div>
${details ? `<div class="details">${details}</div>` : ''}${answerBlock({ ...entry, text }, state, secrets)}</li>`;
}

function shortLinkRow(link: ShortLink, secrets: readonly string[]): string {
	const long = hide(link.longUrl, secrets);
	const longHref = webAddress(long);
	return `<tr data-testid="short-link" data-id="${escapeHtml(link.idUrl)}"><td><code>${escapeHtml(link.idUrl)}</code></td>
<td>${anchor(link.shortUrl, link.shortUrl)}</td><td>${longHref ? anchor(longHref, long) : escapeHtml(long)}</td></tr>`;
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
	/** Never shown: hidden wherever they appear (the current and initial API tokens). */
	secrets: readonly string[];
	stamp: string;
	/** Only this channel; undefined for all. */
	channel?: InboxChannel;
	limit: number;
}

export function parseInboxQuery(query: URLSearchParams): { channel?: InboxChannel; limit: number } {
	const channel = query.get('channel') ?? '';
	const limit = Number(query.get('limit'));
	return {
		...(channel in CHANNEL_LABELS && { channel: channel as InboxChannel }),
		limit: Number.isInteger(limit) && limit > 0 ? limit : INBOX_LIMIT,
	};
}

export function renderInbox(state: SandboxState, options: InboxOptions): string {
	const all = inboxEntries(state);
	const chosen = options.channel ? all.filter((entry) => entry.channel === options.channel) : all;
	const shown = chosen.slice(0, options.limit);
	const counts = new Map<InboxChannel, number>();
	for (const entry of all) counts.set(entry.channel, (counts.get(entry.channel) ?? 0) + 1);
	const tab = (channel: InboxChannel | undefined, label: string, n: number) =>
		`<a href="${channel ? `/inbox?channel=${channel}` : '/inbox'}"${options.channel === channel ? ' class="on"' : ''}>${label} (${n})</a>`;
	const tabs = [tab(undefined, 'All', all.length), ...(Object.keys(CHANNEL_LABELS) as InboxChannel[]).filter((channel) => counts.has(channel)).map((channel) => tab(channel, CHANNEL_LABELS[channel], counts.get(channel)!))].join('');
	const more = chosen.length > shown.length ? `<p class="muted">The newest ${shown.length} of ${chosen.length}: <a href="?${options.channel ? `channel=${options.channel}&amp;` : ''}limit=${chosen.length}">show all</a>.</p>` : '';
	const list = shown.length
		? `<ol data-testid="messages">${shown.map((entry) => entryRow(entry, state, options.secrets)).join('\n')}</ol>${more}`
		: '<p class="empty" data-testid="no-messages">No message sent yet. Run a workflow that sends one: it shows up here within 2 seconds.</p>';
	const links = [...state.shortLinks.values()].reverse();
	const nonce = randomBytes(16).toString('base64');
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sandbox inbox (${all.length})</title>
<noscript><meta http-equiv="refresh" content="10"></noscript>
<style nonce="${nonce}">${STYLE}</style></head>
<body data-stamp="${escapeHtml(options.stamp)}">
<header><h1>Sandbox inbox</h1>
<p>What the Conversational Messaging sandbox at ${escapeHtml(options.url)} sent, newest first, on every channel. Links in messages open; short links lead to their long address. It refreshes by itself.
As JSON: <a href="/__sandbox/messages">/__sandbox/messages</a>.</p></header>
<main>
<nav>${tabs}</nav>
${list}
<h2>Short links (${links.length})</h2>
<div class="table"><table data-testid="short-links"><thead><tr><th>idUrl</th><th>Short link</th><th>Leads to</th></tr></thead><tbody>
${links.map((link) => shortLinkRow(link, options.secrets)).join('\n')}
</tbody></table></div>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>
`;
}

/** Headers of every page: no script but ours, nothing framed, no address handed on to the pages linked. */
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

export function sendHtml(res: http.ServerResponse, status: number, html: string, head: boolean): void {
	const nonce = /<script nonce="([^"]+)">/.exec(html)?.[1];
	res.writeHead(status, pageHeaders(html, nonce));
	res.end(head ? undefined : html);
}

function notFoundPage(idUrl: string, url: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Short link not found</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:24px;color:#1d2330}</style></head>
<body><h1>Short link not found</h1><p>The sandbox at ${escapeHtml(url)} has no short link <code>${escapeHtml(idUrl)}</code> (a reset forgets the links created).</p>
<p><a href="/inbox">The inbox</a> lists the short links it has.</p></body></html>
`;
}

function notWebPage(link: ShortLink, secrets: readonly string[]): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not a web address</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:24px;color:#1d2330}</style></head>
<body><h1>Not a web address</h1><p>The short link <code>${escapeHtml(link.idUrl)}</code> leads to <code>${escapeHtml(hide(link.longUrl, secrets))}</code>, which a browser cannot open.</p></body></html>
`;
}

/**
 * GET (or HEAD) on `/s/<idUrl>`: 302 to the link's long URL; 404 for an unknown idUrl; 400 when
 * the long URL is not an http(s) address. Returns false when `path` is not a short link's.
 */
export function serveShortLink(res: http.ServerResponse, path: string, head: boolean, state: SandboxState, url: string, secrets: readonly string[]): boolean {
	const prefix = `${SHORT_LINK_PATH}/`;
	if (!path.startsWith(prefix) || path.length === prefix.length || path.indexOf('/', prefix.length) >= 0) return false;
	let idUrl: string;
	try {
		idUrl = decodeURIComponent(path.slice(prefix.length));
	} catch {
		idUrl = path.slice(prefix.length);
	}
	const link = state.shortLinks.get(idUrl);
	if (!link) {
		sendHtml(res, 404, notFoundPage(idUrl, url), head);
		return true;
	}
	const target = webAddress(link.longUrl);
	if (!target) {
		sendHtml(res, 400, notWebPage(link, secrets), head);
		return true;
	}
	res.writeHead(302, { location: target, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-length': 0 });
	res.end();
	return true;
}
