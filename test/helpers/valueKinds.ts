import type { IDataObject } from 'n8n-workflow';

/**
 * Items holding values of every kind where `{{ $json.phone }}`, `{{ $json.line.name }}` and
 * `{{ $json.text }}` look: strings, numbers, booleans, empty, null, objects, lists, missing keys
 * and paths through non-objects. The send loop reads some itself and leaves the others to n8n
 * (sendLoop/itemRequest.ts, whose choice fieldValues.test.ts checks); the values sent are held to
 * n8n's answers by test/reliability/bad-input.test.ts and test/e2e/resources.e2e.ts.
 */
export const VALUE_KINDS: IDataObject[] = [
	{ phone: '+57 300 123 4567', line: { name: 'sms-line' }, text: 'Hola' },
	{ phone: 573001234567, line: { name: 'sms-line' }, text: 42.5 },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: true },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: false },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: 0 },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: '' },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: ' {{ 1 + 1 }} ' },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: null },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: { nested: 'object' } },
	{ phone: '4915112345678', line: { name: 'sms-line' }, text: ['a', 'list'] },
	{ phone: '4915112345678', line: { name: 'sms-line' } },
	{ phone: '4915112345678', line: 'not an object', text: 'Hola' },
	{ phone: '4915112345678', line: null, text: 'Hola' },
	{ phone: '4915112345678', line: { name: 7 }, text: 'Hola' },
	{ phone: null, line: { name: 'sms-line' }, text: 'Hola' },
];
