/**
 * The fault matrix, in n8n's engine against the sandbox: every way the service, a gateway or the
 * network can fail. Each fault must stop the node with a message that says what happened and what
 * to do; with continue-on-fail each input item gives exactly one output item, the failed ones
 * paired to their input and the others sent exactly once. A canary token must never show.
 * (test/nodes/.../envelope.test.ts checks the messages of a few faults one item at a time.)
 */
import type { INodeParameters } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { Fault } from '../../sandbox/server';
import { runNode } from '../helpers/engine';
import { onSkippingClock } from '../helpers/nodeClock';
import type { SandboxRun } from '../helpers/sandbox';
import { useSandbox } from '../helpers/sandbox';
import type { ServiceFaultCase } from './fault-cases';
import { SERVICE_FAULTS, TOKEN_HINT } from './fault-cases';
import { tokenLeaks } from './leaks';
import { closedPortUrl } from './operations';
import type { FaultRow, RetryRow } from './results';
import { canaryToken, collectResults } from './results';

const token = canaryToken();
const suite = useSandbox({ token });
const { results, save } = collectResults('faults');
const faultRows: FaultRow[] = (results.faults = []);
const retryRows: RetryRow[] = (results.retries = []);
afterAll(save);
afterEach(() => suite.sandbox.clearFaults());

const ITEMS = 6;
/** With continue-on-fail, the fault hits the first requests to arrive and spares the others. */
const FAILING = 2;
// Wide enough that an answer the sandbox does not delay is never late, even on a busy machine.
const TIMEOUT_MS = 500;
const LATENCY_MS = 1500;

const sms: INodeParameters = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '={{ $json.phone }}',
	instance: 'line-1',
	message: '={{ $json.text }}',
};

/** The text of each item names its case, so that the sandbox's sent messages can be counted per case. */
const itemsFor = (label: string, count: number) =>
	Array.from({ length: count }, (_, index) => ({
		phone: `5730012345${String(index).padStart(2, '0')}`,
		text: `${label} #${index}`,
	}));

/** How many times the service sent each text. */
function sendsOf(texts: string[]): number[] {
	const sent = [...suite.sandbox.state.sentMessages.values()].map((message) => message.body);
	return texts.map((text) => sent.filter((body) => body === text).length);
}

/** A service fault, or one of the network or credential faults only the engine's runs can set up. */
interface FaultCase extends Omit<ServiceFaultCase, 'fault'> {
	/** Injected before each run, for `times` requests. */
	fault?: Fault;
	/** Runs against this base URL instead of the sandbox's. */
	baseUrl?: () => Promise<string>;
	/** Done to the sandbox before each run. */
	arrange?: () => void;
	parameters?: INodeParameters;
	/** Every request fails (no `times`): the fault is not one a request can escape. */
	allFail?: boolean;
	/** The service executes a request after the node gave up waiting for it. */
	sentAnyway?: boolean;
}

// The rotated token comes last, and the matrix after the retries: from then on the sandbox only
// takes its new token.
const CASES: FaultCase[] = [
	...SERVICE_FAULTS,
	{
		name: 'Request timeout (Settings > Request Options > Timeout)',
		fault: { kind: 'latency', ms: LATENCY_MS },
		parameters: { requestOptions: { timeout: TIMEOUT_MS } },
		message: /^The service at 127\.0\.0\.1:\d+ did not answer in time$/,
		description: [
			'may still have carried out the request',
			'Raise Settings > Request Options > Timeout',
		],
		httpCode: 'ETIMEDOUT',
		source: 'node',
		verdict:
			'readable: the host, no answer in time, that it may have been carried out, raise Timeout',
		sentAnyway: true,
	},
	{
		name: 'Connection refused (closed port)',
		baseUrl: closedPortUrl,
		message:
			/^Could not connect to the service at 127\.0\.0\.1:\d+ for 10 s: the connection was refused$/,
		description: ['Check the Base URL of the credential'],
		httpCode: 'ECONNREFUSED',
		source: 'node',
		verdict: 'readable: the host, refused, check the Base URL',
		allFail: true,
	},
	{
		name: 'HTTP 429 that lasts (Max Wait: 2 s)',
		fault: { kind: 'status', status: 429, retryAfter: 1 },
		parameters: { messagingSendOptions: { maxWait: 2 } },
		message: 'The service answered 429: Too Many Requests',
		description: [
			'The service still refused the request after 3 tries and 2 s of waiting (it asks to wait 1 s); it was not carried out',
			'Lower Max Requests in Flight',
		],
		httpCode: '429',
		source: 'node',
		verdict: 'readable: refused after the allowed tries and wait, not carried out, what to change',
		allFail: true,
	},
	{
		name: 'Rotated token',
		arrange: () => suite.sandbox.rotateToken(),
		message: 'The service answered 401: Unauthorized',
		description: ['rotated in the dashboard', TOKEN_HINT],
		httpCode: '401',
		source: 'node',
		verdict: 'readable: Unauthorized, the token may have been rotated, update it',
		allFail: true,
	},
];

