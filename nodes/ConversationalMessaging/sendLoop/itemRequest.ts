import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { deepCopy, NodeHelpers } from 'n8n-workflow';

import type { Check, ItemContext } from '../checks/checks';
import { setPath } from '../checks/checks';
import type { PhoneReading } from '../checks/phone/reading';
import type { SmsReading } from '../checks/sms';
import { expressionMayRead } from '../n8nInternals';
import type { AnswerReader } from '../service/envelope';
import { clock } from '../clock';

/** A field whose value the request carries. */
export interface SentField {
	/** Its path among the node's parameters (`leadFields.tags`). */
	parameter: string;
	/** Where the value goes: `body` or `qs`, then the keys under it. */
	to: string[];
	/** A resource locator: its value is read as n8n extracts it, whichever the mode. */
	locator: boolean;
}

/**
 * One operation's request: method, URL, constant body, each shown field's place, the checks in the
 * description's order, the envelope reader. The only parts of `routing` the node's builders write
 * for the operations the engine runs (description.test.ts keeps it so).
 */
export interface RequestForm {
	method: IHttpRequestMethods;
	url: string;
	body: IDataObject;
	fields: SentField[];
	checks: Check[];
	postReceive: AnswerReader[];
}

type Shown = INodeProperties | INodePropertyOptions;

/** The request form of the operation the parameters select, with the fields they show. */
export function requestForm(description: INodeTypeDescription, node: INode): RequestForm {
	const { parameters } = node;
	const form: RequestForm = {
		method: 'GET',
		url: '',
		body: {},
		fields: [],
		checks: [],
		postReceive: [],
	};
	const visit = (property: Shown, prefix: string, value: unknown) => {
		const routing = property.routing;
		const path = prefix + property.name;
		if ('type' in property && routing?.send?.property !== undefined)
			form.fields.push({
				parameter: path,
				to: [routing.send.type === 'body' ? 'body' : 'qs', ...routing.send.property.split('.')],
				locator: property.type === 'resourceLocator',
			});
		if (routing?.request) {
			form.method = routing.request.method ?? form.method;
			form.url = routing.request.url ?? form.url;
			form.body = (routing.request.body as IDataObject | undefined) ?? form.body;
		}
		// Written by the node's builders alone, which take only hooks that need no more than the
		// item's context (checks.ts, envelope.ts); description.test.ts keeps it so.
		form.checks.push(...((routing?.send?.preSend ?? []) as Check[]));
		form.postReceive.push(...((routing?.output?.postReceive ?? []) as AnswerReader[]));
		if (!('type' in property)) return;
		// The selected option (the operation), or the entries set in a collection.
		if (property.type === 'options')
			for (const option of (property.options ?? []) as INodePropertyOptions[])
				if (option.value === value) visit(option, `${path}.`, undefined);
		if (property.type === 'collection')
			for (const option of (property.options ?? []) as INodeProperties[])
				if (value && typeof value === 'object' && option.name in value)
					visit(option, `${path}.`, (value as IDataObject)[option.name]);
	};
	for (const property of description.properties)
		if (NodeHelpers.displayParameter(parameters, property, node, description, parameters))
			visit(property, '', parameters[property.name]);
	return form;
}

/**
 * The item's request, then its checks in order (they may normalise values, or fail the item), and
 * how they read its phone number and its SMS text, if one did (for the output and the run's hints).
 */
export async function buildRequest(
	item: ItemContext,
	form: RequestForm,
	defaults: INodeTypeDescription['requestDefaults'],
	values: unknown[],
	settings: Partial<IHttpRequestOptions> = {},
): Promise<{ request: IHttpRequestOptions; phone?: PhoneReading; sms?: SmsReading }> {
	let phone: PhoneReading | undefined;
	let sms: SmsReading | undefined;
	const checked: ItemContext = {
		...item,
		phoneRead: (reading) => (phone = reading),
		smsRead: (reading) => (sms = reading),
	};
	let request: IHttpRequestOptions = {
		...(defaults as Partial<IHttpRequestOptions>),
		...settings,
		headers: { ...defaults?.headers },
		method: form.method,
		url: form.url,
		qs: {},
		body: deepCopy(form.body),
	};
	form.fields.forEach((field, index) => setPath(request, field.to, values[index]));
	for (const check of form.checks) request = await check.call(checked, request);
	return { request, phone, sms };
}

