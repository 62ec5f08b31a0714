import type {
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	NodeExecutionHint,
} from 'n8n-workflow';
import { isExpression, NodeOperationError } from 'n8n-workflow';

import type { ItemContext } from '../checks/checks';
import { itemError, readAt } from '../checks/checks';
import type { PhoneReading } from '../checks/phone/reading';
import { clock } from '../clock';
import { FieldValues } from '../sendLoop/itemRequest';
import type { Exclusive } from '../sendLoop/runMemory';
import { DailyCap } from './dailyCap';
import { readDoNotSendTo } from './doNotSendTo';
import type { RecipientRulesParameter } from './fields';
import { rulesParameter } from '../form/settings';
import { DEFAULT_FROM, DEFAULT_UNTIL } from './fields';
import { TIME_ZONE_FIX, zonesOf } from './itemZones';
import { isTimeZone, localDay } from './localTime';
import type { Held, Rule } from './report';
import { heldOutputs, rulesHint, skippedItem } from './report';
import { readSendWindow, WEEKDAYS } from './sendWindow';
import type { Verdict } from './window';
import { WindowReader } from './window';

/** An item a rule keeps from the service now: not sent, with its reason, or held for its window. */
export type RuleOutcome = { skipped: INodeExecutionData } | { held: Held };

/** The item may go now; `slot`: its place under the daily cap, given back if it is not sent. */
export type Cleared = { cleared: true; slot?: string };

/**
 * The Recipient Rules of one run of a ruled operation (./fields.ts): read once, before any request,
 * and asked for each item between its checks and its request.
 */
export class RecipientRules {
	private readonly skipped = new Map<Rule, number>();
	private readonly heldItems: Held[] = [];
	private readonly windowReader?: WindowReader;
	private readonly timeZones?: FieldValues;

	private constructor(
		private readonly fns: IExecuteFunctions,
		private readonly doNotSendTo: ReadonlySet<string>,
		window: WindowReader | undefined,
		timeZones: FieldValues | undefined,
		private readonly cap: DailyCap | undefined,
	) {
		this.windowReader = window;
		this.timeZones = timeZones;
	}

	/**
	 * The run's rules, or undefined when none is set. Throws, naming the field and the fix, when one
	 * is set wrong (a Send Window's time or its fixed Time Zone, a Do Not Send To entry that is not a
	 * phone number, a Max Messages per Person per Day that is not a whole number of 1 or more). Each
	 * rule is read by its own path: the per-item Time Zone is never evaluated for item 0 alone.
	 */
	static async read(
		fns: IExecuteFunctions,
		resource: string,
		maxWaitMs: number,
	): Promise<RecipientRules | undefined> {
		const node = fns.getNode();
		const parameter = rulesParameter(resource);
		// As typed: which rules are set, and whether the Time Zone is an expression.
		const typed = (node.parameters[parameter] ?? {}) as RecipientRulesParameter;
		const read = (path: string, fallback?: unknown) =>
			fns.getNodeParameter(`${parameter}.${path}`, 0, fallback) as unknown;
		const fail = (message: string, description: string): never => {
			throw new NodeOperationError(node, message, { description });
		};
		let window: WindowReader | undefined;
		let timeZones: FieldValues | undefined;
		if (typed.sendWindow?.window) {
			const times = readSendWindow({
				from: read('sendWindow.window.from', DEFAULT_FROM),
				until: read('sendWindow.window.until', DEFAULT_UNTIL),
				days: read('sendWindow.window.days', WEEKDAYS),
			});
			window =
				'problem' in times
					? fail(`Send Window: ${times.problem}`, times.fix)
					: new WindowReader(times);
			const zone = typed.sendWindow.window.timeZone;
			const expression = isExpression(zone);
			const fixed = !expression && typeof zone === 'string' ? zone.trim() : undefined;
			if (fixed && !isTimeZone(fixed))
				fail(`Time Zone: "${fixed}" is not a time zone`, TIME_ZONE_FIX);
			if (fixed || expression)
				timeZones = new FieldValues(fns, [
					{ parameter: `${parameter}.sendWindow.window.timeZone`, to: [], locator: false },
				]);
		}
		let cap: DailyCap | undefined;
		if (typed.maxPerDay !== undefined) {
			const given = read('maxPerDay');
			// A number an expression gives as text (a sheet's cell) is the number.
			const max = typeof given === 'string' && given.trim() !== '' ? Number(given) : given;
			if (typeof max !== 'number' || !Number.isInteger(max) || max < 1)
				fail(
					`Max Messages per Person per Day: ${JSON.stringify(given) ?? 'nothing'} is not a whole number of 1 or more`,
					'Enter how many messages one person may get in a day, 1 or more, or remove the rule to send without a cap. Nothing was sent.',
				);
			cap = new DailyCap(fns, max as number, maxWaitMs);
		}
		if (!window && typed.doNotSendTo === undefined && !cap) return undefined;
		const phones = node.parameters.operation !== 'sendSocialnet';
		const doNotSendTo =
			typed.doNotSendTo === undefined
				? new Set<string>()
				: await readDoNotSendTo(fns, read('doNotSendTo', ''), phones);
		return new RecipientRules(fns, doNotSendTo, window, timeZones, cap);
	}

