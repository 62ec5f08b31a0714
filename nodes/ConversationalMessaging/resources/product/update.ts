import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { collection, field, operation, showFor } from '../../shared/descriptions';
import { integer, url } from '../../shared/validation';
import { productNameField, productOptionalFields, productPriceField, productUrl } from './fields';

export const productUpdateOperation: INodePropertyOptions = operation({
	name: 'Update',
	value: 'update',
	action: 'Update a product',
	description: 'Change the fields of a product; fields left out are not sent',
	method: 'PUT',
	url: productUrl,
	// The service's update body carries status 1 (active); Status under Update Fields overrides it.
	body: { status: 1 },
});

export const productUpdateFields: INodeProperties[] = [
	collection(
		'updateFields',
		'Update Fields',
		showFor('product', ['update']),
		[
			productNameField(false),
			productPriceField(false),
			...productOptionalFields,
			field({
				displayName: 'Image URL',
				name: 'image',
				placeholder: 'https://example.com/product.jpg',
				description: 'Public web address of the product image',
				sendTo: 'body.image',
				checks: [url('body.image', 'Image URL')],
			}),
			field({
				displayName: 'Status',
				name: 'status',
				type: 'number',
				typeOptions: { numberPrecision: 0 },
				default: 1,
				description: 'Status code of the product; the service documents 1 (active), which is sent by default',
				sendTo: 'body.status',
				checks: [integer('body.status', 'Status')],
			}),
		],
	),
];
