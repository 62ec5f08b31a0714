import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../form/fields';
import { messageTextField, phoneField } from '../../form/messageFields';
import type { OperationSpec } from '../../form/operations';

const show = showFor('messaging', ['sendSms']);

export const sendSmsOperation: OperationSpec = {
	name: 'Send SMS',
	value: 'sendSms',
	action: 'Send an SMS',
	description: 'Send a text message by SMS to a phone number',
	builderHint: {
		propertyHint:
			'Give it all recipients as items, one per phone: the node paces itself to the service limit and never sends twice, so no Loop Over Items or Wait node is needed.',
	},
	method: 'POST',
	url: '/v1/sms',
	body: { type: 'text' },
};

export const sendSmsFields: INodeProperties[] = [
	phoneField({
		displayName: 'Recipient Phone',
		name: 'to',
		displayOptions: show,
		sendTo: 'body.to',
	}),
	// One name with the socialnet text and Send and Wait's question (n8n's): switching keeps it.
	messageTextField({
		name: 'message',
		displayOptions: show,
		sendTo: 'body.body',
		description: 'Text of the SMS',
	}),
];
