import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { operation } from '../../shared/descriptions';
import { unwrapValidation } from '../../shared/envelope';
import { phoneField } from '../../shared/messageFields';

export const checkChatappNumberOperation: INodePropertyOptions = operation({
	name: 'Check Chatapp Number',
	value: 'checkChatappNumber',
	action: 'Check whether a number is on chatapp',
	description: 'Check whether a phone number has chatapp active and can receive messages',
	method: 'POST',
	url: '/v1/valid-chatapp',
	postReceive: [unwrapValidation],
});

export const checkChatappNumberFields: INodeProperties[] = [
	phoneField({
		resource: 'messaging',
		operations: ['checkChatappNumber'],
		displayName: 'Phone Number',
		name: 'number',
		sendTo: 'body.number',
	}),
];
