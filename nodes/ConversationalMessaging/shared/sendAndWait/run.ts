import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeTypeDescription } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sendLoop } from '../bulk/sendLoop';
import { SEND_AND_WAIT_CHANNELS } from './channels';
import { waitTill } from './waitTill';

/** What precedes the link in the message. */
const LINK_LEAD = 'Answer here';

/**
 * Send and Wait for Response, as n8n's `customOperations`: the question and a signed link to
 * resume the execution go out through the channel's plain send (the send loop, with its fields,
 * checks and envelope reader), then the execution waits; the node's webhook gives its output.
 * One message per execution, from the first item, as n8n's own send-and-wait nodes do.
 */
export function sendAndWait(description: INodeTypeDescription) {
	const send = sendLoop(description);
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const node = this.getNode();
		const channelName = this.getNodeParameter('channel', 0) as string;
		const channel = SEND_AND_WAIT_CHANNELS[channelName];
		if (!channel) {
			throw new NodeOperationError(node, `Channel: "${channelName}" is not a channel`, { description: `Pick one of: ${Object.keys(SEND_AND_WAIT_CHANNELS).join(', ')}.` });
		}
		const question = this.getNodeParameter('message', 0, '') as unknown;
		if (typeof question !== 'string' || !question.trim()) {
			throw new NodeOperationError(node, 'Message: is required', { description: 'Enter the question the recipient answers, or check that the expression mapped to it gives text.' });
		}
		const limit = waitTill(this);
		// The signed link resumes this execution: it carries no token, only n8n's signature.
		const fixed: IDataObject = { ...channel.parameters, [channel.textParameter]: `${question.trim()}\n\n${LINK_LEAD}: ${this.getSignedResumeUrl()}` };
		const plainSend: INode = { ...node, parameters: { ...node.parameters, resource: channel.resource, operation: channel.operation, ...channel.parameters } };
		const input = this.getInputData().slice(0, 1);
		const asPlainSend = Object.create(this, {
			getNode: { value: () => plainSend },
			getInputData: { value: () => input },
			getNodeParameter: {
				value: (name: string, itemIndex: number, fallback?: unknown, options?: object) =>
					name in fixed ? fixed[name] : this.getNodeParameter(name, itemIndex, fallback, options),
			},
		}) as IExecuteFunctions;
		const [sent] = await send.call(asPlainSend);
		// On Error: Continue: the message failed, nobody can answer, so the execution goes on.
		if (sent.some((item) => item.error)) return [sent];
		await this.putExecutionToWait(limit);
		return [this.getInputData()];
	};
}
