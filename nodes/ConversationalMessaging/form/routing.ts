import type {
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
	INodePropertyRouting,
	PreSendAction,
} from 'n8n-workflow';

import type { Check } from '../checks/checks';
import { routedThrough } from '../n8nInternals';
import { readRecords, singleRecord } from '../service/envelope';
import { readableError } from '../service/network';
import type { Field, Sent } from './fields';
import type { OperationSpec } from './operations';

/*
 * n8n's `routing`, derived from the specs for the operations RoutingNode runs (PlainSpec): nobody
 * reads it for the others, which the node's own code sends from the specs.
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
export function fieldProperty({ sent, ...field }: Field, routed: boolean): INodeProperties {
	const property: INodeProperties = { ...field };
	if (field.type === 'collection')
		property.options = (field.options as Field[]).map((entry) => fieldProperty(entry, routed));
	if (routed && sent) property.routing = { ...field.routing, ...sentRouting(sent) };
	return property;
}

/** Operation's option: with its request's routing when RoutingNode runs it. */
export function operationOption(spec: OperationSpec): INodePropertyOptions {
	const { name, value, action, description, builderHint } = spec;
	const option: INodePropertyOptions = { name, value, action, description };
	if (builderHint) option.builderHint = builderHint;
	if (spec.sends) return option;
	const { method, url, body, preSend, records = singleRecord, postReceive, pagination } = spec;
	const routing: INodePropertyRouting = {
		request: { method, url, ...(body ? { body } : {}) },
		...(preSend ? { send: { preSend: preSend.map(asPreSend) } } : {}),
		output: { postReceive: postReceive ?? [readRecords(records)] },
	};
	// Network failures named on each request RoutingNode makes (its one hook around a request:
	// ../n8nInternals.ts), a list operation's own page walk included.
	return { ...option, routing: routedThrough(routing, pagination, readableError) };
}
