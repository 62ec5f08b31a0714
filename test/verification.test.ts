/**
 * n8n's verification gates can fail: `npm run lint` (n8n's CLI config) and `npm run scan` (n8n's
 * scanner, source and tarball) report known violations in every kind of file a package has, and
 * every file `npm run lint` lints gets n8n's rule sets under the parser they need. A config that
 * parsed package.json differently once let the package.json rules check nothing.
 */
import { spawnSync } from 'child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join, relative } from 'path';

const root = join(__dirname, '..');
const config = join(root, 'eslint.config.mjs');

/** A small package with one known violation of each rule set in each kind of file. */
const FIXTURE: Record<string, string> = {
	'package.json': JSON.stringify({
		name: 'n8n-nodes-fixture',
		version: '0.1.0',
		description: 'A fixture with known violations',
		keywords: [],
		license: 'MIT',
		homepage: 'https://example.com',
		author: { name: 'Somebody' },
		files: ['dist'],
		n8n: { n8nNodesApiVersion: 1, nodes: ['dist/nodes/Fixture/Fixture.node.js'], credentials: [] },
		dependencies: { 'left-pad': '1.3.0' },
		peerDependencies: { 'n8n-workflow': '*' },
	}),
	'nodes/Fixture/Fixture.node.ts': `import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

export class Fixture implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fixture',
		name: 'Fixture',
		group: ['transform'],
		version: 1,
		description: 'A fixture',
		defaults: { name: 'Fixture' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'value to send', name: 'value', type: 'string', default: '' }],
	};

	async execute() {
		setTimeout(() => undefined, 10);
		return [];
	}
}
`,
	'credentials/FixtureApi.credentials.ts': `import type { ICredentialType, INodeProperties } from 'n8n-workflow';

export class FixtureApi implements ICredentialType {
	name = 'fixtureApi';
	displayName = 'Fixture';
	properties: INodeProperties[] = [];
}
`,
	'dist/nodes/Fixture/Fixture.node.js': 'module.exports = {};\n',
};

/** The rules each file of the fixture breaks, one or more per rule set. */
const EXPECTED_RULES: Record<string, string[]> = {
	'package.json': [
		'@n8n/community-nodes/no-runtime-dependencies',
		'@n8n/community-nodes/valid-author',
		'n8n-nodes-base/community-package-json-keywords-without-official-tag',
	],
	'nodes/Fixture/Fixture.node.ts': [
		'@n8n/community-nodes/no-restricted-globals',
		'n8n-nodes-base/node-class-description-name-miscased',
		'n8n-nodes-base/node-param-display-name-miscased',
	],
	'credentials/FixtureApi.credentials.ts': [
		'@n8n/community-nodes/credential-test-required',
		'n8n-nodes-base/cred-class-field-display-name-missing-api',
	],
};

let fixture: string;

/**
 * eslint-plugin-n8n-nodes-base exempts a credential from the API-suffix rule when its path merely
 * contains "S3", "Aws", "Imap"...: mkdtemp's random letters once did so, and the gate looked off.
 * Hence a folder named with digits only.
 */
const digitsOnlyFolder = (prefix: string) => {
	const folder = join(tmpdir(), `${prefix}${process.pid}-${Date.now()}`);
	mkdirSync(folder);
	return folder;
};

beforeAll(() => {
	fixture = digitsOnlyFolder('lint-fixture-');
	for (const [path, text] of Object.entries(FIXTURE)) {
		mkdirSync(dirname(join(fixture, path)), { recursive: true });
		writeFileSync(join(fixture, path), text);
	}
});

afterAll(() => rmSync(fixture, { recursive: true, force: true }));

/**
 * Jest sets NODE_ENV=test, under which eslint-plugin-n8n-nodes-base's package.json rules check
 * nothing; the gates must hold in such a shell too, so the children inherit it.
 */
