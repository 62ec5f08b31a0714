import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { apiBaseUrl } from '../shared/baseUrl';
import { clock } from '../shared/clock';
import type { Unreached } from '../shared/network';
import { Pacer } from './pacer';
import { Slots } from './slots';

/**
 * The send loops of this process that send to one service account (one Base URL and token),
 * whatever execution runs them: they share one pace, since the service limits the account, not
 * the execution, and they wait out an outage together. A lane exists while an execution sends
 * through it, keyed by a hash of the account (it keeps no token, nor any request or error that
 * could hold one), and is dropped with the last.
 *
 * An outage: a request that never reached the service (../network.ts, unreachedBy) pauses every
 * request of the lane; one request at a time probes the service, PROBE_FIRST_MS after the
 * failure, then at intervals growing by PROBE_GROWTH up to PROBE_MAX_MS (a probe that hangs
 * longer than PROBE_MAX_MS lets another go). An answer to a request sent since the outage began
 * ends it, and sending starts over at the pace found before. An execution waits for the service
 * at most its Max Wait over all outages, and FIRST_CONTACT_MS at most while the lane has never
 * been answered (a wrong Base URL should not hold a workflow for minutes); then every item it
 * has not sent fails with a message that says so.
 */
const PROBE_FIRST_MS = 250;
const PROBE_GROWTH = 1.5;
export const PROBE_MAX_MS = 2000;
const FIRST_CONTACT_MS = 10_000;

const lanes = new Map<string, Lane>();

/** A request's place: whether it probes an outage, and when it was let through. */
export interface Ticket {
	probe: boolean;
	at: number;
}

/** The execution stopped waiting for an unreachable service, after `waitedMs` at least: its items are not sent. */
export class GaveUp {
	constructor(
		readonly cause: Unreached,
		readonly waitedMs: number,
		readonly firstContact: boolean,
	) {}
}

/** The execution was stopped (cancelled, or failed on another item) while its items waited. */
export class Stopped {}

interface Outage {
	since: number;
	nextProbeAt: number;
	interval: number;
	/** When the probe in flight was let through, or 0. */
	probeAt: number;
	cause: Unreached;
}

class Lane {
	readonly pacer: Pacer;
	readonly members = new Set<Member>();
	/** Whether the service has answered a request of this lane. */
	answered = false;
	outage?: Outage;
	/** When the last outage ended: requests let through before then say nothing new. */
	private outageEndedAt = 0;
	/** Resolved, and replaced, whenever the outage changes or its next probe is due. */
	private changed!: Promise<void>;
	private wake!: () => void;

	constructor(
		private readonly key: string,
		maxInFlight: number,
	) {
		this.renew();
		this.pacer = new Pacer(maxInFlight, () => {
			let remaining = 0;
			for (const member of this.members) remaining += member.remaining;
			return remaining;
		});
	}

	join(member: Member): void {
		this.members.add(member);
		this.pacer.setMaxInFlight(this.maxInFlight());
	}

	leave(member: Member): void {
		this.members.delete(member);
		if (this.members.size === 0) lanes.delete(this.key);
		else this.pacer.setMaxInFlight(this.maxInFlight());
	}

	private maxInFlight(): number {
		return Math.max(...[...this.members].map((member) => member.maxInFlight));
	}

	/** The next change of the outage (one promise for every waiting request, renewed at each change). */
	next(): Promise<void> {
		return this.changed;
	}

	private renew(): void {
		this.changed = new Promise<void>((resolve) => (this.wake = resolve));
	}

	private notify(): void {
		const wake = this.wake;
		this.renew();
		wake();
	}

	/** The service answered (or cut a connection it had accepted): a request sent since the outage began ends it. */
	reached(ticket: Ticket): void {
		this.answered = true;
		const outage = this.outage;
		if (!outage || ticket.at < outage.since) return;
		const now = clock.now();
		for (const member of this.members) member.endOutage(outage.since, now);
		this.outage = undefined;
		this.outageEndedAt = now;
		this.pacer.restart();
		this.notify();
	}

	/** A request never reached the service: an outage begins, or its probe failed and the next waits longer. */
	unreachable(ticket: Ticket, cause: Unreached): void {
		const now = clock.now();
		const outage = this.outage;
		if (!outage) {
			if (ticket.at < this.outageEndedAt) return;
			this.outage = {
				since: now,
				nextProbeAt: now + PROBE_FIRST_MS,
				interval: PROBE_FIRST_MS,
				probeAt: 0,
				cause,
			};
			void this.tick(this.outage);
			return;
		}
		outage.cause = cause;
		if (ticket.probe && ticket.at >= outage.since) this.probeDone(outage, now, true);
	}

	/** A request ended without telling whether the service is there (a timeout, a refused value): a probe may go again. */
	inconclusive(ticket: Ticket): void {
		const outage = this.outage;
		if (outage && ticket.probe && ticket.at >= outage.since)
			this.probeDone(outage, clock.now(), false);
	}

