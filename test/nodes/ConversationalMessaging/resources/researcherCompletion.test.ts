/**
 * The completion rule (resources/researcher/completion.ts) that Researcher > Run's Wait for
 * Completion and Researcher > Get's `complete` share: progress 100, or an output, whichever comes
 * first. The sandbox gives an output only at progress 100, so the cases it cannot show (an output
 * before 100, progress as text) are pinned here, on the rule and on Get's post-receive.
 */
import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

import {
	addCompletion,
	researchIsComplete,
} from '../../../../nodes/ConversationalMessaging/resources/researcher/completion';

const CASES: Array<[string, IDataObject, boolean]> = [
	['a draft', { progress: 0, output: null }, false],
	['running, no output', { progress: 99, output: null }, false],
	['progress 100', { progress: 100, output: null }, true],
	['progress 100 as text', { progress: '100', output: null }, true],
	['an output before progress 100', { progress: 99, output: '# Report' }, true],
	['an output object', { progress: 40, output: { summary: 'x' } }, true],
	['an empty output object', { progress: 40, output: {} }, false],
	['an empty output text', { progress: 40, output: '' }, false],
	['no progress, no output', {}, false],
	['progress as text below 100', { progress: '99' }, false],
];

it.each(CASES)('%s: complete is %s', (_name, researcher, complete) => {
	expect(researchIsComplete(researcher)).toBe(complete);
});

/** Get's post-receive for these Fields, on one answer. */
async function completeOf(fields: unknown, json: IDataObject): Promise<unknown> {
	const context = {
		getNodeParameter: (name: string) => (name === 'fields' ? fields : undefined),
	} as unknown as IExecuteSingleFunctions;
	const [item] = await addCompletion.call(context, [{ json }]);
	return item.json.complete;
}

describe("Researcher > Get's complete", () => {
	it.each(CASES)('%s: by the same rule', async (_name, researcher, complete) => {
		expect(await completeOf([], researcher)).toBe(complete);
	});

	it.each([
		['all fields', []],
		['a list with both', ['name', 'output', 'progress']],
		['a list with spaces', [' output', 'progress ']],
		['text with commas', 'output, progress'],
	])('given with %s', async (_name, fields) => {
		expect(await completeOf(fields, { progress: 99, output: '# Report' })).toBe(true);
	});

	it.each([
		['a list without Output', ['progress', 'name']],
		['text without Progress', 'output,name'],
	])('left out with %s: no guess', async (_name, fields) => {
		expect(await completeOf(fields, { progress: 100 })).toBeUndefined();
	});
});
