import type { IExecuteFunctions } from 'n8n-workflow';

import { NOT_SENT } from '../checks/checks';
import { runIndexOf } from '../n8nInternals';
import { count, FROM_ZERO, joinAnd, ordinal, plural } from '../words';
import type { Done } from './runMemory';
import { executionIdOf, sentEarlier } from './runMemory';
import type { NodeError } from './send';
import { copyOf } from './send';

/**
 * The error a stop throws: the first stopping item's, copied (an error the run's memory gives again
 * says its own stop), marked as RoutingNode marks the error it throws (the item
 * and the run, for n8n's error view), with what became of every item first.
 */
export function stopError(
	fns: IExecuteFunctions,
	stop: Map<number, NodeError>,
	done: Array<Done | undefined>,
	keptBack = 0,
): NodeError {
	const itemIndex = Math.min(...stop.keys());
	const failed = stop.get(itemIndex) as NodeError;
	const error = copyOf(failed);
	error.context = { ...failed.context, itemIndex, runIndex: runIndexOf(fns) };
	const executionId = executionIdOf(fns);
	const retried = done.some((outcome) => outcome && sentEarlier(outcome, executionId));
	const stopped = stopSentence(done, itemIndex, retried, keptBack);
	// The counts say what was sent: the item's own "not sent" would say it again.
	const own = stopped ? failed.description?.replace(` ${NOT_SENT}`, '') : failed.description;
	error.description = [stopped, own].filter(Boolean).join(' ');
	return error;
}

const were = (n: number) => (n === 1 ? 'was' : 'were');

/**
 * What the stop's error adds to a run of several items (undefined for one: the item's own error
 * says all): that nothing was sent, or what became of every item, and what to do so that n8n's
 * Retry finishes the send. `stopped`: the item that stopped the send, numbered from 0 as n8n's
 * "[item N]" in the error's title, and said so. `retried`: this run is a Retry of another execution.
 */
function stopSentence(
	done: Array<Done | undefined>,
	stopped: number,
	retried: boolean,
	keptBack: number,
): string | undefined {
	const total = done.length;
	if (total < 2) return undefined;
	const sent = done.filter((outcome) => outcome && 'sent' in outcome).length;
	const unsure = done.filter((outcome) => outcome && 'unsure' in outcome).length;
	if (!sent && !unsure)
		return `Nothing was sent: item ${count(stopped)} (${FROM_ZERO}: the ${ordinal(stopped + 1)} item) stopped the send before any of the ${count(total)} items went out.`;
	// Held for their Send Window or skipped by a Recipient Rule: a Retry decides them again.
	const notSent = total - sent - unsure - keptBack;
	const stoppedUnsure = done[stopped] !== undefined;
	const counts = [
		`${count(sent)} of ${plural(total, 'item')} ${were(sent)} sent`,
		unsure &&
			(stoppedUnsure && unsure === 1
				? 'this one may have been carried out'
				: `${count(unsure)} may have been carried out${stoppedUnsure ? ' (this one included)' : ''}`),
		notSent &&
			(!stoppedUnsure && notSent === 1
				? 'this one was not sent'
				: `${count(notSent)} ${were(notSent)} not sent${stoppedUnsure ? '' : ' (this one included)'}`),
		keptBack &&
			`${count(keptBack)} ${were(keptBack)} held or skipped by Recipient Rules (a Retry decides them again)`,
	];
	const them = unsure === 1 ? 'it' : 'them';
	const those = unsure === 1 ? 'the one' : `the ${count(unsure)}`;
	const toFinish = `set Settings > On Error to Continue and use Retry with currently saved workflow`;
	const todo = !notSent
		? `n8n's Retry never sends ${those} that may have been carried out: check ${them} in the dashboard; to finish without ${them}, ${toFinish}.`
		: stoppedUnsure
			? `Retry (Executions list) sends only the ${count(notSent)} not sent, never ${those} that may have been carried out: check ${them} in the dashboard. With On Error at Stop, the Retry then stops on ${them} again; to finish, ${toFinish}.`
			: `Retry (Executions list) sends only the ${count(notSent)} not sent${unsure ? `, never ${those} that may have been carried out (check ${them} in the dashboard)` : ''}. If the service refused this item for its value, first ${toFinish}.`;
	const which = retried
		? ' Retry this execution, not the one it retried: that one does not know what this one sent.'
		: '';
	return `Item ${count(stopped)} stopped the send (${FROM_ZERO}: the ${ordinal(stopped + 1)} item): ${joinAnd(counts)}. ${todo}${which}`;
}
