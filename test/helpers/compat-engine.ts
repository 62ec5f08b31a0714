/**
 * n8n-core 1.x's SSH tunnel manager, created by the first node execution, keeps a 60 s cleanup
 * interval that holds the process open (2.x unrefs it), so a test file run alone never exited.
 * n8n stops it at shutdown; the compat runs do the same after each test file.
 */
import { dirname } from 'path';

afterAll(() => {
	const core = dirname(require.resolve('n8n-core/package.json'));
	// The container n8n-core of the engine under test registers its services in.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Container } = require(
		require.resolve('@n8n/di', { paths: [core] }),
	) as typeof import('@n8n/di');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { SSHClientsManager } = require('n8n-core/dist/execution-engine/ssh-clients-manager') as {
		SSHClientsManager: new () => { onShutdown(): void };
	};
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
});
