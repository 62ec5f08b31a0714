/**
 * Send and Wait for Response through n8n's engine, up to the wait: what is sent, what is
 * checked before, and when the execution does not wait. The answer itself (the webhook, in real
 * n8n) is in test/e2e/sendAndWait.e2e.ts.
 */
import { ExecuteContext } from 'n8n-core';
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ConversationalMessaging } from '../../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import type { Kept } from '../../../../nodes/ConversationalMessaging/sendAndWait/webhook';
import { allFields } from '../../../../nodes/ConversationalMessaging/form/operations';
import { sendAndWaitOperation } from '../../../../nodes/ConversationalMessaging/resources/messaging/sendAndWait';
import { CHANNELS } from '../../../../nodes/ConversationalMessaging/sendAndWait/channels';
import { evidenceOf } from '../../../../nodes/ConversationalMessaging/sendAndWait/group';
import { onSkippingClock } from '../../../helpers/nodeClock';
import { runNode } from '../../../helpers/engine';
import { onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';
import { closedPortUrl } from '../../../reliability/operations';

const suite = useSandbox();
const ask = {
	resource: 'messaging',
	operation: 'sendAndWait',
	message: 'Refund of 400 USD for order 17: approve?',
	responseType: 'approval',
};
const sms = {
	...ask,
	sendAndWaitChannel: 'sms',
	instance: 'line-1',
	to: '+57 300 555 0199',
};
/** What the node kept in its context for the webhook (sendAndWait/webhook.ts). */
function keptOf(result: Pick<Awaited<ReturnType<typeof suite.run>>, 'run'>): Kept {
	const contextData = result.run.data.executionData?.contextData ?? {};
	return (contextData['node:Conversational Messaging'] as { sendAndWait: Kept }).sendAndWait;
}
/** The service refuses the next SMS (HTTP 500): nothing was sent. */
const refuseOneSms = () =>
	suite.sandbox.injectFault({
		kind: 'status',
		status: 500,
		match: { operationId: 'smsSend' },
		times: 1,
	});
const SIGNED_LINK =
	/^http:\/\/127\.0\.0\.1:5678\/webhookWaiting\/\d+\/node\?to=1&signature=[\w-]+$/;

describe('Send and Wait for Response', () => {
	it('shortens the signed link, sends the question by SMS with it, and waits', async () => {
		const result = await suite.run(sms);
		expect(result.error).toBeUndefined();
		expect(result.run.data.waitTill).toBeInstanceOf(Date);
		expect(result.requests.map((request) => request.path)).toEqual(['/v1/short', '/v1/sms']);
		const [shorten, send] = result.requests.map(sentBody);
		expect(shorten.longUrl).toMatch(SIGNED_LINK);
		const short = [...suite.sandbox.state.shortLinks.values()].find(
			(link) => link.longUrl === shorten.longUrl,
		);
		expect(send).toEqual({
			type: 'text',
			to: '573005550199',
			instance: 'line-1',
			body: `Refund of 400 USD for order 17: approve?\n\nAnswer here: ${short?.shortUrl}`,
		});
		expect(JSON.stringify(result.requests.map(sentBody))).not.toContain(suite.sandbox.token);
	});

	it('sends the full link when Shorten Link is off, and on the other channels by default', async () => {
		const result = await suite.run({
			...ask,
			sendAndWaitChannel: 'socialnet',
			socialnetInstance: 'line-1',
			recipientId: 'psid-9',
		});
		const body = sentBody(onlyRequest(result, suite.sandbox.token));
		expect(body).toEqual({
			type: 'text',
			to: 'psid-9',
			instance: 'line-1',
			body: expect.stringMatching(
				/^Refund of 400 USD for order 17: approve\?\n\nAnswer here: http:\/\/127/,
			),
		});
		expect(String(body.body).split('Answer here: ')[1]).toMatch(SIGNED_LINK);
		const unshortened = await suite.run({ ...sms, shortenLink: false });
		expect(unshortened.requests.map((request) => request.path)).toEqual(['/v1/sms']);
	});

	it('fails before anything is sent on a bad recipient or a missing instance, naming the field', async () => {
		const badPhone = await suite.run({ ...sms, to: 'call me maybe' });
		expect(badPhone.error?.message).toMatch(/Recipient Phone/);
		expect(badPhone.requests).toEqual([]);
		const noInstance = await suite.run({
			...ask,
			sendAndWaitChannel: 'chatapp',
			legacyInstance: '={{ "" }}',
			recipient: '573005550102',
		});
		expect(noInstance.error?.message).toMatch(/Instance/);
		expect(noInstance.requests).toEqual([]);
	});

	it('asks one question per execution: several items stop before sending', async () => {
		const result = await suite.run(sms, { items: [{}, {}, {}] });
		expect(result.error?.message).toBe(
			'Send and Wait asks one question per execution; it received 3 items',
		);
		expect(result.requests).toEqual([]);
	});

	it('with On Error: Continue, a refused message comes out as an error item and nothing waits', async () => {
		suite.sandbox.injectFault({
			kind: 'status',
			status: 500,
			match: { operationId: 'smsSend' },
			times: 1,
		});
		try {
			const result = await suite.run({ ...sms, shortenLink: false }, { continueOnFail: true });
			expect(result.run.data.waitTill).toBeUndefined();
			expect(result.items).toHaveLength(1);
			expect(result.items[0].json.error).toBeDefined();
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it('with Retry On Fail, never sends the question again when the service may have it (an unreadable 2xx answer)', async () => {
		suite.sandbox.injectFault({ kind: 'malformed', match: { operationId: 'smsSend' }, times: 1 });
		try {
			const result = await suite.run(
				{ ...sms, shortenLink: false },
				{ retryOnFail: { maxTries: 2, waitBetweenTries: 10 } },
			);
			expect(result.requests.map((request) => request.path)).toEqual(['/v1/sms']);
			expect(result.error?.message).toBeDefined();
			expect(result.run.data.waitTill).toBeUndefined();
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it('with Retry On Fail, a try after a refused question sends it once, with a link to this execution, and keeps nothing once it waits', async () => {
		refuseOneSms();
		try {
			const result = await suite.run(sms, { retryOnFail: { maxTries: 2, waitBetweenTries: 10 } });
			expect(result.error).toBeUndefined();
			expect(result.requests.map((request) => [request.path, request.status])).toEqual([
				['/v1/short', 200],
				['/v1/sms', 500],
				['/v1/short', 200],
				['/v1/sms', 200],
			]);
			const [first, , second] = result.requests.map(sentBody);
			expect(second.longUrl).toBe(first.longUrl);
			expect(result.run.data.waitTill).toBeInstanceOf(Date);
			const context = result.run.data.executionData?.contextData['node:Conversational Messaging'];
			expect(Object.keys(context ?? {})).toEqual(['sendAndWait']);
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it("n8n's Retry of an execution whose question was refused shortens a link to its own page and asks", async () => {
		refuseOneSms();
		try {
			const failed = await suite.run(sms);
			expect(failed.requests.map((request) => request.status)).toEqual([200, 500]);
			const before = suite.sandbox.requests.length;
			const retried = await failed.retry();
			expect(retried.error).toBeUndefined();
			expect(retried.run.data.waitTill).toBeInstanceOf(Date);
			const requests = suite.sandbox.requests.slice(before);
			expect(requests.map((request) => request.path)).toEqual(['/v1/short', '/v1/sms']);
			const [shorten] = requests.map(sentBody);
			expect(shorten.longUrl).toContain(`/webhookWaiting/${retried.executionId}/`);
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it("n8n's Retry of an execution whose question the service may have (an unreadable 2xx answer) sends nothing, no short link either, and says so", async () => {
		suite.sandbox.injectFault({ kind: 'malformed', match: { operationId: 'smsSend' }, times: 1 });
		try {
			const failed = await suite.run(sms);
			expect(failed.requests.map((request) => request.path)).toEqual(['/v1/short', '/v1/sms']);
			const before = suite.sandbox.requests.length;
			const carried = `Execution ${failed.executionId} may have carried this item out already: it is not sent again`;
			const retried = await failed.retry();
			expect(retried.error?.message).toBe(carried);
			// A Retry of that Retry says the same: the record is this execution's now.
			const again = await retried.retry();
			expect(again.error?.message).toBe(carried);
			expect(suite.sandbox.requests.length).toBe(before);
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it('with Retry On Fail, a question sent before the wait failed is not sent again on the next try', async () => {
		const wait = jest.spyOn(ExecuteContext.prototype, 'putExecutionToWait');
		wait.mockRejectedValueOnce(new Error('the database did not answer'));
		const result = await suite.run(
			{ ...sms, shortenLink: false },
			{ retryOnFail: { maxTries: 2, waitBetweenTries: 10 } },
		);
		wait.mockRestore();
		expect(result.error).toBeUndefined();
		expect(result.requests.map((request) => request.path)).toEqual(['/v1/sms']);
		expect(result.run.data.waitTill).toBeInstanceOf(Date);
	});

	it("n8n's Retry of an execution that sent its question but could not wait asks nothing again: the link leads to that execution", async () => {
		const wait = jest.spyOn(ExecuteContext.prototype, 'putExecutionToWait');
		wait.mockRejectedValueOnce(new Error('the database did not answer'));
		const failed = await suite.run({ ...sms, shortenLink: false });
		wait.mockRestore();
		expect(failed.error?.message).toBe('the database did not answer');
		const before = suite.sandbox.requests.length;
		const retried = await failed.retry();
		expect(suite.sandbox.requests.length).toBe(before);
		expect(retried.error?.message).toBe(
			`Execution ${failed.executionId} already sent this question`,
		);
		expect(retried.run.data.waitTill).toBeUndefined();
	});

	it('a service that cannot be reached is waited for as a bulk send waits (the first contact: 10 s), and nothing is sent', async () => {
		const baseUrl = await closedPortUrl();
		const result = await onSkippingClock(
			async () =>
				await runNode({
					parameters: { ...sms, shortenLink: false },
					credentials: { baseUrl, apiToken: 'x' },
				}),
		);
		expect(result.error?.message).toMatch(
			/^Could not connect to the service at 127\.0\.0\.1:\d+ for 10 s: the connection was refused$/,
		);
		expect(result.run.data.waitTill).toBeUndefined();
	});

	it('sends the question again after the wait a "too fast" answer asks, and only then waits', async () => {
		suite.sandbox.injectFault({
			kind: 'status',
			status: 429,
			retryAfter: 1,
			match: { operationId: 'smsSend' },
			times: 1,
		});
		try {
			const result = await onSkippingClock(
				async () => await suite.run({ ...sms, shortenLink: false }),
			);
			expect(result.error).toBeUndefined();
			expect(result.requests.map((request) => request.status)).toEqual([429, 200]);
			expect(result.run.data.waitTill).toBeInstanceOf(Date);
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it('Limit Wait Time: when the limit ends the wait, n8n resumes the execution and the output says it timed out, with the question asked, on the input item', async () => {
		const limited = {
			...sms,
			shortenLink: false,
			options: {
				limitWaitTime: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' },
				},
			},
		};
		const input = { order: 17, data: { from: 'the trigger' } };
		const waiting = await suite.run(limited, { items: [input] });
		expect(waiting.run.data.waitTill).toBeInstanceOf(Date);
		const limit = (waiting.run.data.waitTill as Date).toISOString();
		const sent = [...suite.sandbox.state.sentMessages.values()].at(-1);
		expect(sent?.id).toEqual(expect.any(String));
		const resumed = await waiting.resumeOnTimeout();
		expect(resumed.error).toBeUndefined();
		expect(resumed.run.data.waitTill).toBeUndefined();
		expect(resumed.items).toEqual([
			{
				json: {
					order: 17,
					data: { timedOut: true, timedOutAt: limit, approved: false },
					question: {
						channel: 'sms',
						instance: 'line-1',
						askedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
						recipients: [
							{
								recipient: '573005550199',
								messageId: sent?.id,
								smsCost: { encoding: 'GSM-7', segments: 2, characters: expect.any(Number) },
							},
						],
					},
				},
				pairedItem: { item: 0 },
			},
		]);

		// Without an approval to decline, a form or free text says only that it timed out.
		const freeText = await suite.run({ ...limited, responseType: 'freeText' });
		const [item] = (await freeText.resumeOnTimeout()).items;
		expect(item.json.data).toEqual({ timedOut: true, timedOutAt: expect.any(String) });
	});

	it('with Limit Wait Time, the question and the page read the input item as it came, its data and question included (which a timeout sets)', async () => {
		const limit = {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' },
			},
		};
		const items = [{ question: 'Refund?', data: { order: 17 } }];
		const result = await suite.run(
			{
				...sms,
				shortenLink: false,
				message: '={{ $json.question }} {{ $json.data.order }}',
				options: { ...limit, responseFormTitle: '=Order {{ $json.data.order }}' },
			},
			{ items },
		);
		expect(result.error).toBeUndefined();
		expect(result.run.data.waitTill).toBeInstanceOf(Date);
		expect(sentBody(onlyRequest(result, suite.sandbox.token)).body).toMatch(/^Refund\? 17\n/);
		// The page is drawn from what execute read, not from the node's expressions again.
		const { page } = keptOf(result);
		expect([page.question, page.view.formTitle]).toEqual(['Refund? 17', 'Order 17']);
	});

	it('without Limit Wait Time, the execution waits for ever and keeps its input as it was', async () => {
		const waiting = await suite.run({ ...sms, shortenLink: false });
		const stack = waiting.run.data.executionData?.nodeExecutionStack ?? [];
		expect(stack.map((entry) => entry.data.main[0]?.map((item) => item.json))).toEqual([[{}]]);
	});

	it("derives each channel's fields from its plain send: same labels, place in the request and checks, shown for that channel only", () => {
		const { properties } = new ConversationalMessaging().description;
		for (const [channel, { send, instance, recipient }] of Object.entries(CHANNELS)) {
			for (const name of [instance, recipient]) {
				const plain = allFields(send.fields).find((field) => field.name === name);
				// Send and Wait's, shown for this channel (the plain send's own has the same name).
				const derived = sendAndWaitOperation.fields?.find(
					(field) =>
						field.name === name &&
						(field.displayOptions?.show?.sendAndWaitChannel as string[] | undefined)?.includes(
							channel,
						),
				);
				const described = properties.filter(
					(property) =>
						property.name === name &&
						(property.displayOptions?.show?.operation as string[]).includes('sendAndWait'),
				);
				expect([derived?.displayName, derived?.required, derived?.sent]).toEqual([
					plain?.displayName,
					plain?.required,
					plain?.sent,
				]);
				expect(derived?.sent).toBe(plain?.sent);
				expect(
					described.map((property) => property.displayOptions?.show?.sendAndWaitChannel),
				).toEqual([[channel]]);
			}
		}
	});

	it("keeps with the execution who was asked, where, and the message's id, and the page, for the answer", async () => {
		const before = Date.now();
		const result = await suite.run({ ...sms, shortenLink: false });
		const sent = [...suite.sandbox.state.sentMessages.values()].at(-1);
		const kept = keptOf(result);
		// When the question went: the one who answers, or the timeout, says it since.
		const askedAt = Date.parse(kept.question.askedAt);
		expect(askedAt >= before && askedAt <= Date.now()).toBe(true);
		expect(kept.question).toEqual({
			channel: 'sms',
			instance: 'line-1',
			askedAt: kept.question.askedAt,
			recipients: [
				{
					recipient: '573005550199',
					messageId: sent?.id,
					smsCost: { encoding: 'GSM-7', segments: 2, characters: String(sent?.body).length },
				},
			],
		});
		expect(kept.page).toEqual(expect.objectContaining({ question: sms.message, fields: [] }));
		expect(JSON.stringify(kept)).not.toContain(suite.sandbox.token);
	});

	it('refuses a custom form nobody could fill in, and two approval buttons of one label, before sending', async () => {
		const cases: Array<[Record<string, unknown>, RegExp]> = [
			[
				{ responseType: 'customForm', defineForm: 'json', jsonOutput: '[{"fieldLabel": "A"' },
				/JSON cannot be read/,
			],
			[{ responseType: 'customForm', defineForm: 'json', jsonOutput: '[]' }, /has no fields/],
			[
				{
					responseType: 'customForm',
					defineForm: 'json',
					jsonOutput: '[{"fieldLabel": "Day", "fieldType": "date", "formatDate": "dd/MM"}]',
				},
				/field 1: "formatDate" is not supported here/,
			],
			[
				{
					responseType: 'customForm',
					formFields: {
						values: [{ fieldLabel: 'Slot', fieldType: 'dropdown', fieldOptions: { values: [] } }],
					},
				},
				/field 1 \("Slot"\) has an empty choice/,
			],
			[
				{
					responseType: 'customForm',
					formFields: {
						values: [{ fieldLabel: 'Name' }, { fieldLabel: 'Name', fieldType: 'email' }],
					},
				},
				/field 2: "Name" names two fields/,
			],
			[
				{
					approvalOptions: {
						values: { approvalType: 'double', approveLabel: 'Yes', disapproveLabel: 'Yes' },
					},
				},
				/same label/,
			],
		];
		for (const [parameters, message] of cases) {
			const result = await suite.run({ ...sms, ...parameters });
			expect(result.error?.message).toMatch(message);
			expect(result.requests).toEqual([]);
		}
	});

	it("gives n8n's form view the question escaped, the fields as n8n's form does, and CSS that cannot close its element", async () => {
		const result = await suite.run({
			...sms,
			shortenLink: false,
			message: '<script>alert(1)</script> & "x"\nline two',
			responseType: 'customForm',
			formFields: {
				values: [
					{
						fieldLabel: '<b>Slot</b>',
						fieldType: 'dropdown',
						requiredField: true,
						fieldOptions: { values: [{ option: 'AM' }, { option: 'PM' }] },
					},
					{
						fieldLabel: 'Rating',
						fieldType: 'radio',
						fieldOptions: { values: [{ option: '1' }, { option: '2' }] },
					},
					{ fieldType: 'html', html: '<img src=x onerror=alert(3)>Thanks <b>a lot</b>' },
					{ fieldType: 'hiddenField', fieldName: 'ref', fieldValue: 'order-17' },
				],
			},
			options: {
				responseFormTitle: 'Delivery',
				responseFormButtonLabel: 'Send',
				responseFormCustomCss:
					':root{--color-submit-btn-bg:#1f6feb}</style><script>alert(2)</script>',
			},
		});
		expect(result.error).toBeUndefined();
		const data = keptOf(result).page.view;
		expect(data.formDescription).toBe(
			'&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;<br>line two',
		);
		expect(data.dangerousCustomCss).not.toContain('<');
		expect(data.formFields).toEqual([
			expect.objectContaining({
				id: 'field-0',
				label: '<b>Slot</b>',
				inputRequired: 'form-required',
				isSelect: true,
				selectOptions: ['AM', 'PM'],
			}),
			expect.objectContaining({
				id: 'field-1',
				inputRequired: '',
				isMultiSelect: true,
				radioSelect: 'radio',
			}),
			expect.objectContaining({ id: 'field-2', isHtml: true, html: 'Thanks a lot' }),
			expect.objectContaining({ id: 'field-3', isHidden: true, hiddenValue: 'order-17' }),
		]);
	});
});

describe('Send and Wait to a group', () => {
	const group = { ...sms, to: '+57 300 555 0101, +57 300 555 0102;\n+57 300 555 0103' };
	/** The next SMS to this phone: refused (errTrue), or answered unreadably (malformed: the service may have it). */
	const faultFor = (to: string, kind: 'errTrue' | 'malformed' = 'errTrue', message?: string) =>
		suite.sandbox.injectFault({
			kind,
			...(message && { message }),
			match: { operationId: 'smsSend', body: { to } },
			times: 1,
		} as Parameters<typeof suite.sandbox.injectFault>[0]);
	/** The place each link names, by the phone its SMS went to. */
	const placesByPhone = () =>
		new Map(
			[...suite.sandbox.state.sentMessages.values()].map((message) => {
				const link = String(message.body).split('Answer here: ')[1];
				const long = [...suite.sandbox.state.shortLinks.values()].find(
					(short) => short.shortUrl === link,
				)?.longUrl;
				return [message.to, new URL(long ?? link).searchParams.get('to')];
			}),
		);

	it('sends each recipient the question with a link of their own, once per person, and keeps who got which message', async () => {
		suite.sandbox.state.sentMessages.clear();
		// The third is the first written another way: one person, one question.
		const result = await suite.run({ ...group, to: `${group.to}, 573005550101` });
		expect(result.error).toBeUndefined();
		expect(result.run.data.waitTill).toBeInstanceOf(Date);
		expect(result.requests.map((request) => request.path)).toEqual([
			'/v1/short',
			'/v1/short',
			'/v1/short',
			'/v1/sms',
			'/v1/sms',
			'/v1/sms',
		]);
		// Each link signed for its recipient's place (n8n refuses one altered to another place).
		expect(placesByPhone()).toEqual(
			new Map([
				['573005550101', '1'],
				['573005550102', '2'],
				['573005550103', '3'],
			]),
		);
		const longUrls = result.requests
			.filter((request) => request.path === '/v1/short')
			.map((request) => String(sentBody(request).longUrl));
		expect(new Set(longUrls.map((url) => new URL(url).searchParams.get('signature'))).size).toBe(3);
		const sent = [...suite.sandbox.state.sentMessages.values()];
		expect(keptOf(result).question.recipients).toEqual(
			['573005550101', '573005550102', '573005550103'].map((recipient) => ({
				recipient,
				messageId: sent.find((message) => message.to === recipient)?.id,
				smsCost: expect.objectContaining({ encoding: 'GSM-7' }),
			})),
		);
	});

	it('takes a list from an expression, as an earlier node gives phones', async () => {
		suite.sandbox.state.sentMessages.clear();
		const result = await suite.run(
			{ ...sms, shortenLink: false, to: '={{ $json.phones }}' },
			{ items: [{ phones: ['+57 300 555 0104', '+57 300 555 0105'] }] },
		);
		expect(result.error).toBeUndefined();
		expect([...placesByPhone()]).toEqual([
			['573005550104', '1'],
			['573005550105', '2'],
		]);
	});

	it('a group cut short by a cancel fails with the stop, never waits: what was sent stays remembered for a Retry', () => {
		const fns = {
			getNode: () => ({ name: 'Ask' }),
			getExecutionCancelSignal: () => undefined,
		} as unknown as IExecuteFunctions;
		const stop = new NodeOperationError(fns.getNode(), 'The execution was cancelled');
		const group = [
			{ to: 'a', who: '573005550101' },
			{ to: 'b', who: '573005550102' },
		];
		const sentOne = { sent: [{ json: { id: 'msg-1' } }] };
		expect(() => evidenceOf(fns, group, [sentOne, { stopped: stop }], () => undefined)).toThrow(
			stop,
		);
		// Cancelled while the last question was out: nothing says stopped, the signal does.
		const cancelled = {
			...fns,
			getExecutionCancelSignal: () => ({ aborted: true }),
		} as unknown as IExecuteFunctions;
		expect(() => evidenceOf(cancelled, group, [sentOne, sentOne], () => undefined)).toThrow(
			'The execution was cancelled while sending',
		);
		expect(evidenceOf(fns, group, [sentOne, sentOne], () => undefined)).toEqual([
			{ recipient: '573005550101', messageId: 'msg-1' },
			{ recipient: '573005550102', messageId: 'msg-1' },
		]);
	});

	it('refuses more than 50 recipients before anything is sent: a question is not a bulk send', async () => {
		const phones = Array.from(
			{ length: 51 },
			(_, i) => `+57 300 555 ${String(i).padStart(4, '0')}`,
		);
		const result = await suite.run({ ...sms, to: phones.join(', ') });
		expect(result.error?.message).toBe(
			'Recipient Phone: 51 recipients; Send and Wait asks at most 50',
		);
		expect(result.requests).toEqual([]);
	});

	it('fails before anything is sent when one recipient of the group is not a phone number, naming the field', async () => {
		const result = await suite.run({ ...group, to: '+57 300 555 0101, call me maybe' });
		expect(result.error?.message).toMatch(/Recipient Phone/);
		expect(result.requests).toEqual([]);
	});

	it('waits for those the question reached, and says whom the service refused and why', async () => {
		faultFor('573005550102', 'errTrue', 'Number is blacklisted');
		try {
			const result = await suite.run({ ...group, shortenLink: false });
			expect(result.error).toBeUndefined();
			expect(result.run.data.waitTill).toBeInstanceOf(Date);
			const [first, refused, third] = keptOf(result).question.recipients;
			expect([first.messageId, third.messageId]).toEqual([expect.any(String), expect.any(String)]);
			expect(refused).toEqual({
				recipient: '573005550102',
				notSent: expect.stringContaining('Number is blacklisted'),
			});
			// Said above the output, as a warning: they cannot answer.
			const hints = result.run.data.resultData.runData['Conversational Messaging'][0].hints ?? [];
			expect(hints.map(({ message, type }) => [type, message])).toEqual([
				[
					'warning',
					expect.stringMatching(
						/^Send and Wait: 1 recipient of 3 may not have this question's link: 573005550102 \(.*Number is blacklisted/,
					),
				],
			]);
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it('a Retry with the saved workflow, its recipients in another order, still asks nobody twice', async () => {
		faultFor('573005550101', 'malformed');
		faultFor('573005550102');
		try {
			const pair = { ...sms, shortenLink: false, to: '+57 300 555 0101, +57 300 555 0102' };
			const failed = await suite.run(pair);
			expect(failed.error).toBeDefined();
			const before = suite.sandbox.requests.length;
			const retried = await failed.retry({
				parameters: { ...pair, to: '+57 300 555 0102, +57 300 555 0101' },
			});
			expect(retried.error).toBeUndefined();
			const sends = suite.sandbox.requests.slice(before).map((request) => sentBody(request).to);
			expect(sends).toEqual(['573005550102']);
			expect(keptOf(retried).question.recipients).toEqual([
				expect.objectContaining({ recipient: '573005550102', messageId: expect.any(String) }),
				{ recipient: '573005550101', unsure: expect.any(String) },
			]);
		} finally {
			suite.sandbox.clearFaults();
		}
	});

	it("n8n's Retry of a group nobody was sent to asks each once; one the service may have is not asked again", async () => {
		faultFor('573005550101', 'malformed');
		faultFor('573005550102');
		faultFor('573005550103');
		try {
			const failed = await suite.run({ ...group, shortenLink: false });
			expect(failed.error).toBeDefined();
			const before = suite.sandbox.requests.length;
			const retried = await failed.retry();
			expect(retried.error).toBeUndefined();
			const sends = suite.sandbox.requests.slice(before).map((request) => sentBody(request).to);
			expect(sends).toEqual(['573005550102', '573005550103']);
			const [unsure, ...asked] = keptOf(retried).question.recipients;
			expect(unsure).toEqual({ recipient: '573005550101', unsure: expect.any(String) });
			expect(asked.map((recipient) => recipient.messageId)).toEqual([
				expect.any(String),
				expect.any(String),
			]);
		} finally {
			suite.sandbox.clearFaults();
		}
	});
});
