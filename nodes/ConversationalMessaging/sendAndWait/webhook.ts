import type {
	IDataObject,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { ANSWERED_PAGE, questionPage } from './page';
import type { PageContent } from './page';

/** The waiting execution's address answers GET (the page) and POST (the answer), as n8n's send-and-wait nodes. */
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

/** Nothing but the page may run or be framed; its form posts back to where it came from. */
const PAGE_HEADERS: Record<string, string> = {
	'Content-Type': 'text/html; charset=utf-8',
	'Content-Security-Policy':
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
	'Cache-Control': 'no-store',
	'X-Robots-Tag': 'noindex',
};

function pageContent(fns: IWebhookFunctions): PageContent {
	const approval = fns.getNodeParameter('approvalOptions.values', {}) as IDataObject;
	return {
		question: String(fns.getNodeParameter('message', '')),
		responseType:
			fns.getNodeParameter('responseType', 'approval') === 'freeText' ? 'freeText' : 'approval',
		approveLabel: String(approval.approveLabel || 'Approve'),
		...(approval.approvalType === 'double'
			? { declineLabel: String(approval.disapproveLabel || 'Decline') }
			: {}),
	};
}

/** The answer in a POST of the page's form, or undefined when it holds none (the page is shown again). */
function answerOf(content: PageContent, body: IDataObject): IDataObject | undefined {
	if (content.responseType === 'freeText') {
		const text = typeof body.text === 'string' ? body.text.trim() : '';
		return text ? { text } : undefined;
	}
	if (body.decision === 'approve') return { approved: true };
	if (body.decision === 'decline' && content.declineLabel) return { approved: false };
	return undefined;
}

/**
 * Opening the link (GET, whoever asks: a person or a link-preview fetch) only shows the page;
 * the execution resumes on the POST of its form, with `{ data: { approved } }` or
 * `{ data: { text } }` as n8n's send-and-wait nodes give it.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const content = pageContent(this);
	const answer =
		this.getRequestObject().method === 'POST'
			? answerOf(content, (this.getBodyData() ?? {}) as IDataObject)
			: undefined;
	if (!answer) {
		const res = this.getResponseObject();
		for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
		res.status(200).send(questionPage(content));
		return { noWebhookResponse: true };
	}
	return {
		webhookResponse: ANSWERED_PAGE,
		workflowData: [[{ json: { data: answer }, pairedItem: { item: 0 } }]],
	};
}
