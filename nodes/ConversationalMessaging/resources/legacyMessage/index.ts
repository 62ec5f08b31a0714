import type { ResourceSpec } from '../../form/operations';
import { legacyMessageGetOperation } from './get';
import { legacyMessageSendOperation } from './send';

export const legacyMessageResource: ResourceSpec = {
	name: 'Legacy Chatapp Message',
	value: 'legacyMessage',
	description: 'Chatapp messages through a QR-paired instance (legacy)',
	operations: [legacyMessageGetOperation, legacyMessageSendOperation],
	defaultOperation: legacyMessageSendOperation.value,
};
