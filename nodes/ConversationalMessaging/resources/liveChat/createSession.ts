import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { additionalFields, field, operation, showFor } from '../../shared/descriptions';

export const liveChatCreateSessionOperation: INodePropertyOptions = operation({
	name: 'Create Session',
	value: 'createSession',
	action: 'Create a live chat session',
	description: 'Open a web live chat session; its ID is the recipient of Send Message',
	method: 'POST',
	url: '/v1/live-chat/session',
});

export const liveChatCreateSessionFields: INodeProperties[] = [
	additionalFields('sessionFields', showFor('liveChat', ['createSession']), [
		field({
			displayName: 'Contact Name',
			name: 'name',
			description: 'Name of the contact in the chat',
			sendTo: 'body.name',
		}),
	]),
];
