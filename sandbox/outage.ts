// Outage mode: the service's host stops listening for a while, then listens again on the same
// address, as in a restart: new connections are refused by the OS (ECONNREFUSED), while those
// already accepted keep going and their requests are answered. Sandbox only, like faults.
import type * as http from 'http';

import type { Clock } from './clock';

/** setTimeout's limit: a longer delay would fire at once. */
export const MAX_OUTAGE_MS = 2_147_483_647;

/** What is wrong with an outage's length, if anything. */
export function outageMsProblem(ms: unknown): string | undefined {
	if (Number.isInteger(ms) && (ms as number) >= 0 && (ms as number) <= MAX_OUTAGE_MS)
		return undefined;
	return `ms must be an integer from 0 to ${MAX_OUTAGE_MS}, got ${typeof ms === 'number' ? String(ms) : JSON.stringify(ms)}`;
}

/** The body of `POST /__sandbox/outage`: `{"ms": number}`. */
export function parseOutageBody(raw: string): { ms: number } | { error: string } {
	let value: unknown;
	try {
		value = JSON.parse(raw);
	} catch {
		return { error: 'body must be JSON: {"ms": number}' };
	}
	if (!value || typeof value !== 'object' || Array.isArray(value))
		return { error: 'body must be {"ms": number}' };
	const { ms, ...rest } = value as Record<string, unknown>;
	const problems = [
		...Object.keys(rest).map((name) => `${name} is not an outage field`),
		outageMsProblem(ms),
	].filter(Boolean);
	return problems.length ? { error: problems.join('; ') } : { ms: ms as number };
}

/** Whether the server listens now and, during an outage, when it is due to listen again (the clock's time). */
export interface OutageView {
	listening: boolean;
	endsAt?: number;
}

/**
 * Stops and restarts the listening of one server. An outage asked for while one runs ends at the
 * later of the two ends (an outage is never shortened) and does not count as a new one.
 */
export class Outage {
	private endsAt: number | undefined;
	/** Cancels the scheduled end of the outage. */
	private cancelEnd: (() => void) | undefined;
	private waiters: Array<{ resolve(): void; reject(err: Error): void }> = [];
	/** The listen() under way at the end of an outage, so that stop() can wait for it. */
	private relistening: Promise<void> | undefined;
	private stopped = false;

	constructor(
		private readonly server: http.Server,
		private readonly host: string,
		private readonly port: number,
		private readonly onStart: () => void,
		private readonly clock: Clock,
	) {}

	get view(): OutageView {
		return this.endsAt === undefined
			? { listening: this.server.listening }
			: { listening: this.server.listening, endsAt: this.endsAt };
	}

	/** Resolves when the server listens again (or stop() ends the outage); rejects if it cannot listen again. */
	begin(ms: number): Promise<void> {
		const problem = outageMsProblem(ms);
		if (problem) return Promise.reject(new Error(`Invalid outage: ${problem}`));
		if (this.stopped) return Promise.resolve();
		// Asked for while the server is opening again: a new outage once it listens.
		if (this.relistening) return this.relistening.then(() => this.begin(ms));
		const endsAt = this.clock.now() + ms;
		if (this.endsAt === undefined) {
			this.onStart();
			// Not closeAllConnections: accepted connections go on, as in a graceful restart.
			// (http.Server.close also closes idle keep-alive connections, as such a restart does.)
			this.server.close();
		}
		if (this.endsAt === undefined || endsAt > this.endsAt) this.schedule(endsAt);
		return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
	}

	/** Ends any outage for good, without listening again (the sandbox is closing). */
	async stop(): Promise<void> {
		this.stopped = true;
		this.cancelEnd?.();
		// A listen() already under way would otherwise open the server after close() closed it.
		const relistening = this.relistening;
		this.settle();
		await relistening;
	}

	private schedule(endsAt: number): void {
		this.cancelEnd?.();
		this.endsAt = endsAt;
		this.cancelEnd = this.clock.after(endsAt - this.clock.now(), () => {
			this.relistening = this.listenAgain().then(
				() => this.settle(),
				(err: Error) => this.settle(err),
			);
		});
	}

	private listenAgain(): Promise<void> {
		return new Promise((resolve, reject) => {
			const failed = (err: Error) =>
				reject(
					new Error(`Sandbox could not listen again on ${this.host}:${this.port}: ${err.message}`),
				);
			this.server.once('error', failed);
			this.server.listen(this.port, this.host, () => {
				this.server.off('error', failed);
				resolve();
			});
		});
	}

	private settle(err?: Error): void {
		this.endsAt = undefined;
		this.cancelEnd = undefined;
		this.relistening = undefined;
		const waiters = this.waiters;
		this.waiters = [];
		for (const w of waiters)
			if (err) w.reject(err);
			else w.resolve();
	}
}
