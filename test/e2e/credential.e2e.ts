import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import type { N8nServer } from './lib/n8n';
import {
	createUserFolder,
	importJson,
	N8N_MAJOR,
	removeUserFolder,
	RestSession,
	sandboxCredential,
	startN8n,
} from './lib/n8n';

let sandbox: Sandbox;
let server: N8nServer;
let userFolder: string;
let session: RestSession;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	userFolder = createUserFolder();
	await importJson(
		'credentials',
		[
			sandboxCredential(sandbox.url, sandbox.token),
			sandboxCredential(sandbox.url, 'wrongtoken123', 'cmWrongCred00001'),
		],
		{ userFolder },
	);
	server = await startN8n({ userFolder });
	session = await RestSession.asOwner(server.url);
});

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	removeUserFolder(userFolder);
});

describe('credential test in real n8n', () => {
	it('loads the node type', async () => {
		const types = await session.request<
			{ data: Array<{ name: string }> } | Array<{ name: string }>
		>('GET', '/types/nodes.json');
		const names = (Array.isArray(types) ? types : types.data).map((type) => type.name);
		expect(names).toContain('n8n-nodes-conversational-messaging.conversationalMessaging');
	});

	it('tests green against the sandbox', async () => {
		expect(await session.testCredential('cmSandboxCred001')).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	it('fails with the service message for a wrong token', async () => {
		const result = await session.testCredential('cmWrongCred00001');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Unauthorized: /);
		expect(result.message).not.toContain('wrongtoken123');
	});

	it.each([301, 302, 303, 307, 308])(
		'fails on a redirect (%i) to another host, which receives nothing, and says to enter the final address',
		async (status) => {
			sandbox.injectFault({ kind: 'redirect', status });
			const result = await session.testCredential('cmSandboxCred001');
			sandbox.clearFaults();
			expect(result.status).toBe('Error');
			// n8n 1.x's credential test ignores every HTTP status or none: it sees an answer without the envelope.
			const said =
				N8N_MAJOR >= 2
					? `The Base URL answered ${status}, a redirect: the test was not carried out there.`
					: 'The Base URL did not answer like the Conversational Messaging API';
			expect(result.message.startsWith(said)).toBe(true);
			expect(result.message).toContain(
				"Put the service's final address in the credential's Base URL (for example https:// instead of http://",
			);
			expect(result.message).not.toContain(sandbox.token);
			expect(sandbox.elsewhere.requests).toEqual([]);
		},
	);
});
