/**
 * What stays when the operation changes in n8n 2.41's node panel, modelled on its code: NodeSettings
 * computes the values that differ from their defaults among the properties shown, sets the new
 * operation, and fills in the defaults of the properties then shown (NodeHelpers.getNodeParameters,
 * twice); then the panel's parameter list sets to undefined every parameter it stops showing
 * (ParameterInputList's watcher). So a value survives only where a property of its name is shown:
 * the same idea under the same name. The browser suite (test/e2e/editor.e2e.ts) makes the same
 * switches in real n8n.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';

const node = new ConversationalMessaging();
const { description } = node;
const NODE = { name: 'Send', typeVersion: 1, parameters: {} } as unknown as INode;

/** The top-level properties the panel shows for these parameters, by name. */
const shown = (parameters: INodeParameters) =>
	new Set(
		description.properties
			.filter((property) => NodeHelpers.displayParameter(parameters, property, NODE, description))
			.map((property) => property.name),
	);

/** The parameters after choosing `change` (an operation, a channel) in the node panel. */
function choose(parameters: INodeParameters, change: INodeParameters): INodeParameters {
	const before = shown(parameters);
	const kept =
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			false,
			false,
			NODE,
			description,
		) ?? {};
	const after =
		NodeHelpers.getNodeParameters(
			description.properties,
			{ ...kept, ...change },
			true,
			false,
			NODE,
			description,
		) ?? {};
	const now = shown(after);
	for (const name of before) if (!now.has(name)) delete after[name];
	return after;
}

const SMS: INodeParameters = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '+57 300 123 4567',
	instance: 'sms-line-1',
	message: 'Your order is on its way',
	smsOptions: { maxSegments: 2, replaceLookAlikes: true },
};

describe('switching operations in the node panel', () => {
	it('Send SMS -> Send and Wait (SMS) -> Send SMS: the phone, its line, the message and SMS Options stay', () => {
		const ask = choose(SMS, { operation: 'sendAndWait' });
		expect(ask).toMatchObject({ sendAndWaitChannel: 'sms', ...SMS, operation: 'sendAndWait' });
		expect(choose(ask, { operation: 'sendSms' })).toMatchObject(SMS);
	});

	it('Send SMS -> Send Socialnet Message: the message stays; the SMS line is not carried into the page Instance, and the phone and SMS Options, which socialnet has no use for, go', () => {
		const socialnet = choose(SMS, { operation: 'sendSocialnet' });
		expect(socialnet.message).toBe(SMS.message);
		expect(socialnet.socialnetInstance).toBe('');
		for (const name of ['to', 'instance', 'smsOptions']) expect(socialnet).not.toHaveProperty(name);
		// On to Send and Wait: the message is there; n8n's panel kept nothing else to give back.
		const ask = choose(socialnet, { operation: 'sendAndWait' });
		expect(ask).toMatchObject({ message: SMS.message, to: '', instance: '' });
	});
});
