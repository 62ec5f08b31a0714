import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	IN8nRequestOperations,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodePropertyRouting,
	INodeTypeDescription,
	PostReceiveAction,
	PreSendAction,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import {
	checkConstant,
	checkFixedCollection,
	checkRequestOperations,
	checkRouting,
	lodashPath,
} from './contract';
import { copyOf, mergeInto, setPath } from './merge';

/** n8n calls it `routing.operations.pagination`: the only hook around a declarative request. */
export type RequestHook = (
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
) => Promise<INodeExecutionData[]>;

/** A parameter RoutingNode reads for each item, and where its value goes. */
export interface PlannedField {
	/** Its path among the node's parameters (`leadFields.tags`). */
	parameter: string;
	/** Body or query string (RoutingNode: `send.type` 'body', else the query), and the keys under it; none when only read. */
	sendTo?: { location: 'body' | 'qs'; path: string[] };
	/** n8n checks the value against a type after evaluating it (`validateType`). */
	typeChecked: boolean;
	/** Read as RoutingNode reads a resource locator or a property with `extractValue`. */
	extractValue: boolean;
}

/** One shown property's part of the request, as RoutingNode's getRequestOptionsFromParameters returns it. */
export interface RequestPart {
	/** `{ qs: {}, body: {}, headers: {} }` with the property's `routing.request` set over it. */
	constants: IDataObject;
	/** The index in `fields` of the value this property sends. */
	field?: number;
	/** The parts of its selected option or of its collection's entries, merged into it in order. */
	nested: RequestPart[];
}

/**
 * What n8n's RoutingNode would do for the node's current resource and operation, read from the
 * same description, once per execution. Which fields are shown does not depend on the item (the
 * fields that decide it take no expression), so only the values are read per item. Every
 * routing feature is either followed here exactly or refused by name when the node is loaded
 * (./contract.ts, `ROUTING_CONTRACT`); planRequest refuses the same again.
 */
export interface RequestPlan {
	/** RoutingNode's start: `{ qs: {}, body: {}, headers: {} }` with requestDefaults set over it. */
	base: IHttpRequestOptions;
	parts: RequestPart[];
	fields: PlannedField[];
	preSend: PreSendAction[];
	postReceive: PostReceiveAction[];
	/** requestOperations merged with every shown property's `routing.operations`, as RoutingNode merges them. */
	requestOperations: IN8nRequestOperations;
	/** The operation's request hook, when `send.paginate` lets RoutingNode call it. */
	requestHook?: RequestHook;
}

type Routed = INodeProperties | INodePropertyOptions;

const emptyRequest = (): IDataObject => ({ qs: {}, body: {}, headers: {} });
/** Without post-receive actions RoutingNode makes an array answer one item per element. */
async function asRoutingNodeWithoutActions(
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	return Array.isArray(response.body)
		? (response.body as IDataObject[]).map((json) => ({ json }))
		: items;
}

interface Planning {
	plan: RequestPlan;
	node: INode;
	description: INodeTypeDescription;
	paginate?: boolean;
}

function addRouting(
	planning: Planning,
	part: RequestPart,
	property: Routed,
	routing: INodePropertyRouting,
	path: string,
) {
	const { plan } = planning;
	checkRouting(routing, path);
	if ('type' in property) {
		const extractValue = property.extractValue !== undefined || property.type === 'resourceLocator';
		const typeChecked = 'validateType' in property && property.validateType !== undefined;
		part.field = plan.fields.push({ parameter: path, typeChecked, extractValue }) - 1;
	}
	// As Object.assign: a later (or nested) property's hook replaces an earlier one.
	if (routing.operations) Object.assign(plan.requestOperations, routing.operations);
	for (const [key, value] of Object.entries(routing.request ?? {}))
		part.constants[key] = copyOf(value) as IDataObject[string];
	const send = routing.send;
	if (send?.property !== undefined) {
		const sendTo = {
			location: send.type === 'body' ? ('body' as const) : ('qs' as const),
			path:
				send.propertyInDotNotation === false ? [send.property] : lodashPath(send.property, path),
		};
		// An option has no value of its own: RoutingNode sends `undefined` for it.
		if (part.field === undefined) setPath(part.constants[sendTo.location], sendTo.path, undefined);
		else plan.fields[part.field].sendTo = sendTo;
	}
	// The first `paginate` in RoutingNode's order decides.
	if (send?.paginate !== undefined && planning.paginate === undefined)
		planning.paginate = Boolean(send.paginate);
	plan.preSend.push(...(send?.preSend ?? []));
	plan.postReceive.push(...(routing.output?.postReceive ?? []));
}

