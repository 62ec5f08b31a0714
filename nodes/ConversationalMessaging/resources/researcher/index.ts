import type { ResourceSpec } from '../../form/operations';
import { researcherAddFilesOperation } from './addFiles';
import { researcherCreateOperation } from './create';
import { researcherGetOperation } from './get';
import { researcherRunOperation } from './run';

export const researcherResource: ResourceSpec = {
	name: 'Researcher',
	value: 'researcher',
	description: 'AI investigations built from files',
	operations: [
		researcherAddFilesOperation,
		researcherCreateOperation,
		researcherGetOperation,
		researcherRunOperation,
	],
	defaultOperation: researcherCreateOperation.value,
};
