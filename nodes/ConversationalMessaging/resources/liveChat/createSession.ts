import type { INodeProperties } from 'n8n-workflow';

import { additionalFields, field, showFor } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';

export const liveChatCreateSessionOperation: OperationSpec = {
	name: 'Create Session',
	value: 'createSession',
	action: 'Create a live chat session',
	description: 'Open a web live chat session; its ID is the recipient of Send Message',
	method: 'POST',
	url: '/v1/live-chat/session',
};

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
