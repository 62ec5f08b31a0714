import type {
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
	INodePropertyRouting,
	PreSendAction,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Check } from '../checks/checks';
import { setsAny } from '../checks/checks';
import { routedThrough } from '../n8nInternals';
import { readRecords, singleRecord } from '../service/envelope';
import { readableError } from '../service/network';
import { rulesParameter } from './settings';
import type { Field, Sent } from './fields';
import type { OperationSpec } from './operations';

/*
 * n8n's `routing`, derived from the specs of the operations that are one request: RoutingNode runs
 * the plain ones by it. A bulk send has it too, for where n8n runs the node's `execute` (which n8n
 * sets to RoutingNode for a node without one) instead of its `customOperations`: a tool called
 * through getInputConnectionData (n8n 1.x's agents, older agents and the MCP Server Trigger on
 * 2.x). There it sends as a plain operation, one request per item, unpaced; the send loop never
 * reads it.
 */

/** A check as RoutingNode calls it: with its item's context as `this`, returning the request. */
const asPreSend = (check: Check): PreSendAction =>
	async function (this: IExecuteSingleFunctions, request) {
		await check(request, this);
		return request;
	};

function sentRouting({ to, checks }: Sent): INodePropertyRouting {
	const [location, ...path] = to ?? [];
	const place = to ? { type: location === 'qs' ? 'query' : 'body', property: path.join('.') } : {};
	return { send: { ...(place as object), preSend: checks.map(asPreSend) } };
}

/** A field as n8n gets it: `sent` gone, as RoutingNode's routing where it runs the operation. */
export function fieldProperty({ sent, ...property }: Field, routed: boolean): INodeProperties {
	if (property.type === 'collection')
		property.options = (property.options as Field[]).map((entry) => fieldProperty(entry, routed));
	if (routed && sent) property.routing = { ...property.routing, ...sentRouting(sent) };
	return property;
}

/** An item refused where n8n runs the node's `execute` (RoutingNode), before any request. */
const refused = (context: IExecuteSingleFunctions, message: string, description: string) =>
	new NodeOperationError(context.getNode(), message, {
		description,
		itemIndex: context.getItemIndex(),
	});

/** There, an operation only the node's own code can run (Send and Wait, which waits). */
const ownCodeOnly: PreSendAction = async function (this: IExecuteSingleFunctions) {
	throw refused(
		this,
		'Send and Wait cannot run here: this caller runs the node without waiting for an answer',
		"Nothing was sent. Use Send and Wait as a workflow step, or as a tool of n8n's AI Agent (version 3 and later) or its human review.",
	);
};

/**
 * There too, a bulk send with Recipient Rules set: only the send loop keeps them (a person on Do
 * Not Send To, outside the Send Window or over the daily cap).
 */
const rulesKeptByTheLoop = (resource: string): PreSendAction =>
	async function (this: IExecuteSingleFunctions, request) {
		if (setsAny(this.getNode().parameters[rulesParameter(resource)]))
			throw refused(
				this,
				'Recipient Rules cannot be kept here: this caller runs the node without its send loop',
				"Nothing was sent. Send as a workflow step, or as a tool of n8n's AI Agent (version 3 and later); or remove the Recipient Rules.",
			);
		return request;
	};

/** The resource's operation's option with its request's routing (Send and Wait's refuses RoutingNode). */
export function operationOption(resource: string, spec: OperationSpec): INodePropertyOptions {
	const { name, value, action, description, builderHint } = spec;
	const option: INodePropertyOptions = { name, value, action, description };
	if (builderHint) option.builderHint = builderHint;
	if (spec.sends === 'custom') return { ...option, routing: { send: { preSend: [ownCodeOnly] } } };
	const { method, url, body, preSend, records = singleRecord } = spec;
	const plain = spec.sends === undefined ? spec : undefined;
	const checks = [
		...(spec.sends === 'inBulk' && spec.toAPerson ? [rulesKeptByTheLoop(resource)] : []),
		...(preSend ?? []).map(asPreSend),
	];
	const routing: INodePropertyRouting = {
		request: { method, url, ...(body ? { body } : {}) },
		...(checks.length ? { send: { preSend: checks } } : {}),
		output: { postReceive: plain?.postReceive ?? [readRecords(records)] },
	};
	// Network failures named on each request RoutingNode makes (its one hook around a request:
	// ../n8nInternals.ts), a list operation's own page walk included.
	return { ...option, routing: routedThrough(routing, plain?.pagination, readableError) };
}
