import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	hasProcessedData,
	insertConflict,
	lockLooksOurs,
	lockWorkflow,
	modeConflict,
	recordInNode,
	removeFromNode,
	storeNotSetUp,
	unlockWorkflow,
} from '../n8nInternals';
import { clock } from '../clock';
import { MAX_RETRIED_STOPS } from '../sendLoop/runMemory';

/*
 * Max Messages per Person per Day, counted in n8n's processed-data store: the database every
 * queue-mode worker shares, which survives restarts (n8nInternals.ts, section 8, says how n8n keeps
 * it). Each message the service may take holds a slot, one entry `cap <recipient> <day> <k>` (k = 1
 * to the cap) in the node's row; a person has had their day's messages when all k are there.
 *
 * The store has no pure read and no lock: each call reads the row, changes it and writes it back,
 * so two workers recording at once lose one's entries, and the only way to learn whether an entry
 * is there is to record it. Hence:
 * - A lock, the workflow's row (scope 'workflow'): it exists while someone counts. Taken by
 *   recording WORKFLOW_LOCK, the least number, in latestIncrementalKey mode: n8n inserts a missing
 *   row (atomic: of two inserts at once one fails, and counts as held) and answers new; over an
 *   existing row the value is never greater, so it answers processed and changes nothing. Given back
 *   by deleting the row. Every write of the count happens under it. A lost insert race (the
 *   database's own duplicate-key error, insertConflict) is contention: held, never a failure.
 * - Fairness: waiters try every POLL_MS to 2 POLL_MS, each try a round trip of the store. A holder
 *   that gave the lock back waits a waiter's whole turn (its last try's round trip and 2 POLL_MS,
 *   once to twice that) before it tries again, so a waiter sees the lock free and takes it before
 *   the holder does: two busy holders never keep a third out (whose stale rule would then clear a
 *   live lock).
 * - The read, under the lock: record, for each person claimed, every slot not known taken; n8n's
 *   answer says which were there already (processed: taken) and which it recorded (new: free until
 *   now). Each claim takes the lowest free slot of its person, in the order claimed (two claims for
 *   one person in a batch count against each other); the free slots nobody took are removed again
 *   in the same hold, so nobody ever sees them. A person with all slots taken is capped.
 * - Batches: claims come one item at a time from the send loop. Those that arrive while a batch is
 *   settled, or within ROUND_GAP_MS of the last, go in the next (at most BATCH), under one hold of
 *   the lock: three calls (lock, record, unlock), four when a slot is removed or given back.
 * - A slot is given back (release: the service did not take the item) with the next batch, or by
 *   flush() at the end of the run; a claim for the same person takes it over without a call.
 * - A lock whose row stays for STALE_MS (and a jitter) of one waiter's continuous waiting (the row
 *   seen held at every try: a lost insert race, which saw it free, starts the count again) is taken
 *   as left by a crashed worker (a hold lasts a few calls), and cleared, once lockLooksOurs says it
 *   holds WORKFLOW_LOCK: another node's row of the same mode (a Remove Duplicates node with Scope
 *   Workflow, Value Is Higher than Any Previous Value) is never cleared, but named, as a row of
 *   another mode is (n8n's DeduplicationError). Never while this cap holds the lock (a Retry's
 *   note waiting on a batch of the same run), nor counting the time before it last gave it back.
 * - Waiting ends after Max Wait (Send Options), but never before the stale rule could clear a lock
 *   left by a crashed worker (STALE_MS, its jitter and STALE_MARGIN_MS: a Max Wait of 0 waits that
 *   long), or at once when the execution is cancelled: the claims waiting fail, nothing sent.
 * Nothing here is sent: the caller sends only on a slot. What fails leaves slots taken, never free
 * ones counted: the cap sends fewer that day, never more.
 */

/** Claims settled under one hold of the lock, at most. */
export const BATCH = 200;
/** The least time between two batches' starts (more claims wait for the next), unless one is full. */
export const ROUND_GAP_MS = 250;
/** Continuous waiting on the lock after which it is taken as left by a crashed worker. */
export const STALE_MS = 60_000;
/** A waiter tries twice as often after waiting this long, three times after twice as long... */
const AGE_SPEEDUP_MS = 5_000;
/** The least wait between two tries of one waiter. */
const MIN_POLL_MS = 10;
/** Up to this much more, drawn per cap, so that two waiters do not clear at once. */
const STALE_JITTER_MS = 5_000;
/** The least wait on the lock is the stale rule's and this: time to clear a left lock and take it. */
const STALE_MARGIN_MS = 5_000;
/** The round trip a holder waits out after giving the lock back, at most (a database's hiccup). */
const MAX_TRIP_MS = 1_000;
/** The wait between two tries of the lock: POLL_MS and up to as much again. */
const POLL_MS = 25;
/** Failures of the store in a row (a lost insert race is none: insertConflict) before its error is the run's. */
const STORE_FAILURES = 3;
/** The node row's bound (shared with the Retry notes, which prune the same row). */
const MAX_ENTRIES = MAX_RETRIED_STOPS;

