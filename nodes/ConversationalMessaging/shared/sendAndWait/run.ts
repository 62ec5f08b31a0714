import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	NodeConnectionType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import type { StepOf } from '../bulk/outcomes';
import { BULK_OPERATIONS } from '../bulk/options';
import { withRunMemory } from '../bulk/outcomes';
import { FieldValues } from '../bulk/fieldValues';
import { buildRequest, sendStep } from '../bulk/sendLoop';
import { planRequest } from '../bulk/plan';
import { itemView } from '../itemView';
import type { ChannelName, SendAndWaitChannel } from './channels';
import { CHANNEL_NAMES, SEND_AND_WAIT_CHANNELS } from './channels';
import { waitTill } from './waitTill';

/** What precedes the link in the message. */
const LINK_LEAD = 'Answer here:';

/**
 * Where the Short Link endpoint's answer gives the short address. The service's description does
 * not show its answer (README, Assumptions); the sandbox answers `shortUrl`.
 */
export const SHORT_URL_FIELDS = ['shortUrl', 'shortLink', 'short', 'url'];

/** A plain operation the node runs as a step: parameters fixed for it, fields read under other names. */
type Step = Pick<SendAndWaitChannel, 'resource' | 'operation' | 'parameters' | 'fields'>;
const SHORTEN_STEP: Step = {
	resource: 'shortLink',
	operation: 'create',
	parameters: {},
	fields: {},
};

/** Every operation the send loop runs: the bulk ones and Send and Wait's steps, for the load-time check (../bulk/contract.ts). */
export function loopOperations(): Record<string, string[]> {
	const operations = Object.fromEntries(
		Object.entries(BULK_OPERATIONS).map(([resource, names]) => [resource, [...names]]),
	);
	for (const { resource, operation } of [SHORTEN_STEP, ...Object.values(SEND_AND_WAIT_CHANNELS)]) {
		const names = (operations[resource] ??= []);
		if (!names.includes(operation)) names.push(operation);
	}
	return operations;
}

/** The step's share of the run's Retry On Fail memory (../bulk/outcomes.ts). */
const stepName = (step: Step) => `${step.resource}.${step.operation}`;

/**
 * The node seen as one plain operation (the channel's send, or Short Link > Create): the send
 * loop then runs that operation's fields, checks and envelope reader, on Send and Wait's values.
 * Its item views (../itemView.ts) read the parameters through it.
 */
function asStep(fns: IExecuteFunctions, step: Step, fixed: IDataObject): IExecuteFunctions {
	const node = fns.getNode();
	const stepNode: INode = {
		...node,
		parameters: {
			...node.parameters,
			resource: step.resource,
			operation: step.operation,
			...step.parameters,
		},
	};
	const input = fns.getInputData().slice(0, 1);
	return Object.create(fns, {
		getNode: { value: () => stepNode },
		getInputData: {
			value: (inputIndex = 0, connectionType: NodeConnectionType = NodeConnectionTypes.Main) =>
				inputIndex === 0 && connectionType === NodeConnectionTypes.Main
					? input
					: fns.getInputData(inputIndex, connectionType),
		},
		getNodeParameter: {
			value: (name: string, itemIndex: number, fallback?: unknown, options?: object) =>
				name in fixed
					? fixed[name]
					: name in step.parameters
						? step.parameters[name]
						: fns.getNodeParameter(step.fields[name] ?? name, itemIndex, fallback, options),
		},
	}) as IExecuteFunctions;
}

/** Runs the channel's checks on the message, as its plain send would, without sending anything. */
async function checkMessage(
	description: INodeTypeDescription,
	view: IExecuteFunctions,
): Promise<void> {
	const plan = planRequest(description, view.getNode());
	const reading = await new FieldValues(view, plan.fields).read(0);
	if ('error' in reading) throw reading.error;
	await buildRequest(itemView(view, 0), plan, reading.values);
}

