import type {
	IDataObject,
	IDisplayOptions,
	INodeProperties,
	INodeTypeDescription,
} from 'n8n-workflow';

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
 * The operation registry: every list the node's description holds of its operations (Resource's
 * and Operation's options, each field's operations, Send Options', Recipient Rules' and Default
 * Country's, the subtitle's actions) derived from the resources' operation specs, so that an
 * operation is added by its own file and its resource's index.
 */

/** The values of `pick`'s operations of the resource. */
const valuesOf = (resource: ResourceSpec, pick: (spec: OperationSpec) => boolean) =>
	resource.operations.filter(pick).map((spec) => spec.value);

/** A field's own conditions: which resource and operation show it, its operations' specs decide. */
function conditionsOf(show: IDisplayOptions['show'] = {}): IDataObject {
	const conditions: IDataObject = { ...show };
	delete conditions.resource;
	delete conditions.operation;
	return conditions;
}

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
		const property = fieldProperty(
			field,
			specs.some((spec) => spec.sends !== 'custom'),
		);
		const operations = specs.map((spec) => spec.value);
		const { show, ...rest } = field.displayOptions ?? {};
		return {
			...property,
			displayOptions: { ...rest, ...showFor(resource.value, operations, conditionsOf(show)) },
		};
	});
}

function resourceProperties(resource: ResourceSpec): INodeProperties[] {
	const { defaultOperation, operations } = resource;
	const options = operations.map((spec) => operationOption(resource.value, spec));
	const operation: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.value] } },
		options: options.sort((a, b) => a.name.localeCompare(b.name)),
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
		const keys = Object.keys(condition);
		if (keys.length === 1)
			byKey.set(keys[0], [
				...new Set([...(byKey.get(keys[0]) ?? []), ...(condition[keys[0]] as unknown[])]),
			]);
		else apart.push(JSON.stringify(condition, keys.sort()));
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

/** The resources' bulk sends that message a person: where Recipient Rules apply. */
const ruledOperations = (resources: ResourceSpec[]): Record<string, string[]> =>
	Object.fromEntries(
		resources
			.map((resource) => [
				resource.value,
				valuesOf(resource, (spec) => isBulk(spec) && spec.toAPerson === true),
			])
			.filter(([, operations]) => operations.length),
	) as Record<string, string[]>;

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
		...resources
			.map((spec) => [spec.value, valuesOf(spec, isBulk)] as const)
			.filter(([, operations]) => operations.length)
			.map(([name, operations]) => sendOptions(name, operations)),
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
	const ruled = ruledOperations(resources);
	return {
		subtitle: subtitleOf(resources),
		outputs: outputsOf(ruled),
		properties: nodeProperties(resources, ruled),
	};
}
