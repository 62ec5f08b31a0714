import type { INodeProperties } from 'n8n-workflow';

import { REQUEST_OPTIONS } from '../n8nInternals';

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
