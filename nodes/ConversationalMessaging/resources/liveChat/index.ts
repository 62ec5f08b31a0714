import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../shared/descriptions';
import { operationSelector } from '../../shared/operations';
import { instanceField } from '../../shared/messageFields';
import { sendOptions } from '../../shared/sendOptions';
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
	sendOptions('liveChat'),
];
