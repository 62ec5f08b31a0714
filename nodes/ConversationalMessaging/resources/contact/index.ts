import type { ResourceSpec } from '../../form/operations';
import { contactAddOperation } from './add';
import { contactGetAllOperation } from './getAll';

export const contactResource: ResourceSpec = {
	name: 'Contact',
	value: 'contact',
	description: 'Contacts of distribution lists',
	operations: [contactAddOperation, contactGetAllOperation],
	defaultOperation: contactAddOperation.value,
};
