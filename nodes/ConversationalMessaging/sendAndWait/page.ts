import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Asked, FormField, Problem, Read } from './form';
import { fieldsAsked } from './form';

/**
 * The answer page is n8n's own form page: its `form-trigger` view, which n8n's server renders for
 * its form nodes and its send-and-wait nodes, given the data n8n-nodes-base's prepareFormData
 * gives it (the view's contract, on n8n 1.x and 2.x alike). The view's script checks required
 * fields and posts the form as multipart/form-data to the address the page was opened at.
 */
export const FORM_VIEW = 'form-trigger';

/** The page as the question asks it, read when it is sent, and kept for the webhook (./kept.ts). */
export interface Page extends Omit<Asked, 'button'> {
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
	const { button, ...answer } = asked;
	const options = read('options', {}) as IDataObject;
	const description = String(options.responseFormDescription || question);
	const view = {
		testRun: false,
		formTitle: String(options.responseFormTitle ?? ''),
		formDescription: escapeHtml(description).replace(/\r?\n/g, '<br>'),
		formDescriptionMetadata: description.slice(0, 150),
		formSubmittedHeader: 'Got it, thanks',
		formSubmittedText: ANSWERED_PAGE,
		n8nWebsiteLink: 'https://n8n.io/?utm_source=n8n-internal&utm_medium=form-trigger',
		formFields: answer.fields.map(viewField),
		useResponseData: false,
		appendAttribution: options.appendAttribution !== false,
		buttonLabel: button ?? String(options.responseFormButtonLabel || 'Submit'),
		dangerousCustomCss: String(options.responseFormCustomCss || '').replace(/</g, '') || undefined,
	};
	return { ...answer, question, view };
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
