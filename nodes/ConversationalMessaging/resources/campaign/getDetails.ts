import type { OperationSpec } from '../../form/operations';
import { campaignIdField } from './get';

export const campaignGetDetailsOperation: OperationSpec = {
	name: 'Get Details',
	value: 'getDetails',
	action: 'Get the details of a campaign',
	description: 'Retrieve the details of a campaign by ID',
	method: 'GET',
	url: '/v1/campaigns/{campaignId}/details',
	fields: [campaignIdField],
};
