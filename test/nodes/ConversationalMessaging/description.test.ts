/**
 * Rules of the description as a whole, which no single operation's test sees.
 */
import { commonDeclarativeNodeOptionParameters } from 'n8n-core/dist/nodes-loader/constants';
import { DirectoryLoader } from 'n8n-core';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import { BULK_OPERATIONS } from '../../../nodes/ConversationalMessaging/form/bulkOperations';

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

/**
 * What the send engine (sendLoop/itemRequest.ts) reads of `routing`, and nothing else: the request's
 * method, URL and body as written (no expression), each field's send type, property (a plain
 * path) and checks, and the answer's post-receive functions.
 */
const ENGINE_READS: Record<string, string[]> = {
	request: ['method', 'url', 'body'],
	send: ['type', 'property', 'preSend'],
	output: ['postReceive'],
};

type Described = INodeProperties | INodePropertyOptions;

/**
 * How the engine would misread the request of one operation: every routing part of the
 * properties it visits for it (the shown fields, the selected option of an options field, the
 * entries of a collection) that it does not read, and any routing where it does not look (inside a
 * fixed collection or a multi-select). `alsoRouted`: RoutingNode runs this operation too, so its
 * option may carry RoutingNode's request hook, which the engine leaves alone (it names network
 * failures itself).
 */
function misreadings(
	all: INodeProperties[],
	resource: string,
	operation: string,
	alsoRouted = false,
): string[] {
	const found: string[] = [];
	const shown = (property: INodeProperties) => {
		const show = property.displayOptions?.show ?? {};
		return (
			(!show.resource || show.resource.includes(resource)) &&
			(!show.operation || show.operation.includes(operation))
		);
	};
	const check = (where: string, described: Described, isOperation: boolean) => {
		const routing = { ...described.routing } as Record<string, Record<string, unknown>>;
		if (isOperation && alsoRouted) {
			if (routing.send?.paginate === true) routing.send = { ...routing.send, paginate: undefined };
			if (typeof routing.operations?.pagination === 'function') delete routing.operations;
		}
		for (const [part, value] of Object.entries(routing)) {
			for (const [key, entry] of Object.entries(value ?? {})) {
				if (entry === undefined) continue;
				if (!ENGINE_READS[part]?.includes(key)) found.push(`${where}: routing.${part}.${key}`);
				else if (typeof entry === 'string' && entry.startsWith('='))
					found.push(`${where}: routing.${part}.${key} is an expression`);
				else if (
					['preSend', 'postReceive'].includes(key) &&
					!(Array.isArray(entry) && entry.every((action) => typeof action === 'function'))
				)
					found.push(`${where}: routing.${part}.${key} holds more than functions`);
				else if (key === 'body' && JSON.stringify(entry).includes('"='))
					found.push(`${where}: routing.request.body holds an expression`);
			}
			if (
				part === 'send' &&
				value?.property !== undefined &&
				!['body', 'query'].includes(String(value.type))
			)
				found.push(`${where}: routing.send.type ${String(value.type)}`);
		}
	};
	const unread = (where: string, described: Described) => {
		if (described.routing) found.push(`${where}: routing the engine never reads`);
		const { options, values } = described as { options?: Described[]; values?: Described[] };
		for (const child of [...(options ?? []), ...(values ?? [])])
			unread(`${where}.${child.name}`, child);
	};
	const visit = (where: string, property: Described, isOperation = false) => {
		check(where, property, isOperation);
		if (!('type' in property)) return;
		const children = (property.options ?? []) as Described[];
		if (property.type === 'options')
			for (const option of children as INodePropertyOptions[]) {
				if (property.name === 'operation' && option.value !== operation) continue;
				visit(`${where}=${String(option.value)}`, option, property.name === 'operation');
			}
		else if (property.type === 'collection')
			for (const option of children) visit(`${where}.${option.name}`, option);
		else for (const child of children) unread(`${where}.${child.name}`, child);
	};
	for (const property of all.filter(shown)) visit(property.name, property);
	return found;
}

