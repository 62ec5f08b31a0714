import type { INodeProperties } from 'n8n-workflow';

import { collection, showFor } from '../form/fields';
import { rulesParameter } from '../form/settings';
import { WEEKDAYS } from './sendWindow';

/** What the collection holds as typed, the part read so (the values come by getNodeParameter). */
export interface RecipientRulesParameter {
	doNotSendTo?: unknown;
	maxPerDay?: number;
	sendWindow?: { window?: { timeZone?: unknown } };
}

export const DEFAULT_FROM = '08:00';
export const DEFAULT_UNTIL = '21:00';

const capitalised = (day: string) => day[0].toUpperCase() + day.slice(1);

/**
 * The node's outputs: a second one, Held, while a ruled operation (by resource) has a Send Window.
 * n8n evaluates it with the node's parameters (as its Switch and If nodes declare theirs).
 */
export function outputsOf(ruled: Record<string, string[]>): `={{${string}}}` {
	const names = Object.fromEntries(Object.keys(ruled).map((name) => [name, rulesParameter(name)]));
	return `={{ ((p) => { const rules = ${JSON.stringify(ruled)}; const names = ${JSON.stringify(names)}; const held = (rules[p.resource] || []).includes(p.operation) && Boolean(((p[names[p.resource]] || {}).sendWindow || {}).window); return held ? [{ type: 'main', displayName: 'Done' }, { type: 'main', displayName: 'Held' }] : ['main']; })($parameter) }}`;
}

const sendWindow: INodeProperties = {
	displayName: 'Send Window',
	name: 'sendWindow',
	type: 'fixedCollection',
	placeholder: 'Add Send Window',
	default: { window: { from: DEFAULT_FROM, until: DEFAULT_UNTIL } },
	description:
		"Send only while it is between From and Until, on the days chosen, in the recipient's local time. The zone is the item's Time Zone if given, else the phone number's (every zone its prefix may be in: sent only while the window is open in all of them), else the Default Country's, else the workflow's. The others come out of the Held output with sendAfter, when their window opens: connect it to a Wait node (Resume: At Specified Time, the item's sendAfter) and back into this node.",
	options: [
		{
			displayName: 'Window',
			name: 'window',
			values: [
				{
					displayName: 'From',
					name: 'from',
					type: 'string',
					default: DEFAULT_FROM,
					placeholder: 'e.g. 08:00',
					description: 'Local time the window opens, 24-hour HH:MM',
				},
				{
					displayName: 'Until',
					name: 'until',
					type: 'string',
					default: DEFAULT_UNTIL,
					placeholder: 'e.g. 21:00',
					description:
						'Local time the window closes, 24-hour HH:MM. Earlier than From: the window runs across midnight.',
				},
				{
					displayName: 'Days',
					name: 'days',
					type: 'multiOptions',
					options: [...WEEKDAYS].sort().map((day) => ({
						name: capitalised(day),
						value: day,
						description: `The window opens on ${capitalised(day)}s`,
					})),
					default: [...WEEKDAYS],
					description:
						'Local days the window opens on (a window across midnight belongs to the day it opens)',
				},
				{
					displayName: 'Time Zone',
					name: 'timeZone',
					type: 'string',
					default: '',
					placeholder: 'e.g. America/Bogota',
					description:
						"The recipient's time zone, an IANA name, by expression per item when you know where each person is (an area code is not always where the person lives). Empty: from the phone number, else the Default Country, else the workflow's time zone.",
				},
			],
		},
	],
};

/** Shown for the resource's ruled operations, after their fields. */
export const recipientRules = (resource: string, operations: string[]): INodeProperties =>
	collection(
		rulesParameter(resource),
		'Recipient Rules',
		showFor(resource, operations),
		[
			sendWindow,
			{
				displayName: 'Do Not Send To',
				name: 'doNotSendTo',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				placeholder: 'e.g. +57 300 123 4567, +1 201 555 0123',
				description:
					'People never to send to (those who asked not to be messaged): phone numbers separated by commas or lines, or an expression giving a list, such as the phones an earlier node read from a sheet or a database. Each is read as the recipient phone is, so +57 300-123 4567 stops 573001234567. For Send Socialnet Message: recipient IDs. Such items are not sent and come out saying so.',
			},
			{
				displayName: 'Max Messages per Person per Day',
				name: 'maxPerDay',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 1,
				description:
					"How many messages this node may send one person in a day (the recipient's local day), counted across the workflow's executions in n8n's database, only what the service accepted. Items over it are not sent and come out saying so.",
			},
		],
		{
			builderHint: {
				propertyHint:
					"Quiet hours in each recipient's local time (Send Window, usually 08:00-21:00), opted-out numbers (Do Not Send To, an expression over the sheet or table that keeps them) and a daily cap per person. With a Send Window the node has a second output, Held: connect it to a Wait node (Resume: At Specified Time, {{ $json.sendAfter }}) and back into this node.",
			},
			placeholder: 'Add Rule',
			description:
				'When and to whom a bulk send may go: quiet hours in local time, people who opted out, a daily cap per person',
		},
	);
