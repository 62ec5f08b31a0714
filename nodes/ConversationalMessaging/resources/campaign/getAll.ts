import type {
	DeclarativeRestApiSettings,
	IExecutePaginationFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { returnAllAndLimit } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { listRecords } from '../../service/envelope';

/** Bounds of `page` and `limit` are not documented (the examples use 10); a shorter page ends the list. */
export const CAMPAIGN_PAGE_SIZE = 50;

export async function paginateCampaigns(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', false) as boolean;
	const limit = returnAll ? Infinity : (this.getNodeParameter('limit', 50) as number);
	const pageSize = Math.min(CAMPAIGN_PAGE_SIZE, limit);
	const results: INodeExecutionData[] = [];
	let previousFirst: string | undefined;
	for (let page = 1; results.length < limit; page++) {
		requestData.options.qs = { ...requestData.options.qs, page, limit: pageSize };
		const records = await this.makeRoutingRequest(requestData);
		const first = records.length ? JSON.stringify(records[0].json) : undefined;
		// A service that ignores `page` would otherwise be read forever.
		if (first !== undefined && first === previousFirst)
			throw new NodeOperationError(
				this.getNode(),
				`Page ${page} of the campaigns repeats page ${page - 1}`,
				{
					description:
						'The service does not seem to page this list. Turn off Return All and set a Limit.',
					itemIndex: this.getItemIndex(),
				},
			);
		previousFirst = first;
		results.push(...records);
		if (records.length < pageSize) break;
	}
	return results.slice(0, limit);
}

export const campaignGetAllOperation: OperationSpec = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many campaigns',
	description: 'List campaigns, page by page',
	method: 'GET',
	url: '/v1/campaigns',
	records: listRecords,
	pagination: paginateCampaigns,
	fields: returnAllAndLimit('campaigns'),
};
