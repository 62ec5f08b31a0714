import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../shared/operations';
import { agentCreateFields, agentCreateOperation } from './create';
import { agentDeleteFields, agentDeleteOperation } from './delete';
import { agentGetFields, agentGetOperation } from './get';

export const agentDescription: INodeProperties[] = [
	operationSelector(
		'agent',
		[agentCreateOperation, agentDeleteOperation, agentGetOperation],
		'create',
	),
	...agentCreateFields,
	...agentDeleteFields,
	...agentGetFields,
];
