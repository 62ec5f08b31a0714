import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RequestContext } from '../service/envelope';
import { withFix } from '../service/envelope';
import type { PhoneReading } from './phone/reading';
import { homeCountry, readPhone } from './phone/reading';

/** A bad item fails alone, naming its field and the fix, instead of reaching the service. */
type Fail = (problem: string, fix: string) => never;
type Normaliser = (value: unknown, fail: Fail) => unknown;

const isObject = (value: unknown): value is IDataObject =>
	value !== null && typeof value === 'object';

/** `path`: the keys of a place in a request, ['body', 'to'] for `body.to`. */
export const readAt = (request: object, path: string[]): unknown =>
	path.reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), request);

/** Makes the objects on the way. */
export function setPath(request: object, path: string[], value: unknown): void {
	let current = request as IDataObject;
	for (const key of path.slice(0, -1)) {
		if (!isObject(current[key])) current[key] = {};
		current = current[key] as IDataObject;
	}
	current[path[path.length - 1]] = value as IDataObject[string];
}

const readPath = (request: IHttpRequestOptions, path: string) => readAt(request, path.split('.'));

/** Whether a collection's value sets any entry (n8n gives an unset collection as `{}`). */
export const setsAny = (value: unknown) => isObject(value) && Object.keys(value).length > 0;

/** Nothing to send: unset, empty text, or an object whose every value is blank. */
export function isBlank(value: unknown): boolean {
	if (value === undefined || value === null) return true;
	if (typeof value === 'string') return value.trim() === '';
	if (Array.isArray(value)) return value.length === 0;
	if (typeof value === 'object') return Object.values(value).every(isBlank);
	return false;
}

export type ItemContext = RequestContext;

/**
 * A check of an item's request before it is sent: it reads the request, or changes it in place, or
 * fails the item; it returns what it read of the item (`{ phone }`, `{ sms }`), if anything. It gets
 * the item's context alone: a check that needs more of n8n does not compile.
 */
export type Check<Read extends object = object> = (
	request: IHttpRequestOptions,
	item: ItemContext,
) => void | Read | Promise<void | Read>;

/** Typed in place: `itemCheck((request, item) => ...)`. */
export const itemCheck = <Read extends object = object>(check: Check<Read>): Check<Read> => check;

/** The checks that read a phone: an operation with one shows the Default Country. */
const PHONE_CHECKS = new WeakSet<Check>();
export const readsPhone = (check: Check): boolean => PHONE_CHECKS.has(check);

/** A value refused before its request: the fix, then that nothing went out for it (in the message too for an error item). */
export function itemError(item: ItemContext, message: string, fix: string): NodeOperationError {
	const description = `${fix} ${NOT_SENT}`;
	return new NodeOperationError(
		item.getNode(),
		item.continueOnFail() ? withFix(message, description) : message,
		{ description, itemIndex: item.getItemIndex() },
	);
}

/** How a refusal before sending ends its description. */
export const NOT_SENT = 'This item was not sent.';

/** Drops an optional field left empty, so the service never receives "". */
export const omitWhenBlank = (path: string) =>
	itemCheck((request) => {
		if (isBlank(readPath(request, path))) setPath(request, path.split('.'), undefined);
	});

function describe(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (value === null) return 'null';
	if (typeof value === 'object') return 'an object';
	return `"${String(value)}"`;
}

const failing =
	(item: ItemContext, label: string): Fail =>
	(problem, fix) => {
		throw itemError(item, `${label}: ${problem}`, fix);
	};

export const checkField = (path: string, label: string, normalise: Normaliser) =>
	itemCheck((request, item) => {
		const value = readPath(request, path);
		if (!isBlank(value)) setPath(request, path.split('.'), normalise(value, failing(item, label)));
	});

/** An expression can resolve to anything; a text field accepts text and plain numbers only. */
function asText(value: unknown, fail: Fail): string {
	if (typeof value === 'string') return value.trim();
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return fail(`expected text, got ${describe(value)}`, 'Map a single text value to this field.');
}

const enterValue = (label: string) =>
	`Enter a value for "${label}", or check that the expression mapped to it gives one.`;

export const requireField = (path: string, label: string) =>
	itemCheck((request, item) => {
		if (isBlank(readPath(request, path)))
			throw itemError(item, `${label} is required`, enterValue(label));
	});

export const text = (path: string, label: string) => checkField(path, label, asText);

/** Free text (a message, a name) is sent as typed; only its type is checked. */
export const freeText = (path: string, label: string) =>
	checkField(path, label, (value, fail) =>
		typeof value === 'string' ? value : asText(value, fail),
	);

/** A value picked from a list; an expression can give anything else. */
export const oneOf = (path: string, label: string, allowed: unknown[]) =>
	checkField(path, label, (value, fail) =>
		allowed.includes(value)
			? value
			: fail(
					`expected one of ${allowed.join(', ')}, got ${describe(value)}`,
					'Pick a value from the list.',
				),
	);

