import type { ResourceSpec } from '../../form/operations';
import { clientGetOperation } from './get';

export const clientResource: ResourceSpec = {
	name: 'Client',
	value: 'client',
	description: 'The client account of the API token',
	operations: [clientGetOperation],
	defaultOperation: clientGetOperation.value,
};
