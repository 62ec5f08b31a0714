/**
 * Bad input, property-based (fast-check): every field the node normalises or checks, and
 * expressions of the wrong type in the main fields of every operation. Each value must give either
 * a request the contract accepts or a NodeOperationError whose message starts with the field's
 * label: never a crash, never a request the service rejects.
 *
 * The field's own pre-send hooks (as the node declares them) run thousands of times in-process;
 * a few hundred values per field then go through n8n's engine to the sandbox, as the items of one
 * continue-on-fail execution.
 */
import fc from 'fast-check';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	INodeParameters,
} from 'n8n-workflow';
import { NodeHelpers, NodeOperationError } from 'n8n-workflow';

import { RESEARCHER_FILE_TYPES } from '../../nodes/ConversationalMessaging/resources/researcher/files';
import { RESEARCHER_READABLE_FIELDS } from '../../nodes/ConversationalMessaging/resources/researcher/get';
import type { OperationId } from '../../sandbox/server';
import { loadContract } from '../../sandbox/server';
import type { Check } from '../../nodes/ConversationalMessaging/checks/checks';
import { RESOURCES } from '../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import { allFields } from '../../nodes/ConversationalMessaging/form/operations';
import { loadNodeType, NODE_TYPE } from '../helpers/engine';
import { useSandbox } from '../helpers/sandbox';
import { OPERATIONS, withParameter } from './operations';
import type { InputRow, WrongTypeRow } from './results';
import { collectResults } from './results';

const PURE_CASES = 2000;
const ENGINE_CASES = 200;
const SEED = 20240601;

const suite = useSandbox();
const { results, save } = collectResults('bad-input');
const inputRows: InputRow[] = (results.inputs = []);
const wrongTypeRows: WrongTypeRow[] = (results.wrongTypes = []);
afterAll(save);

const mapped = '={{ $json.value }}';

/** Values of every JSON type but the expected one, and undefined (a missing key). */
const anyType = fc.oneof(
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.constant(undefined),
	fc.array(fc.string(), { maxLength: 3 }),
	// Items are JSON: their objects have a prototype.
	fc.dictionary(fc.string(), fc.string(), { maxKeys: 2, noNullPrototype: true }),
);
const digits = fc.stringMatching(/^[0-9]{1,4}$/);
const phoneLike = fc
	.tuple(
		fc.constantFrom('', '+', '00', '0', '+0', ' '),
		fc.array(fc.tuple(digits, fc.constantFrom('', ' ', '-', '.', '(', ')', '/')), {
			minLength: 2,
			maxLength: 5,
		}),
	)
	.map(([prefix, parts]) => prefix + parts.map(([part, separator]) => part + separator).join(''));
