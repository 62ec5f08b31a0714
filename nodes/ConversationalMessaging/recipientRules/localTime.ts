/**
 * An instant's local time in a zone, through Intl (Node's full ICU), so daylight saving time is
 * right in every zone: for the Send Window (./window.ts), the Held output's sendAfter and the
 * daily cap's day.
 */

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

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
export function wallAsUtc(ms: number, zone: string): number {
	// format() and a pattern: a quarter of formatToParts' cost.
	const written = WRITTEN.exec(formatter(zone).format(ms));
	if (!written) throw new Error(`Intl wrote an unexpected local time for ${zone}`);
	const [, month, day, year, hour, minute, second] = written;
	return Date.UTC(+year, +month - 1, +day, +hour, +minute, +second);
}

/** The zone's offset from UTC at ms, in ms (local = UTC + offset). */
export function offsetAt(ms: number, zone: string): number {
	return wallAsUtc(ms, zone) - Math.floor(ms / 1000) * 1000;
}

/** Minutes as 'HH:MM' (an offset's size, a window's From). */
export const clockTime = (minutes: number) =>
	`${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The instant as local time in the zone, ISO 8601 to the second with its offset ('+00:00', never 'Z'). */
export function isoInZone(ms: number, zone: string): string {
	const wall = wallAsUtc(ms, zone);
	const offset = Math.round((wall - Math.floor(ms / 1000) * 1000) / MINUTE);
	const sign = offset < 0 ? '-' : '+';
	return `${new Date(wall).toISOString().slice(0, 19)}${sign}${clockTime(Math.abs(offset))}`;
}

/** The instant's local date in the zone, 'YYYY-MM-DD'. */
export function localDay(ms: number, zone: string): string {
	return new Date(wallAsUtc(ms, zone)).toISOString().slice(0, 10);
}
