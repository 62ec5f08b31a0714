import type { INodeProperties } from 'n8n-workflow';

import { commaList } from '../../checks/checks';
import { field, idField } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { unwrapEnvelope } from '../../service/envelope';
import { addCompletion, COMPLETION_FIELDS } from './completion';

/** The readable fields the service documents, and what each holds (for the form and for AI builders). */
const READABLE_FIELDS: Record<string, string> = {
	description: 'The brief the researcher works from',
	files: 'The files and web pages it investigates',
	model: 'The model it runs on: fast, balance or analytics',
	name: 'Its name',
	output: 'The report, once the run has produced it',
	output_format: 'The form the report takes',
	process: 'What the run is doing now',
	progress: 'How far the run is, 0 to 100',
	status: 'Whether it is a draft or running',
	type: 'The policy it follows',
	updated: 'When it last changed',
};
export const RESEARCHER_READABLE_FIELDS = Object.keys(READABLE_FIELDS);

const titleCase = (value: string) =>
	value
		.split('_')
		.map((word) => word[0].toUpperCase() + word.slice(1))
		.join(' ');

/** Filled by the Researcher ID's check (pathId), trimmed and encoded. */
export const researcherUrl = '/v1/researcher/{researcherId}';

export const researcherIdField: INodeProperties = idField({
	displayName: 'Researcher ID',
	name: 'researcherId',
	placeholder: 'ID from Researcher > Create',
	description: 'Identifier of the researcher, as returned by Researcher > Create',
});

export const researcherGetOperation: OperationSpec = {
	name: 'Get',
	value: 'get',
	action: 'Get a researcher',
	description:
		'Retrieve a researcher with its status, progress and output, and whether its run is complete',
	method: 'GET',
	url: researcherUrl,
	postReceive: [unwrapEnvelope, addCompletion],
	fields: [
		researcherIdField,
		field({
			displayName: 'Fields',
			name: 'fields',
			type: 'multiOptions',
			options: RESEARCHER_READABLE_FIELDS.map((value) => ({
				name: titleCase(value),
				value,
				description: READABLE_FIELDS[value],
			})),
			default: [],
			description: `Fields to return; all of them when none is selected. The output's \`complete\` (true once the run is finished) needs ${COMPLETION_FIELDS.map(titleCase).join(' and ')} among them.`,
			sendTo: 'qs.fields',
			checks: [commaList('qs.fields', 'Fields', RESEARCHER_READABLE_FIELDS)],
		}),
	],
};
