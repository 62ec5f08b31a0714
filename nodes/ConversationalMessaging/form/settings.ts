import type { INodeProperties } from 'n8n-workflow';

import { REQUEST_OPTIONS } from '../n8nInternals';
import { collection, field, showFor } from './fields';

/**
 * n8n adds its Request Options (`commonDeclarativeNodeOptionParameters`) only to a declarative node
 * without a `webhook` method; ours has one (Send and Wait), so it declares n8n's own (a test keeps
 * them equal) in wording n8n's lint rules accept. What RoutingNode reads of them: ../n8nInternals.ts.
 */
export const requestOptions: INodeProperties = {
	displayName: 'Request Options',
	name: REQUEST_OPTIONS,
	type: 'collection',
	isNodeSetting: true,
	placeholder: 'Add Option',
	default: {},
	description: 'Batching, timeout, proxy and certificate checks for the requests to the service',
	options: [
		{
			displayName: 'Batching',
			name: 'batching',
			placeholder: 'Add Batching',
			description: 'Send the items in batches, with a pause between batches',
			type: 'fixedCollection',
			typeOptions: { multipleValues: false },
			default: { batch: {} },
			options: [
				{
					displayName: 'Batching',
					name: 'batch',
					values: [
						{
							displayName: 'Items per Batch',
							name: 'batchSize',
							type: 'number',
							typeOptions: { minValue: -1 },
							default: 50,
							description:
								'Items that start together before the node waits Batch Interval (0 or -1 count as 1). In bulk sends Max Requests in Flight (Send Options) also applies: the slower of the two sets the pace.',
						},
						{
							displayName: 'Batch Interval (Milliseconds)',
							name: 'batchInterval',
							type: 'number',
							typeOptions: { minValue: 0 },
							default: 1000,
							description:
								'Time (in milliseconds) between the starts of two batches. 0 turns Batching off.',
						},
					],
				},
			],
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'allowUnauthorizedCerts',
			type: 'boolean',
			noDataExpression: true,
			default: false,
			description: 'Whether to connect even if SSL certificate validation is not possible',
		},
		{
			displayName: 'Proxy',
			name: 'proxy',
			type: 'string',
			default: '',
			placeholder: 'e.g. http://myproxy:3128',
			description: 'HTTP proxy to use, with user:password@ before the host if it needs them',
		},
		{
			displayName: 'Timeout',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 10000,
			description: 'Milliseconds a request waits for the service to start answering',
		},
	],
};

/**
 * Keeps pace with n8n's HTTP Request node at 50 ms latency; 1,000 had connections reset by a full
 * accept queue, and a cut connection is never sent again (docs/PERFORMANCE.md).
 */
export const DEFAULT_MAX_IN_FLIGHT = 500;
export const DEFAULT_MAX_WAIT_SECONDS = 300;
/** How many times one item is sent again after the service said "too fast". */
export const MAX_RATE_LIMIT_RETRIES = 10;

export interface SendOptions {
	maxInFlight?: number;
	maxWait?: number;
}

/** The resource's Send Options: one per resource, as parameter names are unique in the node. */
export const sendOptionsParameter = (resource: string) => `${resource}SendOptions`;

/** Shown for the resource's bulk sends. */
export const sendOptions = (resource: string, operations: string[]): INodeProperties =>
	collection(
		sendOptionsParameter(resource),
		'Send Options',
		showFor(resource, operations),
		[
			field({
				displayName: 'Max Requests in Flight',
				name: 'maxInFlight',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 1000 },
				default: DEFAULT_MAX_IN_FLIGHT,
				description:
					'How many requests are open at the same time at most. When the service answers that requests come too fast (HTTP 429), the node slows down by itself and sends the refused items again after the wait the service asks. Settings > Request Options > Batching, when set, also applies: Batching decides when each item may start, Max Requests in Flight caps how many requests are open at once, and the slower of the two sets the pace.',
			}),
			field({
				displayName: 'Max Wait (Seconds)',
				name: 'maxWait',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_MAX_WAIT_SECONDS,
				description: `How long the node waits for the service. When it answers "too fast" (HTTP 429, or 503 with Retry-After), one item waits at most this long in total (over at most ${MAX_RATE_LIMIT_RETRIES} tries) before it fails with the service's message. When it cannot be reached (a restart, a network outage), sending pauses until it answers again; after this long, the items not yet sent fail, and say they were not sent.`,
			}),
		],
		{
			description:
				'How fast a bulk send may go and how long an item may wait for the service (rate limits, outages)',
		},
	);

/** The resource's Recipient Rules (../recipientRules/), for its bulk sends that message a person. */
export const rulesParameter = (resource: string) => `${resource}RecipientRules`;
