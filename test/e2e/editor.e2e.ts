/**
 * The editor, in a real browser: Debian's Chromium driven by playwright-core against n8n 2.41.1
 * with the package installed. Signs in, adds the node from the node panel, creates the credential
 * in its form, executes Send SMS against the sandbox, and checks the form of every operation
 * against the node's description. Keeps screenshots for the README and docs/ in .tmp/screenshots/
 * (`npm run report:screenshots` copies them into docs/).
 *
 * The tests run in order on one page: each starts where the previous one left the editor.
 */
import { mkdirSync, readFileSync, rmSync } from 'fs';
import { join } from 'path';
import { NodeHelpers } from 'n8n-workflow';
import type {
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';
import type { Browser, Locator, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import sharp from 'sharp';

import { ConversationalMessaging } from '../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import { answerLinkIn, linkTarget } from './lib/answers';
import type { N8nServer } from './lib/n8n';
import {
	createUserFolder,
	OWNER,
	REPO_ROOT,
	removeUserFolder,
	RestSession,
	startN8n,
	until,
} from './lib/n8n';

/** The pictures of this run; docs/ holds those of the last run someone copied there. */
const SHOTS = join(REPO_ROOT, '.tmp', 'screenshots');
const description = new ConversationalMessaging().description;
const typeVersion = { typeVersion: 1 };
/** n8n adds this option to the Resource and Operation lists of declarative nodes. */
const CUSTOM_API_CALL = 'Custom API Call';
/** Operations whose fields depend on a message type: their forms are checked for every type. */
const TYPE_SELECTORS: Record<string, string> = {
	'legacyMessage/send': 'messageType',
	'messaging/sendAndWait': 'sendAndWaitChannel',
	'messaging/sendSocialnet': 'socialnetType',
};

let sandbox: Sandbox;
let server: N8nServer;
let session: RestSession;
let userFolder: string;
let browser: Browser;
let page: Page;
/** The walkthrough animation's pictures, in order. */
const frames: Buffer[] = [];
const frame = async () => void frames.push(await page.screenshot());

const optionsOf = (property: INodeProperties) => property.options as INodePropertyOptions[];
const propertyNamed = (name: string, resource?: string) =>
	description.properties.find(
		(p) => p.name === name && (!resource || p.displayOptions?.show?.resource?.includes(resource)),
	) as INodeProperties;
const params = () => page.locator('[data-test-id="node-parameters"]');
const firstLine = (text: string) => text.split('\n')[0].trim();

interface Form {
	/** Labels of the fields shown, in order. */
	labels: string[];
	/** For each collection shown, the fields it offers to add. */
	collections: Record<string, string[]>;
}

/** The form n8n should show for these parameters, by the description's display options. */
function expectedForm(values: INodeParameters): Form {
	const parameters = NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		typeVersion,
		description,
	) as INodeParameters;
	// Node settings (Request Options) are on the Settings tab, not in this form; notices have no label.
	const shown = description.properties.filter(
		(p) =>
			!p.isNodeSetting &&
			p.type !== 'notice' &&
			NodeHelpers.displayParameter(parameters, p, typeVersion, description),
	);
	const collections: Record<string, string[]> = {};
	for (const collection of shown.filter((p) => p.type === 'collection')) {
		collections[collection.name] = (collection.options as INodeProperties[])
			.filter((option) =>
				NodeHelpers.displayParameter(
					parameters[collection.name] as INodeParameters,
					option,
					typeVersion,
					description,
					parameters,
				),
			)
			.map((option) => option.displayName)
			.sort();
	}
	// A fixed collection shows the fields of each entry it holds (a default one, too).
	const entryLabels = (property: INodeProperties) =>
		property.type !== 'fixedCollection'
			? []
			: (property.options as INodePropertyCollection[]).flatMap((group) =>
					([] as INodeParameters[])
						.concat(
							((parameters[property.name] ?? {}) as Record<string, INodeParameters[]>)[
								group.name
							] ?? [],
						)
						.flatMap((entry) =>
							group.values
								.filter((field) =>
									NodeHelpers.displayParameter(entry, field, typeVersion, description, parameters),
								)
								.map((field) => field.displayName),
						),
				);
	return { labels: shown.flatMap((p) => [p.displayName, ...entryLabels(p)]), collections };
}

async function labelsOnScreen(): Promise<string[]> {
	return (await params().locator('[data-test-id="input-label"]:visible label').allInnerTexts()).map(
		firstLine,
	);
}

/**
 * The fields a collection offers to add (none: n8n hides its Add control). A collection with a
 * single field has a button that adds it at once, and lists nothing: that field is what it offers.
 */
async function collectionOffers(name: string): Promise<string[]> {
	const add = params()
		.locator('[data-test-id="parameter-item"]:visible', {
			has: page.locator(`label[for="${name}"]`),
		})
		.locator('[data-test-id="collection-parameter-add"]');
	if (!(await add.isVisible())) return [];
	const fields = propertyNamed(name).options as INodeProperties[];
	if (fields.length === 1) return [fields[0].displayName];
	await add.click();
	const options = page.locator('[data-test-id="collection-parameter-option"]:visible');
	await options
		.first()
		.waitFor({ timeout: 10_000 })
		.catch(async () => {
			await page.screenshot({ path: join(REPO_ROOT, '.tmp', `collection-${name}.png`) });
			throw new Error(`${name}: Add listed no fields (screenshot in .tmp)`);
		});
	const offered = (await options.allInnerTexts()).map(firstLine).sort();
	await page.keyboard.press('Escape');
	await options.first().waitFor({ state: 'hidden' });
	return offered;
}

/** Reads until the value is the expected one or 5 s have passed; the caller asserts on what it got. */
async function settled<T>(read: () => Promise<T>, expected: T): Promise<T> {
	let value = await read();
	for (
		const deadline = Date.now() + 5000;
		JSON.stringify(value) !== JSON.stringify(expected) && Date.now() < deadline;

	) {
		await page.waitForTimeout(200);
		value = await read();
	}
	return value;
}

async function formOnScreen(expected: Form): Promise<Form> {
	const labels = await settled(labelsOnScreen, expected.labels);
	const collections: Record<string, string[]> = {};
	for (const name of Object.keys(expected.collections))
		collections[name] = await collectionOffers(name);
	return { labels, collections };
}

async function expectFormFor(values: INodeParameters): Promise<Form> {
	const expected = expectedForm(values);
	const shown = await formOnScreen(expected);
	// The parameters in the message say which form differed.
	expect({ values, ...shown }).toEqual({ values, ...expected });
	return shown;
}

/** Picks an option of a parameter's list; returns the options the list offered. */
async function choose(parameter: string, name: string): Promise<string[]> {
	const select = params().locator(`[data-test-id="parameter-input-${parameter}"]`);
	await select.click();
	const items = page.locator('[data-test-id="parameter-input-item"]:visible');
	await items.first().waitFor();
	const offered = (await items.locator('.option-headline').allInnerTexts()).map((text) =>
		text.trim(),
	);
	await items
		.filter({
			has: page.locator('.option-headline', {
				hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
			}),
		})
		.click();
	await items.first().waitFor({ state: 'hidden' });
	expect(await select.locator('input').inputValue()).toBe(name);
	return offered;
}

/** The token may only sit in a password field: not in the page's text, not in any other field. */
async function expectTokenHidden(): Promise<void> {
	expect(await page.locator('body').innerText()).not.toContain(sandbox.token);
	const fieldsShowingIt = await page
		.locator('input:not([type="password"]), textarea')
		.evaluateAll(
			(fields, token) =>
				fields.filter((field) => (field as HTMLInputElement).value.includes(token)).length,
			sandbox.token,
		);
	expect(fieldsShowingIt).toBe(0);
}

async function expectImageLoaded(image: Locator): Promise<void> {
	await image.waitFor();
	await page.waitForFunction(
		(img) => (img as HTMLImageElement).complete,
		await image.elementHandle(),
	);
	expect(await image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
}

/** Types into a text parameter of the open form. */
async function fill(parameter: string, value: string): Promise<void> {
	await params().locator(`[data-test-id="parameter-input-${parameter}"] input`).fill(value);
}

/** Adds the values of a fixed collection that has one set of values (n8n adds it at once). */
async function addFixedCollection(name: string): Promise<void> {
	const item = params().locator('[data-test-id="parameter-item"]:visible', {
		has: page.locator(`label[for="${name}"]`),
	});
	await item
		.locator(
			'[data-test-id="fixed-collection-add"], [data-test-id="fixed-collection-add-top-level-button"]',
		)
		.first()
		.click();
}

/** Executes the open node, which sends its question and waits; gives the link the sandbox received and the page it leads to. */
async function executeAndReadLink(question: string): Promise<{ link: string; url: string }> {
	const before = sandbox.state.sentMessages.size;
	await page.locator('[data-test-id="node-execute-button"]').click();
	for (const deadline = Date.now() + 60_000; sandbox.state.sentMessages.size === before; ) {
		if (Date.now() > deadline) throw new Error(`The question "${question}" was not sent`);
		await page.waitForTimeout(200);
	}
	const message = [...sandbox.state.sentMessages.values()].at(-1)!;
	expect(message.body.startsWith(question)).toBe(true);
	expect(message.body).not.toContain(sandbox.token);
	const link = answerLinkIn(message.body);
	// An SMS carries a short link, the sandbox's own (/s/<id>, a redirect): the sandbox knows where it leads.
	const url = linkTarget(sandbox, link);
	if (url !== link) expect(link.startsWith(`${sandbox.url}/s/`)).toBe(true);
	expect(url).toMatch(/\/webhook-waiting\/.+\?to=1&signature=/);
	return { link, url };
}

/** How many SMS the bulk-send test sends: enough for a 50/s limit to push back. */
const BULK_SIZE = 100;

/** Manual Trigger, a list of phones split into items, and Send SMS to each. */
function bulkSmsWorkflow(
	phones: string[],
	credential: { id: string; name: string },
	{ name = 'Bulk SMS with a rate limit', timezone }: { name?: string; timezone?: string } = {},
) {
	const node = (
		name: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: Record<string, unknown>,
	) => ({ id: name.replace(/\W/g, '-'), name, type, typeVersion, position: [x, 0], parameters });
	return {
		name,
		active: false,
		settings: { executionOrder: 'v1', ...(timezone ? { timezone } : {}) },
		connections: {
			'When clicking Execute workflow': { main: [[{ node: 'Phones', type: 'main', index: 0 }]] },
			Phones: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] },
		},
		nodes: [
			node('When clicking Execute workflow', 'n8n-nodes-base.manualTrigger', 1, 0, {}),
			node('Phones', 'n8n-nodes-base.set', 3.4, 220, {
				mode: 'raw',
				jsonOutput: JSON.stringify({ phones }),
				options: {},
			}),
			node('Split Out', 'n8n-nodes-base.splitOut', 1, 440, {
				fieldToSplitOut: 'phones',
				options: {},
			}),
			{
				...node('Send SMS', 'n8n-nodes-conversational-messaging.conversationalMessaging', 1, 660, {
					resource: 'messaging',
					operation: 'sendSms',
					instance: 'sms-line-1',
					to: '={{ $json.phones }}',
					message: 'Spring sale: 20 % off until Sunday',
				}),
				credentials: { conversationalMessagingApi: credential },
			},
		],
	};
}

