import type { INodeProperties } from 'n8n-workflow';

import { field, idField, showFor } from '../../shared/descriptions';
import { operationSelector } from '../../shared/operations';
import { phoneField } from '../../shared/messageFields';
import { email } from '../../shared/checks';

const showForCreate = showFor('agent', ['create']);

export const agentDescription: INodeProperties[] = [
	operationSelector(
		'agent',
		[
			{
				name: 'Create',
				value: 'create',
				action: 'Create an agent',
				description: 'Add a team agent who can be assigned leads and conversations',
				method: 'POST',
				url: '/v1/agent',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete an agent',
				description: 'Remove an agent from the team',
				method: 'DELETE',
				url: '/v1/agent',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get an agent',
				description: 'Retrieve an agent by ID',
				method: 'GET',
				url: '/v1/agent',
			},
		],
		'create',
	),
	field({
		displayName: 'Name',
		name: 'agentName',
		required: true,
		displayOptions: showForCreate,
		description: 'Full name of the agent',
		sendTo: 'body.name',
	}),
	phoneField({
		resource: 'agent',
		operations: ['create'],
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
		displayOptions: showForCreate,
		description: 'Email address of the agent',
		sendTo: 'body.email',
		checks: [email('body.email', 'Email')],
	}),
	idField({
		displayName: 'Agent ID',
		name: 'agentIdToDelete',
		displayOptions: showFor('agent', ['delete']),
		placeholder: 'ID from Agent > Create',
		description: 'Identifier of the agent to delete, as returned by Agent > Create',
		sendTo: 'body.id',
	}),
	idField({
		displayName: 'Agent ID',
		name: 'agentId',
		displayOptions: showFor('agent', ['get']),
		placeholder: 'ID from Agent > Create',
		description: 'Identifier of the agent, as returned by Agent > Create',
		sendTo: 'qs.id',
	}),
];
