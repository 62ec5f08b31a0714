import { integer, url } from '../../checks/checks';
import { field } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { productFields, productIdField, productUrl } from './fields';

export const productUpdateOperation: OperationSpec = {
	name: 'Update',
	value: 'update',
	action: 'Update a product',
	description: 'Replace a product: every field is sent, so fill in the ones that do not change too',
	method: 'PUT',
	url: productUrl,
	fields: [
		productIdField,
		...productFields,
		field({
			displayName: 'Image URL',
			name: 'image',
			required: true,
			placeholder: 'https://example.com/product.jpg',
			description: 'Public web address of the product image',
			sendTo: 'body.image',
			checks: [url('body.image', 'Image URL')],
		}),
		field({
			displayName: 'Status',
			name: 'status',
			type: 'number',
			required: true,
			typeOptions: { numberPrecision: 0 },
			default: 1,
			description: 'Status code of the product; the service documents 1, the default',
			sendTo: 'body.status',
			checks: [integer('body.status', 'Status')],
		}),
	],
};
