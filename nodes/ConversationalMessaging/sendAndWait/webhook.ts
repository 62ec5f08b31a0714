import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
	MultiPartFormData,
} from 'n8n-workflow';
import { jsonParse, WAIT_INDEFINITELY } from 'n8n-workflow';

import { isBlank } from '../checks/checks';
import { nodeContextInWebhook, setTimeoutOutput } from '../n8nInternals';
import { CHOICE_TYPES } from './formFields';
import type { AskedRecipient } from './group';
import { RECIPIENT_PARAMETER } from './group';
import type { FormField, Page } from './page';
import { ANSWERED_PAGE, APPROVED, FORM_VIEW, NOT_RECORDED, PAGE_HEADERS } from './page';

/** What the webhook draws and answers with, as execute read and sent it. */
export interface Kept {
	page: Page;
	/** Where the question went, when, and each recipient with the id of their message: the evidence. */
	question: { channel: string; instance?: string; askedAt: string; recipients: AskedRecipient[] };
}

const KEY = 'sendAndWait';

/**
 * Once the question is sent: what the wait keeps, then the wait. n8n runs the node's `webhook` in a
 * new context when the page is opened or answered, and drops what execute returned; the node's
 * context is stored with the execution (on n8n 1.x and 2.x, in main or on a queue-mode worker), so
 * it lasts the wait. A limited wait that times out runs none of the node's code: n8n passes on the
 * input the waiting node kept (../n8nInternals.ts), so `data` and `question` are set on that input
 * here. A timed-out approval is no approval.
 */
export async function keepAndWait(fns: IExecuteFunctions, kept: Kept, limit: Date): Promise<void> {
	fns.getContext('node')[KEY] = kept;
	if (limit.getTime() !== WAIT_INDEFINITELY.getTime()) {
		const data: IDataObject = { timedOut: true, timedOutAt: limit.toISOString() };
		if (kept.page.responseType === 'approval') data.approved = false;
		setTimeoutOutput(fns, { data, question: { ...kept.question } });
	}
	await fns.putExecutionToWait(limit);
}

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
	const chosen: unknown =
		field.fieldType !== 'dropdown' && value.trim().startsWith('[')
			? jsonParse(value, { fallbackValue: NOT_AN_ANSWER })
			: value;
	if (chosen === NOT_AN_ANSWER) return NOT_AN_ANSWER;
	const list = (Array.isArray(chosen) ? chosen : [chosen]).map(String);
	const offered = (field.fieldOptions?.values ?? []).map((option) => String(option.option));
	// Only what the form offers: anything else is not an answer to it.
	if (!list.every((entry) => offered.includes(entry))) return NOT_AN_ANSWER;
	return field.fieldType === 'checkbox' ? list : list[0];
}

/**
 * The output, in n8n's shape for the response type: the answers by field name under `data`, as
 * n8n's form gives them (numbers as numbers, text trimmed, choices as chosen, files as binary),
 * with when, and who was asked; undefined when a required field is missing: nothing resumes.
 */
async function answerOf(
	fns: IWebhookFunctions,
	{ page, question }: Kept,
): Promise<INodeExecutionData | undefined> {
	const multipart = fns.getRequestObject().contentType === 'multipart/form-data';
	const body = (fns.getBodyData() ?? {}) as IDataObject;
	const { data: posted = {}, files = {} } = (multipart ? body : { data: body }) as Partial<
		MultiPartFormData.Request['body']
	>;
	const json: IDataObject = {};
	const binary: Record<string, IBinaryData> = {};
	for (const [index, field] of page.fields.entries()) {
		const key = `field-${index}`;
		if (field.fieldType === 'html') continue;
		if (field.fieldType === 'hiddenField') {
			json[String(field.fieldName)] = field.fieldValue ?? '';
			continue;
		}
		let value: unknown;
		if (field.fieldType === 'file') {
			// As n8n's form gives them (prepareFormReturnItem): one upload is one object, several a list.
			const given = files[key];
			const uploads = ([] as MultiPartFormData.File[]).concat(given ?? []);
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
			value = field.multipleFiles === false ? described[0] : described;
		} else value = postedValue(field, posted[key]);
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
	// Approve Only's one button approves; Approve and Decline's two post which was tapped.
	const tapped = [posted[APPROVED]].flat()[0];
	const twoButtons = page.buttons?.length === 2;
	if (page.responseType === 'approval' && twoButtons && tapped !== 'true' && tapped !== 'false')
		return undefined;
	const data: IDataObject = {
		approval: { approved: !twoButtons || tapped === 'true' },
		customForm: json,
		freeText: { text: json.Response },
	}[page.responseType];
	// Who answered: the place n8n signed into their link (./group.ts), never anything posted.
	const place = Number((fns.getQueryData() as IDataObject)[RECIPIENT_PARAMETER]);
	const { recipient, messageId } = question.recipients?.[place - 1] ?? {};
	if (recipient === undefined) return undefined;
	const respondedBy = {
		recipient,
		channel: question.channel,
		instance: question.instance,
		messageId,
	};
	return {
		json: {
			data: { ...data, respondedAt: new Date().toISOString(), respondedBy },
			question: { ...question },
		},
		...(Object.keys(binary).length ? { binary } : {}),
		pairedItem: { item: 0 },
	};
}

/**
 * A GET (a person, or a link preview) only shows n8n's form page; its POST resumes the execution
 * when every required field is there (checked here too: the page's own check is the browser's).
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	// What execute kept: a webhook has no getContext (../n8nInternals.ts reads the node's context for
	// it). The node's parameters are not read again: the page keeps what they gave against the input
	// item as it came, whatever a timeout sets on it since (keepAndWait).
	const asked = nodeContextInWebhook(this, KEY) as Kept | undefined;
	if (!asked) throw new Error('Send and Wait: this execution kept no question to answer');
	const res = this.getResponseObject();
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	if (this.getRequestObject().method !== 'POST') {
		res.render(FORM_VIEW, asked.page.view);
		return { noWebhookResponse: true };
	}
	const answer = await answerOf(this, asked);
	if (!answer) {
		res.status(400).type('text/plain').send(NOT_RECORDED);
		return { noWebhookResponse: true };
	}
	return { webhookResponse: ANSWERED_PAGE, workflowData: [[answer]] };
}
