import { createHash } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { apiBaseUrl } from '../service/account';
import type { Unreached } from '../service/network';
import { clock } from '../clock';
import { Pacer, Slots } from './pacer';

/**
 * The send loops of this process that send to one service account (Base URL and token), whatever
 * execution runs them, share one pace (./pacer.ts), since the service limits the account, and
 * wait out an outage together. A lane lives while an execution sends through it, keyed by a hash
 * of the account (no token, request or error kept).
 *
 * An outage (a request never reached the service) pauses the lane but for one probe at a time,
 * PROBE_FIRST_MS after the failure, then at intervals growing by PROBE_GROWTH up to PROBE_MAX_MS
 * (a probe that hangs longer lets another go); an answer to a request sent since it began ends it.
 * An execution waits at most its Max Wait over all outages, and FIRST_CONTACT_MS while this process
 * never had an answer from the account (a wrong Base URL should not hold a workflow for minutes).
 */
const PROBE_FIRST_MS = 250;
const PROBE_GROWTH = 1.5;
export const PROBE_MAX_MS = 2000;
const FIRST_CONTACT_MS = 10_000;

const lanes = new Map<string, Lane>();

/**
 * The accounts (by lane key) the service has answered in this process. Kept beyond their lanes: an
 * execution that starts an idle account's lane during an outage waits its Max Wait, not as for a
 * wrong Base URL. Past ANSWERED_KEPT, the account answered longest ago is forgotten.
 */
const answeredAccounts = new Set<string>();
const ANSWERED_KEPT = 1000;

function rememberAnswered(key: string): void {
	// Last answered last in the set's order.
	answeredAccounts.delete(key);
	answeredAccounts.add(key);
	if (answeredAccounts.size > ANSWERED_KEPT)
		answeredAccounts.delete(answeredAccounts.values().next().value as string);
}

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
	cause: Unreached;
	interval: number;
	nextProbeAt: number;
	/** When the probe in flight was let through, or 0. */
	probeAt: number;
}

class Lane {
	readonly members = new Set<Member>();
	// Asked at every request: read in place, without copying the members.
	readonly pacer = new Pacer({
		maxInFlight: () => {
			let max = -Infinity;
			for (const member of this.members) max = Math.max(max, member.maxInFlight);
			return max;
		},
		remaining: () => {
			let remaining = 0;
			for (const member of this.members) remaining += member.remaining;
			return remaining;
		},
	});
	outage?: Outage;
	/** When the last outage ended: requests let through before then say nothing new. */
	private outageEndedAt = 0;
	/** The requests waiting for the outage to change. */
	private waiting: Array<() => void> = [];

	constructor(readonly key: string) {}

	leave(member: Member): void {
		this.members.delete(member);
		if (!this.members.size) lanes.delete(this.key);
	}

	/** The next change of the outage: it ended, a probe is due, or PROBE_MAX_MS passed. */
	next(): Promise<void> {
		return new Promise((resolve) => this.waiting.push(resolve));
	}

	private notify(): void {
		for (const wake of this.waiting.splice(0)) wake();
	}

	/** Whether the request probed the outage under way. */
	private probed(ticket: Ticket): boolean {
		return ticket.probe && this.outage !== undefined && ticket.at >= this.outage.since;
	}

	/** The service answered (or cut a connection it had accepted): a request sent since the outage began ends it. */
	reached(ticket: Ticket): void {
		rememberAnswered(this.key);
		if (!this.outage || ticket.at < this.outage.since) return;
		const now = clock.now();
		for (const member of this.members) member.waitedOut(this.outage.since, now);
		this.outage = undefined;
		this.outageEndedAt = now;
		this.pacer.restart();
		this.notify();
	}