/** A shown property's part of the request, as RoutingNode's getRequestOptionsFromParameters builds it. */
function visit(planning: Planning, property: Routed, basePath: string): RequestPart | undefined {
	const { node, description } = planning;
	if (!NodeHelpers.displayParameter(node.parameters, property, node, description, node.parameters))
		return undefined;
	const path = `${basePath}${property.name}`;
	const part: RequestPart = { constants: emptyRequest(), nested: [] };
	if (property.routing) addRouting(planning, part, property, property.routing, path);
	if (!('type' in property) || !Object.prototype.hasOwnProperty.call(property, 'options'))
		return part;
	const value = NodeHelpers.getParameterValueByPath(
		node.parameters,
		property.name,
		basePath.slice(0, -1),
	);
	let nested: Routed[] = [];
	if (property.type === 'options') {
		nested = (property.options as INodePropertyOptions[])
			.filter((option) => option.value === value)
			.slice(0, 1);
	} else if (property.type === 'collection') {
		// n8n fills a shown collection's default ({}); Send and Wait's step node may leave it out.
		const names = Object.keys((value ?? {}) as IDataObject);
		nested = (property.options as INodeProperties[]).filter(
			(option) => names.includes(option.name) && option.type !== undefined,
		);
	} else if (property.type === 'fixedCollection') {
		// Its entries add nothing to the request unless they have routing, which is refused.
		checkFixedCollection(property, path);
	}
	for (const option of nested) {
		const nestedPart = visit(planning, option, `${path}.`);
		if (nestedPart) part.nested.push(nestedPart);
	}
	return part;
}

/** The plan of the node's current operation, from its description. */
export function planRequest(description: INodeTypeDescription, node: INode): RequestPlan {
	const base = emptyRequest();
	const plan: RequestPlan = {
		base: base as unknown as IHttpRequestOptions,
		parts: [],
		fields: [],
		preSend: [],
		postReceive: [],
		requestOperations: { ...description.requestOperations },
	};
	for (const [key, value] of Object.entries(description.requestDefaults ?? {})) {
		checkConstant(value, `requestDefaults.${key}`);
		base[key] = copyOf(value) as IDataObject[string];
	}
	checkRequestOperations(description.requestOperations, 'requestOperations');
	const planning: Planning = { plan, node, description };
	for (const property of description.properties) {
		const part = visit(planning, property, '');
		if (part) plan.parts.push(part);
	}
	if (planning.paginate && typeof plan.requestOperations.pagination === 'function') {
		plan.requestHook = plan.requestOperations.pagination as RequestHook;
	}
	if (!plan.postReceive.length) plan.postReceive.push(asRoutingNodeWithoutActions);
	return plan;
}

function partOf(plan: RequestPlan, part: RequestPart, values: unknown[]): IDataObject {
	const options: IDataObject = mergeInto({}, part.constants);
	const sendTo = part.field === undefined ? undefined : plan.fields[part.field].sendTo;
	if (sendTo) setPath(options[sendTo.location], sendTo.path, values[part.field as number]);
	for (const nested of part.nested) mergeInto(options, partOf(plan, nested, values));
	return options;
}

/** The item's request, before the pre-send hooks: each part merged in turn, as RoutingNode merges them (lodash's merge). */
export function requestOf(plan: RequestPlan, values: unknown[]): IHttpRequestOptions {
	const options = mergeInto({}, plan.base);
	for (const part of plan.parts) mergeInto(options, partOf(plan, part, values));
	return options as unknown as IHttpRequestOptions;
}
