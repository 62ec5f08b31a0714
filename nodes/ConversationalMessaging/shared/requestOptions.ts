import type { INodeProperties } from 'n8n-workflow';

/**
 * n8n's Request Options (Batching, Ignore SSL Issues, Proxy, Timeout). n8n's loader adds them to
 * a declarative node only when it has no `webhook` method; ours has one (Send and Wait), so the
 * node declares them itself: n8n's own (`commonDeclarativeNodeOptionParameters` in n8n-core;
 * a test keeps names, types and defaults the same), in wording n8n's lint rules accept.
 * RoutingNode and the send loop read them by name.
 */
export const requestOptions: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	isNodeSetting: true,
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Batching',
			name: 'batching',
			placeholder: 'Add Batching',
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
							description: 'Input will be split in batches to throttle requests. -1 for disabled. 0 will be treated as 1.',
						},
						{
							displayName: 'Batch Interval (Milliseconds)',
							name: 'batchInterval',
							type: 'number',
							typeOptions: { minValue: 0 },
							default: 1000,
							description: 'Time (in milliseconds) between each batch of requests. 0 for disabled.',
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
			description: 'HTTP proxy to use. If authentication is required it can be defined as follow: http://username:password@myproxy:3128.',
		},
		{
			displayName: 'Timeout',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 10000,
			description: 'Time in ms to wait for the server to send response headers (and start the response body) before aborting the request',
		},
	],
};
