/**
 * Sentences a newcomer tripped on (issue 48), never again in what a user reads: the README, docs/,
 * the examples' sticky notes and their README. Each is the words as they were, or the pattern of
 * a wrong kind of sentence. The node's own words are asserted where they are made (the engine
 * suites); this keeps the pages in step.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

const ROOT = join(__dirname, '..');

/** The pages, each as its text; a workflow as the words of its sticky notes. */
function pages(): Array<[string, string]> {
	const docs = readdirSync(join(ROOT, 'docs')).filter((file) => file.endsWith('.md'));
	const examples = readdirSync(join(ROOT, 'examples')).filter((file) => file.endsWith('.json'));
	const notes = (file: string) =>
		(
			JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8')) as {
				nodes: Array<{ type: string; parameters: { content?: string } }>;
			}
		).nodes
			.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
			.map((node) => node.parameters.content ?? '')
			.join('\n');
	return [
		['README.md', readFileSync(join(ROOT, 'README.md'), 'utf8')],
		['examples/README.md', readFileSync(join(ROOT, 'examples', 'README.md'), 'utf8')],
		...docs.map((file): [string, string] => [
			`docs/${file}`,
			readFileSync(join(ROOT, 'docs', file), 'utf8'),
		]),
		...examples.map((file): [string, string] => [`examples/${file}`, notes(file)]),
	];
}

/** What was said, and why it was wrong. */
const RETIRED: Array<[RegExp, string]> = [
	[/presses \*?Submit\b/i, 'one tap answers an approval: there is no Submit to press'],
	[
		/The service rejected the request\. Check the field named in the message\./,
		'the service message it follows names no field',
	],
	[/“’”/, 'a curly apostrophe in curly quotes: shown as ’ (U+2019) since'],
	[/lint-free build/, '`npm test` builds and tests; the lint is `npm run lint`'],
	[
		/engine suites on n8n 2\.41's and 1\.x's engines/,
		"test:compat runs the engine suites on 1.x's engine only: npm test runs them on 2.41's",
	],
	[
		/\bItem [\d,]+ stopped the send:/,
		"an item numbered from 1 beside n8n's [item N] from 0: the stop says n8n's number, and so",
	],
	[/No action required/i, "n8n's page for an answered link: say that it was answered"],
];

describe('the pages a user reads', () => {
	it('were read: the README, docs/, the examples and their sticky notes', () => {
		const read = pages();
		expect(read.length).toBeGreaterThan(20);
		expect(read.filter(([, text]) => text.length === 0).map(([page]) => page)).toEqual([]);
	});

	it.each(RETIRED)('never say %s (%s)', (words) => {
		expect(
			pages()
				.filter(([, text]) => words.test(text))
				.map(([page]) => page),
		).toEqual([]);
	});
});
