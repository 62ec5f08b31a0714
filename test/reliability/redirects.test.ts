/**
 * Redirects: the service (or a proxy, a load balancer, an old address) answers 301, 302, 303, 307
 * or 308 pointing to another host on loopback. Every operation, stopping and continuing on fail:
 * nothing reaches the other host, the item fails with a message naming the status and that host,
 * and the canary token is in no output, error or execution data. The same for the requests a
 * node makes beyond the first: the researcher's polling and the campaign list's pages.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { Fault } from '../../sandbox/server';
import type { RunResult } from '../helpers/engine';
import { runNode } from '../helpers/engine';
import { useSandbox } from '../helpers/sandbox';
import { tokenLeaks } from './leaks';
import type { OperationCase } from './operations';
import { OPERATIONS } from './operations';
import type { RedirectRow } from './results';
import { canaryToken, collectResults } from './results';
import { onSkippingClock } from '../helpers/nodeClock';

const token = canaryToken();
// More campaigns than one page holds, so that Get Many asks for page 2.
const suite = useSandbox({ token, campaigns: 60 });
const { results, save } = collectResults('redirects');
const rows: RedirectRow[] = (results.redirects = []);
afterAll(save);
afterEach(() => suite.sandbox.clearFaults());

const STATUSES = [301, 302, 303, 307, 308];
const ADVICE =
	"Put the service's final address in the credential's Base URL (for example https:// instead of http://";

/** One run of an operation under the fault: its error, or its one error item. */
async function runUnder(
	operation: OperationCase,
	fault: Fault,
	continueOnFail: boolean,
	parameters: INodeParameters = {},
): Promise<RunResult> {
	operation.prepare?.(suite.sandbox);
	suite.sandbox.injectFault(fault);
	const run = await runNode({
		parameters: { ...operation.parameters, ...parameters },
		continueOnFail,
		credentials: { baseUrl: suite.sandbox.url, apiToken: token },
	});
	suite.sandbox.clearFaults();
	return run;
}

function expectRedirectError(run: RunResult, status: number, continueOnFail: boolean): void {
	const message = `The service answered ${status}, a redirect to ${suite.sandbox.elsewhere.url}: the request was not carried out there`;
	if (continueOnFail) {
		expect(run.error).toBeUndefined();
		// n8n shows an error item as its message alone: the node's message carries the fix.
		expect(run.items.map((item) => item.json)).toEqual([
			{ error: `${message}. ${run.items[0].error?.description}` },
		]);
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
		expect(run.items[0].error?.description).toContain(ADVICE);
	} else {
		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(message);
		expect(run.error?.description).toContain(ADVICE);
		expect((run.error as { httpCode?: string } | undefined)?.httpCode).toBe(String(status));
	}
}

describe('a redirect to another host', () => {
	it.each(STATUSES)(
		'%i: every operation fails naming the status and the host, sends nothing there, and shows no token',
		async (status) => {
			const before = suite.sandbox.requests.length;
			let leaks = 0;
			for (const operation of OPERATIONS) {
				for (const continueOnFail of [false, true]) {
					const run = await runUnder(operation, { kind: 'redirect', status }, continueOnFail);
					expectRedirectError(run, status, continueOnFail);
					const found = tokenLeaks(run, token);
					expect(found.map((place) => `${operation.operationId}: ${place}`)).toEqual([]);
					leaks += found.length;
				}
			}
			const requests = suite.sandbox.requests.slice(before);
			// One request per run, answered with the redirect, and none sent on.
			expect(requests).toHaveLength(OPERATIONS.length * 2);
			expect(
				requests.every((request) => request.status === status && request.fault === 'redirect'),
			).toBe(true);
			expect(new Set(requests.map((request) => request.operationId)).size).toBe(OPERATIONS.length);
			expect(suite.sandbox.elsewhere.requests).toEqual([]);
			rows.push({
				what: `${status}, all ${OPERATIONS.length} operations`,
				runs: OPERATIONS.length * 2,
				failedWithRedirectError: OPERATIONS.length * 2,
				requests: requests.length,
				sentElsewhere: suite.sandbox.elsewhere.requests.length,
				leaks,
			});
		},
	);

	const researcherRun = OPERATIONS.find(
		(operation) => operation.operationId === 'researcherRun',
	) as OperationCase;
	const campaignGetMany = OPERATIONS.find(
		(operation) => operation.operationId === 'campaignGetMany',
	) as OperationCase;

	it.each(STATUSES)(
		'%i on the researcher poll (Wait for Completion): the run fails naming the redirect, nothing is sent there',
		async (status) => {
			const before = suite.sandbox.requests.length;
			for (const continueOnFail of [false, true]) {
				// The poll's wait, skipped (test/helpers/nodeClock.ts).
				const run = await onSkippingClock(
					async () =>
						await runUnder(
							researcherRun,
							{ kind: 'redirect', status, match: { operationId: 'researcherGet' } },
							continueOnFail,
							{ runOptions: { waitForCompletion: true, pollInterval: 1, timeout: 1 } },
						),
				);
				expectRedirectError(run, status, continueOnFail);
				expect(tokenLeaks(run, token)).toEqual([]);
			}
			expect(suite.sandbox.elsewhere.requests).toEqual([]);
			// The run's start, then the poll that was redirected.
			const requests = suite.sandbox.requests.slice(before);
			expect(requests.map((request) => [request.operationId, request.status])).toEqual([
				['researcherRun', 200],
				['researcherGet', status],
				['researcherRun', 200],
				['researcherGet', status],
			]);
			rows.push({
				what: `${status}, Researcher Run's poll`,
				runs: 2,
				failedWithRedirectError: 2,
				requests: requests.length,
				sentElsewhere: 0,
				leaks: 0,
			});
		},
	);

	it.each(STATUSES)(
		'%i on a later page of Campaign > Get Many (Return All): the list fails naming the redirect, nothing is sent there',
		async (status) => {
			const before = suite.sandbox.requests.length;
			for (const continueOnFail of [false, true]) {
				const run = await runUnder(
					campaignGetMany,
					{
						kind: 'redirect',
						status,
						match: { operationId: 'campaignGetMany', query: { page: '2' } },
					},
					continueOnFail,
					{ returnAll: true },
				);
				expectRedirectError(run, status, continueOnFail);
				expect(tokenLeaks(run, token)).toEqual([]);
			}
			expect(suite.sandbox.elsewhere.requests).toEqual([]);
			// Page 1, then page 2, which was redirected.
			const requests = suite.sandbox.requests.slice(before);
			expect(requests.map((request) => [request.query.page, request.status])).toEqual([
				['1', 200],
				['2', status],
				['1', 200],
				['2', status],
			]);
			rows.push({
				what: `${status}, page 2 of Campaign > Get Many`,
				runs: 2,
				failedWithRedirectError: 2,
				requests: requests.length,
				sentElsewhere: 0,
				leaks: 0,
			});
		},
	);
});
