import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
	INodeTypeDescription,
	IParameterBuilderHint,
	PostReceiveAction,
} from 'n8n-workflow';

import type { Check } from '../checks/checks';
import type { RoutingRequests } from '../n8nInternals';
import type { Field } from './fields';

/** What every operation is: its place in Operation's list, and its fields. */
interface OperationBase {
	name: string;
	value: string;
	action: string;
	description: string;
	builderHint?: IParameterBuilderHint;
	/**
	 * Its fields in the order the panel shows them, each shown for the operations that list it (one
	 * object listed by several is one parameter, whose value stays when the operation changes).
	 */
	fields?: Field[];
}

/** An operation that is one request to the service. */
export interface RequestSpec extends OperationBase {
	method: IHttpRequestMethods;
	url: string;
	body?: IDataObject;
	/** Checks of the whole request, before its fields'. */
	preSend?: Check[];
	/** The records of an accepted answer's payload, an item each: the payload alone by default. */
	records?: (payload: IDataObject) => IDataObject[];
}

/** Run by n8n's RoutingNode from the `routing` derived from the spec (./routing.ts). */
export interface PlainSpec extends RequestSpec {
	sends?: undefined;
	/** RoutingNode's own readers of the answer, instead of `records`. */
	postReceive?: PostReceiveAction[];
	/** A list operation's own page walk. */
	pagination?: RoutingRequests;
}

/**
 * Sent item by item by the send loop (../sendLoop/): paced to the account's limit, never twice,
 * with Send Options; `toAPerson`: it messages a person, so Recipient Rules apply.
 */
export interface BulkSpec extends RequestSpec {
	sends: 'inBulk';
	toAPerson?: true;
}

/** Run by code of its own (Send and Wait), given the node's description: n8n's `customOperations`. */
export interface CustomSpec extends OperationBase {
	sends: 'custom';
	execute(
		description: INodeTypeDescription,
	): (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
}

export type OperationSpec = PlainSpec | BulkSpec | CustomSpec;

export interface ResourceSpec {
	name: string;
	value: string;
	description: string;
	operations: OperationSpec[];
	defaultOperation: string;
}

export const isBulk = (spec: OperationSpec): spec is BulkSpec => spec.sends === 'inBulk';

/** Every field of an operation, the entries of its collections included. */
export function allFields(fields: Field[] = []): Field[] {
	return fields.flatMap((field) =>
		field.type === 'collection' ? [field, ...allFields(field.options as Field[])] : [field],
	);
}
