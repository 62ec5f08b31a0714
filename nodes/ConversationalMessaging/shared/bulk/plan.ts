import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
	PostReceiveAction,
	PreSendAction,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

/**
 * What n8n's RoutingNode would do for the node's current resource and operation, read from the
 * same description, once per execution: the constant part of the request, the fields whose
 * values go into it (in the order RoutingNode visits them), the pre-send hooks, the pagination
 * hook and the post-receive actions. Which fields are shown does not depend on the item (the
 * fields that decide it take no expression), so only the values are read per item.
 *
 * Only the routing our builders write is supported (send to body or query by dotted property,
 * function hooks); anything else throws here, so a description change that the loop cannot
 * follow fails every run and the parity test, never a request.
 */
export interface RequestPlan {
	/** requestDefaults and the operation's constant request, merged as RoutingNode merges them. */
	base: IHttpRequestOptions;
	/** Parameter paths, where their values go (`body.to`, `qs.page`), and whether n8n checks the value against a type after evaluating it (`validateType`). */
	fields: Array<{ parameter: string; sendTo: string; typeChecked: boolean }>;
	preSend: PreSendAction[];
	postReceive: PostReceiveAction[];
	pagination?: (this: IExecutePaginationFunctions, requestData: DeclarativeRestApiSettings.ResultOptions) => Promise<INodeExecutionData[]>;
}

type Routed = INodeProperties | INodePropertyOptions;

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Deep merge of plain objects; anything else replaces (RoutingNode uses lodash's merge). */
export function mergeInto(target: IDataObject, source: IDataObject): IDataObject {
	for (const [key, value] of Object.entries(source)) {
		if (isObject(value)) target[key] = mergeInto(isObject(target[key]) ? target[key] : {}, value);
		else target[key] = Array.isArray(value) ? [...value] : value;
	}
	return target;
}

function unsupported(what: string, where: string): never {
	throw new Error(`The send loop cannot follow ${what} (${where}); route this operation through n8n's RoutingNode instead`);
}

function constant(value: unknown, where: string): unknown {
	if (typeof value === 'string' && value.startsWith('=')) unsupported('an expression in the request', where);
	if (isObject(value)) Object.entries(value).forEach(([key, entry]) => constant(entry, `${where}.${key}`));
	return value;
}

function functions<T>(actions: unknown[] | undefined, where: string): T[] {
	return (actions ?? []).map((action) => (typeof action === 'function' ? (action as T) : unsupported('a declarative action', where)));
}

/** Adds what one property contributes, as RoutingNode's getRequestOptionsFromParameters does. */
function visit(plan: RequestPlan, node: INode, description: INodeTypeDescription, property: Routed, basePath: string): void {
	const shown = NodeHelpers.displayParameter(node.parameters, property, node, description, node.parameters);
	if (!shown) return;
	const path = `${basePath}${property.name}`;
	const routing = property.routing;
	if (routing) {
		if (routing.request) mergeInto(plan.base as unknown as IDataObject, constant(routing.request, path) as IDataObject);
		const send = routing.send;
		if (send?.property !== undefined) {
			if (send.value !== undefined || send.propertyInDotNotation === false) unsupported('a send value or property not in dot notation', path);
			plan.fields.push({
				parameter: path,
				sendTo: `${send.type === 'query' ? 'qs' : 'body'}.${String(constant(send.property, path))}`,
				typeChecked: 'validateType' in property && property.validateType !== undefined,
			});
		}
		if (send?.preSend) plan.preSend.push(...functions<PreSendAction>(send.preSend, path));
		if (routing.operations?.pagination) {
			if (typeof routing.operations.pagination !== 'function') unsupported('declarative pagination', path);
			plan.pagination = routing.operations.pagination;
		}
		if (routing.output?.maxResults !== undefined) unsupported('maxResults', path);
		plan.postReceive.push(...functions<PostReceiveAction>(routing.output?.postReceive, path));
	}
	if (!('type' in property) || !('options' in property) || !property.options) return;
	if (property.type === 'options') {
		const selected = NodeHelpers.getParameterValueByPath(node.parameters, property.name, basePath.slice(0, -1));
		const option = (property.options as INodePropertyOptions[]).find((candidate) => candidate.value === selected);
		if (option) visit(plan, node, description, option, `${path}.`);
	} else if (property.type === 'collection') {
		const value = (NodeHelpers.getParameterValueByPath(node.parameters, property.name, basePath.slice(0, -1)) ?? {}) as IDataObject;
		for (const option of property.options as INodeProperties[]) {
			if (option.name in value && option.type !== undefined) visit(plan, node, description, option, `${path}.`);
		}
	} else if (property.type === 'fixedCollection') {
		const routed = (property.options as INodePropertyCollection[]).some((group) => group.values.some((value) => value.routing));
		if (routed) unsupported('routing inside a fixed collection', path);
	}
}

/** The plan of the node's current operation, from its description. */
export function planRequest(description: INodeTypeDescription, node: INode): RequestPlan {
	const plan: RequestPlan = { base: { url: '', qs: {}, body: {}, headers: {} }, fields: [], preSend: [], postReceive: [] };
	Object.assign(plan.base, constant(description.requestDefaults ?? {}, 'requestDefaults'));
	for (const property of description.properties) visit(plan, node, description, property, '');
	return plan;
}
