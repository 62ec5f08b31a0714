import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { showFor } from '../shared/descriptions';

/** How Send and Wait reaches a person on one channel: through that channel's plain send. */
export interface SendAndWaitChannel {
	displayName: string;
	description: string;
	/** The plain send whose fields, checks and envelope reader carry the message. */
	resource: string;
	operation: string;
	/** Parameters of the plain send that are fixed for this use (e.g. a text message type). */
	parameters: IDataObject;
	/** The plain send's parameter that receives the question and the link. */
	textParameter: string;
	/** The plain send's instance and recipient fields, in form order, and their names under Send and Wait. */
	fields: Record<string, string>;
	/** Whether the form offers Shorten Link: SMS texts are short; the other channels send the full link. */
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
		parameters: {},
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
		parameters: {},
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
 * Each channel's instance and recipient fields under Send and Wait: the plain send's own fields
 * (label, placeholder, hint, required), shown for that channel and named apart. Their values go
 * to the plain send under its names (see `run.ts`), so its checks and routing apply unchanged.
 * Names apart because n8n fills a hidden Channel with its default when it decides what is shown,
 * so a plain send's field cannot be both hidden by Channel and shown without it.
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
			// Without the plain field's routing: Send and Wait sends through the plain send.
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
