import { additionalFields, field, idField } from '../../form/fields';
import { instanceField, messageBodyFields, messageTypeField } from '../../form/messageFields';
import type { BulkSpec } from '../../form/operations';

const MEDIA_TYPES = ['audio', 'file', 'image', 'video'];

export const sendSocialnetOperation: BulkSpec = {
	name: 'Send Socialnet Message',
	value: 'sendSocialnet',
	action: 'Send a socialnet message',
	description: 'Send a text or media message on the socialnet messenger to a page-scoped recipient',
	method: 'POST',
	url: '/v1/socialnet/send-chat',
	sends: 'inBulk',
	toAPerson: true,
	fields: [
		// The page's line: an SMS line's id is never carried into it when the operation changes.
		instanceField('socialnetInstance'),
		messageTypeField(
			'socialnetType',
			[
				['Audio', 'audio', 'An audio file, by URL'],
				['File', 'file', 'Any file, by URL'],
				['Image', 'image', 'An image, by URL'],
				['Text', 'text', 'A text message'],
				['Video', 'video', 'A video, by URL'],
			],
			'text',
		),
		idField({
			displayName: 'Recipient ID',
			name: 'recipientId',
			placeholder: 'Page-scoped ID of the recipient',
			description:
				'Page-scoped identifier of the recipient on the socialnet messenger: the ID the messenger gives a person who wrote to your page (not a phone number)',
			builderHint: {
				propertyHint:
					'The ID the socialnet messenger gives a person who wrote to the page, usually mapped from the incoming message that started the workflow; never a phone number.',
			},
			sendTo: 'body.to',
		}),
		...messageBodyFields('socialnetType', [
			{
				name: 'message',
				types: ['text'],
				displayName: 'Message',
				description: 'Text of the message',
			},
			{
				name: 'socialnetFileUrl',
				types: MEDIA_TYPES,
				displayName: 'File URL',
				description: 'Public web address of the file to send',
				isFileUrl: true,
			},
		]),
		// Text has no optional field: no empty collection for it.
		additionalFields(
			'socialnetFields',
			[
				field({
					displayName: 'Caption',
					name: 'caption',
					description: 'Text shown with the file',
					sendTo: 'body.caption',
				}),
			],
			{ show: { socialnetType: MEDIA_TYPES } },
		),
	],
};
