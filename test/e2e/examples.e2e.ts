/**
 * The workflows of examples/ in real n8n: imported with the n8n CLI next to a sandbox credential,
 * run with `n8n execute`, and checked against what the sandbox received. A trigger the CLI cannot
 * fire (schedule, form) is swapped for a Manual Trigger; the rest of the workflow is run as shipped.
 */
import { randomUUID } from 'crypto';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import type { Sandbox, SentMessage } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import type { ExecutedRun } from './lib/n8n';
import { createUserFolder, executeWorkflow, importJson, outputOf, REPO_ROOT, removeUserFolder, sandboxCredential } from './lib/n8n';

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
	connections: Record<string, { main: Array<Array<{ node: string; type: string; index: number }>> }>;
}

const OUR_NODE = 'n8n-nodes-conversational-messaging.conversationalMessaging';
const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const examples: Record<string, WorkflowJson> = Object.fromEntries(
	readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson]),
);

/** What a visitor types into the contact form of the CRM lead example, by field name. */
const FORM_SAMPLE = { name: 'Ana Garcia', phone: '+57 300 123 4567', message: 'Please call me about the spring offer' };

/**
 * The workflow with its schedule or form trigger replaced by a Manual Trigger under the same name;
 * for a form, a Set node of that name gives the sample answers after a Manual Trigger.
 */
function runnableFromCli(workflow: WorkflowJson): WorkflowJson {
	const nodes = workflow.nodes.map((node): NodeJson[] => {
		const manual = { id: randomUUID(), type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} };
		if (node.type === 'n8n-nodes-base.scheduleTrigger') return [{ ...manual, name: node.name, position: node.position }];
		if (node.type !== 'n8n-nodes-base.formTrigger') return [node];
		const answers = { id: node.id, name: node.name, type: 'n8n-nodes-base.set', typeVersion: 3.5, position: node.position, parameters: { mode: 'raw', jsonOutput: JSON.stringify(FORM_SAMPLE) } };
		return [{ ...manual, name: 'Manual Trigger', position: [node.position[0] - 240, node.position[1]] }, answers];
	});
	const form = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger');
	const connections = form ? { ...workflow.connections, 'Manual Trigger': { main: [[{ node: form.name, type: 'main', index: 0 }]] } } : workflow.connections;
	return { ...workflow, nodes: nodes.flat(), connections };
}

/** The latest version of each node type of n8n-nodes-base in the installed n8n. */
function installedBaseNodeVersions(): Map<string, number> {
	const file = join(REPO_ROOT, '.cache', 'n8n-runtime', 'node_modules', 'n8n-nodes-base', 'dist', 'types', 'nodes.json');
	const types = JSON.parse(readFileSync(file, 'utf8')) as Array<{ name: string; version: number | number[] }>;
	const latest = new Map<string, number>();
	for (const { name, version } of types) latest.set(`n8n-nodes-base.${name}`, Math.max(latest.get(`n8n-nodes-base.${name}`) ?? 0, ...[version].flat()));
	return latest;
}

let sandbox: Sandbox;
let userFolder: string;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, researcherRunMs: 1000 });
	userFolder = createUserFolder();
	await importJson('credentials', [sandboxCredential(sandbox.url, sandbox.token)], { userFolder });
	await importJson('workflow', Object.values(examples).map(runnableFromCli), { userFolder });
});

