/**
 * The reliability report from the results the reliability tests left in .tmp/reliability/: written
 * there at the end of a jest run that ran them all (test/helpers/contract-teardown.ts), and into
 * docs/RELIABILITY.md only by `npm run report:reliability`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import type { ResultsFile } from './results';
import { RESULTS_DIR } from './results';

const REPORT_PATH = join(__dirname, '..', '..', 'docs', 'RELIABILITY.md');
const EXPECTED_FILES = ['faults', 'bad-input', 'token', 'redirects', 'load', 'batching'];

const cell = (value: unknown) =>
	String(value ?? '')
		.replace(/\|/g, '\\|')
		.replace(/\n/g, ' ');
const table = (header: string[], rows: unknown[][]) =>
	[
		`| ${header.join(' | ')} |`,
		`|${header.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
	].join('\n');
const sum = <T>(rows: T[], pick: (row: T) => number) =>
	rows.reduce((total, row) => total + pick(row), 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function readResults(): ResultsFile[] {
	if (!existsSync(RESULTS_DIR))
		throw new Error(`No results in ${RESULTS_DIR}: run \`npx jest test/reliability\` first.`);
	const files = readdirSync(RESULTS_DIR).filter((name) => name.endsWith('.json'));
	const missing = EXPECTED_FILES.filter((name) => !files.includes(`${name}.json`));
	if (missing.length)
		throw new Error(
			`Missing results of ${missing.join(', ')}: run \`npx jest test/reliability\` first.`,
		);
	return files.map(
		(name) => JSON.parse(readFileSync(join(RESULTS_DIR, name), 'utf8')) as ResultsFile,
	);
}

function report(files: ResultsFile[]): string {
	const faults = files.flatMap((file) => file.faults ?? []);
	const retries = files.flatMap((file) => file.retries ?? []);
	const inputs = files.flatMap((file) => file.inputs ?? []);
	const wrongTypes = files.flatMap((file) => file.wrongTypes ?? []);
	const token = files.flatMap((file) => file.token ?? []);
	const redirects = files.flatMap((file) => file.redirects ?? []);
	const load = files.find((file) => file.load)?.load;
	const batching = files.find((file) => file.batching)?.batching;
	const leaks =
		sum(faults, (row) => row.leaks) +
		sum(token, (row) => row.leaks) +
		sum(redirects, (row) => row.leaks);
	const pure = inputs.filter((row) => row.where === 'pure');
	const engine = inputs.filter((row) => row.where === 'engine');
	const poorMessages = faults.filter((row) => row.source === 'n8n');
	const duplicatingRetry = retries.find((row) => row.duplicates > 0);
	const inMemory = token.filter((row) => row.inMemoryOnly > 0);

	const sections = [
		'# Reliability',
		'',
		`Measured by the reliability suite (\`test/reliability/\`) through n8n's own engine (n8n-core \`WorkflowExecute\`) against the local sandbox, which checks every request against the service contract (\`sandbox/openapi.yaml\`). Written at the end of \`npm test\` (or \`npx jest test/reliability\`), from that run's results; a real-n8n subset of the faults and the search of what n8n stores are in \`test/e2e/faults.e2e.ts\` (\`npm run test:e2e\`).`,
		'',
		...files.map((file) => `- \`${file.file}\`: ${file.writtenAt}, ${seconds(file.durationMs)}`),
		'',
		'## Summary',
		'',
		`- Token leaks found: **${leaks}** (canary token through all ${token[0]?.operations ?? 0} operations, on success and under ${token.length - 1} faults, and through the fault matrix).`,
		`- Bad input: ${sum(inputs, (row) => row.cases)} values over ${pure.length} fields (${sum(pure, (row) => row.cases)} in-process, ${sum(engine, (row) => row.cases)} through the engine) and ${sum(wrongTypes, (row) => row.itemsIn)} wrong-type expressions over ${wrongTypes.length} main fields: **${sum(inputs, (row) => row.crashes)} crashes, ${sum(inputs, (row) => row.rejectedByContract) + sum(wrongTypes, (row) => row.invalidRequests)} requests the contract rejects**.`,
		`- Faults: ${faults.length} kinds; with continue-on-fail every input item gave one output item, failed items paired to their input, the others sent exactly once.`,
		`- Redirects: ${sum(redirects, (row) => row.runs)} runs answered 301, 302, 303, 307 or 308 (every operation, the researcher's poll, a later page of a list): **${sum(redirects, (row) => row.sentElsewhere)} requests sent on** to the other host, ${sum(redirects, (row) => row.failedWithRedirectError)} failed naming the redirect.`,
		load
			? `- Load: ${load.items} items in one execution, ${load.lost} lost, ${load.duplicated} duplicated, ${seconds(load.durationMs)}, peak RSS of the test process (node, engine and sandbox) ${load.rssPeakMb} MB.`
			: '',
		'',
		'## Faults',
		'',
		'Send SMS with 6 items. The message and description are those of the node stopping on the fault (one item); the counts are those of a continue-on-fail run where the fault hits the first 2 requests to arrive (all 6 when no request can escape it). Sends are messages the sandbox executed.',
		'',
		table(
			[
				'Fault',
				'Message',
				'Description',
				'HTTP code',
				'Written by',
				'Items in',
				'Items out',
				'Failed',
				'Requests',
				'Sends',
				'Sent although failed',
				'Leaks',
				'Verdict',
			],
			faults.map((row) => [
				row.fault,
				row.message,
				row.description || '(none)',
				row.httpCode,
				row.source,
				row.itemsIn,
				row.itemsOut,
				row.failed,
				row.requests,
				row.sends,
				row.sentAnyway,
				row.leaks,
				row.verdict,
			]),
		),
		'',
		"### n8n's Retry On Fail",
		'',
		table(
			['Fault', 'Items in', 'Items out', 'Requests', 'Sends', 'Items sent twice'],
			retries.map((row) => [
				row.fault,
				row.itemsIn,
				row.itemsOut,
				row.requests,
				row.sends,
				row.duplicates,
			]),
		),
		'',
		'## Bad input',
		'',
		'Each value gave either a request the contract accepts or an error naming the field (its message starts with the field label). In-process: the pre-send hooks the node declares for the field, on generated values (fast-check); engine: the values mapped by an expression, as the items of one continue-on-fail execution against the sandbox.',
		'',
		table(
			[
				'Field',
				'In-process values',
				'Accepted',
				'Refused by name',
				'Engine items',
				'Sent',
				'Refused by name',
				'Crashes',
				'Rejected by the contract',
			],
			pure.map((row) => {
				const through = engine.find((other) => other.field === row.field);
				return [
					row.field,
					row.cases,
					row.accepted,
					row.refusedByName,
					through?.cases,
					through?.requests,
					through?.refusedByName,
					row.crashes + (through?.crashes ?? 0),
					row.rejectedByContract + (through?.rejectedByContract ?? 0),
				];
			}),
		),
		'',
		'### Expressions of the wrong type',
		'',
		'Every main field of every operation mapped to an expression giving 42, 4.5, true, a list, an object, null and nothing (one item each). "Sent" counts valid requests, including those for a record that does not exist (an ID of 42).',
		'',
		table(
			['Operation', 'Fields', 'Items in', 'Sent', 'Refused by name', 'Invalid requests'],
			[...new Set(wrongTypes.map((row) => row.operation))].map((operation) => {
				const rows = wrongTypes.filter((row) => row.operation === operation);
				return [
					operation,
					rows.map((row) => row.field).join(', '),
					sum(rows, (row) => row.itemsIn),
					sum(rows, (row) => row.sent),
					sum(rows, (row) => row.refusedByName),
					sum(rows, (row) => row.invalidRequests),
				];
			}),
		),
		'',
		'## Token',
		'',
		'A canary token (`CANARY` and 24 random letters and digits) in the credential; every operation run once stopping on fail and once continuing on fail. Searched for in the output items (error items included), the error message and description, the error, and the execution data n8n stores (`run.data`, serialised as n8n does, cycles cut).',
		'',
		table(
			[
				'Scenario',
				'Operations',
				'Runs',
				'Requests',
				'Token only in body (or GET query)',
				'Leaks',
				'Errors holding it in memory',
			],
			token.map((row) => [
				row.scenario,
				row.operations,
				row.runs,
				row.requests,
				row.tokenOnlyWhereDocumented,
				row.leaks,
				row.inMemoryOnly,
			]),
		),
		'',
		'## Redirects',
		'',
		"The sandbox answers with a redirect to the same path and query on another loopback host (127.0.0.2), which records anything that reaches it and would answer like a successful send. A 307 or 308 would carry the body, token included; a GET's redirect carries its query, token included. Each operation ran once stopping and once continuing on fail; the message must name the status and the host, and the description say to enter the final address in the Base URL.",
		'',
		table(
			[
				'Redirected',
				'Runs',
				'Failed naming the redirect',
				'Requests to the service',
				'Requests that reached the other host',
				'Leaks',
			],
			redirects.map((row) => [
				row.what,
				row.runs,
				row.failedWithRedirectError,
				row.requests,
				row.sentElsewhere,
				row.leaks,
			]),
		),
		'',
	];
	if (load) {
		sections.push(
			'## Load',
			'',
			table(
				[
					'Items',
					'Items out',
					'Requests',
					'Distinct sends',
					'Lost',
					'Duplicated',
					'Duration',
					'CPU',
					'RSS before',
					'Peak RSS',
					'Process max RSS',
				],
				[
					[
						load.items,
						load.itemsOut,
						load.requests,
						load.distinctSends,
						load.lost,
						load.duplicated,
						seconds(load.durationMs),
						seconds(load.cpuMs),
						`${load.rssBeforeMb} MB`,
						`${load.rssPeakMb} MB`,
						`${load.maxRssMb} MB`,
					],
				],
			),
			'',
			"Send SMS runs through the node's send loop, which keeps a bounded number of requests in flight. The memory columns are the Jest process's (its worker threads share it), which also runs n8n's engine and the sandbox serving every request, and the other worker's suites; the node's own figure is the README's, from `npm run bench` (docs/PERFORMANCE.md).",
			'',
		);
	}
	if (batching) {
		sections.push(
			'## Batching',
			'',
			table(
				['Items', 'Items per batch', 'Interval', 'Batches', 'Requests early'],
				[
					[
						batching.items,
						batching.batchSize,
						`${batching.batchIntervalMs} ms`,
						batching.batches,
						batching.earlyArrivals,
					],
				],
			),
			'',
			'n8n waits the interval before starting each batch; it does not wait for the previous batch to be answered. No request of batch g reached the sandbox before g intervals had passed.',
			'',
		);
	}
	sections.push(
		'## Findings',
		'',
		...poorMessages.map(
			(row) =>
				`- ${row.fault}: the user reads n8n's text "${row.message}" (HTTP code ${row.httpCode}). ${row.verdict}.`,
		),
		duplicatingRetry
			? `- Retry On Fail retries the whole node: with ${duplicatingRetry.itemsIn} items and one transient failure, ${duplicatingRetry.duplicates} items that had succeeded were sent again (${duplicatingRetry.sends} sends for ${duplicatingRetry.itemsIn} items). For bulk sends, prefer continue-on-fail and a second pass over the failed items.`
			: '',
		inMemory.length
			? `- Network errors (${inMemory.map((row) => row.scenario).join(', ')}): the error of a failed item keeps the axios request config, token included, as its \`cause\` in memory. It is not persisted: n8n's error \`toJSON\` keeps only the cause's name and message, and no leak was found in the execution data.`
			: '',
		'',
	);
	return sections.filter((line, index, all) => line !== '' || all[index - 1] !== '').join('\n');
}

/**
 * After a jest run that ran every reliability test file: the report, beside the results in
 * .tmp/reliability/, so that `npm test` leaves the working tree as it found it. Returns its path.
 */
export function writeReliabilityReport(): string | undefined {
	if (!existsSync(RESULTS_DIR)) return undefined;
	const present = readdirSync(RESULTS_DIR);
	if (!EXPECTED_FILES.every((name) => present.includes(`${name}.json`))) return undefined;
	const path = join(RESULTS_DIR, 'RELIABILITY.md');
	writeFileSync(path, report(readResults()));
	process.stdout.write(
		`Reliability report: ${path} (npm run report:reliability puts it in docs/)\n`,
	);
	return path;
}

// `npm run report:reliability`: docs/RELIABILITY.md from the results of the last `npm test`.
if (require.main === module) {
	mkdirSync(join(REPORT_PATH, '..'), { recursive: true });
	writeFileSync(REPORT_PATH, report(readResults()));
	process.stdout.write(`Reliability report: ${REPORT_PATH}\n`);
}
