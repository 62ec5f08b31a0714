import type { OperationSpec } from '../../form/operations';
import { researcherFilesField } from './files';
import { researcherIdField, researcherUrl } from './get';

export const researcherAddFilesOperation: OperationSpec = {
	name: 'Add Files',
	value: 'addFiles',
	action: 'Add files to a researcher',
	description: 'Give a researcher more files or web pages to investigate',
	method: 'PATCH',
	url: researcherUrl,
	fields: [researcherIdField, researcherFilesField('filesToAdd')],
};
