import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../shared/operations';
import { sendOptions } from '../../shared/sendOptions';
import { legacyMessageGetFields, legacyMessageGetOperation } from './get';
import { legacyMessageSendFields, legacyMessageSendOperation } from './send';

export const legacyMessageDescription: INodeProperties[] = [
	operationSelector(
		'legacyMessage',
		[legacyMessageGetOperation, legacyMessageSendOperation],
		'send',
	),
	...legacyMessageSendFields,
	...legacyMessageGetFields,
	sendOptions('legacyMessage'),
];
