import type { INodeProperties } from 'n8n-workflow';

import { field, idField, showFor } from '../../shared/descriptions';
import { number, textList } from '../../shared/validation';

/** Name and Price: required on Create, optional on Update. */
export const productNameField = (required: boolean) =>
	field({
		displayName: 'Name',
		name: 'name',
		required,
		description: 'Name of the product as customers see it',
		sendTo: 'body.name',
	});

export const productPriceField = (required: boolean) =>
	field({
		displayName: 'Price',
		name: 'price',
		type: 'number',
		required,
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: 'Price of the product, a decimal number such as 19.99',
		sendTo: 'body.price',
		checks: [number('body.price', 'Price')],
	});

/** The optional descriptive fields that Create and Update share. */
export const productOptionalFields: INodeProperties[] = [
	field({
		displayName: 'AI Description',
		name: 'descriptionai',
		typeOptions: { rows: 3 },
		description: 'Description the AI assistant uses when it talks about the product',
		sendTo: 'body.descriptionai',
	}),
	field({
		displayName: 'Categories',
		name: 'category',
		placeholder: 'shoes, sale',
		description: 'Categories of the product, separated by commas (or an expression that gives a list)',
		sendTo: 'body.category',
		checks: [textList('body.category', 'Categories')],
	}),
	field({
		displayName: 'Code',
		name: 'code',
		description: 'Product code (SKU)',
		sendTo: 'body.code',
	}),
	field({
		displayName: 'Description',
		name: 'description',
		typeOptions: { rows: 3 },
		description: 'Description of the product as customers see it',
		sendTo: 'body.description',
	}),
];

export const productIdField: INodeProperties = idField({
	displayName: 'Product ID',
	name: 'productId',
	displayOptions: showFor('product', ['delete', 'get', 'update']),
	description: 'Identifier of the product',
});

export const productUrl = '=/v1/shop/products/{{encodeURIComponent($parameter.productId)}}';
