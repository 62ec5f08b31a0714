/**
 * Every operation of the node with parameters that succeed against the sandbox, and the fields
 * a user maps first (what an expression most often feeds), by parameter path and label.
 */
import { createServer } from 'http';
import type { INodeParameters } from 'n8n-workflow';

import type { OperationId, Sandbox } from '../../sandbox/server';

export interface OperationCase {
	operationId: OperationId;
	parameters: INodeParameters;
	/** Puts the record the operation needs in the sandbox, so that it succeeds every time. */
	prepare?: (sandbox: Sandbox) => void;
	/** Parameter path (dots, array indexes as numbers) to the label the node names the field by. */
	mainFields: Record<string, string>;
}

const PREPARED_ID = 'reliability-1';
const file = { url: 'https://example.com/report.pdf', name: 'Report', type: 'document' };
const product = {
	productName: 'Cold Brew',
	price: 4.5,
	code: 'CB-1',
	description: 'Slow-steeped',
	descriptionai: 'Less acidic',
	category: 'coffee, cold',
};
const campaignLocator = { __rl: true, mode: 'id', value: 'campaign-03' };
const productMainFields = {
	productName: 'Name',
	price: 'Price',
	code: 'Code',
	description: 'Description',
	descriptionai: 'AI Description',
	category: 'Categories',
};

