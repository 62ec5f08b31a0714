import type { IExecuteFunctions, NodeOperationError } from 'n8n-workflow';

import {
	hasProcessedData,
	insertConflict,
	lockLooksOurs,
	lockWorkflow,
	modeConflict,
	storeNotSetUp,
	unlockWorkflow,
} from '../n8nProcessedData';
import { clock } from '../clock';
import { cancelled, foreignRow, messageOf, noStore, storeError, tooLong } from './capErrors';

/*
 * The lock the daily count (./dailyCap.ts) writes under, as n8n's processed-data store has none:
 * the workflow's row of the store, taken by lockWorkflow, given back by deleting it (how n8n
 * answers: ../n8nProcessedData.ts; the whole design: docs/RECIPIENT_RULES.md, The daily count).
 * A lost insert race (insertConflict) is contention: held, never a failure.
 * - Fairness: a holder that gave the lock back waits a waiter's whole turn before it tries again,
 *   so a waiter takes it first: two busy holders never keep a third out (whose stale rule would
 *   then clear a live lock).
 * - A lock seen held at every try for STALE_MS (and a jitter) of one waiter's continuous waiting is
 *   taken as left by a crashed worker (a hold lasts a few calls), and cleared, once lockLooksOurs
 *   says it holds WORKFLOW_LOCK: another node's row is never cleared, but named. Never while this
 *   cap holds the lock (a Retry's note waiting on a batch of the same run), nor counting the time
 *   before it last gave it back.
 * - Waiting ends after Max Wait, but never before the stale rule could clear a left lock, or at
 *   once when the execution is cancelled: the claims waiting fail, nothing sent.
 */

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

/** The workflow's lock, as one daily cap takes it and gives it back. */
export class WorkflowLock {
	private readonly staleMs = STALE_MS + Math.random() * STALE_JITTER_MS;
	/** Holds of the lock by this cap now (a round, an exclusive): the lock is live, never stale. */
	private holding = 0;
	/** When this cap last gave the lock back, and how long it lets waiters have their turn from then. */
	private gaveBack = -Infinity;
	private turnMs = 0;
	/** The round trip of this cap's last try of the lock. */
	private tripMs = 0;

	constructor(
		private readonly fns: IExecuteFunctions,
		private readonly maxWaitMs: number,
	) {}

	/**
	 * Waits for the workflow's lock: Max Wait at most (never less than the stale rule needs), a lock
	 * left STALE_MS cleared, none once the execution is cancelled.
	 */
	async take(): Promise<void> {
		if (!hasProcessedData(this.fns)) throw noStore(this.fns);
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
						throw storeError(this.fns, error, 'lock');
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
			if (signal?.aborted) throw cancelled(this.fns);
			const now = clock.now();
			if (now - started >= bound)
				throw tooLong(this.fns, now - started, this.maxWaitMs, this.staleMs + STALE_MARGIN_MS);
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
					if (foreign) throw foreignRow(this.fns);
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

	/** Gives the lock back; a failure is returned (the lock is left to the others' STALE_MS rule). */
	async giveBack(): Promise<NodeOperationError | undefined> {
		try {
			await unlockWorkflow(this.fns);
			return undefined;
		} catch (error) {
			// Left to the others' STALE_MS rule.
			return storeError(this.fns, error, 'give back');
		} finally {
			this.holding--;
			this.gaveBack = clock.now();
			// A waiter's turn: its try (a round trip, as this cap's) and its wait of up to 2 POLL_MS.
			this.turnMs = (Math.min(this.tripMs, MAX_TRIP_MS) + 2 * POLL_MS) * (1 + Math.random());
		}
	}
}
