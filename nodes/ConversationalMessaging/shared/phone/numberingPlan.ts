import { countryLabel } from './countryList';
import { PLANS } from './plans';

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
	return parts.length > 1
		? `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`
		: parts[0];
}

export function fitPlan(digits: string): PlanFit {
	const code = [1, 2, 3]
		.map((length) => digits.slice(0, length))
		.find((prefix) => Object.prototype.hasOwnProperty.call(PLANS, prefix));
	if (code === undefined) return { fits: false, reason: 'it starts with no country calling code' };
	const plan = PLANS[code];
	const rest = digits.slice(code.length);
	const firstDigits = plan[rest.length];
	if (firstDigits === undefined)
		return {
			fits: false,
			code,
			reason: `a number of ${countryLabel(code)} has ${list(lengthsOf(plan))} digits after the country code, not ${rest.length}`,
		};
	if (!firstDigits.includes(rest[0]))
		return {
			fits: false,
			code,
			reason: `a number of ${countryLabel(code)} with ${rest.length} digits after the country code starts with ${list([...firstDigits].map(Number))}, not ${rest[0]}`,
		};
	return { fits: true, code };
}
