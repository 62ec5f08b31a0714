/**
 * n8n's processed-data store, beyond its documented helpers: what the node relies on when it
 * claims a Retry's stop (sendLoop/runMemory.ts) and when it uses the store as a lock and a count
 * (recipientRules/), each shortcut named and tested as in ./n8nInternals.ts.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

// 1. n8n's processed-data store: n8n-core dist/data-deduplication-service.js (DataDeduplicationService)
//    through dist/execution-engine/node-execution-context/utils/deduplication-helper-functions.js.

/**
 * assertInstance / assertDeduplicator: the store's error until a server calls init() (an engine
 * run alone): "Instance (or Manager) needs to initialized before use".
 */
export const storeNotSetUp = (message: string): boolean =>
	/needs to initialized before use/.test(message);

/**
 * helpers.checkProcessedAndRecord, node scope, entries mode (the oldest forgotten past
 * maxEntries): whether `key` was new, recorded now. Undefined where n8n has no such helper (before
 * its store); it fails with storeNotSetUp's error where none is set up.
 */
export function recordedFirst(
	fns: IExecuteFunctions,
	key: string,
	maxEntries: number,
): Promise<boolean> | undefined {
	return fns.helpers.checkProcessedAndRecord
		?.call(fns.helpers, [key], 'node', { mode: 'entries', maxEntries })
		.then(({ processed }) => processed.length === 0);
}

// 2. The processed-data store as a lock and a count (recipientRules/dailyCap.ts): n8n-cli 2.x
//    dist/deduplication/deduplication-helper.js (DeduplicationHelper, the IDataDeduplicator n8n's
//    server gives n8n-core's DataDeduplicationService; its rows are @n8n/db's ProcessedData, primary
//    key (workflowId, context)), through n8n-core's helpers (section 1), which give it the node and
//    the workflow. What it does that the node relies on:
//    - one row per (workflow, context): context `n:<node id>` for scope 'node' (every entry of the
//      node, Retry notes and daily counts alike: maxEntries prunes the whole row), '' for scope
//      'workflow' (shared by every node of the workflow that uses that scope, Remove Duplicates
//      included);
//    - every call reads the row, changes it in memory and writes it back, with no lock: two calls at
//      once lose one's change. Only the INSERT of a missing row is atomic: of two at once, the
//      second fails on the primary key;
//    - latestIncrementalKey: a missing row is inserted with the greatest value given, answered new;
//      else each value is new only when greater than the stored one, which becomes the greatest;
//    - the failed INSERT is n8n's database's own error (TypeORM's QueryFailedError, the driver's
//      words: insertConflict below), not a DeduplicationError: normal contention, never a failure;
//    - validateMode: a row written in another mode fails every call but clearAllProcessedItems with
//      a DeduplicationError ('Deduplication Failed: ... incompatible setting ...').

/**
 * The workflow lock's value: the least a number may safely be, so that no value given later is
 * greater (no clock: two workers' clocks may differ) and no other node's incremental key is lower.
 */
export const WORKFLOW_LOCK = Number.MIN_SAFE_INTEGER;

const LATEST = { mode: 'latestIncrementalKey' } as const;

/** Whether n8n has the processed-data store's helpers (n8n 1.x before it has none). */
export const hasProcessedData = (fns: IExecuteFunctions): boolean =>
	typeof fns.helpers.checkProcessedAndRecord === 'function' &&
	typeof fns.helpers.removeProcessed === 'function' &&
	typeof fns.helpers.clearAllProcessedItems === 'function';

/**
 * Takes the workflow's lock (scope 'workflow', latestIncrementalKey): true when there was no row
 * and this call inserted it (atomic); false when a row exists (WORKFLOW_LOCK is never greater than
 * the stored value, so the call changes nothing). Of two inserts at once, one throws.
 */
export async function lockWorkflow(fns: IExecuteFunctions): Promise<boolean> {
	const answer = await fns.helpers.checkProcessedAndRecord([WORKFLOW_LOCK], 'workflow', LATEST);
	return answer.new.length > 0;
}

/**
 * Whether the workflow's row holds WORKFLOW_LOCK (a lock, left or live), not another node's
 * incremental key: WORKFLOW_LOCK + 1 is new only over WORKFLOW_LOCK. It raises the stored value to
 * it (or inserts it where there is no row, taking the lock): call it only before clearing the row.
 */
export async function lockLooksOurs(fns: IExecuteFunctions): Promise<boolean> {
	const answer = await fns.helpers.checkProcessedAndRecord([WORKFLOW_LOCK + 1], 'workflow', LATEST);
	return answer.new.length > 0;
}

/** Drops the workflow's row (a DELETE, whatever its mode): the lock is free. */
export async function unlockWorkflow(fns: IExecuteFunctions): Promise<void> {
	await fns.helpers.clearAllProcessedItems('workflow', LATEST);
}

/** Records the entries in the node's row (entries mode): the ones that were not there, now there. */
export async function recordInNode(
	fns: IExecuteFunctions,
	entries: string[],
	maxEntries: number,
): Promise<Set<string>> {
	const options = { mode: 'entries', maxEntries } as const;
	const answer = await fns.helpers.checkProcessedAndRecord(entries, 'node', options);
	return new Set(answer.new.map(String));
}

/** Takes the entries out of the node's row (entries mode). */
export async function removeFromNode(fns: IExecuteFunctions, entries: string[]): Promise<void> {
	await fns.helpers.removeProcessed(entries, 'node', { mode: 'entries' });
}

/** DeduplicationHelper.validateMode's error: the row was written in another mode. */
export const modeConflict = (message: string): boolean =>
	/incompatible setting of the .Keep Items Where. parameter/.test(message);

/**
 * The error of an INSERT that lost the race for a missing row (the primary key (workflowId,
 * context) taken between the read and the insert): TypeORM's QueryFailedError, its message the
 * driver's. PostgreSQL: 'duplicate key value violates unique constraint "PK_..."'; SQLite (sqlite3):
 * 'SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context'
 * (SQLITE_CONSTRAINT_PRIMARYKEY / _UNIQUE with extended codes); MySQL and MariaDB: "ER_DUP_ENTRY:
 * Duplicate entry '...' for key 'PRIMARY'". Another constraint's failure (NOT NULL) is not one.
 */
export const insertConflict = (message: string): boolean =>
	/duplicate key value violates unique constraint|UNIQUE constraint failed|SQLITE_CONSTRAINT_(?:PRIMARYKEY|UNIQUE)|ER_DUP_ENTRY|Duplicate entry .* for key/i.test(
		message,
	);
