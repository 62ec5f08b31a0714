import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { ItemContext } from '../../checks/checks';
import { listEntries } from '../../checks/checks';

export const COMPLETION_FIELDS = ['output', 'progress'];

/** The service does not document when a run is finished: progress 100, or an output. */
export function researchIsComplete(researcher: IDataObject): boolean {
	const output = researcher.output ?? '';
	const hasOutput = output !== '' && !(typeof output === 'object' && !Object.keys(output).length);
	return Number(researcher.progress) >= 100 || hasOutput;
}

/** `complete` lets an If node loop a Wait node; without the fields the rule reads, a guess could end it early. */
export async function addCompletion(
	this: ItemContext,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const fields = listEntries(this.getNodeParameter('fields', []) ?? [])
		.map((name) => String(name).trim())
		.filter((name) => name !== '');
	if (fields.length > 0 && !COMPLETION_FIELDS.every((name) => fields.includes(name))) return items;
	return items.map((item) => ({
		...item,
		json: { ...item.json, complete: researchIsComplete(item.json) },
	}));
}
