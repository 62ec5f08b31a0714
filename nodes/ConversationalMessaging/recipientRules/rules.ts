import type {
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	NodeExecutionHint,
} from 'n8n-workflow';
import { isExpression, NodeOperationError } from 'n8n-workflow';

import type { ItemContext } from '../checks/checks';
import { itemError, listEntries, readAt } from '../checks/checks';
import type { PhoneReading } from '../checks/phone/reading';
import { homeCountry, readPhone } from '../checks/phone/reading';
import { zonesOfCountry, zonesOfNumber } from '../checks/phone/timeZones';
import { clock } from '../clock';
import { rulesParameter } from '../form/settings';
import { count } from '../words';
import { FieldValues, itemContext } from '../sendLoop/itemRequest';
import type { Exclusive } from '../sendLoop/runMemory';
import { DailyCap } from './dailyCap';
import type { RecipientRulesParameter } from './fields';
import { DEFAULT_FROM, DEFAULT_UNTIL } from './fields';
import { isTimeZone, localDay } from './localTime';
import type { Held, Rule } from './report';
import { heldOutputs, rulesHint, skippedItem } from './report';
import { readSendWindow, WEEKDAYS } from './sendWindow';
import { WindowReader } from './window';

/** The fix for a Time Zone Intl does not know, given (fixed) or an item's (by expression). */
export const TIME_ZONE_FIX =
	"Send Window > Time Zone: use an IANA time zone name such as America/New_York, Europe/Madrid or Asia/Kolkata, or leave it empty to read the zone from the phone number (else the Default Country's, else the workflow's).";

/**
 * The item's zones: its Time Zone, else its phone number's, else its Default Country's, else the
 * workflow's (the socialnet messenger gives no number).
 */
export async function zonesOf(
	fns: IExecuteFunctions,
	timeZones: FieldValues | undefined,
	item: ItemContext,
	phone: PhoneReading | undefined,
): Promise<{ zones: readonly string[]; from: string }> {
	if (timeZones) {
		const reading = await timeZones.read(item.getItemIndex());
		if ('error' in reading) throw reading.error;
		const [value] = reading.values;
		const zone = typeof value === 'string' ? value.trim() : value;
		if (zone !== '' && zone !== undefined && zone !== null) {
			if (typeof zone === 'string' && isTimeZone(zone))
				return { zones: [zone], from: 'its Time Zone' };
			throw itemError(item, `Time Zone: "${String(zone)}" is not a time zone`, TIME_ZONE_FIX);
		}
	}
	if (phone) {
		const zones = zonesOfNumber(phone.digits);
		if (zones.length)
			return { zones, from: `the phone number's prefix (+${phone.digits.slice(0, 4)}...)` };
	}
	const home = await homeCountry(item, (problem, fix) => {
		throw itemError(item, `Default Country: ${problem}`, fix);
	});
	const zones = home ? zonesOfCountry(home) : [];
	if (zones.length) return { zones, from: `the Default Country (${home})` };
	return { zones: [fns.getTimezone()], from: "the workflow's time zone" };
}

/**
 * The Do Not Send To list, each entry read as the recipient's phone is (with item 0's Default
 * Country), so that every way of writing a number stops it; recipient IDs as typed for socialnet.
 */
export async function readDoNotSendTo(
	fns: IExecuteFunctions,
	raw: unknown,
	phones: boolean,
): Promise<ReadonlySet<string>> {
	const entries = (typeof raw === 'string' ? raw.split(/[,\n;]/) : listEntries(raw ?? []))
		.map((entry, position) => ({ entry, position }))
		.filter(({ entry }) => !(typeof entry === 'string' && entry.trim() === '') && entry !== null);
	if (!entries.length) return new Set();
	const fail = (problem: string, fix: string): never => {
		throw new NodeOperationError(fns.getNode(), `Do Not Send To: ${problem}`, { description: fix });
	};
	const home = phones ? await homeCountry(itemContext(fns, 0), fail) : undefined;
	const list = new Set<string>();
	for (const { entry, position } of entries) {
		const typed = typeof entry === 'number' ? String(entry) : entry;
		if (typeof typed !== 'string')
			fail(
				`entry ${count(position + 1)} is ${Array.isArray(typed) ? 'a list' : 'an object'}, not ${phones ? 'a phone number' : 'a recipient ID'}`,
				'Give numbers separated by commas or lines, or an expression giving a list of them.',
			);
		const text = (typed as string).trim();
		if (!phones) {
			list.add(text);
			continue;
		}
		// Read as the recipient phone is, the workflow's time zone included (checks.ts phoneCheck):
		// an entry that could be two people's is refused, never left to match neither.
		const reading = readPhone(text, home, fns.getTimezone());
		if ('problem' in reading)
			fail(`entry ${count(position + 1)}, ${reading.problem}`, `${reading.fix} Nothing was sent.`);
		else list.add(reading.digits);
	}
	return list;
}

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

	private constructor(
		private readonly fns: IExecuteFunctions,
		private readonly doNotSendTo: ReadonlySet<string>,
		private readonly windowReader: WindowReader | undefined,
		private readonly timeZones: FieldValues | undefined,
		private readonly cap: DailyCap | undefined,
	) {}

	/**
	 * The run's rules, or undefined when none is set; one set wrong throws, naming the field and the
	 * fix. Each rule is read by its own path: the per-item Time Zone is never evaluated for item 0.
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
			const verdict = this.windowReader.verdict(zones, now);
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
		return this.cap?.exclusive.bind(this.cap);
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
