#!/usr/bin/env bash
# Installs the repo's npm dependencies when they are missing or older than package-lock.json,
# so that `npm test` and `npm run dev` work as the first command on a fresh clone.
# --check: install nothing; exit 0 when they are current, 1 when an install is due.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"
stamp=node_modules/.deps-stamp
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
current() { [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; }
if [ "${1:-}" = --check ]; then current; exit; fi
if ! current; then
  echo "Installing npm dependencies (npm ci)..."
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi
