import type { INodePropertyOptions } from 'n8n-workflow';

import { operation } from '../../shared/descriptions';
import { productUrl } from './fields';

export const productGetOperation: INodePropertyOptions = operation({
	name: 'Get',
	value: 'get',
	action: 'Get a product',
	description: 'Retrieve a product of the shop catalogue by ID',
	method: 'GET',
	url: productUrl,
});
