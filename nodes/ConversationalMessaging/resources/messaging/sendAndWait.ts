import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import type { CustomSpec } from '../../form/operations';
import { sendAndWaitFields } from '../../sendAndWait/description';
import { sendAndWait } from '../../sendAndWait/run';

/** Parameter names are n8n's, so its generated human-review tool for AI agents works unchanged. */
export const sendAndWaitOperation: CustomSpec = {
	name: 'Send and Wait for Response',
	value: SEND_AND_WAIT_OPERATION,
	action: 'Send a message and wait for a response',
	builderHint: {
		propertyHint:
			'Use it instead of a Wait or Form node to ask a person by SMS, chatapp, socialnet or live chat: an approval, a typed answer or a form. It takes one input item (put Loop Over Items before it for several); the answer is in data (data.approved for an approval).',
	},
	description:
		'Send a question with a link to a page where the recipient approves, declines, answers or fills in a form; the workflow waits for the answer',
	sends: 'custom',
	execute: sendAndWait,
	fields: sendAndWaitFields,
};
