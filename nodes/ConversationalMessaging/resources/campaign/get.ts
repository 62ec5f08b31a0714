import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { idLocator, operation, showFor } from '../../shared/descriptions';
import { CAMPAIGN_ID_PATTERN, SEARCH_CAMPAIGNS } from './search';

export const campaignGetOperation: INodePropertyOptions = operation({
	name: 'Get',
	value: 'get',
	action: 'Get a campaign',
	description: 'Retrieve a campaign by ID',
	method: 'GET',
	// {campaignId}: filled by the Campaign ID check with the locator's value (idLocator).
	url: '/v1/campaigns/{campaignId}',
});

/** Shared by Get and Get Details. */
export const campaignIdField: INodeProperties = idLocator({
	displayName: 'Campaign ID',
	name: 'campaignId',
	displayOptions: showFor('campaign', ['get', 'getDetails']),
	description:
		'The campaign: pick it from the list (searched by name or ID), or enter its ID, the id of a record from Campaign > Get Many',
	searchListMethod: SEARCH_CAMPAIGNS,
	listPlaceholder: 'Select a campaign...',
	idPlaceholder: 'ID from Campaign > Get Many',
	idPattern: CAMPAIGN_ID_PATTERN,
});
