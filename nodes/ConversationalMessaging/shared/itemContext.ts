import type { IExecuteFunctions, IExecuteSingleFunctions } from 'n8n-workflow';

/**
 * What the node's own hooks (field checks, envelope readers) use of n8n's per-item context.
 * RoutingNode hands them its whole ExecuteSingleContext; the send engine and Send and Wait hand
 * them this, so a hook typed with it cannot reach for more than both give.
 */
export type ItemContext = Pick<
	IExecuteSingleFunctions,
	'getNode' | 'getItemIndex' | 'getNodeParameter' | 'getCredentials'
>;

/** Reads a parameter for an item, as IExecuteFunctions does; Send and Wait's steps read theirs under other names. */
export type ParameterReader = (
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: { extractValue?: boolean },
) => unknown;

/** The node seen for one item. */
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
