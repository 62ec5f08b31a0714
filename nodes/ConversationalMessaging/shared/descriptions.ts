import type {
	IDataObject,
	IDisplayOptions,
	IHttpRequestMethods,
	INodeProperties,
	INodePropertyOptions,
	PostReceiveAction,
	PreSendAction,
} from 'n8n-workflow';

import { BULK_OPERATIONS } from './bulkOperations';
import { unwrapEnvelope } from './envelope';
import type { Send } from './network';
import { readableRequests } from './network';
import { freeText, omitWhenBlank, oneOf, pathId, requireField, text } from './checks';

/** Shows a field only for these operations of a resource. */
export function showFor(
	resource: string,
	operations: string[],
	extra: IDataObject = {},
): IDisplayOptions {
	return {
		show: { resource: [resource], operation: operations, ...extra } as IDisplayOptions['show'],
	};
}

interface OperationSpec {
	name: string;
	value: string;
	action: string;
	description: string;
	method: IHttpRequestMethods;
	url: string;
	/** Constant body fields every request of the operation carries. */
	body?: IDataObject;
	preSend?: PreSendAction[];
	/** How the answer becomes items; the envelope's body by default. */
	postReceive?: PostReceiveAction[];
	/** Fetches the pages of a list operation itself (it then sees every request). */
	pagination?: Send;
}

/** One operation: its request and how its answer is unwrapped. */
export function operation({
	method,
	url,
	body,
	preSend,
	postReceive = [unwrapEnvelope],
	pagination,
	...option
}: OperationSpec): INodePropertyOptions {
	return {
		...option,
		routing: {
			request: { method, url, ...(body ? { body } : {}) },
			...(preSend ? { send: { preSend } } : {}),
			...(pagination ? { operations: { pagination } } : {}),
			output: { postReceive },
		},
	};
}

/**
 * An operation RoutingNode runs gets the request hook that names network failures (the send
 * engine, which runs the bulk operations, names them itself). n8n's key for it is `pagination`:
 * it is RoutingNode's only hook around a request, here around the pages of a list operation or
 * around the one request; `paginate: true` lets RoutingNode call it.
 */
function withRequestHook(option: INodePropertyOptions): INodePropertyOptions {
	const { routing } = option;
	if (!routing) return option;
	const pages = routing.operations?.pagination as Send | undefined;
	return {
		...option,
		routing: {
			...routing,
			send: { ...routing.send, paginate: true },
			operations: { pagination: readableRequests(pages) },
		},
	};
}

/** The Operation selector of a resource, options sorted by name. */
export function operationSelector(
	resource: string,
	options: INodePropertyOptions[],
	defaultValue: string,
): INodeProperties {
	const bulk = BULK_OPERATIONS[resource] ?? [];
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: options
			.map((option) => (bulk.includes(String(option.value)) ? option : withRequestHook(option)))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultValue,
	};
}

type FieldSpec = Omit<INodeProperties, 'default' | 'type' | 'routing'> & {
	type?: INodeProperties['type'];
	default?: INodeProperties['default'];
	/** Where the value goes: `body.x` or `qs.x` (dots nest). Not sent when absent. */
	sendTo?: string;
	/** Checks run on the value in the request before it is sent. */
	checks?: PreSendAction[];
};

/** Without checks of its own, a field still refuses a value of the wrong type from an expression. */
function typeChecks(property: INodeProperties, sendTo: string): PreSendAction[] {
	if (property.type === 'string') return [freeText(sendTo, property.displayName)];
	if (property.type === 'options') {
		return [
			oneOf(
				sendTo,
				property.displayName,
				(property.options as INodePropertyOptions[]).map((option) => option.value),
			),
		];
	}
	return [];
}

/**
 * A field and where it is sent. A required field is checked again once expressions have
 * resolved, since an expression can leave it empty.
 */
