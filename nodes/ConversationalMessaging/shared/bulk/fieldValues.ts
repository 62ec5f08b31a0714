import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { isSafeObjectProperty, sleep } from 'n8n-workflow';

import type { RequestPlan } from './plan';

/** Items read together. */
const CHUNK = 100;
/** How many items the loop reads beyond those whose requests are in flight. */
export const READ_AHEAD = 2 * CHUNK;

/** An item's values, in the order of the plan's fields, or its own error (a failed expression). */
export type Reading = { values: unknown[] } | { error: unknown };

/** `={{ $json.a.b }}` and nothing else, keys made of letters, digits and underscores. */
const JSON_PATH = /^=\{\{\s*\$json((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*\}\}$/;

/**
 * The path a field's raw value names when it is only `{{ $json.a.b }}` (keys n8n lets an
 * expression read), else undefined.
 */
export function jsonPathOf(raw: unknown): string[] | undefined {
	if (typeof raw !== 'string' || typeof isSafeObjectProperty !== 'function') return undefined;
	const path = JSON_PATH.exec(raw)?.[1].slice(1).split('.');
	return path?.every((key) => isSafeObjectProperty(key)) ? path : undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null);

/**
 * The string, finite number or boolean at the path, through plain objects' own properties: what
 * n8n's expression engines answer for `{{ $json.a.b }}` there. Undefined for anything else, which
 * n8n then evaluates (objects, arrays, dates, missing keys and errors keep n8n's own answer).
 */
export function primitiveAt(json: unknown, path: string[]): string | number | boolean | undefined {
	let value = json;
	for (const key of path) {
		if (!isPlainObject(value) || !Object.prototype.hasOwnProperty.call(value, key)) return undefined;
		value = value[key];
	}
	return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined;
}

/**
 * The values of the plan's fields, read a chunk of items at a time: n8n's expression engine
 * evaluates a run of items together markedly faster than one item between requests. Chunks are
 * read one after another, each after the answers that have come in meanwhile, so that reading
 * goes on while requests are on their way. Every item is read once, when it starts.
 *
 * A field whose value is only `{{ $json.a.b }}` is read from the item when that holds a string,
 * a number or a boolean, with n8n's exact answer (test/nodes/ConversationalMessaging/
 * sendLoop.parity.test.ts and test/e2e/resources.e2e.ts, on both of n8n's expression engines):
 * n8n's engine costs most of an item's time and, with the `vm` engine, keeps every evaluation's
 * data until its isolate collects garbage (docs/PERFORMANCE.md).
 */
export class FieldValues {
	private readonly chunks = new Map<number, { readings: Promise<Reading[]>; left: number }>();
	private lastRead: Promise<unknown> = Promise.resolve();
	private readonly items: INodeExecutionData[];
	private readonly jsonPaths: Array<string[] | undefined>;

	constructor(
		private readonly fns: IExecuteFunctions,
		private readonly fields: RequestPlan['fields'],
		private readonly itemCount: number,
	) {
		this.items = fns.getInputData();
		this.jsonPaths = fields.map(({ parameter, typeChecked }) =>
			typeChecked ? undefined : jsonPathOf(fns.getNodeParameter(parameter, 0, undefined, { rawExpressions: true })),
		);
	}

	async read(itemIndex: number): Promise<Reading> {
		const index = Math.floor(itemIndex / CHUNK);
		let chunk = this.chunks.get(index);
		if (!chunk) {
			const readings = this.lastRead.then(async () => {
				await sleep(0);
				return this.readChunk(index);
			});
			this.lastRead = readings;
			chunk = { readings, left: Math.min(CHUNK, this.itemCount - index * CHUNK) };
			this.chunks.set(index, chunk);
		}
		if (--chunk.left === 0) this.chunks.delete(index);
		return (await chunk.readings)[itemIndex % CHUNK];
	}

	private value(field: number, itemIndex: number): unknown {
		const path = this.jsonPaths[field];
		const direct = path ? primitiveAt(this.items[itemIndex]?.json, path) : undefined;
		return direct ?? this.fns.getNodeParameter(this.fields[field].parameter, itemIndex, undefined);
	}

	private readChunk(chunk: number): Reading[] {
		const readings: Reading[] = [];
		for (let itemIndex = chunk * CHUNK; itemIndex < Math.min(this.itemCount, (chunk + 1) * CHUNK); itemIndex++) {
			try {
				readings.push({ values: this.fields.map((_, field) => this.value(field, itemIndex)) });
			} catch (error) {
				readings.push({ error });
			}
		}
		return readings;
	}
}
