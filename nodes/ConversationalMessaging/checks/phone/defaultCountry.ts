import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DEFAULT_COUNTRY, NO_COUNTRY } from '../../service/account';
import { COUNTRY_OPTIONS } from './countryList';

/*
 * The Default Country setting: the credential's field and the node's, and the node's list. Apart
 * from the phone's reading (./reading.ts, which reads an item's), whose tables the credential
 * does not load.
 */

const READING =
	'A number written without + or 00 that is a number of this country as dialled there (for Colombia 300 123 4567, for Germany 01512 3456789) is sent with its country code; other numbers are read with their first digits as the country code.';

/** Set once for the account: an account usually sends from one country. */
export const credentialDefaultCountry: INodeProperties = {
	displayName: 'Default Country',
	name: DEFAULT_COUNTRY,
	type: 'options',
	// None says what it does: the first digits are the country code.
	options: [{ name: 'None (First Digits Are the Country Code)', value: '' }, ...COUNTRY_OPTIONS],
	default: '',
	description: `The country of phone numbers typed without their country code. ${READING} With None, a number typed without + is read with its first digits as its country code (201 555 0123 goes to Egypt, +20), unless it is also a number of the country of the workflow's time zone as dialled there: that one is refused, naming both readings. One written as within a country (a leading 0, an area code in brackets) is refused too.`,
};

/** The node setting's list, loaded when opened (./countryList.ts). */
export const LOAD_DEFAULT_COUNTRIES = 'defaultCountries';

const NODE_CHOICES: INodePropertyOptions[] = [
	{ name: 'From Credential', value: '' },
	{ name: (credentialDefaultCountry.options as INodePropertyOptions[])[0].name, value: NO_COUNTRY },
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
