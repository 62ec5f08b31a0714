/**
 * What stays when the operation changes in the editor. n8n's node panel does it with
 * NodeHelpers.getNodeParameters, twice (NodeSettings' valueChanged): the values that differ from
 * their defaults among the properties shown, then, with the new operation set, the parameters with
 * their defaults among the properties shown for it. A value no shown property names is dropped.
 * The browser suite (test/e2e/editor.e2e.ts) makes the same switches in real n8n.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';

const node = new ConversationalMessaging();
const { properties } = node.description;
const NODE = { name: 'Send', typeVersion: 1, parameters: {} } as unknown as INode;

/** The parameters after choosing `change` (operation, channel) in the node panel. */
function choose(parameters: INodeParameters, change: INodeParameters): INodeParameters {
	const kept =
		NodeHelpers.getNodeParameters(properties, parameters, false, false, NODE, node.description) ??
		{};
	return (
		NodeHelpers.getNodeParameters(
			properties,
			{ ...kept, ...change },
			true,
			false,
			NODE,
			node.description,
		) ?? {}
	);
}

/** The properties the panel shows for these parameters (hidden carriers are not shown). */
const shown = (parameters: INodeParameters) =>
	properties
		.filter((property) => property.type !== 'hidden')
		.filter((property) =>
			NodeHelpers.displayParameter(parameters, property, NODE, node.description),
		)
		.map((property) => property.name);

const SMS: INodeParameters = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '+57 300 123 4567',
	instance: 'sms-line-1',
	message: 'Your order is on its way',
	smsOptions: { maxSegments: 1, replaceLookAlikes: true },
};

describe('switching operations in the node panel', () => {
	it('Send SMS -> Send Socialnet Message: the message stays; the SMS line is not carried into the page Instance', () => {
		const socialnet = choose(SMS, { operation: 'sendSocialnet' });
		expect(socialnet.message).toBe(SMS.message);
		expect(socialnet.socialnetInstance).toBe('');
		expect(shown(socialnet)).not.toContain('to');
		expect(shown(socialnet)).not.toContain('smsOptions');
		expect(shown(socialnet)).not.toContain('instance');
	});

	it('Send SMS -> Send Socialnet Message -> Send and Wait: the phone, its line, the message and SMS Options are there again', () => {
		const socialnet = choose(SMS, { operation: 'sendSocialnet' });
		const ask = choose(socialnet, { operation: 'sendAndWait' });
		expect(ask.sendAndWaitChannel).toBe('sms');
		expect(ask.to).toBe(SMS.to);
		expect(ask.instance).toBe(SMS.instance);
		expect(ask.message).toBe(SMS.message);
		expect(ask.smsOptions).toEqual(SMS.smsOptions);
		// And back to Send SMS, every field as typed.
		const back = choose(ask, { operation: 'sendSms' });
		expect(back).toMatchObject(SMS);
	});

	it('the kept values wait in the parameters, beside the fields the operation shows', () => {
		const socialnet = choose(SMS, {
			operation: 'sendSocialnet',
			recipientId: 'psid-1',
			socialnetInstance: 'page-1',
		});
		expect(socialnet.to).toBe(SMS.to);
		expect(shown(socialnet)).toEqual(expect.arrayContaining(['recipientId', 'socialnetInstance']));
	});

	it('every carrier is a field of the resource that another operation shows, under its own name and default', () => {
		const carriers = properties.filter((property) => property.type === 'hidden');
		expect(carriers.map((property) => property.name).sort()).toEqual([
			'instance',
			'message',
			'smsOptions',
			'to',
		]);
		for (const carrier of carriers) {
			const real = properties.filter(
				(property) => property.name === carrier.name && property.type !== 'hidden',
			);
			expect(real.length).toBeGreaterThan(0);
			expect(real.map((property) => property.default)).toContainEqual(carrier.default);
		}
	});
});
