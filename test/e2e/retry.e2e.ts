/**
 * n8n's Retry of a bulk send that stopped part-way, in real n8n (2.41.1; 1.123.x under
 * `npm run test:compat`): a webhook brings 300 contacts, Send SMS stops (On Error: Stop) when the
 * service refuses item 6, and the execution fails saying how many items the service accepted and
 * how many were not sent. Then Retry, as the Executions list does it (`POST
 * /rest/executions/:id/retry`, with the original workflow and with the saved one): every phone
 * gets its message once, and the retried execution's output has 300 items, those the failed run
 * got accepted with their first message ids, marked `alreadySent` by that execution.
 */
import type { Sandbox } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import type { N8nServer } from './lib/n8n';
import {
	createUserFolder,
	importJson,
	listExecutions,
	removeUserFolder,
	RestSession,
	sandboxCredential,
	settledExecution,
	startN8n,
	until,
	webhookBulkSmsWorkflow,
} from './lib/n8n';

const credential = sandboxCredential('', 'retry-e2e-token-0001', 'cmRetryCred00001');
const WORKFLOW_ID = 'cmRetryAfterStop';
const PATH = 'retry-after-stop';
const CONTACTS = 300;
const REFUSED = 5;

interface StoredItem {
	json: Record<string, unknown>;
	pairedItem?: { item: number };
}
interface StoredRun {
	resultData: {
		error?: { message?: string; description?: string };
		runData: Record<string, Array<{ data?: { main: StoredItem[][] }; error?: unknown }>>;
	};
}

let sandbox: Sandbox;
let server: N8nServer;
let session: RestSession;
let userFolder: string;

const contactsFor = (run: string) =>
	Array.from({ length: CONTACTS }, (_, index) => ({
		phone: `573${run}${String(index).padStart(7, '0')}`,
		text: `retry ${run} #${index}`,
	}));

const were = (n: number) => (n === 1 ? 'was' : 'were');

/** How many messages the service recorded for each contact, in order; and the id it gave each. */
function delivered(contacts: Array<{ phone: string }>) {
	const messages = [...sandbox.state.sentMessages.values()];
	return contacts.map(({ phone }) => messages.filter((message) => message.to === phone));
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, token: credential.data.apiToken });
	userFolder = createUserFolder({ install: 'copy' });
	await importJson(
		'credentials',
		[{ ...credential, data: { ...credential.data, baseUrl: sandbox.url } }],
		{ userFolder },
	);
	await importJson(
		'workflow',
		[
			webhookBulkSmsWorkflow({
				id: WORKFLOW_ID,
				name: 'Retry: bulk SMS that stops part-way',
				path: PATH,
				credential: { id: credential.id, name: credential.name },
				instance: 'line-1',
				message: '={{ $json.text }}',
				settings: {},
			}),
		],
		{ userFolder },
	);
	server = await startN8n({ userFolder });
	session = await RestSession.asOwner(server.url);
	await session.activate(WORKFLOW_ID);
}, 180_000);

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) removeUserFolder(userFolder);
});