/** A run of SMS items under the fault; the credential always holds the canary token. */
async function runUnder(
	fault: FaultCase,
	label: string,
	count: number,
	continueOnFail: boolean,
): Promise<SandboxRun> {
	fault.arrange?.();
	if (fault.fault)
		suite.sandbox.injectFault({
			...fault.fault,
			times: fault.allFail ? undefined : continueOnFail ? FAILING : 1,
		});
	const parameters = { ...sms, ...fault.parameters };
	const items = itemsFor(label, count);
	const baseUrl = await fault.baseUrl?.();
	const run = async (): Promise<SandboxRun> => {
		if (!baseUrl) return await suite.run(parameters, { items, continueOnFail, apiToken: token });
		const result = await runNode({
			parameters,
			items,
			continueOnFail,
			credentials: { baseUrl, apiToken: token },
		});
		return { ...result, requests: [] };
	};
	// The node's waits here end only in its own limits (a closed port, Retry-After): not in wall time.
	const waitsOnTheNode =
		baseUrl !== undefined || (fault.fault?.kind === 'status' && fault.fault.status === 429);
	return waitsOnTheNode ? await onSkippingClock(run) : await run();
}

const expectReadable = (message: string) =>
	expect(message).not.toMatch(/TypeError|Cannot read|is not a function|undefined|^Bad request/);

describe("n8n's Retry On Fail", () => {
	const retryOnFail = { maxTries: 2, waitBetweenTries: 10 };

	it.each<[string, Fault]>([
		['HTTP 500', { kind: 'status', status: 500, times: 1 }],
		['HTTP 429 with Retry-After', { kind: 'status', status: 429, retryAfter: 1, times: 1 }],
	])('recovers from a transient %s: the message is sent exactly once', async (name, fault) => {
		const [item] = itemsFor(`retry ${name}`, 1);
		suite.sandbox.injectFault(fault);
		const run = await suite.run(sms, { items: [item], retryOnFail, apiToken: token });
		expect(run.error).toBeUndefined();
		expect(run.items.map((output) => output.json)).toEqual([
			expect.objectContaining({ to: item.phone, status: 'queued' }),
		]);
		expect(run.requests.map((request) => request.status)).toEqual([
			fault.kind === 'status' ? fault.status : 0,
			200,
		]);
		expect(sendsOf([item.text])).toEqual([1]);
		retryRows.push({
			fault: `${name}, 1 item`,
			itemsIn: 1,
			itemsOut: run.items.length,
			requests: run.requests.length,
			sends: 1,
			duplicates: 0,
		});
	});

	it.each<[string, Fault]>([
		['HTTP 500', { kind: 'status', status: 500, times: 1 }],
		[
			'an error envelope (err: true)',
			{ kind: 'errTrue', message: 'Instance line-1 is busy', times: 1 },
		],
		// The send loop itself waits out the 429 and sends that item again: n8n has nothing to re-run.
		['HTTP 429 with Retry-After', { kind: 'status', status: 429, retryAfter: 1, times: 1 }],
	])(
		'Retry On Fail with %s on one item of 20: all 20 delivered, the items the service had accepted not sent again',
		async (name, fault) => {
			// n8n retries a node, not an item: the send loop remembers what the service accepted.
			const items = itemsFor(`retry several ${name}`, 20);
			suite.sandbox.injectFault({ ...fault, match: { path: '/v1/sms' } });
			const run = await suite.run(sms, { items, retryOnFail, apiToken: token });
			expect(run.error).toBeUndefined();
			expect(run.items.map((item) => item.json)).toEqual(
				items.map((item) => expect.objectContaining({ to: item.phone, status: 'queued' })),
			);
			const sends = sendsOf(items.map((item) => item.text));
			expect(sends).toEqual(items.map(() => 1));
			// 20 requests on the first try, then the failed item alone.
			expect(run.requests).toHaveLength(21);
			retryRows.push({
				fault: `${name} on one request, 20 items`,
				itemsIn: items.length,
				itemsOut: run.items.length,
				requests: run.requests.length,
				sends: sends.reduce((sum, count) => sum + count, 0),
				duplicates: sends.filter((count) => count > 1).length,
			});
		},
	);

	it('does not send again an item whose request timed out: the service may have carried it out', async () => {
		const items = itemsFor('retry after timeout', 3);
		suite.sandbox.injectFault({ kind: 'latency', ms: LATENCY_MS, times: 1 });
		const run = await suite.run(
			{ ...sms, requestOptions: { timeout: TIMEOUT_MS } },
			{ items, retryOnFail, apiToken: token },
		);
		await sleep(LATENCY_MS);
		// Every try failed on the unsure item: n8n reports it; the others were sent once.
		expect(run.error?.message).toMatch(/did not answer in time/);
		expect(sendsOf(items.map((item) => item.text))).toEqual([1, 1, 1]);
		expect(run.requests).toHaveLength(3);
		retryRows.push({
			fault: 'Timeout on one request, 3 items (not sent again)',
			itemsIn: 3,
			itemsOut: 0,
			requests: run.requests.length,
			sends: 3,
			duplicates: 0,
		});
	});
});

