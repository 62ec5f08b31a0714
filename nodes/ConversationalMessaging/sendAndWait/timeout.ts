import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyCollection,
	INodeTypeDescription,
} from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import type { QuestionAsked } from './asked';
import type { PageContent } from './page';

/**
 * When Limit Wait Time ends the wait, n8n runs none of the node's code: it passes on the input
 * the waiting node kept (n8n-core's WorkflowExecute.handleWaitingState marks the node disabled),
 * while an answer replaces that input with the webhook's output first. So the node sets `data`
 * and `question` on that input before it waits. n8n's answer page reads the node's expressions
 * against the same input, so none of them may read those two fields of the item.
 */
const SET_ON_TIMEOUT = ['data', 'question'];

const ITEM_JSON = String.raw`(?:\$json|\$data|\$input\s*\.\s*(?:item|first\(\s*\)|last\(\s*\)|all\(\s*\)\s*\[\s*\d+\s*\])\s*\.\s*json)`;
const KEY = SET_ON_TIMEOUT.join('|');
const READS_SET_FIELD = new RegExp(
	String.raw`${ITEM_JSON}\s*(?:\?\.|\.)\s*(${KEY})\b|${ITEM_JSON}\s*(?:\?\.)?\[\s*(['"\x60])(${KEY})\2\s*\]`,
);

const limited = (limit: Date) => limit.getTime() !== WAIT_INDEFINITELY.getTime();

/** The expressions among the node's parameters, with their path (`options.responseFormTitle`). */
function* expressionsIn(value: unknown, path: string[] = []): Generator<[string[], string]> {
	if (typeof value === 'string' && value.startsWith('=')) yield [path, value];
	else if (value && typeof value === 'object')
		for (const [key, inner] of Object.entries(value)) yield* expressionsIn(inner, [...path, key]);
}

/** The field's name as the form shows it: "Options > Response Form Title". */
function labelOf(description: INodeTypeDescription, [top, child]: string[]): string {
	const property = description.properties.find((candidate) => candidate.name === top);
	const inner = (property?.options as Array<INodeProperties | INodePropertyCollection> | undefined)
		?.filter((option): option is INodeProperties => 'displayName' in option && 'type' in option)
		.find((option) => option.name === child);
	return [property?.displayName ?? top, ...(inner ? [inner.displayName] : [])].join(' > ');
}

/** Before the question is sent: with a limit, an expression that reads what a timeout sets is refused. */
export function timeoutProblem(
	fns: IExecuteFunctions,
	description: INodeTypeDescription,
	limit: Date,
): { problem: string; fix: string } | undefined {
	if (!limited(limit)) return undefined;
	for (const [path, expression] of expressionsIn(fns.getNode().parameters)) {
		const read = READS_SET_FIELD.exec(expression);
		if (!read) continue;
		const key = read[1] ?? read[3];
		return {
			problem: `${labelOf(description, path)}: reads the input item's "${key}", which Limit Wait Time replaces`,
			fix: `When the wait times out, n8n passes this node's input on as its output, so the node sets "data" and "question" on it (data.timedOut), and n8n's answer page reads this expression from that item. Read the value from the node that made it, e.g. {{ $('Node name').item.json.${key} }}, or turn off Limit Wait Time.`,
		};
	}
	return undefined;
}

/** Just before the wait: the input n8n passes on if the wait times out says so. A timed-out approval is no approval. */
export function setOutputOnTimeout(
	fns: IExecuteFunctions,
	limit: Date,
	responseType: PageContent['responseType'],
	question: QuestionAsked,
): void {
	if (!limited(limit)) return;
	const data: IDataObject = { timedOut: true, timedOutAt: limit.toISOString() };
	if (responseType === 'approval') data.approved = false;
	const kept = fns.getExecuteData();
	const [input] = kept.data.main[0] ?? [];
	if (!input) return;
	const json = { ...input.json, data, question: { ...question } };
	kept.data = { ...kept.data, main: [[{ ...input, json }], ...kept.data.main.slice(1)] };
}
