import type {
	IDataObject,
	IHttpRequestMethods,
	IN8nRequestOperations,
	INodeProperties,
	INodePropertyOptions,
	IParameterBuilderHint,
	PostReceiveAction,
} from 'n8n-workflow';

import { BULK_OPERATIONS } from './bulkOperations';
import type { Check } from './checks';
import { unwrapEnvelope } from './envelope';
import { readableError } from './network';

/** RoutingNode's hook around an operation's requests. */
type Send = Extract<IN8nRequestOperations['pagination'], (...args: never[]) => unknown>;

export interface OperationSpec {
	name: string;
	value: string;
	action: string;
	description: string;
	method: IHttpRequestMethods;
	url: string;
	body?: IDataObject;
	preSend?: Check[];
	/** The envelope's body by default. */
	postReceive?: PostReceiveAction[];
	/** A list operation's own page walk. */
	pagination?: Send;
	/** What an AI builder must know to build a workflow around it. */
	builderHint?: IParameterBuilderHint;
}

/** An operation's request, or a list operation's pages (`send`), with network failures made readable. */
function readableRequests(send?: Send): Send {
	return async function (requestData) {
		try {
			return send ? await send.call(this, requestData) : await this.makeRoutingRequest(requestData);
		} catch (error) {
			throw await readableError.call(this, error);
		}
	};
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
		// Names network failures. `pagination` is RoutingNode's only hook around a request, so
		// every operation it runs has one; `paginate: true` lets RoutingNode call it.
		routing.send = { ...routing.send, paginate: true };
		routing.operations = { pagination: readableRequests(pagination) };
	}
	return { ...option, routing };
}

/** Options sorted by name; the send engine runs BULK_OPERATIONS and names failures itself. */
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