/** Every operation the engine builds requests for: the bulk sends and Send and Wait's steps. */
const engineRuns: Array<[string, string, boolean]> = [
	...Object.entries(BULK_OPERATIONS).flatMap(([resource, operations]) =>
		operations.map((operation): [string, string, boolean] => [resource, operation, false]),
	),
	// Send and Wait's question: its channel's option and fields carry the channel's plain send.
	['messaging', 'sendAndWait', false],
	// Send and Wait's Shorten Link step (sendAndWait/run.ts), an operation RoutingNode runs too.
	['shortLink', 'create', true],
];

describe('the node description', () => {
	it('holds no expression in its request defaults, which the send engine copies as they are', () => {
		// RoutingNode evaluates each default; sendLoop/itemRequest.ts does not.
		const defaults = JSON.stringify(node.description.requestDefaults);
		expect(defaults).not.toMatch(/"=/);
		expect(node.description.requestDefaults).toBeDefined();
	});

	it('shows the operation in words under the node on the canvas', () => {
		// n8n's lint takes only a literal subtitle: this keeps it equal to the Operation selectors.
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
		DirectoryLoader.applyDeclarativeNodeOptionParameters(loaded);
		expect(loaded.description.properties).toEqual(properties);
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

	it('gives the send engine only the routing parts it reads, for every operation it runs', () => {
		for (const [resource, operation, alsoRouted] of engineRuns) {
			expect(misreadings(properties, resource, operation, alsoRouted)).toEqual([]);
		}
		// Each operation RoutingNode runs, and only those, carries the hook that names network failures.
		const routed = properties
			.filter((property) => property.name === 'operation')
			.flatMap((selector) => {
				const resource = String(selector.displayOptions?.show?.resource);
				return (selector.options as INodePropertyOptions[])
					.filter((option) => option.routing)
					.map((option) => ({ name: `${resource}.${String(option.value)}`, option }));
			});
		const hooked = routed
			.filter(({ option }) => typeof option.routing?.operations?.pagination === 'function')
			.map(({ name }) => name);
		const bulk = Object.entries(BULK_OPERATIONS).flatMap(([resource, operations]) =>
			operations.map((operation) => `${resource}.${operation}`),
		);
		expect(hooked).toEqual(routed.map(({ name }) => name).filter((name) => !bulk.includes(name)));
		expect(hooked).toEqual(expect.arrayContaining(['shortLink.create', 'campaign.getAll']));
	});

	it('would catch a routing part the send engine does not read', () => {
		// The check itself, on the SMS send with one field the engine would misread each time.
		const withField = (property: Partial<INodeProperties>): INodeProperties[] => [
			...properties,
			{
				displayName: 'Extra',
				name: 'extra',
				type: 'string',
				default: '',
				displayOptions: { show: { resource: ['messaging'], operation: ['sendSms'] } },
				...property,
			},
		];
		const routed = (routing: object) => withField({ routing } as Partial<INodeProperties>);
		expect(misreadings(properties, 'messaging', 'sendSms')).toEqual([]);
		for (const description of [
			routed({ send: { type: 'body', property: 'x', value: '={{ $value }}' } }),
			routed({ send: { type: 'body', property: '=files[{{$index}}].url' } }),
			routed({ send: { paginate: true } }),
			routed({ request: { url: '=/v1/sms/{{ $parameter.x }}' } }),
			routed({ request: { qs: { a: 1 } } }),
			routed({ output: { maxResults: 5 } }),
			routed({
				output: { postReceive: [{ type: 'rootProperty', properties: { property: 'x' } }] },
			}),
			routed({ operations: { pagination: async () => [] } }),
			// A fixed collection's entries, which the engine never visits.
			withField({
				type: 'fixedCollection',
				default: {},
				options: [
					{
						displayName: 'Entry',
						name: 'entry',
						values: [
							{
								displayName: 'URL',
								name: 'url',
								type: 'string',
								default: '',
								routing: { send: { type: 'body', property: 'url' } },
							},
						],
					},
				],
			}),
		])
			expect(misreadings(description, 'messaging', 'sendSms')).not.toEqual([]);
	});
});
