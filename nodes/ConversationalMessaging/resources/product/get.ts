import type { OperationSpec } from '../../form/operations';
import { productIdField, productUrl } from './fields';

export const productGetOperation: OperationSpec = {
	name: 'Get',
	value: 'get',
	action: 'Get a product',
	description: 'Retrieve a product of the shop catalogue by ID',
	method: 'GET',
	url: productUrl,
	fields: [productIdField],
};
