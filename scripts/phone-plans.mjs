#!/usr/bin/env node
/**
 * Writes the tables under nodes/ConversationalMessaging/checks/phone/, from libphonenumber-js's
 * metadata (the numbering plans of Google's libphonenumber), so that the node checks and reads
 * phone fields without depending on anything at run time:
 *
 * - plans.ts: for every country calling code, the lengths a national significant number (what
 *   follows the country code) can have, and for each length the digits such a number can start with.
 * - countries.ts: for every country (region), its national (trunk) prefix and how it is read off a
 *   number typed as at home, its national numbers' pattern, its example mobile number and the
 *   pattern of its mobile numbers.
 * - callingCodes.ts: every calling code's countries: the Default Country's list, which the
 *   credential loads without any numbering plan. Country names are not tables: they are
 *   Intl.DisplayNames's English names (checks/phone/countryList.ts).
 *
 *   node scripts/phone-plans.mjs          write the tables (`npm run phone-plans`)
 *   node scripts/phone-plans.mjs --check  write nothing; exit 1 if a committed table differs from a
 *                                         fresh one (`npm run build` does this first, so a stale
 *                                         table fails the build, in CI too, instead of being rewritten)
 *
 * Per calling code, the lengths are the union of the possible lengths of every region that
 * shares it (+1: the US, Canada and the Caribbean; +44: the UK, Guernsey, Jersey, Man) and of the
 * non-geographic plans (+800, +881, ...), without those that make the whole number longer than
 * the 15 digits E.164 allows. The first digits per length are those with which some number of
 * that length matches the region's national number pattern: an automaton built from the pattern
 * (libphonenumber's patterns use digits, \d, [classes], (?:groups), |, ? and {n,m} only; anything
 * else stops the generation) says which first digits can still end in an accepted number.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PHONE_DIR = join(root, 'nodes/ConversationalMessaging/checks/phone');
const E164_MAX_DIGITS = 15;
const DIGITS = '0123456789';

/** The pattern as a tree: alternatives of sequences of (atom, min, max); an atom is a digit set or a group. */
function parse(source) {
	let at = 0;
	const fail = (what) => {
		throw new Error(`phone-plans: ${what} at ${at} in /${source}/`);
	};
	function alternatives() {
		const options = [sequence()];
		while (source[at] === '|') {
			at++;
			options.push(sequence());
		}
		return { options };
	}
	function sequence() {
		const items = [];
		while (at < source.length && source[at] !== '|' && source[at] !== ')') {
			const item = { atom: atom(), min: 1, max: 1 };
			if (source[at] === '?') {
				at++;
				item.min = 0;
			} else if (source[at] === '{') {
				const quantifier = /^\{(\d+)(?:,(\d+))?\}/.exec(source.slice(at));
				if (!quantifier) fail('an unsupported quantifier');
				at += quantifier[0].length;
				item.min = Number(quantifier[1]);
				item.max = quantifier[2] === undefined ? item.min : Number(quantifier[2]);
			}
			items.push(item);
		}
		return items;
	}
	function atom() {
		if (source.startsWith('(?:', at)) {
			at += 3;
			const group = alternatives();
			if (source[at] !== ')') fail('an unclosed group');
			at++;
			return group;
		}
		if (source.startsWith('\\d', at)) {
			at += 2;
			return { digits: DIGITS };
		}
		if (source[at] === '[') {
			const end = source.indexOf(']', at);
			const body = source.slice(at + 1, end).replace(/\\d/g, '0-9');
			let digits = '';
			for (let i = 0; i < body.length; i++) {
				if (!DIGITS.includes(body[i])) fail('an unsupported character class');
				if (body[i + 1] === '-') {
					for (let digit = Number(body[i]); digit <= Number(body[i + 2]); digit++) digits += digit;
					i += 2;
				} else digits += body[i];
			}
			at = end + 1;
			return { digits };
		}
		if (DIGITS.includes(source[at])) return { digits: source[at++] };
		return fail(`an unsupported "${source[at]}"`);
	}
	const tree = alternatives();
	if (at !== source.length) fail('unexpected text');
	return tree;
}

