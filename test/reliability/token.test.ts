/**
 * The token: a canary token runs through all 27 operations, on success and under every fault of
 * the matrix. It must never show in output items (error items included), error messages or
 * descriptions, or the execution data n8n would store; requests with a body carry it only there.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { Fault, RecordedRequest } from '../../sandbox/server';
import type { RunResult } from '../helpers/engine';
import { runNode } from '../helpers/engine';
import { onSkippingClock } from '../helpers/nodeClock';
import { SEND_SMS, useSandbox } from '../helpers/sandbox';
import { errorsHoldingToken, tokenLeaks, tokenWhereDocumented } from './leaks';
import { closedPortUrl, OPERATIONS } from './operations';
import type { TokenRow } from './results';
import { canaryToken, collectResults } from './results';

const token = canaryToken();
const suite = useSandbox({ token });
const { results, save } = collectResults('token');
const rows: TokenRow[] = (results.token = []);
afterAll(save);
afterEach(() => suite.sandbox.clearFaults());

// Wide enough that every request reaches the sandbox before the node gives up on it.
const TIMEOUT_MS = 250;

interface Scenario {
	name: string;
	fault?: Fault;
	parameters?: INodeParameters;
	refused?: boolean;
	rotated?: boolean;
}

// The rotated token comes last: from then on the sandbox only takes its new token.
const SCENARIOS: Scenario[] = [
	{ name: 'success' },
	{ name: 'HTTP 500', fault: { kind: 'status', status: 500 } },
	{ name: 'HTTP 502 with an HTML body', fault: { kind: 'status', status: 502, html: true } },
	// The send operations wait and retry a 429 within Max Wait: none here.
	{
		name: 'HTTP 429 with Retry-After',
		fault: { kind: 'status', status: 429, retryAfter: 7 },
		parameters: Object.fromEntries(
			['contact', 'legacyMessage', 'liveChat', 'messaging'].map((resource) => [
				`${resource}SendOptions`,
				{ maxWait: 0 },
			]),
		),
	},
	{
		name: 'Request timeout',
		fault: { kind: 'latency', ms: TIMEOUT_MS * 3 },
		parameters: { requestOptions: { timeout: TIMEOUT_MS } },
	},
	{ name: 'Connection refused', refused: true },
	{ name: 'Connection dropped mid-response', fault: { kind: 'drop' } },
	{ name: 'Malformed JSON body', fault: { kind: 'malformed' } },
	{ name: 'Empty body', fault: { kind: 'empty' } },
	{
		name: 'err: true on HTTP 200',
		fault: { kind: 'errTrue', message: 'Instance is disconnected' },
	},
	{
		name: 'Envelope 401 on HTTP 200',
		fault: { kind: 'errTrue', statusCode: 401, message: 'Unauthorized' },
	},
	{ name: 'Envelope 401 on HTTP 401', fault: { kind: 'status', status: 401 } },
	{
		name: 'Service echoes the token in its error',
		fault: { kind: 'errTrue', message: `Token ${token} is not valid for this instance` },
	},
	// A GET's redirect keeps its query, token included, in the address it points to.
	{ name: 'Redirect (308) to another host', fault: { kind: 'redirect', status: 308 } },
	{ name: 'Rotated token', rotated: true },
];

describe('the API token', () => {
	it.each(SCENARIOS)(
		'$name: never shows in items, errors or execution data, and travels only where documented',
		async (scenario) => {
			if (scenario.rotated) suite.sandbox.rotateToken();
			// Every operation at once, stopping on fail then continuing on fail: the fault hits them all.
			if (scenario.fault) suite.sandbox.injectFault(scenario.fault);
			const baseUrl = scenario.refused ? await closedPortUrl() : suite.sandbox.url;
			const before = suite.sandbox.requests.length;
			const runAll = async () =>
				await Promise.all(
					OPERATIONS.map(async (operation) => {
						const runs: Array<{ operationId: string; run: RunResult }> = [];
						// One after the other: a delete needs its record back for the second run.
						for (const continueOnFail of [false, true]) {
							operation.prepare?.(suite.sandbox);
							const parameters = { ...operation.parameters, ...scenario.parameters };
							runs.push({
								operationId: operation.operationId,
								run: await runNode({
									parameters,
									continueOnFail,
									credentials: { baseUrl, apiToken: token },
								}),
							});
						}
						return runs;
					}),
				);
			// A closed port: the node's waits end only in its own limits (the first contact's 10 s).
			const runsByOperation = scenario.refused ? await onSkippingClock(runAll) : await runAll();
			const runs = runsByOperation.flat();
			const requests: RecordedRequest[] = suite.sandbox.requests.slice(before);

			if (scenario.name === 'success') {
				expect(
					runs
						.filter(({ run }) => run.error || run.items.some((item) => item.json.error))
						.map(({ operationId }) => operationId),
				).toEqual([]);
				expect(new Set(requests.map((request) => request.operationId)).size).toBe(
					OPERATIONS.length,
				);
			} else {
				expect(
					runs
						.filter(({ run }) => !run.error && !run.items.some((item) => item.json.error))
						.map(({ operationId }) => operationId),
				).toEqual([]);
			}
			const leaks = runs.flatMap(({ operationId, run }) =>
				tokenLeaks(run, token).map((place) => `${operationId}: ${place}`),
			);
			expect(leaks).toEqual([]);
			const misplaced = requests.filter((request) => !tokenWhereDocumented(request, token));
			expect(
				misplaced.map((request) => `${request.method} ${request.path} ${request.tokenLocation}`),
			).toEqual([]);
			expect(requests.filter((request) => !request.valid).map((request) => request.errors)).toEqual(
				[],
			);
			expect(suite.sandbox.elsewhere.requests).toEqual([]);

			rows.push({
				scenario: scenario.name,
				operations: new Set(runs.map(({ operationId }) => operationId)).size,
				runs: runs.length,
				requests: requests.length,
				tokenOnlyWhereDocumented: requests.length - misplaced.length,
				leaks: leaks.length,
				inMemoryOnly: runs.reduce((sum, { run }) => sum + errorsHoldingToken(run, token), 0),
			});
		},
	);
});

describe('a user and password written in the Base URL', () => {
	it.each([
		['a bulk send', SEND_SMS, 'joe.user:s3cret'],
		['an operation n8n routes', { resource: 'client', operation: 'get' }, 'joe.user:s3cret'],
		['a bulk send, an @ in the password', SEND_SMS, 'joe.user:s3@cret'],
	])(
		'never show in the errors of %s: the host is named without them',
		async (_name, parameters, userInfo) => {
			const closed = await closedPortUrl();
			const baseUrl = closed.replace('//', `//${userInfo}@`);
			// A closed port: the node's waits end only in its own limits (the first contact's 10 s).
			const run = await onSkippingClock(
				async () =>
					await runNode({
						parameters: parameters as INodeParameters,
						items: [{ phone: '573001234567' }],
						credentials: { baseUrl, apiToken: token },
					}),
			);
			expect(run.error?.message).toContain(closed.replace('http://', ''));
			const shown = JSON.stringify([run.error?.message, run.error?.description]);
			expect(shown).not.toContain('cret');
			expect(shown).not.toContain('joe.user');
		},
	);
});
