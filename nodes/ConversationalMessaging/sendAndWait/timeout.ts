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

const ITEM = String.raw`(?:\$json|\$data|\$input\s*\.\s*(?:item|first\(\s*\)|last\(\s*\)|all\(\s*\)\s*\[\s*\d+\s*\])\s*\??\.\s*json)`;
const KEY = SET_ON_TIMEOUT.join('|');
/** `$json.data`, `$json?.['question']`, `$input.first()?.json.data`...: group 1 or 3 is the field. */
const READS_SET_FIELD = new RegExp(
	String.raw`${ITEM}\s*(?:\?\.|\.)\s*(${KEY})\b|${ITEM}\s*(?:\?\.)?\[\s*(['"\x60])(${KEY})\2\s*\]`,
);
/** The item as a whole (`JSON.stringify($json)`): it holds them too. */
const READS_WHOLE_ITEM = new RegExp(String.raw`${ITEM}(?!\s*(?:\?\.|\.|\[)|[\w$])`);

const limited = (limit: Date) => limit.getTime() !== WAIT_INDEFINITELY.getTime();

/** The expressions among the node's parameters, with their path (`options.responseFormTitle`). */
function* expressionsIn(value: unknown, path: string[] = []): Generator<[string[], string]> {
	if (typeof value === 'string' && value.startsWith('=')) yield [path, value];
	else if (value && typeof value === 'object')
		for (const [key, inner] of Object.entries(value)) yield* expressionsIn(inner, [...path, key]);
}

type Level = Array<INodeProperties | INodePropertyCollection>;

/** The field's name as the form shows it: "Options > Response Form Title", "Form Fields (entry 3) > Field Value". */
function labelOf(description: INodeTypeDescription, path: string[]): string {
	const names: string[] = [];
	let level: Level | undefined = description.properties.filter((property) => {
		const operations = property.displayOptions?.show?.operation;
		return !operations || operations.includes('sendAndWait');
	});
	for (const segment of path) {
		if (/^\d+$/.test(segment)) {
			names[names.length - 1] += ` (entry ${Number(segment) + 1})`;
			continue;
		}
		const found: INodeProperties | INodePropertyCollection | undefined = level?.find(
			(candidate) => candidate.name === segment,
		);
		if (!found) break;
		if ('values' in found) {
			level = found.values;
			continue;
		}
		names.push(found.displayName);
		const nested = ['collection', 'fixedCollection'].includes(found.type);
		level = nested ? (found.options as Level) : undefined;
	}
	return names.join(' > ') || path.join('.');
}

/**
 * Before the question is sent: with a limit, an expression that reads what the node sets on its
 * input before it waits is refused.
 */
export function timeoutProblem(
	fns: IExecuteFunctions,
	description: INodeTypeDescription,
	limit: Date,
): { problem: string; fix: string } | undefined {
	if (!limited(limit)) return undefined;
	for (const [path, expression] of expressionsIn(fns.getNode().parameters)) {
		const field = READS_SET_FIELD.exec(expression);
		const whole = !field && READS_WHOLE_ITEM.test(expression);
		if (!field && !whole) continue;
		const key = field?.[1] ?? field?.[3];
		const what = key ? `the input item's "${key}"` : 'the whole input item';
		return {
			problem: `${labelOf(description, path)}: reads ${what}, which Limit Wait Time changes`,
			fix: `With a limit, the node sets "data" and "question" on its input item before it waits (they are its output if the wait times out), and n8n's answer page and the answer read this expression from that item: they would get data.timedOut, not your value. Read the value from the node that made it, e.g. {{ $('Node name').item.json${key ? `.${key}` : ''} }}, or turn off Limit Wait Time.`,
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
