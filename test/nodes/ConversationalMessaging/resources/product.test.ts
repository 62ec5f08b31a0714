import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox();
const fields = {
	name: 'Cold Brew',
	price: 4.5,
	code: 'CB-1',
	description: 'Slow-steeped coffee',
	descriptionai: 'Mention it is less acidic',
	category: 'coffee, cold',
};

/** The form's parameters for `fields`: the name field is Product Name. */
const { name: productName, ...sameNames } = fields;
const parameters = { productName, ...sameNames };

describe('Product', () => {
	it('creates a product: price a number, categories a list', async () => {
		const run = await suite.run({
			resource: 'product',
			operation: 'create',
			...parameters,
			price: '=4.50',
		});
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/shop/products']);
		expect(sentBody(request)).toEqual({ ...fields, category: ['coffee', 'cold'] });
		expect(jsonOf(run)).toEqual([
			expect.objectContaining({ id: expect.any(String), name: 'Cold Brew', price: 4.5 }),
		]);
	});

	it('gets, updates (with status 1 and an image) and deletes a product by id in the path', async () => {
		// Mapped with spaces around it, as from a sheet: the path has it trimmed.
		const get = await suite.run({
			resource: 'product',
			operation: 'get',
			productId: ' product-1\n',
		});
		expect([onlyRequest(get, suite.sandbox.token).method, get.requests[0].path]).toEqual([
			'GET',
			'/v1/shop/products/product-1',
		]);
		expect(jsonOf(get)).toEqual([expect.objectContaining({ id: 'product-1' })]);

		const update = await suite.run({
			resource: 'product',
			operation: 'update',
			productId: 'product-1',
			...parameters,
			image: 'https://cdn.example.com/cb.png',
			status: 1,
		});
		const put = onlyRequest(update, suite.sandbox.token);
		expect([put.method, put.path]).toEqual(['PUT', '/v1/shop/products/product-1']);
		expect(sentBody(put)).toEqual({
			...fields,
			category: ['coffee', 'cold'],
			image: 'https://cdn.example.com/cb.png',
			status: 1,
		});
		expect(suite.sandbox.state.products.get('product-1')?.name).toBe('Cold Brew');

		const remove = await suite.run({
			resource: 'product',
			operation: 'delete',
			productId: 'product-1',
		});
		const del = onlyRequest(remove, suite.sandbox.token);
		expect([del.method, del.path]).toEqual(['DELETE', '/v1/shop/products/product-1']);
		expect(jsonOf(remove)).toEqual([{ id: 'product-1', deleted: true }]);
	});

	it('encodes an id with URL-special characters into the path', async () => {
		const run = await suite.run({ resource: 'product', operation: 'get', productId: 'a/b?c' });
		expect(run.requests[0].path).toBe('/v1/shop/products/a%2Fb%3Fc');
		expect(run.error?.message).toMatch(/^The service answered 404/);
	});

	it('rejects a price that is not a number and a status that is not whole', async () => {
		const price = await suite.run({
			resource: 'product',
			operation: 'create',
			...parameters,
			price: '=cheap',
		});
		expect(price.requests).toHaveLength(0);
		expect(price.error?.message).toMatch(/^Price/);
		const status = await suite.run({
			resource: 'product',
			operation: 'update',
			productId: 'product-2',
			...parameters,
			image: 'https://cdn.example.com/x.png',
			status: 1.5,
		});
		expect(status.requests).toHaveLength(0);
		expect(status.error?.message).toBe('Status: expected a whole number, got 1.5');
	});

	it('refuses Categories that hold only commas: the field is required', async () => {
		const run = await suite.run({
			resource: 'product',
			operation: 'create',
			...parameters,
			category: ' , ,',
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('Categories is required');
	});
});
