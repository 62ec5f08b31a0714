/**
 * The sandbox's pages for people, over real HTTP on loopback: short links that redirect to their
 * long URL, and the inbox (/, /inbox) listing every message sent, newest first, with its links,
 * escaped, without the API token, and with a Send and Wait question's answer page one click away.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import {
	hide,
	hideAll,
	inboxStamp,
	parseInboxQuery,
	renderInbox,
	INBOX_LIMIT,
} from '../../sandbox/inbox';
import { FakeClock } from '../../sandbox/server';
import { useSandbox } from '../helpers/sandbox';

const TOKEN = 'inboxSecretToken2026';
/** The times the inbox shows are this clock's, as the test sets them. */
const clock = new FakeClock();
const suite = useSandbox({ token: TOKEN, clock });
const sandbox = () => suite.sandbox;

beforeEach(() => sandbox().reset());

async function api(path: string, body: Record<string, unknown>): Promise<Record<string, any>> {
	const response = await fetch(`${sandbox().url}${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ token: sandbox().token, ...body }),
	});
	const answer = (await response.json()) as { statusCode: number; body: Record<string, any> };
	expect(answer.statusCode).toBe(200);
	return answer.body;
}

async function get(path: string): Promise<{ status: number; text: string; headers: Headers }> {
	const response = await fetch(`${sandbox().url}${path}`, { redirect: 'manual' });
	return { status: response.status, text: await response.text(), headers: response.headers };
}

interface Row {
	channel: string;
	to: string;
	html: string;
	/** The message's text as shown, tags removed and entities decoded. */
	text: string;
	/** The href of every anchor of the row. */
	links: string[];
	answer: string | undefined;
}

const decode = (html: string) =>
	html
		.replace(/<[^>]*>/g, '')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, '&');

/** The message rows of the inbox page, top to bottom, read by their data-testid attributes. */
function rowsOf(page: string): Row[] {
	return page
		.split('<li ')
		.slice(1)
		.filter((part) => part.includes('data-testid="message"'))
		.map((part) => {
			const html = part.slice(0, part.indexOf('</li>'));
			const attribute = (name: string) =>
				decode(new RegExp(`${name}="([^"]*)"`).exec(html)?.[1] ?? '');
			const text = /data-testid="message-text">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';
			const answer = /<a href="([^"]*)"[^>]*data-testid="answer-link"/.exec(html)?.[1];
			return {
				channel: attribute('data-channel'),
				to: attribute('data-to'),
				html,
				text: decode(text),
				links: [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => decode(m[1])),
				answer: answer === undefined ? undefined : decode(answer),
			};
		});
}

describe('short links', () => {
	it('point at the sandbox itself, and redirect (302) to their long URL; the seeded one too', async () => {
		const link = await api('/v1/short', { longUrl: 'https://example.com/sale?from=sms&x=1' });
		expect(link.shortUrl).toBe(`${sandbox().url}/s/${link.idUrl}`);
		expect(sandbox().shortLinkBase).toBe(`${sandbox().url}/s`);
		const answer = await fetch(link.shortUrl, { redirect: 'manual' });
		expect(answer.status).toBe(302);
		expect(answer.headers.get('location')).toBe('https://example.com/sale?from=sms&x=1');

		expect(sandbox().state.shortLinks.get('welcome')?.shortUrl).toBe(`${sandbox().url}/s/welcome`);
		const welcome = await get('/s/welcome');
		expect([welcome.status, welcome.headers.get('location')]).toEqual([
			302,
			'https://example.com/welcome',
		]);
	});

	it('follow an update of the long URL, and a chosen idUrl', async () => {
		await api('/v1/short', { longUrl: 'https://example.com/a', idUrl: 'spring-sale' });
		const res = await fetch(`${sandbox().url}/v1/short`, {
			method: 'PATCH',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				token: TOKEN,
				idUrl: 'spring-sale',
				longUrl: 'https://example.com/b',
			}),
		});
		expect(res.status).toBe(200);
		expect((await get('/s/spring-sale')).headers.get('location')).toBe('https://example.com/b');
	});

	it('an unknown code is a 404 page, and the API is not involved (nothing recorded)', async () => {
		const before = sandbox().stats().total;
		const missing = await get('/s/no-such-link');
		expect(missing.status).toBe(404);
		expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
		expect(missing.text).toContain('Short link not found');
		expect(missing.text).toContain('no-such-link');
		const hostile = await get(`/s/${encodeURIComponent('<script>x</script>')}`);
		expect(hostile.status).toBe(404);
		expect(hostile.text).not.toContain('<script>');
		expect(sandbox().stats().total).toBe(before);
	});
});

