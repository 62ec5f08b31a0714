import type {
	IDataObject,
	IN8nRequestOperations,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodePropertyRouting,
	INodeTypeDescription,
} from 'n8n-workflow';

import { isPlainObject } from './merge';
import { BULK_OPERATIONS } from './options';

type Treatment = 'followed' | 'refused';

/**
 * Every routing feature n8n's RoutingNode handles, and whether the send loop (./plan.ts) follows
 * it exactly or refuses it by name when the node is loaded. Keys of n8n's routing types are named
 * `<interface>.<key>`; the test (test/nodes/ConversationalMessaging/routingContract.test.ts) runs
 * each followed kind through the loop and through RoutingNode, checks each refused kind is
 * refused, and fails when n8n's types name a kind this list does not.
 */
export const ROUTING_CONTRACT = {
	// INodePropertyRouting
	'routing.request': 'followed',
	'routing.send': 'followed',
	'routing.output': 'followed',
	'routing.operations': 'followed',
	// INodeRequestSend
	'send.type': 'followed', // 'body' to the body, anything else (unset too) to the query string
	'send.property': 'followed', // a path of names (lodash's `set`)
	'send.propertyInDotNotation': 'followed', // false: the property is one key
	'send.preSend': 'followed',
	'send.paginate': 'followed', // the first one in RoutingNode's order decides whether the request hook runs
	'send.value': 'refused', // an expression over `$value`, which the loop cannot evaluate
	// INodeRequestOutput
	'output.postReceive': 'followed', // functions; without any, an array answer is one item per element
	'output.maxResults': 'refused',
	// IN8nRequestOperations
	'operations.pagination': 'followed', // a function: the request hook (its requestData.postReceive is empty: the loop runs the actions)
	// The declarative post-receive actions and paginations (their `type`s)
	'postReceive.binaryData': 'refused',
	'postReceive.filter': 'refused',
	'postReceive.limit': 'refused',
	'postReceive.rootProperty': 'refused',
	'postReceive.set': 'refused',
	'postReceive.setKeyValue': 'refused',
	'postReceive.sort': 'refused',
	'pagination.generic': 'refused',
	'pagination.offset': 'refused',
	// DeclarativeRestApiSettings.HttpRequestOptions: constants, merged as RoutingNode merges them
	'request.url': 'followed',
	'request.baseURL': 'followed',
	'request.headers': 'followed',
	'request.method': 'followed',
	'request.body': 'followed',
	'request.qs': 'followed',
	'request.arrayFormat': 'followed',
	'request.auth': 'followed',
	'request.disableFollowRedirect': 'followed',
	'request.maxRedirects': 'followed',
	'request.encoding': 'followed',
	'request.skipSslCertificateValidation': 'followed',
	'request.returnFullResponse': 'followed',
	'request.ignoreHttpStatusErrors': 'followed',
	'request.proxy': 'followed',
	'request.timeout': 'followed',
	'request.json': 'followed',
	'request.sendCredentialsOnCrossOriginRedirect': 'followed',
	'request.allowedDomains': 'followed',
	'request.agentOptions': 'followed',
	'request.abortSignal': 'refused', // n8n gives every request the execution's own signal
	// Where routing sits and what it reads
	requestDefaults: 'followed',
	requestOperations: 'followed', // the description's own request hook
	displayOptions: 'followed', // n8n's own displayParameter
	options: 'followed', // the selected option's routing
	collection: 'followed', // the routing of the entries set
	resourceLocator: 'followed', // its value extracted, as RoutingNode reads it
	extractValue: 'followed',
	fixedCollection: 'refused', // routing inside one (RoutingNode evaluates it per entry, with $index and $parent)
	expression: 'refused', // `=…` in routing or requestDefaults (send.type is never evaluated: see send.type)
	'send.property as an index path': 'refused', // `a[0]`, `a.0`: lodash's set makes arrays
	'a constant that is not plain data': 'refused', // RoutingNode copies it key by key
} as const satisfies Record<string, Treatment>;

export type RoutingKind = keyof typeof ROUTING_CONTRACT;

export function refuse(kind: RoutingKind, path: string, why: string): never {
	throw new Error(
		`The send loop cannot follow ${kind} (${path}): ${why}. Route this operation through n8n's RoutingNode instead, or follow it in shared/bulk/plan.ts and its contract`,
	);
}

/** The keys of n8n's `routing`, `send`, `output` and `operations` that the contract names. */
const namedKeys = (of: string) =>
	Object.keys(ROUTING_CONTRACT)
		.filter((kind) => kind.startsWith(`${of}.`) && !kind.includes(' '))
		.map((kind) => kind.slice(of.length + 1));
const KNOWN_KEYS = {
	routing: namedKeys('routing'),
	send: namedKeys('send'),
	output: namedKeys('output'),
	operations: namedKeys('operations'),
};

/** A routing key the contract does not name is refused: n8n may have given it a meaning. */
function checkKeys(object: object | undefined, known: keyof typeof KNOWN_KEYS, path: string): void {
	for (const key of Object.keys(object ?? {})) {
		if (!KNOWN_KEYS[known].includes(key))
			refuse(`${known}.${key}` as RoutingKind, path, 'a key the contract does not name');
	}
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

/** Plain data without expressions, which RoutingNode's evaluation copies unchanged. */
export function checkConstant(value: unknown, path: string): void {
	if (isExpression(value)) refuse('expression', path, 'RoutingNode evaluates it for each item');
	if (Array.isArray(value))
		value.forEach((entry, index) => checkConstant(entry, `${path}[${index}]`));
	else if (isPlainObject(value))
		Object.entries(value).forEach(([key, entry]) => checkConstant(entry, `${path}.${key}`));
	else if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
		refuse(
			'a constant that is not plain data',
			path,
			'RoutingNode copies its own keys into a plain object',
		);
	}
}

