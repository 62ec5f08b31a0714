import { idField } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';

export const agentGetOperation: OperationSpec = {
	name: 'Get',
	value: 'get',
	action: 'Get an agent',
	description: 'Retrieve an agent by ID',
	method: 'GET',
	url: '/v1/agent',
	fields: [
		idField({
			displayName: 'Agent ID',
			name: 'agentId',
			placeholder: 'ID from Agent > Create',
			description: 'Identifier of the agent, as returned by Agent > Create',
			sendTo: 'qs.id',
		}),
	],
};
