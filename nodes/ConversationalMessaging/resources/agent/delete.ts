import { idField } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';

export const agentDeleteOperation: OperationSpec = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete an agent',
	description: 'Remove an agent from the team',
	method: 'DELETE',
	url: '/v1/agent',
	fields: [
		idField({
			displayName: 'Agent ID',
			name: 'agentIdToDelete',
			placeholder: 'ID from Agent > Create',
			description: 'Identifier of the agent to delete, as returned by Agent > Create',
			sendTo: 'body.id',
		}),
	],
};
