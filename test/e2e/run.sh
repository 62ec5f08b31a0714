#!/usr/bin/env bash
# End-to-end suites in real n8n 2.41.1 (and Debian's Chromium for the editor suite).
# Installs what is missing: npm dependencies, the cached n8n runtime, chromium. Builds the package
# unless CI_BUILT=1 (scripts/ensure-build.sh). The editor suite's screenshots go to .tmp/screenshots/
# (npm run report:screenshots copies them into docs/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/ensure-n8n.sh --quiet
bash scripts/ensure-chromium.sh
bash scripts/ensure-build.sh
export CI_BUILT=1 # built: `npm run dev` under test/e2e/dev.e2e.ts need not build again
npx jest -c jest.e2e.config.js "$@"
