import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3 } from 'openapi-types';
import { CONTRACT_PATH, OPERATION_IDS } from '../../sandbox/server';

// The list the node and the sandbox are written against; spelled out so a rename shows up here.
const EXPECTED = [
	'agentGet',
	'agentCreate',
	'agentDelete',
	'contactGetMany',
	'contactAdd',
	'liveChatSessionCreate',
	'liveChatMessageSend',
	'legacyMessageSend',
	'legacyMessageGet',
	'smsSend',
	'socialnetSend',
	'crmLeadInject',
	'chatappNumberCheck',
	'shortLinkCreate',
	'shortLinkUpdate',
	'productCreate',
	'productGet',
	'productUpdate',
	'productDelete',
	'campaignGetMany',
	'campaignGet',
	'campaignGetDetails',
	'clientGet',
	'researcherCreate',
	'researcherGet',
	'researcherAddFiles',
	'researcherRun',
];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

let doc: OpenAPIV3.Document;
const operations = () =>
	Object.entries(doc.paths).flatMap(([path, item]) =>
		METHODS.filter((m) => item?.[m]).map((m) => ({ path, method: m, item: item!, op: item![m]! })),
	);

beforeAll(async () => {
	// validate() also dereferences, so the checks below see plain schemas
	doc = (await SwaggerParser.validate(CONTRACT_PATH)) as OpenAPIV3.Document;
});

test('the contract is a valid OpenAPI 3.0.3 document', () => {
	expect(doc.openapi).toBe('3.0.3');
	expect(Object.keys(doc.paths).every((p) => p.startsWith('/v1/'))).toBe(true);
});

test('it has exactly the 27 operationIds, and the sandbox implements the same', () => {
	const ids = operations().map(({ op }) => op.operationId);
	expect(ids).toHaveLength(27);
	expect([...ids].sort()).toEqual([...EXPECTED].sort());
	expect([...OPERATION_IDS].sort()).toEqual([...EXPECTED].sort());
});

test('every request body is closed and accepts token; every path takes the query token variants', () => {
	for (const { path, method, item, op } of operations()) {
		const body = (op.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content[
			'application/json'
		].schema as OpenAPIV3.SchemaObject | undefined;
		if (body) {
			expect({ path, method, additionalProperties: body.additionalProperties }).toEqual({
				path,
				method,
				additionalProperties: false,
			});
			expect(body.properties).toHaveProperty('token');
		}
		const query = [...(item.parameters ?? []), ...(op.parameters ?? [])]
			.map((p) => p as OpenAPIV3.ParameterObject)
			.filter((p) => p.in === 'query');
		expect(query.map((p) => p.name)).toEqual(expect.arrayContaining(['token', 'api-token']));
	}
	const schemes = doc.components?.securitySchemes as Record<string, OpenAPIV3.ApiKeySecurityScheme>;
	expect(Object.values(schemes).map((s) => [s.type, s.in, s.name])).toEqual([
		['apiKey', 'query', 'token'],
		['apiKey', 'query', 'api-token'],
	]);
});
