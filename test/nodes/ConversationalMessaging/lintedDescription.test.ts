/**
 * n8n's lint on the description as n8n loads it. eslint-plugin-n8n-nodes-base reads node
 * parameters and their options only where they are object literals in source, so the lists that
 * helpers build (form/fields.ts's choice(), optionsOf(), valuesOf(), collection(), field(),
 * form/messageFields.ts's messageTypeField...) escape `npm run lint:n8n`. Here the node's whole
 * description, and the credential's fields, are written out as a node file of object literals
 * and linted with the project's own config (eslint.config.mjs, n8n's CLI config) under the node
 * file's own path, so that n8n's rules for nodes apply as they do to the real file.
 */
import { ESLint } from 'eslint';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { join } from 'path';

import { ConversationalMessagingApi } from '../../../credentials/ConversationalMessagingApi.credentials';
import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';

const root = join(__dirname, '..', '..', '..');
const NODE_FILE = join(root, 'nodes', 'ConversationalMessaging', 'ConversationalMessaging.node.ts');

/** The n8n plugins' rules; the other rule sets (TypeScript's, imports) judge code, not texts. */
const N8N_RULE = /^(n8n-nodes-base|@n8n\/community-nodes)\//;

/**
 * n8n rules on the source's form, which the written-out file cannot keep (the real file passes
 * them under `npm run lint:n8n`).
 */
const EXCLUDED = new Set([
	// The order of a parameter's keys in source: helpers spread their defaults (type, default)
	// before the spec. n8n reads keys by name.
	'n8n-nodes-base/node-param-display-name-not-first-position',
	// The file names NodeConnectionTypes.Main, which is 'main' once loaded.
	'@n8n/community-nodes/node-connection-type-literal',
	// For webhook triggers, when `webhooks` is an array literal (the file names a constant):
	// these are Send and Wait's webhooks, which have no lifecycle to register.
	'@n8n/community-nodes/webhook-lifecycle-complete',
]);

/** Findings on texts that are right as they are: the rule, where, and why. */
const ACCEPTED: Array<{ rule: string; at: RegExp; why: string }> = [
	{
		rule: 'n8n-nodes-base/node-param-display-name-miscased',
		at: /\(Tristan da Cunha \(\+\d+\)\)\.name: /,
		why: "A country's own name, from ICU: title case would make it wrong.",
	},
	{
		rule: 'n8n-nodes-base/node-param-description-miscased-json',
		at: /\.description: (?!.*(^|[^$])\b[jJ]son\b)/,
		why: "n8n's $json in an example expression, which must stay as it is.",
	},
	{
		rule: 'n8n-nodes-base/node-param-options-type-unsorted-items',
		at: /^credential\.properties\[\d+\] \(Default Country\)\.options: $/,
		why: 'None first (the default), then the countries in order.',
	},
	...[
		'n8n-nodes-base/node-param-display-name-wrong-for-dynamic-options',
		'n8n-nodes-base/node-param-description-wrong-for-dynamic-options',
	].map((rule) => ({
		rule,
		at: /\(Default Country\)\.(displayName|description): /,
		why: 'A fixed list of countries loaded only to keep it out of the description (checks/phone/defaultCountry.ts), not records of the account to pick "by Name or ID".',
	})),
];

/** Lines of source, and for each the place in the value it writes (for the report). */
interface Source {
	lines: string[];
	where: string[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `head` and a value as source, one property or item a line. Keys unquoted where they can be;
 * strings as JSON writes them: string literals, which the plugin's getters read (they skip a
 * template literal); functions (routing's preSend, postReceive, pagination) as null, which no
 * rule reads. The plugin's sort rules evaluate a list's source, which all this keeps possible.
 */
function assignment(head: string, value: unknown, at: string): Source {
	const source: Source = { lines: [], where: [] };
	const line = (text: string, place: string) => {
		source.lines.push(text);
		source.where.push(place);
	};
	const write = (item: unknown, depth: number, key: string, place: string): void => {
		const start = `${'\t'.repeat(depth)}${key}`;
		if (Array.isArray(item)) {
			line(`${start}[`, place);
			item.forEach((entry, index) => {
				const label = isPlainObject(entry) ? (entry.displayName ?? entry.name) : undefined;
				write(entry, depth + 1, '', `${place}[${index}]${label ? ` (${String(label)})` : ''}`);
			});
			line(`${'\t'.repeat(depth)}],`, place);
		} else if (isPlainObject(item)) {
			line(`${start}{`, place);
			for (const [name, entry] of Object.entries(item))
				write(
					entry,
					depth + 1,
					`${IDENTIFIER.test(name) ? name : JSON.stringify(name)}: `,
					`${place}.${name}`,
				);
			line(`${'\t'.repeat(depth)}},`, place);
		} else if (typeof item === 'function') line(`${start}null,`, place);
		else if (item === undefined || typeof item === 'number')
			line(`${start}${String(item)},`, place);
		else line(`${start}${JSON.stringify(item)},`, place);
	};
	write(value, 0, '', at);
	source.lines[0] = head + source.lines[0];
	source.lines[source.lines.length - 1] = source.lines[source.lines.length - 1].replace(/,$/, ';');
	return source;
}

/**
 * A node file as n8n's lint would see it if every list were written out in its source, with the
 * credential's fields as well, where n8n's rules on parameters read them (its config gives the
 * credentials folder the rules on credential classes only).
 */
function nodeFile(description: object, credentialFields: INodeProperties[]): Source {
	const indented = (source: Source): Source => ({
		lines: source.lines.map((text) => `\t${text}`),
		where: source.where,
	});
	const parts: Source[] = [
		{
			lines: [
				"import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';",
				'',
				'export class ConversationalMessaging implements INodeType {',
			],
			where: ['', '', ''],
		},
		indented(assignment('description: INodeTypeDescription = ', description, 'description')),
		{ lines: ['}', ''], where: ['', ''] },
		assignment(
			'export const credentialFields: INodeProperties[] = ',
			credentialFields,
			'credential.properties',
		),
	];
	return {
		lines: [...parts.flatMap((part) => part.lines), ''],
		where: [...parts.flatMap((part) => part.where), ''],
	};
}

let eslint: ESLint;

beforeAll(() => {
	eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, 'eslint.config.mjs') });
});

