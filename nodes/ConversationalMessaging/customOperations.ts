import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { BULK_OPERATIONS } from './form/bulkOperations';
import { sendAndWait } from './sendAndWait/run';
import { sendLoop } from './sendLoop/sendLoop';

/** n8n-core runs these instead of their routing: the bulk sends and Send and Wait. */
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
