/**
 * The description as a whole (issue 22, Must hold 3): every form variant of every operation, as
 * n8n's own display logic (n8n-workflow NodeHelpers) shows it.
 * AI-tool schema, as n8n 2.41 builds it: the node becomes `conversationalMessagingTool`
 * (n8n/dist/tool-generation/ai-tools.js, convertNodeToAiTool). "Let the model define this parameter"
 * writes `={{ <marker> $fromAI('<display name>', ``, '<type>') }}`: an EMPTY description, unless the
 * value already was one $fromAI call, whose description it keeps (n8n-editor-ui dist/assets/
 * focusPanel.store-*.js, mirrored below). n8n-core's getSchema (create-node-as-tool.js) makes each call
 * a zod property with n8n-workflow's generateZodSchema, which describes it only with that text: a
 * field's own `description` never reaches the model, whatever the node declares. So the test holds
 * what the node decides: each field the model fills in has its own key, from a display name that
 * says what it is, and a description the builder sees beside the override and can give the model.
 */
import { isDeepStrictEqual } from 'util';
import type {
	IDataObject,
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypes,
} from 'n8n-workflow';
import { NodeHelpers, Workflow, extractFromAICalls } from 'n8n-workflow';
import { createNodeAsTool } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';

import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';

const nodeType = new ConversationalMessaging();
const { description } = nodeType;
const { properties } = description;
const VERSION = { typeVersion: 1 };

// How the tool reaches a chat model: n8n-core's own @langchain/core turns its DynamicStructuredTool into JSON schema.
const { convertToOpenAITool } = require(
	require.resolve('@langchain/core/utils/function_calling', {
		paths: [require.resolve('n8n-core')],
	}),
) as typeof import('@langchain/core/utils/function_calling');

type Choice = INodeProperties['options'] extends (infer T)[] | undefined ? T : never;
const isGroup = (option: Choice): option is INodePropertyCollection => 'values' in option;
const isField = (option: Choice): option is INodeProperties =>
	'type' in option && 'displayName' in option;
const showsFor = (list: unknown, value: string) =>
	list === undefined || (list as unknown[]).includes(value);
const repeated = (names: string[]) => [
	...new Set(names.filter((name, index) => names.indexOf(name) !== index)),
];

const RESOURCES = (
	properties.find((property) => property.name === 'resource')!.options as INodePropertyOptions[]
).map((option) => String(option.value));
const operationsOf = (resource: string) =>
	properties
		.filter(
			(property) =>
				property.name === 'operation' &&
				showsFor(property.displayOptions?.show?.resource, resource),
		)
		.flatMap((property) => property.options as INodePropertyOptions[]);
const PAIRS = RESOURCES.flatMap((resource) =>
	operationsOf(resource).map((option) => ({ resource, operation: String(option.value), option })),
);

/** What n8n keeps for a form (the defaults of what is shown filled in, as the editor and Workflow do) and the top-level fields it shows. */
function form(values: INodeParameters): { values: INodeParameters; shown: INodeProperties[] } {
	const full =
		NodeHelpers.getNodeParameters(properties, values, true, false, VERSION, description) ?? {};
	return {
		values: full,
		shown: properties.filter((property) =>
			NodeHelpers.displayParameter(full, property, VERSION, description),
		),
	};
}

const DECIDING = new Set(
	properties.flatMap((property) => [
		...Object.keys(property.displayOptions?.show ?? {}),
		...Object.keys(property.displayOptions?.hide ?? {}),
	]),
);

type Variant = { label: string; values: INodeParameters; shown: INodeProperties[] };