afterAll(async () => {
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

/** Runs an example; returns its run and the requests the sandbox received per operation meanwhile. */
async function run(example: string): Promise<{ run: ExecutedRun; calls: Record<string, number>; sent: SentMessage[] }> {
	const before = sandbox.stats().byOperation;
	const known = new Set(sandbox.state.sentMessages.keys());
	const { result, run } = await executeWorkflow(examples[example].id, { userFolder });
	if (!run || run.data.resultData.error) throw new Error(`${example} failed (exit ${result.code}): ${run?.data.resultData.error?.message ?? ''}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
	const calls = Object.fromEntries(Object.entries(sandbox.stats().byOperation).map(([operation, count]) => [operation, count - (before[operation] ?? 0)]).filter(([, count]) => count));
	const sent = [...sandbox.state.sentMessages.values()].filter((message) => !known.has(message.id));
	return { run, calls, sent };
}

describe('example workflows', () => {
	it('are tidy workflows of current nodes, on the credential that npm run dev imports', () => {
		// sms-approval-before-refund waits for an answer: test/e2e/sendAndWait.e2e.ts runs it in `n8n start`.
		expect(Object.keys(examples).sort()).toEqual(['bulk-send-sms-and-chatapp', 'crm-lead-from-web-form', 'scheduled-researcher-run', 'short-link-in-sms', 'sms-approval-before-refund']);
		expect(new Set(Object.values(examples).map((workflow) => workflow.id)).size).toBe(5);
		const latest = installedBaseNodeVersions();
		for (const workflow of Object.values(examples)) {
			const names = workflow.nodes.map((node) => node.name);
			expect(new Set(names).size).toBe(names.length);
			const targets = Object.values(workflow.connections).flatMap((output) => output.main.flat().map((connection) => connection.node));
			for (const name of [...Object.keys(workflow.connections), ...targets]) expect(names).toContain(name);
			for (const node of workflow.nodes) {
				if (node.type === OUR_NODE) {
					expect([node.typeVersion, node.credentials]).toEqual([1, { conversationalMessagingApi: { id: 'cmSandboxCred001', name: 'Conversational Messaging sandbox' } }]);
				} else {
					expect([node.type, node.typeVersion]).toEqual([node.type, latest.get(node.type)]);
				}
			}
		}
	});

	it('web form to CRM lead: the form answers become a lead with the message and tags', async () => {
		const form = examples['crm-lead-from-web-form'].nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger');
		const fields = (form?.parameters.formFields as { values: Array<{ fieldName: string }> }).values.map((field) => field.fieldName);
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
			{ researcherId: expect.stringMatching(/^rsr_/), name: expect.stringMatching(/^Competitor scan \d{4}-\d\d-\d\d$/), report: expect.any(String), format: 'markdown', finishedAt: expect.any(String) },
		]);
		for (const source of ['Market brief', 'Competitor A pricing', 'Competitor B offers']) expect(report[0].report).toContain(source);
		expect(sandbox.state.researchers.get(String(report[0].researcherId))?.files).toHaveLength(3);
	});

	it('bulk send: one SMS and one chatapp message per valid contact, failures summed up without stopping the others', async () => {
		// One chatapp message refused by the service, on top of the contact whose number is wrong.
		sandbox.injectFault({ kind: 'errTrue', match: { operationId: 'legacyMessageSend' }, times: 1, message: 'Instance qr-instance-1 is not paired' });
		const listPhones = [...(sandbox.state.contactLists.get('list-1')?.values() ?? [])].map((contact) => String(contact.phone));
		const validPhones = [...listPhones, '573105550101'].sort();

		const { run: bulk, calls, sent } = await run('bulk-send-sms-and-chatapp');
		expect(calls).toEqual({ contactGetMany: 1, smsSend: 6, legacyMessageSend: 6 });
		expect(sent.filter((message) => message.channel === 'sms').map((message) => message.to).sort()).toEqual(validPhones);
		const chatapp = sent.filter((message) => message.channel === 'legacy');
		expect(chatapp).toHaveLength(5);
		expect(new Set(chatapp.map((message) => message.to)).size).toBe(5);

		const summary = Object.fromEntries(outputOf(bulk, 'Delivery Summary').map((row) => [`${row.channel} ${row.status}`, row]));
		expect(Object.keys(summary).sort()).toEqual(['chatapp failed', 'chatapp sent', 'sms failed', 'sms sent']);
		expect(summary['sms sent'].count_phone).toBe(6);
		expect(summary['sms failed']).toMatchObject({ count_phone: 1, concatenated_phone: '12345', concatenated_error: expect.stringMatching(/^Recipient Phone: "12345" has 5 digits/) });
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
		expect(sent).toEqual([expect.objectContaining({ channel: 'sms', to: '573001234567', body: `Spring sale: 20% off until Sunday. Details: ${String(created.shortUrl)}` })]);
		expect(outputOf(link, 'Send SMS with Link')).toEqual([expect.objectContaining({ id: sent[0].id })]);
	});

	it('sent nothing the contract does not allow', () => {
		expect(sandbox.stats().lastViolations).toEqual([]);
	});
});