	/** Whether the item may go now (and its place under the cap), or what keeps it. */
	async check(
		item: ItemContext,
		request: IHttpRequestOptions,
		phone: PhoneReading | undefined,
	): Promise<Cleared | RuleOutcome> {
		const itemIndex = item.getItemIndex();
		const recipient = phone?.digits ?? String(readAt(request, ['body', 'to']) ?? '').trim();
		if (this.doNotSendTo.has(recipient)) return this.skip('doNotSendTo', itemIndex, recipient);
		if (!this.windowReader && !this.cap) return { cleared: true };
		const { zones, from } = await zonesOf(this.fns, this.timeZones, item, phone);
		const now = clock.now();
		if (this.windowReader) {
			const verdict: Verdict = this.windowReader.verdict(zones, now);
			if ('never' in verdict)
				throw itemError(
					item,
					`Send Window: the recipient's possible time zones (${zones.join(', ')}) are never all within the window at once`,
					`They are all the zones ${from} may be in. Give the item's Time Zone (Send Window > Time Zone, by expression), or widen the window.`,
				);
			if (!verdict.open) {
				const { sendAfter, zone } = verdict;
				const ordered = [zone, ...zones.filter((other) => other !== zone)];
				this.heldItems.push({ itemIndex, sendAfter, zone, zones: ordered });
				return { held: this.heldItems[this.heldItems.length - 1] };
			}
		}
		if (!this.cap) return { cleared: true };
		const claim = await this.cap.claim(recipient, localDay(now, zones[0]));
		if ('capped' in claim) return this.skip('maxPerDay', itemIndex, recipient);
		return { cleared: true, slot: claim.slot };
	}

	/** The service did not take the item: its place under the cap is free again. */
	notSent(cleared: Cleared): void {
		if (cleared.slot) this.cap?.release(cleared.slot);
	}

	/** For a write to the node's row in n8n's processed-data store the daily count shares. */
	get exclusive(): Exclusive | undefined {
		const cap = this.cap;
		return cap && (async (work) => await cap.exclusive(work));
	}

	/** Settles what the cap still has to write; before the run returns or throws. */
	async finish(): Promise<void> {
		try {
			await this.cap?.flush();
		} catch {
			// A place not given back stays counted: the cap sends fewer that day, never more.
		}
	}

	/** The node's outputs: `done`, then, with a Send Window, Held (./report.ts). */
	outputs(
		done: INodeExecutionData[],
		items: INodeExecutionData[],
		asTool: boolean,
	): INodeExecutionData[][] {
		if (!this.windowReader) return [done];
		return heldOutputs(this.heldItems, done, items, asTool);
	}

	/** What the rules did in this run, above the output (./report.ts). */
	hint(sent: number, heldConnected: boolean): NodeExecutionHint | undefined {
		return rulesHint(this.heldItems, this.skipped, sent, heldConnected);
	}

	private skip(rule: Rule, itemIndex: number, recipient: string): RuleOutcome {
		this.skipped.set(rule, (this.skipped.get(rule) ?? 0) + 1);
		return { skipped: skippedItem(rule, itemIndex, recipient) };
	}
}
