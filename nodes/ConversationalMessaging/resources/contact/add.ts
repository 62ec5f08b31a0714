import type { IDataObject } from 'n8n-workflow';

import { isBlank, itemCheck, itemError, requireField } from '../../checks/checks';
import type { Field } from '../../form/fields';
import { additionalFields, field, idField } from '../../form/fields';
import { phoneField } from '../../form/messageFields';
import type { BulkSpec } from '../../form/operations';

/** A distribution list's ID, on Add to List and Get Many alike: no operation gives one. */
export const listIdField = (name: string, description: string, sendTo: string): Field =>
	idField({
		displayName: 'List ID',
		name,
		placeholder: 'ID of a list in your account',
		description,
		hint: 'The API cannot list or create distribution lists: use the identifier of a list that exists in your account',
		builderHint: {
			propertyHint:
				"No operation gives this identifier: it is in the user's account on the service's dashboard. Ask the user, or leave a placeholder.",
		},
		sendTo,
	});

/** The fields sent into `values`, by their key there. */
const FIELD_OF: Record<string, string> = { name: 'Name', phone: 'Phone' };

/**
 * Routed as `values.<name>`, a field named "12" made n8n build `values` as a list, losing Phone and
 * Name. A value given twice (as Phone and as an Extra Value "phone", or in two entries) is refused,
 * not overwritten: the contact would be stored with whichever came last.
 */
const addExtraValues = itemCheck((request, item) => {
	const extra = item.getNodeParameter('contactFields.extraValues.value', []) as IDataObject[];
	if (!extra.length) return;
	const body = request.body as IDataObject;
	// Phone and Name as typed: the hook runs before their own checks, which drop them when blank.
	const fromFields = new Set(
		Object.entries((body.values as IDataObject | undefined) ?? {})
			.filter(([, value]) => !isBlank(value))
			.map(([name]) => name),
	);
	const entries = new Map<string, unknown>();
	extra.forEach(({ key, value }, index) => {
		const name = String(key ?? '').trim();
		// A row added and left empty.
		if (!name && isBlank(value)) return;
		if (!name)
			throw itemError(
				item,
				`Extra Values: value ${index + 1} has no Field`,
				'Enter the name the contact list stores the value under (e.g. city), or remove the entry.',
			);
		if (fromFields.has(name) || entries.has(name))
			throw itemError(
				item,
				`Extra Values: "${name}" is given twice`,
				fromFields.has(name)
					? `Give it once: in the ${FIELD_OF[name] ?? name} field or as an Extra Value.`
					: 'Give it in one Extra Values entry only.',
			);
		entries.set(name, value);
	});
	body.values = { ...(body.values as IDataObject), ...Object.fromEntries(entries) };
});

export const contactAddOperation: BulkSpec = {
	name: 'Add to List',
	value: 'add',
	action: 'Add a contact to a list',
	description: 'Add a contact (phone, name and any other values) to a distribution list',
	method: 'POST',
	url: '/v1/contact',
	// `values` must hold at least one field for the service to store anything.
	preSend: [addExtraValues, requireField('body.values', 'Phone, Name or an Extra Value')],
	sends: 'inBulk',
	fields: [
		listIdField(
			'listId',
			'Identifier of the distribution list to add the contact to',
			'body.idList',
		),
		phoneField({
			displayName: 'Phone',
			name: 'phone',
			sendTo: 'body.values.phone',
			required: false,
		}),
		field({
			displayName: 'Name',
			name: 'contactName',
			description: 'Name of the contact',
			sendTo: 'body.values.name',
		}),
		additionalFields('contactFields', [
			{
				displayName: 'Extra Values',
				name: 'extraValues',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				placeholder: 'Add Value',
				default: {},
				description: 'Any other fields to store for the contact, such as email or city',
				options: [
					{
						displayName: 'Value',
						name: 'value',
						values: [
							field({
								displayName: 'Field',
								name: 'key',
								placeholder: 'city',
								description: 'Name of the value, as the contact list stores it',
							}),
							field({
								displayName: 'Value',
								name: 'value',
								description: 'The value to store',
							}),
						],
					},
				],
			},
		]),
	],
};