const CAP = 'Max Messages per Person per Day';

type Answer = { slot: string } | { capped: true };

interface Claim {
	person: string;
	resolve(answer: Answer): void;
	reject(error: unknown): void;
}

const entryOf = (person: string, k: number) => `cap ${person} ${k}`;

export class DailyCap {
	private readonly max: number;
	private readonly staleMs = STALE_MS + Math.random() * STALE_JITTER_MS;
	private pending: Claim[] = [];
	private releases: string[] = [];
	/** The slots this run knows taken, per `<recipient> <day>`: never asked for again. */
	private readonly taken = new Map<string, Set<number>>();
	/** The slots this run took: their person and number. */
	private readonly slots = new Map<string, { person: string; k: number }>();
	private running?: Promise<void>;
	private flushing = false;
	private lastRound = -Infinity;
	/** What made the count unusable: every later claim fails with it (nothing is sent). */
	private broken?: Error;
	/** A failure after the claims were answered (a slot not given back, the lock not dropped). */
	private failure?: unknown;
	/** Holds of the lock by this cap now (a round, an exclusive): the lock is live, never stale. */
	private holding = 0;
	/** When this cap last gave the lock back, and how long it lets waiters have their turn from then. */
	private gaveBack = -Infinity;
	private turnMs = 0;
	/** The round trip of this cap's last try of the lock. */
	private tripMs = 0;

	constructor(
		private readonly fns: IExecuteFunctions,
		max: number,
		private readonly maxWaitMs: number,
	) {
		this.max = Math.max(1, Math.floor(max));
	}

	/** 'sent' may go (a slot is taken for it); 'capped' may not. recipient: digits or socialnet id; day: 'YYYY-MM-DD' local. */
	async claim(recipient: string, day: string): Promise<{ slot: string } | { capped: true }> {
		if (this.broken) throw this.broken;
		return await new Promise<Answer>((resolve, reject) => {
			this.pending.push({ person: `${recipient} ${day}`, resolve, reject });
			this.kick();
		});
	}

	/** The service did not take it (a failure or a stop before sending): its slot is free again. Batched too. */
	release(slot: string): void {
		if (this.slots.has(slot)) this.releases.push(slot);
	}

	/** Settles pending releases (call before the run returns or throws). */
	async flush(): Promise<void> {
		this.flushing = true;
		try {
			this.kick();
			while (this.running) await this.running;
		} finally {
			this.flushing = false;
		}
		const failure = this.failure;
		this.failure = undefined;
		if (failure) throw failure;
	}

	private kick(): void {
		this.running ??= this.settle().finally(() => {
			this.running = undefined;
			// A claim made after settle's last look, before this: settled too.
			// (Broken: the claims are refused, the releases stay counted.)
			if (this.pending.length || (!this.broken && this.flushing && this.releases.length))
				this.kick();
		});
	}

	/** Settles batches until nothing waits. */
	private async settle(): Promise<void> {
		// The claims the send loop makes together (one tick) go in one batch.
		await clock.sleep(0);
		while (this.pending.length || (this.flushing && this.releases.length)) {
			if (this.broken) {
				for (const claim of this.pending.splice(0)) claim.reject(this.broken);
				return;
			}
			const gap = this.lastRound + ROUND_GAP_MS - clock.now();
			if (gap > 0 && this.pending.length < BATCH && !this.flushing) {
				await clock.sleep(gap);
				continue;
			}
			this.lastRound = clock.now();
			const claims = this.pending.splice(0, BATCH);
			const { byPerson, left } = this.handOver(claims, this.releases.splice(0));
			try {
				await this.round(byPerson, left);
			} catch (error) {
				// Raised before any claim was recorded: they and every later one fail, nothing sent
				// (a claim answered already keeps its answer).
				this.broken = error instanceof Error ? error : new Error(String(error));
				for (const claim of [...claims, ...this.pending.splice(0)]) claim.reject(this.broken);
				this.releases.push(...left);
				return;
			}
		}
	}

