import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { isSafeObjectProperty } from 'n8n-workflow';

import { clock } from '../shared/clock';
import type { SentField } from './itemRequest';

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
export type Template = Array<string | string[]>;

/**
 * The template a field's raw value is when every `{{ }}` in it only reads the item (keys n8n lets
 * an expression read) and its text holds no brace or backslash (which n8n's template syntax
 * gives meanings); else undefined, and n8n evaluates the value.
 */
export function templateOf(raw: unknown): Template | undefined {
	if (typeof raw !== 'string' || !raw.startsWith('=') || typeof isSafeObjectProperty !== 'function')
		return undefined;
	const template: Template = [];
	let end = 1;
	for (const read of raw.matchAll(JSON_READ)) {
		template.push(
			raw.slice(end, read.index),
			[...read[1].matchAll(KEY)].map((key) => key[1] ?? key[2] ?? key[3]),
		);
		end = read.index + read[0].length;
	}
	template.push(raw.slice(end));
	const texts = template.filter((part): part is string => typeof part === 'string');
	const paths = template.filter((part): part is string[] => typeof part !== 'string');
	if (
		!paths.length ||
		texts.some((text) => /[{}\\]/.test(text)) ||
		!paths.flat().every((key) => isSafeObjectProperty(key))
	)
		return undefined;
	return template.filter((part) => part !== '');
}

/**
 * This realm's plain objects, checked cheaply on the hot path (lodash's isPlainObject, also takes other realms'): anything else is left to n8n's engine, always right.
 */
const isOwnRealmObject = (value: unknown): value is Record<string, unknown> => {
	if (value === null || typeof value !== 'object') return false;
	const proto = Object.getPrototypeOf(value) as object | null;
	return proto === Object.prototype || proto === null;
};

/**
 * The string, finite number or boolean at the path, through plain objects' own properties.
 * Undefined for anything else, which n8n then evaluates (objects, arrays, dates, null, missing
 * keys and errors keep n8n's own answer).
 */
export function primitiveAt(json: unknown, path: string[]): string | number | boolean | undefined {
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
 * value itself, text around reads gives the text with each value as a string. Undefined when a
 * read finds no plain value.
 */
export function fill(template: Template, json: unknown): string | number | boolean | undefined {
	const values = template.map((part) =>
		typeof part === 'string' ? part : primitiveAt(json, part),
	);
	if (values.includes(undefined)) return undefined;
	return values.length === 1 ? values[0] : values.join('');
}

/**
 * The values of the plan's fields, read a chunk of items at a time: n8n's expression engine
 * evaluates a run of items together markedly faster than one item between requests. Chunks are
 * read one after another, each after the answers that have come in meanwhile, so that reading
 * goes on while requests are on their way. Every item is read once, when it starts.
 *
 * A field whose expressions only read the item (`{{ $json.phone }}`, `Hi {{ $json.name }}!`) is
 * filled from the item when it holds strings, numbers or booleans there, with n8n's exact answer
 * (test/nodes/ConversationalMessaging/fieldValues.test.ts and test/e2e/resources.e2e.ts, on
 * both of n8n's expression engines): n8n's engine costs most of an item's time and, with the `vm`
 * engine, keeps every evaluation's data until its isolate collects garbage (docs/PERFORMANCE.md).
 */
export class FieldValues {
	private readonly chunks = new Map<number, { readings: Promise<Reading[]>; left: number }>();
	private lastRead: Promise<unknown> = Promise.resolve();
	private readonly items: INodeExecutionData[];
	private readonly templates: Array<Template | undefined>;

	constructor(
		private readonly fns: IExecuteFunctions,
		private readonly fields: SentField[],
	) {
		this.items = fns.getInputData();
		this.templates = fields.map(({ parameter, locator }) =>
			locator
				? undefined
				: templateOf(fns.getNodeParameter(parameter, 0, undefined, { rawExpressions: true })),
		);
	}

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
		const { parameter, locator } = this.fields[field];
		// As RoutingNode reads it: a resource locator's value extracted.
		return (
			direct ??
			this.fns.getNodeParameter(
				parameter,
				itemIndex,
				undefined,
				locator ? { extractValue: true } : undefined,
			)
		);
	}

	private readChunk(chunk: number): Reading[] {
		const readings: Reading[] = [];
		for (
			let itemIndex = chunk * CHUNK;
			itemIndex < Math.min(this.items.length, (chunk + 1) * CHUNK);
			itemIndex++
		) {
			try {
				readings.push({ values: this.fields.map((_, field) => this.value(field, itemIndex)) });
			} catch (error) {
				readings.push({ error });
			}
		}
		return readings;
	}
}
