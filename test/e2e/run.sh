#!/usr/bin/env bash
# End-to-end suites in real n8n 2.41.1 (and Debian's Chromium for the editor suite).
# Installs what is missing: npm dependencies, the cached n8n runtime, chromium.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/ensure-n8n.sh --quiet
bash scripts/ensure-chromium.sh
npm run build --silent
npx jest -c jest.e2e.config.js "$@"
