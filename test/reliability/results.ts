/**
 * What the reliability tests measured, kept as JSON under .tmp/reliability/ (one file per test
 * file) for report.ts, which writes docs/RELIABILITY.md from it. Plain Node only: report.ts runs
 * under tsx, outside jest.
 */
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

export const RESULTS_DIR = join(__dirname, '..', '..', '.tmp', 'reliability');

export interface FaultRow {
	fault: string;
	/** Who wrote the message the user reads: the node, or n8n (network errors never reach the node). */
	source: 'node' | 'n8n';
	/** Whether the message says what happened and what to do. */
	verdict: string;
	/** Stop on fail: the error the node raised. */
	message: string;
	description: string;
	httpCode: string;
	/** Continue on fail: how the items fared. */
	itemsIn: number;
	itemsOut: number;
	failed: number;
	requests: number;
	sends: number;
	/** Failed items the service executed anyway (the node cannot know). */
	sentAnyway: number;
	leaks: number;
}

export interface RetryRow {
	fault: string;
	itemsIn: number;
	itemsOut: number;
	requests: number;
	sends: number;
	duplicates: number;
}

export interface InputRow {
	field: string;
	/** pure: the node's own checks in-process; engine: n8n's engine against the sandbox. */
	where: 'pure' | 'engine';
	cases: number;
	accepted: number;
	refusedByName: number;
	/** Requests the sandbox received (engine only). */
	requests: number;
	crashes: number;
	rejectedByContract: number;
}

export interface WrongTypeRow {
	operation: string;
	field: string;
	itemsIn: number;
	refusedByName: number;
	sent: number;
	invalidRequests: number;
}

export interface TokenRow {
	scenario: string;
	operations: number;
	runs: number;
	requests: number;
	tokenOnlyWhereDocumented: number;
	leaks: number;
	/** Token held in memory by an error (axios config), never persisted. */
	inMemoryOnly: number;
}

export interface RedirectRow {
	/** The status, and which operations or which of their requests were redirected. */
	what: string;
	runs: number;
	failedWithRedirectError: number;
	requests: number;
	/** Requests that reached the host the redirect pointed to. */
	sentElsewhere: number;
	leaks: number;
}

export interface LoadFigures {
	items: number;
	itemsOut: number;
	distinctSends: number;
	lost: number;
	duplicated: number;
	requests: number;
	durationMs: number;
	/** CPU time of the test process (engine and sandbox share it). */
	cpuMs: number;
	rssBeforeMb: number;
	rssPeakMb: number;
	maxRssMb: number;
}

export interface BatchingFigures {
	items: number;
	batchSize: number;
	batchIntervalMs: number;
	batches: number;
	earlyArrivals: number;
}

export interface Results {
	faults?: FaultRow[];
	retries?: RetryRow[];
	inputs?: InputRow[];
	wrongTypes?: WrongTypeRow[];
	token?: TokenRow[];
	redirects?: RedirectRow[];
	load?: LoadFigures;
	batching?: BatchingFigures;
}

export interface ResultsFile extends Results {
	file: string;
	writtenAt: string;
	durationMs: number;
}

/** One test file's results, written by save() (call it in afterAll). */
export function collectResults(file: string): { results: Results; save(): void } {
	const startedAt = Date.now();
	const results: Results = {};
	const save = () => {
		mkdirSync(RESULTS_DIR, { recursive: true });
		const written: ResultsFile = {
			file,
			writtenAt: new Date().toISOString(),
			durationMs: Date.now() - startedAt,
			...results,
		};
		writeFileSync(join(RESULTS_DIR, `${file}.json`), JSON.stringify(written, null, '\t'));
	};
	return { results, save };
}

/** JSON as n8n would store it (toJSON honoured), with cycles cut instead of throwing. */
export function safeStringify(value: unknown): string {
	const seen = new WeakSet<object>();
	return (
		JSON.stringify(value, (_key, entry: unknown) => {
			if (typeof entry === 'bigint') return String(entry);
			if (entry === null || typeof entry !== 'object') return entry;
			if (seen.has(entry)) return '[Circular]';
			seen.add(entry);
			return entry;
		}) ?? ''
	);
}

/** A token that cannot occur by chance: the leak checks search for it everywhere. */
export function canaryToken(): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	return `CANARY${Array.from({ length: 24 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('')}`;
}

/** "12.3 MB" from bytes. */
export const megabytes = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
