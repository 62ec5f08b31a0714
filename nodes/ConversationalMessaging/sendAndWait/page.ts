import type { IDataObject } from 'n8n-workflow';

import type { FormField } from './customForm';
import { readFormFields } from './customForm';

/**
 * The answer page is n8n's own form page: its `form-trigger` view, which n8n's server renders for
 * its form nodes and its send-and-wait nodes, given the data n8n-nodes-base's prepareFormData
 * gives it (the view's contract, on n8n 1.x and 2.x alike). The view's script checks required
 * fields and posts the form as multipart/form-data to the address the page was opened at.
 */
export const FORM_VIEW = 'form-trigger';

/** What the page shows, from the node's parameters. */
export interface PageContent {
	responseType: 'approval' | 'customForm' | 'freeText';
	question: string;
	title: string;
	description?: string;
	buttonLabel: string;
	fields: FormField[];
	customCss?: string;
	appendAttribution: boolean;
}

/** A node parameter, read for the item asked (execute) or the waiting node (webhook). */
type Read = (name: string, fallback: unknown) => unknown;

/**
 * The page the parameters describe, and what each response type asks; a problem when nobody
 * could answer it. The same reading checks the page before the question is sent (./run.ts) and
 * draws it when the link is opened (./webhook.ts).
 */
export function pageContentOf(read: Read): PageContent | { problem: string; fix: string } {
	const options = read('options', {}) as IDataObject;
	const submit = String(options.responseFormButtonLabel || 'Submit');
	const content = {
		question: String(read('message', '')),
		title: String(options.responseFormTitle ?? ''),
		description: options.responseFormDescription
			? String(options.responseFormDescription)
			: undefined,
		customCss: options.responseFormCustomCss ? String(options.responseFormCustomCss) : undefined,
		appendAttribution: options.appendAttribution !== false,
	};
	const responseType = read('responseType', 'approval');
	if (responseType === 'freeText')
		return {
			...content,
			responseType,
			buttonLabel: submit,
			fields: [{ fieldLabel: 'Response', fieldType: 'textarea', requiredField: true }],
		};
	if (responseType === 'customForm') {
		const defineForm = read('defineForm', 'fields');
		const form = readFormFields(
			defineForm,
			defineForm === 'json' ? read('jsonOutput', '[]') : read('formFields.values', []),
		);
		return 'problem' in form
			? form
			: { ...content, responseType, buttonLabel: submit, fields: form.fields };
	}
	const approval = read('approvalOptions.values', {}) as IDataObject;
	const approve = String(approval.approveLabel || 'Approve');
	if (approval.approvalType !== 'double')
		return { ...content, responseType: 'approval', buttonLabel: approve, fields: [] };
	const decline = String(approval.disapproveLabel || 'Decline');
	if (approve === decline)
		return {
			problem: 'Approval Options: the two buttons have the same label',
			fix: 'Give Approve Button Label and Decline Button Label different texts: the answer is told by them.',
		};
	return {
		...content,
		responseType: 'approval',
		buttonLabel: submit,
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

/** The view's data: n8n's form page with the question above the fields. */
export function formPageData(content: PageContent): IDataObject {
	const description = content.description ?? content.question;
	return {
		testRun: false,
		formTitle: content.title,
		formDescription: escapeHtml(description).replace(/\r?\n/g, '<br>'),
		formDescriptionMetadata: description.slice(0, 150),
		formSubmittedHeader: 'Got it, thanks',
		formSubmittedText: 'Your answer was recorded. You can close this page.',
		n8nWebsiteLink: 'https://n8n.io/?utm_source=n8n-internal&utm_medium=form-trigger',
		formFields: content.fields.map(viewField),
		useResponseData: false,
		appendAttribution: content.appendAttribution,
		buttonLabel: content.buttonLabel,
		dangerousCustomCss: content.customCss?.replace(/</g, '') || undefined,
	};
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

/** The answer to the form's POST: the view's script shows its own "Got it, thanks" on a 200. */
export const ANSWERED_PAGE = 'Your answer was recorded. You can close this page.';
