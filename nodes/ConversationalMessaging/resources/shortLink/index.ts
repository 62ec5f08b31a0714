import type { INodeProperties } from 'n8n-workflow';

import { additionalFields, field, idField, showFor } from '../../shared/descriptions';
import { operationSelector } from '../../shared/operations';
import { url } from '../../shared/checks';

/** The target of a link: required on Create and Update alike. */
const longUrlField = (name: string, operation: string, description: string): INodeProperties =>
	field({
		displayName: 'Long URL',
		name,
		required: true,
		placeholder: 'https://example.com/spring-sale?utm_source=sms',
		displayOptions: showFor('shortLink', [operation]),
		description,
		sendTo: 'body.longUrl',
		checks: [url('body.longUrl', 'Long URL')],
	});

export const shortLinkDescription: INodeProperties[] = [
	operationSelector(
		'shortLink',
		[
			{
				name: 'Create',
				value: 'create',
				action: 'Create a short link',
				description: 'Shorten a web address, for example to send it in an SMS',
				method: 'POST',
				url: '/v1/short',
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a short link',
				description: 'Point an existing short link at a new web address',
				method: 'PATCH',
				url: '/v1/short',
			},
		],
		'create',
	),
	longUrlField('longUrl', 'create', 'Web address the short link leads to'),
	additionalFields('shortLinkFields', showFor('shortLink', ['create']), [
		field({
			displayName: 'Short Link ID',
			name: 'idUrl',
			placeholder: 'spring-sale',
			description: 'Identifier to give the short link; the service chooses one when left out',
			sendTo: 'body.idUrl',
		}),
	]),
	idField({
		displayName: 'Short Link ID',
		name: 'shortLinkId',
		displayOptions: showFor('shortLink', ['update']),
		placeholder: 'spring-sale',
		description:
			'Identifier of the short link to change: the Short Link ID given to Short Link > Create, or the one the service chose then',
		sendTo: 'body.idUrl',
	}),
	longUrlField('newLongUrl', 'update', 'New web address for the short link'),
];