/** Every form of an operation: one per combination of the options and boolean fields that decide what it shows. */
function variants(resource: string, operation: string): Variant[] {
	const deciding = properties.filter(
		(property) =>
			DECIDING.has(property.name) &&
			!['resource', 'operation'].includes(property.name) &&
			['options', 'boolean'].includes(property.type) &&
			showsFor(property.displayOptions?.show?.resource, resource) &&
			showsFor(property.displayOptions?.show?.operation, operation),
	);
	let combinations: IDataObject[] = [{}];
	for (const property of deciding) {
		const choices =
			property.type === 'boolean'
				? [true, false]
				: (property.options as INodePropertyOptions[]).map((option) => option.value);
		combinations = combinations.flatMap((combination) =>
			choices.map((choice) => ({ ...combination, [property.name]: choice })),
		);
	}
	const seen = new Map<string, Variant>();
	for (const combination of combinations) {
		const { values, shown } = form({ resource, operation, ...(combination as INodeParameters) });
		const label = `${resource} > ${operation}${
			Object.keys(combination).length
				? ` (${Object.entries(combination)
						.map(([name, value]) => `${name}=${String(value)}`)
						.join(', ')})`
				: ''
		}`;
		const key = shown.map((property) => property.name).join();
		if (!seen.has(key)) seen.set(key, { label, values, shown });
	}
	return [...seen.values()];
}
const VARIANTS = PAIRS.flatMap(({ resource, operation }) => variants(resource, operation));

/** Display names repeated inside a collection or fixed collection (each level, recursively). */
function innerRepeats(property: INodeProperties, path = property.displayName): string[] {
	const options = (property.options ?? []) as Choice[];
	const inLevel = (level: string, names: { displayName: string }[]) =>
		repeated(names.map((named) => named.displayName)).map((name) => `${level} > "${name}"`);
	if (property.type === 'collection') {
		const fields = options.filter(isField);
		return [
			...inLevel(path, fields),
			...fields.flatMap((field) => innerRepeats(field, `${path} > ${field.displayName}`)),
		];
	}
	const groups = property.type === 'fixedCollection' ? options.filter(isGroup) : [];
	return [
		...inLevel(path, groups),
		...groups.flatMap((group) => [
			...inLevel(`${path} > ${group.displayName}`, group.values),
			...group.values.flatMap((field) =>
				innerRepeats(field, `${path} > ${group.displayName} > ${field.displayName}`),
			),
		]),
	];
}

/** Every field, top-level and inside collections and fixed collections, with its path of names. */
function* allFields(list: INodeProperties[], path = ''): Generator<[string, INodeProperties]> {
	for (const property of list) {
		yield [`${path}${property.name}`, property];
		for (const option of (property.options ?? []) as Choice[]) {
			if (isGroup(option))
				yield* allFields(option.values, `${path}${property.name}.${option.name}.`);
			else if (isField(option)) yield* allFields([option], `${path}${property.name}.`);
		}
	}
}

