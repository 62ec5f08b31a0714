import type {
	IBinaryData,
	IDataObject,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { isBlank } from '../checks/checks';
import { CHOICE_TYPES } from './description';
import type { FormField } from './form';
import type { Kept } from './kept';
import { kept } from './kept';
import { ANSWERED_PAGE, FORM_VIEW, PAGE_HEADERS } from './page';

/** GET shows the page, POST answers, as in n8n's send-and-wait nodes. */
export const SEND_AND_WAIT_WEBHOOKS: IWebhookDescription[] = (['GET', 'POST'] as const).map(
	(httpMethod) => ({
		name: 'default',
		httpMethod,
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	}),
);

/** A file as n8n's multipart parser (formidable) gives it. */
interface UploadedFile {
	filepath: string;
	originalFilename?: string | null;
	newFilename?: string;
	mimetype?: string | null;
	size?: number;
}

/** A value the form could not have sent: the whole answer is refused. */
const NOT_AN_ANSWER = Symbol('not an answer');

/**
 * A field's posted value: the view posts checkboxes and radio buttons as a JSON list, a dropdown
 * as the option; a plain form may post text. A choice the form does not offer is no answer.
 */
function postedValue(field: FormField, raw: unknown): unknown {
	const value = Array.isArray(raw) ? raw[0] : raw;
	if (typeof value !== 'string') return undefined;
	if (!CHOICE_TYPES.includes(field.fieldType) || !value.trim()) return value;
	let chosen: unknown = value;
	if (field.fieldType !== 'dropdown' && value.trim().startsWith('['))
		try {
			chosen = JSON.parse(value);
		} catch {
			return NOT_AN_ANSWER;
		}
	const list = (Array.isArray(chosen) ? chosen : [chosen]).map(String);
	const offered = (field.fieldOptions?.values ?? []).map((option) => String(option.option));
	// Only what the form offers: anything else is not an answer to it.
	if (!list.every((entry) => offered.includes(entry))) return NOT_AN_ANSWER;
	return field.fieldType === 'checkbox' ? list : list[0];
}

/**
 * The answers by field name, as n8n's form gives them (numbers as numbers, text trimmed, choices
 * as chosen, files as binary); undefined when a required field is missing: nothing resumes.
 */
async function answersOf(
	fns: IWebhookFunctions,
	fields: FormField[],
): Promise<{ json: IDataObject; binary?: Record<string, IBinaryData> } | undefined> {
	const multipart = fns.getRequestObject().contentType === 'multipart/form-data';
	const body = (fns.getBodyData() ?? {}) as IDataObject;
	const posted = (multipart ? (body.data ?? {}) : body) as IDataObject;
	const files = (multipart ? (body.files ?? {}) : {}) as Record<
		string,
		UploadedFile | UploadedFile[]
	>;
	const json: IDataObject = {};
	const binary: Record<string, IBinaryData> = {};
	for (const [index, field] of fields.entries()) {
		const key = `field-${index}`;
		if (field.fieldType === 'html') continue;
		if (field.fieldType === 'hiddenField') {
			json[String(field.fieldName)] = field.fieldValue ?? '';
			continue;
		}
		if (field.fieldType === 'file') {
			// As n8n's form gives them (prepareFormReturnItem): one upload is one object, several a list.
			const given = files[key];
			const uploads = ([] as UploadedFile[]).concat(given ?? []);
			if (!uploads.length) {
				if (field.requiredField) return undefined;
				json[field.fieldLabel] = null;
				continue;
			}
			const name = field.fieldLabel.replace(/\W/g, '_');
			for (const [i, file] of uploads.entries())
				binary[Array.isArray(given) ? `${name}_${i}` : name] = await fns.nodeHelpers.copyBinaryFile(
					file.filepath,
					file.originalFilename ?? file.newFilename ?? name,
					file.mimetype ?? undefined,
				);
			const described = uploads.map((file) => ({
				filename: file.originalFilename,
				mimetype: file.mimetype,
				size: file.size,
			}));
			json[field.fieldLabel] = field.multipleFiles === false ? described[0] : described;
			continue;
		}
		let value = postedValue(field, posted[key]);
		if (value === NOT_AN_ANSWER) return undefined;
		// Trimmed where n8n's form trims (text, email); a textarea's answer stays as typed.
		if (typeof value === 'string' && ['email', 'text'].includes(field.fieldType))
			value = value.trim();
		if (field.fieldType === 'number' && typeof value === 'string' && value.trim() !== '') {
			value = Number(value);
			if (!Number.isFinite(value)) return undefined;
		}
		if (isBlank(value)) {
			if (field.requiredField) return undefined;
			value = null;
		}
		json[field.fieldLabel] = value as IDataObject[string];
	}
	return Object.keys(binary).length ? { json, binary } : { json };
}

/**
 * The output, in n8n's shape for the response type: the answers under `data`, with when, and who
 * was asked; undefined when the form was not filled in.
 */
async function answerOf(
	fns: IWebhookFunctions,
	{ page, question }: Kept,
): Promise<INodeExecutionData | undefined> {
	const answers = await answersOf(fns, page.fields);
	if (!answers) return undefined;
	// Approve Only has no field; Approve and Decline's first choice approves.
	const [decision] = page.fields;
	const approve = decision?.fieldOptions?.values?.[0]?.option;
	const data: IDataObject = {
		approval: { approved: !decision || answers.json[decision.fieldLabel] === approve },
		customForm: answers.json,
		freeText: { text: answers.json.Response },
	}[page.responseType];
	return {
		json: { data: { ...data, respondedAt: new Date().toISOString() }, question: { ...question } },
		...(answers.binary ? { binary: answers.binary } : {}),
		pairedItem: { item: 0 },
	};
}

/**
 * A GET (a person, or a link preview) only shows n8n's form page; its POST resumes the execution
 * when every required field is there (checked here too: the page's own check is the browser's).
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const asked = kept(this);
	const res = this.getResponseObject();
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	if (this.getRequestObject().method !== 'POST') {
		res.render(FORM_VIEW, asked.page.view);
		return { noWebhookResponse: true };
	}
	const answer = await answerOf(this, asked);
	if (!answer) {
		res
			.status(400)
			.type('text/plain')
			.send(
				'The answer is missing a required field, or a choice the form does not offer: nothing was recorded.',
			);
		return { noWebhookResponse: true };
	}
	return { webhookResponse: ANSWERED_PAGE, workflowData: [[answer]] };
}
