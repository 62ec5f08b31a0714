import type { IExecuteFunctions, INodeExecutionData, INodeTypeDescription } from 'n8n-workflow';

import { setsAny } from '../checks/checks';
import type { PhoneReading } from '../checks/phone/reading';
import type { SmsReading } from '../checks/sms';
import { SegmentsSent, smsFacts } from '../checks/sms';
import type { BulkSpec } from '../form/operations';
import type { SendOptions } from '../form/settings';
import {
	DEFAULT_MAX_IN_FLIGHT,
	DEFAULT_MAX_WAIT_SECONDS,
	rulesParameter,
	sendOptionsParameter,
} from '../form/settings';
import type { RequestOptionsParameter } from '../n8nInternals';
import {
	batchingOf,
	outputConnected,
	REQUEST_OPTIONS,
	runsAsTool,
	triedAgainAfter,
} from '../n8nInternals';
import type { Cleared, RuleOutcome } from '../recipientRules/rules';
import { RecipientRules } from '../recipientRules/rules';
import { CREDENTIAL_NAME, settingsFor } from '../service/account';
import { clock } from '../clock';
import type { Reading } from './itemRequest';
import { buildRequest, FieldValues, itemContext, READ_AHEAD, requestForm } from './itemRequest';
import { joinLane } from './lane';
import { CountriesReached } from '../checks/phone/countriesReached';
import { SendSummary } from './sendSummary';
import type { Done } from './runMemory';
import { executionIdOf, markedSent, RunMemory, sentEarlier } from './runMemory';
import type { NodeError, Sender, SendOutcome } from './send';
import {
	asNodeError,
	BULK_ADVICE,
	cancelledError,
	errorItemError,
	failureOf,
	send,
	stoppedError,
} from './send';
import { stopError } from './stopError';

/**
 * The send loop: a bulk operation, as n8n's `customOperations`, from its spec (its request, its
 * fields with their places and checks, how its answer is read).
 * A request is never sent again after a timeout or a cut connection, which the service may have
 * carried out: within a run, only refused items and those that never reached the service go again.
 */
