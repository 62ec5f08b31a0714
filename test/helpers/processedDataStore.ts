/**
 * n8n's processed-data store as n8n's server sets it up, in memory: n8n-core's
 * DataDeduplicationService (node_modules/n8n-core/dist/data-deduplication-service.js) over a
 * deduplicator that does what n8n-cli's DeduplicationHelper (n8n 2.41.1,
 * dist/deduplication/deduplication-helper.js) does against its database table (@n8n/db's
 * ProcessedData, primary key (workflowId, context)):
 * - one row per (workflowId, context): `n:<node id>` for scope 'node', '' for 'workflow';
 * - each call reads the row (findOne), works on its copy and writes it back (insert when there was
 *   none, else update), with no lock: `between` runs between the read and the write, so that a test
 *   makes two callers race as two workers do (the later write wins, the other's change is lost);
 * - the INSERT of a missing row is atomic: the second of two fails on the primary key;
 * - validateMode: a row of another mode fails every call but clearAllProcessedItems with n8n's
 *   DeduplicationError; entries are kept as n8n keeps them (md5, base64), the oldest pruned first
 *   past maxEntries; latestIncrementalKey and latestDate keep the greatest value.
 * Every helper a node gets (checkProcessedAndRecord, removeProcessed, clearAllProcessedItems,
 * getProcessedDataCount) reaches it through DataDeduplicationService, as in n8n.
 */
import { createHash } from 'crypto';
import { DataDeduplicationService } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationMode,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
	IExecuteFunctions,
	INode,
	Workflow,
} from 'n8n-workflow';

/** n8n-cli's DeduplicationError (an UnexpectedError there), its words as n8n gives them. */
export class DeduplicationError extends Error {
	constructor(message: string) {
		super(`Deduplication Failed: ${message}`);
		this.name = 'DeduplicationError';
	}
}

/** The words of DeduplicationHelper.validateMode's error in n8n 2.41.1. */
export const MODE_MISMATCH =
	'Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter. Try ’Clean Database’ operation to reset.';

interface Row {
	workflowId: string;
	context: string;
	value: { mode: DeduplicationMode; data: DeduplicationItemTypes | string[] };
}

const LATEST: DeduplicationMode[] = ['latestIncrementalKey', 'latestDate'];

/** What reached the table: each statement, as n8n's TypeORM repository runs it. */
export interface TableCounts {
	findOne: number;
	insert: number;
	update: number;
	delete: number;
}

export class ProcessedDataStore implements IDataDeduplicator {
	private readonly rows = new Map<string, Row>();
	/** Run between a call's read and its write (a race's window); none by default. */
	between?: () => Promise<void>;
	/** Set by a test: the next statement fails with it (n8n's database gone). */
	failNext?: Error;
	/** The helpers' calls, by name, and the statements they ran. */
	readonly calls = { checkProcessedAndRecord: 0, removeProcessed: 0, clearAllProcessedItems: 0 };
	readonly table: TableCounts = { findOne: 0, insert: 0, update: 0, delete: 0 };
	/** Per context: how many writes went over a row another write changed after this one read it. */
	readonly lostUpdates = new Map<string, number>();
	/** Per context: the inserts that failed on the primary key (another's insert came first). */
	readonly failedInserts = new Map<string, number>();
	/** Per context: the updates (in latestIncrementalKey mode, a call that found the row there). */
	readonly updates = new Map<string, number>();
	private readonly versions = new Map<string, number>();

	// The table, as ProcessedDataRepository runs it: each statement a turn of the event loop.

	private key(workflowId: string, context: string) {
		return `${workflowId}\u0000${context}`;
	}

	private async statement(): Promise<void> {
		await new Promise((resolve) => setImmediate(resolve));
		const failure = this.failNext;
		this.failNext = undefined;
		if (failure) throw failure;
	}

	private async findOne(workflowId: string, context: string) {
		this.table.findOne++;
		await this.statement();
		const row = this.rows.get(this.key(workflowId, context));
		const read = row ? (JSON.parse(JSON.stringify(row)) as Row) : null;
		return { row: read, version: this.versions.get(this.key(workflowId, context)) ?? 0 };
	}

