import type { INodeProperties } from 'n8n-workflow';

import { field, valuesOf } from '../form/fields';

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
export const formFieldValues: INodeProperties[] = [
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
