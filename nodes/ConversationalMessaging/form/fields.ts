import type {
	IDataObject,
	IDisplayOptions,
	INodeProperties,
	INodePropertyOptions,
	IParameterBuilderHint,
} from 'n8n-workflow';

import type { Check } from '../checks/checks';
import { freeText, omitWhenBlank, oneOf, pathId, requireField, text } from '../checks/checks';

export function showFor(
	resource: string,
	operations: string[],
	extra: IDataObject = {},
): IDisplayOptions {
	return {
		show: { resource: [resource], operation: operations, ...extra } as IDisplayOptions['show'],
	};
}

/**
 * Where a field's value goes in its operation's request (`to`: `body` or `qs`, then the keys under
 * it; none for a value its checks put in the URL) and its checks in order: read by the send loop and
 * Send and Wait, and turned into n8n's `routing` for RoutingNode (./routing.ts).
 */
export interface Sent {
	to?: string[];
	checks: Check[];
}

/** A node parameter, and how an operation sends it. */
export type Field = INodeProperties & { sent?: Sent };

export type FieldSpec = Omit<INodeProperties, 'default' | 'type' | 'routing'> & {
	type?: INodeProperties['type'];
	default?: INodeProperties['default'];
	/** Where the value goes: `body.x` or `qs.x` (dots nest). Not sent when absent. */
	sendTo?: string;
	checks?: Check[];
};

/** Without checks of its own, a field still refuses a value of the wrong type from an expression. */
function typeChecks({ type, displayName, options }: INodeProperties, sendTo: string) {
	if (type === 'string') return [freeText(sendTo, displayName)];
	if (type !== 'options') return [];
	const values = (options as INodePropertyOptions[]).map((option) => option.value);
	return [oneOf(sendTo, displayName, values)];
}

/**
 * A field and where it is sent. Its presence (required, or left out when blank) is checked again
 * at send time, as an expression can empty it, and after its own checks, which can leave nothing
 * (a list of only commas).
 */
export function field({ sendTo, checks = [], ...spec }: FieldSpec): Field {
	const property: INodeProperties = { type: 'string', default: '', ...spec };
	if (!sendTo) return property;
	const presence = spec.required ? requireField(sendTo, spec.displayName) : omitWhenBlank(sendTo);
	const own = checks.length ? [...checks, presence] : typeChecks(property, sendTo);
	return { ...property, sent: { to: sendTo.split('.'), checks: [presence, ...own] } };
}

/** What an AI builder is told of an identifier field, unless the field says otherwise. */
const ID_HINT: IParameterBuilderHint = {
	propertyHint:
		'An identifier the service gave: map it from the output of the operation its description names (an earlier node of this type), or leave a placeholder for the user.',
};

/** A record's identifier: sent where `sendTo` says, or else put in the operation's URL. */
export function idField(spec: Omit<FieldSpec, 'required' | 'checks'>): Field {
	const checks = spec.sendTo ? [text(spec.sendTo, spec.displayName)] : [];
	const property = field({ builderHint: ID_HINT, ...spec, required: true, checks });
	if (spec.sendTo) return property;
	return { ...property, sent: { checks: [pathId(spec.name, spec.displayName)] } };
}

interface IdLocatorSpec
	extends Pick<FieldSpec, 'displayName' | 'name' | 'description' | 'displayOptions'> {
	searchListMethod: string;
	listPlaceholder: string;
	idPlaceholder: string;
	idPattern: { regex: string; errorMessage: string };
}

/**
 * A record's identifier, From List or By ID, for the URL's `{<name>}`. No mode has `extractValue`:
 * its regex would refuse an expression's number before the check could name the field.
 */
export function idLocator(spec: IdLocatorSpec): Field {
	const { searchListMethod, listPlaceholder, idPlaceholder, idPattern, ...property } = spec;
	return {
		...property,
		builderHint: ID_HINT,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: listPlaceholder,
				typeOptions: { searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: idPlaceholder,
				validation: [{ type: 'regex', properties: idPattern }],
			},
		],
		sent: { checks: [pathId(spec.name, spec.displayName)] },
	};
}

/** A collection of optional fields; the ones left unset are never sent. */
export function collection(
	name: string,
	displayName: string,
	displayOptions: IDisplayOptions,
	options: INodeProperties[],
	{
		placeholder = 'Add Option',
		description,
		builderHint,
	}: { placeholder?: string; description: string; builderHint?: IParameterBuilderHint },
): INodeProperties {
	return {
		displayName,
		name,
		type: 'collection',
		placeholder,
		default: {},
		description,
		...(builderHint ? { builderHint } : {}),
		displayOptions,
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

/** Each under a name of its own: parameter names are unique in the node. */
export const additionalFields = (
	name: string,
	options: INodeProperties[],
	displayOptions: IDisplayOptions = {},
) =>
	collection(name, 'Additional Fields', displayOptions, options, {
		placeholder: 'Add Field',
		description: 'Optional fields of the request: only the ones added are sent',
	});

/** `limitInNode`: the service does not page the list, so the node cuts it. */
export function returnAllAndLimit(noun: string, limitInNode = false): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			hint: `How many ${noun} to return at most`,
			displayOptions: { show: { returnAll: [false] } },
			...(limitInNode ? { routing: { output: { maxResults: '={{$value}}' } } } : {}),
		},
	];
}

/** Options, each [name, value, description]. */
export const optionsOf = (choices: string[][]) =>
	choices.map(([name, value, description]) => ({ name, value, description }));

/** An options parameter, its `choices` each [name, value, description]. */
export function choice({
	choices,
	...spec
}: Omit<INodeProperties, 'type'> & { choices: string[][] }) {
	return { ...spec, type: 'options', options: optionsOf(choices) } satisfies INodeProperties;
}

/** n8n's fixedCollection of one group of fields, `values`, as its form and send-and-wait nodes have. */
export const valuesOf = (
	spec: Omit<INodeProperties, 'type' | 'options'>,
	values: INodeProperties[],
) =>
	field({
		...spec,
		type: 'fixedCollection',
		options: [{ displayName: 'Values', name: 'values', values }],
	});
