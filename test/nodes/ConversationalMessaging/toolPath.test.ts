/**
 * Where n8n runs the node's `execute` instead of its `customOperations`: n8n sets `execute` to
 * RoutingNode for a node without one (n8n/dist/node-types.js, shouldAssignExecuteMethod), and a
 * tool called through getInputConnectionData (n8n 1.x's agents, older agents and the MCP Server
 * Trigger on 2.x) calls it. There a bulk send sends as a plain operation, by the routing the
 * registry derives from its spec (form/routing.ts), one request per item, unpaced; a send with
 * Recipient Rules set and Send and Wait fail before any request.
 */
import type { INodeType } from 'n8n-workflow';

import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import { registerNodeType, routedByRoutingNode } from '../../helpers/engine';
import { jsonOf, SEND_SMS, useSandbox } from '../../helpers/sandbox';

const suite = useSandbox();
const { description } = new ConversationalMessaging();
const ROUTED = 'test.conversationalMessagingExecuteOnly';
// The node as n8n gives it to such a caller: its description, `execute` RoutingNode's.
registerNodeType(ROUTED, routedByRoutingNode({ description } as INodeType));

describe("the node's execute, which n8n sets to RoutingNode", () => {
	it('sends a bulk operation as a plain one: the same request and answer as the send loop', async () => {
		const items = [{ phone: '+57 300 123 4567' }, { phone: '573001234568' }];
		const routed = await suite.run(SEND_SMS, { items, nodeType: ROUTED });
		const looped = await suite.run(SEND_SMS, { items });
		expect(routed.error).toBeUndefined();
		const sent = (run: typeof routed) =>
			run.requests.map((request) => ({ path: request.path, body: request.body }));
		expect(sent(routed)).toEqual(sent(looped));
		expect(sent(routed)[0]).toEqual({
			path: '/v1/sms',
			body: {
				type: 'text',
				to: '573001234567',
				body: 'Hi',
				instance: 'line-1',
				token: expect.any(String),
			},
		});
		expect(jsonOf(routed).map((json) => json.to)).toEqual(['573001234567', '573001234568']);
		// The loop adds what the SMS cost; RoutingNode gives the service's answer alone.
		expect(jsonOf(looped).map(({ smsCost: _cost, ...json }) => Object.keys(json))).toEqual(
			jsonOf(routed).map((json) => Object.keys(json)),
		);
	});

	it('refuses a bulk send with Recipient Rules set before any request: only the send loop keeps them', async () => {
		const run = await suite.run(
			{ ...SEND_SMS, messagingRecipientRules: { doNotSendTo: '+57 300 123 4567' } },
			{ items: [{ phone: '+57 300 123 4567' }], nodeType: ROUTED },
		);
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe(
			'Recipient Rules cannot be kept here: this caller runs the node without its send loop',
		);
	});

	it('refuses Send and Wait before any request, saying where it runs', async () => {
		const run = await suite.run(
			{
				resource: 'messaging',
				operation: 'sendAndWait',
				sendAndWaitChannel: 'sms',
				to: '+57 300 123 4567',
				instance: 'line-1',
				message: 'Approve?',
			},
			{ nodeType: ROUTED },
		);
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe(
			'Send and Wait cannot run here: this caller runs the node without waiting for an answer',
		);
	});
});
