import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../shared/descriptions';
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
	displayName: 'Phone Number',
	name: 'number',
	displayOptions: showFor('messaging', ['checkChatappNumber']),
	sendTo: 'body.number',
});