describe('the inbox page', () => {
	it('is served at / and /inbox as HTML, and the controls name it', async () => {
		for (const path of ['/', '/inbox']) {
			const page = await get(path);
			expect(page.status).toBe(200);
			expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
			expect(page.text).toContain('<title>Sandbox inbox');
			expect(page.text).toContain('name="viewport"');
			expect(page.text).toContain('No message sent yet');
		}
		expect(sandbox().inboxUrl).toBe(`${sandbox().url}/`);
		const messages = (await (await fetch(`${sandbox().url}/__sandbox/messages`)).json()) as {
			inbox: string;
		};
		expect(messages.inbox).toBe(sandbox().inboxUrl);
	});

	it('lists the messages of every channel, newest first, with recipient, time and text, and their links as anchors', async () => {
		// A minute between messages: each row's time is the one it was received at.
		const received: number[] = [];
		const aMinuteLater = () => {
			clock.advance(60_000);
			received.unshift(clock.now());
		};
		aMinuteLater();
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: 'Your code is 1234',
		});
		aMinuteLater();
		await api('/v1/msg-wh', {
			type: 'document',
			to: '573001112233',
			instance: 'qr-1',
			body: 'https://files.example/invoice.pdf',
			filename: 'invoice.pdf',
		});
		aMinuteLater();
		await api('/v1/socialnet/send-chat', {
			type: 'text',
			to: 'psid-77',
			instance: 'page-1',
			body: 'See https://shop.example/spring.',
		});
		const session = await api('/v1/live-chat/session', { instance: 'web-1', name: 'Leo' });
		aMinuteLater();
		await api('/v1/live-chat', {
			type: 'text',
			to: session.id,
			instance: 'web-1',
			body: 'Hello Leo',
		});
		aMinuteLater();
		await api('/v1/crm', {
			to: '573009998877@c.us',
			instance: 'crm-1',
			text: 'I want a quote',
			area: 'sales',
			tags: ['web-form'],
			channel: 'chatapp',
		});

		const page = await get('/inbox');
		const rows = rowsOf(page.text);
		expect(rows.map((row) => [row.channel, row.to, row.text])).toEqual([
			['crm', '573009998877@c.us', 'I want a quote'],
			['livechat', session.id, 'Hello Leo'],
			['socialnet', 'psid-77', 'See https://shop.example/spring.'],
			['legacy', '573001112233', 'https://files.example/invoice.pdf'],
			['sms', '573001234567', 'Your code is 1234'],
		]);
		// The address is a link, without the full stop that ends the sentence.
		expect(rows[2].links).toEqual(['https://shop.example/spring']);
		expect(rows[3].links).toEqual(['https://files.example/invoice.pdf']);
		expect(rows[3].html).toContain('invoice.pdf');
		expect(rows[1].html).toContain('Leo');
		expect(rows[0].html).toContain('sales');
		expect(rows.map((row) => /<time datetime="([^"]+)">/.exec(row.html)?.[1])).toEqual(
			received.map((at) => new Date(at).toISOString()),
		);
		// The short links created are listed too.
		expect(page.text).toContain('data-testid="short-link" data-id="welcome"');

		const sms = rowsOf((await get('/inbox?channel=sms')).text);
		expect(sms.map((row) => row.channel)).toEqual(['sms']);
		const newest = rowsOf((await get('/?limit=2')).text);
		expect(newest.map((row) => row.channel)).toEqual(['crm', 'livechat']);
	});

	it('?channel= takes only its own channels: a built-in name such as constructor lists them all', async () => {
		await api('/v1/sms', { type: 'text', to: '573001234567', instance: 'sms-1', body: 'one' });
		for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
			expect(parseInboxQuery(new URLSearchParams({ channel: name }))).toEqual({
				limit: INBOX_LIMIT,
			});
			const rows = rowsOf((await get(`/inbox?channel=${name}`)).text);
			expect({ name, channels: rows.map((row) => row.channel) }).toEqual({
				name,
				channels: ['sms'],
			});
		}
		expect(parseInboxQuery(new URLSearchParams('channel=crm&limit=3'))).toEqual({
			channel: 'crm',
			limit: 3,
		});
	});

	it('escapes the HTML of messages, recipients and links', async () => {
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: '<i>line</i>',
			body: '<script>alert(1)</script> & <b>bold</b> "quoted" https://x.example/?a=1&b=<2>',
		});
		await api('/v1/short', {
			longUrl: 'https://example.com/"><script>alert(2)</script>',
			idUrl: '<img src=x onerror=alert(3)>',
		});
		const page = (await get('/')).text;
		expect(page).not.toMatch(/<script>alert|<b>bold|<i>line|<img src=x/);
		expect(page).toContain(
			'&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt; &quot;quoted&quot;',
		);
		const [row] = rowsOf(page);
		expect(row.text).toBe(
			'<script>alert(1)</script> & <b>bold</b> "quoted" https://x.example/?a=1&b=<2>',
		);
		expect(row.links).toEqual(['https://x.example/?a=1&b=']);
		// The only script is the page's own, allowed by its nonce alone.
		expect(page.match(/<script/g)).toHaveLength(1);
		const policy = (await get('/')).headers.get('content-security-policy') ?? '';
		expect(policy).toMatch(/script-src 'nonce-[^']+';/);
		expect(policy).not.toContain("script-src 'unsafe-inline'");
	});

	it("sends the nonce renderInbox gave the page's style and script in its Content-Security-Policy", async () => {
		const options = {
			url: sandbox().url,
			secrets: [TOKEN],
			stamp: inboxStamp(sandbox().state, 0),
			limit: 10,
		};
		const { html, nonce } = renderInbox(sandbox().state, options);
		expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
		expect(html).toContain(`<style nonce="${nonce}">`);
		expect(html).toContain(`<script nonce="${nonce}">`);
		expect(renderInbox(sandbox().state, options).nonce).not.toBe(nonce);

		// A message that looks like a nonced script stays text, and the header's nonce is the page's.
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: '<script nonce="forged">alert(1)</script>',
		});
		const page = await get('/');
		const policy = page.headers.get('content-security-policy') ?? '';
		const sent = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];
		expect(sent).toBeDefined();
		expect(page.text).toContain(`<script nonce="${sent}">`);
		expect(policy).toContain(`style-src 'nonce-${sent}'`);
		expect(policy).not.toContain('forged');
	});

	it('never shows the API token, even inside a message', async () => {
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: `the token is ${TOKEN}`,
		});
		await api('/v1/crm', {
			to: '573001234567@c.us',
			instance: 'crm-1',
			text: `lead ${TOKEN}`,
			area: 'sales',
			channel: 'chatapp',
		});
		await api('/v1/short', { longUrl: `https://example.com/?t=${TOKEN}` });
		const rotated = sandbox().rotateToken();
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: `the new one is ${rotated}`,
		});
		const page = (await get('/inbox')).text;
		expect(page).not.toContain(TOKEN);
		expect(page).not.toContain(rotated);
		expect(rowsOf(page).map((row) => row.text)).toEqual([
			'the new one is [token hidden]',
			'lead [token hidden]',
			'the token is [token hidden]',
		]);
	});

	it('never shows a token rotated out in between (rotated twice), nor one that came back with a reset', async () => {
		const first = sandbox().rotateToken();
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: `first ${first}`,
		});
		const second = sandbox().rotateToken();
		expect(second).not.toBe(first);
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: `${first} then ${second}, and ${TOKEN}`,
		});
		await api('/v1/short', { longUrl: `https://example.com/?t=${first}`, idUrl: first });
		const page = (await get('/inbox')).text;
		for (const token of [TOKEN, first, second]) expect(page).not.toContain(token);
		expect(rowsOf(page).map((row) => row.text)).toEqual([
			'[token hidden] then [token hidden], and [token hidden]',
			'first [token hidden]',
		]);

		// A reset brings the initial token back; the rotated ones stay hidden all the same.
		sandbox().reset();
		sandbox().state.sentMessages.set('by-hand', {
			id: 'by-hand',
			channel: 'sms',
			to: second,
			type: 'text',
			body: `${first} ${second}`,
			instance: first,
			status: 'sent',
			extra: { [first]: second },
		});
		const after = (await get('/inbox')).text;
		for (const token of [TOKEN, first, second]) expect(after).not.toContain(token);
	});

	it('never shows the token as an idUrl: not in the short links, the data-id attribute, the answer link nor the 404 page', async () => {
		const link = await api('/v1/short', { longUrl: 'https://example.com/answer', idUrl: TOKEN });
		expect(link.shortUrl).toBe(`${sandbox().url}/s/${TOKEN}`);
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: `Approve?\n\nAnswer here: ${link.shortUrl}`,
		});
		const page = (await get('/inbox')).text;
		expect(page).not.toContain(TOKEN);
		expect(page).toContain('data-testid="short-link" data-id="[token hidden]"');
		// The answer page is still one click away: the short link is found by its real address.
		const [row] = rowsOf(page);
		expect(row.answer).toBe('https://example.com/answer');
		expect(row.text).toBe(`Approve?\n\nAnswer here: ${sandbox().url}/s/[token hidden]`);

		const missing = await get(`/s/${sandbox().rotateToken()}`);
		expect(missing.status).toBe(404);
		expect(missing.text).toContain('[token hidden]');
		expect(missing.text).not.toContain(sandbox().token);
	});

	it('hides each secret whole, the longest first, whatever its characters; in JSON keys and values alike', () => {
		expect(hide('a.c+1234 a.c+12345 ab.c+1234', ['a.c+1234', 'a.c+12345', 'abc'])).toBe(
			'[token hidden] [token hidden] ab.c+1234',
		);
		expect(hideAll({ list: ['x tok1', { tok1: 2 }], n: 1, none: null }, ['tok1'])).toEqual({
			list: ['x [token hidden]', { '[token hidden]': 2 }],
			n: 1,
			none: null,
		});
	});

	it('and neither does GET /__sandbox/messages, which it links to', async () => {
		const first = sandbox().rotateToken();
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			body: `${TOKEN} ${first}`,
			instance: `line-${first}`,
		});
		const second = sandbox().rotateToken();
		await api('/v1/short', { longUrl: `https://example.com/?t=${second}`, idUrl: first });
		const text = await (await fetch(`${sandbox().url}/__sandbox/messages`)).text();
		for (const token of [TOKEN, first, second]) expect(text).not.toContain(token);
		const json = JSON.parse(text) as {
			messages: Array<{ body: string }>;
			shortLinks: Array<{ idUrl: string; longUrl: string }>;
		};
		expect(json.messages[0]).toMatchObject({
			body: '[token hidden] [token hidden]',
			instance: 'line-[token hidden]',
		});
		expect(json.shortLinks.at(-1)).toMatchObject({
			idUrl: '[token hidden]',
			longUrl: 'https://example.com/?t=[token hidden]',
		});
	});

	it("shows a Send and Wait question's answer page one click away, behind the node's short link", async () => {
		const question = 'Refund of 400 USD for order 17: approve?';
		const run = await suite.run({
			resource: 'messaging',
			operation: 'sendAndWait',
			message: question,
			responseType: 'approval',
			sendAndWaitChannel: 'sms',
			instance: 'line-1',
			to: '+57 300 555 0199',
		});
		expect(run.error).toBeUndefined();
		const [link] = [...sandbox().state.shortLinks.values()].slice(-1);
		expect(link.longUrl).toMatch(/\/webhookWaiting\/\d+\/node\?to=1&signature=/);

		const [row] = rowsOf((await get('/')).text);
		expect(row).toMatchObject({
			channel: 'sms',
			to: '573005550199',
			text: `${question}\n\nAnswer here: ${link.shortUrl}`,
		});
		expect(link.shortUrl.startsWith(`${sandbox().url}/s/`)).toBe(true);
		// The SMS's link, clickable, and the answer page straight.
		expect(row.links).toEqual([link.shortUrl, link.longUrl]);
		expect(row.answer).toBe(link.longUrl);
		expect(row.html).toContain('>Open answer page</a>');
		// The SMS's link leads there too.
		const followed = await fetch(link.shortUrl, { redirect: 'manual' });
		expect([followed.status, followed.headers.get('location')]).toEqual([302, link.longUrl]);
	});

	it('shows the answer page of an unshortened link (the other channels) as it is', async () => {
		const page = 'http://127.0.0.1:5678/webhook-waiting/42?signature=abc';
		await api('/v1/socialnet/send-chat', {
			type: 'text',
			to: 'psid-9',
			instance: 'page-1',
			body: `Approve?\n\nAnswer here: ${page}`,
		});
		const [row] = rowsOf((await get('/')).text);
		expect(row.answer).toBe(page);
		await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: 'No question here: https://example.com',
		});
		expect(rowsOf((await get('/')).text)[0].answer).toBeUndefined();
	});

	it('tells the page when to reload: its stamp changes with a new message and on reset', async () => {
		const stamp = async () =>
			((await (await fetch(`${sandbox().url}/inbox/stamp`)).json()) as { stamp: string }).stamp;
		const first = await stamp();
		expect((await get('/')).text).toContain(`data-stamp="${first}"`);
		await api('/v1/sms', { type: 'text', to: '573001234567', instance: 'sms-1', body: 'x' });
		const second = await stamp();
		expect(second).not.toBe(first);
		sandbox().reset();
		expect(await stamp()).not.toBe(second);
	});

	it('its stamp changes with what the page shows even when no size does: a same-length short link update, a status', async () => {
		const stamp = async () =>
			((await (await fetch(`${sandbox().url}/inbox/stamp`)).json()) as { stamp: string }).stamp;
		await api('/v1/short', { longUrl: 'https://example.com/a', idUrl: 'same-size' });
		const sent = await api('/v1/sms', {
			type: 'text',
			to: '573001234567',
			instance: 'sms-1',
			body: 'x',
		});
		const before = await stamp();
		expect(await stamp()).toBe(before);
		const res = await fetch(`${sandbox().url}/v1/short`, {
			method: 'PATCH',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ token: TOKEN, idUrl: 'same-size', longUrl: 'https://example.com/b' }),
		});
		expect(res.status).toBe(200);
		const updated = await stamp();
		expect(updated).not.toBe(before);
		expect((await get('/')).text).toContain(`data-stamp="${updated}"`);

		const message = sandbox().state.sentMessages.get(sent.id)!;
		message.status = message.status === 'sent' ? 'queued' : 'sent';
		expect(await stamp()).not.toBe(updated);
	});
});

describe('the docs point to it', () => {
	const read = (path: string) => readFileSync(join(__dirname, '..', '..', path), 'utf8');
	const notes = (file: string) =>
		(
			JSON.parse(read(`examples/${file}`)) as {
				nodes: Array<{ type: string; parameters: { content?: string } }>;
			}
		).nodes
			.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
			.map((node) => node.parameters.content ?? '')
			.join('\n');

	it('the SMS approval example says to open the inbox and click the link; every example that sends names the inbox', () => {
		expect(notes('sms-approval-before-refund.json')).toContain(
			'open http://127.0.0.1:8787/ to see the SMS and click its link',
		);
		for (const file of [
			'bulk-send-sms-and-chatapp.json',
			'bulk-sms-in-local-hours.json',
			'crm-lead-from-web-form.json',
			'short-link-in-sms.json',
		]) {
			expect({ file, notes: notes(file) }).toEqual({
				file,
				notes: expect.stringContaining('http://127.0.0.1:8787/'),
			});
		}
		for (const path of ['README.md', 'examples/README.md'])
			expect(read(path)).toContain('http://127.0.0.1:8787/ to see the SMS and click its link');
	});
});