/** A nondeterministic automaton for the pattern: states with empty moves and digit moves. */
function automaton(pattern) {
	const states = [];
	const state = () => states.push({ empty: [], moves: [] }) - 1;
	function build(node, from) {
		if (node.digits) {
			const to = state();
			states[from].moves.push({ digits: node.digits, to });
			return to;
		}
		if (node.options) {
			const end = state();
			for (const option of node.options) states[build(option, from)].empty.push(end);
			return end;
		}
		let at = from;
		for (const { atom, min, max } of node) {
			for (let i = 0; i < min; i++) at = build(atom, at);
			const skips = [];
			for (let i = min; i < max; i++) {
				skips.push(at);
				at = build(atom, at);
			}
			for (const skip of skips) states[skip].empty.push(at);
		}
		return at;
	}
	const start = state();
	const accept = build(parse(pattern), start);
	return { states, start, accept };
}

/** Of `lengths`, those some number matching `pattern` has, each with the first digits such numbers have. */
function firstDigits(pattern, lengths) {
	const { states, start, accept } = automaton(pattern);
	const closure = (set, next) => {
		const out = new Set(set);
		const stack = [...set];
		while (stack.length)
			for (const other of next(stack.pop()))
				if (!out.has(other)) (stack.push(other), out.add(other));
		return out;
	};
	const backMoves = states.map(() => []);
	const backEmpty = states.map(() => []);
	states.forEach((s, from) => {
		s.moves.forEach(({ to }) => backMoves[to].push(from));
		s.empty.forEach((to) => backEmpty[to].push(from));
	});
	// ends[n]: the states from which exactly n more digits reach the accepting state.
	const ends = [closure([accept], (s) => backEmpty[s])];
	for (let n = 1; n < Math.max(...lengths); n++) {
		ends.push(closure(new Set([...ends[n - 1]].flatMap((s) => backMoves[s])), (s) => backEmpty[s]));
	}
	const first = closure([start], (s) => states[s].empty);
	const result = new Map();
	for (const length of lengths) {
		let digits = '';
		for (const digit of DIGITS) {
			const after = closure(
				[...first].flatMap((s) =>
					states[s].moves.filter((move) => move.digits.includes(digit)).map((move) => move.to),
				),
				(s) => states[s].empty,
			);
			if ([...after].some((s) => ends[length - 1].has(s))) digits += digit;
		}
		if (digits) result.set(length, digits);
	}
	return result;
}

/** The table: calling code -> (length -> first digits), with the regions of each code. */
function plans() {
	const metadata = require('libphonenumber-js/metadata.max.json');
	const table = new Map();
	const add = (code, region, [, , pattern, lengths]) => {
		const plan = table.get(code) ?? { regions: [], lengths: new Map() };
		table.set(code, plan);
		plan.regions.push(region);
		const admitted = lengths.filter((length) => code.length + length <= E164_MAX_DIGITS);
		for (const [length, digits] of firstDigits(pattern, admitted)) {
			const union = new Set([...(plan.lengths.get(length) ?? ''), ...digits]);
			plan.lengths.set(length, [...union].sort().join(''));
		}
	};
	for (const [code, regions] of Object.entries(metadata.country_calling_codes)) {
		for (const region of regions) add(code, region, metadata.countries[region]);
	}
	for (const [code, plan] of Object.entries(metadata.nonGeographic))
		add(code, 'non-geographic', plan);
	const codes = [...table.keys()].sort((a, b) => Number(a) - Number(b));
	// Reading a number's calling code off its first digits relies on no code being the start of another.
	for (const code of codes) {
		const clash = codes.find((other) => other !== code && other.startsWith(code));
		if (clash) throw new Error(`phone-plans: calling code ${code} is the start of ${clash}`);
	}
	return codes.map((code) => ({ code, ...table.get(code) }));
}

const { version } = require('libphonenumber-js/package.json');
const HEADER = `// Generated by scripts/phone-plans.mjs (\`npm run phone-plans\`; \`npm run build\` fails if it is stale) from
// libphonenumber-js ${version} (metadata.max.json). Do not edit: change the script and run it again.`;

function renderPlans() {
	const rows = plans().map(({ code, regions, lengths }) => {
		const entries = [...lengths]
			.sort(([a], [b]) => a - b)
			.map(([length, digits]) => `${length}: '${digits}'`);
		return `\t'${code}': { ${entries.join(', ')} }, // ${regions.join(' ')}`;
	});
	return `${HEADER}
//
// For each country calling code, the lengths the number after it can have, and for each length
// the digits that number can start with. Regions sharing a code are merged (listed after it).

export const LIBPHONENUMBER_VERSION = '${version}';

export const PLANS: Readonly<Record<string, Readonly<Record<number, string>>>> = {
${rows.join('\n')}
};
`;
}

