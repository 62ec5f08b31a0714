import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
import { shortLinkCreateFields, shortLinkCreateOperation } from './create';
import { shortLinkUpdateFields, shortLinkUpdateOperation } from './update';

export const shortLinkDescription: INodeProperties[] = [
	operationSelector('shortLink', [shortLinkCreateOperation, shortLinkUpdateOperation], 'create'),
	...shortLinkCreateFields,
	...shortLinkUpdateFields,
];
