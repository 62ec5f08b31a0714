import type {
	IDataObject,
	IExecuteFunctions,
	IWebhookFunctions,
	IWorkflowExecutionCustomData,
} from 'n8n-workflow';

import type { ChannelName, SendAndWaitChannel } from './channels';
import { SEND_AND_WAIT_CHANNELS } from './channels';

/** Who was asked, where, and the id the service gave the question's message: the answer's evidence. */
export interface QuestionAsked {
	channel: string;
	instance?: string;
	recipient?: string;
	messageId?: string;
}

/** The service does not document its send answers: the first of these with a value is the id. */
const MESSAGE_ID_KEYS = ['messageId', 'id', 'idMessage', 'message_id'];

/**
 * n8n runs the node's `webhook` in a new context when the answer comes, and drops what execute
 * returned; the execution's custom data (n8n's `$execution.customData`) is what lasts the wait.
 * One key per node, by its id (a rename during the wait keeps it): letters, digits and _ only, at
 * most 50 characters, as n8n requires. It takes one of n8n's 10 keys an execution may hold.
 */
const keyOf = ({ id, name }: { id?: string; name: string }) =>
	`sendAndWait_${(id || name).replace(/[^\p{L}\p{N}_]/gu, '').slice(0, 38)}`;

export function messageIdIn(answer: IDataObject | undefined): string | undefined {
	const found = MESSAGE_ID_KEYS.map((key) => answer?.[key]).find(
		(value) => typeof value === 'string' || typeof value === 'number',
	);
	return found === undefined ? undefined : String(found);
}

/** `$execution.customData` of the execution (2.x has it on the context too). */
function customDataOf(fns: IExecuteFunctions | IWebhookFunctions) {
	try {
		const direct = (fns as { customData?: IWorkflowExecutionCustomData }).customData;
		if (direct) return direct;
		if ('getWorkflowDataProxy' in fns)
			return (
				fns.getWorkflowDataProxy(0).$execution as { customData?: IWorkflowExecutionCustomData }
			)?.customData;
	} catch {
		// No execution data in this context: the facts are read from the parameters instead.
	}
	return undefined;
}

export function rememberQuestion(fns: IExecuteFunctions, asked: QuestionAsked): void {
	// n8n keeps 512 characters of a value: an id that long is left out rather than cut.
	let value = JSON.stringify(asked);
	if (value.length > 512) value = JSON.stringify({ ...asked, messageId: undefined });
	customDataOf(fns)?.set(keyOf(fns.getNode()), value);
}

/**
 * What execute remembered; else (n8n 1.x gives a webhook no custom data, or the workflow already
 * holds n8n's 10 keys) the channel, instance and recipient as the node's parameters give them.
 */
export function questionAsked(fns: IWebhookFunctions): QuestionAsked {
	const remembered = customDataOf(fns)?.get(keyOf(fns.getNode()));
	if (typeof remembered === 'string') {
		try {
			return JSON.parse(remembered) as QuestionAsked;
		} catch {
			// Not ours: read from the parameters.
		}
	}
	const channel = String(fns.getNodeParameter('sendAndWaitChannel', 'sms'));
	const spec = SEND_AND_WAIT_CHANNELS[channel as ChannelName] as SendAndWaitChannel | undefined;
	const [instance, recipient] = Object.values(spec?.fields ?? {}).map((name) => {
		const value = fns.getNodeParameter(name, '') as unknown;
		return typeof value === 'string' || typeof value === 'number'
			? String(value).trim()
			: undefined;
	});
	return { channel, instance, recipient };
}
