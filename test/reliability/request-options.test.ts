/**
 * Settings > Request Options and the credential's Allowed HTTP Request Domains on a bulk send,
 * as their descriptions say, over real HTTP on loopback: Proxy (a forward proxy of the test's own
 * carries every request), a proxy that is not an address (each item fails naming it, nothing is
 * sent), Ignore SSL Issues (an HTTPS service with a self-signed certificate), and allowed domains
 * (n8n's HTTP helper refuses a host not listed; nothing reaches the service). Timeout: faults.test.ts;
 * Batching: batching.test.ts.
 */
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import http from 'http';
import https from 'https';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { onSkippingClock } from '../helpers/nodeClock';
import { SEND_SMS as sms, useSandbox } from '../helpers/sandbox';

const suite = useSandbox();
const items = [{ phone: '573001234567' }, { phone: '573001234568' }];

/**
 * A forward proxy (the request line holds the absolute address) that notes each request's line,
 * and answers itself the requests `answers` takes.
 */
function forwardProxy(
	seen: string[],
	answers: (request: http.IncomingMessage, response: http.ServerResponse) => boolean = () => false,
): http.Server {
	return http.createServer((request, response) => {
		seen.push(`${request.method} ${request.url}`);
		if (answers(request, response)) return;
		const forward = http.request(
			request.url as string,
			{ method: request.method, headers: request.headers },
			(answer) => {
				response.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(response);
			},
		);
		request.pipe(forward);
	});
}

async function listen(server: http.Server): Promise<number> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return (server.address() as AddressInfo).port;
}

const PROXY_FIX =
	' Settings > Request Options > Proxy: use http://host:port, with user:password@ before the host if it needs them.';

describe('Proxy', () => {
	it('sends every request through the proxy', async () => {
		const seen: string[] = [];
		const proxy = forwardProxy(seen);
		const port = await listen(proxy);
		try {
			const run = await suite.run(
				{ ...sms, requestOptions: { proxy: `http://127.0.0.1:${port}` } },
				{ items },
			);
			expect(run.error).toBeUndefined();
			expect(run.items).toHaveLength(2);
			expect(run.requests).toHaveLength(2);
			expect(seen).toEqual(Array(2).fill(`POST ${suite.sandbox.url}/v1/sms`));
		} finally {
			proxy.close();
		}
	});

	it('sends its user and password to the proxy, never to the service', async () => {
		const authorizations: unknown[] = [];
		const proxy = http.createServer((request, response) => {
			authorizations.push(request.headers['proxy-authorization']);
			response.writeHead(407).end();
		});
		const port = await listen(proxy);
		try {
			const run = await suite.run(
				{ ...sms, requestOptions: { proxy: `http://ann:s3cret@127.0.0.1:${port}` } },
				{ items: items.slice(0, 1), continueOnFail: true },
			);
			expect(authorizations).toEqual([`Basic ${Buffer.from('ann:s3cret').toString('base64')}`]);
			expect(run.requests).toHaveLength(0);
		} finally {
			proxy.close();
		}
	});

	it('refuses a proxy without a port, quoting it without its password (an @ in it too)', async () => {
		const run = await suite.run(
			{ ...sms, requestOptions: { proxy: 'http://ann:s3@cret@proxy.example' } },
			{ items: items.slice(0, 1), continueOnFail: true },
		);
		expect(run.requests).toHaveLength(0);
		// An error item's message carries its fix (n8n shows an error item as its message alone).
		expect(run.items[0].error?.message).toBe(
			`Proxy: "http://proxy.example" is not a proxy address.${PROXY_FIX}`,
		);
		expect(JSON.stringify(run.run.data)).not.toContain('cret');
	});

	it('fails each item naming the Proxy when it is not an address, and sends nothing', async () => {
		const run = await suite.run(
			{ ...sms, requestOptions: { proxy: 'my proxy' } },
			{ items, continueOnFail: true },
		);
		expect(run.requests).toHaveLength(0);
		expect(run.items.map((item) => item.error?.message)).toEqual(
			Array(2).fill(`Proxy: "my proxy" is not a proxy address.${PROXY_FIX}`),
		);
	});

	it('a proxy that is not running: each item fails unsent, naming the Proxy as a cause to check', async () => {
		const closed = http.createServer();
		const port = await listen(closed);
		await new Promise((resolve) => closed.close(resolve));
		// The first contact's 10 s, skipped (test/helpers/nodeClock.ts).
		const run = await onSkippingClock(
			async () =>
				await suite.run(
					{ ...sms, requestOptions: { proxy: `http://127.0.0.1:${port}` } },
					{ items, continueOnFail: true },
				),
		);
		expect(run.requests).toHaveLength(0);
		expect(run.items.map((item) => item.error?.description)).toEqual(
			Array(2).fill(
				expect.stringContaining('Requests go through the Proxy (Settings > Request Options)'),
			),
		);
	});

	it('read for each item when it is an expression: the item with a bad proxy fails, the other is sent', async () => {
		const run = await suite.run(
			{ ...sms, requestOptions: { proxy: '={{ $json.proxy }}' } },
			{
				items: [
					{ ...items[0], proxy: '' },
					{ ...items[1], proxy: 'my proxy' },
				],
				continueOnFail: true,
			},
		);
		expect(run.items.map((item) => item.error?.message)).toEqual([
			undefined,
			`Proxy: "my proxy" is not a proxy address.${PROXY_FIX}`,
		]);
		expect(run.requests.map((request) => request.body)).toEqual([
			expect.objectContaining({ to: items[0].phone }),
		]);
	});
});

