import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { readsPhone } from './checks/checks';
import { nodeDefaultCountry } from './checks/phone/defaultCountry';
import type { Field } from './form/fields';
import { showFor } from './form/fields';
import type { OperationSpec, ResourceSpec } from './form/operations';
import { allFields, isBulk } from './form/operations';
import { fieldProperty, operationOption } from './form/routing';
import { requestOptions, sendOptions } from './form/settings';
import { outputsOf, recipientRules } from './recipientRules/fields';

/*
 * The operation registry: every list the node's description holds of its operations, derived from
 * the resources' specs, so that an operation is added by its own file and its resource's index.
 */

/** Each resource with the values of its operations `pick` chooses; those with none left out. */
const operationsBy = (resources: ResourceSpec[], pick: (spec: OperationSpec) => boolean) =>
	resources
		.map(
			({ value, operations }) =>
				[value, operations.filter(pick).map((spec) => spec.value)] as const,
		)
		.filter(([, operations]) => operations.length);

/** A field's own conditions: which resource and operation show it, its operations' specs decide. */
const conditionsOf = (show: IDataObject = {}) =>
	Object.fromEntries(
		Object.entries(show).filter(([key]) => key !== 'resource' && key !== 'operation'),
	);

/**
 * Each field of the resource once, shown for the operations that list it, in an order that keeps
 * every operation's own: a field first listed by a later operation goes after the one it follows there.
 */
function resourceFields(resource: ResourceSpec): INodeProperties[] {
	const order: Field[] = [];
	const listedBy = new Map<Field, OperationSpec[]>();
	for (const spec of resource.operations) {
		let place = 0;
		for (const field of spec.fields ?? []) {
			if (!listedBy.has(field)) order.splice(place, 0, field);
			listedBy.set(field, [...(listedBy.get(field) ?? []), spec]);
			place = order.indexOf(field) + 1;
		}
	}
	return order.map((field) => {
		const specs = listedBy.get(field) ?? [];
		const routed = specs.some((spec) => spec.sends !== 'custom');
		const operations = specs.map((spec) => spec.value);
		const { show, ...rest } = field.displayOptions ?? {};
		return {
			...fieldProperty(field, routed),
			displayOptions: { ...rest, ...showFor(resource.value, operations, conditionsOf(show)) },
		};
	});
}

function resourceProperties(resource: ResourceSpec): INodeProperties[] {
	const { value, operations, defaultOperation } = resource;
	const operation: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [value] } },
		options: operations
			.map((spec) => operationOption(value, spec))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultOperation,
	};
	return [operation, ...resourceFields(resource)];
}

/**
 * When an operation shows the Default Country: none without a phone field; else the conditions its
 * phone fields need besides the operation, one per condition (Send and Wait's channels that have
 * one, a single key: their values together), `{}` when one needs nothing more.
 */
function phoneConditions(spec: OperationSpec): string[] {
	const phones = allFields(spec.fields).filter((field) => field.sent?.checks.some(readsPhone));
	const conditions = phones.map(({ displayOptions }) => conditionsOf(displayOptions?.show));
	if (conditions.some((condition) => !Object.keys(condition).length)) return ['{}'];
	const byKey = new Map<string, unknown[]>();
	const apart: string[] = [];
	for (const condition of conditions) {
		const [[key, values], ...more] = Object.entries(condition);
		if (more.length) apart.push(JSON.stringify(condition, Object.keys(condition).sort()));
		else byKey.set(key, [...new Set([...(byKey.get(key) ?? []), ...(values as unknown[])])]);
	}
	return [...[...byKey].map(([key, values]) => JSON.stringify({ [key]: values })), ...apart];
}

/** One Default Country per resource and condition: parameters of one name may be shown apart. */
function defaultCountries(resource: ResourceSpec): INodeProperties[] {
	const byCondition = new Map<string, string[]>();
	for (const spec of resource.operations)
		for (const condition of phoneConditions(spec))
			byCondition.set(condition, [...(byCondition.get(condition) ?? []), spec.value]);
	return [...byCondition].map(([condition, operations]) =>
		nodeDefaultCountry(showFor(resource.value, operations, JSON.parse(condition) as IDataObject)),
	);
}

/** Resource and each resource's operations and fields, then the settings their operations have. */
function nodeProperties(
	resources: ResourceSpec[],
	ruled: Record<string, string[]>,
): INodeProperties[] {
	const resource: INodeProperties = {
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: resources
			.map(({ name, value, description }) => ({ name, value, description }))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: 'messaging',
	};
	return [
		resource,
		...resources.flatMap(resourceProperties),
		...Object.entries(ruled).map(([name, operations]) => recipientRules(name, operations)),
		...operationsBy(resources, isBulk).map(([name, operations]) => sendOptions(name, operations)),
		...resources.flatMap(defaultCountries),
		requestOptions,
	];
}

/** The node's subtitle: the selected operation's action. */
function subtitleOf(resources: ResourceSpec[]): string {
	const actions = Object.fromEntries(
		resources.flatMap(({ value, operations }) =>
			operations.map((spec) => [`${value}.${spec.value}`, spec.action]),
		),
	);
	return `={{ (${JSON.stringify(actions)})[$parameter["resource"] + "." + $parameter["operation"]] }}`;
}

/** What the node's description derives from its resources' specs. */
export function describedBy(
	resources: ResourceSpec[],
): Pick<INodeTypeDescription, 'subtitle' | 'outputs' | 'properties'> {
	// The bulk sends that message a person: where Recipient Rules apply.
	const ruled = Object.fromEntries(
		operationsBy(resources, (spec) => isBulk(spec) && spec.toAPerson === true),
	);
	return {
		subtitle: subtitleOf(resources),
		outputs: outputsOf(ruled),
		properties: nodeProperties(resources, ruled),
	};
}
