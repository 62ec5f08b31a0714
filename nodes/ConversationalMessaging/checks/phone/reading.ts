import { isExpression } from 'n8n-workflow';

import { joinAnd } from '../../words';
import { CREDENTIAL_NAME, DEFAULT_COUNTRY, NO_COUNTRY } from '../../service/account';
import type { RequestContext } from '../../service/envelope';
import { COUNTRIES, PREFIX_WRITTEN } from './countries';
import { CODE_OF, countryLabel, nameOf } from './countryList';
import { PLANS } from './plans';
import { countryOfZone } from './timeZones';

/**
 * Whether digits (country code, then number) fit a plan of libphonenumber-js's metadata
 * (scripts/phone-plans.mjs): a known code, then a length and first digit its plan gives. No code
 * is the start of another (the generator checks), so the code is read off the first digits.
 */
type PlanFit = { fits: true; code: string } | { fits: false; code?: string; reason: string };

const lengthsOf = (plan: Readonly<Record<number, string>>) => Object.keys(plan).map(Number);

/** Country code included, in any plan (the sandbox's Phone pattern starts there too). */
export const SHORTEST_NUMBER = Math.min(
	...Object.entries(PLANS).flatMap(([code, plan]) =>
		lengthsOf(plan).map((length) => code.length + length),
	),
);

/** Country code included; the plans never exceed it. */
export const E164_MAX_DIGITS = 15;

/** "8, 10 or 11"; runs of three or more as "1 to 9". */
function list(items: number[]): string {
	const parts: string[] = [];
	for (let i = 0; i < items.length; i++) {
		let end = i;
		while (items[end + 1] === items[end] + 1) end++;
		if (end - i >= 2) {
			parts.push(`${items[i]} to ${items[end]}`);
			i = end;
		} else parts.push(String(items[i]));
	}
	return joinAnd(parts).replace(' and ', ' or ');
}

export function fitPlan(digits: string): PlanFit {
	const code = [1, 2, 3]
		.map((length) => digits.slice(0, length))
		.find((prefix) => Object.prototype.hasOwnProperty.call(PLANS, prefix));
	if (code === undefined) return { fits: false, reason: 'it starts with no country calling code' };
	const plan = PLANS[code];
	const rest = digits.slice(code.length);
	const firstDigits = plan[rest.length];
	const reason =
		firstDigits === undefined
			? `a number of ${countryLabel(code)} has ${list(lengthsOf(plan))} digits after the country code, not ${rest.length}`
			: firstDigits.includes(rest[0])
				? undefined
				: `a number of ${countryLabel(code)} with ${rest.length} digits after the country code starts with ${list([...firstDigits].map(Number))}, not ${rest[0]}`;
	return reason === undefined ? { fits: true, code } : { fits: false, code, reason };
}

/** How a phone was read: what is sent (country code, then number) and why. */
export interface PhoneReading {
	digits: string;
	code: string;
	/** Typed with + or 00. */
	international: boolean;
	/** The Default Country in effect, if any. */
	home?: string;
	/** Read as typed in the Default Country. */
	atHome: boolean;
	/** Read as at home, though written country code first it fits this other country's plan too. */
	alsoAbroad?: string;
}

export type PhoneProblem = { problem: string; fix: string };

/**
 * How to write a number, each example obeying the words before it: with a Default Country, as
 * dialled there or with +; without one, country code first (two well-known countries).
 */
function howToWrite(home: string | undefined, more = ''): string {
	if (!home)
		return `Write it with + and its country code, e.g. +1 201 555 0123 for the United States or +44 7400 123456 for the United Kingdom.${more} If your numbers are written without their country code, set the Default Country (in the credential, or in the node's Settings).`;
	const [prefix, , , , international] = COUNTRIES[home];
	const code = CODE_OF[home];
	// As dialled there: with the national prefix where numbers are written with it (0 in Germany).
	const national = (PREFIX_WRITTEN.has(home) ? prefix : '') + international.slice(code.length + 2);
	return `Write a number of ${nameOf(home)} as dialled there (e.g. ${national}), or any number with + and its country code (e.g. ${international}).${more}`;
}

