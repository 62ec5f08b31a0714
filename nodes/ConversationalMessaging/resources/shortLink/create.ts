import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { url } from '../../checks/checks';
import type { Field } from '../../form/fields';
import { additionalFields, field } from '../../form/fields';
import type { PlainSpec } from '../../form/operations';

/** The target of a link: required on Create and Update alike. */
export const longUrlField = (name: string, description: string): Field =>
	field({
		displayName: 'Long URL',
		name,
		required: true,
		placeholder: 'https://example.com/spring-sale?utm_source=sms',
		description,
		sendTo: 'body.longUrl',
		checks: [url('body.longUrl', 'Long URL')],
	});

export const shortLinkCreateOperation: PlainSpec = {
	name: 'Create',
	value: 'create',
	action: 'Create a short link',
	description: 'Shorten a web address, for example to send it in an SMS',
	method: 'POST',
	url: '/v1/short',
	fields: [
		longUrlField('longUrl', 'Web address the short link leads to'),
		additionalFields('shortLinkFields', [
			field({
				displayName: 'Short Link ID',
				name: 'idUrl',
				placeholder: 'spring-sale',
				description: 'Identifier to give the short link; the service chooses one when left out',
				sendTo: 'body.idUrl',
			}),
		]),
	],
};

/** Its answer is not documented (docs/ASSUMPTIONS.md); the sandbox answers `shortUrl`. */
const SHORT_URL_FIELDS = ['shortUrl', 'shortLink', 'short', 'url'];

/** The short address in Create's answer, for Send and Wait's Shorten Link; none: nothing was sent. */
export function shortUrlOf(fns: IExecuteFunctions, answer: INodeExecutionData[]): string {
	const found = SHORT_URL_FIELDS.map((key) => answer[0]?.json?.[key]).find(
		(value) => typeof value === 'string' && /^https?:\/\//.test(value),
	);
	if (typeof found === 'string') return found;
	throw new NodeOperationError(
		fns.getNode(),
		'Shorten Link: the Short Link endpoint gave no short address; nothing was sent',
		{
			description: `Its answer has none of ${SHORT_URL_FIELDS.join(', ')}. Turn Shorten Link off to send the full link.`,
		},
	);
}