/** Calls the webhook with the contacts (it answers 500: the execution failed); gives the new execution's id. */
async function failingExecution(contacts: Array<{ phone: string; text: string }>): Promise<string> {
	const known = new Set((await listExecutions(session)).executions.map(({ id }) => id));
	await until('the webhook to start an execution', async () => {
		const response = await fetch(`${server.url}/webhook/${PATH}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ contacts }),
		});
		await response.text();
		return response.status === 404 ? undefined : true;
	});
	return await until(
		'the failed execution',
		async () =>
			(await listExecutions(session)).executions.find(
				({ id, workflowId }) => !known.has(id) && workflowId === WORKFLOW_ID,
			)?.id,
	);
}

/** Retries the execution as the Executions list does; gives the retry's id. */
async function retry(id: string, loadWorkflow: boolean): Promise<string> {
	const known = new Set((await listExecutions(session)).executions.map(({ id: known }) => known));
	await session.request('POST', `/rest/executions/${id}/retry`, { loadWorkflow });
	return await until(
		'the retried execution',
		async () =>
			(await listExecutions(session)).executions.find(
				(execution) => !known.has(execution.id) && execution.workflowId === WORKFLOW_ID,
			)?.id,
	);
}

describe('Retry of a bulk send that stopped part-way, in real n8n', () => {
	it.each([
		['original workflow', '71', false],
		['currently saved workflow', '72', true],
	])(
		'Retry with %s: the error counts what the service got; the retry reaches every phone once, 300 items out, the accepted ones with their first message ids',
		async (_kind, run, loadWorkflow) => {
			const contacts = contactsFor(run);
			sandbox.injectFault({
				kind: 'errTrue',
				message: 'body.to is not a number this line can reach',
				times: 1,
				match: { path: '/v1/sms', body: { to: contacts[REFUSED].phone } },
			});
			const failedId = await failingExecution(contacts);
			const failed = await settledExecution<StoredRun>(session, failedId);
			expect(failed.status).toBe('error');
			const { error } = failed.run.resultData;
			expect(error?.message).toBe(
				'The service answered 400: body.to is not a number this line can reach',
			);
			const first = delivered(contacts);
			const accepted = first.filter((messages) => messages.length === 1).length;
			expect(first.every((messages) => messages.length <= 1)).toBe(true);
			expect(accepted).toBeGreaterThan(0);
			expect(error?.description).toContain(
				`Item ${REFUSED} stopped the send (n8n counts items from 0: the ${REFUSED + 1}th item): ${accepted} of ${CONTACTS} items ${were(accepted)} sent and ${CONTACTS - accepted} ${were(CONTACTS - accepted)} not sent (this one included). Retry (Executions list) sends only the ${CONTACTS - accepted} not sent. If the service refused this item for its value, first set Settings > On Error to Continue and use Retry with currently saved workflow.`,
			);

			const retriedId = await retry(failedId, loadWorkflow);
			const retried = await settledExecution<StoredRun>(session, retriedId);
			expect(retried.status).toBe('success');
			const all = delivered(contacts);
			expect(all.map((messages) => messages.length)).toEqual(contacts.map(() => 1));
			const output = retried.run.resultData.runData['Send SMS'].at(-1)?.data?.main[0] ?? [];
			expect(output).toHaveLength(CONTACTS);
			let marked = 0;
			for (const item of output) {
				const index = item.pairedItem?.item as number;
				expect(item.json.to).toBe(contacts[index].phone);
				expect(item.json.id).toBe(all[index][0].id);
				if (first[index].length) {
					marked++;
					expect(item.json.alreadySent).toEqual({
						executionId: failedId,
						sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
					});
				} else expect(item.json.alreadySent).toBeUndefined();
			}
			expect(marked).toBe(accepted);
			process.stdout.write(
				`real n8n: retry with ${_kind}: execution ${failedId} failed at item ${REFUSED + 1} with ${accepted} of ${CONTACTS} accepted; retry ${retriedId} sent ${CONTACTS - accepted}, every phone once, ${output.length} items out\n`,
			);
		},
	);

	it('a second Retry of the same failed execution, after the first stopped too, sends nothing and says to retry the newest; that one finishes, every phone once', async () => {
		const contacts = contactsFor('73');
		const refuseOnce = (index: number) =>
			sandbox.injectFault({
				kind: 'errTrue',
				message: 'body.to is not a number this line can reach',
				times: 1,
				match: { path: '/v1/sms', body: { to: contacts[index].phone } },
			});
		refuseOnce(REFUSED);
		const firstId = await failingExecution(contacts);
		expect((await settledExecution<StoredRun>(session, firstId)).status).toBe('error');
		refuseOnce(250);
		const secondId = await retry(firstId, false);
		expect((await settledExecution<StoredRun>(session, secondId)).status).toBe('error');
		const before = delivered(contacts).map((messages) => messages.length);

		const againId = await retry(firstId, false);
		const again = await settledExecution<StoredRun>(session, againId);
		expect(again.status).toBe('error');
		expect(again.run.resultData.error?.message).toBe(
			`Execution ${firstId} was retried already: this retry sent nothing`,
		);
		expect(delivered(contacts).map((messages) => messages.length)).toEqual(before);

		const newestId = await retry(secondId, false);
		expect((await settledExecution<StoredRun>(session, newestId)).status).toBe('success');
		expect(delivered(contacts).map((messages) => messages.length)).toEqual(contacts.map(() => 1));
		process.stdout.write(
			`real n8n: execution ${firstId} failed, its retry ${secondId} failed too; a second retry of ${firstId} (${againId}) sent nothing; the retry of ${secondId} (${newestId}) finished: every phone once\n`,
		);
	});
});
