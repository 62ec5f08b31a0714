/**
 * The workflows of examples/ in real n8n: imported with the n8n CLI next to a sandbox credential,
 * run with `n8n execute`, and checked against what the sandbox received. A trigger the CLI cannot
 * fire (schedule, form) is swapped for a Manual Trigger; the rest of the workflow is run as shipped,
 * but for the research loop's Wait (2 minutes, then seconds: see quickResearchLoop) and the
 * local-hours example's Send Window (08:00-21:00, then one that opens within a minute for some
 * contacts: see localHoursOpeningAt).
 */
import { randomUUID } from 'crypto';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import type { Sandbox, SentMessage } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import type { ExecutedRun } from './lib/n8n';
import {
	createUserFolder,
	executeWorkflow,
	importJson,
	outputOf,
	REPO_ROOT,
	removeUserFolder,
	RUNTIME_DIR,
	sandboxCredential,
	sleep,
} from './lib/n8n';

interface NodeJson {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
}
interface WorkflowJson {
	id: string;
	name: string;
	nodes: NodeJson[];
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	>;
}

const OUR_NODE = 'n8n-nodes-conversational-messaging.conversationalMessaging';
const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const examples: Record<string, WorkflowJson> = Object.fromEntries(
	readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.map((file) => [
			file.replace(/\.json$/, ''),
			JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson,
		]),
);

/** What a visitor types into the contact form of the CRM lead example, by field name. */
const FORM_SAMPLE = {
	name: 'Ana Garcia',
	phone: '+57 300 123 4567',
	message: 'Please call me about the spring offer',
};

/**
 * The workflow with its schedule or form trigger replaced by a Manual Trigger under the same name;
 * for a form, a Set node of that name gives the sample answers after a Manual Trigger.
 */
function runnableFromCli(workflow: WorkflowJson): WorkflowJson {
	const nodes = workflow.nodes.map((node): NodeJson[] => {
		const manual = {
			id: randomUUID(),
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			parameters: {},
		};
		if (node.type === 'n8n-nodes-base.scheduleTrigger')
			return [{ ...manual, name: node.name, position: node.position }];
		if (node.type !== 'n8n-nodes-base.formTrigger') return [node];
		const answers = {
			id: node.id,
			name: node.name,
			type: 'n8n-nodes-base.set',
			typeVersion: 3.5,
			position: node.position,
			parameters: { mode: 'raw', jsonOutput: JSON.stringify(FORM_SAMPLE) },
		};
		return [
			{ ...manual, name: 'Manual Trigger', position: [node.position[0] - 240, node.position[1]] },
			answers,
		];
	});
	const form = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger');
	const connections = form
		? {
				...workflow.connections,
				'Manual Trigger': { main: [[{ node: form.name, type: 'main', index: 0 }]] },
			}
		: workflow.connections;
	return { ...workflow, nodes: nodes.flat(), connections };
}

/** The latest version of each node type of n8n-nodes-base in the installed n8n. */
function installedBaseNodeVersions(): Map<string, number> {
	const file = join(RUNTIME_DIR, 'node_modules', 'n8n-nodes-base', 'dist', 'types', 'nodes.json');
	const types = JSON.parse(readFileSync(file, 'utf8')) as Array<{
		name: string;
		version: number | number[];
	}>;
	const latest = new Map<string, number>();
	for (const { name, version } of types)
		latest.set(
			`n8n-nodes-base.${name}`,
			Math.max(latest.get(`n8n-nodes-base.${name}`) ?? 0, ...[version].flat()),
		);
	return latest;
}

const RESEARCH_LOOP = 'scheduled-research-without-holding-a-worker';
/** The research loop runs against a sandbox of its own whose runs take this long. */
const RESEARCH_RUN_MS = 6000;
const researchCredential = { id: 'cmResearchCred01', name: 'Research loop sandbox' };
/** The shipped cap on the checks, and the one the copy that gives up uses. */
const SHIPPED_MAX_CHECKS = 30;
const QUICK_MAX_CHECKS = 2;

