import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../form/fields';
import { instanceField } from '../../form/messageFields';
import { operationSelector } from '../../form/operations';
import {
	sendAndWaitChannelFields,
	sendAndWaitFields,
	sendAndWaitOperation,
} from '../../sendAndWait/description';
import { legacyMessageDescription } from '../legacyMessage';
import { liveChatDescription } from '../liveChat';
import { checkChatappNumberField, checkChatappNumberOperation } from './checkChatappNumber';
import { injectCrmLeadFields, injectCrmLeadOperation } from './injectCrmLead';
import { sendSmsFields, sendSmsOperation } from './sendSms';
import { sendSocialnetFields, sendSocialnetOperation } from './sendSocialnet';

// One Instance for the operations of the business lines: the value stays when the operation
// changes. A socialnet page is another line: its own Instance (./sendSocialnet.ts).
const instance = instanceField(
	'instance',
	showFor('messaging', ['checkChatappNumber', 'injectCrmLead', 'sendSms']),
);

const operation = operationSelector(
	'messaging',
	[
		checkChatappNumberOperation,
		injectCrmLeadOperation,
		sendAndWaitOperation,
		sendSmsOperation,
		sendSocialnetOperation,
	],
	'sendSms',
);

export const messagingDescription: INodeProperties[] = [
	operation,
	instance,
	...sendAndWaitChannelFields([
		operation,
		instance,
		...sendSmsFields,
		...sendSocialnetFields,
		...legacyMessageDescription,
		...liveChatDescription,
	]),
	...sendSmsFields,
	...sendSocialnetFields,
	...injectCrmLeadFields,
	checkChatappNumberField,
	...sendAndWaitFields,
];
