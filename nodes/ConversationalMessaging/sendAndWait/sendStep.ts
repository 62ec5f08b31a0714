import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';

import { clock } from '../clock';
import { DEFAULT_MAX_WAIT_SECONDS } from '../form/settings';
import type { buildRequest, RequestForm } from '../sendLoop/itemRequest';
import { itemContext } from '../sendLoop/itemRequest';
import { joinLane } from '../sendLoop/lane';
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

/**
 * Sends a request of Send and Wait's (a question, a short link) as a bulk send sends an item
 * (../sendLoop/send.ts), within the default Max Wait, and nothing once the execution is cancelled
 * (its link would lead nowhere); reads the answer with the plain operation's reader. A question is
 * kept in the run's memory at once (./group.ts, GroupMemory). A short link is made again on a
 * retry: one leads to its execution only.
 */
export async function sendStep(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
	{ form, request }: Built,
): Promise<SendOutcome> {
	const stopped = () => Boolean(fns.getExecutionCancelSignal()?.aborted);
	const lane = joinLane(credentials, { maxInFlight: 1, maxWaitMs, stopped });
	lane.remaining = 1;
	const sender = { fns, credentials, lane, maxWaitMs, advice, waitAside: clock.sleep };
	try {
		return await send(sender, itemContext(fns, 0), form, request);
	} finally {
		lane.leave();
	}
}

/** A short link's answer; its failure thrown. */
export function sentOrThrown(fns: IExecuteFunctions, outcome: SendOutcome) {
	if ('sent' in outcome) return outcome.sent;
	throw failureOf(fns, outcome, 0);
}
