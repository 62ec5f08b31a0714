import type { ResourceSpec } from '../../form/operations';
import { liveChatCreateSessionOperation } from './createSession';
import { liveChatSendMessageOperation } from './sendMessage';

export const liveChatResource: ResourceSpec = {
	name: 'Live Chat',
	value: 'liveChat',
	description: 'Web live chat sessions and their messages',
	operations: [liveChatCreateSessionOperation, liveChatSendMessageOperation],
	defaultOperation: liveChatCreateSessionOperation.value,
};
