import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import type { QuestionAsked } from './asked';

/**
 * When Limit Wait Time ends the wait, n8n runs none of the node's code: it passes on the input
 * the waiting node kept (n8n-core's WorkflowExecute.handleWaitingState marks the node disabled),
 * while an answer replaces that input with the webhook's output first. So, before it waits, the
 * node adds to that input what it says on a timeout. The input's other fields stay, since n8n's
 * page reads the node's expressions against it (`$json`). A timed-out approval is no approval.
 */
export function keepOutputOnTimeout(
	fns: IExecuteFunctions,
	limit: Date,
	responseType: string,
	question: QuestionAsked,
): void {
	if (limit.getTime() === WAIT_INDEFINITELY.getTime()) return;
	const data: IDataObject = { timedOut: true, timedOutAt: limit.toISOString() };
	if (responseType === 'approval') data.approved = false;
	const kept = fns.getExecuteData();
	const [input] = kept.data.main[0] ?? [];
	if (!input) return;
	const json = { ...input.json, data, question: { ...question } };
	const item = { ...input, json, pairedItem: { item: 0 } };
	kept.data = { ...kept.data, main: [[item], ...kept.data.main.slice(1)] };
}