export function field({ sendTo, checks = [], ...spec }: FieldSpec): INodeProperties {
	const property: INodeProperties = { type: 'string', default: '', ...spec };
	if (sendTo) {
		if (!checks.length) checks = typeChecks(property, sendTo);
		checks = [
			spec.required ? requireField(sendTo, spec.displayName) : omitWhenBlank(sendTo),
			...checks,
		];
		const [location, ...path] = sendTo.split('.');
		property.routing = {
			send: {
				type: location === 'qs' ? 'query' : 'body',
				property: path.join('.'),
				preSend: checks,
			},
		};
	}
	return property;
}

/**
 * The identifier of a record, as text: sent where `sendTo` says, or, without it, placed in the
 * URL by the operation (`{{$parameter.<name>}}`, or `{<name>}`, which the check fills) and checked
 * here before the request. Its placeholder and description say where the identifier comes from.
 */
export function idField(
	spec: Pick<
		FieldSpec,
		'displayName' | 'name' | 'description' | 'displayOptions' | 'placeholder' | 'hint'
	> & { sendTo?: string },
): INodeProperties {
	if (spec.sendTo)
		return field({ ...spec, required: true, checks: [text(spec.sendTo, spec.displayName)] });
	return {
		...field({ ...spec, required: true }),
		routing: { send: { preSend: [pathId(spec.name, spec.displayName)] } },
	};
}

interface IdLocatorSpec
	extends Pick<FieldSpec, 'displayName' | 'name' | 'description' | 'displayOptions' | 'hint'> {
	/** The `methods.listSearch` method that lists the records, searchable by the typed text. */
	searchListMethod: string;
	/** Shown in the From List input, e.g. "Select a campaign...". */
	listPlaceholder: string;
	/** Shown in the By ID input. */
	idPlaceholder: string;
	/** What a typed ID must match (n8n anchors it with ^ and $), and what the editor says when it does not. */
	idPattern?: { regex: string; errorMessage: string };
}

/**
 * The identifier of a record as n8n's resource locator: picked From List (a `listSearch` method)
 * or typed By ID. The operation's URL holds `{<name>}`, which the check fills with the value n8n
 * extracts from the locator; a plain string (a value saved before the locator existed, or an
 * expression) is read as it is. No mode has `extractValue`: a regex there would refuse an
 * expression's number before the check could name the field.
 */
export function idLocator(spec: IdLocatorSpec): INodeProperties {
	const { searchListMethod, listPlaceholder, idPlaceholder, idPattern, ...property } = spec;
	return {
		...property,
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
				...(idPattern ? { validation: [{ type: 'regex', properties: idPattern }] } : {}),
			},
		],
		routing: { send: { preSend: [pathId(spec.name, spec.displayName)] } },
	};
}

/** A collection of optional fields; the ones left unset are never sent. */
export function collection(
	name: string,
	displayName: string,
	displayOptions: IDisplayOptions,
	options: INodeProperties[],
	placeholder = 'Add Option',
): INodeProperties {
	return {
		displayName,
		name,
		type: 'collection',
		placeholder,
		default: {},
		displayOptions,
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

/** The "Additional Fields" of an operation, under a name of its own (see the description's unique-names test). */
export const additionalFields = (
	name: string,
	displayOptions: IDisplayOptions,
	options: INodeProperties[],
) => collection(name, 'Additional Fields', displayOptions, options, 'Add Field');

/**
 * Return All and Limit, for operations that list records. Without pagination on the service
 * side, the limit cuts the list in the node (`limitInNode`).
 */
export function returnAllAndLimit(
	displayOptions: IDisplayOptions,
	noun: string,
	limitInNode = false,
): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions,
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			hint: `How many ${noun} to return at most`,
			displayOptions: { show: { ...displayOptions.show, returnAll: [false] } },
			...(limitInNode ? { routing: { output: { maxResults: '={{$value}}' } } } : {}),
		},
	];
}
