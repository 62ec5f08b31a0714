import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../form/fields';
import { phoneField } from '../../form/messageFields';
import type { OperationSpec } from '../../form/operations';
import { unwrapValidation } from '../../service/envelope';

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