// The editor's fromAI override (n8n-editor-ui 2.41, dist/assets/focusPanel.store-*.js, minified): the key from the field's
// path and display name (sanitizeFromAiParameterName), which fields may be overridden (canBeContentOverride), the
// description kept from an existing $fromAI value (updateFromAIOverrideValues), and the value written (buildValueFromOverride).
const FROM_AI_MARKER = '/*n8n-auto-generated-fromAI-override*/';
function fromAiKey(indices: string[], displayName: string): string {
	const joined = [...indices, displayName].join('_');
	return (indices.length > 1 ? joined.slice(-63) : joined.slice(0, 63)).replace(
		/[^a-zA-Z0-9-]/g,
		'_',
	);
}
function keptDescription(value: unknown): string {
	try {
		const calls = extractFromAICalls(String(value).replace(/\\[^`]/g, '\\\\'));
		return calls.length === 1 ? (calls[0].description ?? '') : '';
	} catch {
		return '';
	}
}
function fromAiOverride(key: string, text: string, type: string): string {
	const quote = text.includes('\n') || !text.includes('`') ? '`' : text.includes('"') ? "'" : '"';
	const escaped = text.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`);
	return `={{ ${FROM_AI_MARKER} $fromAI('${key}', ${quote}${escaped}${quote}, '${['boolean', 'number', 'json'].includes(type) ? type : 'string'}') }}`;
}

/**
 * The parameters when the model defines every field the user sees: shown top-level fields and every option
 * of the collections (each can be added). Not the Settings tab's Request Options, which configure the request.
 */
function leftToModel(
	fields: INodeProperties[],
	values: IDataObject,
	indices: string[],
	keys: string[],
	filled: INodeProperties[],
): IDataObject {
	const result: IDataObject = { ...values };
	for (const field of fields) {
		if (field.isNodeSetting) continue;
		if (field.type === 'collection') {
			const inner = (field.options as Choice[]).filter(isField);
			result[field.name] = leftToModel(
				inner,
				Object.fromEntries(inner.map((option) => [option.name, option.default])) as IDataObject,
				indices,
				keys,
				filled,
			);
		} else if (field.type === 'fixedCollection') {
			const groups: IDataObject = {};
			for (const group of (field.options as Choice[]).filter(isGroup)) {
				const defaults = Object.fromEntries(
					group.values.map((value) => [value.name, value.default]),
				) as INodeParameters;
				const inner = group.values.filter((value) =>
					NodeHelpers.displayParameter(
						defaults,
						value,
						VERSION,
						description,
						values as INodeParameters,
					),
				);
				const many = field.typeOptions?.multipleValues === true;
				const groupValues = leftToModel(
					inner,
					defaults as IDataObject,
					many ? [...indices, `${group.name}0`] : indices,
					keys,
					filled,
				);
				groups[group.name] = many ? [groupValues] : groupValues;
			}
			result[field.name] = groups;
		} else if (
			!field.noDataExpression &&
			!['options', 'credentialsSelect', 'notice', 'hidden'].includes(field.type)
		) {
			const key = fromAiKey(indices, field.displayName);
			keys.push(key);
			filled.push(field);
			result[field.name] = fromAiOverride(key, keptDescription(values[field.name]), field.type);
		}
	}
	return result;
}

/** The parameters of the tool's input schema as the chat model receives them. */
function toolSchema(parameters: IDataObject): Record<string, { description?: string }> {
	const node: INode = {
		id: '1',
		name: 'Conversational Messaging',
		type: 'conversationalMessagingTool',
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INodeParameters,
	};
	const tool = createNodeAsTool({ node, nodeType, handleToolInvocation: async () => '' }).response;
	return (
		convertToOpenAITool(tool).function.parameters as {
			properties: Record<string, { description?: string }>;
		}
	).properties;
}

function subtitleOf(resource: string, operation: string): unknown {
	const node: INode = {
		id: '1',
		name: 'Conversational Messaging',
		type: 'conversationalMessaging',
		typeVersion: 1,
		position: [0, 0],
		parameters: form({ resource, operation }).values,
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	// As the editor's getNodeSubtitle (n8n-editor-ui workflows.store chunk) evaluates it.
	return workflow.expression.getSimpleParameterValue(node, description.subtitle, 'internal', {});
}

describe('the whole description, form by form', () => {
	it('walks every operation and every form variant', () =>
		expect(VARIANTS.length).toBeGreaterThan(PAIRS.length));

	it('never shows two fields with one display name in a form, nor inside one collection', () => {
		const clashes = VARIANTS.flatMap(({ label, shown }) => [
			...repeated(shown.map((property) => property.displayName)).map(
				(name) => `${label}: "${name}"`,
			),
			...shown.flatMap((property) => innerRepeats(property)).map((where) => `${label}: ${where}`),
		]);
		expect(clashes).toEqual([]);
	});

	it('declares no parameter other than Operation twice with another type or default', () => {
		const byName = new Map<string, INodeProperties[]>();
		for (const property of properties.filter((p) => p.name !== 'operation'))
			byName.set(property.name, [...(byName.get(property.name) ?? []), property]);
		const flipping = [...byName].filter(([, declared]) =>
			declared.some(
				(property) =>
					property.type !== declared[0].type ||
					!isDeepStrictEqual(property.default, declared[0].default),
			),
		);
		expect(
			flipping.map(
				([name, declared]) =>
					`${name}: ${declared.map((property) => `${property.type}=${JSON.stringify(property.default)}`).join(' / ')}`,
			),
		).toEqual([]);
	});

	it('says in Send and Wait that it asks one question per execution, with Loop Over Items', () => {
		const missing = variants('messaging', 'sendAndWait').filter(
			({ shown }) =>
				!shown.some(
					(property) =>
						property.type === 'notice' &&
						/one question per execution/i.test(property.displayName) &&
						property.displayName.includes('Loop Over Items'),
				),
		);
		expect(missing.map(({ label }) => label)).toEqual([]);
	});

	it("keeps that notice out of n8n's tool variants, where a call is one item", () => {
		const tool = { ...description, name: `${description.name}HitlTool` };
		const { values } = form({ resource: 'messaging', operation: 'sendAndWait' });
		const notices = properties.filter(
			(property) =>
				property.type === 'notice' && NodeHelpers.displayParameter(values, property, VERSION, tool),
		);
		expect(notices.map((notice) => notice.name)).toEqual([]);
	});

	it('says what to enter as Contact Phone when Inject CRM Lead goes to the socialnet messenger', () => {
		const { shown } = form({
			resource: 'messaging',
			operation: 'injectCrmLead',
			channel: 'sn-messenger',
		});
		expect(
			shown.filter((property) => property.type === 'notice').map((notice) => notice.displayName),
		).toContainEqual(expect.stringMatching(/contact(?:'s)? phone/i));
	});

	it('says how Batching and Max Requests in Flight combine, in both fields', () => {
		const fields = [...allFields(properties)];
		const batchSize = fields
			.filter(([path]) => path === 'requestOptions.batching.batch.batchSize')
			.map(([, field]) => field.description);
		const maxInFlight = fields
			.filter(([path]) => /SendOptions\.maxInFlight$/.test(path))
			.map(([path, field]) => `${path}: ${field.description}`);
		expect(batchSize).toEqual([expect.stringContaining('Max Requests in Flight')]);
		expect(maxInFlight.length).toBeGreaterThan(0);
		expect(maxInFlight.filter((text) => !text.includes('Batching'))).toEqual([]);
	});

	it('gives a subtitle in words, never a raw operation value', () => {
		const raw = PAIRS.map(({ resource, operation }) => ({
			resource,
			operation,
			subtitle: subtitleOf(resource, operation),
		})).filter(
			({ resource, operation, subtitle }) =>
				typeof subtitle !== 'string' ||
				!subtitle.trim() ||
				new RegExp(`\\b${operation}\\b`).test(subtitle) ||
				(/[A-Z]/.test(resource) && subtitle.includes(resource)),
		);
		expect(
			raw.map(
				({ resource, operation, subtitle }) =>
					`${resource} > ${operation}: ${JSON.stringify(subtitle)}`,
			),
		).toEqual([]);
	});

	it('calls one field at most "Channel" in a resource', () => {
		const several = RESOURCES.map((resource) => ({
			resource,
			names: [
				...new Set(
					properties
						.filter(
							(p) =>
								p.displayName === 'Channel' && showsFor(p.displayOptions?.show?.resource, resource),
						)
						.map((p) => p.name),
				),
			],
		})).filter(({ names }) => names.length > 1);
		expect(several.map(({ resource, names }) => `${resource}: ${names.join(', ')}`)).toEqual([]);
	});

	it('presents as required what the node refuses empty: a required list starts with one entry, its own fields marked', () => {
		// n8n marks a required field with an asterisk, but not a fixed collection: one left empty by
		// default would look optional and be refused on execute ("Files is required").
		const unmarked = VARIANTS.flatMap(({ label, shown }) =>
			shown
				.filter(
					(property) =>
						property.type === 'fixedCollection' &&
						property.required === true &&
						!Object.values((property.default ?? {}) as IDataObject).some(
							(entries) => ([] as unknown[]).concat(entries ?? []).length > 0,
						),
				)
				.map((property) => `${label}: ${property.displayName}`),
		);
		expect(unmarked).toEqual([]);
	});

	it('describes every collection, and every option of a list, for the user and for AI builders', () => {
		const missing = [...allFields(properties)].flatMap(([path, field]) => [
			...(['collection', 'fixedCollection'].includes(field.type) && !field.description
				? [`${path} ("${field.displayName}")`]
				: []),
			...(['options', 'multiOptions'].includes(field.type)
				? ((field.options ?? []) as INodePropertyOptions[])
						.filter((option) => !option.description)
						.map((option) => `${path}: "${option.name}"`)
				: []),
		]);
		expect([...new Set(missing)]).toEqual([]);
	});

	it("lists the node setting Default Country's choices when opened: From Credential, None, every country by name", async () => {
		const setting = properties.find((property) => property.name === 'defaultCountry');
		const method = setting?.typeOptions?.loadOptionsMethod as string;
		const loaders: Record<string, (this: never) => Promise<INodePropertyOptions[]>> =
			nodeType.methods.loadOptions;
		const load = loaders[method];
		const choices = (await load?.call({} as never)) ?? [];
		expect(choices.slice(0, 2)).toEqual([
			{ name: 'From Credential', value: '' },
			{ name: 'None (First Digits Are the Country Code)', value: 'none' },
		]);
		expect(choices).toHaveLength(2 + 245);
		expect(choices).toContainEqual({ name: 'Colombia (+57)', value: 'CO' });
		expect(setting?.default).toBe('');
	});

	it('describes every operation and every field', () => {
		const operations = PAIRS.filter(({ option }) => !option.description?.trim()).map(
			({ resource, operation }) => `operation ${resource} > ${operation}`,
		);
		// The selectors' options carry their descriptions; notices and hidden fields are not filled in;
		// a collection is a container (Additional Fields, Options), as in n8n's own nodes: its fields are described.
		const fields = [...allFields(properties)]
			.filter(
				([, field]) =>
					!['resource', 'operation'].includes(field.name) &&
					!['notice', 'hidden', 'collection', 'fixedCollection'].includes(field.type) &&
					!field.description?.trim(),
			)
			.map(([path, field]) => `${path} ("${field.displayName}")`);
		expect([...operations, ...new Set(fields)]).toEqual([]);
	});

	describe.each(['sendSms', 'injectCrmLead', 'sendAndWait'])(
		'as an AI tool, messaging > %s',
		(operation) => {
			it('gives the model one key per field it fills in, each a described field', () => {
				const problems = variants('messaging', operation).flatMap(({ label, values, shown }) => {
					const keys: string[] = [];
					const filled: INodeProperties[] = [];
					const schema = toolSchema(leftToModel(shown, values as IDataObject, [], keys, filled));
					return [
						...repeated(keys).map((key) => `${label}: two fields share the key ${key}`),
						...Object.keys(schema)
							.filter((key) => !keys.includes(key))
							.map((key) => `${label}: ${key} is no field's key`),
						...filled
							.filter((field) => !field.description?.trim())
							.map(
								(field) => `${label}: "${field.displayName}" has no description to give the model`,
							),
						// n8n 2.41 describes a key only with the override's text: when this fails, n8n gives more, and the README's "As an AI tool" should say so.
						...Object.entries(schema)
							.filter(([, property]) => property.description)
							.map(([key]) => `${label}: n8n now describes ${key}`),
					];
				});
				expect(problems).toEqual([]);
			});
		},
	);
});
