import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';

import { clock } from '../clock';
import { DEFAULT_MAX_WAIT_SECONDS } from '../form/settings';
import type { buildRequest, RequestForm } from '../sendLoop/itemRequest';
import { itemContext } from '../sendLoop/itemRequest';
import { joinLane } from '../sendLoop/lane';
import type { RunMemory } from '../sendLoop/runMemory';
import type { SendOutcome } from '../sendLoop/send';
import { failureOf, send } from '../sendLoop/send';

/** Send and Wait has no Send Options: it waits the default Max Wait, then is run again later. */
const maxWaitMs = DEFAULT_MAX_WAIT_SECONDS * 1000;
const advice = {
	notReached: `The service did not answer again within ${DEFAULT_MAX_WAIT_SECONDS / 60} minutes; run the execution again later.`,
	refused: 'Run the execution again later.',
};

/** A request of Send and Wait's (the question, the short link), from the values given it. */
export type Built = { form: RequestForm; values: unknown[] } & Awaited<
	ReturnType<typeof buildRequest>
>;

/** A question's place in the run's memory: its recipient's, among the group asked. */
export interface Slot {
	memory: RunMemory;
	/** One item per recipient: the input item and who (the memory's key). */
	asked: INodeExecutionData[];
	done: Array<SendOutcome | undefined>;
	index: number;
}

/**
 * Sends a request of Send and Wait's (a question, a short link) as a bulk send sends an item
 * (../sendLoop/send.ts), within the default Max Wait, and nothing once the execution is cancelled
 * (its link would lead nowhere); reads the answer with the plain operation's reader. A question is
 * kept in the run's memory at once: neither Retry On Fail nor n8n's Retry sends it again once the
 * service may have it. A short link is made again on a retry: one leads to its execution only.
 */
export async function sendStep(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
	{ form, request }: Built,
	slot?: Slot,
): Promise<SendOutcome> {
	const stopped = () => Boolean(fns.getExecutionCancelSignal()?.aborted);
	const lane = joinLane(credentials, { maxInFlight: 1, maxWaitMs, stopped });
	lane.remaining = 1;
	const sender = { fns, credentials, lane, maxWaitMs, advice, waitAside: clock.sleep };
	let outcome: SendOutcome;
	try {
		outcome = await send(sender, itemContext(fns, 0), form, request);
	} finally {
		lane.leave();
	}
	if (slot && ('sent' in outcome || 'unsure' in outcome)) {
		slot.done[slot.index] = outcome;
		slot.memory.keep(slot.asked, slot.done);
	}
	return outcome;
}

/** A short link's or a question's answer; its failure thrown. */
export async function sent(fns: IExecuteFunctions, outcome: SendOutcome) {
	if ('sent' in outcome) return outcome.sent;
	throw failureOf(fns, outcome, 0);
}
