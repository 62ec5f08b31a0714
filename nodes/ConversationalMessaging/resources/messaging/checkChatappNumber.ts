import type { INodeProperties } from 'n8n-workflow';

import type { OperationSpec } from '../../shared/operations';
import { unwrapValidation } from '../../shared/envelope';
import { phoneField } from '../../shared/messageFields';

export const checkChatappNumberOperation: OperationSpec = {
	name: 'Check Chatapp Number',
	value: 'checkChatappNumber',
	action: 'Check whether a number is on chatapp',
	description: 'Check whether a phone number has chatapp active and can receive messages',
	method: 'POST',
	url: '/v1/valid-chatapp',
	postReceive: [unwrapValidation],
};

export const checkChatappNumberField: INodeProperties = phoneField({
	resource: 'messaging',
	operations: ['checkChatappNumber'],
	displayName: 'Phone Number',
	name: 'number',
	sendTo: 'body.number',
});
