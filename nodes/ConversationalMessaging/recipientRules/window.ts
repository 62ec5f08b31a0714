/**
 * The Send Window's math (issue 47): whether a recipient may be sent to now, in each of the time
 * zones they may be in, and if not, from when. Pure: the instant is given (the caller reads it
 * through sendLoop/clock.ts) and local times come from Intl (Node's full ICU), so daylight saving
 * time is right in every zone.
 *
 * A window is open, on each of its days, from From (inclusive) to Until (exclusive), local time;
 * Until earlier than From runs across midnight and belongs to the day it opens (Friday 22:00-06:00
 * with only Friday: open Friday 22:00 to Saturday 06:00). A local time a spring-forward day skips
 * is taken as the first instant after it (the switch); one a fall-back day repeats, as its first
 * occurrence. So in each zone the window is a list of intervals of instants, and a list of zones
 * is open when every zone's is.
 */

export interface SendWindow {
	/** Minutes after local midnight the window opens, 0..1439. */
	from: number;
	/** Minutes after local midnight the window closes, 0..1439; less than from: the next day. */
	until: number;
	/** The local days it opens on, 0 = Sunday .. 6 = Saturday. */
	days: ReadonlySet<number>;
}

export type WindowProblem = { problem: string; fix: string };

export type Verdict =
	/** Open in every zone now; closes: the earliest instant (ms) it closes in one of them. */
	| { open: true; closes: number }
	/** Closed now; sendAfter: the earliest instant (ms) open in all the zones; zone: the one that opened last. */
	| { open: false; sendAfter: number; zone: string }
	/** The zones are never all open at once within the search (HORIZON_DAYS days ahead). */
	| { open: false; never: true };

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/**
 * How far ahead an opening is looked for. A reader reuses a `never` for a day, so every `never` it
 * gives holds for at least the 8 days a week and a window across midnight need.
 */
const HORIZON_DAYS = 9;
/** How long a WindowReader reuses a `never`, and a zone's intervals. */
const REUSE = DAY;

/** n8n's Days values, by day number (0 = Sunday). */
/** The days as n8n's Days option gives them, Sunday first (as Date.getDay counts). */
export const WEEKDAYS = [
	'sunday',
	'monday',
	'tuesday',
	'wednesday',
	'thursday',
	'friday',
	'saturday',
];
const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

function readTime(field: 'From' | 'Until', value: unknown): number | WindowProblem {
	const text = typeof value === 'string' ? value.trim() : value;
	const match = typeof text === 'string' ? TIME.exec(text) : null;
	if (match) return Number(match[1]) * 60 + Number(match[2]);
	const given = text === undefined || text === '' ? 'is empty' : `"${String(text)}" is not a time`;
	return {
		problem: `${field} ${given}`,
		fix: `Give ${field} as a local time HH:MM, 24-hour (e.g. ${field === 'From' ? '08:00' : '21:00'}; midnight is 00:00).`,
	};
}

function readDays(value: unknown): ReadonlySet<number> | WindowProblem {
	if (value === undefined || value === null) return new Set([0, 1, 2, 3, 4, 5, 6]);
	const names = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(/[\s,]+/).filter(Boolean)
			: [value];
	const days = new Set<number>();
	for (const name of names) {
		const day = typeof name === 'string' ? WEEKDAYS.indexOf(name.trim().toLowerCase()) : -1;
		if (day < 0)
			return {
				problem: `Days: "${String(name)}" is not a day of the week`,
				fix: `Choose days among ${WEEKDAYS.join(', ')}.`,
			};
		days.add(day);
	}
	if (!days.size)
		return {
			problem: 'Days: no day is chosen, so the window never opens',
			fix: 'Choose at least one day, or remove the Send Window.',
		};
	return days;
}

/**
 * The window n8n's Send Window fields give: From and Until as 'HH:MM' or 'H:MM' (24-hour), Days as
 * n8n's multiOptions values ('monday' ... 'sunday'; all seven when absent). A malformed time, From
 * equal to Until, or no day: a problem naming the field, and its fix.
 */
export function readSendWindow(raw: {
	from?: unknown;
	until?: unknown;
	days?: unknown;
}): SendWindow | WindowProblem {
	const from = readTime('From', raw.from);
	if (typeof from !== 'number') return from;
	const until = readTime('Until', raw.until);
	if (typeof until !== 'number') return until;
	if (from === until)
		return {
			problem: `From and Until are both ${clockTime(from)}, so the window has no length`,
			fix: 'Give Until a different time than From (earlier than From: the window runs across midnight).',
		};
	const days = readDays(raw.days);
	if ('problem' in days) return days;
	return { from, until, days };
}

const clockTime = (minutes: number) =>
	`${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

// Local time through Intl: one formatter per zone, kept (a few hundred zones at most).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
	let format = formatters.get(zone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
		formatters.set(zone, format);
	}
	return format;
}

/** Whether Intl knows the zone (an IANA name, aliases such as Asia/Calcutta included). */
export function isTimeZone(name: string): boolean {
	if (typeof name !== 'string' || !name) return false;
	try {
		formatter(name);
		return true;
	} catch {
		return false;
	}
}

/** What formatter() writes: 'M/D/YYYY, HH:MM:SS' (en-US, 24-hour). */
const WRITTEN = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

/** The local wall time at ms (to the second) as if it were UTC: a number of ms. */
function wallAsUtc(ms: number, zone: string): number {
	// format() and a pattern: a quarter of formatToParts' cost.
	const written = WRITTEN.exec(formatter(zone).format(ms));
	if (!written) throw new Error(`Intl wrote an unexpected local time for ${zone}`);
	const [, month, day, year, hour, minute, second] = written;
	return Date.UTC(+year, +month - 1, +day, +hour, +minute, +second);
}

/** The zone's offset from UTC at ms, in ms (local = UTC + offset). */
function offsetAt(ms: number, zone: string): number {
	return wallAsUtc(ms, zone) - Math.floor(ms / 1000) * 1000;
}

const pad = (value: number, length = 2) => String(value).padStart(length, '0');

function dateOf(wall: number): string {
	const date = new Date(wall);
	return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** The instant as local time in the zone, ISO 8601 to the second with its offset ('+00:00', never 'Z'). */
export function isoInZone(ms: number, zone: string): string {
	const wall = wallAsUtc(ms, zone);
	const offset = Math.round((wall - Math.floor(ms / 1000) * 1000) / MINUTE);
	const time = new Date(wall).toISOString().slice(11, 19);
	const sign = offset < 0 ? '-' : '+';
	const size = Math.abs(offset);
	return `${dateOf(wall)}T${time}${sign}${pad(Math.floor(size / 60))}:${pad(size % 60)}`;
}

/** The instant's local date in the zone, 'YYYY-MM-DD'. */
export function localDay(ms: number, zone: string): string {
	return dateOf(wallAsUtc(ms, zone));
}

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

	/**
	 * The instant the local day (days since 1970-01-01) reads minutes after midnight: the first
	 * occurrence on a fall-back day; the switch (the first instant after) when a spring-forward day
	 * skips it.
	 */
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
