import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	INodeTypeDescription,
} from 'n8n-workflow';
import { deepCopy, NodeHelpers } from 'n8n-workflow';

import type { Check, ItemContext } from '../checks/checks';
import { setPath } from '../checks/checks';
import type { PhoneReading } from '../checks/phone/reading';
import type { SmsReading } from '../checks/sms';
import type { Field } from '../form/fields';
import type { RequestSpec } from '../form/operations';
import { fill, templateOf } from '../n8nInternals';
import { singleRecord } from '../service/envelope';
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

/** One operation's request, as its spec and the node's parameters make it: the fields shown, their checks in order. */
export interface RequestForm {
	method: IHttpRequestMethods;
	url: string;
	body: IDataObject;
	fields: SentField[];
	checks: Check[];
	records: (payload: IDataObject) => IDataObject[];
}

/** Shown with these parameters: the operation is the spec's, so only the field's other conditions count. */
function shown(field: Field, node: INode): boolean {
	const { parameters } = node;
	const { resource, operation } = parameters;
	const show = { ...field.displayOptions?.show, resource: [resource], operation: [operation] };
	const displayOptions = { ...field.displayOptions, show } as IDisplayOptions;
	const property = { ...field, displayOptions };
	return NodeHelpers.displayParameter(parameters, property, node, null, parameters);
}

/** The request form of the spec with the node's parameters: its fields shown, the entries of its collections set. */
export function requestForm(spec: RequestSpec, node: INode): RequestForm {
	const { method, url, body = {}, preSend = [], records = singleRecord } = spec;
	const form: RequestForm = { method, url, body, fields: [], checks: [...preSend], records };
	const visit = (field: Field, parameter: string, value: unknown) => {
		const { sent } = field;
		if (sent?.to)
			form.fields.push({ parameter, to: sent.to, locator: field.type === 'resourceLocator' });
		form.checks.push(...(sent?.checks ?? []));
		if (field.type !== 'collection' || !value || typeof value !== 'object') return;
		for (const entry of field.options as Field[])
			if (entry.name in value)
				visit(entry, `${parameter}.${entry.name}`, (value as IDataObject)[entry.name]);
	};
	// Only what sends something, or holds fields that may: a notice is never read.
	const sending = (field: Field) => field.sent !== undefined || field.type === 'collection';
	for (const field of spec.fields ?? [])
		if (sending(field) && shown(field, node)) visit(field, field.name, node.parameters[field.name]);
	return form;
}

/** What the item's checks read of it: its phone number, its SMS text (for its output and the run's hints). */
export interface Readings {
	phone?: PhoneReading;
	sms?: SmsReading;
}

/** The item's request, then its checks in order (they may normalise values, or fail the item), and what they read. */
export async function buildRequest(
	item: ItemContext,
	form: RequestForm,
	defaults: INodeTypeDescription['requestDefaults'],
	values: unknown[],
	settings: Partial<IHttpRequestOptions> = {},
): Promise<{ request: IHttpRequestOptions; readings: Readings }> {
	const request: IHttpRequestOptions = {
		...(defaults as Partial<IHttpRequestOptions>),
		...settings,
		headers: { ...defaults?.headers },
		method: form.method,
		url: form.url,
		qs: {},
		body: deepCopy(form.body),
	};
	form.fields.forEach((field, index) => setPath(request, field.to, values[index]));
	const readings: Readings = {};
	for (const check of form.checks) Object.assign(readings, await check(request, item));
	return { request, readings };
}

/** A field's value as RoutingNode reads it: a resource locator's value extracted. */
export function readField(fns: IExecuteFunctions, field: SentField, itemIndex: number): unknown {
	const options = field.locator ? { extractValue: true } : undefined;
	return fns.getNodeParameter(field.parameter, itemIndex, undefined, options);
}

/** Items read together. */
const CHUNK = 100;
/** How many items the loop reads beyond those whose requests are in flight. */
export const READ_AHEAD = 2 * CHUNK;

/** An item's values, in the order of the form's fields, or its own error (a failed expression). */
export type Reading = { values: unknown[] } | { error: unknown };

/**
 * The values of the form's fields, read once per item, a chunk of items at a time (n8n's engine
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
 * them once, not once per item); else n8n reads them per item, as RoutingNode does. `node`: the
 * node as read once for the run: n8n's getNode copies it at every call.
 */
export function itemContext(
	fns: IExecuteFunctions,
	itemIndex: number,
	{ credentials, node }: { credentials?: ICredentialDataDecryptedObject; node?: INode } = {},
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
