import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import type { Check } from '../checks/checks';
import { smsText } from '../checks/sms';
import type { Field } from '../form/fields';
import { collection, field, showFor } from '../form/fields';
import { messageTextField } from '../form/messageFields';
import type { BulkSpec } from '../form/operations';
import { allFields } from '../form/operations';
import { legacyMessageSendOperation } from '../resources/legacyMessage/send';
import { liveChatSendMessageOperation } from '../resources/liveChat/sendMessage';
import { sendSmsOperation } from '../resources/messaging/sendSms';
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
		checks: [smsText('body.body', 'Message')],
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

const show = (extra: IDataObject = {}) => showFor('messaging', [SEND_AND_WAIT_OPERATION], extra);

/** An options parameter, its `choices` each [name, value, description]. */
function choice({ choices, ...spec }: Omit<INodeProperties, 'type'> & { choices: string[][] }) {
	const options = choices.map(([name, value, description]) => ({ name, value, description }));
	return { ...spec, type: 'options', options } satisfies INodeProperties;
}

/** n8n's fixedCollection of one group of fields, `values`, as its form and send-and-wait nodes have. */
const valuesOf = (spec: Omit<INodeProperties, 'type' | 'options'>, values: INodeProperties[]) =>
	field({
		...spec,
		type: 'fixedCollection',
		options: [{ displayName: 'Values', name: 'values', values }],
	});

/** The plain send's own field of that name, with its place in the request and its checks. */
export function plainField({ send }: Channel, name: string): Field {
	const found = allFields(send.fields).find((candidate) => candidate.name === name);
	if (!found) throw new Error(`Send and Wait: ${send.value} has no "${name}"`);
	return found;
}

/** The fields of each channel, shown for it: the notice, Channel, then each channel's. */
function channelFields(): Field[] {
	const channelField: INodeProperties = {
		displayName: 'Channel',
		// Not `channel`: Inject CRM Lead has a field of that name in the same resource.
		name: 'sendAndWaitChannel',
		type: 'options',
		noDataExpression: true,
		displayOptions: show(),
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
			displayOptions: show({ sendAndWaitChannel: [value] }),
		})),
	);
	const oneQuestionNotice: INodeProperties = {
		displayName:
			'Send and Wait asks one question per execution: it refuses more than one input item. To ask one question per item, put a Loop Over Items node (batch size 1) before it.',
		name: 'sendAndWaitNotice',
		type: 'notice',
		default: '',
		// Not in the AI tool variants (n8n's human review of a tool included): a tool call is one item.
		displayOptions: { ...show(), hide: { '@tool': [true] } },
	};
	return [oneQuestionNotice, channelField, ...fields];
}

/** n8n's form field types (n8n-nodes-base Form), under n8n's values. */
export const FORM_FIELD_TYPES = {
	checkbox: ['Checkboxes', 'Several choices; the answer is the list ticked'],
	date: ['Date', 'A date picked from a calendar'],
	dropdown: ['Dropdown List', 'One choice from a list'],
	email: ['Email', 'An email address, checked by the page'],
	file: ['File', 'A file upload; the file comes out as binary'],
	hiddenField: [
		'Hidden Field',
		'A value the node adds to the answer; the recipient does not see it',
	],
	html: ['Custom HTML', 'Text between the fields, shown without its tags'],
	number: ['Number', 'A number; the answer is a number'],
	password: ['Password', 'Text hidden as it is typed'],
	radio: ['Radio Buttons', 'One choice, all shown at once'],
	text: ['Text', 'One line of text'],
	textarea: ['Textarea', 'Several lines of text'],
} as const;

export type FormFieldType = keyof typeof FORM_FIELD_TYPES;

/** The types whose answer is one of, or some of, the field's options. */
export const CHOICE_TYPES: FormFieldType[] = ['checkbox', 'dropdown', 'radio'];

const forTypes = (...types: FormFieldType[]) => ({ show: { fieldType: types } });

