import { field } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { researcherFilesField } from './files';

export const researcherCreateOperation: OperationSpec = {
	name: 'Create',
	value: 'create',
	action: 'Create a researcher',
	description: 'Create an AI researcher as a draft, from a policy and files; Run starts it',
	method: 'POST',
	url: '/v1/researcher',
	fields: [
		field({
			displayName: 'Name',
			name: 'researcherName',
			required: true,
			description: 'Name of the researcher',
			sendTo: 'body.name',
		}),
		field({
			displayName: 'Description',
			name: 'researcherDescription',
			required: true,
			typeOptions: { rows: 3 },
			description: 'What the researcher should investigate',
			sendTo: 'body.description',
		}),
		field({
			displayName: 'Model',
			name: 'model',
			type: 'options',
			required: true,
			options: [
				{ name: 'Analytics', value: 'analytics', description: 'Deepest analysis, slowest' },
				{ name: 'Balance', value: 'balance', description: 'Balance between speed and depth' },
				{ name: 'Fast', value: 'fast', description: 'Quickest answers' },
			],
			default: 'balance',
			description: 'AI model the researcher runs on',
			sendTo: 'body.model',
		}),
		field({
			displayName: 'Policy ID',
			name: 'policyId',
			required: true,
			placeholder: 'ID of a policy in your account',
			hint: 'The API has no call that lists policies: use the identifier of one your account has',
			description:
				"Identifier of the policy that defines the kind of investigation (the service receives it as the researcher's type)",
			sendTo: 'body.type',
		}),
		researcherFilesField('files'),
	],
};