/**
 * The research loop as `n8n execute` can run it in seconds: Wait 1 s instead of 2 minutes (a wait
 * under 65 s stays in the process; the real one goes to the database, which
 * test/e2e/research-restart.e2e.ts covers), on the credential of the research sandbox, with the
 * cap on the checks set to `maxChecks` (the message of Give Up is left as shipped). `id` names
 * the copy.
 */
function quickResearchLoop(
	workflow: WorkflowJson,
	{ id, maxChecks }: { id: string; maxChecks: number },
): WorkflowJson {
	const nodes = workflow.nodes.map((node): NodeJson => {
		if (node.type === 'n8n-nodes-base.wait')
			return { ...node, parameters: { ...node.parameters, amount: 1, unit: 'seconds' } };
		if (node.name === 'Under 30 Checks?') {
			const conditions = node.parameters.conditions as {
				conditions: Array<{ rightValue: unknown }>;
			};
			expect(conditions.conditions.map((condition) => condition.rightValue)).toEqual([
				SHIPPED_MAX_CHECKS,
			]);
			return {
				...node,
				parameters: {
					...node.parameters,
					conditions: {
						...conditions,
						conditions: [{ ...conditions.conditions[0], rightValue: maxChecks }],
					},
				},
			};
		}
		return node.credentials
			? { ...node, credentials: { conversationalMessagingApi: researchCredential } }
			: node;
	});
	return { ...runnableFromCli({ ...workflow, nodes }), id, name: `${workflow.name} (${id})` };
}

const GIVES_UP = 'cmExampleRsrchQk';

const LOCAL_HOURS = 'bulk-sms-in-local-hours';
const LOCAL_HOURS_SEND = 'Send SMS in Local Hours';
const LOCAL_HOURS_WAIT = 'Wait Until Their Hours';
/**
 * Each contact's zones, by the digits the node sends to: its Time Zone when the example gives one
 * (Kai), else its number's in libphonenumber's table (checks/phone/zones.ts).
 */
const CONTACT_ZONES: Record<string, string[]> = {
	'573005550101': ['America/Bogota'],
	'573105550102': ['America/Bogota'],
	'12125550143': ['America/New_York'],
	'12135550178': ['America/Los_Angeles'],
	'34612345678': ['Europe/Madrid'],
	'12125550199': ['Pacific/Honolulu'],
};
/** The zone whose window opens within a minute of the run: contacts at its offset are held. */
const HELD_ZONE = 'America/Bogota';
/**
 * How far ahead the held contacts' window opens when `n8n execute` starts: long enough for n8n to
 * start and reach Send SMS (3 s here, more on a loaded machine), and at most 60 s, so that the
 * Wait until then is under the 65 s from which n8n's Wait node puts the execution in the database,
 * which `n8n execute` never resumes (the example's real waits are hours: a wait in the database is
 * covered by test/e2e/research-restart.e2e.ts, through the research loop).
 */
const MIN_LEAD_MS = 20_000;
const MAX_LEAD_MS = 60_000;

interface Contact {
	name: string;
	city: string;
	phone: string;
	timeZone?: string;
}
const digitsOf = (phone: string) => phone.replace(/\D/g, '');

/** 'HH:MM' in a zone at an instant (24 h). */
const hhmm = (zone: string, ms: number) =>
	new Intl.DateTimeFormat('en-GB', {
		timeZone: zone,
		hour: '2-digit',
		minute: '2-digit',
		hourCycle: 'h23',
	}).format(ms);
/** 'YYYY-MM-DD' in a zone at an instant. */
const dayIn = (zone: string, ms: number) =>
	new Intl.DateTimeFormat('en-CA', { timeZone: zone, dateStyle: 'short' }).format(ms);
const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * The local-hours example with a Send Window that closes for the hour before `opensAt` in
 * HELD_ZONE: From is that minute there, Until an hour earlier (a window across midnight, open 23
 * hours of the day). So the contacts whose zones have HELD_ZONE's offset now are held until
 * `opensAt`, and every other contact is within its window.
 */