/** One field of Custom Form, with n8n's parameter names (its JSON takes the same keys). */
const formFieldValues: INodeProperties[] = [
	field({
		displayName: 'Accepted File Types',
		name: 'acceptFileTypes',
		placeholder: 'e.g. .jpg, .png',
		description: 'File extensions the picker offers, separated by commas; empty for any',
		displayOptions: forTypes('file'),
	}),
	{
		displayName: 'Element Type',
		name: 'fieldType',
		type: 'options',
		default: 'text',
		description: 'The kind of field',
		options: Object.entries(FORM_FIELD_TYPES)
			.map(([value, [name, description]]) => ({ name, value, description }))
			.sort((a, b) => a.name.localeCompare(b.name)),
	},
	field({
		displayName: 'Field Label',
		name: 'fieldLabel',
		placeholder: 'e.g. Delivery address',
		required: true,
		description: 'Label shown above the field, and the name of its answer in the output',
		displayOptions: { hide: { fieldType: ['hiddenField', 'html'] } },
	}),
	field({
		displayName: 'Field Name',
		name: 'fieldName',
		required: true,
		description: 'Name of the hidden value in the output',
		displayOptions: forTypes('hiddenField'),
	}),
	valuesOf(
		{
			displayName: 'Field Options',
			name: 'fieldOptions',
			placeholder: 'Add Field Option',
			typeOptions: { multipleValues: true, sortable: true },
			default: { values: [{ option: '' }] },
			required: true,
			description: 'The choices the recipient picks from',
			displayOptions: forTypes(...CHOICE_TYPES),
		},
		[
			field({
				displayName: 'Option',
				name: 'option',
				required: true,
				description: 'One choice the recipient can pick',
			}),
		],
	),
	field({
		displayName: 'Field Value',
		name: 'fieldValue',
		description: 'The value the output carries (the page cannot change it)',
		displayOptions: forTypes('hiddenField'),
	}),
	field({
		displayName: 'HTML',
		name: 'html',
		typeOptions: { rows: 3 },
		required: true,
		description:
			'Text shown on the form between fields; shown as text, its tags taken out (no script can run on the page)',
		displayOptions: forTypes('html'),
	}),
	{
		displayName: 'Multiple Files',
		name: 'multipleFiles',
		type: 'boolean',
		default: true,
		description: 'Whether the recipient may upload several files',
		displayOptions: forTypes('file'),
	},
	field({
		displayName: 'Placeholder',
		name: 'placeholder',
		description: 'Sample text shown in the empty field',
		displayOptions: forTypes('date', 'email', 'number', 'password', 'text', 'textarea'),
	}),
	{
		displayName: 'Required Field',
		name: 'requiredField',
		type: 'boolean',
		default: false,
		description:
			'Whether the form is refused without this field, on the page and again by the node',
		displayOptions: { hide: { fieldType: ['hiddenField', 'html'] } },
	},
];

/** The keys a field of the form may have, in the form and in its JSON. */
export const FORM_FIELD_KEYS = formFieldValues.map(({ name }) => name);

const JSON_EXAMPLE = JSON.stringify(
	[
		{ fieldLabel: 'Delivery address', fieldType: 'textarea', requiredField: true },
		{
			fieldLabel: 'Time slot',
			fieldType: 'dropdown',
			fieldOptions: { values: [{ option: 'Morning' }, { option: 'Afternoon' }] },
			requiredField: true,
		},
		{ fieldLabel: 'Rating', fieldType: 'number' },
	],
	null,
	2,
);

/** Custom Form's fields, with n8n's parameter names (defineForm, formFields.values, jsonOutput). */
const customFormFields: INodeProperties[] = [
	{
		displayName: 'Define Form',
		name: 'defineForm',
		type: 'options',
		noDataExpression: true,
		displayOptions: show({ responseType: ['customForm'] }),
		options: [
			{ name: 'Using Fields Below', value: 'fields', description: 'Add the fields one by one' },
			{
				name: 'Using JSON',
				value: 'json',
				description: "A JSON list of fields, as n8n's form nodes write them",
			},
		],
		default: 'fields',
		description: 'Whether the form is built from the fields below or from a JSON list of fields',
	},
	{
		displayName: 'Form Fields',
		name: 'jsonOutput',
		type: 'json',
		typeOptions: { rows: 5 },
		default: JSON_EXAMPLE,
		displayOptions: show({ responseType: ['customForm'], defineForm: ['json'] }),
		description:
			'A JSON list of fields as n8n\'s form nodes write them: fieldLabel, fieldType (text, textarea, number, email, password, date, dropdown, checkbox, radio, hiddenField, html, file), requiredField, placeholder, fieldOptions ({"values": [{"option": "..."}]}); hiddenField takes fieldName and fieldValue, html takes html',
	},
	valuesOf(
		{
			displayName: 'Form Fields',
			name: 'formFields',
			placeholder: 'Add Form Field',
			typeOptions: { multipleValues: true, sortable: true },
			default: { values: [{ fieldLabel: '', fieldType: 'text', requiredField: true }] },
			displayOptions: show({ responseType: ['customForm'], defineForm: ['fields'] }),
			description: 'The fields of the form the recipient fills in; the answers come out by label',
		},
		formFieldValues,
	),
];

/** Limit Wait Time's units, as n8n names them (in its order: by name), in milliseconds. */
export const UNIT_MS: Record<string, number> = {
	days: 86_400_000,
	hours: 3_600_000,
	minutes: 60_000,
	seconds: 1000,
};