describe("Researcher > Run's progress checks", () => {
	it('go through the Proxy too, and a failed one says the research goes on in the service', async () => {
		const seen: string[] = [];
		// Forwards the run request; answers the progress check itself, as a failing gateway.
		const proxy = forwardProxy(seen, (request, response) => {
			if (request.method !== 'GET') return false;
			response.writeHead(502).end('Bad gateway');
			return true;
		});
		const port = await listen(proxy);
		try {
			// The first poll's wait, skipped (test/helpers/nodeClock.ts).
			const run = await onSkippingClock(
				async () =>
					await suite.run({
						resource: 'researcher',
						operation: 'run',
						researcherId: 'researcher-1',
						runOptions: { waitForCompletion: true },
						requestOptions: { proxy: `http://127.0.0.1:${port}` },
					}),
			);
			const url = `${suite.sandbox.url}/v1/researcher/researcher-1`;
			// The token goes in a GET's query (the service's rule), in the PUT's body.
			expect(seen.map((line) => line.replace(/\?.*$/, ''))).toEqual([`PUT ${url}`, `GET ${url}`]);
			expect(run.requests.map((request) => request.method)).toEqual(['PUT']);
			expect(run.error?.message).toContain('HTTP 502');
			// Not the advice a failed request gets to run it again (Retry On Fail): Run would start it again.
			expect(run.error?.description).toBe(
				'The research was started and goes on in the service: read its result with Researcher > Get rather than running Run again. The service failed to process the request.',
			);
		} finally {
			proxy.close();
		}
	});
});

describe('Ignore SSL Issues', () => {
	let server: https.Server;
	let baseUrl: string;
	let received = 0;
	beforeAll(async () => {
		const dir = mkdtempSync(join(tmpdir(), 'cm-tls-'));
		try {
			execFileSync(
				'openssl',
				[
					...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
					...[
						'-subj',
						'/CN=127.0.0.1',
						'-keyout',
						join(dir, 'key.pem'),
						'-out',
						join(dir, 'cert.pem'),
					],
				],
				{ stdio: 'ignore' },
			);
			const key = readFileSync(join(dir, 'key.pem'));
			const cert = readFileSync(join(dir, 'cert.pem'));
			server = https.createServer({ key, cert }, (request, response) => {
				received++;
				request.resume();
				response.writeHead(200, { 'Content-Type': 'application/json' });
				response.end(JSON.stringify({ statusCode: 200, body: { err: false, id: 'm-1' } }));
			});
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
		baseUrl = `https://127.0.0.1:${await listen(server)}`;
	});
	afterAll(() => server.close());

	const send = async (requestOptions: INodeParameters) =>
		await runNode({
			parameters: { ...sms, requestOptions },
			items: items.slice(0, 1),
			credentials: { baseUrl, apiToken: 'tls-token' },
			continueOnFail: true,
		});

	it('refuses a self-signed certificate by default', async () => {
		received = 0;
		const run = await send({});
		expect(run.items[0].error).toBeDefined();
		expect(received).toBe(0);
	});

	it('accepts it when turned on', async () => {
		received = 0;
		const run = await send({ allowUnauthorizedCerts: true });
		expect(run.items[0].error).toBeUndefined();
		expect(run.items[0].json).toEqual({
			id: 'm-1',
			smsCost: { encoding: 'GSM-7', segments: 1, characters: 2 },
		});
		expect(received).toBe(1);
	});
});

describe("the credential's Allowed HTTP Request Domains", () => {
	const restricted = (allowedDomains: string) => ({
		allowedHttpRequestDomains: 'domains',
		allowedDomains,
	});

	it('sends to a listed domain', async () => {
		const run = await suite.run(sms, { items, credentials: restricted('127.0.0.1') });
		expect(run.error).toBeUndefined();
		expect(run.requests).toHaveLength(2);
	});

	it('sends nothing to a domain not listed', async () => {
		const run = await suite.run(sms, {
			items,
			continueOnFail: true,
			credentials: restricted('api.example.com'),
		});
		expect(run.requests).toHaveLength(0);
		expect(run.items.map((item) => item.error?.message)).toEqual(
			Array(2).fill(expect.stringMatching(/domain/i)),
		);
	});

	it("sends to the credential's own Base URL when HTTP Request nodes may use no domain ('none')", async () => {
		const run = await suite.run(sms, {
			items,
			credentials: { allowedHttpRequestDomains: 'none' },
		});
		expect(run.error).toBeUndefined();
		expect(run.requests).toHaveLength(2);
	});

	it('sends nothing when the list is empty, and says so', async () => {
		const run = await suite.run(sms, { items, continueOnFail: true, credentials: restricted(' ') });
		expect(run.requests).toHaveLength(0);
		expect(run.items.map((item) => item.error?.message)).toEqual(
			Array(2).fill(
				'No allowed domains specified. Configure allowed domains or change restriction setting.',
			),
		);
	});
});
