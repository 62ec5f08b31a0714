import type { IExecuteFunctions } from 'n8n-workflow';

import { expressionMayRead } from '../n8nInternals';
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
		if (direct !== undefined) return direct;
		const { parameter, locator } = this.fields[field];
		// As RoutingNode reads it: a resource locator's value extracted.
		const options = locator ? { extractValue: true } : undefined;
		return this.fns.getNodeParameter(parameter, itemIndex, undefined, options);
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