const phone = fc.oneof(
	{ weight: 4, arbitrary: phoneLike },
	fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
	fc.string(),
	anyType,
);
const url = fc.oneof(
	{ weight: 3, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
	fc
		.tuple(fc.webUrl(), fc.string({ maxLength: 3 }))
		.map(([address, inserted]) => address.replace('/', `/${inserted}`)),
	fc
		.tuple(
			fc.constantFrom(
				'http:/',
				'https:',
				'HTTPS://',
				'ftp://',
				'javascript:',
				' https://',
				'http://',
			),
			fc.domain(),
		)
		.map(([scheme, host]) => scheme + host),
	fc.string(),
	anyType,
);
const decimal = fc.oneof(
	fc.double(),
	fc.double({ min: -200, max: 200 }).map(String),
	fc.constantFrom('1e2', ' 45.5 ', '0x1F', 'Infinity', '-0', ''),
	fc.string(),
	anyType,
);
const textList = fc.oneof(
	fc.array(
		fc.oneof(
			fc.string(),
			fc.integer(),
			fc.double(),
			fc.boolean(),
			fc.constant(null),
			fc.array(fc.string(), { maxLength: 2 }),
		),
		{ maxLength: 4 },
	),
	fc.array(fc.string(), { maxLength: 4 }).map((entries) => entries.join(',')),
	fc.string(),
	anyType,
);
const file = fc.record(
	{
		url: fc.oneof({ weight: 6, arbitrary: fc.webUrl() }, fc.string(), anyType),
		name: fc.oneof(
			{ weight: 6, arbitrary: fc.string({ minLength: 1 }) },
			fc.constant(' '),
			anyType,
		),
		type: fc.oneof(
			{ weight: 6, arbitrary: fc.constantFrom(...RESEARCHER_FILE_TYPES) },
			fc.string(),
			anyType,
		),
	},
	{ requiredKeys: [] },
);

interface FieldCase {
	field: string;
	/** What an error message may start with: the field's label (and those of fields it fills). */
	labels: string[];
	resource: string;
	operation: string;
	/** Parameters whose pre-send hooks apply, by name. */
	parameters: string[];
	/** Where the value goes in the request. */
	path: string;
	/** A request the contract accepts, which the value goes into. */
	request: {
		operationId: OperationId;
		method: IHttpRequestMethods;
		path: string;
		body?: IDataObject;
		qs?: IDataObject;
	};
	pure: fc.Arbitrary<unknown>;
	/** Parameters of the engine run, the value mapped from `$json.value`, and the values to map. */
	engine: { parameters: INodeParameters; values: fc.Arbitrary<unknown> };
}

const sms = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '573001234567',
	instance: 'line-1',
	message: 'Hi',
};
const smsRequest = {
	operationId: 'smsSend',
	method: 'POST',
	path: '/v1/sms',
	body: { type: 'text', to: '573001234567', instance: 'line-1', body: 'Hi' },
} as const;
const crm = {
	resource: 'messaging',
	operation: 'injectCrmLead',
	contactPhone: '573001234567',
	instance: 'line-1',
	leadMessage: 'Lead',
	channel: 'chatapp',
};
const crmRequest = {
	operationId: 'crmLeadInject',
	method: 'POST',
	path: '/v1/crm',
	body: { to: '573001234567@c.us', instance: 'line-1', text: 'Lead', channel: 'chatapp' },
} as const;
const location = {
	resource: 'legacyMessage',
	operation: 'send',
	messageType: 'location',
	recipient: '573001234567',
	legacyInstance: 'qr-1',
	locationText: 'Shop',
	latitude: 4.7,
	longitude: -74,
};
const locationRequest = {
	operationId: 'legacyMessageSend',
	method: 'POST',
	path: '/v1/msg-wh',
	body: {
		type: 'location',
		to: '573001234567',
		instance: 'qr-1',
		body: 'Shop',
		lat: '4.7',
		lng: '-74',
	},
} as const;
const { name: productName, ...product } = {
	name: 'Mug',
	price: 4.5,
	code: 'M-1',
	description: 'A mug',
	descriptionai: 'Ceramic',
	category: 'cups',
};
const productBody = { name: productName, ...product, category: ['cups'] };
const productCreate = { resource: 'product', operation: 'create', productName, ...product };
const productCreateRequest = {
	operationId: 'productCreate',
	method: 'POST',
	path: '/v1/shop/products',
	body: productBody,
} as const;
const productUpdate = {
	resource: 'product',
	operation: 'update',
	productId: 'product-1',
	productName,
	...product,
	image: 'https://cdn.example.com/m.png',
	status: 1,
};
const productUpdateRequest = {
	operationId: 'productUpdate',
	method: 'PUT',
	path: '/v1/shop/products/product-1',
	body: { ...productBody, image: 'https://cdn.example.com/m.png', status: 1 },
} as const;
const researcherCreate = {
	resource: 'researcher',
	operation: 'create',
	researcherName: 'Scan',
	researcherDescription: 'Prices',
	model: 'fast',
	policyId: 'policy-1',
	files: { file: [{ url: 'https://example.com/a.pdf', name: 'A', type: 'document' }] },
};

