import type { IExecuteFunctions, IExecuteSingleFunctions } from 'n8n-workflow';

/** What the node's hooks may use of an item's context: all the send engine gives, as RoutingNode does. */
export type ItemContext = Pick<
	IExecuteSingleFunctions,
	'getNode' | 'getItemIndex' | 'getNodeParameter' | 'getCredentials'
>;

/** Send and Wait reads its channel's fields under other names. */
export type ParameterReader = (
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: { extractValue?: boolean },
) => unknown;

export function itemContext(
	fns: IExecuteFunctions,
	itemIndex: number,
	read: ParameterReader = (...args) => fns.getNodeParameter(...args),
): ItemContext {
	return {
		getNode: () => fns.getNode(),
		getItemIndex: () => itemIndex,
		getNodeParameter: ((name: string, fallback?: unknown, options?: { extractValue?: boolean }) =>
			read(name, itemIndex, fallback, options)) as ItemContext['getNodeParameter'],
		// n8n reads credentials per item (an expression in them may differ).
		getCredentials: (async (type: string) =>
			await fns.getCredentials(type, itemIndex)) as ItemContext['getCredentials'],
	};
}