	/**
	 * A batch's claims by person, a slot given back going to a claim for the same person as it is
	 * (recorded already); the slots left to take out of the count.
	 */
	private handOver(claims: Claim[], releases: string[]) {
		const byPerson = new Map<string, Claim[]>();
		for (const claim of claims) {
			const waiting = byPerson.get(claim.person);
			if (waiting) waiting.push(claim);
			else byPerson.set(claim.person, [claim]);
		}
		const left: string[] = [];
		for (const slot of releases) {
			const claim = byPerson.get(this.slots.get(slot)?.person ?? '')?.shift();
			if (claim) claim.resolve({ slot });
			else left.push(slot);
		}
		return { byPerson, left };
	}

	/** One batch under the lock: the claims answered, the slots left given back. */
	private async round(byPerson: Map<string, Claim[]>, left: string[]): Promise<void> {
		const unneeded = [...left];
		const asked = new Map<string, number[]>();
		for (const [person, waiting] of byPerson) {
			if (!waiting.length) continue;
			const known = this.taken.get(person);
			const free = [];
			for (let k = 1; k <= this.max; k++) if (!known?.has(k)) free.push(k);
			if (free.length) asked.set(person, free);
			else for (const claim of waiting) claim.resolve({ capped: true });
		}
		if (!asked.size && !unneeded.length) return;

		await this.lock();
		try {
			if (asked.size) {
				const entries = [...asked].flatMap(([person, ks]) => ks.map((k) => entryOf(person, k)));
				let recorded: Set<string>;
				try {
					recorded = await recordInNode(this.fns, entries, MAX_ENTRIES);
				} catch (error) {
					throw this.storeError(error, 'record');
				}
				for (const [person, ks] of asked) {
					const known = this.taken.get(person) ?? new Set<number>();
					this.taken.set(person, known);
					const free = ks.filter((k) => recorded.has(entryOf(person, k)));
					ks.forEach((k) => known.add(k));
					for (const claim of byPerson.get(person) ?? []) {
						const k = free.shift();
						if (k === undefined) {
							claim.resolve({ capped: true });
							continue;
						}
						const slot = entryOf(person, k);
						this.slots.set(slot, { person, k });
						claim.resolve({ slot });
					}
					// Recorded to be read, taken by no claim: out again before anyone sees them.
					for (const k of free) {
						known.delete(k);
						unneeded.push(entryOf(person, k));
					}
				}
			}
			if (unneeded.length) await this.remove(unneeded);
		} finally {
			await this.unlock();
		}
	}

	/** Takes the slots out of the count, under the lock; a failure keeps them counted (fewer sent). */
	private async remove(entries: string[]): Promise<void> {
		try {
			await removeFromNode(this.fns, entries);
			for (const entry of entries) {
				const slot = this.slots.get(entry);
				if (slot) this.taken.get(slot.person)?.delete(slot.k);
				this.slots.delete(entry);
			}
		} catch (error) {
			this.failure ??= this.storeError(error, 'give back');
		}
	}

	/**
	 * Runs `work` under the workflow's lock: another write to the node's row (a Retry's note) that
	 * the count's writes must not overwrite, nor be overwritten by.
	 */
	async exclusive(work: () => Promise<void>): Promise<void> {
		await this.lock();
		try {
			await work();
		} finally {
			await this.unlock();
		}
	}

	private async unlock(): Promise<void> {
		try {
			await unlockWorkflow(this.fns);
		} catch (error) {
			// Left to the others' STALE_MS rule.
			this.failure ??= this.storeError(error, 'give back');
		} finally {
			this.holding--;
			this.gaveBack = clock.now();
			// A waiter's turn: its try (a round trip, as this cap's) and its wait of up to 2 POLL_MS.
			this.turnMs = (Math.min(this.tripMs, MAX_TRIP_MS) + 2 * POLL_MS) * (1 + Math.random());
		}
	}

