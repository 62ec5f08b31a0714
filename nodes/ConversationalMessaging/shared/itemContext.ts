import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	INode,
} from 'n8n-workflow';

import type { PhoneReading } from './phone/reading';

/** What the node's hooks may use of an item's context: all the send engine gives, as RoutingNode does. */
export type ItemContext = Pick<
	IExecuteSingleFunctions,
	'getNode' | 'getItemIndex' | 'getNodeParameter' | 'getCredentials'
> & {
	/** Told how a check read the item's phone number: the send loop's, not RoutingNode's. */
	phoneRead?: (reading: PhoneReading) => void;
};

/** Send and Wait reads its channel's fields under other names. */
export type ParameterReader = (
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: { extractValue?: boolean },
) => unknown;

/**
 * `credentials`: the ones the caller read for the run, if it sends with them (the send loop reads
 * them once, not once per item); else n8n reads them per item, as RoutingNode does.
 */
export function itemContext(
	fns: IExecuteFunctions,
	itemIndex: number,
	{
		read = (...args) => fns.getNodeParameter(...args),
		credentials,
		node,
	}: {
		read?: ParameterReader;
		credentials?: ICredentialDataDecryptedObject;
		/** The node as read once for the run: n8n's getNode copies it at every call. */
		node?: INode;
	} = {},
): ItemContext {
	return {
		getNode: () => node ?? fns.getNode(),
		getItemIndex: () => itemIndex,
		getNodeParameter: ((name: string, fallback?: unknown, options?: { extractValue?: boolean }) =>
			read(name, itemIndex, fallback, options)) as ItemContext['getNodeParameter'],
		getCredentials: (async (type: string) =>
			credentials ?? (await fns.getCredentials(type, itemIndex))) as ItemContext['getCredentials'],
	};
}
