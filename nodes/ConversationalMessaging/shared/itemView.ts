import type {
	IBinaryData,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	NodeConnectionType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

/**
 * The node seen for one item, as n8n's ExecuteSingleContext (n8n-core) shows it to a declarative
 * node's hooks: every method that answers per item answers for this one, with the single-item
 * signatures; the rest is the node's context itself. `fns` may be a view of its own (a step of
 * Send and Wait, ./sendAndWait/run.ts): each method goes through it.
 */
export function itemView(fns: IExecuteFunctions, itemIndex: number): IExecuteSingleFunctions {
	const node = () => fns.getNode();
	/** The context's binary helpers read input 0 only; this node has no other. */
	const onInputZero = (propertyName: string | IBinaryData, inputIndex: number) => {
		if (inputIndex !== 0 && typeof propertyName === 'string') {
			throw new NodeOperationError(
				node(),
				`This node has one input: there is no input ${inputIndex} to read binary data from`,
				{ itemIndex },
			);
		}
	};
	const helpers = Object.create(fns.helpers, {
		assertBinaryData: {
			value: (propertyName: string, inputIndex = 0) => {
				onInputZero(propertyName, inputIndex);
				return fns.helpers.assertBinaryData(itemIndex, propertyName);
			},
		},
		getBinaryDataBuffer: {
			value: async (propertyName: string, inputIndex = 0) => {
				onInputZero(propertyName, inputIndex);
				return await fns.helpers.getBinaryDataBuffer(itemIndex, propertyName);
			},
		},
	}) as IExecuteSingleFunctions['helpers'];
	return Object.create(fns, {
		getItemIndex: { value: () => itemIndex },
		getInputData: {
			value: (
				inputIndex = 0,
				connectionType: NodeConnectionType = NodeConnectionTypes.Main,
			): INodeExecutionData => {
				// As ExecuteSingleContext: an input type the node was not given reads as an empty item.
				if (!Object.prototype.hasOwnProperty.call(fns.getExecuteData().data, connectionType))
					return { json: {} };
				const item = fns.getInputData(inputIndex, connectionType)[itemIndex];
				if (item === undefined)
					throw new NodeOperationError(node(), 'Value of input with given index was not set', {
						itemIndex,
					});
				return item;
			},
		},
		getNodeParameter: {
			value: (name: string, fallback?: unknown, options?: object) =>
				fns.getNodeParameter(name, itemIndex, fallback, options),
		},
		evaluateExpression: {
			value: (expression: string, index = itemIndex) => fns.evaluateExpression(expression, index),
		},
		getWorkflowDataProxy: { value: () => fns.getWorkflowDataProxy(itemIndex) },
		// n8n's request helpers read the credential through `this`: the item's (expressions in it).
		getCredentials: { value: async (type: string) => await fns.getCredentials(type, itemIndex) },
		helpers: { value: helpers },
	}) as IExecuteSingleFunctions;
}
