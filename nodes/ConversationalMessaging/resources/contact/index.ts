import type { INodeProperties } from 'n8n-workflow';

import { sendOptions } from '../../shared/sendOptions';
import { operationSelector } from '../../shared/descriptions';
import { contactAddFields, contactAddOperation } from './add';
import { contactGetAllFields, contactGetAllOperation } from './getAll';

export const contactDescription: INodeProperties[] = [
	operationSelector('contact', [contactAddOperation, contactGetAllOperation], 'add'),
	...contactAddFields,
	...contactGetAllFields,
	sendOptions('contact'),
];
