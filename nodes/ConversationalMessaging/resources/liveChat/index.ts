import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../shared/descriptions';
import { liveChatCreateSessionFields, liveChatCreateSessionOperation } from './createSession';
import { liveChatSendMessageFields, liveChatSendMessageOperation } from './sendMessage';

export const liveChatDescription: INodeProperties[] = [
	operationSelector('liveChat', [liveChatCreateSessionOperation, liveChatSendMessageOperation], 'createSession'),
	...liveChatCreateSessionFields,
	...liveChatSendMessageFields,
];
