import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { showFor } from '../../shared/descriptions';

/**
 * Send and Wait for Response: a message with a link over one of the channels, then the
 * execution waits until the recipient answers on the page the link opens. Parameter names are
 * n8n's (message, responseType, approvalOptions, options), so that n8n's generated
 * human-review tool for AI agents works with this node unchanged.
 */
export const sendAndWaitOperation: INodePropertyOptions = {
	name: 'Send and Wait for Response',
	value: SEND_AND_WAIT_OPERATION,
	action: 'Send a message and wait for a response',
	description: 'Send a message with a link to a page where the recipient approves, declines or answers; the workflow waits for it',
};

const show = showFor('messaging', [SEND_AND_WAIT_OPERATION]);

const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description: 'Whether the workflow goes on by itself, without a response, after some time or at a date',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval', description: 'Waits for a certain amount of time' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime', description: 'Waits until a date and time' },
					],
				},
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
					options: [
						{ name: 'Days', value: 'days' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Seconds', value: 'seconds' },
					],
					default: 'hours',
					description: 'Unit of the amount',
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
					default: '',
					description: 'When the workflow goes on without a response',
				},
			],
		},
	],
};

export const sendAndWaitFields: INodeProperties[] = [
	{
		displayName: 'Channel',
		name: 'channel',
		type: 'options',
		// Decides which fields are shown: as an expression n8n could not tell.
		noDataExpression: true,
		displayOptions: show,
		options: [
			{ name: 'SMS', value: 'sms', description: 'A text message to a phone number' },
			{ name: 'Socialnet', value: 'socialnet', description: 'A message on the socialnet messenger' },
		],
		default: 'sms',
		description: 'Where the message goes',
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		noDataExpression: true,
		displayOptions: show,
		options: [
			{ name: 'Approval', value: 'approval', description: 'The recipient approves (or declines) on the page' },
			{ name: 'Free Text', value: 'freeText', description: 'The recipient types an answer on the page' },
		],
		default: 'approval',
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: showFor('messaging', [SEND_AND_WAIT_OPERATION], { responseType: ['approval'] }),
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
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Decline', value: 'double' },
						],
					},
					{ displayName: 'Approve Button Label', name: 'approveLabel', type: 'string', default: 'Approve' },
					{
						displayName: 'Decline Button Label',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: show,
		options: [limitWaitTime],
	},
];
