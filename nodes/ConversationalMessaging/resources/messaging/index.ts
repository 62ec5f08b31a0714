import type { INodeProperties } from 'n8n-workflow';

import { sendOptions } from '../../shared/bulk/options';
import { operationSelector } from '../../shared/descriptions';
import { instanceField } from '../../shared/messages';
import { checkChatappNumberFields, checkChatappNumberOperation } from './checkChatappNumber';
import { injectCrmLeadFields, injectCrmLeadOperation } from './injectCrmLead';
import { sendAndWaitFields, sendAndWaitOperation } from './sendAndWait';
import { sendSmsFields, sendSmsOperation } from './sendSms';
import { sendSocialnetFields, sendSocialnetOperation } from './sendSocialnet';

export const messagingDescription: INodeProperties[] = [
	operationSelector(
		'messaging',
		[checkChatappNumberOperation, injectCrmLeadOperation, sendAndWaitOperation, sendSmsOperation, sendSocialnetOperation],
		'sendSms',
	),
	// One Instance for every operation: the value stays when the operation changes.
	instanceField('messaging', ['checkChatappNumber', 'injectCrmLead', 'sendAndWait', 'sendSms', 'sendSocialnet'], 'instance'),
	...sendAndWaitFields,
	...sendSmsFields,
	...sendSocialnetFields,
	...injectCrmLeadFields,
	...checkChatappNumberFields,
	sendOptions('messaging'),
];