	/** Whether this request may go as the outage's probe: none is in flight, or the one in flight hangs. */
	takeProbe(outage: Outage, now: number): boolean {
		const free = outage.probeAt === 0 || now - outage.probeAt >= PROBE_MAX_MS;
		if (!free || now < outage.nextProbeAt) return false;
		outage.probeAt = now;
		outage.nextProbeAt = now + outage.interval;
		return true;
	}

	private probeDone(outage: Outage, now: number, failed: boolean): void {
		outage.probeAt = 0;
		if (failed) outage.interval = Math.min(PROBE_MAX_MS, outage.interval * PROBE_GROWTH);
		outage.nextProbeAt = now + outage.interval;
	}

	/** While the outage lasts, wakes the waiting requests when a probe is due, and at least every PROBE_MAX_MS (for their budgets and cancellation). */
	private async tick(outage: Outage): Promise<void> {
		// Until the outage ends, or the lane is dropped (its last execution gave up or ended).
		while (this.outage === outage && this.members.size > 0) {
			await clock.sleep(Math.max(1, Math.min(PROBE_MAX_MS, outage.nextProbeAt - clock.now())));
			if (this.outage === outage) this.notify();
		}
	}
}

/** One execution's part in a lane. */
export class Member {
	/** Items of this execution not yet settled, for the lane's pace (./pacer.ts). */
	remaining = 0;
	private readonly slots: Slots;
	private readonly joinedAt = clock.now();
	/** Time spent waiting in outages that have ended. */
	private waitedMs = 0;
	private gaveUp?: GaveUp;

	constructor(
		private readonly lane: Lane,
		readonly maxInFlight: number,
		private readonly maxWaitMs: number,
		private readonly stopped: () => boolean,
	) {
		this.slots = new Slots(maxInFlight);
		lane.join(this);
	}

	/**
	 * Waits out an outage, then for a place among this execution's and the lane's requests and
	 * for the pace. Instead of a place: why this execution stopped waiting.
	 */
	async acquire(): Promise<Ticket | GaveUp | Stopped> {
		const probe = await this.passOutage();
		if (typeof probe !== 'boolean') return probe;
		await this.slots.take();
		await this.lane.pacer.acquire();
		return { probe, at: clock.now() };
	}

	release(): void {
		this.lane.pacer.release();
		this.slots.give();
	}

	accept(ticket: Ticket): void {
		this.lane.reached(ticket);
		this.lane.pacer.accept();
	}

	refuse(ticket: Ticket, overloaded: boolean): void {
		this.lane.reached(ticket);
		this.lane.pacer.refuse(overloaded);
	}

	/** The request's connection was made, whatever came of it. */
	reached(ticket: Ticket): void {
		this.lane.reached(ticket);
	}

	unreachable(ticket: Ticket, cause: Unreached): void {
		this.lane.unreachable(ticket, cause);
	}

	inconclusive(ticket: Ticket): void {
		this.lane.inconclusive(ticket);
	}

	/** How long this execution waited for the service in outages: those that ended, and the one it gave up in. */
	get outageMs(): number {
		return Math.max(this.waitedMs, this.gaveUp?.waitedMs ?? 0);
	}

	endOutage(since: number, now: number): void {
		this.waitedMs += now - Math.max(since, this.joinedAt);
	}

	leave(): void {
		this.lane.leave(this);
	}

	/** Whether this request is the outage's probe; or why this execution stopped waiting. */
	private async passOutage(): Promise<boolean | GaveUp | Stopped> {
		for (;;) {
			if (this.gaveUp) return this.gaveUp;
			const outage = this.lane.outage;
			if (!outage) return false;
			if (this.stopped()) return new Stopped();
			const now = clock.now();
			const firstContact = !this.lane.answered;
			const waited = this.waitedMs + now - Math.max(outage.since, this.joinedAt);
			const budget = firstContact ? Math.min(this.maxWaitMs, FIRST_CONTACT_MS) : this.maxWaitMs;
			if (waited >= budget) return (this.gaveUp = new GaveUp(outage.cause, budget, firstContact));
			if (this.lane.takeProbe(outage, now)) return true;
			await this.lane.next();
		}
	}
}

/** The hash that names an account's lane: the Base URL as the credential sends it, and the token. */
export function accountKey(credentials: ICredentialDataDecryptedObject): string {
	return createHash('sha256')
		.update(`${apiBaseUrl(credentials.baseUrl)}\n${String(credentials.apiToken ?? '')}`)
		.digest('hex');
}

/** Joins the lane of the credential's account, made for it when no execution of this process sends to it. */
export function joinLane(
	credentials: ICredentialDataDecryptedObject,
	settings: { maxInFlight: number; maxWaitMs: number; stopped: () => boolean },
): Member {
	const key = accountKey(credentials);
	let lane = lanes.get(key);
	if (!lane) lanes.set(key, (lane = new Lane(key, settings.maxInFlight)));
	return new Member(lane, settings.maxInFlight, settings.maxWaitMs, settings.stopped);
}

/** How many lanes this process holds: none once no execution sends. */
export function openLanes(): number {
	return lanes.size;
}
