import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import type { ResourceSpec } from './form/operations';
import { isBulk } from './form/operations';
import { sendLoop } from './sendLoop/sendLoop';

/** n8n-core runs these instead of their routing: the bulk sends (the send loop) and Send and Wait. */
export function customOperationsOf(resources: ResourceSpec[], description: INodeTypeDescription) {
	const operations: NonNullable<INodeType['customOperations']> = {};
	for (const resource of resources)
		for (const spec of resource.operations) {
			const run = isBulk(spec)
				? sendLoop(resource.value, spec, description)
				: spec.sends === 'custom'
					? spec.execute(description)
					: undefined;
			if (run) (operations[resource.value] ??= {})[spec.value] = run;
		}
	return operations;
}
