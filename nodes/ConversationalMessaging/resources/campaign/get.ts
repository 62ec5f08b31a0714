import type { INodeProperties } from 'n8n-workflow';

import { idLocator } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { CAMPAIGN_ID_PATTERN, SEARCH_CAMPAIGNS } from './search';

/** Get and Get Details put it in their URL: `{campaignId}`. */
export const campaignIdField: INodeProperties = idLocator({
	displayName: 'Campaign ID',
	name: 'campaignId',
	description:
		'The campaign: pick it from the list (searched by name or ID), or enter its ID, the ID of a record from Campaign > Get Many',
	searchListMethod: SEARCH_CAMPAIGNS,
	listPlaceholder: 'Select a campaign...',
	idPlaceholder: 'ID from Campaign > Get Many',
	idPattern: CAMPAIGN_ID_PATTERN,
});

export const campaignGetOperation: OperationSpec = {
	name: 'Get',
	value: 'get',
	action: 'Get a campaign',
	description: 'Retrieve a campaign by ID',
	method: 'GET',
	url: '/v1/campaigns/{campaignId}',
	fields: [campaignIdField],
};
