import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { listEntries } from '../../shared/checks';
import type { ItemContext } from '../../shared/itemContext';

/** The fields of a researcher the completion rule reads. */
export const COMPLETION_FIELDS = ['output', 'progress'];

/**
 * The service does not document when a run is finished. A run counts as complete when its
 * progress reaches 100 or an output appears, whichever comes first. Researcher > Run's Wait for
 * Completion and Researcher > Get's `complete` both use this rule.
 */
export function researchIsComplete(researcher: IDataObject): boolean {
	const output = researcher.output;
	const hasOutput =
		output !== undefined &&
		output !== null &&
		output !== '' &&
		!(typeof output === 'object' && Object.keys(output).length === 0);
	return Number(researcher.progress) >= 100 || hasOutput;
}

/**
 * Post-receive of Researcher > Get: adds `complete`, so that an If node can loop a Wait node on
 * it. Left out when Fields leaves out what the rule reads: a guess there could end a loop early.
 */
export async function addCompletion(
	this: ItemContext,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	// As the Fields check reads it (each name trimmed; nothing when blank).
	const fields = listEntries(this.getNodeParameter('fields', []) ?? [])
		.map((name) => String(name).trim())
		.filter((name) => name !== '');
	if (fields.length > 0 && !COMPLETION_FIELDS.every((name) => fields.includes(name))) return items;
	return items.map((item) => ({
		...item,
		json: { ...item.json, complete: researchIsComplete(item.json) },
	}));
}
