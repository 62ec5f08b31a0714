import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
import { researcherAddFilesFields, researcherAddFilesOperation } from './addFiles';
import { researcherCreateFields, researcherCreateOperation } from './create';
import { researcherFieldsField, researcherGetOperation, researcherIdField } from './get';
import { researcherRunFields, researcherRunOperation } from './run';

export const researcherDescription: INodeProperties[] = [
	operationSelector(
		'researcher',
		[
			researcherAddFilesOperation,
			researcherCreateOperation,
			researcherGetOperation,
			researcherRunOperation,
		],
		'create',
	),
	researcherIdField,
	...researcherCreateFields,
	researcherFieldsField,
	...researcherAddFilesFields,
	...researcherRunFields,
];