/** A string as the tables write it: in single quotes. */
const quote = (text) =>
	JSON.stringify(text ?? '')
		.replace(/^"|"$/g, "'")
		.replace(/\\"/g, '"');

/** Every region, in the order of the calling codes, the main region of a shared code first. */
function renderCountries() {
	const metadata = require('libphonenumber-js/metadata.max.json');
	const examples = require('libphonenumber-js/examples.mobile.json');
	const { parsePhoneNumber } = require('libphonenumber-js/max');
	const prefixWritten = [];
	const rows = Object.entries(metadata.country_calling_codes)
		.sort(([a], [b]) => Number(a) - Number(b))
		.flatMap(([, regions]) =>
			regions.map((region) => {
				const plan = metadata.countries[region];
				const [prefix, forParsing, transform] = [plan[5], plan[7], plan[8]];
				const example = parsePhoneNumber(examples[region], region);
				if (!example.isValid()) throw new Error(`phone-plans: ${region}'s example is not valid`);
				if (prefix && example.formatNational().replace(/\D/g, '').startsWith(prefix))
					prefixWritten.push(region);
				// The mobile pattern; the fixed-line one where the metadata gives none of its own (the NANP's are one).
				const [fixed, mobile] = plan[11] ?? [];
				const mobiles = mobile?.[0] || fixed?.[0];
				if (!mobiles) throw new Error(`phone-plans: ${region} has no mobile or fixed-line pattern`);
				const fields = [
					prefix || '',
					forParsing && forParsing !== prefix ? forParsing : '',
					transform || '',
					plan[2],
					example.formatInternational(),
					mobiles,
				];
				return `\t${region}: [${fields.map(quote).join(', ')}],`;
			}),
		);
	return `${HEADER}
//
// Per region: national (trunk) prefix, the pattern that reads the prefix off a number typed as at
// home when it is not just the prefix (capturing what the transform keeps), the transform ($1, $2:
// the captured groups), the pattern of the region's national numbers (what follows the country
// code), its example mobile number, and the pattern of its mobile numbers (national).

export type CountryRow = readonly [
	nationalPrefix: string,
	prefixPattern: string,
	prefixTransform: string,
	nationalPattern: string,
	example: string,
	mobiles: string,
];

// prettier-ignore
export const COUNTRIES: Readonly<Record<string, CountryRow>> = {
${rows.join('\n')}
};

/** The regions whose numbers are written at home with their national prefix (07400 123456, not 7400 123456). */
export const PREFIX_WRITTEN: ReadonlySet<string> = new Set('${prefixWritten.join(' ')}'.split(' '));
`;
}

/** Each calling code's regions, the main region of a shared code first, as libphonenumber lists them. */
function renderCallingCodes() {
	const metadata = require('libphonenumber-js/metadata.max.json');
	const rows = Object.entries(metadata.country_calling_codes)
		.sort(([a], [b]) => Number(a) - Number(b))
		.map(([code, regions]) => `\t'${code}': '${regions.join(' ')}',`);
	return `${HEADER}
//
// Per calling code, its regions (countries), the main region of a shared code first: the Default
// Country's list (./countryList.ts), which the credential loads without the numbering plans.

// prettier-ignore
export const CALLING_CODES: Readonly<Record<string, string>> = {
${rows.join('\n')}
};
`;
}

// Formatted as the rest of the tree (.prettierrc.js), so that `npm run lint` accepts what this writes.
const prettier = require('prettier');
const check = process.argv.includes('--check');
let stale = false;
for (const [file, render] of [
	['plans.ts', renderPlans],
	['countries.ts', renderCountries],
	['callingCodes.ts', renderCallingCodes],
]) {
	const target = join(PHONE_DIR, file);
	const fresh = await prettier.format(render(), {
		...(await prettier.resolveConfig(target)),
		filepath: target,
	});
	const current = (() => {
		try {
			return readFileSync(target, 'utf8');
		} catch {
			return undefined;
		}
	})();
	if (current === fresh) continue;
	const shown = relative(process.cwd(), target);
	if (check) {
		const what =
			current === undefined
				? 'is missing'
				: `is not what scripts/phone-plans.mjs generates from the installed libphonenumber-js ${version}`;
		console.error(
			`phone-plans: ${shown} ${what}. Run \`npm run phone-plans\` to regenerate it, and commit it.`,
		);
		stale = true;
	} else {
		writeFileSync(target, fresh);
		console.log(`phone-plans: wrote ${shown}`);
	}
}
if (stale) process.exit(1);
