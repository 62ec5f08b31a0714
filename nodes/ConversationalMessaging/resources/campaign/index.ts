import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
import { campaignGetOperation, campaignIdField } from './get';
import { campaignGetAllFields, campaignGetAllOperation } from './getAll';
import { campaignGetDetailsOperation } from './getDetails';

export { campaignListSearch } from './search';

export const campaignDescription: INodeProperties[] = [
	operationSelector(
		'campaign',
		[campaignGetOperation, campaignGetDetailsOperation, campaignGetAllOperation],
		'getAll',
	),
	campaignIdField,
	...campaignGetAllFields,
];
