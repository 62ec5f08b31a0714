/**
 * Rules of the description as a whole, which no single operation's test sees.
 */
import { ConversationalMessaging } from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node';

const { properties } = new ConversationalMessaging().description;

describe('the node description', () => {
	it('gives every field that can hold an expression a name of its own', () => {
		// n8n's RoutingNode evaluates a parameter once for every top-level property of that name,
		// shown or not, twice per item: a name shared by k properties costs k times the
		// evaluations of an expression in it (docs/PERFORMANCE.md). Return All and Limit keep
		// n8n's usual names and hold constants in practice.
		const names = properties
			.filter((property) => !property.noDataExpression && !['returnAll', 'limit'].includes(property.name))
			.map((property) => property.name);
		const repeated = names.filter((name, index) => names.indexOf(name) !== index);
		expect(repeated).toEqual([]);
	});

	it('takes no expression in a field that decides which other fields are shown', () => {
		// displayOptions compare the raw parameter: an expression there shows every variant.
		const deciding = new Set(properties.flatMap((property) => Object.keys(property.displayOptions?.show ?? {})));
		const open = properties.filter((property) => deciding.has(property.name) && !property.noDataExpression && property.name !== 'returnAll');
		expect(open.map((property) => property.name)).toEqual([]);
	});
});
