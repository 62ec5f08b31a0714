import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
import { contactAddFields, contactAddOperation } from './add';
import { contactGetAllFields, contactGetAllOperation } from './getAll';

export const contactDescription: INodeProperties[] = [
	operationSelector('contact', [contactAddOperation, contactGetAllOperation], 'add'),
	...contactAddFields,
	...contactGetAllFields,
];
