import { COUNTRIES, PREFIX_WRITTEN } from './countries';
import { countryLabel } from './countryList';
import { E164_MAX_DIGITS, fitPlan, SHORTEST_NUMBER } from './numberingPlan';

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

/** "321 1234567 or +57 321 1234567 for Colombia"; without a Default Country, two well-known forms. */
function example(home: string | undefined): string {
	if (!home)
		return 'e.g. +1 201 555 0123 for the United States or +44 7400 123456 for the United Kingdom';
	const [code, name, , , , , international] = COUNTRIES[home];
	return `e.g. ${international.slice(code.length + 2)} or ${international} for ${name}`;
}

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
	const [code, , prefix, prefixPattern, transform, nationalPattern] = COUNTRIES[home];
	const candidates: string[] = [];
	const source = prefixPattern || prefix;
	if (source) {
		const pattern = compiled(`^(?:${source})`);
		const match = pattern.exec(digits);
		if (match) {
			const captured = match.length > 1 && match[match.length - 1];
			candidates.push(
				transform && captured ? digits.replace(pattern, transform) : digits.slice(match[0].length),
			);
		}
	}
	candidates.push(digits);
	const national = compiled(`^(?:${nationalPattern})$`);
	const found = candidates.find(
		(number) => code.length + number.length <= E164_MAX_DIGITS && national.test(number),
	);
	return found === undefined ? undefined : code + found;
}

/**
 * Country code then number, digits only, fitting a numbering plan. With a Default Country
 * (`home`), a number typed without + or 00 that is a number of that country is read as typed
 * there; otherwise, and without one, it must start with its country code: a number typed without
 * it (`300 123 4567` for +57 ...) would go out as another number.
 */
export function readPhone(typed: string, home?: string): PhoneReading | PhoneProblem {
	let digits = typed.replace(/[\s\-.()/]/g, '');
	const international = /^(\+|00)/.test(digits);
	digits = digits.replace(/^(\+|00)/, '');
	const setHome = home
		? ''
		: " If your numbers are typed as at home, set Default Country (in the credential, or in the node's Settings).";
	const codeFirst = `Write the country code first, then the number: ${example(home)}.`;
	const fix = codeFirst + setHome;
	if (!/^[0-9]+$/.test(digits))
		return {
			problem: `"${typed}" is not a phone number (only digits, +, spaces, dashes, dots and brackets are allowed)`,
			fix,
		};
	if (!international && home) {
		const [code, homeName, prefix] = COUNTRIES[home];
		const atHome = readAtHome(digits, home);
		const asWritten = digits.length <= E164_MAX_DIGITS && fitPlan(digits);
		const abroad = asWritten && asWritten.fits ? asWritten.code : undefined;
		// "4915123456789" in Germany: a German number as typed there, or +49 1512 ... as the service writes it.
		if (atHome && abroad === code && digits !== atHome)
			return {
				problem: `"${typed}" could be a number of ${countryLabel(code, home)} typed as at home (+${atHome}) or with its country code first (+${digits})`,
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
				fix: `Write it with + and its country code (+${digits}), or, for ${homeName}, with its ${prefix} (${prefix}${digits}).`,
			};
		if (atHome)
			return {
				digits: atHome,
				code,
				international,
				home,
				atHome: true,
				...(abroad && abroad !== code ? { alsoAbroad: abroad } : {}),
			};
	}
	const atHomeToo =
		home && !international
			? `is not a number of ${countryLabel(COUNTRIES[home][0], home)}, and `
			: '';
	if (digits.startsWith('0'))
		return { problem: `"${typed}" ${atHomeToo}has no country code (it starts with 0)`, fix };
	// The lengths are the plans' own: no plan has shorter numbers, and E.164 allows no longer ones.
	if (digits.length < SHORTEST_NUMBER)
		return {
			problem: `"${typed}" ${atHomeToo}has ${digits.length} digits, and no country's numbering plan has numbers of fewer than ${SHORTEST_NUMBER}, country code included`,
			fix,
		};
	if (digits.length > E164_MAX_DIGITS)
		return {
			problem: `"${typed}" ${atHomeToo}has ${digits.length} digits, and a phone number has at most ${E164_MAX_DIGITS}, country code included (E.164)`,
			fix,
		};
	const plan = fitPlan(digits);
	if (plan.fits) return { digits, code: plan.code, international, home, atHome: false };
	// "+44 (0)20 ...": the national prefix 0 is dialled only within the country.
	const { code } = plan;
	const prefixFix =
		code !== undefined &&
		digits[code.length] === '0' &&
		fitPlan(code + digits.slice(code.length + 1)).fits
			? `Leave out the 0 after the country code ${code}: it is dialled only within the country.`
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
				: `${codeFirst} If ${code} is its country code, check the digits: ${plan.reason}.${setHome}`),
	};
}