export const OPERATIONS: OperationCase[] = [
	{
		operationId: 'agentCreate',
		parameters: {
			resource: 'agent',
			operation: 'create',
			agentName: 'Ana Ruiz',
			agentPhone: '+57 300 123 4567',
			email: 'ana@example.com',
		},
		mainFields: { agentName: 'Name', agentPhone: 'Phone', email: 'Email' },
	},
	{
		operationId: 'agentGet',
		parameters: { resource: 'agent', operation: 'get', agentId: 'agent-2' },
		mainFields: { agentId: 'Agent ID' },
	},
	{
		operationId: 'agentDelete',
		parameters: { resource: 'agent', operation: 'delete', agentIdToDelete: PREPARED_ID },
		prepare: (sandbox) =>
			sandbox.state.agents.set(PREPARED_ID, {
				id: PREPARED_ID,
				name: 'Temp',
				phone: '573001234567',
				email: 't@example.com',
			}),
		mainFields: { agentIdToDelete: 'Agent ID' },
	},
	{
		operationId: 'campaignGetMany',
		parameters: { resource: 'campaign', operation: 'getAll', returnAll: false, limit: 5 },
		mainFields: {},
	},
	// Campaign ID is a resource locator: the value a user maps is the locator's.
	{
		operationId: 'campaignGet',
		parameters: { resource: 'campaign', operation: 'get', campaignId: campaignLocator },
		mainFields: { 'campaignId.value': 'Campaign ID' },
	},
	{
		operationId: 'campaignGetDetails',
		parameters: { resource: 'campaign', operation: 'getDetails', campaignId: campaignLocator },
		mainFields: { 'campaignId.value': 'Campaign ID' },
	},
	{
		operationId: 'clientGet',
		parameters: { resource: 'client', operation: 'get' },
		mainFields: {},
	},
	{
		operationId: 'contactAdd',
		parameters: {
			resource: 'contact',
			operation: 'add',
			listId: 'list-2',
			phone: '+57 300 123 4567',
			contactName: 'Ana',
		},
		mainFields: { listId: 'List ID', phone: 'Phone', contactName: 'Name' },
	},
	{
		operationId: 'contactGetMany',
		parameters: {
			resource: 'contact',
			operation: 'getAll',
			listIdToRead: 'list-1',
			returnAll: true,
		},
		mainFields: { listIdToRead: 'List ID' },
	},
	{
		operationId: 'liveChatSessionCreate',
		parameters: { resource: 'liveChat', operation: 'createSession', liveChatInstance: 'web-1' },
		mainFields: { liveChatInstance: 'Instance' },
	},
	{
		operationId: 'liveChatMessageSend',
		parameters: {
			resource: 'liveChat',
			operation: 'sendMessage',
			sessionId: PREPARED_ID,
			liveChatInstance: 'web-1',
			liveChatMessage: 'How can we help?',
		},
		prepare: (sandbox) =>
			sandbox.state.liveChatSessions.set(PREPARED_ID, { id: PREPARED_ID, instance: 'web-1' }),
		mainFields: {
			sessionId: 'Session ID',
			liveChatInstance: 'Instance',
			liveChatMessage: 'Message',
		},
	},
	{
		operationId: 'legacyMessageSend',
		parameters: {
			resource: 'legacyMessage',
			operation: 'send',
			messageType: 'chat',
			recipient: '573001234567',
			legacyInstance: 'qr-1',
			chatText: 'Hola',
		},
		mainFields: {
			messageType: 'Message Type',
			recipient: 'Recipient Phone',
			legacyInstance: 'Instance',
			chatText: 'Message',
		},
	},
	{
		operationId: 'legacyMessageGet',
		parameters: {
			resource: 'legacyMessage',
			operation: 'get',
			messageId: PREPARED_ID,
			sentFromInstance: 'qr-1',
		},
		prepare: (sandbox) =>
			sandbox.state.sentMessages.set(PREPARED_ID, {
				id: PREPARED_ID,
				channel: 'legacy',
				to: '573001234567',
				type: 'chat',
				body: 'Hola',
				instance: 'qr-1',
				status: 'queued',
				extra: {},
			}),
		mainFields: { messageId: 'Message ID' },
	},
	{
		operationId: 'smsSend',
		parameters: {
			resource: 'messaging',
			operation: 'sendSms',
			to: '573001234567',
			instance: 'sms-line',
			message: 'Hello',
		},
		mainFields: { to: 'Recipient Phone', instance: 'Instance', message: 'Message' },
	},
	{
		operationId: 'socialnetSend',
		parameters: {
			resource: 'messaging',
			operation: 'sendSocialnet',
			socialnetType: 'text',
			recipientId: 'psid-1',
			socialnetInstance: 'page-1',
			message: 'Hi',
		},
		mainFields: {
			socialnetType: 'Message Type',
			recipientId: 'Recipient ID',
			socialnetInstance: 'Instance',
			message: 'Message',
		},
	},
	{
		operationId: 'crmLeadInject',
		parameters: {
			resource: 'messaging',
			operation: 'injectCrmLead',
			contactPhone: '+57 300 123 4567',
			instance: 'line-1',
			leadMessage: 'Wants a quote',
			channel: 'chatapp',
		},
		mainFields: {
			contactPhone: 'Contact Phone',
			instance: 'Instance',
			leadMessage: 'Message',
			channel: 'Follow-Up Channel',
		},
	},
	{
		operationId: 'chatappNumberCheck',
		parameters: {
			resource: 'messaging',
			operation: 'checkChatappNumber',
			number: '+57 300 123 4568',
			instance: 'line-1',
		},
		mainFields: { number: 'Phone Number', instance: 'Instance' },
	},
	{
		operationId: 'shortLinkCreate',
		parameters: { resource: 'shortLink', operation: 'create', longUrl: 'https://example.com/sale' },
		mainFields: { longUrl: 'Long URL' },
	},
	{
		operationId: 'shortLinkUpdate',
		parameters: {
			resource: 'shortLink',
			operation: 'update',
			shortLinkId: 'welcome',
			newLongUrl: 'https://example.com/new',
		},
		mainFields: { shortLinkId: 'Short Link ID', newLongUrl: 'Long URL' },
	},
	{
		operationId: 'productCreate',
		parameters: { resource: 'product', operation: 'create', ...product },
		mainFields: productMainFields,
	},
	{
		operationId: 'productGet',
		parameters: { resource: 'product', operation: 'get', productId: 'product-2' },
		mainFields: { productId: 'Product ID' },
	},
	{
		operationId: 'productUpdate',
		parameters: {
			resource: 'product',
			operation: 'update',
			productId: 'product-3',
			...product,
			image: 'https://cdn.example.com/cb.png',
			status: 1,
		},
		mainFields: {
			productId: 'Product ID',
			image: 'Image URL',
			status: 'Status',
			...productMainFields,
		},
	},
	{
		operationId: 'productDelete',
		parameters: { resource: 'product', operation: 'delete', productId: PREPARED_ID },
		prepare: (sandbox) =>
			sandbox.state.products.set(PREPARED_ID, {
				id: PREPARED_ID,
				name: 'Temp',
				description: '',
				descriptionai: '',
				code: 'T',
				price: 1,
				category: [],
				status: 1,
			}),
		mainFields: { productId: 'Product ID' },
	},
	{
		operationId: 'researcherCreate',
		parameters: {
			resource: 'researcher',
			operation: 'create',
			researcherName: 'Market scan',
			researcherDescription: 'Competitor prices',
			model: 'fast',
			policyId: 'policy-1',
			files: { file: [file] },
		},
		mainFields: {
			researcherName: 'Name',
			researcherDescription: 'Description',
			model: 'Model',
			policyId: 'Policy ID',
			'files.file.0.url': 'Files',
			'files.file.0.name': 'Files',
		},
	},
	{
		operationId: 'researcherGet',
		parameters: {
			resource: 'researcher',
			operation: 'get',
			researcherId: 'researcher-1',
			fields: ['name', 'progress'],
		},
		mainFields: { researcherId: 'Researcher ID', fields: 'Fields' },
	},
	{
		operationId: 'researcherAddFiles',
		parameters: {
			resource: 'researcher',
			operation: 'addFiles',
			researcherId: 'researcher-1',
			filesToAdd: { file: [file] },
		},
		mainFields: {
			researcherId: 'Researcher ID',
			'filesToAdd.file.0.url': 'Files',
			'filesToAdd.file.0.type': 'Files',
		},
	},
	{
		operationId: 'researcherRun',
		parameters: { resource: 'researcher', operation: 'run', researcherId: 'researcher-1' },
		mainFields: { researcherId: 'Researcher ID' },
	},
];

/** A copy of the parameters with the value at `path` replaced. */
export function withParameter(
	parameters: INodeParameters,
	path: string,
	value: unknown,
): INodeParameters {
	const copy = structuredClone(parameters);
	const keys = path.split('.');
	let target = copy as Record<string, unknown>;
	for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
	target[keys[keys.length - 1]] = value;
	return copy;
}

/** A base URL where nothing listens: a port bound, then released. */
export async function closedPortUrl(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise((resolve) => server.close(resolve));
	return `http://127.0.0.1:${port}`;
}
