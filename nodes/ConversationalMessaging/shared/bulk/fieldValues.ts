import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { RequestPlan } from './plan';

/** Items read together. */
const CHUNK = 100;
/** How many items the loop reads beyond those whose requests are in flight. */
export const READ_AHEAD = 2 * CHUNK;

/** An item's values, in the order of the plan's fields, or its own error (a failed expression). */
export type Reading = { values: unknown[] } | { error: unknown };

/**
 * The values of the plan's fields, read a chunk of items at a time: n8n's expression engine
 * evaluates a run of items together markedly faster than one item between requests. Chunks are
 * read one after another, each after the answers that have come in meanwhile, so that reading
 * goes on while requests are on their way. Every item is read once, when it starts.
 */
export class FieldValues {
	private readonly chunks = new Map<number, { readings: Promise<Reading[]>; left: number }>();
	private lastRead: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly fns: IExecuteFunctions,
		private readonly fields: RequestPlan['fields'],
		private readonly itemCount: number,
	) {}

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

	private readChunk(chunk: number): Reading[] {
		const readings: Reading[] = [];
		for (let itemIndex = chunk * CHUNK; itemIndex < Math.min(this.itemCount, (chunk + 1) * CHUNK); itemIndex++) {
			try {
				readings.push({ values: this.fields.map(({ parameter }) => this.fns.getNodeParameter(parameter, itemIndex, undefined)) });
			} catch (error) {
				readings.push({ error });
			}
		}
		return readings;
	}
}
