import type { IExecuteData, INodeExecutionData } from 'n8n-workflow';

/**
 * What the send loop already did to each item of a node's run, so that n8n's Retry On Fail,
 * which runs the whole node again with the same input, sends no item twice.
 *
 * n8n hands every try of a node the same execute data object (WorkflowExecute's retry loop), and
 * a new one to every other run; keyed by it, the memory lives exactly as long as the run can be
 * retried, in the process that runs it, and goes with it. Kept: the items of an answer the
 * service accepted, and the error of a request the service may have carried out without saying
 * so (a timeout, a cut connection, an unreadable 2xx answer). An item that failed for a reason
 * the service gave (an HTTP error, an error envelope, a rejected value) is tried again.
 */
export type Outcome = { sent: INodeExecutionData[] } | { unsure: Error };

const runs = new WeakMap<IExecuteData, Map<number, Outcome>>();

export function outcomesOf(run: IExecuteData): Map<number, Outcome> {
	let outcomes = runs.get(run);
	if (!outcomes) runs.set(run, (outcomes = new Map()));
	return outcomes;
}
