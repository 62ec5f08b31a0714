import type { OperationSpec } from '../../form/operations';
import { productIdField, productUrl } from './fields';

export const productDeleteOperation: OperationSpec = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete a product',
	description: 'Remove a product from the shop catalogue',
	method: 'DELETE',
	url: productUrl,
	fields: [productIdField],
};
