import { field, idField } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';

export const legacyMessageGetOperation: OperationSpec = {
	name: 'Get',
	value: 'get',
	action: 'Get a legacy chatapp message',
	description: 'Retrieve a message sent through a QR-paired instance, by message ID',
	method: 'GET',
	url: '/v1/msg-wh/{messageId}',
	fields: [
		idField({
			displayName: 'Message ID',
			name: 'messageId',
			placeholder: 'ID from Legacy Chatapp Message > Send',
			description: 'Identifier of the message, as returned by Legacy Chatapp Message > Send',
		}),
		field({
			displayName: 'Instance',
			name: 'sentFromInstance',
			placeholder: 'Instance given to Send (optional)',
			description:
				'Identifier of the instance that sent the message: the Instance given to Legacy Chatapp Message > Send (optional)',
			sendTo: 'qs.instance',
		}),
	],
};
