import type { INodeProperties } from 'n8n-workflow';

import { phone, url } from '../checks/checks';
import type { Field, FieldSpec } from './fields';
import { field, optionsOf } from './fields';

/** An Instance, shown for the operations that list it (one object each: the value stays when the operation changes). */
export function instanceField(name: string): Field {
	return field({
		displayName: 'Instance',
		name,
		required: true,
		placeholder: 'ID of a connected line',
		description: 'Identifier of the instance (connected channel line) to use',
		hint: "Copy it from the service's dashboard: the API cannot list instances",
		builderHint: {
			propertyHint:
				"The ID of the user's connected line, from the service's dashboard; no node can look it up. Ask the user, or leave a placeholder.",
		},
		sendTo: 'body.instance',
	});
}

export function messageTypeField(name: string, choices: string[][], defaultType: string): Field {
	return field({
		displayName: 'Message Type',
		name,
		type: 'options',
		// As an expression n8n could not tell which fields to show.
		noDataExpression: true,
		required: true,
		options: optionsOf(choices),
		default: defaultType,
		description: 'Kind of message to send',
		sendTo: 'body.type',
	});
}

/** `types`: the message types that show it. */
type BodyVariant = Pick<FieldSpec, 'name' | 'displayName' | 'description'> & {
	types: string[];
	isFileUrl?: boolean;
};

/** `body` means text for some types and a file URL for others: one field per meaning. */
export function messageBodyFields(typeParameter: string, variants: BodyVariant[]): Field[] {
	return variants.map(({ name, types, displayName, description, isFileUrl }) =>
		field({
			displayName,
			name,
			required: true,
			placeholder: isFileUrl ? 'https://example.com/file.pdf' : '',
			...(isFileUrl ? {} : { typeOptions: { rows: 3 } }),
			displayOptions: { show: { [typeParameter]: types } },
			description,
			sendTo: 'body.body',
			checks: isFileUrl ? [url('body.body', displayName)] : [],
		}),
	);
}

type PhoneSpec = Pick<
	FieldSpec,
	'displayName' | 'name' | 'displayOptions' | 'description' | 'required'
>;

export function phoneField(spec: PhoneSpec & { sendTo: string }): INodeProperties {
	return field({
		displayName: spec.displayName,
		name: spec.name,
		// Required unless told not: n8n's lint refuses a `required: false`, the default.
		...(spec.required === false ? {} : { required: true }),
		placeholder: 'e.g. +57 300 123 4567',
		displayOptions: spec.displayOptions,
		description: `${spec.description ?? ''}With + and the country code (e.g. +57 300 123 4567), or as dialled in the Default Country. Spaces, dashes, dots and brackets are ignored.`,
		builderHint: {
			propertyHint:
				'A phone number with its country code (+57 300 123 4567), usually mapped from the input item; without the code it needs a Default Country in the credential or the node settings.',
		},
		sendTo: spec.sendTo,
		checks: [phone(spec.sendTo, spec.displayName)],
	});
}

/** The text of a message; without `sendTo`, a custom operation reads it. */
export function messageTextField({
	name,
	displayOptions,
	sendTo,
	description = 'Text of the message',
	checks,
}: Pick<
	FieldSpec,
	'name' | 'displayOptions' | 'sendTo' | 'description' | 'checks'
>): INodeProperties {
	return field({
		displayName: 'Message',
		name,
		required: true,
		typeOptions: { rows: 3 },
		displayOptions,
		description,
		sendTo,
		checks,
	});
}
