import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();

describe('Contact', () => {
	it('adds a contact with phone, name and extra values', async () => {
		const run = await suite.run({
			resource: 'contact',
			operation: 'add',
			listId: 'list-2',
			phone: '+57 300 123 4567',
			contactName: 'Ana',
			contactFields: {
				// The second, a row added and left empty, is left out.
				extraValues: {
					value: [
						{ key: 'city', value: 'Bogotá' },
						{ key: '', value: '' },
					],
				},
			},
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/contact']);
		expect(sentBody(request)).toEqual({
			idList: 'list-2',
			values: { phone: '573001234567', name: 'Ana', city: 'Bogotá' },
		});
		expect(jsonOf(run)).toEqual([
			expect.objectContaining({ idList: 'list-2', phone: '573001234567', name: 'Ana' }),
		]);
	});

	it('refuses a contact with no value at all', async () => {
		const run = await suite.run({
			resource: 'contact',
			operation: 'add',
			listId: 'list-2',
			phone: '',
			contactName: '',
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('Phone, Name or an Extra Value is required');
	});

	it('refuses an Extra Value without a Field, or given twice (as Phone or Name too, or in two entries)', async () => {
		const add = async (entries: Array<{ key: string; value: string }>) =>
			await suite.run({
				resource: 'contact',
				operation: 'add',
				listId: 'list-2',
				phone: '+57 300 123 4567',
				contactName: 'Ana',
				contactFields: { extraValues: { value: [{ key: 'city', value: 'Bogotá' }, ...entries] } },
			});
		const runs = await Promise.all(
			[' ', 'phone', 'name', 'city'].map(async (key) => await add([{ key, value: 'x' }])),
		);
		expect(runs.flatMap((run) => run.requests)).toHaveLength(0);
		expect(runs.map((run) => [run.error?.message, run.error?.description])).toEqual([
			[
				'Extra Values: value 2 has no Field',
				'Enter the name the contact list stores the value under (e.g. city), or remove the entry. This item was not sent.',
			],
			[
				'Extra Values: "phone" is given twice',
				'Give it once: in the Phone field or as an Extra Value. This item was not sent.',
			],
			[
				'Extra Values: "name" is given twice',
				'Give it once: in the Name field or as an Extra Value. This item was not sent.',
			],
			[
				'Extra Values: "city" is given twice',
				'Give it in one Extra Values entry only. This item was not sent.',
			],
		]);
	});

	it('lists the contacts of a list, one item each, and cuts the list at the Limit', async () => {
		const all = await suite.run({
			resource: 'contact',
			operation: 'getAll',
			listIdToRead: 'list-1',
			returnAll: true,
		});
		const request = onlyRequest(all, suite.sandbox.token);
		expect([request.method, request.path, request.query.id]).toEqual([
			'GET',
			'/v1/contact',
			'list-1',
		]);
		expect(all.items).toHaveLength(suite.sandbox.state.contactLists.get('list-1')!.size);
		expect(all.items.every((item) => typeof item.json.phone === 'string')).toBe(true);
		const limited = await suite.run({
			resource: 'contact',
			operation: 'getAll',
			listIdToRead: 'list-1',
			returnAll: false,
			limit: 2,
		});
		expect(limited.items).toHaveLength(2);
	});
});
