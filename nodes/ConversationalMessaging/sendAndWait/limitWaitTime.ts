import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import type { Kept } from './kept';

const UNIT_MS: Record<string, number> = {
	seconds: 1000,
	minutes: 60_000,
	hours: 3_600_000,
	days: 86_400_000,
};

/** Read before anything is sent, so a bad limit never leaves a question nobody waits for. */
export function waitTill(fns: IExecuteFunctions): Date {
	const limit = fns.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	const refuse = (message: string, description: string) =>
		new NodeOperationError(fns.getNode(), `Limit Wait Time: ${message}`, { description });
	if (!limit.limitType) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at.getTime()))
			throw refuse(
				'Max Date and Time is not a date',
				'Pick a date and time, or remove Limit Wait Time.',
			);
		return at;
	}
	const amount = Number(limit.resumeAmount ?? 0);
	const unit = UNIT_MS[String(limit.resumeUnit ?? 'hours')];
	if (!(amount >= 0) || !unit)
		throw refuse(
			'the amount must be a number of 0 or more',
			'Enter how long to wait, or remove Limit Wait Time.',
		);
	return new Date(Date.now() + amount * unit);
}

/**
 * Just before a limited wait: the output if it times out. n8n then runs none of the node's code:
 * it passes on the input the waiting node kept (n8n-core's WorkflowExecute.handleWaitingState
 * marks the node disabled), which an answer first replaces with the webhook's output. So `data`
 * and `question` are set on that input here. The page and the answer read what execute kept
 * (./kept.ts), not the node's expressions against this input. A timed-out approval is no approval.
 */
export function setOutputOnTimeout(
	fns: IExecuteFunctions,
	limit: Date,
	{ page, question }: Kept,
): void {
	if (limit.getTime() === WAIT_INDEFINITELY.getTime()) return;
	const data: IDataObject = { timedOut: true, timedOutAt: limit.toISOString() };
	if (page.responseType === 'approval') data.approved = false;
	const kept = fns.getExecuteData();
	const [input] = kept.data.main[0] ?? [];
	if (!input) return;
	const json = { ...input.json, data, question: { ...question } };
	kept.data = { ...kept.data, main: [[{ ...input, json }], ...kept.data.main.slice(1)] };
}