const FIELDS: FieldCase[] = [
	{
		field: 'Recipient Phone (phone, Send SMS)',
		labels: ['Recipient Phone'],
		resource: 'messaging',
		operation: 'sendSms',
		parameters: ['to'],
		path: 'body.to',
		request: smsRequest,
		pure: phone,
		engine: { parameters: { ...sms, to: mapped }, values: phone },
	},
	{
		field: 'Contact Phone (CRM id, Inject CRM Lead)',
		labels: ['Contact Phone'],
		resource: 'messaging',
		operation: 'injectCrmLead',
		parameters: ['contactPhone'],
		path: 'body.to',
		request: crmRequest,
		pure: fc.oneof(
			fc
				.tuple(
					phoneLike,
					fc.constantFrom('', '@c.us', '@C.US', ' @c.us', '@c.us@c.us', '@s.example'),
				)
				.map(([number, suffix]) => number + suffix),
			phone,
		),
		engine: {
			parameters: { ...crm, contactPhone: mapped },
			values: fc
				.tuple(phoneLike, fc.constantFrom('', '@c.us', '@C.US'))
				.map(([number, suffix]) => number + suffix),
		},
	},
	{
		field: 'Long URL (URL, Short Link Create)',
		labels: ['Long URL'],
		resource: 'shortLink',
		operation: 'create',
		parameters: ['longUrl'],
		path: 'body.longUrl',
		request: {
			operationId: 'shortLinkCreate',
			method: 'POST',
			path: '/v1/short',
			body: { longUrl: 'https://example.com' },
		},
		pure: url,
		engine: {
			parameters: { resource: 'shortLink', operation: 'create', longUrl: mapped },
			values: url,
		},
	},
	{
		field: 'Latitude (coordinate, Legacy Send location)',
		labels: ['Latitude'],
		resource: 'legacyMessage',
		operation: 'send',
		parameters: ['latitude'],
		path: 'body.lat',
		request: locationRequest,
		pure: decimal,
		engine: { parameters: { ...location, latitude: mapped }, values: decimal },
	},
	{
		field: 'Longitude (coordinate, Legacy Send location)',
		labels: ['Longitude'],
		resource: 'legacyMessage',
		operation: 'send',
		parameters: ['longitude'],
		path: 'body.lng',
		request: locationRequest,
		pure: decimal,
		engine: { parameters: { ...location, longitude: mapped }, values: decimal },
	},
	{
		field: 'Price (number, Product Create)',
		labels: ['Price'],
		resource: 'product',
		operation: 'create',
		parameters: ['price'],
		path: 'body.price',
		request: productCreateRequest,
		pure: decimal,
		engine: { parameters: { ...productCreate, price: mapped }, values: decimal },
	},
	{
		field: 'Status (integer, Product Update)',
		labels: ['Status'],
		resource: 'product',
		operation: 'update',
		parameters: ['status'],
		path: 'body.status',
		request: productUpdateRequest,
		pure: fc.oneof(fc.integer(), fc.integer().map(String), decimal),
		engine: {
			parameters: { ...productUpdate, status: mapped },
			values: fc.oneof(fc.integer(), decimal),
		},
	},
	{
		field: 'Tags (list, Inject CRM Lead)',
		labels: ['Tags'],
		resource: 'messaging',
		operation: 'injectCrmLead',
		parameters: ['tags'],
		path: 'body.tags',
		request: crmRequest,
		pure: textList,
		engine: { parameters: { ...crm, leadFields: { tags: mapped } }, values: textList },
	},
	{
		field: 'Categories (list, Product Create)',
		labels: ['Categories'],
		resource: 'product',
		operation: 'create',
		parameters: ['category'],
		path: 'body.category',
		request: productCreateRequest,
		pure: textList,
		engine: { parameters: { ...productCreate, category: mapped }, values: textList },
	},
	{
		field: 'Files (researcher files, Add Files)',
		labels: ['Files'],
		resource: 'researcher',
		operation: 'addFiles',
		parameters: ['filesToAdd'],
		path: 'body.files',
		request: {
			operationId: 'researcherAddFiles',
			method: 'PATCH',
			path: '/v1/researcher/researcher-1',
			body: { files: [] },
		},
		pure: fc.oneof({ weight: 4, arbitrary: fc.array(file, { maxLength: 3 }) }, anyType),
		engine: {
			parameters: {
				resource: 'researcher',
				operation: 'addFiles',
				researcherId: 'researcher-1',
				filesToAdd: {
					file: [
						{
							url: '={{ $json.value.url }}',
							name: '={{ $json.value.name }}',
							type: '={{ $json.value.type }}',
						},
					],
				},
			},
			values: file,
		},
	},
	{
		field: 'Email (Agent Create)',
		labels: ['Email'],
		resource: 'agent',
		operation: 'create',
		parameters: ['email'],
		path: 'body.email',
		request: {
			operationId: 'agentCreate',
			method: 'POST',
			path: '/v1/agent',
			body: { name: 'Ana', phone: '573001234567', email: 'a@example.com' },
		},
		pure: fc.oneof(
			fc.emailAddress(),
			fc.emailAddress().map((address) => ` ${address.replace('@', ' @')}`),
			fc.string(),
			anyType,
		),
		engine: {
			parameters: {
				resource: 'agent',
				operation: 'create',
				agentName: 'Ana',
				agentPhone: '573001234567',
				email: mapped,
			},
			values: fc.oneof(fc.emailAddress(), fc.string(), anyType),
		},
	},
	{
		field: 'Fields (multi-select, Researcher Get)',
		labels: ['Fields'],
		resource: 'researcher',
		operation: 'get',
		parameters: ['fields'],
		path: 'qs.fields',
		request: {
			operationId: 'researcherGet',
			method: 'GET',
			path: '/v1/researcher/researcher-1',
			qs: {},
		},
		pure: fc.oneof(
			fc.array(fc.oneof(fc.constantFrom(...RESEARCHER_READABLE_FIELDS), fc.string()), {
				maxLength: 4,
			}),
			fc
				.array(fc.constantFrom(...RESEARCHER_READABLE_FIELDS), { maxLength: 4 })
				.map((names) => names.join(',')),
			anyType,
		),
		engine: {
			parameters: {
				resource: 'researcher',
				operation: 'get',
				researcherId: 'researcher-1',
				fields: mapped,
			},
			values: fc.oneof(
				fc.array(fc.oneof(fc.constantFrom(...RESEARCHER_READABLE_FIELDS), fc.string()), {
					maxLength: 3,
				}),
				anyType,
			),
		},
	},
	{
		field: 'Instance (free text, Send SMS)',
		labels: ['Instance'],
		resource: 'messaging',
		operation: 'sendSms',
		parameters: ['instance'],
		path: 'body.instance',
		request: smsRequest,
		pure: fc.oneof(fc.string({ unit: 'grapheme' }), anyType),
		engine: {
			parameters: { ...sms, instance: mapped },
			values: fc.oneof(fc.string({ unit: 'grapheme' }), anyType),
		},
	},
	{
		field: 'Model (option, Researcher Create)',
		labels: ['Model'],
		resource: 'researcher',
		operation: 'create',
		parameters: ['model'],
		path: 'body.model',
		request: {
			operationId: 'researcherCreate',
			method: 'POST',
			path: '/v1/researcher',
			body: {
				name: 'Scan',
				description: 'Prices',
				model: 'fast',
				type: 'policy-1',
				files: [{ url: 'https://example.com/a.pdf', name: 'A', type: 'document' }],
			},
		},
		pure: fc.oneof(fc.constantFrom('fast', 'balance', 'analytics'), fc.string(), anyType),
		engine: {
			parameters: { ...researcherCreate, model: mapped },
			values: fc.oneof(fc.constantFrom('fast', 'balance', 'analytics'), fc.string(), anyType),
		},
	},
	{
		field: 'Contact values (JSON, Contact Add to List)',
		labels: ['Phone', 'Name', 'Extra Values'],
		resource: 'contact',
		operation: 'add',
		parameters: ['phone', 'contactName'],
		path: 'body.values',
		request: {
			operationId: 'contactAdd',
			method: 'POST',
			path: '/v1/contact',
			body: { idList: 'list-2', values: {} },
		},
		// The node always builds `values` as an object, from Phone, Name and the extra values.
		pure: fc.dictionary(
			fc.oneof(fc.constantFrom('phone', 'name', 'city'), fc.string()),
			fc.jsonValue({ maxDepth: 2 }),
			{ maxKeys: 4, noNullPrototype: true },
		),
		engine: {
			parameters: {
				resource: 'contact',
				operation: 'add',
				listId: 'list-2',
				phone: '',
				contactName: '',
				contactFields: {
					extraValues: {
						value: [{ key: '={{ $json.value.key }}', value: '={{ $json.value.value }}' }],
					},
				},
			},
			values: fc.record({
				key: fc.oneof(fc.constantFrom('phone', 'name', 'city'), fc.string()),
				value: fc.jsonValue({ maxDepth: 2 }),
			}),
		},
	},
];

