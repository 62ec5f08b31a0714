import type { INodePropertyOptions } from 'n8n-workflow';

import { operation } from '../../shared/descriptions';

export const clientGetOperation: INodePropertyOptions = operation({
	name: 'Get',
	value: 'get',
	action: 'Get the client account',
	description: 'Retrieve the client account that owns the API token',
	method: 'GET',
	url: '/v1/client',
});
