/**
 * How the items the rules kept from the service come out: a skipped one on the first output with
 * its reason, the held ones on the Held output with when their window opens, and the run's hint.
 */
import type { INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import { count, joinAnd, outputHint, plural } from '../words';
import { isoInZone } from './localTime';

/** An item outside its Send Window: when the window opens in all its zones. */
export interface Held {
	itemIndex: number;
	sendAfter: number;
	/** The zones read, the one whose window opens last first. */
	zones: readonly string[];
	zone: string;
}

/** A rule that keeps an item from being sent (never held: a held loop must end). */
export type Rule = 'doNotSendTo' | 'maxPerDay';

const WORDS: Record<Rule, string> = {
	doNotSendTo: 'on Do Not Send To (Recipient Rules): nothing was sent',
	maxPerDay:
		'already sent Max Messages per Person per Day today, in their local time (Recipient Rules): nothing was sent',
};

export function skippedItem(rule: Rule, itemIndex: number, recipient: string): INodeExecutionData {
	return {
		json: {
			sent: false,
			skipped: { rule, recipient, message: `The recipient is ${WORDS[rule]}.` },
		},
		pairedItem: { item: itemIndex },
	};
}

/**
 * The node's outputs with a Send Window: `done`, then Held: each input item with when its
 * window opens, the earliest first. An AI Agent reads the first output alone (n8n-core's
 * makeHandleToolInvocation), so as its tool the held items come out there, saying so.
 */
export function heldOutputs(
	heldItems: readonly Held[],
	done: INodeExecutionData[],
	items: INodeExecutionData[],
	asTool: boolean,
): INodeExecutionData[][] {
	const held = [...heldItems].sort(
		(a, b) => a.sendAfter - b.sendAfter || a.itemIndex - b.itemIndex,
	);
	if (asTool)
		return [
			[
				...done,
				...held.map(({ itemIndex, sendAfter, zone, zones }) => ({
					json: {
						sent: false,
						held: { sendAfter: isoInZone(sendAfter, zone), timeZones: [...zones] },
						message: `Not sent: it is outside the Send Window in the recipient's local time (${zone}). It may be sent from ${isoInZone(sendAfter, zone)}.`,
					},
					pairedItem: { item: itemIndex },
				})),
			],
		];
	return [
		done,
		held.map(({ itemIndex, sendAfter, zone, zones }) => ({
			...items[itemIndex],
			json: { ...items[itemIndex].json, sendAfter: isoInZone(sendAfter, zone), timeZones: zones },
			pairedItem: { item: itemIndex },
		})),
	];
}

/**
 * What the rules did in this run, above the output: how many went, how many are held and until
 * when (a warning when the Held output leads nowhere), how many a rule kept from being sent.
 */
export function rulesHint(
	heldItems: readonly Held[],
	skippedCounts: ReadonlyMap<Rule, number>,
	sent: number,
	heldConnected: boolean,
): NodeExecutionHint | undefined {
	const held = [...heldItems].sort((a, b) => a.sendAfter - b.sendAfter);
	const skipped = [...skippedCounts];
	if (!held.length && !skipped.length) return undefined;
	const sentences = [`Recipient Rules: ${plural(sent, 'item')} sent.`];
	if (held.length) {
		const first = held[0];
		const last = held[held.length - 1];
		const at = ({ sendAfter, zone }: Held) => `${isoInZone(sendAfter, zone)} (${zone})`;
		const until =
			first.sendAfter === last.sendAfter
				? `until ${at(first)}`
				: `until their Send Window opens: the first at ${at(first)}, the last at ${at(last)}`;
		sentences.push(
			`${count(held.length)} held ${until}; they leave by the Held output, earliest first.`,
		);
		if (!heldConnected)
			sentences.push(
				'Nothing is connected to the Held output: connect it to a Wait node (Resume: At Specified Time, {{ $json.sendAfter }}) and back into this node, or they are never sent.',
			);
	}
	if (skipped.length)
		sentences.push(
			`Not sent: ${joinAnd(
				skipped.map(
					([rule, n]) =>
						`${count(n)} ${rule === 'doNotSendTo' ? 'on Do Not Send To' : 'over Max Messages per Person per Day'}`,
				),
			)}.`,
		);
	return outputHint(sentences, held.length > 0 && !heldConnected);
}
