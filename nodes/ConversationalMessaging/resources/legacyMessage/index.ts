import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
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
];
