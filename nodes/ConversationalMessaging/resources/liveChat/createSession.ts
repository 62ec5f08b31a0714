import { additionalFields, field } from '../../form/fields';
import { instanceField } from '../../form/messageFields';
import type { OperationSpec } from '../../form/operations';

/** One Instance for the live chat operations: the value stays when the operation changes. */
export const liveChatInstance = instanceField('liveChatInstance');

export const liveChatCreateSessionOperation: OperationSpec = {
	name: 'Create Session',
	value: 'createSession',
	action: 'Create a live chat session',
	description: 'Open a web live chat session; its ID is the recipient of Send Message',
	method: 'POST',
	url: '/v1/live-chat/session',
	fields: [
		liveChatInstance,
		additionalFields('sessionFields', [
			field({
				displayName: 'Contact Name',
				name: 'name',
				description: 'Name of the contact in the chat',
				sendTo: 'body.name',
			}),
		]),
	],
};
