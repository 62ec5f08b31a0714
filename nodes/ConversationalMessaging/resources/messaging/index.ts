import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../shared/descriptions';
import { checkChatappNumberFields, checkChatappNumberOperation } from './checkChatappNumber';
import { injectCrmLeadFields, injectCrmLeadOperation } from './injectCrmLead';
import { sendSmsFields, sendSmsOperation } from './sendSms';
import { sendSocialnetFields, sendSocialnetOperation } from './sendSocialnet';

export const messagingDescription: INodeProperties[] = [
	operationSelector(
		'messaging',
		[checkChatappNumberOperation, injectCrmLeadOperation, sendSmsOperation, sendSocialnetOperation],
		'sendSms',
	),
	...sendSmsFields,
	...sendSocialnetFields,
	...injectCrmLeadFields,
	...checkChatappNumberFields,
];
