import type {
	IDataObject,
	IHttpRequestMethods,
	INodeProperties,
	INodePropertyOptions,
	IParameterBuilderHint,
	PostReceiveAction,
} from 'n8n-workflow';

import type { Check } from '../checks/checks';
import type { RoutingRequests } from '../n8nInternals';
import { routedThrough } from '../n8nInternals';
import { unwrapEnvelope } from '../service/envelope';
import { readableError } from '../service/network';
import { BULK_OPERATIONS } from './bulkOperations';

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
	pagination?: RoutingRequests;
	/** What an AI builder must know to build a workflow around it. */
	builderHint?: IParameterBuilderHint;
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
	// Network failures named on each request RoutingNode makes (its one hook around a request:
	// ../n8nInternals.ts), a list operation's own page walk included.
	return {
		...option,
		routing: runByRoutingNode ? routedThrough(routing, pagination, readableError) : routing,
	};
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
