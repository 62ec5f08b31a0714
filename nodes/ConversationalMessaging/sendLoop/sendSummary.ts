import type { NodeExecutionHint } from 'n8n-workflow';

import { clock } from '../clock';
import { count, itemList, outputHint, plural } from '../words';

/**
 * What happened to one node run's requests, as an execution hint above the output (nothing when
 * the service never slowed the run down and no item failed). This execution's figures, not its
 * lane's; under Retry On Fail, the try that returns (n8n shows its hints only).
 */
export class SendSummary {
	private rateLimited = 0;
	private overloaded = 0;
	/** Refused requests sent again, and the longest wait from a refusal to going again. */
	private resentAfterRefusal = 0;
	private longestWaitMs = 0;
	private resentAfterOutage = 0;
	/** Items an earlier try had sent; items an earlier execution had (n8n's Retry of it), by execution. */
	private reused = 0;
	private readonly sentEarlier = new Map<string, number>();
	private readonly failed = new Set<number>();
	/** Of those, the items the service may have carried out (no answer came). */
	private readonly unsure = new Set<number>();
	/** Refused items until their request goes again (since when), and those not reached until one does. */
	private readonly refusedAt = new Map<number, number>();
	private readonly notReached = new Set<number>();

	constructor(private readonly items: number) {}

	/** An item's request is let through, at `at`. */
	sending(itemIndex: number, at: number): void {
		const refusedAt = this.refusedAt.get(itemIndex);
		if (refusedAt === undefined) return;
		this.refusedAt.delete(itemIndex);
		this.resentAfterRefusal++;
		this.longestWaitMs = Math.max(this.longestWaitMs, at - refusedAt);
	}

	/** The service said "too fast": 429, or 503 with Retry-After (overloaded). */
	refused(itemIndex: number, overloaded: boolean): void {
		if (overloaded) this.overloaded++;
		else this.rateLimited++;
		this.refusedAt.set(itemIndex, clock.now());
	}

	unreached(itemIndex: number): void {
		this.notReached.add(itemIndex);
	}

	/** The item's request went out and did not fail for want of the service (an answer, or any other error). */
	reached(itemIndex: number): void {
		if (this.notReached.delete(itemIndex)) this.resentAfterOutage++;
	}

	/** The item's answer came from an earlier try, or from an earlier execution (`by`): not sent again. */
	reusedAnswer(by?: string): void {
		if (by === undefined) this.reused++;
		else this.sentEarlier.set(by, (this.sentEarlier.get(by) ?? 0) + 1);
	}

	/** The item comes out as an error item (continue-on-fail); `unsure`: the service may have carried it out. */
	failedItem(itemIndex: number, unsure = false): void {
		this.failed.add(itemIndex);
		if (unsure) this.unsure.add(itemIndex);
	}

	/**
	 * What to tell the user about this run, if anything happened; `outageMs`: the time it waited for
	 * the service in outages (./lane.ts, Member.outageMs).
	 */
	hint(outageMs: number): NodeExecutionHint | undefined {
		const refusals = this.rateLimited + this.overloaded;
		const retried = this.reused > 0;
		const failed = this.failed.size;
		const earlier = [...this.sentEarlier];
		if (!refusals && !outageMs && !retried && !failed && !earlier.length) return undefined;
		const sentences: string[] = [];
		if (earlier.length) {
			const by = earlier.map(([id, n]) => `${plural(n, 'item')} by execution ${id}`);
			sentences.push(
				`This retry did not send again what the failed ${earlier.length === 1 ? 'execution' : 'executions'} had sent (${by.join(', ')}): those items' output is the service's answer from that time, with an alreadySent field.`,
			);
		}
		if (refusals) {
			const why = !this.overloaded
				? 'rate limit'
				: !this.rateLimited
					? 'service overloaded'
					: `${count(this.rateLimited)} rate limit, ${count(this.overloaded)} overloaded`;
			const resent = this.resentAfterRefusal;
			const those =
				resent < refusals
					? `${count(resent)} of those requests`
					: refusals === 1
						? 'that request'
						: `those ${count(refusals)} requests`;
			const again = resent
				? `the node waited up to ${seconds(this.longestWaitMs)} and sent ${those} again`
				: `${refusals === 1 ? 'that request was' : 'those requests were'} not sent again`;
			sentences.push(`The service pushed back ${times(refusals)} (${why}); ${again}.`);
		}
		if (outageMs) {
			const resent = this.resentAfterOutage;
			const then = !resent
				? ''
				: resent === 1
					? ', then sent the request that had not reached it'
					: `, then sent the ${count(resent)} requests that had not reached it`;
			sentences.push(
				`The service could not be reached for ${seconds(outageMs)}: the node paused sending${then}.`,
			);
		}
		if (retried)
			sentences.push(
				`Retry On Fail ran the node again: it skipped the ${plural(this.reused, 'item')} the service had already accepted.`,
			);
		sentences.push(failed ? this.failedSentence() : 'No item failed.');
		return outputHint(sentences, failed > 0);
	}

	/** Which error items were not sent, and which the service may have carried out. */
	private failedSentence(): string {
		const unsure = [...this.unsure];
		const notSent = [...this.failed].filter((item) => !this.unsure.has(item));
		const them = (n: number) => (n === 1 ? 'it' : 'them');
		if (this.items === 1)
			return unsure.length
				? 'The item failed, and the service may have carried it out: check it in the dashboard before sending it again (see its error item).'
				: 'The item was not sent: see its error item.';
		const sentences = [
			notSent.length &&
				`${count(notSent.length)} of ${count(this.items)} items ${notSent.length === 1 ? 'was' : 'were'} not sent: ${itemList(notSent)}. See ${notSent.length === 1 ? 'its error item' : 'their error items'}.`,
			unsure.length &&
				`${count(unsure.length)} of ${count(this.items)} items failed, but the service may have carried ${them(unsure.length)} out: ${itemList(unsure, false, notSent.length > 0)}. Check ${them(unsure.length)} in the dashboard before sending ${them(unsure.length)} again.`,
		];
		return sentences.filter(Boolean).join(' ');
	}
}

/** "once", "twice", "3 times"; a wait in seconds, to a tenth. */
const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${count(n)} times`);
const seconds = (ms: number) => (ms < 100 ? 'less than 0.1 s' : `${(ms / 1000).toFixed(1)} s`);
