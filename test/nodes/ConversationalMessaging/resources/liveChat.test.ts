import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();

describe('Live Chat', () => {
	it('creates a session and sends a message in it', async () => {
		const session = await suite.run({
			resource: 'liveChat',
			operation: 'createSession',
			liveChatInstance: 'web-1',
			sessionFields: { name: 'Visitor 7' },
		});
		const create = onlyRequest(session, suite.sandbox.token);
		expect([create.method, create.path]).toEqual(['POST', '/v1/live-chat/session']);
		expect(sentBody(create)).toEqual({ instance: 'web-1', name: 'Visitor 7' });
		const sessionId = String(jsonOf(session)[0].id);

		const message = await suite.run({
			resource: 'liveChat',
			operation: 'sendMessage',
			sessionId,
			liveChatInstance: 'web-1',
			liveChatMessage: 'How can we help?',
			liveChatMessageFields: { user: true },
		});
		const send = onlyRequest(message, suite.sandbox.token);
		expect([send.method, send.path]).toEqual(['POST', '/v1/live-chat']);
		expect(sentBody(send)).toEqual({
			type: 'text',
			to: sessionId,
			instance: 'web-1',
			body: 'How can we help?',
			user: true,
		});
		expect(jsonOf(message)).toEqual([expect.objectContaining({ to: sessionId, status: 'sent' })]);
	});

	it('does not send the optional contact name when it is not set', async () => {
		const session = await suite.run({
			resource: 'liveChat',
			operation: 'createSession',
			liveChatInstance: 'web-1',
		});
		expect(sentBody(onlyRequest(session, suite.sandbox.token))).toEqual({ instance: 'web-1' });
	});
});