/** "(201) 555-0123": an area code in brackets, as numbers are written within their country. */
const BRACKETED = /^\s*\(\s*\d/;

const patterns = new Map<string, RegExp>();
const compiled = (source: string) => {
	let pattern = patterns.get(source);
	if (!pattern) patterns.set(source, (pattern = new RegExp(source)));
	return pattern;
};

/**
 * The number as typed in `home`, its national (trunk) prefix read off as libphonenumber does:
 * the prefix pattern, with its transform when it captured something, else the digits as typed.
 * Undefined unless the result is a national number of home (its plan's pattern, as libphonenumber's).
 */
function readAtHome(digits: string, home: string): string | undefined {
	const [prefix, prefixPattern, transform, nationalPattern] = COUNTRIES[home];
	const code = CODE_OF[home];
	// Unmatched, or without a prefix (an empty pattern), the digits as typed.
	const pattern = compiled(`^(?:${prefixPattern || prefix})`);
	const match = pattern.exec(digits);
	const captured = match && match.length > 1 && match[match.length - 1];
	const readOff =
		transform && captured ? digits.replace(pattern, transform) : digits.slice(match?.[0].length);
	const national = compiled(`^(?:${nationalPattern})$`);
	const found = [readOff, digits].find(
		(number) => code.length + number.length <= E164_MAX_DIGITS && national.test(number),
	);
	return found === undefined ? undefined : code + found;
}

/**
 * The number as dialled in `country` when that reading is a likely one, for a workflow in its time
 * zone without a Default Country: a mobile number of its (./countries.ts, libphonenumber's type
 * pattern), and, where numbers are written with their trunk prefix (Germany's 0), typed with it.
 * The national patterns alone are loose enough to read most numbers written country code first as
 * a German or Chinese one.
 */
function dialledIn(digits: string, country: string): string | undefined {
	const [prefix, , , , , mobile] = COUNTRIES[country];
	if (PREFIX_WRITTEN.has(country) && !(prefix && digits.startsWith(prefix))) return undefined;
	const dialled = readAtHome(digits, country);
	return dialled !== undefined &&
		compiled(`^(?:${mobile})$`).test(dialled.slice(CODE_OF[country].length))
		? dialled
		: undefined;
}

/**
 * Country code then number, digits only, fitting a numbering plan. With a Default Country
 * (`home`), a number typed without + or 00 that is a number of that country is read as typed
 * there; otherwise, and without one, its first digits are its country code: a number typed without
 * it (`300 123 4567` for +57 ...) would go out as another number. Without one, `zone` (the
 * workflow's time zone) says where numbers are likely dialled: one that is also a number of its
 * country as dialled there is refused, naming both readings.
 */
export function readPhone(
	typed: string,
	home?: string,
	zone?: string,
): PhoneReading | PhoneProblem {
	let digits = typed.replace(/[\s\-.()/]/g, '');
	const international = /^(\+|00)/.test(digits);
	digits = digits.replace(/^(\+|00)/, '');
	const fix = howToWrite(home);
	if (!/^[0-9]+$/.test(digits))
		return {
			problem: `"${typed}" is not a phone number (only digits, +, spaces, dashes, dots and brackets are allowed)`,
			fix,
		};
	if (!international && home) {
		const [prefix] = COUNTRIES[home];
		const code = CODE_OF[home];
		const atHome = readAtHome(digits, home);
		const asWritten = digits.length <= E164_MAX_DIGITS && fitPlan(digits);
		const abroad = asWritten && asWritten.fits ? asWritten.code : undefined;
		// "4915123456789" in Germany: a German number as typed there, or +49 1512 ... as the service writes it.
		if (atHome && abroad === code && digits !== atHome)
			return {
				problem: `"${typed}" could be a number of ${countryLabel(code, home)} as dialled within the country (+${atHome}) or with its country code first (+${digits})`,
				fix: `Write it with + and its country code, e.g. +${digits}.`,
			};
		// "447400123456" in Germany, where numbers are written with their 0: rather the UK's +44 7400 ...
		if (
			atHome &&
			abroad &&
			abroad !== code &&
			PREFIX_WRITTEN.has(home) &&
			!digits.startsWith(prefix)
		)
			return {
				problem: `"${typed}" could be a number of ${countryLabel(code, home)} typed without its national prefix ${prefix} (+${atHome}) or of ${countryLabel(abroad)} written with its country code first (+${digits})`,
				fix: `Write it with + and its country code (+${digits}), or, for ${nameOf(home)}, with its ${prefix} (${prefix}${digits}).`,
			};
		if (atHome)
			return {
				digits: atHome,
				code,
				international,
				home,
				atHome: true,
				// "(201) 555-0123": brackets are never a country code's, so no other reading to mention.
				...(abroad && abroad !== code && !BRACKETED.test(typed) ? { alsoAbroad: abroad } : {}),
			};
	}
	const atHomeToo =
		home && !international
			? `is not a number of ${countryLabel(CODE_OF[home], home)} as dialled there, and `
			: '';
	// "0300 123 4567", "(201) 555-0123" ("(+57) ..." has its code): written within a country.
	const national = digits.startsWith('0')
		? 'it starts with 0'
		: !international && BRACKETED.test(typed) && 'the area code in brackets';
	if (national && !home)
		return {
			problem: `"${typed}" is written as dialled within its country (${national}), and no Default Country is set to say which one`,
			fix,
		};
	if (national) return { problem: `"${typed}" ${atHomeToo}has no country code (${national})`, fix };
	// "201 555 0123" in a workflow in New York: +20 15 5501 23 (Egypt) as written, or +1 201 555 0123.
	const local = !international && !home && zone ? countryOfZone(zone) : undefined;
	const dialled = local && dialledIn(digits, local);
	const asWritten = dialled && digits.length <= E164_MAX_DIGITS && fitPlan(digits);
	if (local && dialled && asWritten && asWritten.fits && asWritten.code !== CODE_OF[local])
		return {
			problem: `"${typed}" could be two people's numbers: one of ${countryLabel(asWritten.code)} read with its first digits as the country code (+${digits}), or one of ${countryLabel(CODE_OF[local], local)} as dialled there (+${dialled}), the country of the workflow's time zone (${zone}). No Default Country is set to say which`,
			fix: `Write it with + and its country code (+${dialled} or +${digits}), or set the Default Country (in the credential, or in the node's Settings) to the country your numbers are written in.`,
		};
	// The lengths are the plans' own: no plan has shorter numbers, and E.164 allows no longer ones.
	if (digits.length < SHORTEST_NUMBER)
		return {
			problem: `"${typed}" ${atHomeToo}is too short for a phone number: ${digits.length} digits, and at least ${SHORTEST_NUMBER} with the country code`,
			fix,
		};
	if (digits.length > E164_MAX_DIGITS)
		return {
			problem: `"${typed}" ${atHomeToo}is too long for a phone number: ${digits.length} digits, and at most ${E164_MAX_DIGITS} with the country code`,
			fix,
		};
	const plan = fitPlan(digits);
	if (plan.fits) return { digits, code: plan.code, international, home, atHome: false };
	// "+44 (0)20 ...": the national prefix 0 is dialled only within the country.
	const { code } = plan;
	const withoutZero = code === undefined ? '' : code + digits.slice(code.length + 1);
	const prefixFix =
		code !== undefined && digits[code.length] === '0' && fitPlan(withoutZero).fits
			? `Leave out the 0 after the country code ${code}: it is dialled only within the country (e.g. +${withoutZero}).`
			: undefined;
	if (international)
		return {
			problem: `"${typed}" fits no country's numbering plan: ${plan.reason}`,
			fix: prefixFix ?? 'Check the country code and the digits of the number.',
		};
	return {
		problem: home
			? `"${typed}" ${atHomeToo}fits no country's numbering plan with its first digits as the country code`
			: `"${typed}" fits no country's numbering plan: it looks like a number without its country code`,
		fix:
			prefixFix ??
			(code === undefined
				? fix
				: howToWrite(home, ` If ${code} is its country code, check the digits: ${plan.reason}.`)),
	};
}

/** The Default Country of an item: the node's, else the credential's; undefined for none. `fail` names the field. */
export async function homeCountry(
	item: RequestContext,
	fail: (problem: string, fix: string) => never,
): Promise<string | undefined> {
	// A plain value is read as it is: n8n's parameter reader costs a bulk send's every item.
	const raw = item.getNode().parameters[DEFAULT_COUNTRY] ?? '';
	const own =
		typeof raw === 'string' && !isExpression(raw)
			? raw
			: (item.getNodeParameter(DEFAULT_COUNTRY, '') as unknown);
	const chosen =
		own === NO_COUNTRY ? '' : own || (await item.getCredentials(CREDENTIAL_NAME))[DEFAULT_COUNTRY];
	if (chosen === undefined || chosen === null || chosen === '') return undefined;
	const region = typeof chosen === 'string' ? chosen.trim().toUpperCase() : '';
	if (Object.prototype.hasOwnProperty.call(COUNTRIES, region)) return region;
	return fail(
		`"${String(chosen)}" is not in the list of countries`,
		'Pick a country from the list, or give a two-letter country code such as CO (Colombia) or US.',
	);
}
