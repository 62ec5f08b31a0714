import type { IDataObject } from 'n8n-workflow';

import type { FormFieldType } from './description';
import { CHOICE_TYPES, FORM_FIELD_KEYS, FORM_FIELD_TYPES } from './description';

/** One field of the page's form, as n8n's form nodes store it (parameter names and JSON alike). */
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

export type Problem = { problem: string; fix: string };
export type Read = (name: string, fallback: unknown) => unknown;

/** What the answer must hold; Approve Only's one button has its own label. */
export interface Asked {
	responseType: 'approval' | 'customForm' | 'freeText';
	fields: FormField[];
	button?: string;
}

/** Custom Form's fields as the node stores them, checked; `problem` names the field and the fix. */
function readFormFields(defineForm: unknown, raw: unknown): { fields: FormField[] } | Problem {
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
		const unknown = Object.keys(entry ?? {}).find((key) => !FORM_FIELD_KEYS.includes(key));
		if (unknown)
			return {
				problem: `${at}: "${unknown}" is not supported here`,
				fix: `Remove it; a field takes ${FORM_FIELD_KEYS.join(', ')}.`,
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

/** What the response type asks for, from the parameters; a problem when nobody could answer it. */
export function fieldsAsked(read: Read): Asked | Problem {
	const responseType = read('responseType', 'approval');
	if (responseType === 'freeText')
		return {
			responseType,
			fields: [{ fieldLabel: 'Response', fieldType: 'textarea', requiredField: true }],
		};
	if (responseType === 'customForm') {
		const defineForm = read('defineForm', 'fields');
		const form = readFormFields(
			defineForm,
			defineForm === 'json' ? read('jsonOutput', '[]') : read('formFields.values', []),
		);
		return 'problem' in form ? form : { responseType, fields: form.fields };
	}
	const approval = read('approvalOptions.values', {}) as IDataObject;
	const approve = String(approval.approveLabel || 'Approve');
	if (approval.approvalType !== 'double')
		return { responseType: 'approval', fields: [], button: approve };
	const decline = String(approval.disapproveLabel || 'Decline');
	if (approve === decline)
		return {
			problem: 'Approval Options: the two buttons have the same label',
			fix: 'Give Approve Button Label and Decline Button Label different texts: the answer is told by them.',
		};
	return {
		responseType: 'approval',
		fields: [
			{
				fieldLabel: 'Your answer',
				fieldType: 'radio',
				requiredField: true,
				fieldOptions: { values: [{ option: approve }, { option: decline }] },
			},
		],
	};
}
