/**
 * The send loop's fast path (nodes/ConversationalMessaging/sendLoop/itemRequest.ts): a field whose
 * expressions only read the item is filled from the item, without n8n's expression engine, when
 * the item holds a plain value there; anything else is left to n8n. What it sends, and what it
 * refuses, is what n8n's expression engine gives for the same fields (here over every kind of
 * value; also test/e2e/resources.e2e.ts and test/reliability/bad-input.test.ts).
 */
import type { INodeParameters } from 'n8n-workflow';
import { Expression, isExpression } from 'n8n-workflow';

import { useSandbox } from '../../helpers/sandbox';
import { VALUE_KINDS } from '../../helpers/valueKinds';

const suite = useSandbox();

describe('the send loop fills expressions that only read the item', () => {
	/** The expressions n8n evaluated while Send SMS ran over VALUE_KINDS. */
	async function evaluatedOver(fields: INodeParameters): Promise<string[]> {
		const spy = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue');
		try {
			const run = await suite.run(
				{ resource: 'messaging', operation: 'sendSms', instance: 'sms-line', ...fields },
				{ items: VALUE_KINDS.slice(0, 3), continueOnFail: true },
			);
			expect(run.items).toHaveLength(3);
			return spy.mock.calls
				.map(([value]) => value)
				.filter((value): value is string => isExpression(value));
		} finally {
			spy.mockRestore();
		}
	}

	it("leaves n8n's expression engine out when the item holds a plain value there, and only then", async () => {
		expect(await evaluatedOver({ to: '={{ $json.phone }}', message: '={{ $json.text }}' })).toEqual(
			[],
		);
		expect(
			await evaluatedOver({
				to: "={{ $json['phone'] }}",
				message: '=Hi {{ $json.text }}, from {{ $json.line.name }}!',
			}),
		).toEqual([]);
		expect(
			await evaluatedOver({ to: '={{ $json.phone }}', message: '={{ ($json.text) }}' }),
		).toEqual(Array(3).fill('={{ ($json.text) }}'));
		// Item 2's text is a number, item 3's a boolean: read too; a missing key goes to n8n.
		expect(
			await evaluatedOver({ to: '={{ $json.phone }}', message: '={{ $json.missing }}' }),
		).toEqual(Array(3).fill('={{ $json.missing }}'));
	});

	it("sends, and refuses, what n8n's expression engine gives for the same fields, over every kind of value", async () => {
		/** Each item's request body, or its error, with `to` and `message` as given. */
		const outcomes = async (to: string, message: string) => {
			const run = await suite.run(
				{ resource: 'messaging', operation: 'sendSms', instance: 'sms-line', to, message },
				{ items: VALUE_KINDS, continueOnFail: true },
			);
			const bodies = run.requests.map((request) => request.body);
			return run.items.map((item) => (item.error ? item.error.message : bodies.shift()));
		};
		// The same expressions, the second form left to n8n (parentheses: not a plain read).
		const fast = await outcomes(
			'={{ $json.phone }}',
			'=Hi {{ $json.text }}, {{ $json.line.name }}',
		);
		expect(fast).toEqual(
			await outcomes('={{ ($json.phone) }}', '=Hi {{ ($json.text) }}, {{ ($json.line.name) }}'),
		);
		// Both sent and refused items among them.
		expect(new Set(fast.map((outcome) => typeof outcome))).toEqual(new Set(['object', 'string']));
	});
});