const env = {
	...process.env,
	NODE_ENV: 'test',
	PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}`,
};
const run = (args: string[], cwd: string) =>
	spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
const scripts = (
	JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
		scripts: Record<string, string>;
	}
).scripts;

describe("n8n's verification gates", () => {
	it("`npm run lint` (n8n's CLI config) fails the fixture with each file's known violations", () => {
		// package.json's n8n lint script (the part of `npm run lint` after Prettier), run in the fixture's folder with this package's config.
		const result = spawnSync('sh', ['-c', `${scripts['lint:n8n']} -c ${config} -f json`], {
			cwd: fixture,
			env,
			encoding: 'utf8',
			timeout: 120_000,
		});
		expect(result.status).toBe(1);
		const reports = JSON.parse(result.stdout) as Array<{
			filePath: string;
			messages: Array<{ ruleId: string | null }>;
		}>;
		const found = Object.fromEntries(
			reports.map((report) => [
				relative(fixture, report.filePath),
				report.messages.map((message) => message.ruleId),
			]),
		);
		for (const [file, rules] of Object.entries(EXPECTED_RULES))
			expect({ file, found: found[file] }).toEqual({ file, found: expect.arrayContaining(rules) });
	});

	it('`npm run lint` fails on a file Prettier would format differently, before the n8n rules run', () => {
		const folder = digitsOnlyFolder('format-fixture-');
		try {
			for (const file of ['.prettierrc.js', '.prettierignore'])
				writeFileSync(join(folder, file), readFileSync(join(root, file)));
			mkdirSync(join(folder, 'nodes'));
			writeFileSync(
				join(folder, 'nodes', 'Formatted.ts'),
				"export const formatted = { channel: 'sms' };\n",
			);
			writeFileSync(
				join(folder, 'nodes', 'Unformatted.ts'),
				'export const unformatted = {channel: "sms"}\n',
			);
			const result = spawnSync('sh', ['-c', scripts.lint], {
				cwd: folder,
				env,
				encoding: 'utf8',
				timeout: 120_000,
			});
			expect(result.status).toBe(1);
			expect(result.stderr).toContain('nodes/Unformatted.ts');
			expect(result.stderr).not.toContain('nodes/Formatted.ts');
			expect(`${result.stdout}${result.stderr}`).not.toMatch(/eslint/i);
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	});

	it('`npm run lint` gives every file it lints in this package the rule sets and the parser for it', () => {
		const files = [
			'package.json',
			...['nodes', 'credentials'].flatMap((folder) =>
				(readdirSync(join(root, folder), { recursive: true }) as string[])
					.filter((path) => path.endsWith('.ts'))
					.map((path) => join(folder, path)),
			),
		];
		expect(files.length).toBeGreaterThan(40);
		const script = `import { ESLint } from 'eslint';
const eslint = new ESLint({ overrideConfigFile: ${JSON.stringify(config)} });
const out = {};
for (const file of ${JSON.stringify(files)}) {
	const config = await eslint.calculateConfigForFile(file);
	const on = Object.entries(config?.rules ?? {}).filter(([, setting]) => [2, 'error'].includes(Array.isArray(setting) ? setting[0] : setting)).map(([rule]) => rule);
	out[file] = { parser: config?.languageOptions?.parser?.meta?.name, on };
}
console.log(JSON.stringify(out));`;
		const result = run(['--input-type=module', '-e', script], root);
		expect(result.stderr).toBe('');
		const configs = JSON.parse(result.stdout) as Record<string, { parser: string; on: string[] }>;
		const required = (file: string) =>
			file === 'package.json'
				? [
						'@n8n/community-nodes/valid-author',
						'n8n-nodes-base/community-package-json-keywords-without-official-tag',
					]
				: file.startsWith('credentials/')
					? [
							'@n8n/community-nodes/no-restricted-globals',
							'n8n-nodes-base/cred-class-field-display-name-missing-api',
						]
					: [
							'@n8n/community-nodes/no-restricted-globals',
							'@n8n/community-nodes/no-builder-hint-leakage',
							'n8n-nodes-base/node-param-display-name-miscased',
							'no-console',
						];
		const missing = files.flatMap((file) => [
			...required(file)
				.filter((rule) => !configs[file].on.includes(rule))
				.map((rule) => `${file}: ${rule} off`),
			...(configs[file].parser === 'typescript-eslint/parser'
				? []
				: [`${file}: parsed by ${configs[file].parser}`]),
		]);
		expect(missing).toEqual([]);
	});

	it("`npm run scan` (n8n's scanner) fails the fixture on its source and on its tarball", () => {
		const result = run([join(root, 'scripts', 'scan-package.mjs'), fixture], root);
		expect(result.status).toBe(1);
		expect(result.stdout).toMatch(/on the source: FAILED/);
		expect(result.stdout).toMatch(
			/on the tarball \(n8n-nodes-fixture-0\.1\.0\.tgz, \d+ files\): FAILED/,
		);
		for (const rules of Object.values(EXPECTED_RULES))
			for (const rule of rules) expect(result.stdout).toContain(rule);
	});
});