const nodeProperties = loadNodeType().description.properties;

/** The checks a request of the operation runs for these parameters: its own, then its fields', from its spec. */
function hooksFor({ resource, operation, parameters }: FieldCase): Check[] {
	const spec = RESOURCES.find(({ value }) => value === resource)?.operations.find(
		({ value }) => value === operation,
	);
	if (!spec || spec.sends === 'custom') throw new Error(`no spec for ${resource} ${operation}`);
	const fields = allFields(spec.fields);
	const hooks = parameters.map((name) => fields.find((field) => field.name === name)?.sent?.checks);
	if (hooks.some((list) => !list))
		throw new Error(`no checks for ${parameters.join(', ')} of ${resource} ${operation}`);
	return [...(spec.preSend ?? []), ...(hooks as Check[][]).flat()];
}

const node: INode = {
	id: 'node',
	name: 'Conversational Messaging',
	type: NODE_TYPE,
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
// What the hooks ask of n8n; no parameter is set beyond the request under test.
const context = {
	getNode: () => node,
	getItemIndex: () => 0,
	getNodeParameter: (_name: string, fallback: unknown) => fallback,
	// A workflow in UTC, a zone of no country: no number is read as dialled in one.
	getTimezone: () => 'UTC',
	continueOnFail: () => false,
	// A credential without a Default Country: numbers must start with their country code.
	getCredentials: async () => ({}),
} as unknown as IExecuteSingleFunctions;

type Outcome = 'accepted' | 'refused';

/** Runs the hooks on a request holding the value: refused by name, or a request the contract accepts; anything else throws. */
async function judge(field: FieldCase, hooks: Check[], value: unknown): Promise<Outcome> {
	const { api } = await loadContract();
	const { request } = field;
	const options: IHttpRequestOptions = {
		method: request.method,
		url: request.path,
		body: structuredClone(request.body),
		qs: structuredClone(request.qs),
	};
	const [place, ...keys] = field.path.split('.');
	const target = (place === 'qs' ? options.qs : options.body) as IDataObject;
	target[keys.join('.')] = value as IDataObject[string];
	try {
		for (const hook of hooks) await hook(options, context);
	} catch (error) {
		if (
			error instanceof NodeOperationError &&
			field.labels.some((label) => error.message.startsWith(label))
		)
			return 'refused';
		throw new Error(`${JSON.stringify(value)} crashed the checks: ${error}`);
	}
	// As it would travel: JSON drops undefined.
	const body =
		options.body === undefined
			? undefined
			: JSON.parse(JSON.stringify({ ...(options.body as IDataObject), token: 't' }));
	const query = { ...(options.qs ?? {}), ...(request.method === 'GET' ? { token: 't' } : {}) };
	const validation = api.validator.validateRequest(
		{
			method: request.method,
			path: request.path,
			query: JSON.parse(JSON.stringify(query)),
			headers: { 'content-type': 'application/json' },
			body,
		},
		request.operationId,
	);
	if (!validation.valid)
		throw new Error(
			`${JSON.stringify(value)} gave a request the contract rejects: ${JSON.stringify(validation.errors)}`,
		);
	return 'accepted';
}

describe('bad input, property-based', () => {
	it.each(FIELDS)(
		'$field: refused by name or sent as the contract wants, never a crash',
		async (field) => {
			const hooks = hooksFor(field);
			const pure = { accepted: 0, refused: 0 };
			await fc.assert(
				fc.asyncProperty(field.pure, async (value) => {
					pure[await judge(field, hooks, value)]++;
				}),
				{ numRuns: PURE_CASES, seed: SEED },
			);

			const values = fc.sample(field.engine.values, { numRuns: ENGINE_CASES, seed: SEED });
			const run = await suite.run(field.engine.parameters, {
				items: values.map((value) => ({ value }) as IDataObject),
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			expect(run.items.map((item) => item.pairedItem)).toEqual(values.map((_, item) => ({ item })));
			const refused = run.items.filter((item) => item.json.error !== undefined);
			const strays = refused.filter(
				(item) =>
					item.error?.name !== 'NodeOperationError' ||
					!field.labels.some((label) => item.error?.message.startsWith(label)),
			);
			expect(strays.map((item) => item.error?.message)).toEqual([]);
			expect(
				run.requests.filter((request) => !request.valid).map((request) => request.errors),
			).toEqual([]);
			expect(run.requests).toHaveLength(values.length - refused.length);

			inputRows.push(
				{
					field: field.field,
					where: 'pure',
					cases: PURE_CASES,
					accepted: pure.accepted,
					refusedByName: pure.refused,
					requests: 0,
					crashes: 0,
					rejectedByContract: 0,
				},
				{
					field: field.field,
					where: 'engine',
					cases: values.length,
					accepted: values.length - refused.length,
					refusedByName: refused.length,
					requests: run.requests.length,
					crashes: 0,
					rejectedByContract: 0,
				},
			);
			process.stdout.write(
				`bad input: ${field.field}: ${PURE_CASES} in-process (${pure.accepted} accepted, ${pure.refused} refused by name), ` +
					`${values.length} through the engine (${run.requests.length} sent, ${refused.length} refused by name); 0 crashes, 0 rejected by the contract\n`,
			);
		},
	);
});

/** An expression of each wrong type, one item each: a number, a fraction, a boolean, a list, an object, null, nothing. */
const WRONG_TYPES: unknown[] = [42, 4.5, true, ['a', 'b'], { a: 1 }, null, undefined];
/** Fields that take no expression in the editor (they decide which other fields are shown). */
const FIXED = new Set(
	nodeProperties.filter((property) => property.noDataExpression).map((property) => property.name),
);
const WRONG_TYPE_CASES = OPERATIONS.flatMap((operation) =>
	Object.entries(operation.mainFields)
		.filter(([path]) => !FIXED.has(path))
		.map(([path, label]) => ({ name: `${operation.operationId} ${path}`, operation, path, label })),
);

describe('expressions of the wrong type in the main fields', () => {
	it('names main fields each operation shows (a renamed field would be tested nowhere)', () => {
		const hidden = OPERATIONS.flatMap((operation) =>
			Object.keys(operation.mainFields)
				.filter(
					(name) =>
						!nodeProperties.some(
							(property) =>
								property.name === name.split('.')[0] &&
								NodeHelpers.displayParameter(operation.parameters, property, null, null),
						),
				)
				.map((name) => `${operation.operationId} ${name}`),
		);
		expect(hidden).toEqual([]);
	});

	it.each(WRONG_TYPE_CASES)(
		'$name: refused by name or sent as the contract wants',
		async ({ operation, path, label }) => {
			operation.prepare?.(suite.sandbox);
			const run = await suite.run(withParameter(operation.parameters, path, mapped), {
				items: WRONG_TYPES.map((value) => ({ value }) as IDataObject),
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			const failed = run.items.filter((item) => item.json.error !== undefined);
			// A valid request can still name a record that does not exist (an id of 42).
			const strays = failed.filter(
				(item) =>
					!item.error?.message.startsWith(label) &&
					!item.error?.message.startsWith('The service answered 404'),
			);
			expect(strays.map((item) => item.error?.message)).toEqual([]);
			const invalid = run.requests.filter((request) => !request.valid);
			expect(invalid.map((request) => request.errors)).toEqual([]);
			const inputsAnswered = new Set(
				run.items.map((item) => (item.pairedItem as { item: number }).item),
			);
			expect(inputsAnswered.size).toBe(WRONG_TYPES.length);
			wrongTypeRows.push({
				operation: operation.operationId,
				field: label,
				itemsIn: WRONG_TYPES.length,
				refusedByName: failed.filter((item) => item.error?.message.startsWith(label)).length,
				sent: run.requests.length,
				invalidRequests: invalid.length,
			});
		},
	);

	afterAll(() => {
		const sum = (key: 'itemsIn' | 'refusedByName' | 'sent' | 'invalidRequests') =>
			wrongTypeRows.reduce((total, row) => total + row[key], 0);
		process.stdout.write(
			`wrong types: ${wrongTypeRows.length} main fields × ${WRONG_TYPES.length} values: ${sum('itemsIn')} items, ` +
				`${sum('sent')} sent (all valid), ${sum('refusedByName')} refused by name, ${sum('invalidRequests')} invalid requests\n`,
		);
	});
});
