import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import type { RequestSpec } from '../form/operations';
import { DEFAULT_MAX_WAIT_SECONDS } from '../form/settings';
import { settingsFor, CREDENTIAL_NAME } from '../service/account';
import { requireSignedResume } from '../n8nInternals';
import { clock } from '../clock';
import { smsFacts } from '../checks/sms';
import { shortLinkCreateOperation } from '../resources/shortLink/create';
import type { RequestForm } from '../sendLoop/itemRequest';
import { buildRequest, itemContext, readField, requestForm } from '../sendLoop/itemRequest';
import { joinLane } from '../sendLoop/lane';
import { executionIdOf, RunMemory, sentEarlier } from '../sendLoop/runMemory';
import type { SendOutcome } from '../sendLoop/send';
import { asNodeError, errorItemError, failureOf, send } from '../sendLoop/send';
import type { Channel } from './channels';
import { CHANNELS, plainField, questionField } from './channels';
import { pageOf } from './page';
import type { Kept } from './webhook';
import { keepAndWait } from './webhook';

/** Send and Wait has no Send Options: it waits the default Max Wait, then is run again later. */
const maxWaitMs = DEFAULT_MAX_WAIT_SECONDS * 1000;
const advice = {
	notReached: `The service did not answer again within ${DEFAULT_MAX_WAIT_SECONDS / 60} minutes; run the execution again later.`,
	refused: 'Run the execution again later.',
};

/** Short Link's answer is not documented (README, Assumptions); the sandbox answers `shortUrl`. */
const SHORT_URL_FIELDS = ['shortUrl', 'shortLink', 'short', 'url'];

/** The service does not document its send answers: the first of these with a value is the id. */
const MESSAGE_ID_KEYS = ['messageId', 'id', 'idMessage', 'message_id'];

/** A request of Send and Wait's (the question, the short link), from the values given it. */
type Built = { form: RequestForm; values: unknown[] } & Awaited<ReturnType<typeof buildRequest>>;

/** The question as the channel's plain send's request: its instance and recipient, the question, its checks. */
const questionSpec = (channel: Channel): RequestSpec => ({
	...channel.send,
	body: { ...channel.send.body, ...channel.body },
	preSend: [...(channel.send.preSend ?? []), ...(channel.checks ?? [])],
	fields: [
		plainField(channel, channel.instance),
		plainField(channel, channel.recipient),
		questionField,
	],
});

/** Who was asked, from the values sent: the recipient's phone as read, or its identifier. */
function askedOn({ form, values, readings }: Built, { instance, recipient }: Channel) {
	const valueOf = (name: string) => {
		const value = values[form.fields.findIndex((field) => field.parameter === name)];
		return value === undefined ? undefined : String(value).trim();
	};
	return { instance: valueOf(instance), recipient: readings.phone?.digits ?? valueOf(recipient) };
}

/**
 * Sends a request of Send and Wait's (the question, the short link) as a bulk send sends an item
 * (../sendLoop/send.ts), within the default Max Wait, and nothing once the execution is cancelled
 * (its link would lead nowhere); reads the answer with the plain operation's reader. The question
 * is kept in the run's `memory` at once: neither Retry On Fail nor n8n's Retry sends it again once
 * the service may have it. A short link is made again on a retry: one leads to its execution only.
 */
async function sendStep(
	fns: IExecuteFunctions,
	credentials: ICredentialDataDecryptedObject,
	{ form, request }: Built,
	memory?: RunMemory,
): Promise<INodeExecutionData[]> {
	const input = fns.getInputData();
	let outcome: SendOutcome | undefined = memory?.get(0, input[0]);
	const earlier = outcome && 'sent' in outcome && sentEarlier(outcome, executionIdOf(fns));
	if (earlier)
		throw new NodeOperationError(
			fns.getNode(),
			`Execution ${earlier.executionId} already sent this question`,
			{
				description: `It is not sent again. Its answer link leads to execution ${earlier.executionId}, which no longer waits: to ask again, run the workflow again instead of retrying.`,
			},
		);
	if (!outcome) {
		const stopped = () => Boolean(fns.getExecutionCancelSignal()?.aborted);
		const lane = joinLane(credentials, { maxInFlight: 1, maxWaitMs, stopped });
		lane.remaining = 1;
		const sender = { fns, credentials, lane, maxWaitMs, advice, waitAside: clock.sleep };
		try {
			outcome = await send(sender, itemContext(fns, 0), form, request);
		} finally {
			lane.leave();
		}
	}
	if ('sent' in outcome || 'unsure' in outcome) memory?.keep(input, [outcome]);
	if ('sent' in outcome) return outcome.sent;
	throw failureOf(fns, outcome, 0);
}

const firstIn = (answer: INodeExecutionData[], keys: string[], fits: (value: unknown) => boolean) =>
	keys.map((key) => answer[0]?.json?.[key]).find(fits);

