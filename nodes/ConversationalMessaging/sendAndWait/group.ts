import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { smsFacts } from '../checks/sms';
import type { RunMemory } from '../sendLoop/runMemory';
import { executionIdOf, sentEarlier } from '../sendLoop/runMemory';
import type { SendOutcome } from '../sendLoop/send';
import { cancelledError, failureOf } from '../sendLoop/send';
import { joinAnd, plural } from '../words';

/*
 * A question asked of a group: each recipient gets it with a link of their own, n8n's signed
 * resume link carrying their place in the group among its signed parameters, so an answer says
 * who gave it and a link altered to another place fails n8n's signature check. The first answer
 * decides (docs/SEND_AND_WAIT.md says why n8n leaves no other choice to a community node).
 */

/** The signed query parameter of each recipient's link: their place in the group, from 1. */
export const RECIPIENT_PARAMETER = 'to';

/** A group of approvers, not a list of contacts: more is refused before anything is sent. */
export const MAX_RECIPIENTS = 50;

/** One person of the group: as given, who (the phone as read, or the identifier), where. */
export interface Member {
	to: unknown;
	who: string;
	instance?: string;
}

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

/**
 * The group's questions in the run's memory, each found by who it went to, not by its place: a
 * Retry of the saved workflow may list the group in another order. Neither Retry On Fail nor
 * n8n's Retry asks anyone again whom the service has, or may have, asked.
 */
export class GroupMemory {
	/** One item per member: the input item and who. */
	private readonly asked: INodeExecutionData[];
	readonly done: Array<SendOutcome | undefined>;

	constructor(
		private readonly memory: RunMemory,
		input: INodeExecutionData,
		group: Member[],
	) {
		this.asked = group.map(({ who }) => ({ json: { ...input.json, askedOf: who } }));
		this.done = this.asked.map((item) => memory.find(item));
		// Kept again as this execution's: a Retry of this one knows them too.
		if (this.done.some(Boolean)) memory.keep(this.asked, this.done);
	}

	/** Refuses a Retry of a question another execution sent: its links lead there. */
	refuseAnotherExecutions(fns: IExecuteFunctions, group: Member[]): void {
		const by = this.done.map((outcome) =>
			outcome && 'sent' in outcome ? sentEarlier(outcome, executionIdOf(fns)) : undefined,
		);
		const earlier = by.find(Boolean);
		if (!earlier) return;
		const whom = joinAnd(group.filter((_, index) => by[index]).map(({ who }) => who));
		throw new NodeOperationError(
			fns.getNode(),
			`Execution ${earlier.executionId} already sent this question`,
			{
				description: `It is not sent again. The answer links it sent (to ${whom}) lead to execution ${earlier.executionId}, which no longer waits: to ask again, run the workflow again instead of retrying.`,
			},
		);
	}

	/** A question the service has, or may have, is kept at once. */
	keep(index: number, outcome: SendOutcome): void {
		this.done[index] = outcome;
		if ('sent' in outcome || 'unsure' in outcome) this.memory.keep(this.asked, this.done);
	}
}

/**
 * What the evidence says of each recipient; the run's failure when it was cancelled (those asked
 * stay in its memory) or when the question reached nobody.
 */
export function evidenceOf(
	fns: IExecuteFunctions,
	group: Member[],
	outcomes: SendOutcome[],
	cost: (index: number) => AskedRecipient['smsCost'],
): AskedRecipient[] {
	const unsent = outcomes.filter(
		(outcome): outcome is Exclude<SendOutcome, { sent: unknown }> => !('sent' in outcome),
	);
	const stopped = unsent.find((outcome) => 'stopped' in outcome);
	if (stopped) throw failureOf(fns, stopped, 0);
	if (fns.getExecutionCancelSignal()?.aborted) throw cancelledError(fns);
	// Nobody reached: this run's own failure first, rather than an earlier execution's "may have".
	const own = unsent.find((outcome) => !('by' in outcome && outcome.by)) ?? unsent[0];
	if (unsent.length === outcomes.length) throw failureOf(fns, own, 0);
	return group.map(({ who: recipient }, index) => {
		const outcome = outcomes[index];
		if ('sent' in outcome) {
			const smsCost = cost(index);
			return { recipient, messageId: messageIdOf(outcome.sent), ...(smsCost && { smsCost }) };
		}
		if ('unsure' in outcome) return { recipient, unsure: outcome.unsure.message };
		return { recipient, notSent: ('failed' in outcome ? outcome.failed : outcome.stopped).message };
	});
}

/** The warning above the output when some of the group were not asked: they cannot answer. */
export function notAskedWarning(recipients: AskedRecipient[]): string | undefined {
	const missing = recipients.filter(
		({ notSent, unsure }) => notSent !== undefined || unsure !== undefined,
	);
	if (!missing.length) return undefined;
	const named = missing.map(
		({ recipient, notSent, unsure }) => `${recipient} (${notSent ?? unsure})`,
	);
	return `Send and Wait: ${plural(missing.length, 'recipient')} of ${recipients.length} may not have this question's link: ${joinAnd(named)}. Those it reached can answer; question.recipients says who.`;
}
