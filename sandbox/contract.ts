// The service's contract, sandbox/openapi.yaml: loaded and compiled once through openapi-backend,
// which routes and validates every request; its validation errors read as the service's messages.
import { readFileSync } from 'fs';
import { join } from 'path';
import { parse as parseYaml } from 'yaml';
import OpenAPIBackend from 'openapi-backend';
import type { Document, ValidationResult } from 'openapi-backend';

import { OPERATION_IDS } from './handlers';

export const CONTRACT_PATH = join(__dirname, 'openapi.yaml');

type AjvError = NonNullable<ValidationResult['errors']>[number];

// One parsed and compiled contract per process: sandboxes only read it. Exported so tests can
// validate responses against the same compiled document.
let contract: Promise<{ api: OpenAPIBackend; queryTokenNames: string[] }> | undefined;
export function loadContract(): Promise<{ api: OpenAPIBackend; queryTokenNames: string[] }> {
	contract ??= (async () => {
		const document = parseYaml(readFileSync(CONTRACT_PATH, 'utf8')) as Document;
		const api = await new OpenAPIBackend({
			definition: document,
			// quick: skip re-validating the document (the contract lint test does) and compile validators lazily
			quick: true,
			coerceTypes: true,
			// verbose exposes the rule descriptions of anyOf groups for error messages
			ajvOpts: { allErrors: true, verbose: true },
			customizeAjv: (ajv) => {
				ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
				ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);
				ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
				return ajv;
			},
		}).init();
		// Memoise the flattened operation list: the router rebuilds it twice per request otherwise.
		const operations = api.router.getOperations();
		api.router.getOperations = () => operations;
		const declared = operations
			.map((o) => o.operationId)
			.sort()
			.join();
		if (declared !== [...OPERATION_IDS].sort().join())
			throw new Error('The contract operations differ from the sandbox handlers');
		const schemes = Object.values(api.definition.components?.securitySchemes ?? {}) as Array<{
			type: string;
			in?: string;
			name?: string;
		}>;
		const queryTokenNames = schemes
			.filter((s) => s.type === 'apiKey' && s.in === 'query')
			.map((s) => s.name as string);
		return { api, queryTokenNames };
	})();
	return contract;
}

export function describeError(e: AjvError): string | undefined {
	// Failures inside an anyOf rule are summed up by the rule's own description.
	if (e.schemaPath.includes('/anyOf/')) return undefined;
	if (e.keyword === 'parse') return `body is not valid JSON (${e.message})`;
	const where =
		e.instancePath
			.split('/')
			.slice(1)
			.map((s, i) => (i === 0 && s === 'requestBody' ? 'body' : s))
			.join('.') || 'request';
	const params = e.params as Record<string, unknown>;
	switch (e.keyword) {
		case 'required':
			return where === 'request'
				? `${params.missingProperty === 'requestBody' ? 'body' : params.missingProperty} is required`
				: `${where}.${params.missingProperty} is required`;
		case 'additionalProperties':
			return `${where}.${params.additionalProperty} is not allowed`;
		case 'enum':
			return `${where} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
		case 'anyOf':
			return `${where}: ${(e.parentSchema as { description?: string } | undefined)?.description ?? e.message}`;
		default:
			return `${where} ${e.message}`;
	}
}
