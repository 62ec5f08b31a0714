import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { additionalFields, operation, showFor } from '../../shared/descriptions';
import { productNameField, productOptionalFields, productPriceField } from './fields';

const show = showFor('product', ['create']);

export const productCreateOperation: INodePropertyOptions = operation({
	name: 'Create',
	value: 'create',
	action: 'Create a product',
	description: 'Add a product to the shop catalogue',
	method: 'POST',
	url: '/v1/shop/products',
});

export const productCreateFields: INodeProperties[] = [
	{ ...productNameField(true), displayOptions: show },
	{ ...productPriceField(true), displayOptions: show },
	additionalFields(show, productOptionalFields),
];
