import type { INodeProperties } from 'n8n-workflow';

import { additionalFields, field, idField, showFor } from '../../shared/descriptions';
import { operationSelector } from '../../shared/operations';
import { instanceField, messageTextField } from '../../shared/messageFields';
import { sendOptions } from '../../shared/sendOptions';

const showForSend = showFor('liveChat', ['sendMessage']);

export const liveChatDescription: INodeProperties[] = [
	operationSelector(
		'liveChat',
		[
			{
				name: 'Create Session',
				value: 'createSession',
				action: 'Create a live chat session',
				description: 'Open a web live chat session; its ID is the recipient of Send Message',
				method: 'POST',
				url: '/v1/live-chat/session',
			},
			{
				name: 'Send Message',
				value: 'sendMessage',
				action: 'Send a live chat message',
				description: 'Send a text message in a live chat session',
				method: 'POST',
				url: '/v1/live-chat',
				// Text is the only type the service documents for live chat.
				body: { type: 'text' },
			},
		],
		'createSession',
	),
	instanceField('liveChat', ['createSession', 'sendMessage'], 'liveChatInstance'),
	additionalFields('sessionFields', showFor('liveChat', ['createSession']), [
		field({
			displayName: 'Contact Name',
			name: 'name',
			description: 'Name of the contact in the chat',
			sendTo: 'body.name',
		}),
	]),
	idField({
		displayName: 'Session ID',
		name: 'sessionId',
		displayOptions: showForSend,
		placeholder: 'ID from Live Chat > Create Session',
		description:
			'Identifier of the live chat session, as returned by Live Chat > Create Session; the message goes to it',
		sendTo: 'body.to',
	}),
	messageTextField({
		resource: 'liveChat',
		operation: 'sendMessage',
		name: 'liveChatMessage',
		sendTo: 'body.body',
	}),
	additionalFields('liveChatMessageFields', showForSend, [
		field({
			displayName: 'Sent by User',
			name: 'user',
			type: 'boolean',
			default: false,
			description:
				'Whether the message is shown as sent by the user (the visitor) rather than by the business',
			sendTo: 'body.user',
		}),
	]),
	sendOptions('liveChat'),
];
