import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { Page } from './page';

/** Who was asked, where, and the id the service gave the question's message: the answer's evidence. */
export interface QuestionAsked {
	channel: string;
	instance?: string;
	recipient?: string;
	messageId?: string;
}

/** What the webhook draws and answers with, as execute read and sent it. */
export interface Kept {
	page: Page;
	question: QuestionAsked;
}

const KEY = 'sendAndWait';

/**
 * n8n runs the node's `webhook` in a new context when the page is opened or answered, and drops
 * what execute returned; the node's context is stored with the execution (on n8n 1.x and 2.x,
 * in main or on a queue-mode worker), so it lasts the wait. Kept once the question is sent.
 */
export function keep(fns: IExecuteFunctions, kept: Kept): void {
	fns.getContext('node')[KEY] = kept;
}

/**
 * What execute kept, as n8n's `$node["<name>"].context` gives it: a webhook has no getContext,
 * and its context evaluates expressions as every node's does, though IWebhookFunctions omits it.
 * The node's parameters are not read again: the page keeps what they gave against the input item
 * as it came, whatever a timeout sets on it since (./limitWaitTime.ts).
 */
export function kept(fns: IWebhookFunctions): Kept {
	const context = `$node[${JSON.stringify(fns.getNode().name)}].context`;
	const evaluating = fns as unknown as Pick<IExecuteFunctions, 'evaluateExpression'>;
	const found = evaluating.evaluateExpression(`{{ ${context}[${JSON.stringify(KEY)}] }}`, 0);
	if (!found) throw new Error('Send and Wait: this execution kept no question to answer');
	return found as unknown as Kept;
}
