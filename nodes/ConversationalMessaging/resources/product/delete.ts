import type { INodePropertyOptions } from 'n8n-workflow';

import { operation } from '../../shared/descriptions';
import { productUrl } from './fields';

export const productDeleteOperation: INodePropertyOptions = operation({
	name: 'Delete',
	value: 'delete',
	action: 'Delete a product',
	description: 'Remove a product from the shop catalogue',
	method: 'DELETE',
	url: productUrl,
});