interface Finding {
	rule: string;
	at: string;
	message: string;
}

/** n8n's findings in the file, but for the rules excluded and the findings accepted. */
async function lint({ lines, where }: Source): Promise<Finding[]> {
	// `npm run lint:n8n` unsets NODE_ENV (jest's is "test"), which the plugin reads as it loads.
	const nodeEnv = process.env.NODE_ENV;
	delete process.env.NODE_ENV;
	const [result] = await eslint.lintText(lines.join('\n'), { filePath: NODE_FILE }).finally(() => {
		if (nodeEnv !== undefined) process.env.NODE_ENV = nodeEnv;
	});
	const fatal = result.messages.filter((message) => message.fatal);
	if (fatal.length) throw new Error(`The written-out file does not parse: ${fatal[0].message}`);
	return result.messages
		.map((message) => {
			const text = lines[message.line - 1].trim();
			return {
				rule: message.ruleId ?? '',
				at: where[message.line - 1] || `line ${message.line}: ${text.slice(0, 300)}`,
				message: message.message.slice(0, 300),
				text,
			};
		})
		.filter(({ rule }) => N8N_RULE.test(rule) && !EXCLUDED.has(rule))
		.filter(({ rule, at, text }) => {
			const value = text.replace(/^[^:]*: /, '').replace(/[[{]$/, '');
			return !ACCEPTED.some(
				(accepted) => accepted.rule === rule && accepted.at.test(`${at}: ${value}`),
			);
		})
		.map(({ rule, at, message }) => ({ rule, at, message }));
}

describe("n8n's lint on the description as n8n loads it", () => {
	it('finds nothing in the node description and the credential fields, lists built by helpers included', async () => {
		const found = await lint(
			nodeFile(
				new ConversationalMessaging().description,
				new ConversationalMessagingApi().properties,
			),
		);
		expect(found).toEqual([]);
	});

	it('reads the lists as helpers build them: faults put in them are found', async () => {
		// Legacy Message > Send's Message Type (messageTypeField), with an option's description
		// ending with a period and a miscased "url", and the first collection and list of several
		// choices of five items or more, each in reverse order.
		const { properties } = new ConversationalMessaging().description;
		const messageType = properties.find(
			(property) =>
				property.name === 'messageType' &&
				(property.options as INodePropertyOptions[]).some(({ value }) => value === 'sticker'),
		)!;
		const [first, ...rest] = (messageType.options as INodePropertyOptions[]).map((option) => ({
			...option,
		}));
		first.description = 'An audio file, by url.';
		const faulty = [
			{ ...messageType, options: [first, ...rest].reverse() },
			...(['collection', 'multiOptions'] as const).map((type) => {
				const list = properties.find(
					(property) => property.type === type && property.options!.length >= 5,
				)!;
				return { ...list, options: [...list.options!].reverse() };
			}),
		];
		const description = { ...new ConversationalMessaging().description, properties: faulty };
		const found = await lint(nodeFile(description, []));
		expect(found.map(({ rule, at }) => `${rule} at ${at.replace(/ \(.*/, '')}`).sort()).toEqual([
			'n8n-nodes-base/node-param-collection-type-unsorted-items at description.properties[1]',
			'n8n-nodes-base/node-param-description-excess-final-period at description.properties[0]',
			'n8n-nodes-base/node-param-description-miscased-url at description.properties[0]',
			'n8n-nodes-base/node-param-multi-options-type-unsorted-items at description.properties[2]',
			'n8n-nodes-base/node-param-options-type-unsorted-items at description.properties[0]',
		]);
	});
});
