import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { defaultCountryOptions } from './checks/phone/defaultCountry';
import { customOperationsOf } from './customOperations';
import type { ResourceSpec } from './form/operations';
import { describedBy } from './registry';
import { agentResource } from './resources/agent';
import { campaignListSearch, campaignResource } from './resources/campaign';
import { clientResource } from './resources/client';
import { contactResource } from './resources/contact';
import { legacyMessageResource } from './resources/legacyMessage';
import { liveChatResource } from './resources/liveChat';
import { messagingResource } from './resources/messaging';
import { productResource } from './resources/product';
import { researcherResource } from './resources/researcher';
import { shortLinkResource } from './resources/shortLink';
import { SEND_AND_WAIT_WEBHOOKS, sendAndWaitWebhook } from './sendAndWait/webhook';
import { NO_REDIRECTS } from './service/redirects';

/** The resources, each with its operations' specs: the one list the node's description derives from (./registry.ts). */
export const RESOURCES: ResourceSpec[] = [
	agentResource,
	campaignResource,
	clientResource,
	contactResource,
	legacyMessageResource,
	liveChatResource,
	messagingResource,
	productResource,
	researcherResource,
	shortLinkResource,
];

const DESCRIBED = describedBy(RESOURCES);

export class ConversationalMessaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Conversational Messaging',
		name: 'conversationalMessaging',
		icon: {
			light: 'file:conversationalMessaging.svg',
			dark: 'file:conversationalMessaging.dark.svg',
		},
		group: ['output'],
		version: 1,
		subtitle: DESCRIBED.subtitle,
		description:
			'Send chatapp, socialnet, SMS and live chat messages, inject CRM leads, manage contacts, agents, short links and shop products, and run AI researchers',
		defaults: { name: 'Conversational Messaging' },
		builderHint: {
			searchHint:
				'Sends SMS, chatapp (instant messaging), socialnet (social-network messenger) and live chat messages, injects CRM leads, asks a person by message and waits for the answer (Send and Wait: approval, text or a form), creates short links and runs AI researchers. Every send needs an Instance ID from the service dashboard and phones with their country code. Feed bulk sends as items: the node paces itself.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-base.formTrigger',
					relationHint: 'A web form whose answers become a CRM lead (Messaging > Inject CRM Lead)',
				},
				{
					nodeType: 'n8n-nodes-base.wait',
					relationHint:
						'Between Researcher > Run and Researcher > Get, to wait for a long research without holding a worker; on the Held output of a send with a Send Window, Resume At Specified Time {{ $json.sendAfter }}, then back into the same node',
				},
				{
					nodeType: 'n8n-nodes-base.splitInBatches',
					relationHint:
						'Loop Over Items, batch size 1, before Send and Wait to ask one question per item',
				},
				{
					nodeType: 'n8n-nodes-base.if',
					relationHint:
						'After Send and Wait on data.approved, or after Researcher > Get on complete',
				},
				{
					nodeType: 'n8n-nodes-base.scheduleTrigger',
					relationHint: 'Runs a researcher, or a campaign send, on a schedule',
				},
				{
					nodeType: '@n8n/n8n-nodes-langchain.agent',
					relationHint: 'Calls this node as a tool, or as the human review of its other tools',
				},
			],
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		// A second output, Held, while a bulk send has a Send Window (Recipient Rules).
		outputs: DESCRIBED.outputs,
		credentials: [{ name: 'conversationalMessagingApi', required: true }],
		webhooks: SEND_AND_WAIT_WEBHOOKS,
		// No baseURL: the credential sets it; an expression here n8n would evaluate twice per item.
		requestDefaults: {
			headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			json: true,
			// The envelope says what went wrong; an error can arrive on HTTP 200.
			ignoreHttpStatusErrors: true,
			...NO_REDIRECTS,
		},
		properties: DESCRIBED.properties,
	};

	customOperations = customOperationsOf(RESOURCES, this.description);

	webhook = sendAndWaitWebhook;

	methods = { listSearch: campaignListSearch, loadOptions: defaultCountryOptions };
}