	private async insert(row: Row): Promise<void> {
		this.table.insert++;
		await this.statement();
		const key = this.key(row.workflowId, row.context);
		if (this.rows.has(key)) {
			this.failedInserts.set(row.context, (this.failedInserts.get(row.context) ?? 0) + 1);
			throw new Error(
				'SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context',
			);
		}
		this.rows.set(key, JSON.parse(JSON.stringify(row)) as Row);
		this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
	}

	private async update(row: Row, readVersion: number): Promise<void> {
		this.table.update++;
		this.updates.set(row.context, (this.updates.get(row.context) ?? 0) + 1);
		await this.statement();
		const key = this.key(row.workflowId, row.context);
		// UPDATE ... WHERE: no row, nothing changes.
		if (!this.rows.has(key)) return;
		if ((this.versions.get(key) ?? 0) !== readVersion)
			this.lostUpdates.set(row.context, (this.lostUpdates.get(row.context) ?? 0) + 1);
		this.rows.set(key, JSON.parse(JSON.stringify(row)) as Row);
		this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
	}

	private async delete(workflowId: string, context: string): Promise<void> {
		this.table.delete++;
		await this.statement();
		const key = this.key(workflowId, context);
		this.rows.delete(key);
		this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
	}

	// DeduplicationHelper.

	private static context(scope: DeduplicationScope, contextData: ICheckProcessedContextData) {
		if (scope === 'node') {
			if (!contextData.node)
				throw new DeduplicationError(
					"No node information has been provided and so cannot use scope 'node'",
				);
			return `n:${contextData.node.id}`;
		}
		return '';
	}

	private static hash(value: DeduplicationItemTypes) {
		return createHash('md5').update(value.toString()).digest('base64');
	}

	private static compare(mode: DeduplicationMode, a: DeduplicationItemTypes, b: unknown): number {
		if (mode === 'latestIncrementalKey') {
			const [x, y] = [Number(a), Number(b)];
			if (isNaN(x) || isNaN(y))
				throw new DeduplicationError(
					'Invalid value. Only numbers are supported in mode "latestIncrementalKey"',
				);
			return x === y ? 0 : x > y ? 1 : -1;
		}
		const [x, y] = [new Date(a as string).getTime(), new Date(b as string).getTime()];
		if (isNaN(x) || isNaN(y))
			throw new DeduplicationError(
				'Invalid value. Only valid dates are supported in mode "latestDate"',
			);
		return x === y ? 0 : x > y ? 1 : -1;
	}