	/**
	 * Waits for the workflow's lock: Max Wait at most (never less than the stale rule needs), a lock
	 * left STALE_MS cleared, none once the execution is cancelled.
	 */
	private async lock(): Promise<void> {
		if (!hasProcessedData(this.fns))
			throw new NodeOperationError(
				this.fns.getNode(),
				`${CAP} needs n8n's processed-data store, which this n8n version does not have: nothing was sent`,
				{ description: `Update n8n, or turn off ${CAP}.` },
			);
		const signal = this.fns.getExecutionCancelSignal?.();
		// Just given back: the waiters' turn first.
		const turn = this.gaveBack + this.turnMs - clock.now();
		if (turn > 0) await clock.sleep(turn);
		const started = clock.now();
		const bound = Math.max(this.maxWaitMs, this.staleMs + STALE_MARGIN_MS);
		let heldSince = started;
		let failures = 0;
		let foreign = false;
		for (;;) {
			let mine = false;
			const tried = clock.now();
			try {
				mine = await lockWorkflow(this.fns);
				failures = 0;
			} catch (error) {
				const why = messageOf(error);
				if (!insertConflict(why)) {
					if (modeConflict(why) || storeNotSetUp(why) || ++failures >= STORE_FAILURES)
						throw this.storeError(error, 'lock');
				} else {
					// Another's insert of the missing row won: held, and by a live holder (it was free).
					failures = 0;
					heldSince = clock.now();
				}
			}
			this.tripMs = clock.now() - tried;
			if (mine) {
				this.holding++;
				return;
			}
			// Cancelled: no more waiting (a free lock is still taken: slots given back, a hold finished).
			if (signal?.aborted) throw this.cancelled();
			const now = clock.now();
			if (now - started >= bound) throw this.tooLong(now - started);
			// Seen held since: the stale rule never counts time this cap held it, nor fires while it does.
			if (!this.holding && now - Math.max(heldSince, this.gaveBack) >= this.staleMs) {
				// Held since this wait began: a worker that crashed holding it, or another node's row.
				let ours: boolean | undefined;
				try {
					ours = await lockLooksOurs(this.fns);
					if (ours) await unlockWorkflow(this.fns);
				} catch {
					// A race with another waiter's clearing: waited on.
				}
				if (ours === false) {
					// Twice, STALE_MS apart: no lock (another waiter's check would have cleared it).
					if (foreign) throw this.foreignRow();
					foreign = true;
				}
				heldSince = clock.now();
				continue;
			}
			// The longer a waiter has waited, the more often it tries: the oldest waiters tend to get
			// the lock first, so that no one sees it held long enough to take a live lock for a left one.
			const age = clock.now() - started;
			await clock.sleep(
				Math.max(MIN_POLL_MS, (POLL_MS * (1 + Math.random())) / (1 + age / AGE_SPEEDUP_MS)),
			);
		}
	}

	private tooLong(waitedMs: number): NodeOperationError {
		const seconds = (ms: number) => Math.round(ms / 1000);
		return new NodeOperationError(
			this.fns.getNode(),
			`${CAP}: the count in n8n's processed-data store stayed in use by other executions for ${seconds(waitedMs)} s (Max Wait ${seconds(this.maxWaitMs)} s): nothing was sent`,
			{
				description: `Other executions of this workflow count at the same time. The count is waited on for Max Wait (Send Options), and never less than ${seconds(this.staleMs + STALE_MARGIN_MS)} s, the time in which a count left in use by a crashed worker is taken over. Run this one again once they have finished, or raise Max Wait.`,
			},
		);
	}

	private cancelled(): NodeOperationError {
		return new NodeOperationError(
			this.fns.getNode(),
			`${CAP}: the execution was cancelled while waiting for the day's count in n8n's processed-data store: nothing was sent`,
		);
	}

	private foreignRow(): NodeOperationError {
		return new NodeOperationError(
			this.fns.getNode(),
			`${CAP}: another node of this workflow keeps its data in n8n's processed-data store with Scope Workflow: nothing was sent`,
			{
				description: `${CAP} counts under the workflow's row of that store, which a Remove Duplicates node (Keep Items Where: Value Is Higher than Any Previous Value, Scope: Workflow) holds. Set that node's Scope to Node (its "Clean Database" operation resets it), or turn off ${CAP}.`,
			},
		);
	}

	private storeError(error: unknown, doing: 'lock' | 'record' | 'give back'): NodeOperationError {
		const why = messageOf(error);
		if (modeConflict(why))
			return new NodeOperationError(
				this.fns.getNode(),
				`${CAP}: another node of this workflow keeps its data in n8n's processed-data store with Scope Workflow: nothing was sent`,
				{
					description: `${CAP} counts under the workflow's row of that store, which another node (a Remove Duplicates node with Scope: Workflow) wrote in its own mode; n8n said: ${why.replace(/\.?$/, '.')} Set that node's Scope to Node, or turn off ${CAP}.`,
				},
			);
		if (storeNotSetUp(why))
			return new NodeOperationError(
				this.fns.getNode(),
				`${CAP} needs n8n's processed-data store, which is not set up here: nothing was sent`,
				{ description: `${why.replace(/\.?$/, '.')} Turn off ${CAP}, or run the workflow in n8n.` },
			);
		const message =
			doing === 'give back'
				? `${CAP}: a message not sent could not be taken out of the day's count in n8n's processed-data store`
				: `${CAP}: could not read the day's count in n8n's processed-data store: nothing was sent`;
		const after =
			doing === 'give back'
				? 'Its place stays counted: fewer may be sent to that person today.'
				: "Run again once n8n's database answers.";
		return new NodeOperationError(this.fns.getNode(), message, {
			description: `${why.replace(/\.?$/, '.')} ${after}`,
		});
	}
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
