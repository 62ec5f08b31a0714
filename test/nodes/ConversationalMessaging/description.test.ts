/**
 * Rules of the description as a whole, which no single operation's test sees.
 */
import { commonDeclarativeNodeOptionParameters } from 'n8n-core/dist/nodes-loader/constants';
import { DirectoryLoader } from 'n8n-core';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import {
	ConversationalMessaging,
	RESOURCES,
} from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import type { Field } from '../../../nodes/ConversationalMessaging/form/fields';
import { allFields } from '../../../nodes/ConversationalMessaging/form/operations';

const node = new ConversationalMessaging();
const { properties } = node.description;

/** Whether n8n's RoutingNode runs some operation that shows this property (not only the node's own loop). */
const routedSomewhere = (property: INodeProperties): boolean => {
	const resources = (property.displayOptions?.show?.resource ?? []) as string[];
	const operations = (property.displayOptions?.show?.operation ?? []) as string[];
	if (!resources.length || !operations.length) return true;
	return resources.some((resource) =>
		operations.some((operation) => !node.customOperations?.[resource]?.[operation]),
	);
};

/** The canvas subtitle, built from the Operation selectors: each operation's action. */
function operationSubtitle(): string {
	const actions: Record<string, string> = {};
	for (const property of properties.filter((candidate) => candidate.name === 'operation')) {
		for (const resource of (property.displayOptions?.show?.resource ?? []) as string[]) {
			for (const option of property.options as INodePropertyOptions[])
				actions[`${resource}.${String(option.value)}`] = option.action ?? option.name;
		}
	}
	return `={{ (${JSON.stringify(actions)})[$parameter["resource"] + "." + $parameter["operation"]] }}`;
}

describe('the node description', () => {
	it('holds no expression in its request defaults, which the send engine copies as they are', () => {
		// RoutingNode evaluates each default; sendLoop/itemRequest.ts does not.
		const defaults = JSON.stringify(node.description.requestDefaults);
		expect(defaults).not.toMatch(/"=/);
		expect(node.description.requestDefaults).toBeDefined();
	});

	it('shows the operation in words under the node on the canvas', () => {
		// Derived from the specs (registry.ts): this keeps it equal to the Operation selectors.
		expect(node.description.subtitle).toBe(operationSubtitle());
	});

	it('gives every field that can hold an expression a name of its own', () => {
		// n8n's RoutingNode evaluates a parameter once for every top-level property of that name,
		// shown or not, twice per item: a name shared by k properties costs k times the
		// evaluations of an expression in it (docs/PERFORMANCE.md). Return All and Limit keep
		// n8n's usual names and hold constants in practice. The send loop evaluates shown fields
		// only, so fields of its operations alone may share a name (Send SMS's and Send and
		// Wait's `message`).
		const names = properties
			.filter(
				(property) =>
					!property.noDataExpression &&
					!['returnAll', 'limit'].includes(property.name) &&
					routedSomewhere(property),
			)
			.map((property) => property.name);
		const repeated = names.filter((name, index) => names.indexOf(name) !== index);
		expect(repeated).toEqual([]);
	});

	it('takes no expression in a field that decides which other fields are shown', () => {
		// displayOptions compare the raw parameter: an expression there shows every variant.
		const deciding = new Set(
			properties.flatMap((property) => Object.keys(property.displayOptions?.show ?? {})),
		);
		const open = properties.filter(
			(property) =>
				deciding.has(property.name) && !property.noDataExpression && property.name !== 'returnAll',
		);
		expect(open.map((property) => property.name)).toEqual([]);
	});

	it("names only list searches the node has, and its resource locators' By ID keeps n8n's plain value", () => {
		// The editor calls methods.listSearch[searchListMethod]; a missing one fails only there.
		const locators = properties.filter((property) => property.type === 'resourceLocator');
		expect(locators.map((property) => property.name)).toEqual(['campaignId']);
		const listSearch: Record<string, unknown> = new ConversationalMessaging().methods.listSearch;
		for (const property of locators) {
			const modes = property.modes ?? [];
			expect(modes.map((mode) => mode.name)).toEqual(['list', 'id']);
			const method = modes[0].typeOptions?.searchListMethod;
			expect(typeof listSearch[method ?? '']).toBe('function');
			// extractValue would refuse a number from an expression before the node could name the field.
			expect(modes.filter((mode) => mode.extractValue)).toEqual([]);
		}
	});

	it("declares n8n's Request Options itself, as n8n would add them (names, types, defaults)", () => {
		// n8n's loader adds them only to a declarative node without a `webhook` method.
		const loaded = new ConversationalMessaging();
		const before = [...loaded.description.properties];
		DirectoryLoader.applyDeclarativeNodeOptionParameters(loaded);
		expect(loaded.description.properties).toEqual(before);
		const shape = (value: unknown): unknown =>
			Array.isArray(value)
				? value.map(shape)
				: value && typeof value === 'object'
					? Object.fromEntries(
							Object.entries(value)
								.filter(([key]) => !['displayName', 'description'].includes(key))
								.map(([key, entry]) => [key, shape(entry)]),
						)
					: value;
		const ours = properties.filter((property) => property.name === 'requestOptions');
		expect(ours.map(shape)).toEqual([shape(commonDeclarativeNodeOptionParameters)]);
	});

	it("gives every operation that is one request its routing and the hook that names network failures, RoutingNode's where n8n runs it instead of customOperations", () => {
		const options = properties
			.filter((property) => property.name === 'operation')
			.flatMap((selector) => {
				const resource = String(selector.displayOptions?.show?.resource);
				return (selector.options as INodePropertyOptions[]).map((option) => ({
					name: `${resource}.${String(option.value)}`,
					option,
				}));
			});
		const requests = options
			.filter(({ option }) => option.routing?.request)
			.map(({ name }) => name);
		const hooked = options
			.filter(({ option }) => typeof option.routing?.operations?.pagination === 'function')
			.map(({ name }) => name);
		// All but Send and Wait, whose routing refuses to run (toolPath.test.ts).
		const all = options.map(({ name }) => name);
		expect([requests, hooked]).toEqual([
			all.filter((name) => name !== 'messaging.sendAndWait'),
			all.filter((name) => name !== 'messaging.sendAndWait'),
		]);
		const sendAndWait = options.find(({ name }) => name === 'messaging.sendAndWait')?.option;
		expect(sendAndWait?.routing?.send?.preSend).toHaveLength(1);
	});

	it('leaves no routing of its own on a field of an operation the node sends itself', () => {
		// The send loop and Send and Wait read a field's `sent` (form/fields.ts), RoutingNode the
		// routing derived from it: one of the field's own would differ between the two.
		const unread = RESOURCES.flatMap(({ value, operations }) =>
			operations
				.filter((spec) => spec.sends)
				.flatMap((spec) => allFields(spec.fields))
				.filter((field: Field) => field.routing || (field.type === 'fixedCollection' && field.sent))
				.map((field) => `${value}: ${field.name}`),
		);
		expect(unread).toEqual([]);
		// And a field RoutingNode sends has its place and checks in its routing.
		const files = properties.find((property) => property.name === 'files');
		expect(files?.routing?.send?.preSend).toHaveLength(2);
	});
});