function shortUrlOf(fns: IExecuteFunctions, answer: INodeExecutionData[]): string {
	const json = answer[0]?.json ?? {};
	const found = SHORT_URL_FIELDS.map((name) => json[name]).find(
		(value) => typeof value === 'string' && /^https?:\/\//.test(value),
	);
	if (typeof found === 'string') return found;
	throw new NodeOperationError(
		fns.getNode(),
		'Shorten Link: the Short Link endpoint gave no short address; nothing was sent',
		{
			description: `Its answer has none of ${SHORT_URL_FIELDS.join(', ')}. Turn Shorten Link off to send the full link.`,
		},
	);
}

/**
 * Send and Wait for Response, as n8n's `customOperations`: the question and n8n's signed link
 * to this execution's answer page go out through the channel's plain send (the send loop, with
 * that operation's fields, checks and envelope reader), then the execution waits; the node's
 * `webhook` gives its output. Every check runs before the first request (the link is only
 * shortened once the message is known to be valid). The link carries n8n's signature, never the
 * API token.
 */
export function sendAndWait(description: INodeTypeDescription) {
	const send = sendStep(description);
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await withRunMemory(
			this,
			async (memory) => await askOnce.call(this, description, send, memory),
		);
	};
}

/** One try of Send and Wait; each step's sends are remembered under its name for the next try. */
async function askOnce(
	this: IExecuteFunctions,
	description: INodeTypeDescription,
	send: ReturnType<typeof sendStep>,
	memory: StepOf,
): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const items = this.getInputData();
	if (items.length !== 1) {
		throw new NodeOperationError(
			node,
			`Send and Wait asks one question per execution; it received ${items.length} items`,
			{
				description:
					'Put a Loop Over Items node (batch size 1) before it to ask one question per item, or a Limit node to ask once.',
			},
		);
	}
	const channelName = this.getNodeParameter('sendAndWaitChannel', 0) as ChannelName;
	const channel: SendAndWaitChannel | undefined = SEND_AND_WAIT_CHANNELS[channelName];
	if (!channel) {
		throw new NodeOperationError(node, `Channel: "${String(channelName)}" is not a channel`, {
			description: `Pick one of: ${CHANNEL_NAMES.join(', ')}.`,
		});
	}
	const question = this.getNodeParameter('message', 0, '') as unknown;
	if (typeof question !== 'string' || !question.trim()) {
		throw new NodeOperationError(node, 'Message: is required', {
			description:
				'Enter the question the recipient answers, or check that the expression mapped to it gives text.',
		});
	}
	const limit = waitTill(this);
	const resumeUrl = this.getSignedResumeUrl();
	const text = (link: string) => `${question.trim()}\n\n${LINK_LEAD} ${link}`;

	await checkMessage(
		description,
		asStep(this, channel, { [channel.textParameter]: text(resumeUrl) }),
	);
	let link = resumeUrl;
	if (channel.offersShortLink && this.getNodeParameter('shortenLink', 0, true) === true) {
		const [shortened] = await send.call(
			asStep(this, SHORTEN_STEP, { longUrl: resumeUrl }),
			memory(stepName(SHORTEN_STEP)),
		);
		link = shortUrlOf(this, shortened);
	}
	const [sent] = await send.call(
		asStep(this, channel, { [channel.textParameter]: text(link) }),
		memory(stepName(channel)),
	);
	// On Error: Continue: the message failed, nobody can answer, so the execution goes on.
	if (sent.some((item) => item.error)) return [sent];
	await this.putExecutionToWait(limit);
	return [items];
}

/** The bulk operations' send loop plus Send and Wait: the node's `customOperations`. */
export function withSendAndWait(
	operations: NonNullable<INodeType['customOperations']>,
	description: INodeTypeDescription,
): NonNullable<INodeType['customOperations']> {
	return {
		...operations,
		messaging: { ...operations.messaging, [SEND_AND_WAIT_OPERATION]: sendAndWait(description) },
	};
}
