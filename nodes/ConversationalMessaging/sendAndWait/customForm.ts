import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { field, showFor } from '../shared/descriptions';

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

/** One field of the form, as n8n's form nodes store it (parameter names and JSON alike). */
export interface FormField {
	fieldLabel: string;
	fieldType: FormFieldType;
	requiredField?: boolean;
	placeholder?: string;
	fieldOptions?: { values?: Array<{ option?: string }> };
	/** Hidden Field: its name and value (the value is the node's, never the page's). */
	fieldName?: string;
	fieldValue?: string;
	html?: string;
	multipleFiles?: boolean;
	acceptFileTypes?: string;
}

/** The keys a field may have, in the form and in JSON. */
const FIELD_KEYS = [
	'fieldLabel',
	'fieldType',
	'requiredField',
	'placeholder',
	'fieldOptions',
	'fieldName',
	'fieldValue',
	'html',
	'multipleFiles',
	'acceptFileTypes',
];

/** The types whose answer is one of, or some of, the field's options. */
export const CHOICE_TYPES: FormFieldType[] = ['checkbox', 'dropdown', 'radio'];

const showForm = (extra: IDataObject = {}) =>
	showFor('messaging', [SEND_AND_WAIT_OPERATION], { responseType: ['customForm'], ...extra });
const forTypes = (...types: FormFieldType[]) => ({ show: { fieldType: types } });

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
export const customFormFields: INodeProperties[] = [
	{
		displayName: 'Define Form',
		name: 'defineForm',
		type: 'options',
		noDataExpression: true,
		displayOptions: showForm(),
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
		displayOptions: showForm({ defineForm: ['json'] }),
		description:
			'A JSON list of fields as n8n\'s form nodes write them: fieldLabel, fieldType (text, textarea, number, email, password, date, dropdown, checkbox, radio, hiddenField, html, file), requiredField, placeholder, fieldOptions ({"values": [{"option": "..."}]}); hiddenField takes fieldName and fieldValue, html takes html',
	},
	{
		displayName: 'Form Fields',
		name: 'formFields',
		placeholder: 'Add Form Field',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		default: { values: [{ fieldLabel: '', fieldType: 'text', requiredField: true }] },
		displayOptions: showForm({ defineForm: ['fields'] }),
		description: 'The fields of the form the recipient fills in; the answers come out by label',
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
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
					{
						displayName: 'Field Options',
						name: 'fieldOptions',
						placeholder: 'Add Field Option',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true, sortable: true },
						default: { values: [{ option: '' }] },
						required: true,
						description: 'The choices the recipient picks from',
						displayOptions: forTypes(...CHOICE_TYPES),
						options: [
							{
								displayName: 'Values',
								name: 'values',
								values: [
									field({
										displayName: 'Option',
										name: 'option',
										required: true,
										description: 'One choice the recipient can pick',
									}),
								],
							},
						],
					},
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
				],
			},
		],
	},
];

/** The form's fields as the node stores them, checked; `problem` names the field and the fix. */
export function readFormFields(
	defineForm: unknown,
	raw: unknown,
): { fields: FormField[] } | { problem: string; fix: string } {
	const fromJson = defineForm === 'json';
	let entries = raw;
	if (fromJson && typeof raw === 'string') {
		try {
			entries = JSON.parse(raw) as unknown;
		} catch {
			return { problem: 'Form Fields: the JSON cannot be read', fix: 'Check its syntax.' };
		}
	}
	const where = fromJson ? 'the JSON' : 'Form Fields';
	if (!Array.isArray(entries) || !entries.length)
		return {
			problem: `${where}: the form has no fields`,
			fix: fromJson
				? 'Give a list of fields, e.g. [{"fieldLabel": "Address", "fieldType": "text"}].'
				: 'Add a field with Add Form Field.',
		};
	const fields: FormField[] = [];
	const names = new Set<string>();
	for (const [index, entry] of (entries as IDataObject[]).entries()) {
		const field = { ...entry, fieldType: entry?.fieldType ?? 'text' } as FormField;
		const at = `${where}: field ${index + 1}`;
		// n8n's form knows more (defaultValue, formatDate, limitSelection...): refused, not dropped.
		const unknown = Object.keys(entry ?? {}).find((key) => !FIELD_KEYS.includes(key));
		if (unknown)
			return {
				problem: `${at}: "${unknown}" is not supported here`,
				fix: `Remove it; a field takes ${FIELD_KEYS.join(', ')}.`,
			};
		if (!(field.fieldType in FORM_FIELD_TYPES))
			return {
				problem: `${at}: "${String(field.fieldType)}" is not a field type`,
				fix: `Use one of ${Object.keys(FORM_FIELD_TYPES).join(', ')}.`,
			};
		if (field.fieldType === 'html') {
			fields.push(field);
			continue;
		}
		const name = String(
			(field.fieldType === 'hiddenField' ? field.fieldName : field.fieldLabel) ?? '',
		).trim();
		if (!name)
			return {
				problem: `${at} has no ${field.fieldType === 'hiddenField' ? 'Field Name' : 'label'}`,
				fix: 'Name every field: its answer comes out under that name.',
			};
		if (names.has(name))
			return {
				problem: `${at}: "${name}" names two fields`,
				fix: 'Give every field its own name: the answers come out by name.',
			};
		names.add(name);
		const options = (field.fieldOptions?.values ?? []).map((value) =>
			String(value?.option ?? '').trim(),
		);
		if (CHOICE_TYPES.includes(field.fieldType) && (!options.length || options.includes('')))
			return {
				problem: `${at} ("${name}") has an empty choice, or none`,
				fix: 'Give it at least one option, each with a text.',
			};
		fields.push({ ...field, fieldLabel: name });
	}
	return { fields };
}
