import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { field, idField, operation, showFor } from '../../shared/descriptions';

const show = showFor('legacyMessage', ['get']);

export const legacyMessageGetOperation: INodePropertyOptions = operation({
	name: 'Get',
	value: 'get',
	action: 'Get a legacy chatapp message',
	description: 'Retrieve a message sent through a QR-paired instance, by message ID',
	method: 'GET',
	url: '=/v1/msg-wh/{{encodeURIComponent($parameter.messageId)}}',
});

export const legacyMessageGetFields: INodeProperties[] = [
	idField({
		displayName: 'Message ID',
		name: 'messageId',
		displayOptions: show,
		description: 'Identifier of the message, as returned by Send',
	}),
	field({
		displayName: 'Instance',
		name: 'sentFromInstance',
		displayOptions: show,
		description: 'Identifier of the instance that sent the message (optional)',
		sendTo: 'qs.instance',
	}),
];
