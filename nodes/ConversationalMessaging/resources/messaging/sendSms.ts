import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { operation, showFor } from '../../shared/descriptions';
import { messageTextField, phoneField } from '../../shared/messages';

export const sendSmsOperation: INodePropertyOptions = operation({
	name: 'Send SMS',
	value: 'sendSms',
	action: 'Send an SMS',
	description: 'Send a text message by SMS to a phone number',
	method: 'POST',
	url: '/v1/sms',
	body: { type: 'text' },
});

export const sendSmsFields: INodeProperties[] = [
	phoneField({ resource: 'messaging', operations: ['sendSms'], displayName: 'Recipient Phone', name: 'to', sendTo: 'body.to' }),
];

/**
 * The SMS text, and Send and Wait's question on every channel (n8n's name for it is `message`):
 * one field, so RoutingNode evaluates one `message` per item.
 */
export const messageField: INodeProperties = {
	...messageTextField({
		resource: 'messaging',
		operation: 'sendSms',
		name: 'message',
		sendTo: 'body.body',
		description: 'Text of the SMS; for Send and Wait, the question (the link to the answer page is added after it)',
	}),
	displayOptions: showFor('messaging', ['sendSms', 'sendAndWait']),
};
