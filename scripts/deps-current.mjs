// Exits 0 when node_modules holds what package-lock.json asks for, 1 when an install is due
// (scripts/ensure-deps.sh). It compares package-lock.json with the record npm writes of what it
// installed (node_modules/.package-lock.json, written by every `npm ci` and `npm install`): each
// package installed as locked, at its version and integrity, and present on disk; none missing
// unless optional (another platform's build, which npm skips); none installed beyond the lock. So
// the CI workflows' own `npm ci` counts, and `npm test` after it installs nothing again.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const read = (path) => JSON.parse(readFileSync(join(root, path), 'utf8')).packages ?? {};

function current() {
	let locked, installed;
	try {
		locked = read('package-lock.json');
		installed = read('node_modules/.package-lock.json');
	} catch {
		return false;
	}
	for (const [path, entry] of Object.entries(locked)) {
		if (path === '') continue; // the package itself
		const got = installed[path];
		if (!got) {
			if (entry.optional) continue;
			return false;
		}
		if (got.version !== entry.version || got.integrity !== entry.integrity) return false;
		if (!got.link && !existsSync(join(root, path, 'package.json'))) return false;
	}
	return Object.keys(installed).every((path) => path in locked);
}

process.exit(current() ? 0 : 1);
