import { readFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';
import { Session } from 'node:inspector';
import { join, relative } from 'path';
import { fileURLToPath } from 'url';

import {
	ConversationalMessaging,
	RESOURCES,
} from '../../../nodes/ConversationalMessaging/ConversationalMessaging.node.ts';
import { customOperationsOf } from '../../../nodes/ConversationalMessaging/customOperations';
import type { BulkSpec } from '../../../nodes/ConversationalMessaging/form/operations';
import { sendSmsOperation } from '../../../nodes/ConversationalMessaging/resources/messaging/sendSms';
import { singleRecord } from '../../../nodes/ConversationalMessaging/service/envelope';
import { registerNodeType } from '../../helpers/engine';
import { SEND_SMS, useSandbox } from '../../helpers/sandbox';

/**
 * The walk of one Send SMS item, from n8n calling the node's execute to the request and back to
 * the item's answer: the package's files whose code ran (V8's precise coverage, an export read
 * from another file included) and the operation's spec, which the send loop reads at run time.
 * docs/ARCHITECTURE.md lists them. A reader follows an item through these alone.
 */
const suite = useSandbox();
const ROOT = join(__dirname, '../../..');
/** Issue 49's bound: the 16 files of issue 41's walk to the request, with the answer's way back and the spec. */
const MAX_FILES = 17;
/** The file of the spec the send loop reads (not code that runs: its data). */
const SPEC_FILE = 'nodes/ConversationalMessaging/resources/messaging/sendSms.ts';

type Coverage = {
	result: Array<{
		url: string;
		functions: Array<{ functionName: string; ranges: Array<{ count: number }> }>;
	}>;
};

/** Each file's functions that ran, with how often (a function's first range is its own). */
function functionsRun(coverage: Coverage): Map<string, Map<string, number>> {
	const files = new Map<string, Map<string, number>>();
	for (const script of coverage.result) {
		if (!script.url.startsWith('file:')) continue;
		const path = relative(ROOT, fileURLToPath(script.url));
		if (!/^(nodes|credentials)\//.test(path)) continue;
		for (const fn of script.functions) {
			const count = fn.ranges[0]?.count ?? 0;
			if (!count) continue;
			const counts = files.get(path) ?? new Map<string, number>();
			// An export's getter bears its name too (it runs at each read from another file): the most of the two.
			counts.set(fn.functionName, Math.max(counts.get(fn.functionName) ?? 0, count));
			files.set(path, counts);
		}
	}
	return files;
}

/** A node of the same specs but Send SMS's answer reader, which takes the coverage once it has read the item's answer. */
const WALKED = 'test.conversationalMessagingWalked';
let takeCoverage: () => void = () => {};
const walked: BulkSpec = {
	...sendSmsOperation,
	records: (payload) => {
		const records = (sendSmsOperation.records ?? singleRecord)(payload);
		takeCoverage();
		return records;
	},
};
const resources = RESOURCES.map((resource) => ({
	...resource,
	operations: resource.operations.map((spec) => (spec === sendSmsOperation ? walked : spec)),
}));
const { description } = new ConversationalMessaging();
registerNodeType(WALKED, {
	description,
	customOperations: customOperationsOf(resources, description),
});

/**
 * Runs the items with V8's precise coverage on: what ran until the first item's answer was read,
 * or (`toTheEnd`) until the run ended, as taking the coverage starts its counts again.
 */
async function covered(items: IDataObject[], toTheEnd = false) {
	const parameters = { ...SEND_SMS, message: 'Hello' };
	// Loaded and warmed first: the walk counts what runs for an item, not what loads.
	await suite.run(parameters, { items, nodeType: WALKED });
	const session = new Session();
	session.connect();
	const post = (method: string, params?: object) =>
		new Promise<unknown>((resolve, reject) =>
			session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
		);
	let atAnswer: Coverage | undefined;
	// A session on this thread answers at once: the coverage is the walk up to the answer.
	takeCoverage = () => {
		if (!toTheEnd)
			session.post('Profiler.takePreciseCoverage', (error, result) => {
				if (!error) atAnswer ??= result as Coverage;
			});
	};
	await post('Profiler.enable');
	await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
	try {
		await post('Profiler.takePreciseCoverage');
		await suite.run(parameters, { items, nodeType: WALKED });
		const atEnd = (await post('Profiler.takePreciseCoverage')) as Coverage;
		return { atAnswer: atAnswer && functionsRun(atAnswer), atEnd: functionsRun(atEnd) };
	} finally {
		takeCoverage = () => {};
		await post('Profiler.stopPreciseCoverage');
		session.disconnect();
	}
}

describe('the walk of one Send SMS item', () => {
	it(`visits at most ${MAX_FILES} files, those docs/ARCHITECTURE.md lists`, async () => {
		const { atAnswer } = await covered([{ phone: '+57 300 123 4567' }]);
		expect(atAnswer).toBeDefined();
		const walk = [...new Set([...(atAnswer?.keys() ?? []), SPEC_FILE])].sort();
		const architecture = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
		const listed = architecture.split('<!-- walk -->')[1]?.split('<!-- /walk -->')[0] ?? '';
		expect({ files: walk.length <= MAX_FILES, walk }).toEqual({ files: true, walk });
		expect(walk.filter((file) => !listed.includes(`\`${file}\``))).toEqual([]);
	});

	it('reads each answer envelope once', async () => {
		const phones = ['+57 300 123 4567', '+57 300 123 4568', '+57 300 123 4569'];
		const { atEnd } = await covered(
			phones.map((phone) => ({ phone })),
			true,
		);
		const envelope = atEnd.get('nodes/ConversationalMessaging/service/envelope.ts');
		expect(envelope?.get('readEnvelope')).toBe(phones.length);
	});
});