describe('fault matrix', () => {
	it.each(CASES.filter((fault) => fault.recovers))(
		'$name: the send loop waits and sends the refused items again, each once, and no item fails',
		async (fault) => {
			for (const continueOnFail of [false, true]) {
				const label = `${fault.name} (${continueOnFail ? 'continue' : 'stop'})`;
				const items = itemsFor(label, ITEMS);
				const run = await runUnder(fault, label, ITEMS, continueOnFail);
				expect(run.error).toBeUndefined();
				expect(run.items.map((item) => item.json)).toEqual(
					items.map((item) => expect.objectContaining({ to: item.phone, status: 'queued' })),
				);
				expect(run.items.map((item) => item.pairedItem)).toEqual(
					items.map((_, item) => ({ item })),
				);
				const sends = sendsOf(items.map((item) => item.text));
				expect(sends).toEqual(items.map(() => 1));
				const refused = continueOnFail ? FAILING : 1;
				expect(run.requests).toHaveLength(ITEMS + refused);
				expect(tokenLeaks(run, token)).toEqual([]);
				if (continueOnFail) {
					faultRows.push({
						fault: fault.name,
						source: fault.source,
						verdict: fault.verdict,
						message: '(none: no item failed)',
						description: '',
						httpCode: fault.httpCode,
						itemsIn: ITEMS,
						itemsOut: run.items.length,
						failed: 0,
						requests: run.requests.length,
						sends: sends.reduce((sum, count) => sum + count, 0),
						sentAnyway: 0,
						leaks: 0,
					});
				}
			}
		},
	);

	it.each(CASES.filter((fault) => !fault.recovers))(
		'$name: a readable error; with continue-on-fail one item out per item in, the others sent once',
		async (fault) => {
			const stopped = await runUnder(fault, `${fault.name} (stop)`, 1, false);
			expect(stopped.items).toEqual([]);
			const error = stopped.error as (typeof stopped.error & { httpCode?: string }) | undefined;
			expect(error?.message).toMatch(fault.message);
			expectReadable(error?.message ?? '');
			if (fault.description.length)
				fault.description.forEach((part) => expect(error?.description).toContain(part));
			else expect(error?.description ?? undefined).toBeUndefined();
			expect(error?.httpCode).toBe(fault.httpCode);

			const items = itemsFor(fault.name, ITEMS);
			const continued = await runUnder(fault, fault.name, ITEMS, true);
			// The service may still be holding delayed requests; their timers end before this one.
			if (fault.sentAnyway) await sleep(LATENCY_MS);
			expect(continued.error).toBeUndefined();
			expect(continued.items.map((item) => item.pairedItem)).toEqual(
				items.map((_, item) => ({ item })),
			);
			const failed = continued.items.flatMap((item, index) =>
				item.json.error === undefined ? [] : [index],
			);
			const succeeded = items.map((_, index) => index).filter((index) => !failed.includes(index));
			expect(failed).toHaveLength(fault.allFail ? ITEMS : FAILING);
			failed.forEach((index) => {
				const { json, error: itemError } = continued.items[index];
				expect(Object.keys(json)).toEqual(['error']);
				// n8n shows an error item as its message alone: the node's message carries the fix.
				const fix = itemError?.description ? `. ${itemError.description}` : '';
				expect(json.error).toBe(itemError?.message);
				expect(String(json.error).endsWith(fix)).toBe(true);
				const said = String(json.error).slice(0, String(json.error).length - fix.length);
				if (typeof fault.message === 'string') expect(said).toBe(fault.message);
				else expect(said).toMatch(fault.message);
			});
			succeeded.forEach((index) =>
				expect(continued.items[index].json).toMatchObject({
					to: items[index].phone,
					status: 'queued',
				}),
			);
			const sends = sendsOf(items.map((item) => item.text));
			succeeded.forEach((index) => expect(sends[index]).toBe(1));
			failed.forEach((index) => expect(sends[index]).toBe(fault.sentAnyway ? 1 : 0));
			// Requests the service executed: answered 200 and not faulted, or only delayed.
			const executed = continued.requests.filter(
				(request) =>
					request.status === 200 && (request.fault === null || request.fault === 'latency'),
			);
			expect(executed).toHaveLength(succeeded.length + (fault.sentAnyway ? failed.length : 0));

			// Nothing is sent on to a redirect's address, nor anywhere else but the service.
			expect(suite.sandbox.elsewhere.requests).toEqual([]);
			const leaks = [...tokenLeaks(stopped, token), ...tokenLeaks(continued, token)];
			expect(leaks).toEqual([]);
			faultRows.push({
				fault: fault.name,
				source: fault.source,
				verdict: fault.verdict,
				message: error?.message ?? '',
				description: error?.description ?? '',
				httpCode: fault.httpCode,
				itemsIn: ITEMS,
				itemsOut: continued.items.length,
				failed: failed.length,
				requests: continued.requests.length,
				sends: sends.reduce((sum, count) => sum + count, 0),
				sentAnyway: fault.sentAnyway ? failed.length : 0,
				leaks: leaks.length,
			});
		},
	);
});
