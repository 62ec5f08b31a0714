import type { INodeProperties } from 'n8n-workflow';

import { additionalFields, field, idField, showFor } from '../../shared/descriptions';
import { operationSelector } from '../../shared/operations';
import { unwrapValidation } from '../../shared/envelope';
import {
	instanceField,
	messageBodyFields,
	messageTextField,
	messageTypeField,
	phoneField,
} from '../../shared/messageFields';
import { sendOptions } from '../../shared/sendOptions';
import { channelFields } from '../../sendAndWait/channels';
import { legacyMessageDescription } from '../legacyMessage';
import { liveChatDescription } from '../liveChat';
import { injectCrmLeadFields, injectCrmLeadOperation } from './injectCrmLead';
import {
	channelField,
	oneQuestionNotice,
	sendAndWaitFields,
	sendAndWaitOperation,
} from './sendAndWait';

const showForSocialnet = showFor('messaging', ['sendSocialnet']);
const SOCIALNET_MEDIA_TYPES = ['audio', 'file', 'image', 'video'];

// One Instance for every operation: the value stays when the operation changes.
const instance = instanceField(
	'messaging',
	['checkChatappNumber', 'injectCrmLead', 'sendSms', 'sendSocialnet'],
	'instance',
);

const sendSmsFields: INodeProperties[] = [
	phoneField({
		resource: 'messaging',
		operations: ['sendSms'],
		displayName: 'Recipient Phone',
		name: 'to',
		sendTo: 'body.to',
	}),
];

const sendSocialnetFields: INodeProperties[] = [
	messageTypeField(
		'socialnetType',
		showForSocialnet,
		[
			{ name: 'Audio', value: 'audio', description: 'An audio file, by URL' },
			{ name: 'File', value: 'file', description: 'Any file, by URL' },
			{ name: 'Image', value: 'image', description: 'An image, by URL' },
			{ name: 'Text', value: 'text', description: 'A text message' },
			{ name: 'Video', value: 'video', description: 'A video, by URL' },
		],
		'text',
	),
	idField({
		displayName: 'Recipient ID',
		name: 'recipientId',
		displayOptions: showForSocialnet,
		placeholder: 'Page-scoped ID of the recipient',
		description:
			'Page-scoped identifier of the recipient on the socialnet messenger: the ID the messenger gives a person who wrote to your page (not a phone number)',
		sendTo: 'body.to',
	}),
	...messageBodyFields('messaging', 'sendSocialnet', 'socialnetType', [
		{
			name: 'socialnetText',
			types: ['text'],
			displayName: 'Message',
			description: 'Text of the message',
		},
		{
			name: 'socialnetFileUrl',
			types: SOCIALNET_MEDIA_TYPES,
			displayName: 'File URL',
			description: 'Public web address of the file to send',
			isFileUrl: true,
		},
	]),
	// Text has no optional field: no empty collection for it.
	additionalFields(
		'socialnetFields',
		showFor('messaging', ['sendSocialnet'], { socialnetType: SOCIALNET_MEDIA_TYPES }),
		[
			field({
				displayName: 'Caption',
				name: 'caption',
				description: 'Text shown with the file',
				sendTo: 'body.caption',
			}),
		],
	),
];

export const messagingDescription: INodeProperties[] = [
	operationSelector(
		'messaging',
		[
			{
				name: 'Check Chatapp Number',
				value: 'checkChatappNumber',
				action: 'Check whether a number is on chatapp',
				description: 'Check whether a phone number has chatapp active and can receive messages',
				method: 'POST',
				url: '/v1/valid-chatapp',
				postReceive: [unwrapValidation],
			},
			injectCrmLeadOperation,
			sendAndWaitOperation,
			{
				name: 'Send SMS',
				value: 'sendSms',
				action: 'Send an SMS',
				description: 'Send a text message by SMS to a phone number',
				method: 'POST',
				url: '/v1/sms',
				body: { type: 'text' },
			},
			{
				name: 'Send Socialnet Message',
				value: 'sendSocialnet',
				action: 'Send a socialnet message',
				description:
					'Send a text or media message on the socialnet messenger to a page-scoped recipient',
				method: 'POST',
				url: '/v1/socialnet/send-chat',
			},
		],
		'sendSms',
	),
	instance,
	oneQuestionNotice,
	channelField,
	...channelFields([
		instance,
		...sendSmsFields,
		...sendSocialnetFields,
		...legacyMessageDescription,
		...liveChatDescription,
	]),
	...sendSmsFields,
	// The SMS text. Send and Wait's question shares its name (`message`, n8n's name for it), not its meaning.
	messageTextField({
		resource: 'messaging',
		operation: 'sendSms',
		name: 'message',
		sendTo: 'body.body',
		description: 'Text of the SMS',
	}),
	...sendSocialnetFields,
	...injectCrmLeadFields,
	phoneField({
		resource: 'messaging',
		operations: ['checkChatappNumber'],
		displayName: 'Phone Number',
		name: 'number',
		sendTo: 'body.number',
	}),
	...sendAndWaitFields,
	sendOptions('messaging'),
];
