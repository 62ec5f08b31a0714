import type { INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { choice, collection, field, optionsOf, valuesOf } from '../../form/fields';
import type { CustomSpec } from '../../form/operations';
import { channelFields, CHANNELS, questionField } from '../../sendAndWait/channels';
import { formFieldValues } from '../../sendAndWait/formFields';
import { sendAndWait, UNIT_MS } from '../../sendAndWait/run';

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
		displayOptions: { show: { responseType: ['customForm'] } },
		options: optionsOf([
			['Using Fields Below', 'fields', 'Add the fields one by one'],
			['Using JSON', 'json', "A JSON list of fields, as n8n's form nodes write them"],
		]),
		default: 'fields',
		description: 'Whether the form is built from the fields below or from a JSON list of fields',
	},
	{
		displayName: 'Form Fields',
		name: 'jsonOutput',
		type: 'json',
		typeOptions: { rows: 5 },
		default: JSON_EXAMPLE,
		displayOptions: { show: { responseType: ['customForm'], defineForm: ['json'] } },
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
			displayOptions: { show: { responseType: ['customForm'], defineForm: ['fields'] } },
			description: 'The fields of the form the recipient fills in; the answers come out by label',
		},
		formFieldValues,
	),
];

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

/** Parameter names are n8n's, so its generated human-review tool for AI agents works unchanged. */
export const sendAndWaitOperation: CustomSpec = {
	name: 'Send and Wait for Response',
	value: SEND_AND_WAIT_OPERATION,
	action: 'Send a message and wait for a response',
	builderHint: {
		propertyHint:
			'Use it instead of a Wait or Form node to ask a person, or each of a group (the first answer decides), by SMS, chatapp, socialnet or live chat: an approval, a typed answer or a form. It takes one input item (put Loop Over Items before it for several); the answer is in data (data.approved for an approval), who gave it in data.respondedBy.',
	},
	description:
		'Send a question with a link to a page where the recipient approves, declines, answers or fills in a form; the workflow waits for the answer (of a group: the first)',
	sends: 'custom',
	execute: sendAndWait,
	fields: [
		...channelFields(),
		questionField,
		choice({
			displayName: 'Response Type',
			name: 'responseType',
			noDataExpression: true,
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
				displayOptions: { show: { responseType: ['approval'] } },
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
			displayOptions: {
				show: {
					sendAndWaitChannel: Object.keys(CHANNELS).filter((name) => CHANNELS[name].shortensLink),
				},
			},
			description:
				"Whether the link to the answer page is shortened with the service's Short Link endpoint before it is sent, so the SMS stays short. The other channels always send the full link.",
		},
		collection('options', 'Options', {}, [...pageOptions, limitWaitTimeOption], {
			placeholder: 'Add option',
			description: 'The answer page, the words before the link, and how long the workflow waits',
		}),
	],
};
