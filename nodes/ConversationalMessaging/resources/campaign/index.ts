import type { ResourceSpec } from '../../form/operations';
import { campaignGetOperation } from './get';
import { campaignGetDetailsOperation } from './getDetails';
import { campaignGetAllOperation } from './getAll';

export { campaignListSearch } from './search';

export const campaignResource: ResourceSpec = {
	name: 'Campaign',
	value: 'campaign',
	description: 'Message campaigns and their details',
	operations: [campaignGetOperation, campaignGetDetailsOperation, campaignGetAllOperation],
	defaultOperation: campaignGetAllOperation.value,
};
