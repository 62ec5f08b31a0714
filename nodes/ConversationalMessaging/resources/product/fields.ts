import type { INodeProperties } from 'n8n-workflow';

import { number, textList } from '../../checks/checks';
import { field, idField } from '../../form/fields';

/** The service marks none optional on Create or on Update (a PUT that replaces the product). */
export const productFields: INodeProperties[] = [
	field({
		displayName: 'Name',
		name: 'productName',
		required: true,
		description: 'Name of the product as customers see it',
		sendTo: 'body.name',
	}),
	field({
		displayName: 'Price',
		name: 'price',
		type: 'number',
		required: true,
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: 'Price of the product, a decimal number such as 19.99',
		sendTo: 'body.price',
		checks: [number('body.price', 'Price')],
	}),
	field({
		displayName: 'Code',
		name: 'code',
		required: true,
		description: 'Product code (SKU)',
		sendTo: 'body.code',
	}),
	field({
		displayName: 'Description',
		name: 'description',
		required: true,
		typeOptions: { rows: 3 },
		description: 'Description of the product as customers see it',
		sendTo: 'body.description',
	}),
	field({
		displayName: 'AI Description',
		name: 'descriptionai',
		required: true,
		typeOptions: { rows: 3 },
		description: 'Description the AI assistant uses when it talks about the product',
		sendTo: 'body.descriptionai',
	}),
	field({
		displayName: 'Categories',
		name: 'category',
		required: true,
		placeholder: 'shoes, sale',
		description:
			'Categories of the product, separated by commas (or an expression that gives a list)',
		sendTo: 'body.category',
		checks: [textList('body.category', 'Categories')],
	}),
];

export const productIdField: INodeProperties = idField({
	displayName: 'Product ID',
	name: 'productId',
	placeholder: 'ID from Product > Create',
	description: 'Identifier of the product, as returned by Product > Create',
});

/** Filled by the Product ID's check (pathId), trimmed and encoded. */
export const productUrl = '/v1/shop/products/{productId}';
