import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { operation, showFor } from '../../shared/descriptions';
import { messageTextField, phoneField } from '../../shared/messages';
import { alsoForChannel } from '../../shared/sendAndWait/channels';

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
	alsoForChannel(phoneField({ resource: 'messaging', operations: ['sendSms'], displayName: 'Recipient Phone', name: 'to', sendTo: 'body.to' }), 'sms'),
	// Send and Wait's question too, on every channel (n8n's name for it: `message`).
	{
		...messageTextField({ resource: 'messaging', operation: 'sendSms', name: 'message', sendTo: 'body.body', description: 'Text of the SMS, or the question of Send and Wait (the link to answer is added after it)' }),
		displayOptions: showFor('messaging', ['sendSms', 'sendAndWait']),
	},
];