/**
 * Clicks a link that opens a new tab and gives that tab once it shows the page at `url` (after the
 * short link's redirect). Reloads while n8n answers 409: see `recipientPage`.
 */
async function clickThrough(from: Page, link: Locator, url: string): Promise<Page> {
	const [opened] = await Promise.all([from.context().waitForEvent('page'), link.click()]);
	await opened.waitForLoadState();
	expect(opened.url()).toBe(url);
	for (
		const deadline = Date.now() + 30_000;
		(await opened.locator('body').innerText()).includes('is running already');

	) {
		if (Date.now() > deadline) throw new Error(`n8n never stored the execution as waiting: ${url}`);
		await opened.waitForTimeout(250);
		await opened.reload();
	}
	await opened.setViewportSize({ width: 420, height: 320 });
	return opened;
}

/**
 * The page the recipient sees, in a phone-sized tab of the same browser. The SMS goes out a moment
 * before n8n stores the execution as waiting; until then n8n answers 409 ("is running already").
 */
async function recipientPage(url: string): Promise<Page> {
	const recipient = await browser.newPage({ viewport: { width: 420, height: 320 } });
	for (const deadline = Date.now() + 30_000; (await recipient.goto(url))?.status() === 409; ) {
		if (Date.now() > deadline) throw new Error(`n8n never stored the execution as waiting: ${url}`);
		await recipient.waitForTimeout(250);
	}
	return recipient;
}

