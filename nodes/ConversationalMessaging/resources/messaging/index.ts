import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../shared/operations';
import { instanceField } from '../../shared/messageFields';
import { sendOptions } from '../../shared/sendOptions';
import { channelFields } from '../../sendAndWait/channels';
import { legacyMessageDescription } from '../legacyMessage';
import { liveChatDescription } from '../liveChat';
import { checkChatappNumberFields, checkChatappNumberOperation } from './checkChatappNumber';
import { injectCrmLeadFields, injectCrmLeadOperation } from './injectCrmLead';
import {
	channelField,
	oneQuestionNotice,
	sendAndWaitFields,
	sendAndWaitOperation,
} from './sendAndWait';
import { messageField, sendSmsFields, sendSmsOperation } from './sendSms';
import { sendSocialnetFields, sendSocialnetOperation } from './sendSocialnet';

// One Instance for every operation: the value stays when the operation changes.
const instance = instanceField(
	'messaging',
	['checkChatappNumber', 'injectCrmLead', 'sendSms', 'sendSocialnet'],
	'instance',
);

export const messagingDescription: INodeProperties[] = [
	operationSelector(
		'messaging',
		[
			checkChatappNumberOperation,
			injectCrmLeadOperation,
			sendAndWaitOperation,
			sendSmsOperation,
			sendSocialnetOperation,
		],
		'sendSms',
	),
	instance,
	oneQuestionNotice,
	channelField,
	...channelFields([
		instance,
		...sendSmsFields,
		...sendSocialnetFields,
		...legacyMessageDescription,
		...liveChatDescription,
	]),
	...sendSmsFields,
	messageField,
	...sendSocialnetFields,
	...injectCrmLeadFields,
	...checkChatappNumberFields,
	...sendAndWaitFields,
	sendOptions('messaging'),
];
