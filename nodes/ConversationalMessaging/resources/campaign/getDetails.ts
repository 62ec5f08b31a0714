import type { INodePropertyOptions } from 'n8n-workflow';

import { operation } from '../../shared/descriptions';

/** Uses the Campaign ID field of Get. */
export const campaignGetDetailsOperation: INodePropertyOptions = operation({
	name: 'Get Details',
	value: 'getDetails',
	action: 'Get the details of a campaign',
	description: 'Retrieve the details (delivery figures) of a campaign by ID',
	method: 'GET',
	// {campaignId}: filled by the Campaign ID check with the locator's value (idLocator).
	url: '/v1/campaigns/{campaignId}/details',
});
