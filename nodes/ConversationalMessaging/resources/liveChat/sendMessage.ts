import { additionalFields, field, idField } from '../../form/fields';
import { messageTextField } from '../../form/messageFields';
import type { BulkSpec } from '../../form/operations';
import { liveChatInstance } from './createSession';

export const liveChatSendMessageOperation: BulkSpec = {
	name: 'Send Message',
	value: 'sendMessage',
	action: 'Send a live chat message',
	description: 'Send a text message in a live chat session',
	method: 'POST',
	url: '/v1/live-chat',
	// Text is the only type the service documents for live chat.
	body: { type: 'text' },
	sends: 'inBulk',
	fields: [
		liveChatInstance,
		idField({
			displayName: 'Session ID',
			name: 'sessionId',
			placeholder: 'ID from Live Chat > Create Session',
			description:
				'Identifier of the live chat session, as returned by Live Chat > Create Session; the message goes to it',
			sendTo: 'body.to',
		}),
		messageTextField({
			name: 'liveChatMessage',
			sendTo: 'body.body',
		}),
		additionalFields('liveChatMessageFields', [
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
	],
};
