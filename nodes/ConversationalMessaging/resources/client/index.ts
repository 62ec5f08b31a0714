import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../shared/operations';

export const clientDescription: INodeProperties[] = [
	operationSelector(
		'client',
		[
			{
				name: 'Get',
				value: 'get',
				action: 'Get the client account',
				description: 'Retrieve the client account that owns the API token',
				method: 'GET',
				url: '/v1/client',
			},
		],
		'get',
	),
];
