/**
 * The workflows of examples/ made startable by a test: the Schedule Trigger (a test cannot wait
 * for 07:00) swapped for a Webhook of the same name, the rest as shipped but for what the caller
 * changes.
 */
import { randomUUID } from 'crypto';
import { readFileSync } from 'fs';
import { join } from 'path';

import { REPO_ROOT } from './n8n';

export interface ExampleNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

export interface ExampleWorkflow {
	id: string;
	name: string;
	nodes: ExampleNode[];
	[key: string]: unknown;
}

/**
 * An example (a file name under examples/) with its Schedule Trigger swapped for a Webhook of the
 * same name on `path` (POST, answering at once), and, given `credential`, each node's credential
 * replaced by it.
 */
export function withWebhook(
	file: string,
	path: string,
	credential?: { id: string; name: string },
): ExampleWorkflow {
	const example = JSON.parse(
		readFileSync(join(REPO_ROOT, 'examples', file), 'utf8'),
	) as ExampleWorkflow;
	const nodes = example.nodes.map((node): ExampleNode => {
		if (node.type === 'n8n-nodes-base.scheduleTrigger')
			return {
				...node,
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
				webhookId: randomUUID(),
			};
		return node.credentials && credential
			? { ...node, credentials: { conversationalMessagingApi: credential } }
			: node;
	});
	return { ...example, nodes };
}
