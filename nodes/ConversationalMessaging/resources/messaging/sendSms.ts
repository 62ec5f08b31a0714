import { freeText } from '../../checks/checks';
import { smsText } from '../../checks/sms';
import { collection } from '../../form/fields';
import { instanceField, messageTextField, phoneField } from '../../form/messageFields';
import type { BulkSpec } from '../../form/operations';
import { smsCostNotices } from './smsCostNotices';

/** The SMS text's check (SMS Options), Send SMS's and Send and Wait's by SMS alike. */
export const smsCheck = smsText('body.body', 'Message');

/** The business lines' Instance (SMS, chatapp number checks, CRM leads): one parameter for all. */
export const lineInstance = instanceField('instance');

export const sendSmsOperation: BulkSpec = {
	name: 'Send SMS',
	value: 'sendSms',
	action: 'Send an SMS',
	description: 'Send a text message by SMS to a phone number',
	builderHint: {
		propertyHint:
			'Give it all recipients as items, one per phone: the node paces itself to the service limit and never sends twice, so no Loop Over Items or Wait node is needed.',
	},
	method: 'POST',
	url: '/v1/sms',
	body: { type: 'text' },
	sends: 'inBulk',
	toAPerson: true,
	fields: [
		lineInstance,
		phoneField({
			displayName: 'Recipient Phone',
			name: 'to',
			sendTo: 'body.to',
		}),
		// One name with the socialnet text and Send and Wait's question (n8n's): switching keeps it.
		messageTextField({
			name: 'message',
			sendTo: 'body.body',
			description:
				'Text of the SMS. One segment holds 160 characters (153 each when longer), or 70 (67) when a character outside the GSM-7 alphabet makes it Unicode; each segment is usually billed.',
			checks: [freeText('body.body', 'Message'), smsCheck],
		}),
		...smsCostNotices,
		collection(
			'smsOptions',
			'SMS Options',
			{},
			[
				{
					displayName: 'Max Segments per Message',
					name: 'maxSegments',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 0 },
					default: 0,
					description:
						'Refuse, before anything is sent, a message that takes more than this many SMS segments (each is usually billed), naming its segments, its encoding and the characters that made it Unicode. 0 means no limit.',
				},
				{
					displayName: 'Replace Look-Alike Characters',
					name: 'replaceLookAlikes',
					type: 'boolean',
					default: false,
					description:
						'Whether to send look-alike characters pasted from documents in their GSM-7 forms, so the text stays GSM-7 (160 characters a segment instead of 70): curly quotes, apostrophes, guillemets, accents and backticks as \' or ", long dashes and the bullet as -, the ellipsis as ..., ÷ and the fraction slash as /, no-break and other special spaces and the tab as a space, line separators as a line break; invisible characters (zero-width spaces, soft hyphens) are removed, and accents typed apart are joined to their letters. It changes the text sent.',
				},
			],
			{ description: 'What an SMS may cost, and how its text is sent' },
		),
	],
};
