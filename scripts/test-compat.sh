#!/usr/bin/env bash
# `npm run test:compat`: the package on n8n 1.x, beside the 2.41 it is built and tested on
# (`npm test` runs the suites on n8n 2.41's engine; they are not run again here). The engine suites
# (the files jest.compat.config.js lists: those that run the node through n8n's engine or load it
# with n8n's code; not the pure ones, whose result no engine changes) on n8n 1.x's engine (n8n-core
# 1.122.48 + n8n-workflow 1.120.31, what n8n 1.123.x runs), then real n8n 1.123.81
# (N8N_RUNTIME=1x): the package loads, the credential test, one operation of every resource, and
# Send and Wait for Response on every channel. Builds the package unless CI_BUILT=1
# (scripts/ensure-build.sh).
#
# `npm run test:compat -- --engine`: the engine suites on n8n 1.x's engine only, on the Node that
# runs the command (CI's n8n-1x job, on Node 20); real n8n 1.x runs on the Node 22 its runtime pins,
# so it is left to the full run (.ci/run).
#
# `npm run test:compat -- --latest [n8n-core version]`: only the newest n8n-core on the npm
# registry (or the one named) with its n8n-workflow: the same engine suites, then a verdict
# saying which n8n version broke what (scripts/compat-verdict.mjs; also in
# .tmp/compat-latest/verdict.md). The weekly workflow .github/workflows/newest-n8n.yml runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  '' | --latest | --engine) ;;
  *) echo "test-compat: unknown argument '$1' (none, --latest [n8n-core version] or --engine)" >&2; exit 2 ;;
esac
bash scripts/ensure-deps.sh

if [ "${1:-}" = "--latest" ]; then
  dir=.cache/compat-latest
  bash scripts/ensure-compat.sh latest "${2:-}"
  bash scripts/ensure-build.sh
  node scripts/compat-verdict.mjs load "$dir"
  results=.tmp/compat-latest/jest.json
  mkdir -p .tmp/compat-latest
  rm -f "$results"
  echo "Engine suites on n8n-core $(node -p "require('./$dir/node_modules/n8n-core/package.json').version")"
  # jest's exit code is left to the verdict, which reads its results.
  N8N_COMPAT_DIR="$dir" npx jest -c jest.compat.config.js --json --outputFile="$results" || true
  exec node scripts/compat-verdict.mjs results "$dir" "$results"
fi

bash scripts/ensure-compat.sh
bash scripts/ensure-build.sh
export CI_BUILT=1 # built: test/e2e/run.sh below need not build again
echo "Engine suites on n8n 1.x's engine"
npx jest -c jest.compat.config.js
if [ "${1:-}" = "--engine" ]; then exit 0; fi
echo "Real n8n 1.x"
N8N_RUNTIME=1x bash test/e2e/run.sh test/e2e/credential.e2e.ts test/e2e/resources.e2e.ts test/e2e/sendAndWait.e2e.ts test/e2e/retry.e2e.ts
