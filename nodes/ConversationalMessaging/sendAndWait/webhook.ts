import type {
	IDataObject,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { ANSWERED_PAGE, questionPage } from './page';
import type { PageContent } from './page';

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

/** Undefined when the POST holds no answer: the page is shown again. */
function answerOf(content: PageContent, body: IDataObject): IDataObject | undefined {
	if (content.responseType === 'freeText') {
		const text = typeof body.text === 'string' ? body.text.trim() : '';
		return text ? { text } : undefined;
	}
	if (body.decision === 'approve') return { approved: true };
	if (body.decision === 'decline' && content.declineLabel) return { approved: false };
	return undefined;
}

/** A GET (a person, or a link preview) only shows the page; the form's POST resumes the execution. */
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
