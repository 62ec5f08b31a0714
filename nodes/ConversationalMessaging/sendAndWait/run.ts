import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { buildRequest, requestForm } from '../engine/itemRequest';
import { joinLane } from '../engine/lane';
import type { Sender, SendOutcome } from '../engine/send';
import { send } from '../engine/send';
import type { StepOf } from '../engine/retryMemory';
import { withRunMemory } from '../engine/retryMemory';
import { clock } from '../shared/clock';
import { CREDENTIAL_NAME } from '../shared/constants';
import type { ParameterReader } from '../shared/itemContext';
import { itemContext } from '../shared/itemContext';
import { settingsFor } from '../shared/requestSettings';
import { DEFAULT_MAX_WAIT_SECONDS } from '../shared/sendOptions';
import type { ChannelName, SendAndWaitChannel } from './channels';
import { CHANNEL_NAMES, SEND_AND_WAIT_CHANNELS } from './channels';
import type { QuestionAsked } from './asked';
import { messageIdIn, rememberQuestion } from './asked';
import { pageContentOf } from './page';
import { setOutputOnTimeout, timeoutProblem } from './timeout';
import { waitTill } from './waitTill';

const MAX_WAIT_MS = DEFAULT_MAX_WAIT_SECONDS * 1000;

/** Short Link's answer is not documented (README, Assumptions); the sandbox answers `shortUrl`. */
const SHORT_URL_FIELDS = ['shortUrl', 'shortLink', 'short', 'url'];

/** A plain operation Send and Wait runs as a step: parameters fixed for it, fields read under other names. */
type Step = Pick<SendAndWaitChannel, 'resource' | 'operation' | 'parameters' | 'fields'>;
const SHORTEN_STEP: Step = { resource: 'shortLink', operation: 'create', fields: {} };

/**
 * The step's request, built as its plain operation builds one (same fields, same checks) from
 * Send and Wait's values (`fixed`: the text, the long link); every check runs here.
 */
async function stepRequest(
	fns: IExecuteFunctions,
	description: INodeTypeDescription,
	credentials: ICredentialDataDecryptedObject,
	{ resource, operation, parameters: stepParameters, fields }: Step,
	fixed: IDataObject,
) {
	const node = fns.getNode();
	const parameters = { ...node.parameters, resource, operation, ...stepParameters };
	const given = { ...stepParameters, ...fixed };
	const read: ParameterReader = (name, itemIndex, fallback, options) =>
		name in given
			? given[name]
			: fns.getNodeParameter(fields[name] ?? name, itemIndex, fallback, options);
	const form = requestForm(description, { ...node, parameters });
	const item = itemContext(fns, 0, { read });
	const values = form.fields.map(({ parameter, locator }) =>
		read(parameter, 0, undefined, locator ? { extractValue: true } : undefined),
	);
	const settings = settingsFor(fns, credentials)(0);
	const { request } = await buildRequest(item, form, description.requestDefaults, values, settings);
	return { name: `${resource}.${operation}`, item, form, request };
}

/**
 * Sends the step's request as a bulk send sends an item (../engine/send.ts), within the default
 * Max Wait, and reads the answer with the plain operation's reader. Remembered for Retry On Fail:
 * a retry never sends the message again when the service may have it.
 */
async function sendStep(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
	{ name, item, form, request }: Awaited<ReturnType<typeof stepRequest>>,
	memoryOf: StepOf,
): Promise<INodeExecutionData[]> {
	const memory = memoryOf(name);
	const input = fns.getInputData()[0];
	memory.startTry([input]);
	const remembered = memory.get(0, input);
	if (remembered && 'sent' in remembered) return remembered.sent;
	if (remembered) throw remembered.unsure;
	const lane = joinLane(credentials, { maxInFlight: 1, maxWaitMs: MAX_WAIT_MS, stopped: never });
	lane.remaining = 1;
	const summary = memory.summary;
	const waitAside = async (ms: number) => await clock.sleep(ms);
	const sender: Sender = { fns, credentials, lane, maxWaitMs: MAX_WAIT_MS, summary, waitAside };
	let outcome: SendOutcome;
	try {
		outcome = await send(sender, item, form, request);
	} finally {
		lane.leave();
	}
	if ('sent' in outcome || 'unsure' in outcome) memory.set(0, input, outcome);
	if ('sent' in outcome) return outcome.sent;
	throw 'unsure' in outcome
		? outcome.unsure
		: 'failed' in outcome
			? outcome.failed
			: outcome.stopped;
}

