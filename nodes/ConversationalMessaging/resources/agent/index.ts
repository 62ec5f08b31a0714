import type { ResourceSpec } from '../../form/operations';
import { agentCreateOperation } from './create';
import { agentDeleteOperation } from './delete';
import { agentGetOperation } from './get';

export const agentResource: ResourceSpec = {
	name: 'Agent',
	value: 'agent',
	description: 'Team agents who take leads and conversations',
	operations: [agentCreateOperation, agentDeleteOperation, agentGetOperation],
	defaultOperation: agentCreateOperation.value,
};
