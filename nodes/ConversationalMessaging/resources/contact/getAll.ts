import { returnAllAndLimit } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { listRecords } from '../../service/envelope';
import { listIdField } from './add';

export const contactGetAllOperation: OperationSpec = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many contacts of a list',
	description: 'List the contacts of a distribution list',
	method: 'GET',
	url: '/v1/contact',
	records: listRecords,
	fields: [
		listIdField('listIdToRead', 'Identifier of the distribution list to read', 'qs.id'),
		// The service does not page this list, so the Limit cuts it in the node.
		...returnAllAndLimit('contacts', true),
	],
};
