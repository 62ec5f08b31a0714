/**
 * mergeInto (the send loop's request merge) against lodash's own merge, which n8n's RoutingNode
 * merges each property's part of the request with: lodash is here only as a dev dependency.
 */
import type { IDataObject } from 'n8n-workflow';

import { mergeInto } from '../../../nodes/ConversationalMessaging/shared/bulk/merge';

describe("mergeInto merges as lodash's merge, which RoutingNode uses", () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const lodashMerge = require('lodash/merge') as (target: object, source: object) => object;
	class Instance {
		constructor(readonly at: number) {}
	}
	const when = new Date(0);
	const CASES_OF_MERGE: Array<[string, () => IDataObject, () => IDataObject]> = [
		[
			'nested objects',
			() => ({ body: { a: 1, b: { c: 2 } } }),
			() => ({ body: { b: { d: 3 }, e: 4 } }),
		],
		['arrays by index', () => ({ body: { list: [1, 2, 3] } }), () => ({ body: { list: [9] } })],
		['arrays of objects', () => ({ list: [{ a: 1 }, { b: 2 }] }), () => ({ list: [{ c: 3 }] })],
		['an array into nothing', () => ({}), () => ({ list: [1, [2, 3], { a: 1 }] })],
		[
			'undefined does not replace',
			() => ({ a: 1, b: { c: 2 } }),
			() => ({ a: undefined, b: undefined, c: undefined }),
		],
		['null replaces', () => ({ a: 1, b: { c: 2 } }), () => ({ a: null, b: null })],
		['an object over text', () => ({ body: 'text' }), () => ({ body: { a: 1 } })],
		['text over an object', () => ({ body: { a: 1 } }), () => ({ body: 'text' })],
		['an array over an object', () => ({ a: { x: 1 } }), () => ({ a: [1] })],
		['an object over an array', () => ({ a: [1, 2] }), () => ({ a: { x: 1 } })],
		[
			'an array over an array-like object',
			() => ({ a: { length: 2, 0: 'x', 1: 'y' } }),
			() => ({ a: ['z'] }),
		],
		[
			'dates and class instances are assigned',
			() => ({ a: { x: 1 } }),
			() => ({ a: when, b: new Instance(1) as never }),
		],
		[
			'empty parts',
			() => ({ qs: { a: 1 }, body: { b: 2 }, headers: {} }),
			() => ({ qs: {}, body: {}, headers: {} }),
		],
	];

	it.each(CASES_OF_MERGE)('%s', (_name, target, source) => {
		expect(mergeInto(target(), source())).toStrictEqual(lodashMerge(target(), source()));
	});
});