export function sendLoop(resource: string, spec: BulkSpec, description: INodeTypeDescription) {
	// Its settings' names and defaults, and the request's, read once when the node loads.
	const sendOptionsName = sendOptionsParameter(resource);
	const rulesName = spec.toAPerson ? rulesParameter(resource) : undefined;
	const unset = { maxInFlight: DEFAULT_MAX_IN_FLIGHT, maxWaitSeconds: DEFAULT_MAX_WAIT_SECONDS };
	const defaults = description.requestDefaults;
	/** One run of the send loop (one try, under Retry On Fail), with what an earlier one kept (./runMemory.ts). */
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const node = this.getNode();
		// Batching is read once, for item 0, as RoutingNode reads it.
		const requestOptions = this.getNodeParameter(REQUEST_OPTIONS, 0, {}) as RequestOptionsParameter;
		const sendOptions = this.getNodeParameter(sendOptionsName, 0, {}) as SendOptions;
		const credentials = await this.getCredentials(CREDENTIAL_NAME);
		const maxInFlight = Math.max(1, Math.floor(sendOptions.maxInFlight ?? unset.maxInFlight));
		const { size: batchSize, intervalMs: batchInterval } = batchingOf(requestOptions);
		const continueOnFail = this.continueOnFail();
		const summary = new SendSummary(items.length);
		/** What the checks read of the items this run sent, for the hints; how many an earlier run had sent. */
		const phonesSent = new Map<number, PhoneReading>();
		const smsSent: SmsReading[] = [];
		let sentEarlierCount = 0;
		const maxWaitMs = Math.max(0, sendOptions.maxWait ?? unset.maxWaitSeconds) * 1000;
		let memory: RunMemory;
		let rules: RecipientRules | undefined;
		try {
			// Set wrong (a Send Window's time, a Do Not Send To entry): said before any request.
			if (rulesName && setsAny(node.parameters[rulesName]))
				rules = await RecipientRules.read(this, resource, maxWaitMs);
			memory = await RunMemory.recall(this, rules?.exclusive);
		} catch (error) {
			// A second Retry of one failed execution sends nothing. With On Error: Continue, n8n would
			// pass the input on as if sent: each item says so instead.
			const failed = asNodeError(this, error, 0);
			if (!continueOnFail) throw failed;
			const shown = errorItemError(failed);
			return [items.map((_, item) => ({ json: {}, error: shown, pairedItem: { item } }))];
		}
		const executionId = executionIdOf(this);
		/** What the service got of each item, in this run or an earlier one: kept if the send stops. */
		const done: Array<Done | undefined> = new Array(items.length);
		const signal = this.getExecutionCancelSignal();
		const results: INodeExecutionData[][] = new Array(items.length);
		const failures = new Map<number, NodeError>();
		/** Items a failed execution this one retries may have carried out: never sent, and they stop no other item. */
		const namedAgain = new Map<number, NodeError>();
		const startedAt = clock.now();
		/** The next item to start; how many items have started and not settled; how many of those are not waiting aside. */
		let next = 0;
		let unsettled = 0;
		let working = 0;
		let allSettled: () => void = () => {};
		const stopped = () => (failures.size > 0 && !continueOnFail) || Boolean(signal?.aborted);

		/** Items the service accepted in this run; items a Recipient Rule kept from it (held or skipped). */
		let sentNow = 0;
		let keptBack = 0;

		const settle = (itemIndex: number, outcome: SendOutcome | RuleOutcome) => {
			run.lane.remaining--;
			// Kept from the service by a Recipient Rule: out with its reason, or on the Held output.
			if ('skipped' in outcome || 'held' in outcome) {
				keptBack++;
				results[itemIndex] = 'skipped' in outcome ? [outcome.skipped] : [];
				return;
			}
			const earlier = sentEarlier(outcome, executionId);
			if ('sent' in outcome) {
				results[itemIndex] = earlier ? markedSent(outcome.sent, earlier) : outcome.sent;
				return;
			}
			const error = failureOf(this, outcome, itemIndex);
			if (!continueOnFail) {
				// An item the execution stopped before sending does not stand for its failure.
				if (earlier) namedAgain.set(itemIndex, error);
				else if (!('stopped' in outcome)) failures.set(itemIndex, error);
				return;
			}
			results[itemIndex] = [
				{ json: {}, error: errorItemError(error), pairedItem: { item: itemIndex } },
			];
			summary.failedItem(itemIndex, 'unsure' in outcome);
		};

		const sendItem = async (
			itemIndex: number,
			reading: Reading,
		): Promise<SendOutcome | RuleOutcome> => {
			// Another item failed (On Error: Stop), or the run was cancelled, while this one waited its batch.
			if (stopped()) return { stopped: stoppedError(this, itemIndex) };
			if ('error' in reading) return { failed: asNodeError(this, reading.error, itemIndex) };
			const item = itemContext(this, itemIndex, { credentials, node });
			let cleared: Cleared | RuleOutcome = { cleared: true };
			try {
				const settings = itemSettings(itemIndex);
				const built = await buildRequest(item, form, defaults, reading.values, settings);
				const { request } = built;
				const { phone, sms } = built.readings;
				if (rules) cleared = await rules.check(item, request, phone);
				if (!('cleared' in cleared)) return cleared;
				const outcome = await send(run, item, form, request);
				if ('failed' in outcome || 'stopped' in outcome) rules?.notSent(cleared);
				if ('sent' in outcome) {
					sentNow++;
					if (phone) phonesSent.set(itemIndex, phone);
					if (sms) smsSent.push(sms);
					// What the SMS cost, on its output: the service's answer does not say.
					// And the text sent, when Replace Look-Alike Characters changed it.
					if (sms)
						for (const answer of outcome.sent) {
							answer.json.smsCost = smsFacts(sms);
							if (sms.sentText !== undefined) answer.json.sentText = sms.sentText;
						}
				}
				return outcome;
			} catch (error) {
				// A check refused a value: nothing was sent.
				if ('cleared' in cleared) rules?.notSent(cleared);
				return { failed: asNodeError(this, error, itemIndex) };
			}
		};

		const runItem = async (itemIndex: number) => {
			const reading = await values.read(itemIndex);
			const remembered = memory.get(itemIndex, items[itemIndex]);
			if (remembered) {
				done[itemIndex] = remembered;
				if ('sent' in remembered) {
					summary.reusedAnswer(sentEarlier(remembered, executionId)?.executionId);
					sentEarlierCount++;
				}
				return settle(itemIndex, remembered);
			}
			// Settings > Request Options > Batching: a batch starts no earlier than one interval after the previous one.
			const notBefore = startedAt + Math.floor(itemIndex / batchSize) * batchInterval;
			if (batchInterval > 0 && notBefore > clock.now()) await clock.sleep(notBefore - clock.now());
			const outcome = await sendItem(itemIndex, reading);
			if ('sent' in outcome || 'unsure' in outcome)
				done[itemIndex] = { ...outcome, by: { executionId, at: clock.now() } };
			settle(itemIndex, outcome);
		};

		/**
		 * Starts items while fewer than Max Requests in Flight and READ_AHEAD more are at work (items
		 * waiting aside do not count): values are read while requests travel; the lane paces the sends.
		 */
		const startItems = () => {
			// A stopped run starts no more items: the lane's pace no longer counts them.
			if (stopped() && next < items.length) {
				run.lane.remaining -= items.length - next;
				next = items.length;
			}
			while (working < maxInFlight + READ_AHEAD && next < items.length && !stopped()) {
				const itemIndex = next++;
				unsettled++;
				working++;
				void runItem(itemIndex).finally(() => {
					unsettled--;
					working--;
					startItems();
				});
			}
			if (!unsettled) allSettled();
		};

		const form = requestForm(spec, node);
		const values = new FieldValues(this, form.fields);
		const itemSettings = settingsFor(this, credentials);
		const run: Sender = {
			fns: this,
			credentials,
			lane: joinLane(credentials, { maxInFlight, maxWaitMs, stopped }),
			maxWaitMs,
			advice: BULK_ADVICE,
			summary,
			waitAside: async (ms) => {
				working--;
				startItems();
				await clock.sleep(ms);
				working++;
			},
		};
		run.lane.remaining = items.length;
		try {
			await new Promise<void>((resolve) => {
				allSettled = resolve;
				startItems();
			});
		} finally {
			run.lane.leave();
			await rules?.finish();
		}

		const stop = failures.size ? failures : namedAgain;
		const output = rules?.outputs(results.flat(), items, runsAsTool(node)) ?? [results.flat()];
		// n8n shows the hints of a node that returns (a failing node's are lost with it); a context
		// without hints shows none. Made before the memory is dropped: nothing after it may throw.
		const hints = [
			summary.hint(run.lane.outageMs),
			new CountriesReached(phonesSent, sentEarlierCount).hint(),
			new SegmentsSent(smsSent).hint(),
			// A tool has no Held output: its held items come out on the first (RecipientRules.outputs).
			rules?.hint(sentNow, runsAsTool(node) || outputConnected(this, 1)),
		].filter((hint) => hint !== undefined);
		// Kept for whoever runs the node again: n8n's Retry after a stop, Retry On Fail after a stop or a
		// return it tries again on (../n8nInternals.ts).
		if (stop.size || signal?.aborted || (node.retryOnFail === true && triedAgainAfter(output)))
			memory.keep(items, done);
		else RunMemory.forget(this);
		if (signal?.aborted && !failures.size) throw cancelledError(this);
		if (stop.size) throw stopError(this, stop, done, keptBack);
		if (hints.length && typeof this.addExecutionHints === 'function')
			this.addExecutionHints(...hints);
		return output;
	};
}
