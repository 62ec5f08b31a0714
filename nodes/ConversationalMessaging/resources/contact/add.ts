import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	ASK_THE_USER_HINT,
	additionalFields,
	field,
	idField,
	showFor,
} from '../../shared/descriptions';
import type { OperationSpec } from '../../shared/operations';
import { phoneField } from '../../shared/messageFields';
import { preSend, requireField } from '../../shared/checks';

const show = showFor('contact', ['add']);

/** Routed as `values.<name>`, a field named "12" made n8n build `values` as a list, losing Phone and Name. */
const addExtraValues = preSend((request, item) => {
	const extra = item.getNodeParameter('contactFields.extraValues.value', []) as IDataObject[];
	if (!extra.length) return;
	const body = request.body as IDataObject;
	body.values = {
		...(body.values as IDataObject),
		...Object.fromEntries(extra.map(({ key, value }) => [String(key ?? ''), value])),
	};
});

export const contactAddOperation: OperationSpec = {
	name: 'Add to List',
	value: 'add',
	action: 'Add a contact to a list',
	description: 'Add a contact (phone, name and any other values) to a distribution list',
	method: 'POST',
	url: '/v1/contact',
	// `values` must hold at least one field for the service to store anything.
	preSend: [addExtraValues, requireField('body.values', 'Phone, Name or an Extra Value')],
};

export const contactAddFields: INodeProperties[] = [
	idField({
		displayName: 'List ID',
		name: 'listId',
		displayOptions: show,
		placeholder: 'ID of a list in your account',
		description: 'Identifier of the distribution list to add the contact to',
		hint: 'The API cannot list or create distribution lists: use the identifier of a list that exists in your account',
		builderHint: ASK_THE_USER_HINT,
		sendTo: 'body.idList',
	}),
	phoneField({
		displayName: 'Phone',
		name: 'phone',
		displayOptions: show,
		sendTo: 'body.values.phone',
		required: false,
	}),
	field({
		displayName: 'Name',
		name: 'contactName',
		displayOptions: show,
		description: 'Name of the contact',
		sendTo: 'body.values.name',
	}),
	additionalFields('contactFields', show, [
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
];
