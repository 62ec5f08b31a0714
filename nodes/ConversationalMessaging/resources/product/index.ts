import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
import { productCreateOperation } from './create';
import { productDeleteOperation } from './delete';
import { productFields, productIdField } from './fields';
import { productGetOperation } from './get';
import { productUpdateFields, productUpdateOperation } from './update';

export const productDescription: INodeProperties[] = [
	operationSelector(
		'product',
		[productCreateOperation, productDeleteOperation, productGetOperation, productUpdateOperation],
		'create',
	),
	productIdField,
	...productFields,
	...productUpdateFields,
];
