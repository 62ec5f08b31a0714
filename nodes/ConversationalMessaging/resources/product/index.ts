import type { INodeProperties } from 'n8n-workflow';

import { field, idField, showFor } from '../../shared/descriptions';
import { operationSelector } from '../../shared/operations';
import { integer, number, textList, url } from '../../shared/checks';

const productUrl = '=/v1/shop/products/{{encodeURIComponent($parameter.productId)}}';

/**
 * The service lists these body fields on Create and on Update (a PUT that replaces the
 * product) without marking any optional, so both operations send all of them.
 */
const showForBoth = showFor('product', ['create', 'update']);
const showForUpdate = showFor('product', ['update']);

export const productDescription: INodeProperties[] = [
	operationSelector(
		'product',
		[
			{
				name: 'Create',
				value: 'create',
				action: 'Create a product',
				description: 'Add a product to the shop catalogue',
				method: 'POST',
				url: '/v1/shop/products',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a product',
				description: 'Remove a product from the shop catalogue',
				method: 'DELETE',
				url: productUrl,
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a product',
				description: 'Retrieve a product of the shop catalogue by ID',
				method: 'GET',
				url: productUrl,
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a product',
				description:
					'Replace a product: every field is sent, so fill in the ones that do not change too',
				method: 'PUT',
				url: productUrl,
			},
		],
		'create',
	),
	idField({
		displayName: 'Product ID',
		name: 'productId',
		displayOptions: showFor('product', ['delete', 'get', 'update']),
		placeholder: 'ID from Product > Create',
		description: 'Identifier of the product, as returned by Product > Create',
	}),
	field({
		displayName: 'Name',
		name: 'productName',
		required: true,
		displayOptions: showForBoth,
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
		displayOptions: showForBoth,
		description: 'Price of the product, a decimal number such as 19.99',
		sendTo: 'body.price',
		checks: [number('body.price', 'Price')],
	}),
	field({
		displayName: 'Code',
		name: 'code',
		required: true,
		displayOptions: showForBoth,
		description: 'Product code (SKU)',
		sendTo: 'body.code',
	}),
	field({
		displayName: 'Description',
		name: 'description',
		required: true,
		typeOptions: { rows: 3 },
		displayOptions: showForBoth,
		description: 'Description of the product as customers see it',
		sendTo: 'body.description',
	}),
	field({
		displayName: 'AI Description',
		name: 'descriptionai',
		required: true,
		typeOptions: { rows: 3 },
		displayOptions: showForBoth,
		description: 'Description the AI assistant uses when it talks about the product',
		sendTo: 'body.descriptionai',
	}),
	field({
		displayName: 'Categories',
		name: 'category',
		required: true,
		placeholder: 'shoes, sale',
		displayOptions: showForBoth,
		description:
			'Categories of the product, separated by commas (or an expression that gives a list)',
		sendTo: 'body.category',
		checks: [textList('body.category', 'Categories')],
	}),
	field({
		displayName: 'Image URL',
		name: 'image',
		required: true,
		placeholder: 'https://example.com/product.jpg',
		displayOptions: showForUpdate,
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
		displayOptions: showForUpdate,
		description: 'Status code of the product; the service documents 1, the default',
		sendTo: 'body.status',
		checks: [integer('body.status', 'Status')],
	}),
];
