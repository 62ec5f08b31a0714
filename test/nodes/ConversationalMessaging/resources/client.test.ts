import { jsonOf, onlyRequest, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();

describe('Client', () => {
	it('gets the client account, with the token in the query', async () => {
		const run = await suite.run({ resource: 'client', operation: 'get' });
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['GET', '/v1/client']);
		expect(jsonOf(run)).toEqual([
			expect.objectContaining({
				id: suite.sandbox.state.client.id,
				name: suite.sandbox.state.client.name,
			}),
		]);
	});
});
