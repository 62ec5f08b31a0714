import type {
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INode,
	INodeProperties,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { deepCopy, NodeHelpers } from 'n8n-workflow';

import type { AnswerReader } from '../shared/envelope';
import type { ItemContext } from '../shared/itemContext';
import type { PhoneReading } from '../shared/phone/reading';
import type { Check } from '../shared/checks';
import { setPath } from '../shared/checks';

/** A field whose value the request carries. */
export interface SentField {
	/** Its path among the node's parameters (`leadFields.tags`). */
	parameter: string;
	/** Where the value goes: `body` or `qs`, then the keys under it. */
	to: string[];
	/** A resource locator: its value is read as n8n extracts it, whichever the mode. */
	locator: boolean;
}

/**
 * One operation's request: method, URL, constant body, each shown field's place, the checks in the
 * description's order, the envelope reader. The only parts of `routing` the node's builders write
 * for the operations the engine runs (description.test.ts keeps it so).
 */
export interface RequestForm {
	method: IHttpRequestMethods;
	url: string;
	body: IDataObject;
	fields: SentField[];
	checks: Check[];
	postReceive: AnswerReader[];
}

type Shown = INodeProperties | INodePropertyOptions;

/** The request form of the operation the parameters select, with the fields they show. */
export function requestForm(description: INodeTypeDescription, node: INode): RequestForm {
	const { parameters } = node;
	const form: RequestForm = {
		method: 'GET',
		url: '',
		body: {},
		fields: [],
		checks: [],
		postReceive: [],
	};
	const visit = (property: Shown, prefix: string, value: unknown) => {
		const routing = property.routing;
		const path = prefix + property.name;
		if ('type' in property && routing?.send?.property !== undefined)
			form.fields.push({
				parameter: path,
				to: [routing.send.type === 'body' ? 'body' : 'qs', ...routing.send.property.split('.')],
				locator: property.type === 'resourceLocator',
			});
		if (routing?.request) {
			form.method = routing.request.method ?? form.method;
			form.url = routing.request.url ?? form.url;
			form.body = (routing.request.body as IDataObject | undefined) ?? form.body;
		}
		// Written by the node's builders alone, which take only hooks that need no more than the
		// item's context (checks.ts, envelope.ts); description.test.ts keeps it so.
		form.checks.push(...((routing?.send?.preSend ?? []) as Check[]));
		form.postReceive.push(...((routing?.output?.postReceive ?? []) as AnswerReader[]));
		if (!('type' in property)) return;
		// The selected option (the operation), or the entries set in a collection.
		if (property.type === 'options')
			for (const option of (property.options ?? []) as INodePropertyOptions[])
				if (option.value === value) visit(option, `${path}.`, undefined);
		if (property.type === 'collection')
			for (const option of (property.options ?? []) as INodeProperties[])
				if (value && typeof value === 'object' && option.name in value)
					visit(option, `${path}.`, (value as IDataObject)[option.name]);
	};
	for (const property of description.properties)
		if (NodeHelpers.displayParameter(parameters, property, node, description, parameters))
			visit(property, '', parameters[property.name]);
	return form;
}

/**
 * The item's request, then its checks in order (they may normalise values, or fail the item), and
 * how they read its phone number, if one did (for the countries a send reached).
 */
export async function buildRequest(
	item: ItemContext,
	form: RequestForm,
	defaults: INodeTypeDescription['requestDefaults'],
	values: unknown[],
	settings: Partial<IHttpRequestOptions> = {},
): Promise<{ request: IHttpRequestOptions; phone?: PhoneReading }> {
	let phone: PhoneReading | undefined;
	const checked: ItemContext = { ...item, phoneRead: (reading) => (phone = reading) };
	let request: IHttpRequestOptions = {
		...(defaults as Partial<IHttpRequestOptions>),
		...settings,
		headers: { ...defaults?.headers },
		method: form.method,
		url: form.url,
		qs: {},
		body: deepCopy(form.body),
	};
	form.fields.forEach((field, index) => setPath(request, field.to, values[index]));
	for (const check of form.checks) request = await check.call(checked, request);
	return { request, phone };
}

/** The answer as items, through the form's envelope reader. */
export async function readAnswer(
	item: ItemContext,
	form: RequestForm,
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
	for (const action of form.postReceive) items = await action.call(item, items, response);
	return items;
}