const never = () => false;

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
 * Send and Wait for Response, as n8n's `customOperations`: the question and n8n's signed link to
 * this execution's answer page go out through the channel's plain send, then the execution waits;
 * the node's `webhook` gives its output. Every check runs before the first request (the link is
 * shortened only once the message is known to be valid). The link never carries the API token.
 */
export function sendAndWait(description: INodeTypeDescription) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await withRunMemory(
			this,
			async (memory) => await askOnce.call(this, description, memory),
		);
	};
}

/** One try of Send and Wait; each step's send is remembered under its name for the next try. */
async function askOnce(
	this: IExecuteFunctions,
	description: INodeTypeDescription,
	memory: StepOf,
): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const items = this.getInputData();
	if (items.length !== 1)
		throw new NodeOperationError(
			node,
			`Send and Wait asks one question per execution; it received ${items.length} items`,
			{
				description:
					'Put a Loop Over Items node (batch size 1) before it to ask one question per item, or a Limit node to ask once.',
			},
		);
	const channelName = this.getNodeParameter('sendAndWaitChannel', 0) as ChannelName;
	const channel: SendAndWaitChannel | undefined = SEND_AND_WAIT_CHANNELS[channelName];
	if (!channel)
		throw new NodeOperationError(node, `Channel: "${String(channelName)}" is not a channel`, {
			description: `Pick one of: ${CHANNEL_NAMES.join(', ')}.`,
		});
	const question = this.getNodeParameter('message', 0, '') as unknown;
	if (typeof question !== 'string' || !question.trim())
		throw new NodeOperationError(node, 'Message: is required', {
			description:
				'Enter the question the recipient answers, or check that the expression mapped to it gives text.',
		});
	// The answer page must be one the recipient can fill in: read as the webhook will read it.
	const page = pageContentOf((name, fallback) => this.getNodeParameter(name, 0, fallback));
	if ('problem' in page)
		throw new NodeOperationError(node, page.problem, { description: page.fix, itemIndex: 0 });
	const limit = waitTill(this);
	const timeout = timeoutProblem(this, description, limit);
	if (timeout)
		throw new NodeOperationError(node, timeout.problem, { description: timeout.fix, itemIndex: 0 });
	// n8n 1.x checks the link's signature only when the node asks it to (its own send-and-wait
	// nodes do); n8n 2.x always checks it and has no such call.
	(this as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired?.();
	const resumeUrl = this.getSignedResumeUrl();
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	const lead = String(this.getNodeParameter('options.messageButtonLabel', 0, '') || 'Answer here');
	const message = async (link: string) =>
		await stepRequest(this, description, credentials, channel, {
			[channel.textParameter]: `${question.trim()}\n\n${lead}: ${link}`,
		});
	let asked: QuestionAsked;
	try {
		let ready = await message(resumeUrl);
		if (channel.offersShortLink && this.getNodeParameter('shortenLink', 0, true) === true) {
			const shorten = await stepRequest(this, description, credentials, SHORTEN_STEP, {
				longUrl: resumeUrl,
			});
			ready = await message(shortUrlOf(this, await sendStep(this, credentials, shorten, memory)));
		}
		const answer = await sendStep(this, credentials, ready, memory);
		const body = (ready.request.body ?? {}) as IDataObject;
		asked = {
			channel: channelName,
			instance: body.instance === undefined ? undefined : String(body.instance),
			recipient: body.to === undefined ? undefined : String(body.to),
			messageId: messageIdIn(answer[0]?.json),
		};
	} catch (error) {
		// On Error: Continue: the message failed, nobody can answer, so the execution goes on.
		const failed =
			error instanceof NodeApiError || error instanceof NodeOperationError
				? error
				: new NodeOperationError(node, error as Error);
		if (!this.continueOnFail()) throw failed;
		return [[{ json: {}, error: failed, pairedItem: { item: 0 } }]];
	}
	// Sent: from here on the execution waits, whatever else happens.
	rememberQuestion(this, asked);
	setOutputOnTimeout(this, limit, page.responseType, asked);
	await this.putExecutionToWait(limit);
	return [items];
}
