import type {
	IDataObject,
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

/** An operation: its request and how its answer is unwrapped. */
export interface OperationSpec {
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

function operationOption(spec: OperationSpec, runByRoutingNode: boolean): INodePropertyOptions {
	const {
		method,
		url,
		body,
		preSend,
		postReceive = [unwrapEnvelope],
		pagination,
		...option
	} = spec;
	const routing: NonNullable<INodePropertyOptions['routing']> = {
		request: { method, url, ...(body ? { body } : {}) },
		...(preSend ? { send: { preSend } } : {}),
		output: { postReceive },
	};
	if (runByRoutingNode) {
		// The request hook that names network failures (the send engine, which runs the bulk
		// operations, names them itself). n8n's key for it is `pagination`: it is RoutingNode's only
		// hook around a request, here around a list operation's pages or the one request.
		// `paginate: true` lets RoutingNode call it.
		routing.send = { ...routing.send, paginate: true };
		routing.operations = { pagination: readableRequests(pagination) };
	}
	return { ...option, routing };
}

/**
 * The Operation selector of a resource, options sorted by name: each operation's routing, with the
 * request hook for those RoutingNode runs (all but the resource's BULK_OPERATIONS); an option
 * without a request (Send and Wait) as it is.
 */
export function operationSelector(
	resource: string,
	operations: Array<OperationSpec | INodePropertyOptions>,
	defaultValue: string,
): INodeProperties {
	const bulk = BULK_OPERATIONS[resource] ?? [];
	const options = operations.map((spec) =>
		'method' in spec ? operationOption(spec, !bulk.includes(spec.value)) : spec,
	);
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: options.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultValue,
	};
}