function shortUrlOf(fns: IExecuteFunctions, answer: INodeExecutionData[]): string {
	const isUrl = (value: unknown) => typeof value === 'string' && /^https?:\/\//.test(value);
	const found = firstIn(answer, SHORT_URL_FIELDS, isUrl);
	if (typeof found === 'string') return found;
	throw new NodeOperationError(
		fns.getNode(),
		'Shorten Link: the Short Link endpoint gave no short address; nothing was sent',
		{
			description: `Its answer has none of ${SHORT_URL_FIELDS.join(', ')}. Turn Shorten Link off to send the full link.`,
		},
	);
}

/** Limit Wait Time's units, as n8n names them (in its order: by name), in milliseconds. */
export const UNIT_MS: Record<string, number> = {
	days: 86_400_000,
	hours: 3_600_000,
	minutes: 60_000,
	seconds: 1000,
};

/** Read before anything is sent, so a bad limit never leaves a question nobody waits for. */
export function waitTill(fns: IExecuteFunctions): Date {
	const limit = fns.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	const refuse = (message: string, description: string) =>
		new NodeOperationError(fns.getNode(), `Limit Wait Time: ${message}`, { description });
	if (!limit.limitType) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at.getTime()))
			throw refuse(
				'Max Date and Time is not a date',
				'Pick a date and time, or remove Limit Wait Time.',
			);
		return at;
	}
	const amount = Number(limit.resumeAmount ?? 0);
	const unit = UNIT_MS[String(limit.resumeUnit ?? 'hours')];
	if (!(amount >= 0) || !unit)
		throw refuse('Amount must be 0 or more', 'Enter how long to wait, or remove Limit Wait Time.');
	return new Date(Date.now() + amount * unit);
}

/**
 * Send and Wait for Response, as n8n's `customOperations`: the question and n8n's signed link to
 * this execution's answer page go out through the channel's plain send, then the execution waits;
 * the node's `webhook` gives its output. Every check runs before the first request (the link is
 * shortened only once the message is known to be valid). The link never carries the API token.
 */
export function sendAndWait(description: INodeTypeDescription) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
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
		/** A request as its plain operation builds it: values (`given` first), Request Options, checks. */
		const build = async (form: RequestForm, given: IDataObject): Promise<Built> => {
			const values = form.fields.map((field) =>
				field.parameter in given ? given[field.parameter] : readField(this, field, 0),
			);
			const defaults = description.requestDefaults;
			const item = itemContext(this, 0);
			const settings = settingsFor(this, credentials)(0);
			return { form, values, ...(await buildRequest(item, form, defaults, values, settings)) };
		};
		const lead = this.getNodeParameter('options.messageButtonLabel', 0, '') || 'Answer here';
		const messageForm = requestForm(questionSpec(channel), node);
		const message = async (link: string, form = messageForm) =>
			await build(form, { message: `${page.question.trim()}\n\n${lead}: ${link}` });
		let question: Kept['question'];
		try {
			const memory = await RunMemory.recall(this);
			// A question the service has, or may have, is not sent again: no link to shorten for it.
			const asked = memory.get(0, items[0]);
			const shortens =
				channel.shortensLink && this.getNodeParameter('shortenLink', 0, true) === true && !asked;
			// Checked before a short link is made; its cost (SMS Options) on the text sent, short link
			// included, and never on a question an earlier run sent.
			const checks = messageForm.checks.filter((check) => !channel.checks?.includes(check));
			const final = !shortens && !asked;
			let ready = await message(resumeUrl, final ? messageForm : { ...messageForm, checks });
			if (shortens) {
				const shortenForm = requestForm(shortLinkCreateOperation, node);
				const longUrl = await build(shortenForm, { longUrl: resumeUrl });
				ready = await message(shortUrlOf(this, await sendStep(this, credentials, longUrl)));
			}
			const answer = await sendStep(this, credentials, ready, memory);
			const messageId = firstIn(answer, MESSAGE_ID_KEYS, (value) =>
				['string', 'number'].includes(typeof value),
			);
			question = {
				channel: channelName,
				...askedOn(ready, channel),
				messageId: messageId === undefined ? undefined : String(messageId),
				// What the SMS cost, as a Send SMS output says it (not known of one an earlier run sent).
				...(ready.readings.sms && !asked && { smsCost: smsFacts(ready.readings.sms) }),
			};
		} catch (error) {
			// On Error: Continue: the message failed, nobody can answer, so the execution goes on.
			const failed = asNodeError(this, error, 0);
			if (!this.continueOnFail()) throw failed;
			return [[{ json: {}, error: errorItemError(failed), pairedItem: { item: 0 } }]];
		}
		// Sent: what follows (keep the page, set the timeout's output, wait) does not send again.
		await keepAndWait(this, { page, question }, limit);
		RunMemory.forget(this);
		return [items];
	};
}
