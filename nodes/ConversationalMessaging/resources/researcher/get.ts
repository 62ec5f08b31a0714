import type { INodeProperties } from 'n8n-workflow';

import { field, idField, showFor } from '../../shared/descriptions';
import type { OperationSpec } from '../../shared/operations';
import { unwrapEnvelope } from '../../shared/envelope';
import { commaList } from '../../shared/checks';
import { addCompletion, COMPLETION_FIELDS } from './completion';

export const RESEARCHER_READABLE_FIELDS = [
	'description',
	'files',
	'model',
	'name',
	'output',
	'output_format',
	'process',
	'progress',
	'status',
	'type',
	'updated',
];

const titleCase = (value: string) =>
	value
		.split('_')
		.map((word) => word[0].toUpperCase() + word.slice(1))
		.join(' ');

export const researcherUrl = '=/v1/researcher/{{encodeURIComponent($parameter.researcherId)}}';

export const researcherGetOperation: OperationSpec = {
	name: 'Get',
	value: 'get',
	action: 'Get a researcher',
	description:
		'Retrieve a researcher with its status, progress and output, and whether its run is complete',
	method: 'GET',
	url: researcherUrl,
	postReceive: [unwrapEnvelope, addCompletion],
};

export const researcherIdField: INodeProperties = idField({
	displayName: 'Researcher ID',
	name: 'researcherId',
	displayOptions: showFor('researcher', ['addFiles', 'get', 'run']),
	placeholder: 'ID from Researcher > Create',
	description: 'Identifier of the researcher, as returned by Researcher > Create',
});

export const researcherFieldsField: INodeProperties = field({
	displayName: 'Fields',
	name: 'fields',
	type: 'multiOptions',
	options: RESEARCHER_READABLE_FIELDS.map((value) => ({ name: titleCase(value), value })),
	default: [],
	displayOptions: showFor('researcher', ['get']),
	description: `Fields to return; all of them when none is selected. The output's \`complete\` (true once the run is finished) needs ${COMPLETION_FIELDS.map((name) => titleCase(name)).join(' and ')} among them.`,
	sendTo: 'qs.fields',
	checks: [commaList('qs.fields', 'Fields', RESEARCHER_READABLE_FIELDS)],
});
