import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

const UNIT_MS: Record<string, number> = {
	seconds: 1000,
	minutes: 60_000,
	hours: 3_600_000,
	days: 86_400_000,
};

/** n8n's names and values, as in its own send-and-wait nodes. */
export const limitWaitTimeOption: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description:
		"Whether the workflow goes on by itself, without an answer, after some time or at a date and time. The output is then the input item with data.timedOut true (data.approved false for Approval) and question. With a limit, the node refuses expressions that read the input item's data or question: read them from the earlier node by name.",
	// The sub-fields' own defaults, so the form shows what the node will do.
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
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
					description: 'Whether the limit is a time to wait or a date and time',
					options: [
						{
							name: 'After Time Interval',
							value: 'afterTimeInterval',
							description: 'Waits for a certain amount of time',
						},
						{
							name: 'At Specified Time',
							value: 'atSpecifiedTime',
							description: 'Waits until a date and time',
						},
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
						{ name: 'Days', value: 'days', description: 'The amount is in days' },
						{ name: 'Hours', value: 'hours', description: 'The amount is in hours' },
						{ name: 'Minutes', value: 'minutes', description: 'The amount is in minutes' },
						{ name: 'Seconds', value: 'seconds', description: 'The amount is in seconds' },
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
					description: 'When the workflow goes on without an answer',
				},
			],
		},
	],
};

/** Read before anything is sent, so a bad limit never leaves a question nobody waits for. */
export function waitTill(fns: IExecuteFunctions): Date {
	const limit = fns.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	const refuse = (message: string, description: string) =>
		new NodeOperationError(fns.getNode(), `Limit Wait Time: ${message}`, { description });
	if (!limit.limitType) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at.getTime()))
			throw refuse(
				'Max Date and Time is not a date',
				'Pick a date and time, or remove Limit Wait Time.',
			);
		return at;
	}
	const amount = Number(limit.resumeAmount ?? 0);
	const unit = UNIT_MS[String(limit.resumeUnit ?? 'hours')];
	if (!(amount >= 0) || !unit)
		throw refuse(
			'the amount must be a number of 0 or more',
			'Enter how long to wait, or remove Limit Wait Time.',
		);
	return new Date(Date.now() + amount * unit);
}
