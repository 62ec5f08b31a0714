import type { INodeProperties } from 'n8n-workflow';

import { sendOptions } from '../../shared/sendOptions';
import { operationSelector } from '../../shared/descriptions';
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