/** n8n's names and values, as in its own send-and-wait nodes. */
const limitWaitTimeOption = valuesOf(
	{
		displayName: 'Limit Wait Time',
		name: 'limitWaitTime',
		description:
			'Whether the workflow goes on by itself, without an answer, after some time or at a date and time. The output is then the input item with data.timedOut true (data.approved false for Approval) and question.',
		// The sub-fields' own defaults, so the form shows what the node will do.
		default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
	},
	[
		choice({
			displayName: 'Limit Type',
			name: 'limitType',
			default: 'afterTimeInterval',
			description: 'Whether the limit is a time to wait or a date and time',
			choices: [
				['After Time Interval', 'afterTimeInterval', 'Waits for a certain amount of time'],
				['At Specified Time', 'atSpecifiedTime', 'Waits until a date and time'],
			],
		}),
		{
			displayName: 'Amount',
			name: 'resumeAmount',
			type: 'number',
			displayOptions: { show: { limitType: ['afterTimeInterval'] } },
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 1,
			description: 'The time to wait',
		},
		{
			displayName: 'Unit',
			name: 'resumeUnit',
			type: 'options',
			displayOptions: { show: { limitType: ['afterTimeInterval'] } },
			options: Object.keys(UNIT_MS).map((unit) => ({
				name: unit[0].toUpperCase() + unit.slice(1),
				value: unit,
				description: `The amount is in ${unit}`,
			})),
			default: 'hours',
			description: 'Unit of the amount',
		},
		{
			displayName: 'Max Date and Time',
			name: 'maxDateAndTime',
			type: 'dateTime',
			displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
			default: '',
			description: 'When the workflow goes on without an answer',
		},
	],
);

/** n8n's names for the message's link and the answer page (n8n's form page: ./page.ts). */
const pageOptions: INodeProperties[] = [
	{
		displayName: 'Append Attribution',
		name: 'appendAttribution',
		type: 'boolean',
		default: true,
		description: 'Whether the answer page ends with "Form automated with n8n"',
	},
	field({
		displayName: 'Message Button Label',
		name: 'messageButtonLabel',
		default: 'Answer here',
		description: 'The words before the link in the message, e.g. "Answer here: https://…"',
	}),
	field({
		displayName: 'Response Form Button Label',
		name: 'responseFormButtonLabel',
		default: 'Submit',
		description:
			"Text of the answer page's submit button. Not used by Approval: its buttons show the Approve and Decline Button Labels.",
	}),
	field({
		displayName: 'Response Form Custom Styling',
		name: 'responseFormCustomCss',
		typeOptions: { rows: 10, editor: 'cssEditor' },
		description:
			"CSS added to the answer page, e.g. :root { --color-submit-btn-bg: #1f6feb; } (n8n's form variables)",
	}),
	field({
		displayName: 'Response Form Description',
		name: 'responseFormDescription',
		description: 'Text under the title of the answer page; the question when empty',
	}),
	field({
		displayName: 'Response Form Title',
		name: 'responseFormTitle',
		description: 'Title of the answer page',
	}),
];

/** The question, where every channel's plain send takes its text: the link goes after it. */
export const questionField = messageTextField({
	name: 'message',
	displayOptions: show(),
	sendTo: 'body.body',
	description: 'The question to ask. The link to the answer page is added after it.',
});

/** The channels' fields, the question and the answer page. */
export const sendAndWaitFields: Field[] = [
	...channelFields(),
	questionField,
	choice({
		displayName: 'Response Type',
		name: 'responseType',
		noDataExpression: true,
		displayOptions: show(),
		choices: [
			['Approval', 'approval', 'The recipient taps Approve, or Approve or Decline, on the page'],
			['Custom Form', 'customForm', 'The recipient fills in a form of the fields you define'],
			['Free Text', 'freeText', 'The recipient types an answer'],
		],
		default: 'approval',
		description: 'How the recipient answers on the page the link opens',
	}),
	...customFormFields,
	valuesOf(
		{
			displayName: 'Approval Options',
			name: 'approvalOptions',
			placeholder: 'Add option',
			default: {},
			displayOptions: show({ responseType: ['approval'] }),
			description:
				'Whether the recipient can only approve or also decline, and what each is called on the page',
		},
		[
			choice({
				displayName: 'Type of Approval',
				name: 'approvalType',
				default: 'single',
				description:
					'Whether the recipient can also decline: the page then shows two buttons, and one tap on either answers',
				choices: [
					['Approve Only', 'single', 'One button: the answer is always an approval'],
					['Approve and Decline', 'double', 'Two buttons: the one tapped is the answer'],
				],
			}),
			field({
				displayName: 'Approve Button Label',
				name: 'approveLabel',
				default: 'Approve',
				description: 'The text of the button that approves',
			}),
			field({
				displayName: 'Decline Button Label',
				name: 'disapproveLabel',
				default: 'Decline',
				description: 'The text of the button that declines',
				displayOptions: { show: { approvalType: ['double'] } },
			}),
		],
	),
	{
		displayName: 'Shorten Link',
		name: 'shortenLink',
		type: 'boolean',
		noDataExpression: true,
		default: true,
		displayOptions: show({
			sendAndWaitChannel: Object.keys(CHANNELS).filter((name) => CHANNELS[name].shortensLink),
		}),
		description:
			"Whether the link to the answer page is shortened with the service's Short Link endpoint before it is sent, so the SMS stays short. The other channels always send the full link.",
	},
	collection('options', 'Options', show(), [...pageOptions, limitWaitTimeOption], {
		placeholder: 'Add option',
		description: 'The answer page, the words before the link, and how long the workflow waits',
	}),
];
