import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import type { RequestSpec } from '../form/operations';
import { settingsFor, CREDENTIAL_NAME } from '../service/account';
import { requireSignedResume } from '../n8nInternals';
import { clock } from '../clock';
import { smsFacts } from '../checks/sms';
import { shortLinkCreateOperation, shortUrlOf } from '../resources/shortLink/create';
import type { RequestForm } from '../sendLoop/itemRequest';
import { buildRequest, itemContext, readField, requestForm } from '../sendLoop/itemRequest';
import { RunMemory } from '../sendLoop/runMemory';
import type { SendOutcome } from '../sendLoop/send';
import { asNodeError, errorItemError } from '../sendLoop/send';
import { outputHint } from '../words';
import type { Channel } from './channels';
import { CHANNELS, plainField, questionField } from './channels';
import type { Member } from './group';
import {
	evidenceOf,
	GroupMemory,
	MAX_RECIPIENTS,
	notAskedWarning,
	RECIPIENT_PARAMETER,
	recipientsOf,
} from './group';
import { pageOf } from './page';
import type { Built } from './sendStep';
import { sendStep, sentOrThrown } from './sendStep';
import type { Kept } from './webhook';
import { keepAndWait } from './webhook';

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
		const credentials = await this.getCredentials(CREDENTIAL_NAME);
		/** A request as its plain operation builds it: values (`given` first), Request Options, checks. */
		const build = async (form: RequestForm, given: Record<string, unknown>): Promise<Built> => {
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
		/** One recipient's question, with their link, as the plain send builds it. */
		const message = async (to: unknown, link: string, form = messageForm) =>
			await build(form, {
				[channel.recipient]: to,
				message: `${page.question.trim()}\n\n${lead}: ${link}`,
			});
		// Each recipient's own link: n8n signs whom it is for (./webhook.ts reads it).
		const linkOf = (index: number) =>
			this.getSignedResumeUrl({ [RECIPIENT_PARAMETER]: `${index + 1}` });
		let question: Kept['question'];
		try {
			const shortens =
				channel.shortensLink && this.getNodeParameter('shortenLink', 0, true) === true;
			// Every question checked before anything is sent; the cost (SMS Options) on the text sent,
			// short link included, once that is made.
			const checks = messageForm.checks.filter((check) => !channel.checks?.includes(check));
			const firstForm = shortens ? { ...messageForm, checks } : messageForm;
			const recipientValue = messageForm.fields.find(
				(field) => field.parameter === channel.recipient,
			);
			const given = recipientsOf(recipientValue && readField(this, recipientValue, 0));
			if (given.length > MAX_RECIPIENTS)
				throw new NodeOperationError(
					node,
					`${plainField(channel, channel.recipient).displayName}: ${given.length} recipients; Send and Wait asks at most ${MAX_RECIPIENTS}`,
					{
						description: `Nothing was sent. A question is for a group of people who may answer it; to message a list, use the channel's own send (Send SMS, Send Socialnet Message...).`,
						itemIndex: 0,
					},
				);
			const group: Member[] = [];
			for (const [index, to] of given.entries()) {
				const asked = askedOn(await message(to, linkOf(index), firstForm), channel);
				// One question per person, however their number is written.
				const who = asked.recipient ?? '';
				if (!group.some((member) => member.who === who)) group.push({ ...asked, to, who });
			}
			const memory = new GroupMemory(await RunMemory.recall(this), items[0], group);
			memory.refuseAnotherExecutions(this, group);
			// The questions not sent yet, all built and checked before the first is sent.
			const shortenForm = requestForm(shortLinkCreateOperation, node);
			const ready = new Map<number, Built>();
			for (const [index, { to }] of group.entries()) {
				if (memory.done[index]) continue;
				let link = linkOf(index);
				if (shortens) {
					const longUrl = await build(shortenForm, { longUrl: link });
					link = shortUrlOf(this, sentOrThrown(this, await sendStep(this, credentials, longUrl)));
				}
				ready.set(index, await message(to, link, messageForm));
			}
			for (const [index, built] of ready)
				memory.keep(index, await sendStep(this, credentials, built));
			// What an SMS cost, as a Send SMS output says it (not known of one an earlier run sent).
			const costOf = (index: number) => {
				const sms = ready.get(index)?.readings.sms;
				return sms && smsFacts(sms);
			};
			const recipients = evidenceOf(this, group, memory.done as SendOutcome[], costOf);
			const warning = notAskedWarning(recipients);
			if (warning) this.addExecutionHints(outputHint([warning], true));
			question = {
				channel: channelName,
				instance: group[0].instance,
				askedAt: new Date(clock.now()).toISOString(),
				recipients,
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
