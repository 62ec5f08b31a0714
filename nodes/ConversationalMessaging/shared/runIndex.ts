import type { IExecuteFunctions } from 'n8n-workflow';

/** The node's run index, through n8n's documented `$runIndex` (IExecuteFunctions has no getter). */
export function runIndexOf(fns: IExecuteFunctions): number {
	return Number(fns.getWorkflowDataProxy(0).$runIndex);
}
