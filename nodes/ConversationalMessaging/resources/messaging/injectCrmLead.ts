import { chatappId, onlyWith, textList } from '../../checks/checks';
import { additionalFields, field } from '../../form/fields';
import { messageTextField } from '../../form/messageFields';
import type { BulkSpec } from '../../form/operations';
import { lineInstance } from './sendSms';

export const injectCrmLeadOperation: BulkSpec = {
	name: 'Inject CRM Lead',
	value: 'injectCrmLead',
	action: 'Inject a lead into the CRM',
	description:
		'Create a CRM lead for a contact, with a first message, and route it to an area, agent or process',
	method: 'POST',
	url: '/v1/crm',
	preSend: [
		onlyWith(
			'body.agent',
			'Agent ID',
			'body.area',
			'Area',
			'The service accepts an agent only together with an area the agent belongs to.',
		),
	],
	sends: 'inBulk',
	fields: [
		lineInstance,
		field({
			displayName: 'Follow-Up Channel',
			name: 'channel',
			type: 'options',
			required: true,
			options: [
				{ name: 'Chatapp', value: 'chatapp', description: 'Agents answer the lead on chatapp' },
				{
					name: 'Socialnet Messenger',
					value: 'sn-messenger',
					description: 'Agents answer the lead on the socialnet messenger',
				},
			],
			default: 'chatapp',
			description: 'Channel on which agents follow the lead up',
			sendTo: 'body.channel',
		}),
		// Not shown by channel: the channel can be an expression, the rule holds for both.
		{
			displayName:
				"The service names a lead's contact by phone number on both channels: for a socialnet lead too, enter the contact's phone with its country code (e.g. +57 300 123 4567), not a socialnet recipient ID.",
			name: 'contactPhoneNotice',
			type: 'notice',
			default: '',
		},
		field({
			displayName: 'Contact Phone',
			name: 'contactPhone',
			required: true,
			placeholder: 'e.g. +57 300 123 4567',
			description:
				'Phone of the lead, with + and the country code, or as dialled in the Default Country. The service identifies the contact by this number on both channels (@c.us is added for you).',
			sendTo: 'body.to',
			checks: [chatappId('body.to', 'Contact Phone')],
		}),
		messageTextField({
			name: 'leadMessage',
			sendTo: 'body.text',
			description: 'Text of the lead, such as the message the contact left in a form',
		}),
		additionalFields('leadFields', [
			field({
				displayName: 'Agent ID',
				name: 'agent',
				placeholder: 'ID of an agent',
				description:
					'Agent to assign the lead to: the ID that Agent > Create or Agent > Get returns. Needs an Area the agent belongs to.',
				sendTo: 'body.agent',
			}),
			field({
				displayName: 'Area',
				name: 'area',
				placeholder: 'e.g. sales',
				description:
					'Code of the area or team that takes the lead, as set up in your account (the API cannot list areas)',
				sendTo: 'body.area',
			}),
			field({
				displayName: 'Process ID',
				name: 'process',
				placeholder: 'ID of a process in your account',
				description:
					'Process (pipeline) the lead enters, as set up in your account (the API cannot list processes)',
				sendTo: 'body.process',
			}),
			field({
				displayName: 'Tags',
				name: 'tags',
				placeholder: 'web-form, spring-promo',
				description: 'Tags for the lead, separated by commas (or an expression that gives a list)',
				sendTo: 'body.tags',
				checks: [textList('body.tags', 'Tags')],
			}),
		]),
	],
};
