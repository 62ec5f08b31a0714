import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { showFor } from '../shared/descriptions';

/** Send and Wait reaches a person through a channel's plain send, its fields, checks and reader. */
export interface SendAndWaitChannel {
	displayName: string;
	description: string;
	resource: string;
	operation: string;
	/** Fixed for this use, if any (e.g. a text message type). */
	parameters?: IDataObject;
	textParameter: string;
	/** The plain send's instance and recipient fields, in form order, to their names here. */
	fields: Record<string, string>;
	offersShortLink: boolean;
}

export const SEND_AND_WAIT_CHANNELS = {
	chatapp: {
		displayName: 'Chatapp (Legacy QR Instance)',
		description: 'A chatapp message through a QR-paired instance',
		resource: 'legacyMessage',
		operation: 'send',
		parameters: { messageType: 'chat' },
		textParameter: 'chatText',
		fields: {
			legacyInstance: 'sendAndWaitChatappInstance',
			recipient: 'sendAndWaitChatappRecipient',
		},
		offersShortLink: false,
	},
	liveChat: {
		displayName: 'Live Chat',
		description: 'A message in a live chat session',
		resource: 'liveChat',
		operation: 'sendMessage',
		textParameter: 'liveChatMessage',
		fields: {
			liveChatInstance: 'sendAndWaitLiveChatInstance',
			sessionId: 'sendAndWaitLiveChatSession',
		},
		offersShortLink: false,
	},
	sms: {
		displayName: 'SMS',
		description: 'A text message to a phone number',
		resource: 'messaging',
		operation: 'sendSms',
		textParameter: 'message',
		fields: { instance: 'sendAndWaitSmsInstance', to: 'sendAndWaitSmsRecipient' },
		offersShortLink: true,
	},
	socialnet: {
		displayName: 'Socialnet',
		description: 'A message on the socialnet messenger',
		resource: 'messaging',
		operation: 'sendSocialnet',
		parameters: { socialnetType: 'text' },
		textParameter: 'socialnetText',
		fields: {
			instance: 'sendAndWaitSocialnetInstance',
			recipientId: 'sendAndWaitSocialnetRecipient',
		},
		offersShortLink: false,
	},
} satisfies Record<string, SendAndWaitChannel>;

export type ChannelName = keyof typeof SEND_AND_WAIT_CHANNELS;
export const CHANNEL_NAMES = Object.keys(SEND_AND_WAIT_CHANNELS) as ChannelName[];

/**
 * The plain sends' own instance and recipient fields, shown per channel under names apart: n8n
 * fills a hidden Channel with its default when it decides what is shown, so one field could not
 * be both hidden by Channel and shown without it. run.ts sends their values under the plain names.
 */
export function channelFields(plainFields: INodeProperties[]): INodeProperties[] {
	return CHANNEL_NAMES.flatMap((channelName) => {
		const { resource, operation, fields }: SendAndWaitChannel = SEND_AND_WAIT_CHANNELS[channelName];
		const shows = (property: INodeProperties, key: string, value: string) =>
			(property.displayOptions?.show?.[key] as string[] | undefined)?.includes(value);
		return Object.entries(fields).map(([plainName, name]) => {
			const plain = plainFields.find(
				(property) =>
					property.name === plainName &&
					shows(property, 'resource', resource) &&
					shows(property, 'operation', operation),
			);
			if (!plain)
				throw new Error(`Send and Wait: ${resource}.${operation} has no field "${plainName}"`);
			const derived: INodeProperties = {
				...plain,
				name,
				displayOptions: showFor('messaging', [SEND_AND_WAIT_OPERATION], {
					sendAndWaitChannel: [channelName],
				}),
			};
			delete derived.routing;
			return derived;
		});
	});
}
