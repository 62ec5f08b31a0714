/**
 * The notices under Send SMS's text say its encoding and segments before anything is sent. n8n
 * shows a notice by its displayOptions (NodeHelpers.displayParameter, the editor's own test); each
 * text must show exactly one, and it must say what the send will count (checks/sms.ts readSms).
 */
import fc from 'fast-check';
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { isExpression, NodeHelpers } from 'n8n-workflow';

import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import { readSms } from '../../../nodes/ConversationalMessaging/checks/sms';

const node = new ConversationalMessaging();
const NODE = { name: 'Send SMS', typeVersion: 1, parameters: {} } as never;
const notices = node.description.properties.filter(
	(property) => property.type === 'notice' && property.name.startsWith('smsCost'),
);

const shownFor = (message: string, extra: INodeParameters = {}): INodeProperties[] => {
	const parameters = { resource: 'messaging', operation: 'sendSms', message, ...extra };
	return notices.filter((notice) =>
		NodeHelpers.displayParameter(parameters, notice, NODE, node.description),
	);
};

/** What the notice should say of this text, by the send's own count. */
function expected(text: string): RegExp {
	const { encoding, segments } = readSms(text);
	if (encoding === 'GSM-7' && /[\f^{}\\[~\]|€]/.test(text))
		return /each \^ \{ \} \[ \] ~ \| € or \\ in it/;
	// A longer Unicode text with an emoji: a part never splits one, which a count by length cannot see.
	if (encoding === 'UCS-2' && text.length > 70 && /[\uD800-\uDBFF]/.test(text))
		return /^As typed, this SMS is Unicode \(UCS-2\) and longer than one segment, with an emoji/;
	const shape = encoding === 'UCS-2' ? 'Unicode \\(UCS-2\\)' : 'GSM-7';
	const count = segments > 4 ? 'more than 4 segments' : `${segments} segments?`;
	return new RegExp(`^As typed, this SMS is ${shape}: ${count}[,.]`);
}

describe('the cost notices under a typed SMS', () => {
	it.each([
		['a short text', 'Hi, your order is on its way.', 'GSM-7: 1 segment.'],
		['160 GSM-7 characters', 'x'.repeat(160), 'GSM-7: 1 segment.'],
		['161', 'x'.repeat(161), 'GSM-7: 2 segments'],
		['306', 'x'.repeat(306), 'GSM-7: 2 segments'],
		['307', 'x'.repeat(307), 'GSM-7: 3 segments'],
		['613', 'x'.repeat(613), 'GSM-7: more than 4 segments'],
		['a text with ’', 'It’s here', 'Unicode (UCS-2): 1 segment.'],
		['70 Unicode characters', '’'.repeat(70), 'Unicode (UCS-2): 1 segment.'],
		['71', '’'.repeat(71), 'Unicode (UCS-2): 2 segments'],
		['134', '’'.repeat(134), 'Unicode (UCS-2): 2 segments'],
		['135', '’'.repeat(135), 'Unicode (UCS-2): 3 segments'],
		['269', '’'.repeat(269), 'Unicode (UCS-2): more than 4 segments'],
		['a text with € and [ ]', 'Price: 10€ [promo]', 'each ^ { } [ ] ~ | € or \\ in it'],
		['a short text with an emoji', 'See you soon 😀', 'Unicode (UCS-2): 1 segment.'],
		['67 emoji (3 segments: a part never splits one)', '😀'.repeat(67), 'with an emoji'],
	])('%s: one notice', (_label, text, words) => {
		const shown = shownFor(text);
		expect(shown).toHaveLength(1);
		expect(shown[0].displayName).toContain(words);
	});

	it('says nothing of an expression or an empty text; a text sent with its look-alikes replaced, as typed', () => {
		expect(shownFor('={{ $json.text }}')).toEqual([]);
		expect(shownFor('')).toEqual([]);
		// n8n 1.x resolves no displayOptions on a collection's field: the notice says "as typed".
		expect(
			shownFor('It’s here', { smsOptions: { replaceLookAlikes: true } }).map(
				(notice) => notice.name,
			),
		).toEqual(['smsCostUnicode1']);
		// Only under Send SMS.
		const parameters = { resource: 'messaging', operation: 'sendSocialnet', message: 'It’s here' };
		expect(
			notices.filter((notice) =>
				NodeHelpers.displayParameter(parameters, notice, NODE, node.description),
			),
		).toEqual([]);
	});

	it('any typed text: exactly one notice, saying what the send counts', () => {
		// Letters of GSM-7 and not, the escaped ones, spaces, line breaks and emoji.
		const char = fc.constantFrom(...'abcXYZ019 .,\n@£é€^{}[]~|\\’áçş–…Жω', '😀', '👍🏽');
		fc.assert(
			fc.property(
				fc.array(char, { minLength: 1, maxLength: 700 }).map((chars) => chars.join('')),
				(text) => {
					if (isExpression(text)) return;
					const shown = shownFor(text);
					expect(shown).toHaveLength(1);
					expect(shown[0].displayName).toMatch(expected(text));
				},
			),
			{ numRuns: 400, seed: 48 },
		);
	});
});
