import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { idField, operation, showFor } from '../../shared/descriptions';

export const campaignGetOperation: INodePropertyOptions = operation({
	name: 'Get',
	value: 'get',
	action: 'Get a campaign',
	description: 'Retrieve a campaign by ID',
	method: 'GET',
	url: '=/v1/campaigns/{{encodeURIComponent($parameter.campaignId)}}',
});

/** Shared by Get and Get Details. */
export const campaignIdField: INodeProperties = idField({
	displayName: 'Campaign ID',
	name: 'campaignId',
	displayOptions: showFor('campaign', ['get', 'getDetails']),
	description: 'Identifier of the campaign',
});
