import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../form/fields';
import { instanceField } from '../../form/messageFields';
import { operationSelector } from '../../form/operations';
import { liveChatCreateSessionFields, liveChatCreateSessionOperation } from './createSession';
import { liveChatSendMessageFields, liveChatSendMessageOperation } from './sendMessage';

export const liveChatDescription: INodeProperties[] = [
	operationSelector(
		'liveChat',
		[liveChatCreateSessionOperation, liveChatSendMessageOperation],
		'createSession',
	),
	instanceField('liveChatInstance', showFor('liveChat', ['createSession', 'sendMessage'])),
	...liveChatCreateSessionFields,
	...liveChatSendMessageFields,
];
