import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';
import { OPERATIONS } from '../../../reliability/operations';

const suite = useSandbox();

describe('Messaging', () => {
	it('sends an SMS: type text, digits-only recipient, one item per input item', async () => {
		const run = await suite.run(
			{
				resource: 'messaging',
				operation: 'sendSms',
				to: '={{ $json.phone }}',
				instance: 'sms-line',
				message: '=Hello {{ $json.name }}',
			},
			{
				items: [
					{ phone: '+57 (300) 123-4567', name: 'Ana' },
					{ phone: 4915112345678, name: 'Bo' },
				],
			},
		);
		expect(run.requests).toHaveLength(2);
		const bodies = run.requests.map((request) => {
			expect(request.valid).toBe(true);
			return sentBody(request);
		});
		expect(bodies).toEqual([
			{ type: 'text', to: '573001234567', instance: 'sms-line', body: 'Hello Ana' },
			{ type: 'text', to: '4915112345678', instance: 'sms-line', body: 'Hello Bo' },
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(jsonOf(run)[0]).toMatchObject({ to: '573001234567', type: 'text', status: 'queued' });
		expect(suite.sandbox.state.sentMessages.size).toBeGreaterThanOrEqual(2);
	});

	it('sends a socialnet text message to a page-scoped recipient', async () => {
		const run = await suite.run({
			resource: 'messaging',
			operation: 'sendSocialnet',
			socialnetType: 'text',
			recipientId: 'psid-778899',
			socialnetInstance: 'page-1',
			message: 'Hi!',
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/socialnet/send-chat']);
		expect(sentBody(request)).toEqual({
			type: 'text',
			to: 'psid-778899',
			instance: 'page-1',
			body: 'Hi!',
		});
	});

	it('never sends what Send SMS left behind (its phone, line and SMS Options, kept for switching back)', async () => {
		const run = await suite.run({
			resource: 'messaging',
			operation: 'sendSocialnet',
			socialnetType: 'text',
			recipientId: 'psid-778899',
			socialnetInstance: 'page-1',
			message: 'Hi’!',
			to: '+57 300 123 4567',
			instance: 'sms-line-1',
			smsOptions: { maxSegments: 1, replaceLookAlikes: true },
		});
		expect(sentBody(onlyRequest(run, suite.sandbox.token))).toEqual({
			type: 'text',
			to: 'psid-778899',
			instance: 'page-1',
			body: 'Hi’!',
		});
		expect(run.items[0].json).not.toHaveProperty('smsCost');
	});

	it('sends socialnet media with a caption; a caption left for text is not sent', async () => {
		const media = await suite.run({
			resource: 'messaging',
			operation: 'sendSocialnet',
			socialnetType: 'image',
			recipientId: 'psid-1',
			socialnetInstance: 'page-1',
			socialnetFileUrl: 'https://cdn.example.com/a.png',
			socialnetFields: { caption: 'Our menu' },
		});
		expect(sentBody(onlyRequest(media, suite.sandbox.token))).toEqual({
			type: 'image',
			to: 'psid-1',
			instance: 'page-1',
			body: 'https://cdn.example.com/a.png',
			caption: 'Our menu',
		});
		const text = await suite.run({
			resource: 'messaging',
			operation: 'sendSocialnet',
			socialnetType: 'text',
			recipientId: 'psid-1',
			socialnetInstance: 'page-1',
			message: 'Hi',
			socialnetFields: { caption: 'stale' },
		});
		expect(sentBody(onlyRequest(text, suite.sandbox.token))).not.toHaveProperty('caption');
	});

	it('rejects a media message whose File URL is not a web address, before sending', async () => {
		const run = await suite.run({
			resource: 'messaging',
			operation: 'sendSocialnet',
			socialnetType: 'video',
			recipientId: 'psid-1',
			socialnetInstance: 'page-1',
			socialnetFileUrl: 'my-video.mp4',
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('File URL: "my-video.mp4" is not a web address');
	});

	it('injects a CRM lead: @c.us added once, tags as a list, area and agent together', async () => {
		const run = await suite.run({
			resource: 'messaging',
			operation: 'injectCrmLead',
			contactPhone: '+57 300 123 4567',
			instance: 'line-1',
			leadMessage: 'Wants a quote',
			channel: 'sn-messenger',
			leadFields: {
				area: 'sales',
				agent: 'agent-1',
				process: 'proc-9',
				tags: 'web-form, spring ,',
			},
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/crm']);
		expect(sentBody(request)).toEqual({
			to: '573001234567@c.us',
			instance: 'line-1',
			text: 'Wants a quote',
			channel: 'sn-messenger',
			area: 'sales',
			agent: 'agent-1',
			process: 'proc-9',
			tags: ['web-form', 'spring'],
		});
		const suffixed = await suite.run({
			resource: 'messaging',
			operation: 'injectCrmLead',
			contactPhone: '573001234567@c.us',
			instance: 'line-1',
			leadMessage: 'x',
			channel: 'chatapp',
		});
		expect(sentBody(onlyRequest(suffixed, suite.sandbox.token)).to).toBe('573001234567@c.us');
	});

	it('leaves out CRM Tags that hold only commas, as an empty field', async () => {
		const crmLead = OPERATIONS.find(({ operationId }) => operationId === 'crmLeadInject');
		const run = await suite.run({ ...crmLead?.parameters, leadFields: { tags: ' , ' } });
		expect(sentBody(onlyRequest(run, suite.sandbox.token))).not.toHaveProperty('tags');
	});

	it('refuses an agent without an area, naming both fields', async () => {
		const run = await suite.run({
			resource: 'messaging',
			operation: 'injectCrmLead',
			contactPhone: '573001234567',
			instance: 'line-1',
			leadMessage: 'x',
			channel: 'chatapp',
			leadFields: { agent: 'agent-1' },
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('Agent ID needs Area');
		expect(run.error?.description).toContain('only together with an area');
	});

	it('checks a chatapp number and returns the validation response', async () => {
		const run = await suite.run({
			resource: 'messaging',
			operation: 'checkChatappNumber',
			number: '+57 300 123 4568',
			instance: 'line-1',
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/valid-chatapp']);
		expect(sentBody(request)).toEqual({ number: '573001234568', instance: 'line-1' });
		expect(jsonOf(run)).toEqual([
			{
				id: '573001234568@c.us',
				status: 200,
				isBusiness: expect.any(Boolean),
				canReceiveMessage: expect.any(Boolean),
			},
		]);
	});
});
