import { ASK_THE_USER_HINT, idField, returnAllAndLimit } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { listRecords } from '../../service/envelope';

export const contactGetAllOperation: OperationSpec = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many contacts of a list',
	description: 'List the contacts of a distribution list',
	method: 'GET',
	url: '/v1/contact',
	records: listRecords,
	fields: [
		idField({
			displayName: 'List ID',
			name: 'listIdToRead',
			placeholder: 'ID of a list in your account',
			description: 'Identifier of the distribution list to read',
			hint: 'The API cannot list or create distribution lists: use the identifier of a list that exists in your account',
			builderHint: ASK_THE_USER_HINT,
			sendTo: 'qs.id',
		}),
		// The service does not page this list, so the Limit cuts it in the node.
		...returnAllAndLimit('contacts', true),
	],
};