/** The answer as items, through the form's envelope reader. */
export async function readAnswer(
	item: ItemContext,
	form: RequestForm,
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
	for (const action of form.postReceive) items = await action.call(item, items, response);
	return items;
}

/** A field's value as RoutingNode reads it: a resource locator's value extracted. */
export const readField = (
	fns: IExecuteFunctions,
	{ parameter, locator }: SentField,
	itemIndex: number,
): unknown =>
	fns.getNodeParameter(
		parameter,
		itemIndex,
		undefined,
		locator ? { extractValue: true } : undefined,
	);

/** Items read together. */
const CHUNK = 100;
/** How many items the loop reads beyond those whose requests are in flight. */
export const READ_AHEAD = 2 * CHUNK;

/** An item's values, in the order of the plan's fields, or its own error (a failed expression). */
export type Reading = { values: unknown[] } | { error: unknown };

/** `{{ $json.a.b }}`, `{{ $json['first name'] }}`: keys by name or in quotes. */
const JSON_READ =
	/\{\{\s*\$json((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\s*(?:'[^'\\{}]*'|"[^"\\{}]*")\s*\])+)\s*\}\}/g;
const KEY = /\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(?:'([^']*)'|"([^"]*)")\s*\]/g;

/** A field's value as text and item paths: `=Hi {{ $json.name }}!` is `['Hi ', ['name'], '!']`. */
type Template = Array<string | string[]>;

/**
 * The template a field's raw value is when every `{{ }}` in it only reads the item (keys n8n lets
 * an expression read: ../n8nInternals.ts) and its text holds no brace or backslash (which n8n's
 * template syntax gives meanings); else undefined, and n8n evaluates the value.
 */
function templateOf(raw: unknown): Template | undefined {
	if (typeof raw !== 'string' || !raw.startsWith('=')) return undefined;
	const template: Template = [];
	let end = 1;
	for (const read of raw.matchAll(JSON_READ)) {
		const path = [...read[1].matchAll(KEY)].map((key) => key[1] ?? key[2] ?? key[3]);
		template.push(raw.slice(end, read.index), path);
		end = read.index + read[0].length;
	}
	template.push(raw.slice(end));
	const texts = template.filter((part): part is string => typeof part === 'string');
	const keys = template.filter((part) => typeof part !== 'string').flat();
	if (!keys.length || texts.some((text) => /[{}\\]/.test(text))) return undefined;
	if (!keys.every((key) => expressionMayRead(key))) return undefined;
	return template.filter((part) => part !== '');
}

/** This realm's plain objects only, a cheap check (lodash's isPlainObject takes any realm's). */
const isOwnRealmObject = (value: unknown): value is Record<string, unknown> => {
	if (value === null || typeof value !== 'object') return false;
	const proto = Object.getPrototypeOf(value) as object | null;
	return proto === Object.prototype || proto === null;
};

/**
 * The string, finite number or boolean at the path, through plain objects' own properties; anything
 * else (objects, arrays, dates, null, missing keys, errors) is undefined, for n8n to evaluate.
 */
function primitiveAt(json: unknown, path: string[]): string | number | boolean | undefined {
	let value = json;
	for (const key of path) {
		if (!isOwnRealmObject(value) || !Object.prototype.hasOwnProperty.call(value, key))
			return undefined;
		value = value[key];
	}
	return typeof value === 'string' ||
		typeof value === 'boolean' ||
		(typeof value === 'number' && Number.isFinite(value))
		? value
		: undefined;
}

/**
 * What n8n's expression engines answer for the template over the item: one read alone gives the
 * value itself, text around reads gives the text with each value as a string (held to n8n's
 * engines by test/n8n/internals.test.ts). Undefined when a read finds no plain value.
 */
function fill(template: Template, json: unknown): string | number | boolean | undefined {
	const values = template.map((part) =>
		typeof part === 'string' ? part : primitiveAt(json, part),
	);
	if (values.includes(undefined)) return undefined;
	return values.length === 1 ? values[0] : values.join('');
}

/**
 * The values of the plan's fields, read once per item, a chunk of items at a time (n8n's engine
 * evaluates a run of items markedly faster than one item between requests), each chunk after the
 * answers that came in meanwhile. A field whose expressions only read the item is filled from it
 * when it holds a plain value there, with n8n's exact answer (on both of its engines:
 * fieldValues.test.ts, resources.e2e.ts): n8n's engine costs most of an item's time
 * (docs/PERFORMANCE.md).
 */
export class FieldValues {
	private readonly chunks = new Map<number, { readings: Promise<Reading[]>; left: number }>();
	private lastRead: Promise<unknown> = Promise.resolve();
	private readonly items = this.fns.getInputData();
	private readonly templates = this.fields.map(({ parameter, locator }) =>
		locator
			? undefined
			: templateOf(this.fns.getNodeParameter(parameter, 0, undefined, { rawExpressions: true })),
	);

	constructor(
		private readonly fns: IExecuteFunctions,
		private readonly fields: SentField[],
	) {}

	async read(itemIndex: number): Promise<Reading> {
		const index = Math.floor(itemIndex / CHUNK);
		let chunk = this.chunks.get(index);
		if (!chunk) {
			const readings = this.lastRead.then(async () => {
				await clock.sleep(0);
				return this.readChunk(index);
			});
			this.lastRead = readings;
			chunk = { readings, left: Math.min(CHUNK, this.items.length - index * CHUNK) };
			this.chunks.set(index, chunk);
		}
		if (--chunk.left === 0) this.chunks.delete(index);
		return (await chunk.readings)[itemIndex % CHUNK];
	}

	private value(field: number, itemIndex: number): unknown {
		const template = this.templates[field];
		const direct = template ? fill(template, this.items[itemIndex]?.json) : undefined;
		return direct ?? readField(this.fns, this.fields[field], itemIndex);
	}

	private readChunk(chunk: number): Reading[] {
		const first = chunk * CHUNK;
		return this.items.slice(first, first + CHUNK).map((_item, offset): Reading => {
			try {
				return { values: this.fields.map((_, field) => this.value(field, first + offset)) };
			} catch (error) {
				return { error };
			}
		});
	}
}

/**
 * `credentials`: the ones the caller read for the run, if it sends with them (the send loop reads
 * them once, not once per item); else n8n reads them per item, as RoutingNode does.
 */
export function itemContext(
	fns: IExecuteFunctions,
	itemIndex: number,
	{
		credentials,
		node,
	}: {
		credentials?: ICredentialDataDecryptedObject;
		/** The node as read once for the run: n8n's getNode copies it at every call. */
		node?: INode;
	} = {},
): ItemContext {
	return {
		getNode: () => node ?? fns.getNode(),
		getItemIndex: () => itemIndex,
		getTimezone: () => fns.getTimezone(),
		continueOnFail: () => fns.continueOnFail(),
		getNodeParameter: ((name: string, fallback?: unknown, options?: { extractValue?: boolean }) =>
			fns.getNodeParameter(name, itemIndex, fallback, options)) as ItemContext['getNodeParameter'],
		getCredentials: (async (type: string) =>
			credentials ?? (await fns.getCredentials(type, itemIndex))) as ItemContext['getCredentials'],
	};
}
