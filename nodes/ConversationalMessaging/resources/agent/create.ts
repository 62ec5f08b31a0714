import { email } from '../../checks/checks';
import { field } from '../../form/fields';
import { phoneField } from '../../form/messageFields';
import type { OperationSpec } from '../../form/operations';

export const agentCreateOperation: OperationSpec = {
	name: 'Create',
	value: 'create',
	action: 'Create an agent',
	description: 'Add a team agent who can be assigned leads and conversations',
	method: 'POST',
	url: '/v1/agent',
	fields: [
		field({
			displayName: 'Name',
			name: 'agentName',
			required: true,
			description: 'Full name of the agent',
			sendTo: 'body.name',
		}),
		phoneField({
			displayName: 'Phone',
			name: 'agentPhone',
			sendTo: 'body.phone',
			description: 'Phone of the agent. ',
		}),
		field({
			displayName: 'Email',
			name: 'email',
			required: true,
			placeholder: 'name@email.com',
			description: 'Email address of the agent',
			sendTo: 'body.email',
			checks: [email('body.email', 'Email')],
		}),
	],
};
