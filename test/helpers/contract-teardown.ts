/**
 * After the whole suite: every operation of the contract must have been reached by the node,
 * and no request the node sent may have broken the contract. Skipped when jest was asked to
 * run only some test files, since they cannot reach every operation. First, the reliability
 * report is written to .tmp/reliability/ if the run included every reliability test file.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import type { SandboxStats } from '../../sandbox/server';
import { OPERATION_IDS } from '../../sandbox/server';
import { writeReliabilityReport } from '../reliability/report';
import { CONTRACT_USAGE_DIR } from './contract-usage';

export default function checkContractUsage(globalConfig: {
	testPathPatterns?: { patterns?: string[] } | string[];
	testPathPattern?: string;
	testNamePattern?: string;
}): void {
	writeReliabilityReport();
	const patterns = globalConfig.testPathPatterns;
	// jest 30 names the file filter testPathPatterns, jest 29 testPathPattern.
	const filtered =
		(Array.isArray(patterns) ? patterns : (patterns?.patterns ?? [])).length > 0 ||
		Boolean(globalConfig.testPathPattern) ||
		Boolean(globalConfig.testNamePattern);
	if (filtered || !existsSync(CONTRACT_USAGE_DIR)) return;
	const reached = new Map<string, number>();
	let requests = 0;
	let violations = 0;
	const examples: string[] = [];
	for (const file of readdirSync(CONTRACT_USAGE_DIR)) {
		if (file.startsWith('sandbox_')) continue; // the sandbox's own tests send invalid requests on purpose
		const stats = JSON.parse(readFileSync(join(CONTRACT_USAGE_DIR, file), 'utf8')) as SandboxStats;
		requests += stats.total;
		violations += stats.violations;
		for (const violation of stats.lastViolations)
			examples.push(
				`${file}: ${violation.method} ${violation.path} ${violation.errors.join('; ')}`,
			);
		for (const [operation, count] of Object.entries(stats.byOperation))
			reached.set(operation, (reached.get(operation) ?? 0) + count);
	}
	const missing = OPERATION_IDS.filter((operation) => !reached.get(operation));
	process.stdout.write(
		`\nContract: ${OPERATION_IDS.length - missing.length} of ${OPERATION_IDS.length} operations exercised by the node, ${requests} requests, ${violations} contract violations\n`,
	);
	if (missing.length || violations) {
		throw new Error(
			`Contract check failed. Not exercised: ${missing.join(', ') || 'none'}. Violations:\n${examples.slice(0, 20).join('\n')}`,
		);
	}
}
