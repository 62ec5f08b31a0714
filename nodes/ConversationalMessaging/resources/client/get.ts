import type { OperationSpec } from '../../form/operations';

export const clientGetOperation: OperationSpec = {
	name: 'Get',
	value: 'get',
	action: 'Get the client account',
	description: 'Retrieve the client account that owns the API token',
	method: 'GET',
	url: '/v1/client',
};
