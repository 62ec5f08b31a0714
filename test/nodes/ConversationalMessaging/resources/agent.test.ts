import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();

describe('Agent', () => {
	it('creates an agent with a normalised phone, the token in the body', async () => {
		const run = await suite.run({
			resource: 'agent',
			operation: 'create',
			agentName: 'Ana Ruiz',
			agentPhone: '+57 300-123 4567',
			email: 'ana@example.com',
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/agent']);
		expect(sentBody(request)).toEqual({
			name: 'Ana Ruiz',
			phone: '573001234567',
			email: 'ana@example.com',
		});
		const [agent] = jsonOf(run);
		expect(agent).toMatchObject({
			name: 'Ana Ruiz',
			phone: '573001234567',
			email: 'ana@example.com',
		});
		expect(agent).not.toHaveProperty('err');
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('gets an agent by id, with id and token in the query', async () => {
		const created = await suite.run({
			resource: 'agent',
			operation: 'create',
			agentName: 'Bo',
			agentPhone: '4915112345678',
			email: 'bo@example.com',
		});
		const id = String(jsonOf(created)[0].id);
		const run = await suite.run({ resource: 'agent', operation: 'get', agentId: id });
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path, request.query.id]).toEqual(['GET', '/v1/agent', id]);
		expect(jsonOf(run)).toEqual([expect.objectContaining({ id, name: 'Bo' })]);
	});

	it('deletes an agent with the id in the body', async () => {
		const created = await suite.run({
			resource: 'agent',
			operation: 'create',
			agentName: 'Cy',
			agentPhone: '4915112345679',
			email: 'cy@example.com',
		});
		const id = String(jsonOf(created)[0].id);
		const run = await suite.run({ resource: 'agent', operation: 'delete', agentIdToDelete: id });
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['DELETE', '/v1/agent']);
		expect(sentBody(request)).toEqual({ id });
		expect(jsonOf(run)).toEqual([{ id, deleted: true }]);
		expect(suite.sandbox.state.agents.has(id)).toBe(false);
	});

	it('rejects an invalid email and phone before sending, naming the field', async () => {
		const badEmail = await suite.run({
			resource: 'agent',
			operation: 'create',
			agentName: 'X',
			agentPhone: '573001234567',
			email: 'not-an-email',
		});
		expect(badEmail.requests).toHaveLength(0);
		expect(badEmail.error?.message).toBe('Email: "not-an-email" is not an email address');
		const badPhone = await suite.run({
			resource: 'agent',
			operation: 'create',
			agentName: 'X',
			agentPhone: '0300 123',
			email: 'x@example.com',
		});
		expect(badPhone.requests).toHaveLength(0);
		expect(badPhone.error?.message).toBe(
			'Phone: "0300 123" is written as dialled within its country (it starts with 0), and no Default Country is set to say which one',
		);
	});
});
