/**
 * The Send Window's math (issue 47): whether a recipient may be sent to now, in each of the time
 * zones they may be in, and if not, from when. Pure: the instant is given (the caller reads it
 * through ../clock.ts), local times come from ./localTime.ts.
 *
 * A window is open, on each of its days, from From (inclusive) to Until (exclusive), local time;
 * Until earlier than From runs across midnight and belongs to the day it opens (Friday 22:00-06:00
 * with only Friday: open Friday 22:00 to Saturday 06:00). A local time a spring-forward day skips
 * is taken as the first instant after it (the switch); one a fall-back day repeats, as its first
 * occurrence. So in each zone the window is a list of intervals of instants, and a list of zones
 * is open when every zone's is.
 */

import { DAY, MINUTE, offsetAt, wallAsUtc } from './localTime';
import type { SendWindow } from './sendWindow';

/** Intervals [start, end) of instants (ms), sorted, apart. */
type Intervals = Array<readonly [number, number]>;

/** One zone's local time, with its offsets at UTC midnights kept (a zone's offset rarely changes). */
class ZoneTime {
	private readonly midnights = new Map<number, number>();

	constructor(readonly zone: string) {}

	/** The offset at 00:00 UTC of the day (days since 1970-01-01). */
	private offsetOnDay(day: number): number {
		let offset = this.midnights.get(day);
		if (offset === undefined) {
			offset = offsetAt(day * DAY, this.zone);
			this.midnights.set(day, offset);
		}
		return offset;
	}

	/** The instant the local day (days since 1970-01-01) reads minutes after midnight (see above). */
	instant(day: number, minutes: number): number {
		const wall = day * DAY + minutes * MINUTE;
		// Every offset is within -12 h .. +14 h: the instant is between these two UTC midnights.
		const before = this.offsetOnDay(day - 1);
		const after = this.offsetOnDay(day + 2);
		if (before === after) return wall - before;
		const early = wall - before;
		const late = wall - after;
		const first = Math.min(early, late);
		const second = Math.max(early, late);
		const fits = (ms: number) => offsetAt(ms, this.zone) === wall - ms;
		if (fits(first)) return first;
		if (fits(second)) return second;
		// Skipped (a spring-forward gap): the switch, the first instant after \`first\` whose offset
		// differs from first's, to the second.
		const gapOffset = offsetAt(first, this.zone);
		let low = first;
		let high = second;
		while (high - low > 1000) {
			const middle = low + Math.floor((high - low) / 2000) * 1000;
			if (offsetAt(middle, this.zone) === gapOffset) low = middle;
			else high = middle;
		}
		return high;
	}

	/**
	 * The window's intervals in this zone, from the day before ms's local day, for \`days\` more days.
	 * When the offset is the same at the start, the middle and the end of the span (no switch in it:
	 * no zone switches twice within a week), every local time is that offset away, without asking
	 * Intl again; else each day is read.
	 */
	intervals(window: SendWindow, ms: number, days: number): Intervals {
		const first = Math.floor(ms / DAY) - 3;
		const last = Math.floor(ms / DAY) + days + 4;
		const offset = this.offsetOnDay(first);
		const steady =
			offset === this.offsetOnDay((first + last) >> 1) && offset === this.offsetOnDay(last);
		const instant = steady
			? (day: number, minutes: number) => day * DAY + minutes * MINUTE - offset
			: (day: number, minutes: number) => this.instant(day, minutes);
		const today = Math.floor((steady ? ms + offset : wallAsUtc(ms, this.zone)) / DAY);
		const out: Intervals = [];
		for (let day = today - 1; day <= today + days; day++) {
			if (!window.days.has((((day + 4) % 7) + 7) % 7)) continue; // 1970-01-01 was a Thursday
			const start = instant(day, window.from);
			const end = instant(window.until > window.from ? day : day + 1, window.until);
			if (end <= start) continue; // both in one spring-forward gap
			const previous = out[out.length - 1];
			if (previous && start <= previous[1])
				out[out.length - 1] = [previous[0], Math.max(previous[1], end)];
			else out.push([start, end]);
		}
		return out;
	}
}

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
function decide(zones: readonly string[], of: (zone: string) => Intervals, now: number): Verdict {
	const each = zones.map(of);
	const heldAt = (at: number) => each.map((intervals) => holding(intervals, at));
	const current = heldAt(now);
	if (current.every((interval) => interval !== undefined))
		return { open: true, closes: Math.min(...current.map(([, end]) => end)) };
	// Where all are open starts where one of them opens: try those openings in order.
	const horizon = now + HORIZON_DAYS * DAY;
	const openings = [...new Set(each.flatMap((intervals) => intervals.map(([start]) => start)))]
		.filter((start) => start > now && start <= horizon)
		.sort((a, b) => a - b);
	for (const at of openings) {
		const held = heldAt(at);
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
	return decide(zones, (zone) => new ZoneTime(zone).intervals(window, now, HORIZON_DAYS + 1), now);
}

/**
 * Verdicts for one run, memoised: per list of zones until the instant the verdict changes (an open
 * one until it closes, a held one until it opens, a never for a day), each zone's intervals for a
 * day. So 10,000 items over a few hundred lists compute a few hundred verdicts; the others are a
 * map look-up. The same verdicts as verdict() (a never reused for up to a day).
 */
export class WindowReader {
	private readonly verdicts = new Map<string, { from: number; until: number; verdict: Verdict }>();
	private readonly zones = new Map<
		string,
		{ time: ZoneTime; from: number; intervals: Intervals }
	>();
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
		const found = decide(zones, (zone) => this.intervals(zone, now), now);
		const until = found.open ? found.closes : 'never' in found ? now + REUSE : found.sendAfter;
		this.verdicts.set(key, { from: now, until, verdict: found });
		return found;
	}

	/** The zone's intervals covering now .. now + HORIZON_DAYS, reused for a day. */
	private intervals(zone: string, now: number): Intervals {
		let known = this.zones.get(zone);
		if (known && known.from <= now && now < known.from + REUSE) return known.intervals;
		known ??= { time: new ZoneTime(zone), from: now, intervals: [] };
		// One day more than verdict() needs: they still cover a day later.
		known.intervals = known.time.intervals(this.window, now, HORIZON_DAYS + 2);
		known.from = now;
		this.zones.set(zone, known);
		return known.intervals;
	}
}
