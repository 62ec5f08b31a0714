/**
 * The Send Window's math (issue 47): whether a recipient may be sent to now, in each of the time
 * zones they may be in, and if not, from when. Pure: the instant is given (the caller reads it
 * through ../clock.ts) and local times come from Intl (Node's full ICU), so daylight saving
 * time is right in every zone.
 *
 * A window is open, on each of its days, from From (inclusive) to Until (exclusive), local time;
 * Until earlier than From runs across midnight and belongs to the day it opens (Friday 22:00-06:00
 * with only Friday: open Friday 22:00 to Saturday 06:00). A local time a spring-forward day skips
 * is taken as the first instant after it (the switch); one a fall-back day repeats, as its first
 * occurrence. So in each zone the window is a list of intervals of instants, and a list of zones
 * is open when every zone's is.
 */

import { DAY } from './localTime';
import type { SendWindow } from './sendWindow';
import type { Intervals } from './zoneTime';
import { ZoneTime } from './zoneTime';

export type Verdict =
	/** Open in every zone now; closes: the earliest instant (ms) it closes in one of them. */
	| { open: true; closes: number }
	/** Closed now; sendAfter: the earliest instant (ms) open in all the zones; zone: the one that opened last. */
	| { open: false; sendAfter: number; zone: string }
	/** The zones are never all open at once within the search (HORIZON_DAYS days ahead). */
	| { open: false; never: true };

/**
 * How far ahead an opening is looked for. A reader reuses a `never` for a day, so every `never` it
 * gives holds for at least the 8 days a week and a window across midnight need.
 */
const HORIZON_DAYS = 9;
/** How long a WindowReader reuses a `never`, and a zone's intervals. */
const REUSE = DAY;

/** The interval holding ms, if any. */
function holding(intervals: Intervals, ms: number): readonly [number, number] | undefined {
	let low = 0;
	let high = intervals.length - 1;
	while (low <= high) {
		const middle = (low + high) >> 1;
		const [start, end] = intervals[middle];
		if (ms < start) high = middle - 1;
		else if (ms >= end) low = middle + 1;
		else return intervals[middle];
	}
	return undefined;
}

/** The verdict from each zone's intervals (covering now .. now + HORIZON_DAYS). */
function decide(zones: readonly string[], each: readonly Intervals[], now: number): Verdict {
	let closes = Number.POSITIVE_INFINITY;
	let open = true;
	for (const intervals of each) {
		const interval = holding(intervals, now);
		if (!interval) {
			open = false;
			break;
		}
		closes = Math.min(closes, interval[1]);
	}
	if (open) return { open: true, closes };
	// Where all are open starts where one of them opens: try those openings in order.
	const horizon = now + HORIZON_DAYS * DAY;
	const openings = [...new Set(each.flatMap((intervals) => intervals.map(([start]) => start)))]
		.filter((start) => start > now && start <= horizon)
		.sort((a, b) => a - b);
	for (const at of openings) {
		const held = each.map((intervals) => holding(intervals, at));
		if (held.every(Boolean)) {
			const last = held.findIndex((interval) => interval?.[0] === at);
			return { open: false, sendAfter: at, zone: zones[last] };
		}
	}
	return { open: false, never: true };
}

/**
 * Whether the window is open at now (ms) in every one of the zones (IANA names Intl knows: check
 * them with isTimeZone first; an unknown one throws Intl's RangeError), and if not, when it opens
 * in all of them. No zones: open (nothing restricts it), closing never.
 */
export function verdict(window: SendWindow, zones: readonly string[], now: number): Verdict {
	const each = zones.map((zone) => new ZoneTime(zone).intervals(window, now, HORIZON_DAYS + 1));
	return decide(zones, each, now);
}

/**
 * Verdicts for one run, memoised: per list of zones until the instant the verdict changes (an open
 * one until it closes, a held one until it opens, a never for a day), each zone's intervals for a
 * day. So 10,000 items over a few hundred lists compute a few hundred verdicts; the others are a
 * map look-up. The same verdicts as verdict() (a never reused for up to a day).
 */
export class WindowReader {
	private readonly verdicts = new Map<string, { from: number; until: number; verdict: Verdict }>();
	private readonly zoneTimes = new Map<string, ZoneTime>();
	private readonly zoneIntervals = new Map<string, { from: number; intervals: Intervals }>();
	/** The key of each list met (zonesOfNumber gives the same array for the same prefix). */
	private readonly keys = new WeakMap<readonly string[], string>();

	constructor(private readonly window: SendWindow) {}

	verdict(zones: readonly string[], now: number): Verdict {
		let key = zones.length === 1 ? zones[0] : this.keys.get(zones);
		if (key === undefined) {
			key = zones.join(' ');
			this.keys.set(zones, key);
		}
		const known = this.verdicts.get(key);
		if (known && known.from <= now && now < known.until) return known.verdict;
		const found = decide(
			zones,
			zones.map((zone) => this.intervals(zone, now)),
			now,
		);
		const until = found.open ? found.closes : 'never' in found ? now + REUSE : found.sendAfter;
		this.verdicts.set(key, { from: now, until, verdict: found });
		return found;
	}

	/** The zone's intervals covering now .. now + HORIZON_DAYS, reused for a day. */
	private intervals(zone: string, now: number): Intervals {
		const known = this.zoneIntervals.get(zone);
		if (known && known.from <= now && now < known.from + REUSE) return known.intervals;
		let time = this.zoneTimes.get(zone);
		if (!time) {
			time = new ZoneTime(zone);
			this.zoneTimes.set(zone, time);
		}
		// One day more than verdict() needs: they still cover a day later.
		const intervals = time.intervals(this.window, now, HORIZON_DAYS + 2);
		this.zoneIntervals.set(zone, { from: now, intervals });
		return intervals;
	}
}
