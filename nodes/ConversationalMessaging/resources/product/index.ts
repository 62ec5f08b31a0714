import type { ResourceSpec } from '../../form/operations';
import { productCreateOperation } from './create';
import { productDeleteOperation } from './delete';
import { productGetOperation } from './get';
import { productUpdateOperation } from './update';

export const productResource: ResourceSpec = {
	name: 'Product',
	value: 'product',
	description: 'Products of the shop catalogue',
	operations: [
		productCreateOperation,
		productDeleteOperation,
		productGetOperation,
		productUpdateOperation,
	],
	defaultOperation: productCreateOperation.value,
};
