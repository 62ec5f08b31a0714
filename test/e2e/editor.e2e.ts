/**
 * The editor, in a real browser: Debian's Chromium driven by playwright-core against n8n 2.41.1
 * with the package installed. Finds the node in the node panel, opens a Send SMS form, checks
 * the fields it shows, executes it against the sandbox, and keeps screenshots for the README.
 */
import { join } from 'path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import type { N8nServer } from './lib/n8n';
import { createUserFolder, importJson, REPO_ROOT, removeUserFolder, RestSession, sandboxCredential, startN8n } from './lib/n8n';

const DOCS = join(REPO_ROOT, 'docs');
const WORKFLOW_ID = 'cmEditorWf000001';

let sandbox: Sandbox;
let server: N8nServer;
let userFolder: string;
let browser: Browser;
let page: Page;

const nodeType = 'n8n-nodes-conversational-messaging.conversationalMessaging';
const smsWorkflow = (credentialId: string) => ({
	id: WORKFLOW_ID,
	name: 'Send an SMS',
	active: false,
	nodes: [
		{ id: 't', name: 'When clicking Execute workflow', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 's',
			name: 'Send SMS',
			type: nodeType,
			typeVersion: 1,
			position: [260, 0],
			parameters: { resource: 'messaging', operation: 'sendSms', to: '+57 300 123 4567', instance: 'sms-line-1', message: 'Your order has shipped' },
			credentials: { conversationalMessagingApi: { id: credentialId, name: 'Conversational Messaging sandbox' } },
		},
		legacyNode('Send Document', 'document', { body: 'https://cdn.example.com/invoice.pdf', additionalFields: { filename: 'invoice.pdf' } }, 520),
		legacyNode('Send Location', 'location', { body: 'Our shop', latitude: 4.711, longitude: -74.0721 }, 780),
	],
	connections: { 'When clicking Execute workflow': { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] } },
	settings: {},
});

function legacyNode(name: string, messageType: string, fields: Record<string, unknown>, x: number) {
	return {
		id: name,
		name,
		type: nodeType,
		typeVersion: 1,
		position: [x, 200],
		parameters: { resource: 'legacyMessage', operation: 'send', messageType, to: '573001234567', instance: 'qr-1', ...fields },
	};
}

/** Opens a node's panel; its text is read once `lastLabel` (the last field of the form) has rendered. */
async function openNode(name: string, lastLabel: string): Promise<string> {
	await page.goto(`${server.url}/workflow/${WORKFLOW_ID}`);
	await page.locator('[data-test-id="canvas-node"]', { hasText: name }).first().dblclick({ timeout: 60_000 });
	await page.getByText(lastLabel, { exact: true }).first().waitFor({ timeout: 30_000 });
	return await page.locator('body').innerText();
}

/** The token must never be readable on screen, only as a password field's dots. */
async function expectNoTokenOnScreen(): Promise<void> {
	expect(await page.locator('body').innerText()).not.toContain(sandbox.token);
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	userFolder = createUserFolder();
	const credential = sandboxCredential(sandbox.url, sandbox.token);
	await importJson('credentials', [credential], { userFolder });
	await importJson('workflow', smsWorkflow(credential.id), { userFolder });
	server = await startN8n({ userFolder });
	const session = await RestSession.asOwner(server.url);
	browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const [name, value] = session.authCookie.split('=');
	await context.addCookies([{ name, value, domain: '127.0.0.1', path: '/' }]);
	page = await context.newPage();
});

afterAll(async () => {
	await browser?.close();
	await server?.stop();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

describe('the editor', () => {
	it('finds the node in the node panel', async () => {
		await page.goto(`${server.url}/workflow/new`);
		await page.locator('[data-test-id="canvas-plus-button"], [data-test-id="canvas-add-button"]').first().click({ timeout: 60_000 });
		await page.locator('[data-test-id="node-creator-search-bar"]').fill('Conversational Messaging');
		const item = page.locator('[data-test-id="node-creator-item-name"]', { hasText: 'Conversational Messaging' }).first();
		await item.waitFor({ timeout: 30_000 });
		await page.screenshot({ path: join(DOCS, 'node-panel.png') });
	});

	it('shows the Send SMS form with the fields the service requires, and executes it', async () => {
		const text = await openNode('Send SMS', 'Message');
		for (const label of ['Credential', 'Resource', 'Operation', 'Recipient Phone', 'Instance', 'Message']) expect(text).toContain(label);
		for (const hidden of ['Contact Phone', 'File URL', 'Latitude', 'Agent ID']) expect(text).not.toContain(hidden);
		const before = sandbox.stats().byOperation.smsSend ?? 0;
		await page.locator('[data-test-id="node-execute-button"]').first().click();
		await page.locator('[data-test-id="ndv-output-panel"], [data-test-id="output-panel"]').getByText('queued').first().waitFor({ timeout: 60_000 });
		expect(sandbox.stats().byOperation.smsSend).toBe(before + 1);
		expect(sandbox.requests.at(-1)).toMatchObject({ tokenLocation: 'body', body: expect.objectContaining({ to: '573001234567' }) });
		await expectNoTokenOnScreen();
		await page.screenshot({ path: join(DOCS, 'send-sms-form.png') });
	});

	it('shows the fields of the chosen message type only', async () => {
		const document = await openNode('Send Document', 'File Name');
		for (const label of ['Message Type', 'Recipient Phone', 'File URL', 'File Name']) expect(document).toContain(label);
		for (const hidden of ['Latitude', 'Longitude', 'Location Text', 'Caption']) expect(document).not.toContain(hidden);
		const location = await openNode('Send Location', 'Longitude');
		for (const label of ['Latitude', 'Longitude', 'Location Text']) expect(location).toContain(label);
		for (const hidden of ['File URL', 'File Name', 'Caption']) expect(location).not.toContain(hidden);
	});
});
