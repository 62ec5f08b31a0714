#!/usr/bin/env bash
# `npm test`, the fast tier: the node's behaviour in n8n's engine (jest's `node` project: the
# engine suites, the contract check, reliability, the form), within 90 s of an install on two
# cores. Installs the npm dependencies when due, builds the package (some suites load dist/), and
# type-checks the whole tree (tsc --noEmit) beside the build and the suites rather than before
# them: the suites spend much of their time waiting on the sandbox, and nothing they run depends
# on the type check. Arguments go to jest (`npm test -- test/reliability/token.test.ts`).
# The other tier: `npm run test:tooling`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh

typecheck_log="$(mktemp)"
typecheck=''
# A build that fails ends the script: the type check goes with it.
trap '[ -z "$typecheck" ] || kill "$typecheck" 2>/dev/null; rm -f "$typecheck_log"' EXIT
node_modules/.bin/tsc -p tsconfig.json --noEmit >"$typecheck_log" 2>&1 &
typecheck=$!

npm run build --silent
set +e
npx jest --selectProjects node "$@"
jest_status=$?
wait "$typecheck"
typecheck_status=$?
typecheck=''
set -e

if [ "$typecheck_status" != 0 ]; then
  cat "$typecheck_log"
  echo "npm test: the type check failed (tsc -p tsconfig.json --noEmit)" >&2
fi
[ "$jest_status" = 0 ] && [ "$typecheck_status" = 0 ]
