import type { INodeProperties } from 'n8n-workflow';

import { BULK_OPERATIONS } from './bulkOperations';
import { collection, field, showFor } from './descriptions';

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

export function sendOptions(resource: string): INodeProperties {
	return collection(
		`${resource}SendOptions`,
		'Send Options',
		showFor(resource, BULK_OPERATIONS[resource]),
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
}
