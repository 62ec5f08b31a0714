import type { ResourceSpec } from '../../form/operations';
import { checkChatappNumberOperation } from './checkChatappNumber';
import { injectCrmLeadOperation } from './injectCrmLead';
import { sendAndWaitOperation } from './sendAndWait';
import { sendSmsOperation } from './sendSms';
import { sendSocialnetOperation } from './sendSocialnet';

export const messagingResource: ResourceSpec = {
	name: 'Messaging',
	value: 'messaging',
	description: 'SMS and socialnet messages, CRM leads and chatapp number checks',
	operations: [
		checkChatappNumberOperation,
		injectCrmLeadOperation,
		sendAndWaitOperation,
		sendSmsOperation,
		sendSocialnetOperation,
	],
	defaultOperation: sendSmsOperation.value,
};
