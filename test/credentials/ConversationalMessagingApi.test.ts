import http from 'http';
import type { IHttpRequestMethods } from 'n8n-workflow';

import { authenticateWithToken } from '../../credentials/ConversationalMessagingApi.credentials';
import { apiBaseUrl } from '../../nodes/ConversationalMessaging/service/account';
import { ENGINE_MAJOR, testCredential } from '../helpers/engine';
import { useSandbox } from '../helpers/sandbox';

const suite = useSandbox();

describe('Conversational Messaging API credential', () => {
	it('tolerates a trailing / or /v1 in the Base URL', () => {
		for (const pasted of [
			'https://api.example.com',
			'https://api.example.com/',
			'https://api.example.com/v1',
			'https://api.example.com/v1/',
			' https://api.example.com/V1 ',
		]) {
			expect(apiBaseUrl(pasted)).toBe('https://api.example.com');
		}
		expect(apiBaseUrl('https://host.example/gateway/v1')).toBe('https://host.example/gateway');
	});

	it('puts the token in the query for GET and in the body otherwise, never in a header', async () => {
		const credentials = { baseUrl: 'https://api.example.com/v1', apiToken: 'secret-1' };
		const get = await authenticateWithToken(credentials, {
			method: 'GET',
			url: '/v1/client',
			qs: { a: 1 },
			headers: {},
		});
		expect(get).toMatchObject({
			qs: { a: 1, token: 'secret-1' },
			baseURL: 'https://api.example.com',
		});
		expect(get.body).toBeUndefined();
		for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
			const sent = await authenticateWithToken(credentials, {
				method: method as IHttpRequestMethods,
				url: '/v1/x',
				body: { id: 'a' },
				headers: {},
			});
			expect(sent.body).toEqual({ id: 'a', token: 'secret-1' });
			expect(sent.qs?.token).toBeUndefined();
			expect(JSON.stringify(sent.headers)).not.toContain('secret-1');
		}
	});

	it('tests green against the sandbox with its token', async () => {
		expect(
			await testCredential({ baseUrl: suite.sandbox.url, apiToken: suite.sandbox.token }),
		).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(suite.sandbox.requests.at(-1)).toMatchObject({
			method: 'GET',
			path: '/v1/client',
			tokenLocation: 'query:token',
		});
	});

	it('fails with the service message for a wrong or rotated token', async () => {
		const wrong = await testCredential({ baseUrl: suite.sandbox.url, apiToken: 'not-the-token' });
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(/^Unauthorized: /);
		const old = suite.sandbox.token;
		suite.sandbox.rotateToken();
		expect((await testCredential({ baseUrl: suite.sandbox.url, apiToken: old })).message).toMatch(
			/^Unauthorized: /,
		);
	});

	it('fails when the Base URL answers with something that is not the service', async () => {
		const server = http.createServer((_, response) => response.end('<html>hello</html>'));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		const result = await testCredential({ baseUrl: `http://127.0.0.1:${port}`, apiToken: 'x' });
		server.close();
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringContaining('Check the Base URL'),
		});
	});

	it.each([301, 302, 303, 307, 308])(
		'fails on a redirect (%i) to another host, which receives nothing, and says to enter the final address',
		async (status) => {
			suite.sandbox.injectFault({ kind: 'redirect', status });
			const result = await testCredential({
				baseUrl: suite.sandbox.url,
				apiToken: suite.sandbox.token,
			});
			suite.sandbox.clearFaults();
			// n8n 1.x's credential test ignores every HTTP status or none: it sees an answer without the envelope.
			const said =
				ENGINE_MAJOR >= 2
					? `The Base URL answered ${status}, a redirect: the test was not carried out there.`
					: 'The Base URL did not answer like the Conversational Messaging API';
			expect(result.status).toBe('Error');
			expect(result.message.startsWith(said)).toBe(true);
			expect(result.message).toContain(
				"Put the service's final address in the credential's Base URL (for example https:// instead of http://",
			);
			expect(suite.sandbox.elsewhere.requests).toEqual([]);
			expect(suite.sandbox.requests.at(-1)).toMatchObject({ path: '/v1/client', status });
		},
	);
});