function localHoursOpeningAt(opensAt: number): {
	workflow: WorkflowJson;
	from: string;
	until: string;
} {
	const from = hhmm(HELD_ZONE, opensAt);
	const until = hhmm(HELD_ZONE, opensAt - 3_600_000);
	const example = examples[LOCAL_HOURS];
	const nodes = example.nodes.map((node): NodeJson => {
		if (node.name !== LOCAL_HOURS_SEND) return node;
		const rules = node.parameters.messagingRecipientRules as {
			sendWindow: { window: Record<string, unknown> };
			maxPerDay: number;
		};
		// As shipped: 08:00-21:00 in each contact's zone, from its Time Zone or its number; one a day.
		expect(rules).toEqual({
			sendWindow: {
				window: { from: '08:00', until: '21:00', timeZone: '={{ $json.timeZone }}' },
			},
			maxPerDay: 1,
		});
		const window = { ...rules.sendWindow.window, from, until };
		return {
			...node,
			parameters: {
				...node.parameters,
				messagingRecipientRules: { ...rules, sendWindow: { window } },
			},
		};
	});
	return { workflow: { ...example, nodes }, from, until };
}

/** The contacts the example gives (its Set node's JSON). */
function localHoursContacts(): Contact[] {
	const set = examples[LOCAL_HOURS].nodes.find((node) => node.name === 'Contacts');
	return (JSON.parse(String(set?.parameters.jsonOutput)) as { contacts: Contact[] }).contacts;
}

/** A node's runs in an executed run: when each started, and its outputs' items. */
function runsOf(executed: ExecutedRun, nodeName: string) {
	const runs = (executed.data.resultData.runData[nodeName] ?? []) as Array<{
		startTime: number;
		hints?: Array<{ message: string }>;
		data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> };
	}>;
	return runs.map((task) => ({
		startTime: task.startTime,
		hints: (task.hints ?? []).map((hint) => hint.message),
		outputs: (task.data?.main ?? []).map((items) => (items ?? []).map((item) => item.json)),
	}));
}

let sandbox: Sandbox;
let researchSandbox: Sandbox;
let userFolder: string;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, researcherRunMs: 1000 });
	researchSandbox = await startSandbox({ port: 0, researcherRunMs: RESEARCH_RUN_MS });
	userFolder = createUserFolder();
	await importJson(
		'credentials',
		[
			sandboxCredential(sandbox.url, sandbox.token),
			sandboxCredential(researchSandbox.url, researchSandbox.token, researchCredential.id),
		],
		{ userFolder },
	);
	const loop = examples[RESEARCH_LOOP];
	const runnable = Object.values(examples).map((workflow) =>
		workflow === loop
			? quickResearchLoop(loop, { id: loop.id, maxChecks: SHIPPED_MAX_CHECKS })
			: runnableFromCli(workflow),
	);
	await importJson(
		'workflow',
		[...runnable, quickResearchLoop(loop, { id: GIVES_UP, maxChecks: QUICK_MAX_CHECKS })],
		{ userFolder },
	);
});

