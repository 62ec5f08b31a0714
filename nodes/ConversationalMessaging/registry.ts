import type { IDataObject, IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { readsPhone } from './checks/checks';
import { nodeDefaultCountry } from './checks/phone/defaultCountry';
import type { Field } from './form/fields';
import { showFor } from './form/fields';
import type { OperationSpec, ResourceSpec } from './form/operations';
import { allFields, isBulk } from './form/operations';
import { fieldProperty, operationOption } from './form/routing';
import { requestOptions, sendOptions } from './form/settings';
import { recipientRules } from './recipientRules/fields';

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
			specs.some((spec) => !spec.sends),
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
	const options = operations.map(operationOption);
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
 * When an operation shows the Default Country: undefined without a phone field; else what its
 * phone fields need besides the operation (Send and Wait's channels that have one), nothing when
 * one needs nothing more.
 */
function phoneCondition(spec: OperationSpec): string | undefined {
	const phones = allFields(spec.fields).filter((field) => field.sent?.checks.some(readsPhone));
	if (!phones.length) return undefined;
	const needs: Record<string, unknown[]> = {};
	for (const { displayOptions } of phones) {
		const extra = conditionsOf(displayOptions?.show);
		if (!Object.keys(extra).length) return '{}';
		for (const [name, values] of Object.entries(extra))
			needs[name] = [...new Set([...(needs[name] ?? []), ...(values as unknown[])])];
	}
	return JSON.stringify(needs);
}

/** One Default Country per resource and condition: parameters of one name may be shown apart. */
function defaultCountries(resource: ResourceSpec): INodeProperties[] {
	const byCondition = new Map<string, string[]>();
	for (const spec of resource.operations) {
		const condition = phoneCondition(spec);
		if (condition) byCondition.set(condition, [...(byCondition.get(condition) ?? []), spec.value]);
	}
	return [...byCondition].map(([condition, operations]) =>
		nodeDefaultCountry(showFor(resource.value, operations, JSON.parse(condition) as IDataObject)),
	);
}

/** The resources' bulk sends that message a person: where Recipient Rules apply. */
export const ruledOperations = (resources: ResourceSpec[]): Record<string, string[]> =>
	Object.fromEntries(
		resources
			.map((resource) => [
				resource.value,
				valuesOf(resource, (spec) => isBulk(spec) && spec.toAPerson === true),
			])
			.filter(([, operations]) => operations.length),
	) as Record<string, string[]>;

/** Resource and each resource's operations and fields, then the settings their operations have. */
export function nodeProperties(resources: ResourceSpec[]): INodeProperties[] {
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
	const ruled = ruledOperations(resources);
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
export function subtitleOf(resources: ResourceSpec[]): string {
	const actions = Object.fromEntries(
		resources.flatMap(({ value, operations }) =>
			operations.map((spec) => [`${value}.${spec.value}`, spec.action]),
		),
	);
	return `={{ (${JSON.stringify(actions)})[$parameter["resource"] + "." + $parameter["operation"]] }}`;
}
