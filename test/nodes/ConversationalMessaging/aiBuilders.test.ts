/**
 * What n8n's AI builders read of the node (issue 32), with n8n's own code: the package loaded as
 * n8n loads a community package (n8n-core's PackageDirectoryLoader, the package name prefixed as
 * n8n's collectTypes does), searched with @n8n/ai-utilities' node catalogue (behind n8n's MCP
 * workflow-builder tools and Instance AI), its type file generated with @n8n/workflow-sdk (what
 * n8n synthesises for a community node), and every example validated with the SDK's
 * validateWorkflow against the node's generated parameter schemas.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { PackageDirectoryLoader } from 'n8n-core';
import { NodeTypeParser, searchCodeBuilderNodes } from '@n8n/ai-utilities/node-catalog';
import {
	generateNodeTypeFile,
	orchestrateGeneration,
	setSchemaBaseDirs,
	validateWorkflow,
} from '@n8n/workflow-sdk';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGE = 'n8n-nodes-conversational-messaging';
const NODE = `${PACKAGE}.conversationalMessaging`;

let description: INodeTypeDescription;
let schemas: string;

beforeAll(async () => {
	const loader = new PackageDirectoryLoader(ROOT);
	await loader.loadAll();
	const [loaded] = loader.types.nodes;
	description = { ...loaded, name: `${PACKAGE}.${loaded.name}` };
	schemas = mkdtempSync(join(tmpdir(), 'node-definitions-'));
	await orchestrateGeneration({ nodes: [description as never], outputDir: schemas });
	setSchemaBaseDirs([schemas]);
}, 60_000);

afterAll(() => rmSync(schemas, { recursive: true, force: true }));

const examples = () =>
	readdirSync(join(ROOT, 'examples'))
		.filter((file) => file.endsWith('.json'))
		.map((file) => ({
			file,
			workflow: JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8')) as {
				nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }>;
			},
		}));

/** What the SDK says is wrong with a workflow: errors, and warnings on our node's parameters. */
function problemsOf(workflow: unknown): string[] {
	const result = validateWorkflow(workflow as never);
	return [
		...result.errors.map((error) => `error ${error.code}: ${error.message}`),
		...result.warnings
			.filter((warning) => warning.code === 'INVALID_PARAMETER')
			.map((warning) => `warning ${warning.code}: ${warning.message}`),
	];
}

describe("n8n's AI builders", () => {
	it("find the node with what every workflow around it needs, and n8n's nodes that go with it", () => {
		const parser = new NodeTypeParser([description]);
		const { results } = searchCodeBuilderNodes(parser, ['sms approval']);
		expect(results).toContain(NODE);
		expect(results).toContain('@builderHint');
		expect(results).toContain('Instance ID from the service dashboard');
		expect(results).toContain('@relatedNodes');
		// The operations that change how a workflow is built carry their own hint.
		const operations = searchCodeBuilderNodes(parser, ['conversational messaging']).results;
		expect(operations).toContain('@builderHint Use it instead of a Wait or Form node');
		expect(operations).toContain('@builderHint Wait for Completion keeps the execution running');
		expect(operations).toContain('@builderHint Give it all recipients as items');
		for (const related of [
			'n8n-nodes-base.wait',
			'n8n-nodes-base.formTrigger',
			'n8n-nodes-base.splitInBatches',
			'@n8n/n8n-nodes-langchain.agent',
		])
			expect(results).toContain(related);
	});

	it('read a type file with every resource, operation and parameter, and the hints', () => {
		const types = generateNodeTypeFile(description as never);
		const resources = description.properties.find((property) => property.name === 'resource');
		for (const option of resources?.options as INodePropertyOptions[])
			expect(types).toContain(`'${String(option.value)}'`);
		const operations = description.properties
			.filter((property) => property.name === 'operation')
			.flatMap((property) => property.options as INodePropertyOptions[]);
		expect(operations.length).toBe(28);
		for (const option of operations) expect(types).toContain(`'${String(option.value)}'`);
		const parameters = description.properties.filter(
			(property: INodeProperties) => property.type !== 'notice',
		);
		const missing = parameters.filter(
			(property) => !types.includes(`${property.name}?:`) && !types.includes(`${property.name}:`),
		);
		expect(missing.map((property) => property.name)).toEqual([]);
		expect(types).toContain("@builderHint The ID of the user's connected line");
		expect(types).toContain('@builderHint A phone number with its country code');
		expect(types).toContain('@builderHint An identifier the service gave');
	});

	it('never leak an expression or a connection name into a hint (n8n lint no-builder-hint-leakage, on every hint the node gives)', () => {
		const hints: string[] = [];
		const collect = (value: unknown, inHint: boolean) => {
			if (typeof value === 'string') {
				if (inHint) hints.push(value);
			} else if (Array.isArray(value)) value.forEach((entry) => collect(entry, inHint));
			else if (value && typeof value === 'object')
				for (const [key, entry] of Object.entries(value))
					collect(entry, inHint || key === 'builderHint');
		};
		collect(description, false);
		expect(hints.length).toBeGreaterThan(20);
		expect(hints.filter((hint) => /=\{\{|\bai_[a-z]/i.test(hint))).toEqual([]);
	});

	it("use in the examples only parameters the node has (n8n's validation lets an unknown key through)", () => {
		const names = new Set(description.properties.map((property) => property.name));
		const inner = new Map(
			description.properties
				.filter((property) => property.type === 'collection')
				.map((property) => [
					property.name,
					new Set((property.options as INodeProperties[]).map((option) => option.name)),
				]),
		);
		const unknown = examples().flatMap(({ file, workflow }) =>
			workflow.nodes
				.filter((node) => node.type === NODE)
				.flatMap((node) =>
					Object.entries(node.parameters).flatMap(([key, value]) => [
						...(names.has(key) ? [] : [`${file} ${node.name}: ${key}`]),
						...(inner.has(key) && value && typeof value === 'object'
							? Object.keys(value)
									.filter((name) => !inner.get(key)?.has(name))
									.map((name) => `${file} ${node.name}: ${key}.${name}`)
							: []),
					]),
				),
		);
		expect(unknown).toEqual([]);
	});

	it.each(examples().map(({ file }) => file))(
		'validate the example %s against the node’s generated schemas: no problem',
		(file) => {
			const { workflow } = examples().find((example) => example.file === file)!;
			expect(problemsOf(workflow)).toEqual([]);
		},
	);

	it('refuse a broken example: a misspelled parameter, a value the node does not offer', () => {
		const { workflow } = examples().find(({ file }) => file === 'sms-delivery-form.json')!;
		const ours = (copy: typeof workflow) => copy.nodes.find((node) => node.type === NODE)!;
		const misspelled = structuredClone(workflow);
		const ask = ours(misspelled).parameters;
		ask.recipent = ask.to;
		delete ask.to;
		expect(problemsOf(misspelled).join('\n')).toMatch(/parameters\.to\b/);
		const wrongValue = structuredClone(workflow);
		ours(wrongValue).parameters.responseType = 'customFrom';
		expect(problemsOf(wrongValue).join('\n')).toMatch(/responseType/);
	});
});
