#!/usr/bin/env bash
# Installs the repo's npm dependencies (npm ci) when node_modules does not hold what
# package-lock.json asks for, so that `npm test` and `npm run dev` work as the first command on a
# fresh clone. Whatever installed them counts, this script's own `npm ci` or the CI workflows'
# (scripts/deps-current.mjs compares the lock with npm's record of the install), so a job
# installs once.
# --check: install nothing; exit 0 when they are current, 1 when an install is due.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"
current() { node scripts/deps-current.mjs; }
if [ "${1:-}" = --check ]; then current; exit; fi
if ! current; then
  echo "Installing npm dependencies (npm ci)..."
  npm ci --no-audit --no-fund
fi
