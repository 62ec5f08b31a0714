import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();
const send = (fields: Record<string, unknown>) =>
	suite.run({
		resource: 'legacyMessage',
		operation: 'send',
		recipient: '573001234567',
		legacyInstance: 'qr-1',
		...fields,
	});

describe('Legacy Chatapp Message', () => {
	it('sends a chat message', async () => {
		const run = await send({ messageType: 'chat', chatText: 'Hola' });
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/msg-wh']);
		expect(sentBody(request)).toEqual({
			type: 'chat',
			to: '573001234567',
			instance: 'qr-1',
			body: 'Hola',
		});
	});

	it('sends an image with its caption, and a document with its file name only', async () => {
		const image = await send({
			messageType: 'image',
			fileUrl: 'https://cdn.example.com/a.jpg',
			legacyMessageFields: { caption: 'Look', filename: 'ignored.pdf' },
		});
		expect(sentBody(onlyRequest(image, suite.sandbox.token))).toEqual({
			type: 'image',
			to: '573001234567',
			instance: 'qr-1',
			body: 'https://cdn.example.com/a.jpg',
			caption: 'Look',
		});
		const document = await send({
			messageType: 'document',
			fileUrl: 'https://cdn.example.com/i.pdf',
			legacyMessageFields: { caption: 'ignored', filename: 'invoice.pdf' },
		});
		expect(sentBody(onlyRequest(document, suite.sandbox.token))).toEqual({
			type: 'document',
			to: '573001234567',
			instance: 'qr-1',
			body: 'https://cdn.example.com/i.pdf',
			filename: 'invoice.pdf',
		});
	});

	it('sends a location with lat and lng as text, and only for locations', async () => {
		const location = await send({
			messageType: 'location',
			locationText: 'Our shop',
			latitude: 4.711,
			longitude: -74.0721,
		});
		expect(sentBody(onlyRequest(location, suite.sandbox.token))).toEqual({
			type: 'location',
			to: '573001234567',
			instance: 'qr-1',
			body: 'Our shop',
			lat: '4.711',
			lng: '-74.0721',
		});
		const chat = await send({
			messageType: 'chat',
			chatText: 'x',
			latitude: 4.711,
			longitude: -74.0721,
		});
		expect(sentBody(onlyRequest(chat, suite.sandbox.token))).not.toHaveProperty('lat');
	});

	it('rejects an out-of-range latitude before sending', async () => {
		const run = await send({
			messageType: 'location',
			locationText: 'x',
			latitude: '=95',
			longitude: 0,
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('Latitude: 95 is out of range');
	});

	it('gets a sent message by id, with the instance in the query', async () => {
		const sent = await send({ messageType: 'chat', chatText: 'to read back' });
		const id = String(jsonOf(sent)[0].id);
		const run = await suite.run({
			resource: 'legacyMessage',
			operation: 'get',
			// Mapped with spaces around it, as from a sheet: the path has it trimmed.
			messageId: ` ${id}\n`,
			sentFromInstance: 'qr-1',
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path, request.query.instance]).toEqual([
			'GET',
			`/v1/msg-wh/${id}`,
			'qr-1',
		]);
		expect(jsonOf(run)).toEqual([
			expect.objectContaining({ id, body: 'to read back', to: '573001234567' }),
		]);
	});

	it('fails a Get whose Message ID resolves to nothing, without a request', async () => {
		const run = await suite.run({
			resource: 'legacyMessage',
			operation: 'get',
			messageId: '={{ $json.missing }}',
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('Message ID: is required');
	});
});
