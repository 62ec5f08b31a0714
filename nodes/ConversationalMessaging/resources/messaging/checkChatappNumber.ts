import { phoneField } from '../../form/messageFields';
import type { BulkSpec } from '../../form/operations';
import { validationRecords } from '../../service/envelope';
import { lineInstance } from './sendSms';

export const checkChatappNumberOperation: BulkSpec = {
	name: 'Check Chatapp Number',
	value: 'checkChatappNumber',
	action: 'Check whether a number is on chatapp',
	description: 'Check whether a phone number has chatapp active and can receive messages',
	method: 'POST',
	url: '/v1/valid-chatapp',
	records: validationRecords,
	sends: 'inBulk',
	fields: [
		lineInstance,
		phoneField({
			displayName: 'Phone Number',
			name: 'number',
			sendTo: 'body.number',
		}),
	],
};
