import type { IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';
import { COUNTRIES } from './countries';
import { COUNTRY_OPTIONS } from './countryList';

/** The parameter's name, in the credential and as the node's setting. */
export const DEFAULT_COUNTRY = 'defaultCountry';
const NO_COUNTRY = 'none';

const READING =
	'A number typed without + or 00 that is a number of this country, as typed there (300 123 4567, 0300 ..., with its national prefix or without), is sent with its country code; other numbers must start with their country code.';

/** Set once for the account: an account usually sends from one country. */
export const credentialDefaultCountry: INodeProperties = {
	displayName: 'Default Country',
	name: DEFAULT_COUNTRY,
	type: 'options',
	options: [{ name: 'None (Country Code Required)', value: '' }, ...COUNTRY_OPTIONS],
	default: '',
	description: `The country of phone numbers typed without their country code. ${READING} With None, every number must start with its country code.`,
};

/** The node setting's list, loaded when opened (./countryList.ts). */
export const LOAD_DEFAULT_COUNTRIES = 'defaultCountries';

const NODE_CHOICES: INodePropertyOptions[] = [
	{ name: 'From Credential', value: '' },
	{ name: 'None (Country Code Required)', value: NO_COUNTRY },
	...COUNTRY_OPTIONS,
];

export const defaultCountryOptions = {
	[LOAD_DEFAULT_COUNTRIES]: async () => NODE_CHOICES,
};

/**
 * Per node, in its Settings: a workflow that sends abroad, or whose items name their country.
 * Its list is loaded, not declared: n8n writes a declared list into the type of every operation
 * it shows for (seven), which n8n's AI builders read (245 countries each time).
 */
export function nodeDefaultCountry(show: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Default Country',
		name: DEFAULT_COUNTRY,
		type: 'options',
		typeOptions: { loadOptionsMethod: LOAD_DEFAULT_COUNTRIES },
		isNodeSetting: true,
		displayOptions: show,
		default: '',
		description: `The country of phone numbers typed without their country code, for this node: the credential's Default Country unless set here. ${READING} An expression may give a two-letter country code per item, such as CO.`,
		builderHint: {
			propertyHint:
				"A two-letter country code such as CO or US; empty for the credential's Default Country; none when every number carries its country code.",
		},
	};
}

type Reader = Pick<IExecuteSingleFunctions, 'getNode' | 'getNodeParameter' | 'getCredentials'>;

/** The Default Country of an item: the node's, else the credential's; undefined for none. `fail` names the field. */
export async function homeCountry(
	item: Reader,
	fail: (problem: string, fix: string) => never,
): Promise<string | undefined> {
	// A plain value is read as it is: n8n's parameter reader costs a bulk send's every item.
	const raw = item.getNode().parameters[DEFAULT_COUNTRY] ?? '';
	const own =
		typeof raw === 'string' && !raw.startsWith('=')
			? raw
			: (item.getNodeParameter(DEFAULT_COUNTRY, '') as unknown);
	const chosen =
		own === NO_COUNTRY ? '' : own || (await item.getCredentials(CREDENTIAL_NAME))[DEFAULT_COUNTRY];
	if (chosen === undefined || chosen === null || chosen === '') return undefined;
	const region = typeof chosen === 'string' ? chosen.trim().toUpperCase() : '';
	if (Object.prototype.hasOwnProperty.call(COUNTRIES, region)) return region;
	return fail(
		`"${String(chosen)}" is not a country of the list`,
		'Pick a country from the list, or give a two-letter country code such as CO (Colombia) or US.',
	);
}
