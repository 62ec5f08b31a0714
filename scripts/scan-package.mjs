// n8n's verification scan, both ways as `@n8n/scan-community-package` runs them on a published
// package: its analyzePackage on the source (its SOURCE_FILE_PATTERNS) and on the packed tarball
// (compiled .js and the published package.json). Only the provenance check needs a release.
//
// Usage: node scripts/scan-package.mjs [package folder, default: this repo]
// The folder's dist must be built; exits 1 when either way finds a violation.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// eslint-plugin-n8n-nodes-base reads NODE_ENV when it loads: under "test" (as jest sets it) its
// package.json rules check nothing. Hence the scanner is loaded only after this.
delete process.env.NODE_ENV;
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(
	'@n8n/scan-community-package/scanner/scanner.mjs'
);

/** The scanner's own patterns for the tarball (scanner.mjs, analyzePackageByName). */
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

const packageDir = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
// Digits only: n8n's lint plugin exempts a credential from a rule when its path merely contains
// "S3", "Aws", "Imap"..., as mkdtemp's random letters may.
const work = join(tmpdir(), `scan-package-${process.pid}-${Date.now()}`);
mkdirSync(work);
try {
	const [packed] = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
			cwd: packageDir,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}),
	);
	execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work]);
	const results = [
		{ way: 'source', ...(await analyzePackage(packageDir, SOURCE_FILE_PATTERNS)) },
		{
			way: `tarball (${packed.filename}, ${packed.entryCount} files)`,
			...(await analyzePackage(join(work, 'package'), TARBALL_PATTERNS)),
		},
	];
	for (const result of results) {
		console.log(
			`n8n scanner on the ${result.way}: ${result.passed ? 'passed' : `FAILED: ${result.message}`}`,
		);
		if (result.details) console.log(result.details);
	}
	process.exitCode = results.every((result) => result.passed) ? 0 : 1;
} finally {
	rmSync(work, { recursive: true, force: true });
}