beforeAll(async () => {
	// Only this run's pictures: none left from an earlier run for report:screenshots to copy.
	rmSync(SHOTS, { recursive: true, force: true });
	mkdirSync(SHOTS, { recursive: true });
	// More campaigns than one page of the list search holds (50).
	sandbox = await startSandbox({ port: 0, token: 'sandboxSecretToken2026', campaigns: 120 });
	userFolder = createUserFolder();
	server = await startN8n({ userFolder });
	session = await RestSession.asOwner(server.url);
	browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	page = await context.newPage();
});

afterAll(async () => {
	await browser?.close();
	await server?.stop();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

describe('the editor', () => {
	it('signs the owner in through the sign-in page', async () => {
		await page.goto(`${server.url}/signin`);
		await page.locator('#emailOrLdapLoginId').fill(OWNER.email);
		await page.locator('#password').fill(OWNER.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
	});

	it('finds the node in the node panel, with its icon and its 28 actions, and adds Send SMS', async () => {
		await page.goto(`${server.url}/workflow/new`);
		await page.locator('[data-test-id="canvas-plus-button"]').click({ timeout: 60_000 });
		await page.locator('[data-test-id="node-creator-search-bar"]').fill('Conversational Messaging');
		const item = page.locator('[data-test-id="node-creator-action-item"]', {
			hasText: 'Conversational Messaging',
		});
		await expectImageLoaded(item.locator('img').first());
		await page.screenshot({ path: join(SHOTS, 'node-panel.png') });
		await frame();

		await item.click();
		const actions = page.locator('[data-test-id="node-creator-item-name"]:visible');
		const expected = description.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => optionsOf(p).map((option) => option.action as string))
			.sort();
		expect(expected).toHaveLength(28);
		const listed = async () =>
			(await actions.allInnerTexts()).filter((name) => expected.includes(name)).sort();
		expect(await settled(listed, expected)).toEqual(expected);
		await frame();

		await actions.getByText('Send an SMS', { exact: true }).click();
		await page.locator('[data-test-id="ndv"]').waitFor();
		await expectImageLoaded(
			page
				.locator('[data-test-id="canvas-node"]', { hasText: 'Send an SMS' })
				.locator('img')
				.first(),
		);
	});

	it('creates the credential in its form, and its connection test succeeds', async () => {
		await page.locator('[data-test-id="node-credentials-empty-state"]').click();
		const modal = page.locator('[data-test-id="editCredential-modal"]');
		await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(sandbox.url);
		const token = modal.locator('[data-test-id="parameter-input-apiToken"] input');
		await token.fill(sandbox.token);
		expect(await token.getAttribute('type')).toBe('password');
		await expectTokenHidden();
		await frame();
		const tested = sandbox.stats().byOperation.clientGet ?? 0;
		// n8n tests a new credential on save and closes the form only if the test passed.
		await modal.locator('[data-test-id="credential-save-button"]').click();
		await modal.waitFor({ state: 'hidden', timeout: 30_000 });
		expect(sandbox.stats().byOperation.clientGet).toBeGreaterThan(tested);

		// Opened again, the form tests the stored credential and says so.
		await page.locator('[data-test-id="credential-edit-button"]').click();
		const success = modal.locator('[data-test-id="credentials-config-container-test-success"]');
		await success.waitFor({ timeout: 30_000 });
		expect(await success.innerText()).toContain('Connection tested successfully');
		expect(await token.getAttribute('type')).toBe('password');
		await expectTokenHidden();
		await modal.screenshot({ path: join(SHOTS, 'credential.png') });
		await frame();
		await modal.getByRole('button', { name: 'Close this dialog' }).click();
		await modal.waitFor({ state: 'hidden' });
	});

	it('executes Send SMS from the form against the sandbox', async () => {
		expect(await labelsOnScreen()).toEqual([
			'Resource',
			'Operation',
			'Instance',
			'Recipient Phone',
			'Message',
			'SMS Options',
			'Recipient Rules',
			'Send Options',
		]);
		expect(await page.locator('[data-test-id="credentials-label"]').innerText()).toContain(
			'Credential',
		);
		await params().locator('[data-test-id="parameter-input-to"] input').fill('+57 300 123 4567');
		await params().locator('[data-test-id="parameter-input-instance"] input').fill('sms-line-1');
		await params()
			.locator('[data-test-id="parameter-input-message"] textarea')
			.fill('Your order has shipped');
		await frame();
		const sent = sandbox.stats().byOperation.smsSend ?? 0;
		await page.locator('[data-test-id="node-execute-button"]').click();
		await page
			.locator('[data-test-id="output-panel"]')
			.getByText('queued')
			.first()
			.waitFor({ timeout: 60_000 });
		expect(sandbox.stats().byOperation.smsSend).toBe(sent + 1);
		expect(sandbox.requests.at(-1)).toMatchObject({
			path: '/v1/sms',
			tokenLocation: 'body',
			body: {
				to: '573001234567',
				instance: 'sms-line-1',
				body: 'Your order has shipped',
				type: 'text',
				token: sandbox.token,
			},
		});
		await expectTokenHidden();
		await page.screenshot({ path: join(SHOTS, 'send-sms-form.png') });
		await frame();
	});

	it('makes the README walkthrough of these steps: an animated GIF, 2 s a picture', async () => {
		expect(frames).toHaveLength(6);
		const pictures = await Promise.all(
			frames.map((picture) => sharp(picture).resize({ width: 960 }).toBuffer()),
		);
		const file = join(SHOTS, 'walkthrough.gif');
		await sharp(pictures, { join: { animated: true } })
			.gif({ delay: pictures.map(() => 2000), loop: 0 })
			.toFile(file);
		expect(await sharp(file, { animated: true }).metadata()).toMatchObject({
			format: 'gif',
			width: 960,
			pageHeight: 600,
			pages: 6,
			loop: 0,
		});
	});

	it('keeps the phone, its line, the message and SMS Options where they apply when the operation changes between Send SMS, Send and Wait and Send Socialnet Message', async () => {
		const value = async (name: string) =>
			await params()
				.locator(`[data-test-id="parameter-input-${name}"]`)
				.locator('input, textarea')
				.first()
				.inputValue();
		const typed = {
			instance: 'sms-line-1',
			to: '+57 300 123 4567',
			message: 'Your order has shipped',
			maxSegments: '2',
		};
		// A cost guard in SMS Options: Max Segments per Message.
		await params()
			.locator('[data-test-id="parameter-item"]:visible', {
				has: page.locator('label[for="smsOptions"]'),
			})
			.locator('[data-test-id="collection-parameter-add"]')
			.click();
		await page
			.locator('[data-test-id="collection-parameter-option"]:visible', {
				hasText: 'Max Segments per Message',
			})
			.click();
		await params()
			.locator('[data-test-id="parameter-input-maxSegments"] input')
			.fill(typed.maxSegments);
		await frame();
		/** The values of these fields as the form shows them; absent fields as null. */
		const shown = async (...names: Array<keyof typeof typed>) =>
			Object.fromEntries(
				await Promise.all(
					names.map(async (name) => [
						name,
						(await params().locator(`[data-test-id="parameter-input-${name}"]`).count())
							? await value(name)
							: null,
					]),
				),
			);
		const all = Object.keys(typed) as Array<keyof typeof typed>;
		const none = { instance: '', to: '', message: typed.message, maxSegments: null };
		const steps: Array<[string, Partial<Record<keyof typeof typed, string | null>>]> = [
			['Send SMS', typed],
			// The same ideas under the same names: all kept, SMS Options ruling the question too.
			['Send and Wait for Response', typed],
			['Send SMS', typed],
			// A page's line is not an SMS line: its own Instance, empty; no phone, no SMS Options.
			[
				'Send Socialnet Message',
				{ instance: null, to: null, message: typed.message, maxSegments: null },
			],
			// n8n's panel drops what an operation does not show (ParameterInputList): the message only.
			['Send and Wait for Response', none],
			['Send SMS', none],
		];
		for (const [index, [operation, expected]] of steps.entries()) {
			if (index) await choose('operation', operation);
			expect({ operation, ...(await shown(...all)) }).toEqual({ operation, ...expected });
			if (operation === 'Send Socialnet Message') expect(await value('socialnetInstance')).toBe('');
		}
		// As the next tests need it.
		await params().locator('[data-test-id="parameter-input-instance"] input').fill(typed.instance);
		await params().locator('[data-test-id="parameter-input-to"] input').fill(typed.to);
		await frame();
	});

	it('says what an SMS costs: SMS Options in the form, the hint above the output, the encoding and segments on the item', async () => {
		// Send SMS as the switching test left it; the phone again, and a text pasted with a curly apostrophe.
		await params().locator('[data-test-id="parameter-input-to"] input').fill('+57 300 123 4567');
		const pasted =
			'Our spring sale starts today. It’s 20 % off everything until Sunday, in every shop and online.';
		await params().locator('[data-test-id="parameter-input-message"] textarea').fill(pasted);
		// Before anything is sent: the notice under the text says its encoding and segments.
		const notice = params().getByText(
			'As typed, this SMS is Unicode (UCS-2): 2 segments, each usually billed.',
		);
		await notice.waitFor({ timeout: 10_000 });
		await page.screenshot({ path: join(SHOTS, 'send-sms-cost-notice.png') });
		expect(await collectionOffers('smsOptions')).toEqual([
			'Max Segments per Message',
			'Replace Look-Alike Characters',
		]);
		await page.locator('[data-test-id="node-execute-button"]').click();
		const output = page.locator('[data-test-id="output-panel"]');
		const hint = output.locator('[data-test-id="node-hint"]', { hasText: 'SMS:' });
		await hint.first().waitFor({ timeout: 60_000 });
		expect((await hint.first().innerText()).trim()).toBe(
			'SMS: 1 message, 2 segments: ’ (U+2019) made it Unicode (UCS-2: 70 characters a segment instead of 160). Replace Look-Alike Characters (SMS Options) sends the quotes, dashes and spaces pasted from documents in their GSM-7 forms.',
		);
		await output.getByText('UCS-2').first().waitFor();
		await expectTokenHidden();
		await page.screenshot({ path: join(SHOTS, 'send-sms-cost.png') });
	});

	it('holds an SMS outside its Send Window: Recipient Rules > Send Window in the form, the hint and the Held output with sendAfter, Done and Held on the canvas', async () => {
		// Send SMS as the cost test left it, with its phone and message.
		expect(await collectionOffers('messagingRecipientRules')).toEqual([
			'Do Not Send To',
			'Max Messages per Person per Day',
			'Send Window',
		]);
		const rules = params().locator('[data-test-id="parameter-item"]:visible', {
			has: page.locator('label[for="messagingRecipientRules"]'),
		});
		await rules.locator('[data-test-id="collection-parameter-add"]').click();
		await page
			.locator('[data-test-id="collection-parameter-option"]:visible', { hasText: 'Send Window' })
			.click();
		// Added, Send Window holds its default window (08:00 to 21:00, every day): its fields show at once.
		const windowLabels = ['Recipient Rules', 'Send Window', 'From', 'Until', 'Days', 'Time Zone'];
		const windowShown = async () =>
			(await labelsOnScreen()).filter((label) => windowLabels.includes(label));
		expect(await settled(windowShown, windowLabels)).toEqual(windowLabels);
		// Closed now in UTC: it opens in 2 hours and closes an hour later (across midnight or not).
		const now = Date.now();
		const utc = (hours: number) => new Date(now + hours * 3_600_000).toISOString();
		const opens = utc(2);
		await fill('from', opens.slice(11, 16));
		await fill('until', utc(3).slice(11, 16));
		await fill('timeZone', 'UTC');
		const sendAfter = `${opens.slice(0, 16)}:00+00:00`;

		const sent = sandbox.stats().byOperation.smsSend ?? 0;
		await page.locator('[data-test-id="node-execute-button"]').click();
		const output = page.locator('[data-test-id="output-panel"]');
		const hint = output.locator('[data-test-id="node-hint"]', { hasText: 'Recipient Rules:' });
		await hint.first().waitFor({ timeout: 60_000 });
		expect(sandbox.stats().byOperation.smsSend ?? 0).toBe(sent);
		const said = (await hint.first().innerText()).trim();
		expect(said.startsWith('Recipient Rules: 0 items sent. 1 held until')).toBe(true);
		expect(said).toContain(`1 held until ${sendAfter} (UTC)`);
		expect(said).toContain('Nothing is connected to the Held output');
		// Drawn as a warning (its callout's theme): with nothing on Held, held items are never sent.
		expect(await hint.first().evaluate((element) => /warning/i.test(element.outerHTML))).toBe(true);
		// n8n shows a tab for each output; the held item is on Held's.
		const branches = output.locator('[data-test-id="branches"] [role="tab"]');
		expect((await branches.allInnerTexts()).map((text) => text.trim())).toEqual([
			'Done Branch',
			'Held Branch (1 item)',
		]);
		await branches.filter({ hasText: 'Held' }).click();
		await output.getByText(sendAfter).first().waitFor();
		expect(await output.locator('[data-test-id="ndv-data-container"]').innerText()).toContain(
			'sendAfter',
		);
		for (const close of await page.locator('.el-notification__closeBtn:visible').all())
			await close.click();
		await page.locator('.el-notification').first().waitFor({ state: 'hidden' });
		await page.screenshot({ path: join(SHOTS, 'send-window-held.png') });

		// On the canvas, the node has two outputs, labelled.
		await page.locator('[data-test-id="ndv-close-button"]').click();
		await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
		const handles = page.locator(
			'[data-test-id="canvas-node-output-handle"][data-node-name="Send an SMS"]',
		);
		const outputLabels = async () => (await handles.allInnerTexts()).map(firstLine);
		expect(await settled(outputLabels, ['Done', 'Held'])).toEqual(['Done', 'Held']);

		// Open again, without the rules: the form the later tests expect.
		await page.locator('[data-test-id="canvas-node"]', { hasText: 'Send an SMS' }).dblclick();
		await page.locator('[data-test-id="ndv"]').waitFor();
		const sendWindowItem = rules.locator('[data-test-id="parameter-item"]', {
			has: page.locator('label[for="sendWindow"]'),
		});
		// The collection's own Delete (the window's "Delete item" would leave an empty Send Window).
		await sendWindowItem.getByRole('button', { name: 'Delete', exact: true }).click();
		const form = [
			'Resource',
			'Operation',
			'Instance',
			'Recipient Phone',
			'Message',
			'SMS Options',
			'Recipient Rules',
			'Send Options',
		];
		expect(await settled(labelsOnScreen, form)).toEqual(form);
		expect(await collectionOffers('messagingRecipientRules')).toEqual([
			'Do Not Send To',
			'Max Messages per Person per Day',
			'Send Window',
		]);
	});

	it('shows, for every operation, the fields its description shows', async () => {
		const resources = optionsOf(propertyNamed('resource'));
		let walked = 0;
		// A collection with nothing to add is an empty "No properties" box in the form.
		const emptyCollections: string[] = [];
		const checkForm = async (values: INodeParameters) => {
			const form = await expectFormFor(values);
			for (const [name, offered] of Object.entries(form.collections)) {
				if (!offered.length) emptyCollections.push(`${Object.values(values).join('/')}: ${name}`);
			}
		};
		for (const resource of resources) {
			expect(await choose('resource', resource.name)).toEqual([
				...resources.map((r) => r.name),
				CUSTOM_API_CALL,
			]);
			const operations = optionsOf(propertyNamed('operation', resource.value as string));
			for (const operation of operations) {
				expect(await choose('operation', operation.name)).toEqual([
					...operations.map((o) => o.name),
					CUSTOM_API_CALL,
				]);
				const values = { resource: resource.value, operation: operation.value } as INodeParameters;
				await checkForm(values);
				const typeSelector = TYPE_SELECTORS[`${resource.value}/${operation.value}`];
				for (const type of typeSelector ? optionsOf(propertyNamed(typeSelector)) : []) {
					await choose(typeSelector, type.name);
					await checkForm({ ...values, [typeSelector]: type.value });
				}
				walked++;
			}
		}
		expect(walked).toBe(28);
		expect(emptyCollections).toEqual([]);
	});

	it('asks for an approval over SMS from the form; the recipient answers on the page its link opens', async () => {
		await choose('resource', 'Messaging');
		await choose('operation', 'Send and Wait for Response');
		await choose('sendAndWaitChannel', 'SMS');
		await choose('responseType', 'Approval');
		await params().locator('[data-test-id="parameter-input-instance"] input').fill('sms-line-1');
		await params().locator('[data-test-id="parameter-input-to"] input').fill('+57 300 555 0101');
		const question = 'Refund of 400 USD for order 17: approve?';
		await params().locator('[data-test-id="parameter-input-message"] textarea').fill(question);
		await addFixedCollection('approvalOptions');
		await choose('approvalType', 'Approve and Decline');
		await fill('approveLabel', 'Refund it');
		await fill('disapproveLabel', 'Keep it');
		expect(await labelsOnScreen()).toEqual(
			expect.arrayContaining([
				'Channel',
				'Instance',
				'Recipient Phone',
				'Message',
				'Response Type',
				'Approval Options',
				'Shorten Link',
			]),
		);

		const { link, url } = await executeAndReadLink(question);
		expect(link.startsWith(`${sandbox.url}/s/`)).toBe(true);
		// As a builder does it: the sandbox's inbox lists the SMS, its short link opens the page.
		const inbox = await browser.newPage({ viewport: { width: 900, height: 600 } });
		await inbox.goto(sandbox.inboxUrl);
		const sms = inbox.locator('[data-testid="message"]').first();
		await sms.getByText(question).waitFor();
		expect(await sms.getAttribute('data-channel')).toBe('sms');
		await inbox.screenshot({ path: join(SHOTS, 'sandbox-inbox.png') });
		expect(await inbox.locator('body').innerText()).not.toContain(sandbox.token);
		const recipient = await clickThrough(
			inbox,
			sms.locator('[data-testid="message-link"]', { hasText: link }),
			url,
		);
		await recipient.getByText(question).waitFor();
		await recipient.screenshot({ path: join(SHOTS, 'send-and-wait-page.png') });
		// Opening the page decided nothing: the node still waits.
		expect(await page.locator('[data-test-id="output-panel"]').innerText()).not.toContain(
			'approved',
		);
		// n8n's own form page with two buttons: one tap on a label answers.
		// n8n's own Submit gives way to the two buttons.
		expect(await recipient.locator('#submit-btn').isHidden()).toBe(true);
		await recipient.getByRole('button', { name: 'Keep it' }).waitFor();
		// A double tap answers once.
		await recipient.getByRole('button', { name: 'Refund it' }).dblclick();
		await recipient.getByText('Your answer was recorded').waitFor();
		await recipient.screenshot({ path: join(SHOTS, 'send-and-wait-answered.png') });
		expect(await recipient.locator('body').innerText()).not.toContain(sandbox.token);
		// The inbox's page owns the context the link opened in.
		await inbox.close();
		await page
			.locator('[data-test-id="output-panel"]')
			.getByText('approved')
			.first()
			.waitFor({ timeout: 60_000 });
		// Refund it is the approve button: a decline would read approved: false.
		expect(await page.locator('[data-test-id="output-panel"]').innerText()).toMatch(
			/approved\s*:\s*true/,
		);
		await expectTokenHidden();
		// The picture without the passing toast, once the button shows its label again.
		await page
			.locator('[data-test-id="node-execute-button"]', { hasText: 'Execute step' })
			.waitFor();
		for (const close of await page.locator('.el-notification__closeBtn:visible').all())
			await close.click();
		await page.locator('.el-notification').first().waitFor({ state: 'hidden' });
		await page.screenshot({ path: join(SHOTS, 'send-and-wait-form.png') });
	});

	it('asks a free-text question over live chat; the recipient types the answer on the page', async () => {
		await choose('responseType', 'Free Text');
		for (const channel of optionsOf(propertyNamed('sendAndWaitChannel'))) {
			await choose('sendAndWaitChannel', channel.name);
			await expectFormFor({
				resource: 'messaging',
				operation: 'sendAndWait',
				sendAndWaitChannel: channel.value,
				responseType: 'freeText',
			});
		}
		await choose('sendAndWaitChannel', 'Live Chat');
		sandbox.state.liveChatSessions.set('lcs-editor-1', {
			id: 'lcs-editor-1',
			instance: 'web-1',
			name: 'Visitor',
		});
		await fill('liveChatInstance', 'web-1');
		await fill('sessionId', 'lcs-editor-1');
		const question = 'Which day suits you for the delivery?';
		await params().locator('[data-test-id="parameter-input-message"] textarea').fill(question);

		const { link, url } = await executeAndReadLink(question);
		expect(link).toBe(url);
		const recipient = await recipientPage(url);
		await recipient.getByLabel('Response').fill('Thursday after 2 pm, please');
		await recipient.screenshot({ path: join(SHOTS, 'send-and-wait-free-text.png') });
		await recipient.getByRole('button', { name: 'Submit' }).click();
		await recipient.getByText('Your answer was recorded').waitFor();
		await recipient.close();
		await page
			.locator('[data-test-id="output-panel"]')
			.getByText('Thursday after 2 pm, please')
			.first()
			.waitFor({ timeout: 60_000 });
	});

	it('collects a Custom Form over SMS: a required field left empty is refused on the page, then the answers and respondedAt reach the output', async () => {
		await choose('sendAndWaitChannel', 'SMS');
		await choose('responseType', 'Custom Form');
		await fill('instance', 'sms-line-1');
		await fill('to', '+57 300 555 0142');
		const question = 'Where and when should we deliver order 21?';
		await params().locator('[data-test-id="parameter-input-message"] textarea').fill(question);
		// The form starts with one required text field; a second, optional one is added.
		const labels = () => params().locator('[data-test-id="parameter-input-fieldLabel"] input');
		await labels().first().fill('Delivery address');
		await params()
			.locator('[data-test-id="parameter-item"]:visible', {
				has: page.locator('label[for="formFields"]'),
			})
			.getByRole('button', { name: 'Add Form Field' })
			.click();
		await labels().nth(1).fill('Note for the driver');

		const { url } = await executeAndReadLink(question);
		const inbox = await browser.newPage({ viewport: { width: 900, height: 600 } });
		await inbox.goto(sandbox.inboxUrl);
		const sms = inbox.locator('[data-testid="message"]', { hasText: question }).first();
		const recipient = await clickThrough(inbox, sms.locator('[data-testid="message-link"]'), url);
		await recipient.setViewportSize({ width: 420, height: 760 });
		await recipient.getByText(question).waitFor();
		await recipient.getByLabel('Note for the driver').fill('Ring twice');
		await recipient.getByRole('button', { name: 'Submit' }).click();
		// n8n's page script refuses it: the execution still waits.
		await recipient.getByText('This field is required').first().waitFor();
		await recipient.screenshot({ path: join(SHOTS, 'send-and-wait-custom-form-required.png') });
		expect(await page.locator('[data-test-id="output-panel"]').innerText()).not.toContain(
			'respondedAt',
		);
		await recipient.getByLabel('Delivery address').fill('Calle 10 # 4-21, Bogota');
		await recipient.screenshot({ path: join(SHOTS, 'send-and-wait-custom-form.png') });
		await recipient.getByRole('button', { name: 'Submit' }).click();
		await recipient.getByText('Your answer was recorded').waitFor();
		const output = page.locator('[data-test-id="output-panel"]');
		await output.getByText('Calle 10 # 4-21, Bogota').first().waitFor({ timeout: 60_000 });
		// A second visit, once the execution is over: n8n's own "no action required" page.
		await recipient.goto(url);
		await recipient.getByText('No action required').waitFor();
		await recipient.screenshot({ path: join(SHOTS, 'send-and-wait-n8n-own-page.png') });
		// n8n's own form (a Form Trigger with the same fields), for the look side by side.
		const { data: n8nForm } = await session.request<{ data: { id: string } }>(
			'POST',
			'/rest/workflows',
			{
				name: "n8n's own form, for comparison",
				nodes: [
					{
						id: 'n8n-own-form',
						name: 'Form',
						type: 'n8n-nodes-base.formTrigger',
						typeVersion: 2.6,
						position: [0, 0],
						webhookId: '6f1b7a52-1c1d-4d8e-9a3b-2f4c5d6e7f80',
						parameters: {
							// n8n's Form Trigger requires a title; the node's page has none unless set.
							formTitle: 'Delivery',
							formDescription: question,
							formFields: {
								values: [
									{ fieldLabel: 'Delivery address', requiredField: true },
									{ fieldLabel: 'Note for the driver' },
								],
							},
							options: { path: 'n8n-own-form' },
						},
					},
				],
				connections: {},
				settings: { executionOrder: 'v1' },
			},
		);
		await session.activate(n8nForm.id);
		// The form's webhook registers a moment after activation.
		for (
			const deadline = Date.now() + 30_000;
			(await recipient.goto(`${server.url}/form/n8n-own-form`))?.status() !== 200;

		) {
			if (Date.now() > deadline) throw new Error("n8n's own form never answered");
			await recipient.waitForTimeout(250);
		}
		await recipient.getByLabel('Delivery address').waitFor();
		await recipient.screenshot({ path: join(SHOTS, 'n8n-own-form-page.png') });
		expect(await recipient.locator('body').innerText()).not.toContain(sandbox.token);
		await inbox.close();
		const shown = await output.innerText();
		expect(shown).toContain('Ring twice');
		expect(shown).toContain('respondedAt');
		await expectTokenHidden();
	});

	it("draws the reminder example: a group asked, reminded once, then the backup (docs/SEND_AND_WAIT.md's picture)", async () => {
		const { data: credentials } = await session.request<{
			data: Array<{ id: string; name: string }>;
		}>('GET', '/rest/credentials');
		const { id: _id, ...example } = JSON.parse(
			readFileSync(join(REPO_ROOT, 'examples', 'sms-group-approval-with-reminder.json'), 'utf8'),
		) as { id: string; nodes: Array<Record<string, unknown>> };
		const nodes = example.nodes.map((node) =>
			node.credentials
				? { ...node, credentials: { conversationalMessagingApi: credentials[0] } }
				: node,
		);
		const { data: workflow } = await session.request<{ data: { id: string } }>(
			'POST',
			'/rest/workflows',
			{ ...example, nodes },
		);
		const canvas = await page.context().newPage();
		try {
			await canvas.setViewportSize({ width: 1600, height: 760 });
			await canvas.goto(`${server.url}/workflow/${workflow.id}`);
			const drawn = canvas.locator('[data-test-id="canvas-node"]');
			await drawn.first().waitFor({ timeout: 60_000 });
			const names = await drawn.evaluateAll((elements) =>
				elements.map((element) => element.getAttribute('data-node-name')),
			);
			expect(names.sort()).toEqual(
				nodes
					.filter((node) => node.type !== 'n8n-nodes-base.stickyNote')
					.map((node) => String(node.name))
					.sort(),
			);
			// Zoom to fit, n8n's shortcut.
			await canvas.locator('body').press('1');
			await canvas.waitForTimeout(500);
			await canvas.screenshot({ path: join(SHOTS, 'send-and-wait-reminder-workflow.png') });
		} finally {
			await canvas.close();
		}
	});

	it('shows the fields of the chosen message type only', async () => {
		await choose('resource', 'Legacy Chatapp Message');
		await choose('operation', 'Send');
		const form = async (type: string) => {
			await choose('messageType', type);
			const labels = await labelsOnScreen();
			return {
				labels,
				offers: labels.includes('Additional Fields')
					? await collectionOffers('legacyMessageFields')
					: [],
			};
		};
		const document = await form('Document');
		expect(document.labels).toEqual(
			expect.arrayContaining([
				'Message Type',
				'Recipient Phone',
				'Instance',
				'File URL',
				'Additional Fields',
			]),
		);
		expect(document.labels).not.toContain('Message');
		expect(document.offers).toEqual(['File Name']);
		const image = await form('Image');
		expect(image.labels).toContain('File URL');
		expect(image.offers).toEqual(['Caption']);
		const location = await form('Location');
		expect(location.labels).toEqual(
			expect.arrayContaining(['Location Text', 'Latitude', 'Longitude']),
		);
		for (const hidden of ['File URL', 'Message', 'Additional Fields'])
			expect(location.labels).not.toContain(hidden);
		const chat = await form('Chat (Text)');
		expect(chat.labels).toContain('Message');
		for (const hidden of ['File URL', 'Latitude', 'Longitude', 'Additional Fields'])
			expect(chat.labels).not.toContain(hidden);
	});

	it('shows in the output panel how the service slowed a bulk send down, and the countries its numbers went to: information for a correct list, a warning naming a number that went elsewhere', async () => {
		const { data: credentials } = await session.request<{
			data: Array<{ id: string; name: string }>;
		}>('GET', '/rest/credentials');
		// Written as the service writes them (country code first, no +): correct, no advice to give.
		const colombian = Array.from(
			{ length: BULK_SIZE },
			(_, index) => `57300${String(index + 1).padStart(7, '0')}`,
		);
		/** Runs the phones as a bulk send in a tab of its own; the hints above its output. */
		const runBulk = async (phones: string[], shot?: string) => {
			// A workflow in UTC, a zone of no country: numbers without + are read country code first.
			const { data: workflow } = await session.request<{ data: { id: string } }>(
				'POST',
				'/rest/workflows',
				bulkSmsWorkflow(phones, credentials[0], { timezone: 'UTC' }),
			);
			const sentBefore = sandbox.state.sentMessages.size;
			// A tab of its own: the form on the first one is unsaved.
			const bulk = await page.context().newPage();
			try {
				await bulk.goto(`${server.url}/workflow/${workflow.id}`);
				await bulk.locator('[data-test-id="execute-workflow-button"]').click({ timeout: 60_000 });
				await until('every SMS of the bulk send to be accepted', () =>
					sandbox.state.sentMessages.size - sentBefore >= phones.length ? true : undefined,
				);
				await bulk.locator('[data-test-id="canvas-node"]', { hasText: 'Send SMS' }).dblclick();
				const hint = bulk.locator('[data-test-id="output-panel"] [data-test-id="node-hint"]');
				await hint.filter({ hasText: 'Phone numbers:' }).first().waitFor({ timeout: 60_000 });
				// Each hint's words, and whether n8n draws it as a warning (its callout's theme).
				const hints = await hint.evaluateAll((elements) =>
					elements.map((element) => ({
						text: (element as HTMLElement).innerText.trim(),
						warning: /warning/i.test(element.outerHTML),
					})),
				);
				if (shot) await bulk.screenshot({ path: join(SHOTS, shot) });
				return hints;
			} finally {
				await bulk.close();
			}
		};
		sandbox.setRateLimit({ perSecond: 50, burst: 5 });
		const before = sandbox.stats();
		let correct: Array<{ text: string; warning: boolean }>;
		try {
			correct = await runBulk(colombian);
		} finally {
			sandbox.setRateLimit(null);
		}
		const refused = sandbox.stats().rateLimited - before.rateLimited;
		expect(refused).toBeGreaterThan(0);
		const pushedBack = correct.find(({ text }) => text.includes('The service pushed back'))?.text;
		expect(pushedBack).toContain(`The service pushed back ${refused} times (rate limit)`);
		expect(pushedBack).toContain('No item failed.');
		expect(correct.filter(({ text }) => text.includes('Phone numbers:'))).toEqual([
			{ text: `Phone numbers: ${BULK_SIZE} to Colombia (+57).`, warning: false },
		]);
		// A US number typed without its country code among them reaches Egypt (+20): named, as a warning.
		const mixed = [...colombian.slice(0, 6), '201 555 0123', ...colombian.slice(6, 12)];
		const warned = await runBulk(mixed, 'bulk-send-hint.png');
		expect(warned.filter(({ text }) => text.includes('Phone numbers:'))).toEqual([
			{
				text: expect.stringContaining(
					"Phone numbers: 12 to Colombia (+57) and 1 to Egypt (+20). Unlike most of the run's numbers, item 6 (n8n counts items from 0) went to Egypt (+20)",
				),
				warning: true,
			},
		]);
	});

	it('a bulk send stopped by a refused number says one item number in the error title, its body and the toast', async () => {
		const { data: credentials } = await session.request<{
			data: Array<{ id: string; name: string }>;
		}>('GET', '/rest/credentials');
		const phones = Array.from(
			{ length: 5 },
			(_, index) => `57301${String(index + 1).padStart(7, '0')}`,
		);
		const { data: workflow } = await session.request<{ data: { id: string } }>(
			'POST',
			'/rest/workflows',
			bulkSmsWorkflow(phones, credentials[0], { name: 'Bulk SMS stopped by a refused number' }),
		);
		// The service refuses the third number (n8n's item 2), as a number that opted out.
		sandbox.injectFault({
			kind: 'errTrue',
			message: 'This number opted out of SMS',
			match: { operationId: 'smsSend', body: { to: phones[2] } },
		});
		const tab = await page.context().newPage();
		try {
			await tab.goto(`${server.url}/workflow/${workflow.id}`);
			await tab.locator('[data-test-id="execute-workflow-button"]').click({ timeout: 60_000 });
			const toast = tab.locator('.el-notification', { hasText: 'opted out' });
			await toast.first().waitFor({ timeout: 60_000 });
			const toastText = (await toast.first().innerText()).trim();
			await tab.locator('[data-test-id="canvas-node"]', { hasText: 'Send SMS' }).dblclick();
			const output = tab.locator('[data-test-id="output-panel"]');
			const title = (
				await output.locator('[data-test-id="node-error-message"]').first().innerText()
			).trim();
			const body = (
				await output.locator('[data-test-id="node-error-description"]').first().innerText()
			).trim();
			await tab.screenshot({ path: join(SHOTS, 'bulk-send-stopped.png') });
			console.log(`stop error\n  toast: ${toastText}\n  title: ${title}\n  body: ${body}`);
			expect(title).toBe('The service answered 400: This number opted out of SMS [item 2]');
			expect(body).toMatch(/^Item 2 stopped the send \(n8n counts items from 0: the 3rd item\): /);
			// One number for the item wherever an item is named: the title and the body name item 2;
			// n8n's toast gives the message alone (no item), and never another number.
			expect(toastText).toContain('The service answered 400: This number opted out of SMS');
			for (const words of [toastText, title, body])
				expect([...words.matchAll(/\bitem (\d+)/gi)].map((match) => match[1])).toEqual(
					words === toastText ? [] : expect.arrayContaining(['2']),
				);
			for (const words of [toastText, title, body]) expect(words).not.toMatch(/\bitem [013-9]\b/i);
		} finally {
			sandbox.clearFaults();
			await tab.close();
		}
	});

	it('picks a campaign From list in Campaign > Get, searched by name, and executes it', async () => {
		// Past the first page of 50: the search reads on through the service's pages.
		const campaign = sandbox.state.campaigns[56];
		await choose('resource', 'Campaign');
		await choose('operation', 'Get');
		const locator = params().locator('[data-test-id="resource-locator-campaignId"]');
		await locator.locator('[data-test-id="rlc-input"]').click();
		await page.locator('[data-test-id="rlc-search"]').fill(campaign.name.toLowerCase());
		const item = page.locator('[data-test-id="rlc-item"]', { hasText: campaign.name });
		await item.first().waitFor({ timeout: 30_000 });
		await page.screenshot({ path: join(SHOTS, 'campaign-from-list.png') });
		await item.first().click();
		expect(await locator.locator('input[data-test-id="rlc-input"]').inputValue()).toBe(
			campaign.name,
		);
		const read = sandbox.stats().byOperation.campaignGet ?? 0;
		await page.locator('[data-test-id="node-execute-button"]').click();
		await page
			.locator('[data-test-id="output-panel"]')
			.getByText(campaign.id)
			.first()
			.waitFor({ timeout: 60_000 });
		expect(sandbox.stats().byOperation.campaignGet).toBe(read + 1);
		expect(
			sandbox.requests.filter((request) => request.operationId === 'campaignGet').at(-1)?.path,
		).toBe(`/v1/campaigns/${campaign.id}`);
	});

	it('says in the list why it cannot load the campaigns (a wrong token, a stopped service), without the token', async () => {
		const token = sandbox.token;
		// n8n keeps each search's answer: a search of its own asks the service again.
		const listError = async (search: string) => {
			// Escape would close the node's panel: the list opens from its input, and stays open.
			const searchBox = page.locator('[data-test-id="rlc-search"]');
			// The list can close between looking and typing (in CI its box was detached for 30 s): open it again.
			for (let attempt = 1; ; attempt++) {
				if (!(await searchBox.isVisible()))
					await params()
						.locator('[data-test-id="resource-locator-campaignId"] [data-test-id="rlc-input"]')
						.click();
				try {
					await searchBox.fill(search, { timeout: 5_000 });
					break;
				} catch (error) {
					if (attempt === 5) throw error;
				}
			}
			const error = page.locator('[data-test-id="rlc-error-container"]:visible');
			await error.waitFor({ timeout: 30_000 });
			const text = await error.innerText();
			expect(text).not.toContain(token);
			expect(text).not.toContain(sandbox.token);
			return text;
		};
		sandbox.rotateToken();
		expect(await listError('renewal')).toContain(
			'The service refused the API token: check the Conversational Messaging credential',
		);
		await page.screenshot({ path: join(SHOTS, 'campaign-list-wrong-token.png') });
		void sandbox.outage(60_000);
		expect(await listError('launch')).toContain(
			`Could not reach the service at ${sandbox.url}: the connection was refused`,
		);
	});
});
