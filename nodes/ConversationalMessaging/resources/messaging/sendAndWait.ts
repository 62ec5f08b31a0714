import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { collection, field, showFor } from '../../shared/descriptions';
import { messageTextField } from '../../shared/messageFields';
import { CHANNEL_NAMES, SEND_AND_WAIT_CHANNELS } from '../../sendAndWait/channels';
import { customFormFields } from '../../sendAndWait/customForm';
import { limitWaitTimeOption } from '../../sendAndWait/waitTill';

/** Parameter names are n8n's, so its generated human-review tool for AI agents works unchanged. */
export const sendAndWaitOperation: INodePropertyOptions = {
	name: 'Send and Wait for Response',
	value: SEND_AND_WAIT_OPERATION,
	action: 'Send a message and wait for a response',
	builderHint: {
		propertyHint:
			'Use it instead of a Wait or Form node to ask a person by SMS, chatapp, socialnet or live chat: an approval, a typed answer or a form. It takes one input item (put Loop Over Items before it for several); the answer is in data (data.approved for an approval).',
	},
	description:
		'Send a question with a link to a page where the recipient approves, declines, answers or fills in a form; the workflow waits for the answer',
};

const show = showFor('messaging', [SEND_AND_WAIT_OPERATION]);

/** Right after Operation: it decides which recipient and instance fields are shown. */
export const channelField: INodeProperties = {
	displayName: 'Channel',
	// Not `channel`: Inject CRM Lead has a field of that name in the same resource.
	name: 'sendAndWaitChannel',
	type: 'options',
	noDataExpression: true,
	displayOptions: show,
	options: Object.entries(SEND_AND_WAIT_CHANNELS).map(
		([value, { displayName: name, description }]) => ({ name, value, description }),
	),
	default: 'sms',
	description: 'Where the question goes',
};

export const oneQuestionNotice: INodeProperties = {
	displayName:
		'Send and Wait asks one question per execution: it refuses more than one input item. To ask one question per item, put a Loop Over Items node (batch size 1) before it.',
	name: 'sendAndWaitNotice',
	type: 'notice',
	default: '',
	// Not in the AI tool variants (n8n's human review of a tool included): a tool call is one item.
	displayOptions: { ...show, hide: { '@tool': [true] } },
};

/** n8n's names for the message's link and the answer page (n8n's form page: ../../sendAndWait/page.ts). */
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
			"Text of the answer page's submit button (with Approve Only, the button is the Approve Button Label)",
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

export const sendAndWaitFields: INodeProperties[] = [
	messageTextField({
		name: 'message',
		displayOptions: show,
		description: 'The question to ask. The link to the answer page is added after it.',
	}),
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		noDataExpression: true,
		displayOptions: show,
		options: [
			{
				name: 'Approval',
				value: 'approval',
				description: 'The recipient approves, or approves or declines, on the page',
			},
			{
				name: 'Custom Form',
				value: 'customForm',
				description: 'The recipient fills in a form of the fields you define',
			},
			{ name: 'Free Text', value: 'freeText', description: 'The recipient types an answer' },
		],
		default: 'approval',
		description: 'How the recipient answers on the page the link opens',
	},
	...customFormFields,
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: showFor('messaging', [SEND_AND_WAIT_OPERATION], { responseType: ['approval'] }),
		description:
			'Whether the recipient can only approve or also decline, and what each is called on the page',
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'single',
						description:
							'Whether the recipient can also decline: the page then offers the two labels to choose from, and a Submit button',
						options: [
							{
								name: 'Approve Only',
								value: 'single',
								description: 'One button: the answer is always an approval',
							},
							{
								name: 'Approve and Decline',
								value: 'double',
								description: 'The recipient picks one of the two labels',
							},
						],
					},
					field({
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						default: 'Approve',
						description:
							'What approving is called: the button with Approve Only, the first choice with Approve and Decline',
					}),
					field({
						displayName: 'Decline Button Label',
						name: 'disapproveLabel',
						default: 'Decline',
						description: 'What declining is called: the second choice on the page',
						displayOptions: { show: { approvalType: ['double'] } },
					}),
				],
			},
		],
	},
	{
		displayName: 'Shorten Link',
		name: 'shortenLink',
		type: 'boolean',
		noDataExpression: true,
		default: true,
		displayOptions: showFor('messaging', [SEND_AND_WAIT_OPERATION], {
			sendAndWaitChannel: CHANNEL_NAMES.filter(
				(name) => SEND_AND_WAIT_CHANNELS[name].offersShortLink,
			),
		}),
		description:
			"Whether the link to the answer page is shortened with the service's Short Link endpoint before it is sent, so the SMS stays short. The other channels always send the full link.",
	},
	collection('options', 'Options', show, [...pageOptions, limitWaitTimeOption], {
		placeholder: 'Add option',
		description: 'The answer page, the words before the link, and how long the workflow waits',
	}),
];
