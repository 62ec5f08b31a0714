import type { INodeProperties } from 'n8n-workflow';

import { coordinate } from '../../checks/checks';
import { additionalFields, field } from '../../form/fields';
import {
	instanceField,
	messageBodyFields,
	messageTypeField,
	phoneField,
} from '../../form/messageFields';
import type { BulkSpec } from '../../form/operations';

/** Latitude or longitude of a location message, sent as text (lat, lng). */
function coordinateField(
	name: string,
	displayName: string,
	sendTo: string,
	limit: 90 | 180,
	example: number,
): INodeProperties {
	return field({
		displayName,
		name,
		type: 'number',
		required: true,
		typeOptions: { numberPrecision: 6, minValue: -limit, maxValue: limit },
		default: 0,
		displayOptions: { show: { messageType: ['location'] } },
		description: `${displayName} in decimal degrees, e.g. ${example}`,
		sendTo,
		checks: [coordinate(sendTo, displayName, limit)],
	});
}

export const legacyMessageSendOperation: BulkSpec = {
	name: 'Send',
	value: 'send',
	action: 'Send a legacy chatapp message',
	description:
		'Send a text, media, location or other chatapp message through a QR-paired instance (legacy)',
	method: 'POST',
	url: '/v1/msg-wh',
	sends: 'inBulk',
	toAPerson: true,
	fields: [
		messageTypeField(
			'messageType',
			[
				['Audio', 'audio', 'An audio file, by URL'],
				['Chat (Text)', 'chat', 'A text message'],
				['Document', 'document', 'A document file, by URL'],
				['GIF', 'gif', 'An animated GIF, by URL'],
				['Image', 'image', 'An image, by URL, with an optional caption'],
				['Location', 'location', 'A map location, by latitude and longitude'],
				['Sticker', 'sticker', 'A sticker'],
				['Video', 'video', 'A video, by URL, with an optional caption'],
			],
			'chat',
		),
		phoneField({
			displayName: 'Recipient Phone',
			name: 'recipient',
			sendTo: 'body.to',
		}),
		instanceField('legacyInstance'),
		...messageBodyFields('messageType', [
			{
				name: 'chatText',
				types: ['chat'],
				displayName: 'Message',
				description: 'Text of the message',
			},
			{
				name: 'fileUrl',
				types: ['audio', 'document', 'gif', 'image', 'video'],
				displayName: 'File URL',
				description: 'Public web address of the file to send',
				isFileUrl: true,
			},
			{
				name: 'sticker',
				types: ['sticker'],
				displayName: 'Sticker',
				description: 'The sticker to send, usually the web address of its file',
			},
			{
				name: 'locationText',
				types: ['location'],
				displayName: 'Location Text',
				description: 'Text sent with the location, such as a place name or address',
			},
		]),
		coordinateField('latitude', 'Latitude', 'body.lat', 90, 4.711),
		coordinateField('longitude', 'Longitude', 'body.lng', 180, -74.0721),
		// Only the types with an optional field get the collection: an empty one is a dead end.
		additionalFields(
			'legacyMessageFields',
			[
				field({
					displayName: 'Caption',
					name: 'caption',
					displayOptions: { show: { '/messageType': ['image', 'video'] } },
					description: 'Text shown with the image or video',
					sendTo: 'body.caption',
				}),
				field({
					displayName: 'File Name',
					name: 'filename',
					placeholder: 'invoice.pdf',
					displayOptions: { show: { '/messageType': ['document'] } },
					description: 'Name the recipient sees for the document',
					sendTo: 'body.filename',
				}),
			],
			{ show: { messageType: ['document', 'image', 'video'] } },
		),
	],
};
