import { DAY, MINUTE, offsetAt, wallAsUtc } from './localTime';
import type { SendWindow } from './sendWindow';

/** Intervals [start, end) of instants (ms), sorted, apart. */
export type Intervals = Array<readonly [number, number]>;

/** One zone's local time, with its offsets at UTC midnights kept (a zone's offset rarely changes). */
export class ZoneTime {
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
