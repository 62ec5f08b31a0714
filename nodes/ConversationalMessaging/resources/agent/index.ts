import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
import { agentCreateFields, agentCreateOperation } from './create';
import { agentDeleteField, agentDeleteOperation } from './delete';
import { agentGetField, agentGetOperation } from './get';

export const agentDescription: INodeProperties[] = [
	operationSelector(
		'agent',
		[agentCreateOperation, agentDeleteOperation, agentGetOperation],
		'create',
	),
	...agentCreateFields,
	agentDeleteField,
	agentGetField,
];
