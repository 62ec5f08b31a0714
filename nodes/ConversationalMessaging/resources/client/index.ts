import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../form/operations';
import { clientGetOperation } from './get';

export const clientDescription: INodeProperties[] = [
	operationSelector('client', [clientGetOperation], 'get'),
];
