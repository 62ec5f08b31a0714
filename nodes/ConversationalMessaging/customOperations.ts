import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { sendLoop } from './engine/sendLoop';
import { sendAndWait } from './sendAndWait/run';
import { BULK_OPERATIONS } from './shared/bulkOperations';

/**
 * The operations n8n runs through the node's own code instead of their routing (n8n-core then
 * never reads that routing): each bulk send through the send loop, and Send and Wait.
 */
export function customOperations(
	description: INodeTypeDescription,
): NonNullable<INodeType['customOperations']> {
	const loop = sendLoop(description);
	const operations: NonNullable<INodeType['customOperations']> = Object.fromEntries(
		Object.entries(BULK_OPERATIONS).map(([resource, names]) => [
			resource,
			Object.fromEntries(names.map((name) => [name, loop])),
		]),
	);
	operations.messaging[SEND_AND_WAIT_OPERATION] = sendAndWait(description);
	return operations;
}
