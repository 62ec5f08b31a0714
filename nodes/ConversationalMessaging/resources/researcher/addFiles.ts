import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { operation, showFor } from '../../shared/descriptions';
import { researcherFilesField } from './files';
import { researcherUrl } from './get';

export const researcherAddFilesOperation: INodePropertyOptions = operation({
	name: 'Add Files',
	value: 'addFiles',
	action: 'Add files to a researcher',
	description: 'Give a researcher more files or web pages to investigate',
	method: 'PATCH',
	url: researcherUrl,
});

export const researcherAddFilesFields: INodeProperties[] = [
	researcherFilesField('filesToAdd', showFor('researcher', ['addFiles'])),
];
