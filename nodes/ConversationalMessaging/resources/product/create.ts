import type { OperationSpec } from '../../form/operations';
import { productFields } from './fields';

export const productCreateOperation: OperationSpec = {
	name: 'Create',
	value: 'create',
	action: 'Create a product',
	description: 'Add a product to the shop catalogue',
	method: 'POST',
	url: '/v1/shop/products',
	fields: productFields,
};