	private static validateMode(row: Row | null, options: ICheckProcessedOptions) {
		if (row && row.value.mode !== options.mode) throw new DeduplicationError(MODE_MISMATCH);
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		this.calls.checkProcessedAndRecord++;
		const context = ProcessedDataStore.context(scope, contextData);
		const workflowId = String(contextData.workflow.id);
		const { row, version } = await this.findOne(workflowId, context);
		ProcessedDataStore.validateMode(row, options);
		await this.between?.();
		if (LATEST.includes(options.mode)) {
			const sorted = items.slice().sort((a, b) => ProcessedDataStore.compare(options.mode, a, b));
			if (!row) {
				await this.insert({
					workflowId,
					context,
					value: { mode: options.mode, data: sorted.pop() as DeduplicationItemTypes },
				});
				return { new: items, processed: [] };
			}
			const answer: IDeduplicationOutput = { new: [], processed: [] };
			const stored = row.value.data as DeduplicationItemTypes;
			let largest = stored;
			for (const item of sorted) {
				if (ProcessedDataStore.compare(options.mode, item, stored) === 1) {
					answer.new.push(item);
					if (ProcessedDataStore.compare(options.mode, item, largest) === 1) largest = item;
				} else answer.processed.push(item);
			}
			row.value.data = largest;
			await this.update(row, version);
			return answer;
		}
		const hashed = items.map((item) => ProcessedDataStore.hash(item));
		if (!row) {
			if (options.maxEntries) hashed.splice(0, hashed.length - options.maxEntries);
			await this.insert({ workflowId, context, value: { mode: options.mode, data: hashed } });
			return { new: items, processed: [] };
		}
		const answer: IDeduplicationOutput = { new: [], processed: [] };
		const data = row.value.data as string[];
		const before = new Set(data);
		hashed.forEach((hash, index) => {
			if (before.has(hash)) answer.processed.push(items[index]);
			else {
				answer.new.push(items[index]);
				data.push(hash);
			}
		});
		if (options.maxEntries) data.splice(0, data.length - options.maxEntries);
		await this.update(row, version);
		return answer;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		this.calls.removeProcessed++;
		if (LATEST.includes(options.mode))
			throw new DeduplicationError('Removing processed data is not possible in mode "latest"');
		const context = ProcessedDataStore.context(scope, contextData);
		const { row, version } = await this.findOne(String(contextData.workflow.id), context);
		if (!row || !Array.isArray(row.value.data)) return;
		const data = row.value.data;
		await this.between?.();
		for (const hash of items.map((item) => ProcessedDataStore.hash(item))) {
			const index = data.indexOf(hash);
			if (index !== -1) data.splice(index, 1);
		}
		await this.update(row, version);
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
	): Promise<void> {
		this.calls.clearAllProcessedItems++;
		const context = ProcessedDataStore.context(scope, contextData);
		await this.delete(String(contextData.workflow.id), context);
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<number> {
		const context = ProcessedDataStore.context(scope, contextData);
		const { row } = await this.findOne(String(contextData.workflow.id), context);
		return options.mode === 'entries' && row && Array.isArray(row.value.data)
			? row.value.data.length
			: 0;
	}

	// For tests: what a row holds.

	/** The row's value (a copy), or undefined. */
	row(workflowId: string, context: string): Row['value'] | undefined {
		const row = this.rows.get(this.key(workflowId, context));
		return row ? (JSON.parse(JSON.stringify(row.value)) as Row['value']) : undefined;
	}

	/** Whether the row of that context holds the entry (entries mode). */
	has(workflowId: string, context: string, entry: string): boolean {
		const data = this.rows.get(this.key(workflowId, context))?.value.data;
		return Array.isArray(data) && data.includes(ProcessedDataStore.hash(entry));
	}

	/** Every call and statement counted from zero again. */
	resetCounts(): void {
		for (const name of Object.keys(this.calls) as Array<keyof typeof this.calls>)
			this.calls[name] = 0;
		for (const name of Object.keys(this.table) as Array<keyof TableCounts>) this.table[name] = 0;
		this.lostUpdates.clear();
		this.failedInserts.clear();
		this.updates.clear();
	}
}

type Service = { instance?: DataDeduplicationService };

/**
 * Makes `store` the process's store (DataDeduplicationService.init, as n8n's server does; the one
 * test/helpers/engine.ts set up, or none, is put back by the function returned: the node tier's
 * files share their worker's modules).
 */
export async function useProcessedDataStore(store: ProcessedDataStore): Promise<() => void> {
	const service = DataDeduplicationService as unknown as Service;
	const saved = service.instance;
	service.instance = undefined;
	await DataDeduplicationService.init(store);
	return () => {
		service.instance = saved;
	};
}

/**
 * The least IExecuteFunctions the processed-data helpers need: a node (its id, its name) of a
 * workflow, with the helpers bound to them as n8n-core binds them
 * (dist/execution-engine/node-execution-context/utils/deduplication-helper-functions.js).
 */
export function processedDataFns(workflowId: string, nodeId: string): IExecuteFunctions {
	const node = { id: nodeId, name: `Node ${nodeId}`, parameters: {} } as unknown as INode;
	const workflow = { id: workflowId } as unknown as Workflow;
	const contextData: ICheckProcessedContextData = { node, workflow };
	const service = () => DataDeduplicationService.getInstance();
	const helpers = {
		checkProcessedAndRecord: async (
			items: DeduplicationItemTypes[],
			scope: DeduplicationScope,
			options: ICheckProcessedOptions,
		) => await service().checkProcessedAndRecord(items, scope, contextData, options),
		removeProcessed: async (
			items: DeduplicationItemTypes[],
			scope: DeduplicationScope,
			options: ICheckProcessedOptions,
		) => await service().removeProcessed(items, scope, contextData, options),
		clearAllProcessedItems: async (scope: DeduplicationScope, options: ICheckProcessedOptions) =>
			await service().clearAllProcessedItems(scope, contextData, options),
		getProcessedDataCount: async (scope: DeduplicationScope, options: ICheckProcessedOptions) =>
			await service().getProcessedDataCount(scope, contextData, options),
	};
	return { helpers, getNode: () => node } as unknown as IExecuteFunctions;
}
