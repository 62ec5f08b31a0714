import type { INodePropertyOptions } from 'n8n-workflow';

import { operation } from '../../shared/descriptions';

/** Its fields are the shared product fields. */
export const productCreateOperation: INodePropertyOptions = operation({
	name: 'Create',
	value: 'create',
	action: 'Create a product',
	description: 'Add a product to the shop catalogue',
	method: 'POST',
	url: '/v1/shop/products',
});