	/** A request never reached the service: an outage begins, or its probe failed and the next waits longer. */
	unreachable(ticket: Ticket, cause: Unreached): void {
		if (this.outage) {
			this.outage.cause = cause;
			if (this.probed(ticket)) this.probeDone(true);
		} else if (ticket.at >= this.outageEndedAt) {
			const now = clock.now();
			this.outage = { since: now, cause, interval: PROBE_FIRST_MS, nextProbeAt: now, probeAt: 0 };
			this.probeDone(false);
			void this.tick(this.outage);
		}
	}

	/** A request ended without telling whether the service is there (a timeout, a refused value): a probe may go again. */
	inconclusive(ticket: Ticket): void {
		if (this.probed(ticket)) this.probeDone(false);
	}

	/** Whether this request may go as the outage's probe: none is in flight, or the one in flight hangs. */
	takeProbe(outage: Outage, now: number): boolean {
		const free = !outage.probeAt || now - outage.probeAt >= PROBE_MAX_MS;
		if (!free || now < outage.nextProbeAt) return false;
		outage.probeAt = now;
		outage.nextProbeAt = now + outage.interval;
		return true;
	}

	private probeDone(failed: boolean): void {
		const outage = this.outage as Outage;
		outage.probeAt = 0;
		if (failed) outage.interval = Math.min(PROBE_MAX_MS, outage.interval * PROBE_GROWTH);
		outage.nextProbeAt = clock.now() + outage.interval;
	}

	/** While the outage lasts and the lane sends, wakes the waiting requests when a probe is due, and at least every PROBE_MAX_MS (for their budgets and cancellation). */
	private async tick(outage: Outage): Promise<void> {
		while (this.outage === outage && this.members.size) {
			await clock.sleep(Math.max(1, Math.min(PROBE_MAX_MS, outage.nextProbeAt - clock.now())));
			if (this.outage === outage) this.notify();
		}
	}
}

/** One execution's part in a lane. */
export class Member {
	/** Items of this execution not yet settled, for the lane's pace (./pacer.ts). */
	remaining = 0;
	private readonly slots = new Slots(this.maxInFlight);
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
		lane.members.add(this);
	}

	/** Waits out an outage, then for a place (this execution's and the lane's) and the pace. */
	async acquire(): Promise<Ticket | GaveUp | Stopped> {
		const probe = await this.passOutage();
		if (typeof probe !== 'boolean') return probe;
		await this.slots.take();
		const ticket = { probe, at: await this.lane.pacer.acquire() };
		if (!this.stopped()) return ticket;
		// Stopped while it waited for the pace: nothing is sent, and a probe it took may go again.
		this.release();
		this.lane.inconclusive(ticket);
		return new Stopped();
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
	readonly reached = (ticket: Ticket) => this.lane.reached(ticket);
	readonly unreachable = (ticket: Ticket, cause: Unreached) => this.lane.unreachable(ticket, cause);
	readonly inconclusive = (ticket: Ticket) => this.lane.inconclusive(ticket);

	/** How long this execution waited for the service in outages: those that ended, and the one it gave up in. */
	get outageMs(): number {
		return Math.max(this.waitedMs, this.gaveUp?.waitedMs ?? 0);
	}

	waitedOut(since: number, now: number): void {
		this.waitedMs += now - Math.max(since, this.joinedAt);
	}

	readonly leave = () => this.lane.leave(this);

	/** Whether this request is the outage's probe; or why this execution stopped waiting. */
	private async passOutage(): Promise<boolean | GaveUp | Stopped> {
		for (;;) {
			if (this.stopped()) return new Stopped();
			const outage = this.lane.outage;
			if (this.gaveUp || !outage) return this.gaveUp ?? false;
			const now = clock.now();
			const firstContact = !answeredAccounts.has(this.lane.key);
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
	if (!lane) lanes.set(key, (lane = new Lane(key)));
	return new Member(lane, settings.maxInFlight, settings.maxWaitMs, settings.stopped);
}

/** How many lanes this process holds: none once no execution sends. */
export const openLanes = (): number => lanes.size;
