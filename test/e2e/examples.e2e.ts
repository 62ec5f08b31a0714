/**
 * The workflows of examples/ in real n8n: imported with the n8n CLI next to a sandbox credential,
 * run with `n8n execute`, and checked against what the sandbox received. A trigger the CLI cannot
 * fire (schedule, form) is swapped for a Manual Trigger; the rest of the workflow is run as shipped,
 * but for the research loop's Wait (2 minutes, then seconds: see quickResearchLoop).
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
		// sms-approval-before-refund and sms-delivery-form wait for an answer: test/e2e/sendAndWait.e2e.ts runs them in `n8n start`.
		expect(Object.keys(examples).sort()).toEqual([
			'bulk-send-sms-and-chatapp',
			'crm-lead-from-web-form',
			'scheduled-research-without-holding-a-worker',
			'scheduled-researcher-run',
			'short-link-in-sms',
			'sms-approval-before-refund',
			'sms-delivery-form',
		]);
		expect(new Set(Object.values(examples).map((workflow) => workflow.id)).size).toBe(7);
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

	it('sent nothing the contract does not allow', () => {
		expect(sandbox.stats().lastViolations).toEqual([]);
		expect(researchSandbox.stats().lastViolations).toEqual([]);
	});
});
