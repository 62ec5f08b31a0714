/**
 * The built package as n8n loads it: n8n-core's PackageDirectoryLoader reads package.json's
 * n8n section, requires the dist files, validates the description and resolves the icons.
 */
import { execFileSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { PackageDirectoryLoader } from 'n8n-core';
import { join } from 'path';

const root = join(__dirname, '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('package', () => {
	it('is a community package with no runtime dependencies and n8n-workflow as its only peer', () => {
		expect(packageJson.keywords).toContain('n8n-community-node-package');
		expect(packageJson.dependencies ?? {}).toEqual({});
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(packageJson.files[0]).toBe('dist');
		expect(packageJson.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
	});

	it('packs only dist, README, LICENSE and package.json', () => {
		const [packed] = JSON.parse(
			execFileSync('npm', ['pack', '--dry-run', '--json'], {
				cwd: root,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'ignore'],
			}),
		);
		const files = (packed.files as Array<{ path: string }>).map((file) => file.path);
		expect(files.filter((path) => !path.startsWith('dist/')).sort()).toEqual([
			'LICENSE',
			'README.md',
			'package.json',
		]);
		expect(files).toContain('dist/nodes/ConversationalMessaging/ConversationalMessaging.node.js');
		// n8n needs neither source maps (of sources not shipped) nor declarations.
		expect(files.filter((path) => /\.(map|d\.ts)$/.test(path))).toEqual([]);
	});

	it('loads in n8n-core with its node, credential, icons and codex', async () => {
		const loader = new PackageDirectoryLoader(root);
		await loader.loadAll();
		expect(Object.keys(loader.nodeTypes)).toEqual(['conversationalMessaging']);
		expect(Object.keys(loader.credentialTypes)).toEqual(['conversationalMessagingApi']);
		const [node] = loader.types.nodes;
		expect(node).toMatchObject({ name: 'conversationalMessaging', usableAsTool: true });
		expect(node.iconUrl).toEqual({
			light:
				'icons/n8n-nodes-conversational-messaging/dist/nodes/ConversationalMessaging/conversationalMessaging.svg',
			dark: 'icons/n8n-nodes-conversational-messaging/dist/nodes/ConversationalMessaging/conversationalMessaging.dark.svg',
		});
		for (const icon of Object.values(node.iconUrl as Record<string, string>)) {
			expect(
				existsSync(join(root, icon.replace('icons/n8n-nodes-conversational-messaging/', ''))),
			).toBe(true);
		}
		expect(node.codex).toMatchObject({ categories: ['Communication', 'Marketing'] });
		// The loader adds the declarative Request Options (batching, timeout, proxy).
		expect(node.properties.map((property) => property.name)).toContain('requestOptions');
		expect(loader.types.credentials[0].iconUrl).toBeDefined();
	});
});
