import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { listEntries } from '../checks/checks';
import { homeCountry, readPhone } from '../checks/phone/reading';
import { count } from '../words';
import { itemContext } from '../sendLoop/itemRequest';

/**
 * The Do Not Send To list, each entry read as the recipient's phone is (with item 0's Default
 * Country), so that every way of writing a number stops it; recipient IDs as typed for socialnet.
 */
export async function readDoNotSendTo(
	fns: IExecuteFunctions,
	raw: unknown,
	phones: boolean,
): Promise<ReadonlySet<string>> {
	const node = fns.getNode();
	const entries = (typeof raw === 'string' ? raw.split(/[,\n;]/) : listEntries(raw ?? []))
		.map((entry, position) => ({ entry, position }))
		.filter(({ entry }) => !(typeof entry === 'string' && entry.trim() === '') && entry !== null);
	if (!entries.length) return new Set();
	const fail = (problem: string, fix: string): never => {
		throw new NodeOperationError(node, `Do Not Send To: ${problem}`, { description: fix });
	};
	const home = phones ? await homeCountry(itemContext(fns, 0), fail) : undefined;
	const list = new Set<string>();
	for (const { entry, position } of entries) {
		const typed = typeof entry === 'number' ? String(entry) : entry;
		if (typeof typed !== 'string')
			fail(
				`entry ${count(position + 1)} is ${Array.isArray(typed) ? 'a list' : 'an object'}, not ${phones ? 'a phone number' : 'a recipient ID'}`,
				'Give numbers separated by commas or lines, or an expression giving a list of them.',
			);
		const text = (typed as string).trim();
		if (!phones) {
			list.add(text);
			continue;
		}
		// Read as the recipient phone is, the workflow's time zone included (checks.ts phoneCheck):
		// an entry that could be two people's is refused, never left to match neither.
		const reading = readPhone(text, home, fns.getTimezone());
		if ('problem' in reading)
			fail(`entry ${count(position + 1)}, ${reading.problem}`, `${reading.fix} Nothing was sent.`);
		else list.add(reading.digits);
	}
	return list;
}