export function checkRequestOperations(
	operations: IN8nRequestOperations | undefined,
	path: string,
): void {
	checkKeys(operations, 'operations', path);
	const pagination = operations?.pagination;
	if (pagination !== undefined && typeof pagination !== 'function') {
		refuse(`pagination.${pagination.type}` as RoutingKind, path, 'a declarative pagination');
	}
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The keys lodash's `set` writes for a `send.property` of names joined by dots. */
export function lodashPath(property: string, path: string): string[] {
	const keys = property.split('.');
	if (
		/[[\]]/.test(property) ||
		keys.some((key) => key === '' || /^(?:0|[1-9]\d*)$/.test(key) || UNSAFE_KEYS.has(key))
	) {
		refuse('send.property as an index path', path, `"${property}" is not a path of names`);
	}
	return keys;
}

/** Refuses by name what ROUTING_CONTRACT refuses in one property's routing. */
export function checkRouting(routing: INodePropertyRouting, path: string): void {
	checkKeys(routing, 'routing', path);
	for (const [key, value] of Object.entries(routing.request ?? {})) {
		if (key === 'abortSignal') refuse('request.abortSignal', path, "n8n sets the execution's own");
		checkConstant(value, `${path}.routing.request.${key}`);
	}
	const { send, output } = routing;
	checkKeys(send, 'send', path);
	if (send?.value !== undefined)
		refuse('send.value', path, 'RoutingNode evaluates it with $value for each item');
	if (isExpression(send?.property))
		refuse('expression', `${path}.routing.send.property`, 'RoutingNode evaluates it for each item');
	if (send?.property !== undefined) {
		if (send.propertyInDotNotation !== false) lodashPath(send.property, path);
		else if (UNSAFE_KEYS.has(send.property))
			refuse('send.property as an index path', path, 'not a key a request can hold');
	}
	if (isExpression(send?.paginate))
		refuse('expression', `${path}.routing.send.paginate`, 'RoutingNode evaluates it for each item');
	checkKeys(output, 'output', path);
	if (output?.maxResults !== undefined)
		refuse('output.maxResults', path, 'the loop does not cut the answer');
	for (const action of output?.postReceive ?? []) {
		if (typeof action !== 'function')
			refuse(
				`postReceive.${action.type}` as RoutingKind,
				path,
				'a declarative post-receive action',
			);
	}
	checkRequestOperations(routing.operations, path);
}

type Routed = INodeProperties | INodePropertyOptions;

function hasRoutingInside(property: Routed | INodePropertyCollection): boolean {
	if ('routing' in property && property.routing) return true;
	const nested =
		'values' in property ? property.values : 'options' in property ? property.options : undefined;
	return (nested ?? []).some(
		(entry) => typeof entry === 'object' && hasRoutingInside(entry as Routed),
	);
}

export function checkFixedCollection(property: INodeProperties, path: string): void {
	if (
		(property.options ?? []).some((group) => hasRoutingInside(group as INodePropertyCollection))
	) {
		refuse('fixedCollection', path, 'routing inside a fixed collection');
	}
}

/** Whether the property may be shown for this resource and operation (other conditions: maybe). */
function mayShow(property: Routed, resource: string, operation: string): boolean {
	const { show, hide } = ('displayOptions' in property ? property.displayOptions : undefined) ?? {};
	const lists = (name: string, values?: IDataObject) =>
		Array.isArray(values?.[name]) &&
		(values[name] as unknown[]).every((value) => typeof value !== 'object');
	const value = (name: string) => (name === 'resource' ? resource : operation);
	for (const name of ['resource', 'operation']) {
		if (lists(name, show) && !(show?.[name] as unknown[]).includes(value(name))) return false;
		if (lists(name, hide) && (hide?.[name] as unknown[]).includes(value(name))) return false;
	}
	return true;
}

function checkProperty(property: Routed, path: string, resource: string, operation: string): void {
	if (!mayShow(property, resource, operation)) return;
	if (property.routing) checkRouting(property.routing, path);
	if (!('type' in property) || !property.options) return;
	if (property.type === 'fixedCollection') return checkFixedCollection(property, path);
	if (property.type !== 'options' && property.type !== 'collection') return;
	for (const option of property.options as Routed[]) {
		// Of the Resource and Operation selectors, only the chosen option's routing runs.
		const chosen = path === 'resource' ? resource : path === 'operation' ? operation : undefined;
		if (chosen !== undefined && 'value' in option && option.value !== chosen) continue;
		checkProperty(
			option,
			`${path}.${'value' in option ? String(option.value) : option.name}`,
			resource,
			operation,
		);
	}
}

/**
 * The check at load: every property that can be shown for an operation of the send loop
 * (./options.ts) is walked once, and routing the loop cannot follow fails loading the node,
 * naming the kind and the property, so it can never reach a request.
 */
export function refuseUnfollowedRouting<T extends INodeTypeDescription>(
	description: T,
	operations: Record<string, string[]> = BULK_OPERATIONS,
): T {
	for (const [key, value] of Object.entries(description.requestDefaults ?? {}))
		checkConstant(value, `requestDefaults.${key}`);
	checkRequestOperations(description.requestOperations, 'requestOperations');
	for (const [resource, names] of Object.entries(operations)) {
		for (const operation of names) {
			for (const property of description.properties)
				checkProperty(property, property.name, resource, operation);
		}
	}
	return description;
}
