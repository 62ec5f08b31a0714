import type { IExecuteFunctions } from 'n8n-workflow';

import { recordInNode, removeFromNode } from '../n8nProcessedData';
import { clock } from '../clock';
import { MAX_RETRIED_STOPS } from '../sendLoop/runMemory';
import { storeError } from './capErrors';
import { WorkflowLock } from './workflowLock';

/*
 * Max Messages per Person per Day, counted in n8n's processed-data store, shared by every worker
 * and kept through restarts (how and why: docs/RECIPIENT_RULES.md, The daily count). Each message
 * the service may take holds a slot, one entry `cap <recipient> <day> <k>` (k = 1 to the cap) in
 * the node's row. The store has no pure read and no lock, so every write happens under
 * ./workflowLock.ts, and a slot is read by recording it: n8n answers which were there (taken) and
 * which it recorded (free until now); the free ones no claim took are removed in the same hold.
 * Claims arriving while a batch is settled, or within ROUND_GAP_MS of the last, go in the next (at
 * most BATCH); a slot given back (release) goes with the next batch, or flush() at the end of the
 * run, unless a claim for the same person takes it over. Nothing here is sent: the caller sends
 * only on a slot. What fails leaves slots taken, never free ones counted: the cap sends fewer that
 * day, never more.
 */

/** Claims settled under one hold of the lock, at most. */
export const BATCH = 200;
/** The least time between two batches' starts (more claims wait for the next), unless one is full. */
export const ROUND_GAP_MS = 250;

type Answer = { slot: string } | { capped: true };

interface Claim {
	person: string;
	resolve(answer: Answer): void;
	reject(error: unknown): void;
}

const entryOf = (person: string, k: number) => `cap ${person} ${k}`;

export class DailyCap {
	private readonly max: number;
	private readonly lock: WorkflowLock;
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

	constructor(
		private readonly fns: IExecuteFunctions,
		max: number,
		maxWaitMs: number,
	) {
		this.max = Math.max(1, Math.floor(max));
		this.lock = new WorkflowLock(fns, maxWaitMs);
	}

	/** A slot: may go (it is taken for it); capped: may not. recipient: digits or socialnet id; day: 'YYYY-MM-DD' local. */
	async claim(recipient: string, day: string): Promise<Answer> {
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

		await this.exclusive(async () => {
			if (asked.size) {
				const entries = [...asked].flatMap(([person, ks]) => ks.map((k) => entryOf(person, k)));
				let recorded: Set<string>;
				try {
					recorded = await recordInNode(this.fns, entries, MAX_RETRIED_STOPS);
				} catch (error) {
					throw storeError(this.fns, error, 'record');
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
		});
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
			this.failure ??= storeError(this.fns, error, 'give back');
		}
	}

	/**
	 * Runs `work` under the workflow's lock: a batch, or another write to the node's row (a Retry's
	 * note) that the count's writes must not overwrite, nor be overwritten by.
	 */
	async exclusive(work: () => Promise<void>): Promise<void> {
		await this.lock.take();
		try {
			await work();
		} finally {
			// A failure to give it back is the run's after the claims are answered (flush).
			const failure = await this.lock.giveBack();
			this.failure ??= failure;
		}
	}
}
