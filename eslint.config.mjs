import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import * as jsoncParser from 'jsonc-eslint-parser';

// n8n's own rule sets, as n8n's verification runs them: the community-nodes plugin (runtime
// restrictions, package.json checks) and nodes-base (descriptions, credentials, package).
export default [
	{ ignores: ['dist/**', 'node_modules/**', '.cache/**'] },
	{
		files: ['package.json'],
		languageOptions: { parser: jsoncParser },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nNodesBase.configs.community.rules },
	},
	{
		...n8nCommunityNodesPlugin.configs.recommended,
		files: ['**/*.ts', 'package.json'],
	},
	{
		files: ['credentials/**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// The rule's own text: "only applicable to nodes in the main repository" (doc slugs).
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// Superseded by community-nodes' node-connection-type-literal, which requires the
			// NodeConnectionTypes constants these older rules would replace with 'main'.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
];
