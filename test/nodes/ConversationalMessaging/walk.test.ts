import { readFileSync } from 'fs';
import { Session } from 'node:inspector';
import { join, relative } from 'path';
import { fileURLToPath } from 'url';

import { SEND_SMS, useSandbox } from '../../helpers/sandbox';

/**
 * The walk of one Send SMS item, from n8n calling the node to the request reaching the service:
 * the package's files whose functions ran (V8's precise coverage, taken when the sandbox records
 * the request), which docs/ARCHITECTURE.md lists. A reader follows an item through these alone.
 */
const suite = useSandbox();
const ROOT = join(__dirname, '../../..');
/** 15 as issue 39 left it, and the SMS text's reading since issue 41 (checks/sms.ts). */
const MAX_FILES = 16;

type Coverage = {
	result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
};

function filesRun(coverage: Coverage): string[] {
	const files = new Set<string>();
	for (const script of coverage.result) {
		if (!script.url.startsWith('file:')) continue;
		const path = relative(ROOT, fileURLToPath(script.url));
		if (!/^(nodes|credentials)\//.test(path)) continue;
		// A function ran if its own range counted a call (the first range is the function's).
		if (script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0)) files.add(path);
	}
	return [...files].sort();
}

describe('the walk of one Send SMS item', () => {
	it(`visits at most ${MAX_FILES} files, those docs/ARCHITECTURE.md lists`, async () => {
		const parameters = { ...SEND_SMS, message: 'Hello' };
		const items = [{ phone: '+57 300 123 4567' }];
		// Loaded and warmed first: the walk counts what runs for an item, not what loads.
		await suite.run(parameters, { items });
		const session = new Session();
		session.connect();
		const post = (method: string, params?: object) =>
			new Promise<unknown>((resolve, reject) =>
				session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
			);
		await post('Profiler.enable');
		await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
		let atRequest: Coverage | undefined;
		const requests = suite.sandbox.requests;
		const push = requests.push.bind(requests);
		requests.push = (...recorded) => {
			// A session on this thread answers at once: the coverage is the walk up to this request.
			session.post('Profiler.takePreciseCoverage', (error, result) => {
				if (!error) atRequest ??= result as Coverage;
			});
			return push(...recorded);
		};
		try {
			await post('Profiler.takePreciseCoverage');
			await suite.run(parameters, { items });
		} finally {
			requests.push = push;
			await post('Profiler.stopPreciseCoverage');
			session.disconnect();
		}
		expect(atRequest).toBeDefined();
		const walk = filesRun(atRequest as Coverage);
		const architecture = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
		const listed = architecture.split('<!-- walk -->')[1]?.split('<!-- /walk -->')[0] ?? '';
		expect({ files: walk.length <= MAX_FILES, walk }).toEqual({ files: true, walk });
		expect(walk.filter((file) => !listed.includes(`\`${file}\``))).toEqual([]);
	});
});
