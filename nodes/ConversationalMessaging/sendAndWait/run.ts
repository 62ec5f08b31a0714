import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemContext } from '../checks/checks';
import { DEFAULT_MAX_WAIT_SECONDS, settingsFor } from '../form/settings';
import { requireSignedResume } from '../n8nInternals';
import { clock } from '../sendLoop/clock';
import type { RequestForm } from '../sendLoop/itemRequest';
import { buildRequest, itemContext, requestForm } from '../sendLoop/itemRequest';
import { joinLane } from '../sendLoop/lane';
import type { StepOf } from '../sendLoop/runMemory';
import { withRunMemory } from '../sendLoop/runMemory';
import type { Sender, SendOutcome } from '../sendLoop/send';
import { send } from '../sendLoop/send';
import { CREDENTIAL_NAME } from '../service/account';
import { CHANNELS } from './description';
import type { Kept } from './kept';
import { keep } from './kept';
import { setOutputOnTimeout, waitTill } from './limitWaitTime';
import { pageOf } from './page';

const MAX_WAIT_MS = DEFAULT_MAX_WAIT_SECONDS * 1000;

/** Short Link's answer is not documented (README, Assumptions); the sandbox answers `shortUrl`. */
const SHORT_URL_FIELDS = ['shortUrl', 'shortLink', 'short', 'url'];

/** The service does not document its send answers: the first of these with a value is the id. */
const MESSAGE_ID_KEYS = ['messageId', 'id', 'idMessage', 'message_id'];

/** The parameters of a node set to Short Link > Create: its request form, built from the description. */
const SHORTEN = { resource: 'shortLink', operation: 'create' };

/** One request Send and Wait sends (the question, the short link), under its name in the Retry On Fail memory. */
interface Step {
	name: string;
	item: ItemContext;
	form: RequestForm;
	request: IHttpRequestOptions;
}

/**
 * Sends the step's request as a bulk send sends an item (../sendLoop/send.ts), within the default
 * Max Wait, and reads the answer with the plain operation's reader. Remembered for Retry On Fail:
 * a retry never sends the message again when the service may have it.
 */
async function sendStep(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
	{ name, item, form, request }: Step,
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

/** A field's value as sent: at its place in the request, as its checks left it (a phone as digits). */
function sentValue({ form, request }: Step, parameter: string): string | undefined {
	const field = form.fields.find((candidate) => candidate.parameter === parameter);
	const value = field?.to.reduce<unknown>(
		(at, key) => (at as IDataObject | undefined)?.[key],
		request,
	);
	return value === undefined ? undefined : String(value);
}

function messageIdIn(answer: IDataObject | undefined): string | undefined {
	const found = MESSAGE_ID_KEYS.map((key) => answer?.[key]).find(
		(value) => typeof value === 'string' || typeof value === 'number',
	);
	return found === undefined ? undefined : String(found);
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
	const channelName = this.getNodeParameter('sendAndWaitChannel', 0) as string;
	if (!Object.keys(CHANNELS).includes(channelName))
		throw new NodeOperationError(node, `Channel: "${String(channelName)}" is not a channel`, {
			description: `Pick one of: ${Object.keys(CHANNELS).join(', ')}.`,
		});
	const channel = CHANNELS[channelName];
	// The answer page must be one the recipient can fill in.
	const page = pageOf(this);
	if ('problem' in page)
		throw new NodeOperationError(node, page.problem, { description: page.fix, itemIndex: 0 });
	const limit = waitTill(this);
	requireSignedResume(this);
	const resumeUrl = this.getSignedResumeUrl();
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	const settings = settingsFor(this, credentials)(0);
	/** A step's request as its plain operation builds one: each field's value (`given` first), then every check. */
	const step = async (name: string, form: RequestForm, given: IDataObject): Promise<Step> => {
		const item = itemContext(this, 0);
		const values = form.fields.map(({ parameter, locator }) =>
			parameter in given
				? given[parameter]
				: this.getNodeParameter(
						parameter,
						0,
						undefined,
						locator ? { extractValue: true } : undefined,
					),
		);
		const { request } = await buildRequest(
			item,
			form,
			description.requestDefaults,
			values,
			settings,
		);
		return { name, item, form, request };
	};
	const lead = String(this.getNodeParameter('options.messageButtonLabel', 0, '') || 'Answer here');
	// The Channel option and its fields make this node's request form its channel's plain send's.
	const messageForm = requestForm(description, node);
	const message = async (link: string) =>
		await step('message', messageForm, { message: `${page.question.trim()}\n\n${lead}: ${link}` });
	let kept: Kept;
	try {
		let ready = await message(resumeUrl);
		if (channel.shortensLink && this.getNodeParameter('shortenLink', 0, true) === true) {
			const shortenForm = requestForm(description, { ...node, parameters: SHORTEN });
			const shorten = await step('shortLink.create', shortenForm, { longUrl: resumeUrl });
			ready = await message(shortUrlOf(this, await sendStep(this, credentials, shorten, memory)));
		}
		const answer = await sendStep(this, credentials, ready, memory);
		const question = {
			channel: channelName,
			instance: sentValue(ready, channel.instance[1]),
			recipient: sentValue(ready, channel.recipient[1]),
			messageId: messageIdIn(answer[0]?.json),
		};
		kept = { page, question };
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
	keep(this, kept);
	setOutputOnTimeout(this, limit, kept);
	await this.putExecutionToWait(limit);
	return [items];
}
