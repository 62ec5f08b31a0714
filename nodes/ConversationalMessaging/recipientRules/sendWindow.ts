import { clockTime } from './localTime';

export interface SendWindow {
	/** Minutes after local midnight the window opens, 0..1439. */
	from: number;
	/** Minutes after local midnight the window closes, 0..1439; less than from: the next day. */
	until: number;
	/** The local days it opens on, 0 = Sunday .. 6 = Saturday. */
	days: ReadonlySet<number>;
}

export type WindowProblem = { problem: string; fix: string };

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
 * The window n8n's Send Window fields give, read once per run (./window.ts decides with it): From
 * and Until as 'HH:MM' or 'H:MM' (24-hour), Days as n8n's multiOptions values ('monday' ...
 * 'sunday'; all seven when absent). A malformed time, From equal to Until, or no day: a problem
 * naming the field, and its fix.
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
