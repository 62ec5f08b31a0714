/** The daily cap's errors: what failed in n8n's store, whether anything was sent, and the fix. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { modeConflict, storeNotSetUp } from '../n8nProcessedData';

const CAP = 'Max Messages per Person per Day';

export const messageOf = (error: unknown) =>
	error instanceof Error ? error.message : String(error);

export function noStore(fns: IExecuteFunctions): NodeOperationError {
	return new NodeOperationError(
		fns.getNode(),
		`${CAP} needs n8n's processed-data store, which this n8n version does not have: nothing was sent`,
		{ description: `Update n8n, or turn off ${CAP}.` },
	);
}

/** Max Wait spent waiting for the lock; leastWaitMs: the stale rule's, the least wait. */
export function tooLong(
	fns: IExecuteFunctions,
	waitedMs: number,
	maxWaitMs: number,
	leastWaitMs: number,
): NodeOperationError {
	const seconds = (ms: number) => Math.round(ms / 1000);
	return new NodeOperationError(
		fns.getNode(),
		`${CAP}: the count in n8n's processed-data store stayed in use by other executions for ${seconds(waitedMs)} s (Max Wait ${seconds(maxWaitMs)} s): nothing was sent`,
		{
			description: `Other executions of this workflow count at the same time. The count is waited on for Max Wait (Send Options), and never less than ${seconds(leastWaitMs)} s, the time in which a count left in use by a crashed worker is taken over. Run this one again once they have finished, or raise Max Wait.`,
		},
	);
}

export function cancelled(fns: IExecuteFunctions): NodeOperationError {
	return new NodeOperationError(
		fns.getNode(),
		`${CAP}: the execution was cancelled while waiting for the day's count in n8n's processed-data store: nothing was sent`,
	);
}

/** The workflow's row is another node's: in the lock's own mode, or (`description`) in another. */
export function foreignRow(
	fns: IExecuteFunctions,
	description = `${CAP} counts under the workflow's row of that store, which a Remove Duplicates node (Keep Items Where: Value Is Higher than Any Previous Value, Scope: Workflow) holds. Set that node's Scope to Node (its "Clean Database" operation resets it), or turn off ${CAP}.`,
): NodeOperationError {
	return new NodeOperationError(
		fns.getNode(),
		`${CAP}: another node of this workflow keeps its data in n8n's processed-data store with Scope Workflow: nothing was sent`,
		{ description },
	);
}

/** A failure of the store while locking, recording or giving a slot back. */
export function storeError(
	fns: IExecuteFunctions,
	error: unknown,
	doing: 'lock' | 'record' | 'give back',
): NodeOperationError {
	const why = messageOf(error);
	if (modeConflict(why))
		return foreignRow(
			fns,
			`${CAP} counts under the workflow's row of that store, which another node (a Remove Duplicates node with Scope: Workflow) wrote in its own mode; n8n said: ${why.replace(/\.?$/, '.')} Set that node's Scope to Node, or turn off ${CAP}.`,
		);
	if (storeNotSetUp(why))
		return new NodeOperationError(
			fns.getNode(),
			`${CAP} needs n8n's processed-data store, which is not set up here: nothing was sent`,
			{ description: `${why.replace(/\.?$/, '.')} Turn off ${CAP}, or run the workflow in n8n.` },
		);
	const message =
		doing === 'give back'
			? `${CAP}: a message not sent could not be taken out of the day's count in n8n's processed-data store`
			: `${CAP}: could not read the day's count in n8n's processed-data store: nothing was sent`;
	const after =
		doing === 'give back'
			? 'Its place stays counted: fewer may be sent to that person today.'
			: "Run again once n8n's database answers.";
	return new NodeOperationError(fns.getNode(), message, {
		description: `${why.replace(/\.?$/, '.')} ${after}`,
	});
}
