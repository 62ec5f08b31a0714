import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { apiBaseUrl } from '../../../../credentials/ConversationalMessagingApi.credentials';
import { Pacer, Slots } from './pacer';

/**
 * The send loops of this process that send to one service account (one Base URL and token),
 * whatever execution runs them: they share one pace, since the service limits the account, not
 * the execution, and they wait out an outage together. A lane exists while an execution sends
 * through it, keyed by a hash of the account (no token is kept), and is dropped with the last.
 *
 * An outage: a request that never reached the service (./network.ts, neverReached) pauses every
 * request of the lane; one request at a time probes the service, PROBE_FIRST_MS after the
 * failure and then at intervals growing by PROBE_GROWTH up to PROBE_MAX_MS; the first answer to a
 * request sent since the outage began ends it, and sending starts over at the pace found before.
 * An execution waits for the service at most its Max Wait; then every item it has not sent fails
 * with a message that says so.
 */
const PROBE_FIRST_MS = 250;
const PROBE_GROWTH = 1.5;
const PROBE_MAX_MS = 2000;
/** The longest a waiting request sleeps before it looks again at the outage, its budget and cancellation. */
const LOOK_AGAIN_MS = 1000;

const lanes = new Map<string, Lane>();

/** A request's place: whether it probes an outage, and when it was let through. */
export interface Ticket {
	probe: boolean;
	at: number;
}

/** The execution gave up waiting for an unreachable service: its items are not sent. */
export class GaveUp {
	constructor(
		readonly lastError: unknown,
		readonly waitedMs: number,
	) {}
}

/** The execution was cancelled while its items waited for the service. */
export class Cancelled {}

interface Outage {
	since: number;
	nextProbeAt: number;
	interval: number;
	probing: boolean;
	ended: Promise<void>;
	end: () => void;
	lastError: unknown;
}

class Lane {
	readonly pacer: Pacer;
	readonly members = new Set<Member>();
	/** Whether the service has answered a request of this lane: until then, a connection failure means a wrong Base URL rather than an outage. */
	answered = false;
	outage?: Outage;
	/** When the last outage ended: requests let through before then say nothing new. */
	private outageEndedAt = 0;

	constructor(
		private readonly key: string,
		maxInFlight: number,
	) {
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

	/** A request got an answer, or at least a connection: a request sent since the outage began ends it. */
	reached(ticket: Ticket): void {
		this.answered = true;
		const outage = this.outage;
		if (!outage || (!ticket.probe && ticket.at < outage.since)) return;
		this.outage = undefined;
		this.outageEndedAt = Date.now();
		outage.end();
		this.pacer.restart();
	}

	/** A request never reached the service: an outage begins, or its probe failed and the next waits longer. */
	unreachable(ticket: Ticket, error: unknown): void {
		const now = Date.now();
		const outage = this.outage;
		if (!outage) {
			if (ticket.at < this.outageEndedAt) return;
			let end = () => {};
			const ended = new Promise<void>((resolve) => (end = resolve));
			this.outage = { since: now, nextProbeAt: now + PROBE_FIRST_MS, interval: PROBE_FIRST_MS, probing: false, ended, end, lastError: error };
			return;
		}
		outage.lastError = error;
		if (!ticket.probe) return;
		outage.probing = false;
		outage.interval = Math.min(PROBE_MAX_MS, outage.interval * PROBE_GROWTH);
		outage.nextProbeAt = now + outage.interval;
	}
}

/** One execution's part in a lane. */
export class Member {
	/** Items of this execution not yet settled, for the lane's pace (./pacer.ts). */
	remaining = 0;
	private readonly slots: Slots;
	private readonly joinedAt = Date.now();
	private gaveUp?: GaveUp;

	constructor(
		private readonly lane: Lane,
		readonly maxInFlight: number,
		private readonly maxWaitMs: number,
		private readonly cancelled: () => boolean,
	) {
		this.slots = new Slots(maxInFlight);
		lane.join(this);
	}

	get answered(): boolean {
		return this.lane.answered;
	}

	/**
	 * Waits out an outage, then for a place among this execution's and the lane's requests and
	 * for the pace. Instead of a place: why this execution stopped waiting for the service.
	 */
	async acquire(): Promise<Ticket | GaveUp | Cancelled> {
		const probe = await this.passOutage();
		if (typeof probe !== 'boolean') return probe;
		await this.slots.take();
		await this.lane.pacer.acquire();
		return { probe, at: Date.now() };
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

	/** The request connected, whatever came of it. */
	reached(ticket: Ticket): void {
		this.lane.reached(ticket);
	}

	unreachable(ticket: Ticket, error: unknown): void {
		this.lane.unreachable(ticket, error);
	}

	leave(): void {
		this.lane.leave(this);
	}

	/** Whether this request is the outage's probe; or why this execution stopped waiting. */
	private async passOutage(): Promise<boolean | GaveUp | Cancelled> {
		for (;;) {
			if (this.gaveUp) return this.gaveUp;
			const outage = this.lane.outage;
			if (!outage) return false;
			if (this.cancelled()) return new Cancelled();
			const now = Date.now();
			const waited = now - Math.max(outage.since, this.joinedAt);
			if (waited >= this.maxWaitMs) return (this.gaveUp = new GaveUp(outage.lastError, waited));
			if (!outage.probing && now >= outage.nextProbeAt) {
				outage.probing = true;
				return true;
			}
			const untilProbe = outage.probing ? LOOK_AGAIN_MS : outage.nextProbeAt - now;
			await Promise.race([outage.ended, sleep(Math.max(1, Math.min(untilProbe, this.maxWaitMs - waited, LOOK_AGAIN_MS)))]);
		}
	}
}

/** The hash that names an account's lane: the Base URL as the credential sends it, and the token. */
export function accountKey(credentials: ICredentialDataDecryptedObject): string {
	return createHash('sha256').update(`${apiBaseUrl(credentials.baseUrl)}\n${String(credentials.apiToken ?? '')}`).digest('hex');
}

/** Joins the lane of the credential's account, made for it when no execution of this process sends to it. */
export function joinLane(credentials: ICredentialDataDecryptedObject, settings: { maxInFlight: number; maxWaitMs: number; cancelled: () => boolean }): Member {
	const key = accountKey(credentials);
	let lane = lanes.get(key);
	if (!lane) lanes.set(key, (lane = new Lane(key, settings.maxInFlight)));
	return new Member(lane, settings.maxInFlight, settings.maxWaitMs, settings.cancelled);
}

/** How many lanes this process holds: none once no execution sends. */
export function openLanes(): number {
	return lanes.size;
}
