import type {
	IBinaryData,
	IDataObject,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { questionAsked } from './asked';
import type { FormField } from './customForm';
import { CHOICE_TYPES } from './customForm';
import type { PageContent } from './page';
import { ANSWERED_PAGE, FORM_VIEW, formPageData, PAGE_HEADERS, pageContentOf } from './page';

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

const isEmpty = (value: unknown) =>
	value === undefined ||
	(typeof value === 'string' && !value.trim()) ||
	(Array.isArray(value) && !value.length);

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
		if (isEmpty(value)) {
			if (field.requiredField) return undefined;
			value = null;
		}
		json[field.fieldLabel] = value as IDataObject[string];
	}
	return Object.keys(binary).length ? { json, binary } : { json };
}

/** The output: the answers under `data` as n8n gives them, with when; and what was asked of whom. */
function answerItem(
	fns: IWebhookFunctions,
	data: IDataObject,
	binary?: Record<string, IBinaryData>,
): INodeExecutionData {
	return {
		json: {
			data: { ...data, respondedAt: new Date().toISOString() },
			question: { ...questionAsked(fns) },
		},
		...(binary ? { binary } : {}),
		pairedItem: { item: 0 },
	};
}

/** The answer in n8n's shape for the response type; undefined when the form was not filled in. */
async function answerOf(
	fns: IWebhookFunctions,
	content: PageContent,
): Promise<INodeExecutionData | undefined> {
	const answers = await answersOf(fns, content.fields);
	if (!answers) return undefined;
	if (content.responseType === 'customForm') return answerItem(fns, answers.json, answers.binary);
	if (content.responseType === 'freeText') return answerItem(fns, { text: answers.json.Response });
	// Approve Only has no field; Approve and Decline's first choice approves.
	const [decision] = content.fields;
	const approve = decision?.fieldOptions?.values?.[0]?.option;
	return answerItem(fns, { approved: !decision || answers.json[decision.fieldLabel] === approve });
}

/**
 * A GET (a person, or a link preview) only shows n8n's form page; its POST resumes the execution
 * when every required field is there (checked here too: the page's own check is the browser's).
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const content = pageContentOf((name, fallback) => this.getNodeParameter(name, fallback));
	// Checked before the question was sent (./run.ts); only an expression can have changed it since.
	if ('problem' in content) throw new Error(`${content.problem}. ${content.fix}`);
	const res = this.getResponseObject();
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	if (this.getRequestObject().method !== 'POST') {
		res.render(FORM_VIEW, formPageData(content));
		return { noWebhookResponse: true };
	}
	const answer = await answerOf(this, content);
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