/** A required identifier for the URL path; fills the URL's `{<parameter>}`, trimmed and encoded. */
export const pathId = (parameter: string, label: string) =>
	itemCheck((request, item) => {
		const fail = failing(item, label);
		const value = item.getNodeParameter(parameter, '', { extractValue: true }) as unknown;
		const id = isBlank(value) ? '' : asText(value, fail);
		if (id === '') fail('is required', enterValue(label));
		request.url = request.url.split(`{${parameter}}`).join(encodeURIComponent(id));
	});

/**
 * A phone: country code then number, digits only (./phone/reading.ts), read with the item's
 * Default Country; `write` puts it in the form the field is sent in.
 */
const phoneCheck = (
	path: string,
	label: string,
	write: (digits: string) => string,
	suffix?: RegExp,
): Check<{ phone: PhoneReading }> => {
	const check = itemCheck<{ phone: PhoneReading }>(async (request, item) => {
		const value = readPath(request, path);
		if (isBlank(value)) return;
		const fail = failing(item, label);
		const typed = asText(value, fail).replace(suffix ?? '', '');
		const home = await homeCountry(item, failing(item, 'Default Country'));
		// The workflow's time zone says where numbers are dialled (readPhone: when no Default Country does).
		const reading = readPhone(typed, home, item.getTimezone());
		if ('problem' in reading) return fail(reading.problem, reading.fix);
		setPath(request, path.split('.'), write(reading.digits));
		return { phone: reading };
	});
	PHONE_CHECKS.add(check as Check);
	return check;
};

export const phone = (path: string, label: string) => phoneCheck(path, label, (digits) => digits);

/** The CRM contact identifier: the phone digits followed by @c.us, typed with or without it. */
export const chatappId = (path: string, label: string) =>
	phoneCheck(path, label, (digits) => `${digits}@c.us`, /@c\.us$/i);

export function normaliseUrl(value: unknown, fail: Fail): string {
	const typed = asText(value, fail);
	const parsed = URL.canParse(typed) ? new URL(typed) : undefined;
	// The parser forgives what the service does not (spaces, "http:/host"), so the text itself is checked too.
	if (parsed?.hostname && /^https?:$/.test(parsed.protocol) && /^https?:\/\/\S+$/i.test(typed))
		return typed;
	return fail(
		`"${typed}" is not a web address`,
		'Use a full address that starts with https:// or http://, without spaces (write a space as %20).',
	);
}

export const url = (path: string, label: string) => checkField(path, label, normaliseUrl);

export const email = (path: string, label: string) =>
	checkField(path, label, (value, fail) => {
		const typed = asText(value, fail);
		if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(typed))
			return fail(`"${typed}" is not an email address`, 'Use an address like name@example.com.');
		return typed;
	});

function asNumber(value: unknown, fail: Fail): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number))
		return fail(`expected a number, got ${describe(value)}`, 'Enter a number, e.g. 19.99.');
	return number;
}

export const number = (path: string, label: string) => checkField(path, label, asNumber);

export const integer = (path: string, label: string) =>
	checkField(path, label, (value, fail) => {
		const parsed = asNumber(value, fail);
		if (!Number.isInteger(parsed))
			return fail(`expected a whole number, got ${parsed}`, 'Enter a whole number, e.g. 1.');
		return parsed;
	});

/** Latitude or longitude, sent as text as the service documents it. */
export const coordinate = (path: string, label: string, limit: 90 | 180) =>
	checkField(path, label, (value, fail) => {
		const parsed = asNumber(value, fail);
		if (Math.abs(parsed) > limit)
			return fail(
				`${parsed} is out of range`,
				`Use decimal degrees between -${limit} and ${limit}.`,
			);
		return String(parsed);
	});

/** A list, or text with commas (as typed, or as an expression may give a multi-select's). */
export const listEntries = (value: unknown): unknown[] =>
	Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];

export const textList = (path: string, label: string) =>
	checkField(path, label, (value, fail) => {
		if (!Array.isArray(value) && typeof value !== 'string')
			fail(
				`expected a list, got ${describe(value)}`,
				'Enter values separated by commas, or map a list.',
			);
		return listEntries(value)
			.map((entry) => asText(entry, fail))
			.filter((entry) => entry !== '');
	});

/** A multi-select sent as one comma-separated text; an expression can give values it does not offer. */
export const commaList = (path: string, label: string, allowed: string[]) =>
	checkField(path, label, (value, fail) =>
		listEntries(value)
			.map((entry) => {
				const typed = asText(entry, fail);
				return allowed.includes(typed)
					? typed
					: fail(`"${typed}" is not one of ${allowed.join(', ')}`, 'Pick values from the list.');
			})
			.join(','),
	);

/** Fails when `path` is set without `otherPath`, for fields the service only accepts together. */
export const onlyWith = (
	path: string,
	label: string,
	otherPath: string,
	otherLabel: string,
	why: string,
) =>
	itemCheck((request, item) => {
		if (!isBlank(readPath(request, path)) && isBlank(readPath(request, otherPath)))
			throw itemError(
				item,
				`${label} needs ${otherLabel}`,
				`${why} Add "${otherLabel}" under Additional Fields, or remove "${label}".`,
			);
	});
