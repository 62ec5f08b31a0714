import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Check } from '../checks/checks';
import type { Field } from '../form/fields';
import { messageTextField } from '../form/messageFields';
import type { BulkSpec } from '../form/operations';
import { allFields } from '../form/operations';
import { legacyMessageSendOperation } from '../resources/legacyMessage/send';
import { liveChatSendMessageOperation } from '../resources/liveChat/sendMessage';
import { sendSmsOperation, smsCheck } from '../resources/messaging/sendSms';
import { sendSocialnetOperation } from '../resources/messaging/sendSocialnet';

export interface Channel {
	displayName: string;
	description: string;
	/** The plain send the question goes through: its request, answer and fields. */
	send: BulkSpec;
	/** The Message Type of a text, where the plain send has a Message Type field. */
	body?: IDataObject;
	/** The plain send's instance and recipient fields, shown here under their own names. */
	instance: string;
	recipient: string;
	/** More of the plain send's fields shown here, and the checks of the question they rule. */
	alsoShown?: string[];
	checks?: Check[];
	shortensLink?: true;
}

/**
 * Send and Wait reaches a person through a channel's plain send: its request and answer, and its
 * instance and recipient fields with their checks, each shown for its channel only. They keep
 * their plain fields' names (`instance`, `to`, `socialnetInstance`, `recipientId`; a chatapp QR
 * instance is `legacyInstance`), so switching operation keeps what was typed, one of them shown at a time.
 */
export const CHANNELS: Record<string, Channel> = {
	chatapp: {
		displayName: 'Chatapp (Legacy QR Instance)',
		description: 'A chatapp message through a QR-paired instance',
		send: legacyMessageSendOperation,
		body: { type: 'chat' },
		instance: 'legacyInstance',
		recipient: 'recipient',
	},
	liveChat: {
		displayName: 'Live Chat',
		description: 'A message in a live chat session',
		send: liveChatSendMessageOperation,
		instance: 'liveChatInstance',
		recipient: 'sessionId',
	},
	sms: {
		displayName: 'SMS',
		description: 'A text message to a phone number',
		send: sendSmsOperation,
		instance: 'instance',
		recipient: 'to',
		// SMS Options rule the question (link included) as they rule Send SMS's text: its own check.
		alsoShown: ['smsOptions'],
		checks: [smsCheck],
		shortensLink: true,
	},
	socialnet: {
		displayName: 'Socialnet',
		description: 'A message on the socialnet messenger',
		send: sendSocialnetOperation,
		body: { type: 'text' },
		instance: 'socialnetInstance',
		recipient: 'recipientId',
	},
};

/** The plain send's own field of that name, with its place in the request and its checks. */
export function plainField({ send }: Channel, name: string): Field {
	const found = allFields(send.fields).find((candidate) => candidate.name === name);
	if (!found) throw new Error(`Send and Wait: ${send.value} has no "${name}"`);
	return found;
}

/** The recipient field as Send and Wait reads it: one recipient or several (./group.ts). */
const groupOf = ({ description = '', builderHint }: Field): Partial<Field> => ({
	description: `${description.replace(/\.?$/, '.')} ${GROUP}`,
	builderHint: {
		...builderHint,
		propertyHint: `${builderHint?.propertyHint ?? ''} ${GROUP}`.trim(),
	},
});
const GROUP =
	'To ask several people, separate them with commas or give a list (an expression such as {{ $json.phones }}): each gets the question with a link of their own, and the first answer decides.';

/** The fields of each channel, shown for it: the notice, Channel, then each channel's. */
export function channelFields(): Field[] {
	const channelField: INodeProperties = {
		displayName: 'Channel',
		// Not `channel`: Inject CRM Lead has a field of that name in the same resource.
		name: 'sendAndWaitChannel',
		type: 'options',
		noDataExpression: true,
		options: Object.entries(CHANNELS).map(([value, { displayName: name, description }]) => ({
			name,
			value,
			description,
		})),
		default: 'sms',
		description: 'Where the question goes',
	};
	const fields = Object.entries(CHANNELS).flatMap(([value, channel]) =>
		[channel.instance, channel.recipient, ...(channel.alsoShown ?? [])].map((name) => ({
			...plainField(channel, name),
			...(name === channel.recipient && groupOf(plainField(channel, name))),
			displayOptions: { show: { sendAndWaitChannel: [value] } },
		})),
	);
	const oneQuestionNotice: INodeProperties = {
		displayName:
			'Send and Wait asks one question per execution: it refuses more than one input item. To ask one question per item, put a Loop Over Items node (batch size 1) before it.',
		name: 'sendAndWaitNotice',
		type: 'notice',
		default: '',
		// Not in the AI tool variants (n8n's human review of a tool included): a tool call is one item.
		displayOptions: { hide: { '@tool': [true] } },
	};
	return [oneQuestionNotice, channelField, ...fields];
}

/** The question, where every channel's plain send takes its text: the link goes after it. */
export const questionField = messageTextField({
	name: 'message',
	sendTo: 'body.body',
	description: 'The question to ask. The link to the answer page is added after it.',
});
