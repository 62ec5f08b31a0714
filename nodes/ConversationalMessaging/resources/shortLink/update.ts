import { idField } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { longUrlField } from './create';

export const shortLinkUpdateOperation: OperationSpec = {
	name: 'Update',
	value: 'update',
	action: 'Update a short link',
	description: 'Point an existing short link at a new web address',
	method: 'PATCH',
	url: '/v1/short',
	fields: [
		idField({
			displayName: 'Short Link ID',
			name: 'shortLinkId',
			placeholder: 'spring-sale',
			description:
				'Identifier of the short link to change: the Short Link ID given to Short Link > Create, or the one the service chose then',
			sendTo: 'body.idUrl',
		}),
		longUrlField('newLongUrl', 'New web address for the short link'),
	],
};
