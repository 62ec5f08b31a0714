import type { ResourceSpec } from '../../form/operations';
import { shortLinkCreateOperation } from './create';
import { shortLinkUpdateOperation } from './update';

export const shortLinkResource: ResourceSpec = {
	name: 'Short Link',
	value: 'shortLink',
	description: 'Shortened web addresses',
	operations: [shortLinkCreateOperation, shortLinkUpdateOperation],
	defaultOperation: shortLinkCreateOperation.value,
};
