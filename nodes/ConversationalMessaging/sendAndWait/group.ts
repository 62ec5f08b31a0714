import type { INodeExecutionData } from 'n8n-workflow';

import type { smsFacts } from '../checks/sms';
import type { SendOutcome } from '../sendLoop/send';

/*
 * A question asked of a group: each recipient gets it with a link of their own, n8n's signed
 * resume link carrying their place in the group among its signed parameters, so an answer says
 * who gave it and a link altered to another place fails n8n's signature check. The first answer
 * decides (docs/SEND_AND_WAIT.md says why n8n leaves no other choice to a community node).
 */

/** The signed query parameter of each recipient's link: their place in the group, from 1. */
export const RECIPIENT_PARAMETER = 'to';

/** One recipient, as the question's evidence lists them. */
export interface AskedRecipient {
	/** The phone as read (digits), or the identifier. */
	recipient: string;
	/** The id the service gave their message. */
	messageId?: string;
	smsCost?: ReturnType<typeof smsFacts>;
	/** Why they were not asked: the service refused, or could not be reached. */
	notSent?: string;
	/** The service may have their question: it did not say. */
	unsure?: string;
}

/**
 * The recipient field's value as a group: a list (an expression such as the phones an earlier
 * node read), or a text of recipients separated by commas, semicolons or new lines. Empty: one
 * empty recipient, refused by the field's own check.
 */
export function recipientsOf(value: unknown): unknown[] {
	const list = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(/[,;\n]/)
			: [value];
	const given = list.filter((entry) => !(typeof entry === 'string' && !entry.trim()));
	return given.length ? given : [''];
}

/** The service does not document its send answers: the first of these with a value is the id. */
const MESSAGE_ID_KEYS = ['messageId', 'id', 'idMessage', 'message_id'];

export function messageIdOf(answer: INodeExecutionData[]): string | undefined {
	const id = MESSAGE_ID_KEYS.map((key) => answer[0]?.json?.[key]).find((value) =>
		['string', 'number'].includes(typeof value),
	);
	return id === undefined ? undefined : String(id);
}

/** What the evidence says of one recipient, from their question's outcome. */
export function askedRecipient(recipient: string, outcome: SendOutcome): AskedRecipient {
	if ('sent' in outcome) return { recipient, messageId: messageIdOf(outcome.sent) };
	if ('unsure' in outcome) return { recipient, unsure: (outcome.unsure as Error).message };
	return { recipient, notSent: ('failed' in outcome ? outcome.failed : outcome.stopped).message };
}
