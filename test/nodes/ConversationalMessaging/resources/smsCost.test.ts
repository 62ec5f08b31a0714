/**
 * What an SMS costs, said before a cent is spent on more: every Send SMS output item carries its
 * encoding and segments, the run's hint counts them and names the characters that made messages
 * Unicode, SMS Options can replace look-alike characters and cap the segments of a message.
 */
import type { NodeExecutionHint } from 'n8n-workflow';

import { sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();
const NODE_NAME = 'Conversational Messaging';

const sms = (smsOptions = {}) => ({
	resource: 'messaging',
	operation: 'sendSms',
	to: '={{ $json.phone }}',
	instance: 'sms-line',
	message: '={{ $json.text }}',
	smsOptions,
});
const pasted =
	'Our spring sale starts today. It’s 20 % off everything until Sunday, in every shop and online.';
const plain = 'Our spring sale starts today: 20 % off everything until Sunday.';
const items = (...texts: string[]) =>
	texts.map((text, index) => ({ phone: `57300555${String(index).padStart(4, '0')}`, text }));

const smsHint = (run: {
	run: {
		data: { resultData: { runData: Record<string, Array<{ hints?: NodeExecutionHint[] }>> } };
	};
}) =>
	(run.run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? []).find((hint) =>
		hint.message.startsWith('SMS:'),
	);

describe('what an SMS costs', () => {
	it('each output item says its encoding and segments; the hint counts them and names the character that made them Unicode', async () => {
		const run = await suite.run(sms(), { items: items(pasted, pasted, plain) });
		expect(run.requests).toHaveLength(3);
		expect(run.items.map((item) => item.json.smsCost)).toEqual([
			{ encoding: 'UCS-2', segments: 2, characters: pasted.length },
			{ encoding: 'UCS-2', segments: 2, characters: pasted.length },
			{ encoding: 'GSM-7', segments: 1, characters: plain.length },
		]);
		expect(smsHint(run)).toEqual({
			message:
				'SMS: 3 messages, 5 segments: ’ (U+2019) made 2 of them Unicode (UCS-2: 70 characters a segment instead of 160). Replace Look-Alike Characters (SMS Options) sends the quotes, dashes and spaces pasted from documents in their GSM-7 forms.',
			type: 'warning',
			location: 'outputPane',
		});
	});

	it('no hint when every message is one GSM-7 segment', async () => {
		const run = await suite.run(sms(), { items: items(plain, plain) });
		expect(run.items.map((item) => item.json.smsCost)).toEqual([
			{ encoding: 'GSM-7', segments: 1, characters: plain.length },
			{ encoding: 'GSM-7', segments: 1, characters: plain.length },
		]);
		expect(smsHint(run)).toBeUndefined();
	});

	it('Replace Look-Alike Characters sends the pasted text as GSM-7, one segment', async () => {
		const run = await suite.run(sms({ replaceLookAlikes: true }), { items: items(pasted) });
		expect(sentBody(run.requests[0]).body).toBe(pasted.replace('’', "'"));
		expect(run.items[0].json.smsCost).toEqual({
			encoding: 'GSM-7',
			segments: 1,
			characters: pasted.length,
		});
		expect(smsHint(run)).toBeUndefined();
	});

	it('Max Segments per Message refuses a longer message before any request, naming its segments, encoding and the character to blame; the others go on', async () => {
		const run = await suite.run(sms({ maxSegments: 1 }), {
			items: items(plain, pasted, plain),
			continueOnFail: true,
		});
		expect(run.requests).toHaveLength(2);
		const fix =
			'Shorten the message, or raise Max Segments per Message (SMS Options). ’ (U+2019) made it UCS-2 (70 characters a segment, not 160): turn on Replace Look-Alike Characters (SMS Options), or write it without them. This item was not sent.';
		// The error item's message carries the fix: n8n shows an error item as its message alone.
		expect(run.items.map((item) => item.json.error ?? 'sent')).toEqual([
			'sent',
			`Message: 2 segments (UCS-2, ${pasted.length} characters), more than Max Segments per Message (1). ${fix}`,
			'sent',
		]);
		const failed = await suite.run(sms({ maxSegments: 1 }), { items: items(pasted) });
		expect(failed.requests).toEqual([]);
		expect(failed.error?.description).toBe(fix);
	});

	it('Send and Wait by SMS keeps what its question cost with its recipient', async () => {
		const result = await suite.run({
			resource: 'messaging',
			operation: 'sendAndWait',
			sendAndWaitChannel: 'sms',
			instance: 'line-1',
			to: '+57 300 555 0199',
			message: 'Refund of 400 USD for order 17: approve?',
			responseType: 'approval',
			shortenLink: false,
		});
		const contextData = result.run.data.executionData?.contextData ?? {};
		const kept = contextData['node:Conversational Messaging'] as {
			sendAndWait: { question: { recipients: Array<{ smsCost?: unknown }> } };
		};
		const { body } = sentBody(result.requests[0]) as { body: string };
		expect(kept.sendAndWait.question.recipients[0].smsCost).toEqual({
			encoding: 'GSM-7',
			segments: body.length > 160 ? 2 : 1,
			characters: body.length,
		});
	});

	it('says the text sent when Replace Look-Alike Characters changed it, and only then', async () => {
		const run = await suite.run(sms({ replaceLookAlikes: true }), { items: items(pasted, plain) });
		const replaced = pasted.replace('’', "'");
		expect(run.requests.map((request) => (sentBody(request) as { body: string }).body)).toEqual([
			replaced,
			plain,
		]);
		expect(run.items.map((item) => item.json.sentText)).toEqual([replaced, undefined]);
		expect(run.items[0].json.smsCost).toEqual({
			encoding: 'GSM-7',
			segments: 1,
			characters: replaced.length,
		});
	});

	it("SMS Options rule Send and Wait's SMS question as they rule Send SMS: look-alikes replaced, Max Segments refused before sending", async () => {
		const ask = {
			resource: 'messaging',
			operation: 'sendAndWait',
			sendAndWaitChannel: 'sms',
			instance: 'line-1',
			to: '+57 300 555 0198',
			message: 'Refund of 400 USD for order 17 – it’s the second one: approve?',
			responseType: 'approval',
			shortenLink: false,
		};
		const replaced = await suite.run({ ...ask, smsOptions: { replaceLookAlikes: true } });
		const { body } = sentBody(replaced.requests[0]) as { body: string };
		expect(body).toContain("order 17 - it's the second one");
		const contextData = replaced.run.data.executionData?.contextData ?? {};
		const kept = contextData['node:Conversational Messaging'] as {
			sendAndWait: { question: { recipients: Array<{ smsCost?: { encoding: string } }> } };
		};
		expect(kept.sendAndWait.question.recipients[0].smsCost?.encoding).toBe('GSM-7');

		// The cap rules the text sent: with the short link (Shorten Link, the default), a question that
		// fits one segment goes, though with n8n's long signed link it would not.
		const short = await suite.run({
			...ask,
			message: 'Refund of 400 USD for order 17: approve?',
			shortenLink: true,
			smsOptions: { maxSegments: 1 },
		});
		expect(short.error).toBeUndefined();
		const sms = short.requests.find((request) => request.path === '/v1/sms');
		expect((sentBody(sms!) as { body: string }).body.length).toBeLessThanOrEqual(160);
		const long = await suite.run({
			...ask,
			message: 'Refund of 400 USD for order 17: approve?',
			smsOptions: { maxSegments: 1 },
		});
		expect(long.requests).toEqual([]);
		expect(long.error?.message).toMatch(/^Message: 2 segments \(GSM-7, \d+ characters\)/);

		const capped = await suite.run({ ...ask, smsOptions: { maxSegments: 1 } });
		expect(capped.requests).toEqual([]);
		expect(capped.error?.message).toMatch(
			/^Message: \d segments \(UCS-2, \d+ characters\), more than Max Segments per Message \(1\)$/,
		);
	});
});