afterAll(async () => {
	await sandbox?.close();
	await researchSandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

/** Runs a workflow; returns its run (also a failed one) and the requests `on` received per operation meanwhile. */
async function execute(
	id: string,
	on: Sandbox,
): Promise<{ run: ExecutedRun; calls: Record<string, number>; sent: SentMessage[] }> {
	const before = on.stats().byOperation;
	const known = new Set(on.state.sentMessages.keys());
	const { result, run } = await executeWorkflow(id, { userFolder });
	if (!run)
		throw new Error(
			`${id} printed no run (exit ${result.code})\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
		);
	const calls = Object.fromEntries(
		Object.entries(on.stats().byOperation)
			.map(([operation, count]) => [operation, count - (before[operation] ?? 0)])
			.filter(([, count]) => count),
	);
	const sent = [...on.state.sentMessages.values()].filter((message) => !known.has(message.id));
	return { run, calls, sent };
}

/** Runs an example, which must succeed; returns its run and the requests the sandbox received per operation meanwhile. */
async function run(
	example: string,
	on: Sandbox = sandbox,
): Promise<{ run: ExecutedRun; calls: Record<string, number>; sent: SentMessage[] }> {
	const executed = await execute(examples[example].id, on);
	if (executed.run.data.resultData.error)
		throw new Error(`${example} failed: ${executed.run.data.resultData.error.message}`);
	return executed;
}

/** Every output of a node, run after run (first output, first item). */
const everyRunOf = (executed: ExecutedRun, nodeName: string) =>
	(executed.data.resultData.runData[nodeName] ?? []).map((task) => task.data?.main[0]?.[0]?.json);

describe('example workflows', () => {
	it('are tidy workflows of current nodes, on the credential that npm run dev imports', () => {
		// The sms-* examples wait for answers: test/e2e/sendAndWait.e2e.ts runs them in `n8n start`.
		expect(Object.keys(examples).sort()).toEqual([
			'bulk-send-sms-and-chatapp',
			'bulk-sms-in-local-hours',
			'crm-lead-from-web-form',
			'scheduled-research-without-holding-a-worker',
			'scheduled-researcher-run',
			'short-link-in-sms',
			'sms-approval-before-refund',
			'sms-delivery-form',
			'sms-group-approval-with-reminder',
		]);
		expect(new Set(Object.values(examples).map((workflow) => workflow.id)).size).toBe(9);
		const latest = installedBaseNodeVersions();
		for (const workflow of Object.values(examples)) {
			const names = workflow.nodes.map((node) => node.name);
			expect(new Set(names).size).toBe(names.length);
			const targets = Object.values(workflow.connections).flatMap((output) =>
				output.main.flat().map((connection) => connection.node),
			);
			for (const name of [...Object.keys(workflow.connections), ...targets])
				expect(names).toContain(name);
			for (const node of workflow.nodes) {
				if (node.type === OUR_NODE) {
					expect([node.typeVersion, node.credentials]).toEqual([
						1,
						{
							conversationalMessagingApi: {
								id: 'cmSandboxCred001',
								name: 'Conversational Messaging sandbox',
							},
						},
					]);
				} else {
					expect([node.type, node.typeVersion]).toEqual([node.type, latest.get(node.type)]);
				}
			}
		}
	});

	it('web form to CRM lead: the form answers become a lead with the message and tags', async () => {
		const form = examples['crm-lead-from-web-form'].nodes.find(
			(node) => node.type === 'n8n-nodes-base.formTrigger',
		);
		const fields = (
			form?.parameters.formFields as { values: Array<{ fieldName: string }> }
		).values.map((field) => field.fieldName);
		expect(fields).toEqual(Object.keys(FORM_SAMPLE));

		const { run: lead, calls } = await run('crm-lead-from-web-form');
		expect(calls).toEqual({ crmLeadInject: 1 });
		const [created] = outputOf(lead, 'Inject CRM Lead');
		expect(sandbox.state.crmLeads.get(String(created.id))).toEqual({
			id: created.id,
			to: '573001234567@c.us',
			instance: 'chatapp-line-1',
			text: 'Web form from Ana Garcia: Please call me about the spring offer',
			channel: 'chatapp',
			tags: ['web-form', 'contact-us'],
		});
	});

	it('weekly researcher run: creates, adds files, runs, waits and keeps the report', async () => {
		const { run: research, calls } = await run('scheduled-researcher-run');
		expect(calls).toMatchObject({ researcherCreate: 1, researcherAddFiles: 1, researcherRun: 1 });
		expect(calls.researcherGet).toBeGreaterThanOrEqual(1);
		const report = outputOf(research, 'Keep Report');
		expect(report).toEqual([
			{
				researcherId: expect.stringMatching(/^rsr_/),
				name: expect.stringMatching(/^Competitor scan \d{4}-\d\d-\d\d$/),
				report: expect.any(String),
				format: 'markdown',
				finishedAt: expect.any(String),
			},
		]);
		for (const source of ['Market brief', 'Competitor A pricing', 'Competitor B offers'])
			expect(report[0].report).toContain(source);
		expect(sandbox.state.researchers.get(String(report[0].researcherId))?.files).toHaveLength(3);
	});

	it('research without holding a worker: starts one run, checks it after each wait until complete, keeps the report', async () => {
		const loop = examples[RESEARCH_LOOP];
		// As shipped: 2 minutes between checks (a wait over 65 s goes to the database), 30 checks at most.
		expect(loop.nodes.find((node) => node.type === 'n8n-nodes-base.wait')?.parameters).toEqual({
			amount: 2,
			unit: 'minutes',
		});
		expect(loop.nodes.find((node) => node.name === 'Start Run')?.parameters.runOptions).toEqual({
			waitForCompletion: false,
		});

		const { run: research, calls } = await run(RESEARCH_LOOP, researchSandbox);
		expect(calls).toMatchObject({ researcherCreate: 1, researcherAddFiles: 1, researcherRun: 1 });
		const checks = everyRunOf(research, 'Check Research').map((researcher) => researcher?.complete);
		// Runs of 6 s checked every second or so: several checks, the last one complete.
		expect(checks.length).toBeGreaterThanOrEqual(3);
		expect(checks).toEqual([...Array<boolean>(checks.length - 1).fill(false), true]);
		expect(calls.researcherGet).toBe(checks.length);
		expect(everyRunOf(research, 'Under 30 Checks?')).toHaveLength(checks.length - 1);
		expect(research.data.resultData.runData['Give Up']).toBeUndefined();

		const report = outputOf(research, 'Keep Report');
		expect(report).toEqual([
			{
				researcherId: expect.stringMatching(/^rsr_/),
				name: expect.stringMatching(/^Competitor scan \d{4}-\d\d-\d\d$/),
				report: expect.any(String),
				format: 'markdown',
				finishedAt: expect.any(String),
			},
		]);
		for (const source of ['Market brief', 'Competitor A pricing', 'Competitor B offers'])
			expect(report[0].report).toContain(source);
		expect(report[0].report).toBe(
			researchSandbox.researcherView(String(report[0].researcherId))?.output,
		);
	});

	it('research without holding a worker: gives up after the cap on the checks with a clear error, the run going on', async () => {
		const { run: research, calls } = await execute(GIVES_UP, researchSandbox);
		expect(calls).toEqual({
			researcherCreate: 1,
			researcherAddFiles: 1,
			researcherRun: 1,
			researcherGet: QUICK_MAX_CHECKS,
		});
		expect(
			everyRunOf(research, 'Check Research').map((researcher) => researcher?.complete),
		).toEqual([false, false]);
		expect(research.data.resultData.runData['Keep Report']).toBeUndefined();
		const [created] = outputOf(research, 'Create Researcher');
		expect(research.data.resultData.error?.message).toBe(
			`The research ${String(created.id)} was not complete at the last check Under 30 Checks? allows; it goes on in the service: read it later with Researcher > Get`,
		);
		expect(research.data.resultData.runData['Give Up']).toHaveLength(1);
		expect(researchSandbox.researcherView(String(created.id))).toMatchObject({ status: 1 });
	});

	it('bulk send: one SMS and one chatapp message per valid contact, failures summed up without stopping the others', async () => {
		// One chatapp message refused by the service, on top of the contact whose number is wrong.
		sandbox.injectFault({
			kind: 'errTrue',
			match: { operationId: 'legacyMessageSend' },
			times: 1,
			message: 'Instance qr-instance-1 is not paired',
		});
		const listPhones = [...(sandbox.state.contactLists.get('list-1')?.values() ?? [])].map(
			(contact) => String(contact.phone),
		);
		const validPhones = [...listPhones, '573105550101'].sort();

		const { run: bulk, calls, sent } = await run('bulk-send-sms-and-chatapp');
		expect(calls).toEqual({ contactGetMany: 1, smsSend: 6, legacyMessageSend: 6 });
		// Its numbers are right: where they went is information, with no advice (issue 40).
		const phoneHints = (node: string) =>
			(bulk.data.resultData.runData[node]?.[0]?.hints ?? []).filter((hint) =>
				hint.message.startsWith('Phone numbers:'),
			);
		expect(phoneHints('Send SMS')).toEqual([
			{ message: 'Phone numbers: 6 to Colombia (+57).', type: 'info', location: 'outputPane' },
		]);
		expect(phoneHints('Send Chatapp Message')).toEqual([
			{ message: 'Phone numbers: 5 to Colombia (+57).', type: 'info', location: 'outputPane' },
		]);
		expect(
			sent
				.filter((message) => message.channel === 'sms')
				.map((message) => message.to)
				.sort(),
		).toEqual(validPhones);
		const chatapp = sent.filter((message) => message.channel === 'legacy');
		expect(chatapp).toHaveLength(5);
		expect(new Set(chatapp.map((message) => message.to)).size).toBe(5);

		const summary = Object.fromEntries(
			outputOf(bulk, 'Delivery Summary').map((row) => [`${row.channel} ${row.status}`, row]),
		);
		expect(Object.keys(summary).sort()).toEqual([
			'chatapp failed',
			'chatapp sent',
			'sms failed',
			'sms sent',
		]);
		expect(summary['sms sent'].count_phone).toBe(6);
		expect(summary['sms failed']).toMatchObject({
			count_phone: 1,
			concatenated_phone: '12345',
			concatenated_error: expect.stringMatching(
				/^Recipient Phone: "12345" is too short for a phone number/,
			),
		});
		expect(summary['chatapp sent'].count_phone).toBe(5);
		const chatappFailed = summary['chatapp failed'];
		expect(chatappFailed.count_phone).toBe(2);
		const failedPhones = String(chatappFailed.concatenated_phone).split(', ');
		expect(failedPhones).toContain('12345');
		expect(listPhones).toContain(failedPhones.find((phone) => phone !== '12345'));
		expect(chatappFailed.concatenated_error).toContain('Instance qr-instance-1 is not paired');
		expect(chatappFailed.concatenated_error).toContain('Recipient Phone: "12345"');
	});

	it('short link in an SMS: the SMS carries the new short URL', async () => {
		const { run: link, calls, sent } = await run('short-link-in-sms');
		expect(calls).toEqual({ shortLinkCreate: 1, smsSend: 1 });
		const [created] = outputOf(link, 'Create Short Link');
		expect(sandbox.state.shortLinks.get(String(created.idUrl))).toEqual({
			idUrl: created.idUrl,
			longUrl: 'https://example.com/spring-sale?utm_source=sms&utm_campaign=spring',
			shortUrl: created.shortUrl,
		});
		expect(sent).toEqual([
			expect.objectContaining({
				channel: 'sms',
				to: '573001234567',
				body: `Spring sale: 20% off until Sunday. Details: ${String(created.shortUrl)}`,
			}),
		]);
		expect(outputOf(link, 'Send SMS with Link')).toEqual([
			expect.objectContaining({ id: sent[0].id }),
		]);
	});

	it('bulk SMS in local hours: sends those in their hours at once, holds the others until their window opens, then sends them; the daily cap holds over a second execution', async () => {
		const contacts = localHoursContacts();
		const phones = contacts.map((contact) => digitsOf(contact.phone));
		expect([...phones].sort()).toEqual(Object.keys(CONTACT_ZONES).sort());
		const zonesOf = (phone: string) => CONTACT_ZONES[phone];

		// A window that opens for HELD_ZONE's contacts MIN_LEAD_MS to MAX_LEAD_MS from the run's start.
		let opensAt = 0;
		let window = { from: '', until: '' };
		for (;;) {
			opensAt = Math.ceil((Date.now() + MIN_LEAD_MS + 5_000) / 60_000) * 60_000;
			const copy = localHoursOpeningAt(opensAt);
			window = { from: copy.from, until: copy.until };
			await importJson('workflow', [copy.workflow], { userFolder });
			const lead = opensAt - Date.now();
			if (lead < MIN_LEAD_MS) continue;
			if (lead > MAX_LEAD_MS) await sleep(lead - MAX_LEAD_MS);
			break;
		}
		const started = Date.now();
		const { run: first, sent } = await run(LOCAL_HOURS);
		const tookMs = Date.now() - started;
		expect(first.status).toBe('success');

		const sends = runsOf(first, LOCAL_HOURS_SEND);
		const waits = runsOf(first, LOCAL_HOURS_WAIT);
		expect(sends).toHaveLength(2);
		expect(waits).toHaveLength(1);
		// Held: the contacts whose local time, when Send SMS first ran, was in the closed hour (all their zones have HELD_ZONE's offset).
		const closed = (phone: string) =>
			zonesOf(phone).some((zone) => {
				const local = minutesOf(hhmm(zone, sends[0].startTime));
				const [from, until] = [minutesOf(window.from), minutesOf(window.until)];
				return (local - until + 1440) % 1440 < (from - until + 1440) % 1440;
			});
		const heldPhones = phones.filter(closed);
		const openPhones = phones.filter((phone) => !closed(phone));
		expect(heldPhones).toContain('573005550101');
		expect(openPhones.length).toBeGreaterThan(0);
		expect(sends[0].startTime).toBeLessThan(opensAt);

		// First run: the open group sent, the held group out of Held with sendAfter (the window's
		// opening in the zone that opens last, with its offset) and the zones read.
		const [done, held] = sends[0].outputs;
		expect(done.map((item) => [item.to, typeof item.id])).toEqual(
			openPhones.map((phone) => [phone, 'string']),
		);
		expect(held).toEqual(
			heldPhones.map((phone) => ({
				...contacts[phones.indexOf(phone)],
				sendAfter: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00[+-]\d\d:\d\d$/),
				timeZones: zonesOf(phone),
			})),
		);
		for (const item of held) {
			expect(Date.parse(String(item.sendAfter))).toBe(opensAt);
			expect(String(item.sendAfter).slice(11, 16)).toBe(window.from);
		}
		const hint = sends[0].hints.find((message) => message.startsWith('Recipient Rules:'));
		expect(hint).toContain(`${openPhones.length} item${openPhones.length === 1 ? '' : 's'} sent`);
		expect(hint).toContain(`${heldPhones.length} held until`);
		expect(hint).not.toContain('Nothing is connected to the Held output');

		// The Wait, then the second run: the held group sent once its window opened, none held again.
		expect(sends[1].startTime).toBeGreaterThanOrEqual(opensAt);
		expect(sends[1].outputs[0].map((item) => [item.to, typeof item.id])).toEqual(
			heldPhones.map((phone) => [phone, 'string']),
		);
		expect(sends[1].outputs[1] ?? []).toEqual([]);

		// The sandbox: every phone exactly once, the open group before the window opened, the held after.
		const sms = sent.filter((message) => message.channel === 'sms');
		expect(sms.map((message) => message.to).sort()).toEqual([...phones].sort());
		const sentAt = new Map(
			sms.map((message) => [message.to, sandbox.state.sentAt.get(message.id) ?? 0]),
		);
		for (const phone of openPhones) expect(sentAt.get(phone)).toBeLessThan(opensAt);
		for (const phone of heldPhones) expect(sentAt.get(phone)).toBeGreaterThanOrEqual(opensAt);
		for (const message of sms)
			expect(message.body).toBe(
				`Hi ${contacts[phones.indexOf(message.to)].name}, our spring sale starts today: 20% off until Sunday.`,
			);
		console.log(
			`local hours: window ${window.from}-${window.until} ${HELD_ZONE}, opening ${new Date(opensAt).toISOString()}; ${openPhones.length} sent at once, ${heldPhones.length} held (${heldPhones.join(', ')}) and sent ${((sentAt.get(heldPhones[0]) ?? 0) - opensAt) / 1000} s after it opened; the execution took ${tookMs / 1000} s`,
		);

		// A second execution the same day: nothing new; every item out with rule maxPerDay (a contact
		// whose local day changed in between may be sent again: a new day).
		const { run: again, sent: sentAgain } = await run(LOCAL_HOURS);
		const [secondRun] = runsOf(again, LOCAL_HOURS_SEND);
		const newDay = phones.filter(
			(phone) =>
				dayIn(zonesOf(phone)[0], sentAt.get(phone) ?? 0) !==
				dayIn(zonesOf(phone)[0], secondRun.startTime),
		);
		expect(again.data.resultData.runData[LOCAL_HOURS_WAIT]).toBeUndefined();
		expect(secondRun.outputs[1] ?? []).toEqual([]);
		expect(sentAgain.map((message) => message.to).sort()).toEqual(newDay.sort());
		expect(secondRun.outputs[0]).toEqual(
			phones.map((phone) =>
				newDay.includes(phone)
					? expect.objectContaining({ to: phone })
					: {
							sent: false,
							skipped: { rule: 'maxPerDay', recipient: phone, message: expect.any(String) },
						},
			),
		);
	}, 240_000);

	it('sent nothing the contract does not allow', () => {
		expect(sandbox.stats().lastViolations).toEqual([]);
		expect(researchSandbox.stats().lastViolations).toEqual([]);
	});
});
