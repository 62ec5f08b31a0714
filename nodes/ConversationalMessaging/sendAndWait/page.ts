import type { FormFieldsParameter, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import type { FormFieldType } from './formFields';
import { CHOICE_TYPES, FORM_FIELD_KEYS, FORM_FIELD_TYPES } from './formFields';

/**
 * The answer page is n8n's own form page: its `form-trigger` view, which n8n's server renders for
 * its form nodes and its send-and-wait nodes, given the data n8n-nodes-base's prepareFormData
 * gives it (the view's contract, on n8n 1.x and 2.x alike). The view's script checks required
 * fields and posts the form as multipart/form-data to the address the page was opened at.
 */
export const FORM_VIEW = 'form-trigger';

/**
 * One field of the page's form, as n8n's form nodes store it (parameter names and JSON alike), of
 * a type this node supports. A Hidden Field's value is the node's, never the page's.
 */
export type FormField = FormFieldsParameter[number] & { fieldType: FormFieldType };

type Problem = { problem: string; fix: string };
type Read = (name: string, fallback: unknown) => unknown;
const UNREADABLE = Symbol('unreadable');

/** What the answer must hold; an approval's buttons: Approve Only's one, or Approve and Decline's two. */
interface Asked {
	responseType: 'approval' | 'customForm' | 'freeText';
	fields: FormField[];
	buttons?: string[];
}

/** Custom Form's fields as the node stores them, checked; `problem` names the field and the fix. */
function readFormFields(read: Read): FormField[] | Problem {
	const fromJson = read('defineForm', 'fields') === 'json';
	const raw = fromJson ? read('jsonOutput', '[]') : read('formFields.values', []);
	const entries =
		fromJson && typeof raw === 'string' ? jsonParse(raw, { fallbackValue: UNREADABLE }) : raw;
	if (entries === UNREADABLE)
		return { problem: 'Form Fields: the JSON cannot be read', fix: 'Check its syntax.' };
	const where = fromJson ? 'Form Fields (JSON)' : 'Form Fields';
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
				problem: `${at} has no ${field.fieldType === 'hiddenField' ? 'Field Name' : 'Field Label'}`,
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
	return fields;
}

/** What the response type asks for, from the parameters; a problem when nobody could answer it. */
function fieldsAsked(read: Read): Asked | Problem {
	const responseType = read('responseType', 'approval');
	if (responseType === 'freeText')
		return {
			responseType,
			fields: [{ fieldLabel: 'Response', fieldType: 'textarea', requiredField: true }],
		};
	if (responseType === 'customForm') {
		const fields = readFormFields(read);
		return 'problem' in fields ? fields : { responseType, fields };
	}
	const approval = read('approvalOptions.values', {}) as IDataObject;
	const approve = String(approval.approveLabel || 'Approve');
	if (approval.approvalType !== 'double')
		return { responseType: 'approval', fields: [], buttons: [approve] };
	const decline = String(approval.disapproveLabel || 'Decline');
	if (approve === decline)
		return {
			problem: 'Approval Options: the two buttons have the same label',
			fix: 'Give Approve Button Label and Decline Button Label different texts: the recipient tells them apart.',
		};
	return { responseType: 'approval', fields: [], buttons: [approve, decline] };
}

/** The parameter an approval's answer posts: `true` or `false`, as n8n's own approval links say it. */
export const APPROVED = 'approved';

/**
 * Approve and Decline as two buttons in n8n's form, one tap each: a tap sets `approved` and the
 * view's own script posts the form (a GET, a link preview, decides nothing). The view's one submit
 * button gives way to them; they take its look.
 */
function decisionButtons([approve, decline]: string[]): { field: IDataObject; css: string } {
	const button = (label: string, value: boolean) =>
		`<button type="submit" name="tap" class="${value ? 'approve' : 'decline'}" onclick="if (this.form.elements.${APPROVED}.value) return false; this.form.elements.${APPROVED}.value='${value}'">${escapeHtml(label)}</button>`;
	const html = `<div class="decision"><input type="hidden" name="${APPROVED}" value="">${button(approve, true)}${button(decline, false)}</div>`;
	const color = 'var(--color-submit-btn-bg, #ff6d5a)';
	// One answer: after a tap, the buttons take no other (the view disables only its own button).
	const css = `#submit-btn { display: none; } form:has(#submit-btn:disabled) .decision button { pointer-events: none; opacity: 0.5; } .decision { display: flex; gap: 12px; } .decision button { flex: 1; height: var(--submit-btn-height, 48px); border-radius: var(--border-radius-input, 6px); border: 1px solid ${color}; font-size: var(--font-size-input, 14px); font-weight: 600; font-family: var(--font-family, inherit); cursor: pointer; } .decision .approve { background-color: ${color}; color: var(--color-submit-btn-text, #fff); } .decision .decline { background-color: transparent; color: ${color}; } .decision button:hover { opacity: 0.7; }`;
	return { field: { id: 'field-0', errorId: 'error-field-0', isHtml: true, html }, css };
}

/** The page as the question asks it, read when it is sent, and kept for the webhook (./webhook.ts). */
export interface Page extends Asked {
	question: string;
	/** What n8n's view draws (n8n-nodes-base Form utils, prepareFormData). */
	view: IDataObject;
}

/**
 * The view prints the description and the custom CSS unescaped (`{{{ }}}`): the question is
 * escaped here, and the CSS loses anything that could close its style element. Labels and
 * values the view escapes itself.
 */
const escapeHtml = (text: string) =>
	text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');

/** Custom HTML is shown as its text: the node carries no HTML sanitizer (no runtime dependency). */
const textOf = (html: string) =>
	escapeHtml(
		html
			.replace(/<[^>]*>?/g, ' ')
			.replace(/[ \t]+/g, ' ')
			.trim(),
	);

/** The input the view draws for one field (n8n-nodes-base Form utils, prepareFormData). */
function viewField(field: FormField, index: number): IDataObject {
	const input: IDataObject = {
		id: `field-${index}`,
		errorId: `error-field-${index}`,
		label: field.fieldLabel,
		inputRequired: field.requiredField ? 'form-required' : '',
		defaultValue: '',
		placeholder: field.placeholder,
	};
	const options = (field.fieldOptions?.values ?? []).map((value) => String(value.option));
	switch (field.fieldType) {
		case 'checkbox':
		case 'radio':
			return {
				...input,
				isMultiSelect: true,
				multiSelectOptions: options.map((label, i) => ({ id: `option${i}_field-${index}`, label })),
				...(field.fieldType === 'radio' ? { radioSelect: 'radio' } : {}),
			};
		case 'dropdown':
			return { ...input, isSelect: true, selectOptions: options };
		case 'file':
			return {
				...input,
				isFileInput: true,
				acceptFileTypes: field.acceptFileTypes,
				multipleFiles: field.multipleFiles === false ? '' : 'multiple',
			};
		case 'textarea':
			return { ...input, isTextarea: true };
		case 'html':
			return { ...input, isHtml: true, html: textOf(String(field.html ?? '')) };
		case 'hiddenField':
			return { ...input, isHidden: true, hiddenValue: field.fieldValue ?? '' };
		default:
			return { ...input, isInput: true, type: field.fieldType };
	}
}

/** The page the parameters describe: n8n's form page, the question above the fields; a problem when nobody could answer it. */
export function pageOf(fns: IExecuteFunctions): Page | Problem {
	const read: Read = (name, fallback) => fns.getNodeParameter(name, 0, fallback);
	const question = read('message', '');
	if (typeof question !== 'string' || !question.trim())
		return {
			problem: 'Message: is required',
			fix: 'Enter the question the recipient answers, or check that the expression mapped to it gives text.',
		};
	const asked = fieldsAsked(read);
	if ('problem' in asked) return asked;
	const options = read('options', {}) as IDataObject;
	const description = String(options.responseFormDescription || question);
	const decision = asked.buttons?.length === 2 ? decisionButtons(asked.buttons) : undefined;
	const customCss = String(options.responseFormCustomCss || '').replace(/</g, '');
	const view = {
		testRun: false,
		formTitle: String(options.responseFormTitle ?? ''),
		formDescription: escapeHtml(description).replace(/\r?\n/g, '<br>'),
		formDescriptionMetadata: description.slice(0, 150),
		formSubmittedHeader: 'Got it, thanks',
		formSubmittedText: ANSWERED_PAGE,
		n8nWebsiteLink: 'https://n8n.io/?utm_source=n8n-internal&utm_medium=form-trigger',
		formFields: decision ? [decision.field] : asked.fields.map(viewField),
		useResponseData: false,
		appendAttribution: options.appendAttribution !== false,
		buttonLabel: asked.buttons?.[0] ?? String(options.responseFormButtonLabel || 'Submit'),
		dangerousCustomCss: [decision?.css, customCss].filter(Boolean).join(' ') || undefined,
	};
	return { ...asked, question, view };
}

/**
 * n8n's own sandbox for its form pages (n8n-core's getHtmlSandboxCSP): the page runs in an opaque
 * origin, without the n8n session. Beyond it, the view's own script and style are inline, with
 * n8n's font from Google Fonts; nothing else may load, the answer goes back only to this address,
 * and no other site may frame the page.
 */
export const PAGE_HEADERS: Record<string, string> = {
	'Content-Security-Policy': [
		'sandbox allow-downloads allow-forms allow-modals allow-orientation-lock allow-pointer-lock allow-popups allow-popups-to-escape-sandbox allow-presentation allow-scripts allow-top-navigation-by-user-activation allow-top-navigation-to-custom-protocols',
		"default-src 'none'",
		"script-src 'unsafe-inline'",
		"style-src 'unsafe-inline' https://fonts.googleapis.com",
		'font-src https://fonts.gstatic.com',
		'img-src https://n8n.io data:',
		"connect-src 'self'",
		"form-action 'self'",
		"frame-ancestors 'none'",
		"base-uri 'none'",
	].join('; '),
	'Cache-Control': 'no-store',
	'X-Robots-Tag': 'noindex',
};

/** The answers to the form's POST: the view's script shows its own "Got it, thanks" on a 200. */
export const ANSWERED_PAGE = 'Your answer was recorded. You can close this page.';
export const NOT_RECORDED =
	'Your answer was not recorded: a required field is empty, or a choice is not one the form offers. Go back, check the form and send it again.';
