import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { defaultCountryOptions, nodeDefaultCountry } from './checks/phone/reading';
import { customOperations } from './customOperations';
import { requestOptions, sendOptions } from './form/settings';
import { OUTPUTS, recipientRules } from './recipientRules/fields';
import { agentDescription } from './resources/agent';
import { campaignDescription, campaignListSearch } from './resources/campaign';
import { clientDescription } from './resources/client';
import { contactDescription } from './resources/contact';
import { legacyMessageDescription } from './resources/legacyMessage';
import { liveChatDescription } from './resources/liveChat';
import { messagingDescription } from './resources/messaging';
import { productDescription } from './resources/product';
import { researcherDescription } from './resources/researcher';
import { shortLinkDescription } from './resources/shortLink';
import { SEND_AND_WAIT_WEBHOOKS, sendAndWaitWebhook } from './sendAndWait/webhook';
import { NO_REDIRECTS } from './service/redirects';

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
		// A literal, as n8n's lint wants; a test keeps it equal to the operations' actions.
		subtitle:
			'={{ ({"agent.create":"Create an agent","agent.delete":"Delete an agent","agent.get":"Get an agent","campaign.get":"Get a campaign","campaign.getDetails":"Get the details of a campaign","campaign.getAll":"Get many campaigns","client.get":"Get the client account","contact.add":"Add a contact to a list","contact.getAll":"Get many contacts of a list","legacyMessage.get":"Get a legacy chatapp message","legacyMessage.send":"Send a legacy chatapp message","liveChat.createSession":"Create a live chat session","liveChat.sendMessage":"Send a live chat message","messaging.checkChatappNumber":"Check whether a number is on chatapp","messaging.injectCrmLead":"Inject a lead into the CRM","messaging.sendAndWait":"Send a message and wait for a response","messaging.sendSms":"Send an SMS","messaging.sendSocialnet":"Send a socialnet message","product.create":"Create a product","product.delete":"Delete a product","product.get":"Get a product","product.update":"Update a product","researcher.addFiles":"Add files to a researcher","researcher.create":"Create a researcher","researcher.get":"Get a researcher","researcher.run":"Run a researcher","shortLink.create":"Create a short link","shortLink.update":"Update a short link"})[$parameter["resource"] + "." + $parameter["operation"]] }}',
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
		outputs: OUTPUTS,
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
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Agent',
						value: 'agent',
						description: 'Team agents who take leads and conversations',
					},
					{
						name: 'Campaign',
						value: 'campaign',
						description: 'Message campaigns and their details',
					},
					{ name: 'Client', value: 'client', description: 'The client account of the API token' },
					{ name: 'Contact', value: 'contact', description: 'Contacts of distribution lists' },
					{
						name: 'Legacy Chatapp Message',
						value: 'legacyMessage',
						description: 'Chatapp messages through a QR-paired instance (legacy)',
					},
					{
						name: 'Live Chat',
						value: 'liveChat',
						description: 'Web live chat sessions and their messages',
					},
					{
						name: 'Messaging',
						value: 'messaging',
						description: 'SMS and socialnet messages, CRM leads and chatapp number checks',
					},
					{ name: 'Product', value: 'product', description: 'Products of the shop catalogue' },
					{
						name: 'Researcher',
						value: 'researcher',
						description: 'AI investigations built from files',
					},
					{ name: 'Short Link', value: 'shortLink', description: 'Shortened web addresses' },
				],
				default: 'messaging',
			},
			...agentDescription,
			...campaignDescription,
			...clientDescription,
			...contactDescription,
			...legacyMessageDescription,
			...liveChatDescription,
			...messagingDescription,
			...productDescription,
			...researcherDescription,
			...shortLinkDescription,
			...recipientRules,
			...sendOptions,
			// The operations with a phone field (a test keeps the list so); not Send and Wait's other channels.
			nodeDefaultCountry({
				show: {
					resource: ['agent', 'contact', 'legacyMessage', 'messaging'],
					operation: [
						'add',
						'checkChatappNumber',
						'create',
						'injectCrmLead',
						'send',
						'sendAndWait',
						'sendSms',
					],
				},
				hide: { sendAndWaitChannel: ['liveChat', 'socialnet'] },
			}),
			requestOptions,
		],
	};

	customOperations = customOperations(this.description);

	webhook = sendAndWaitWebhook;

	methods = { listSearch: campaignListSearch, loadOptions: defaultCountryOptions };
}
