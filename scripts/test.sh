#!/usr/bin/env bash
# `npm test`, the fast tier: the node's behaviour in n8n's engine (jest's `node` project: the
# engine suites, the contract check, reliability, the form), within 60 s of an install on two
# cores. Installs the npm dependencies when due and builds the package (some suites load dist/).
# The suites run on jest-light-runner (jest.config.js), TypeScript through tsx without type
# checking: the whole tree's type check is `npm run typecheck`, a step of its own in CI (.ci/run,
# .github/workflows/ci.yml).
# Arguments go to jest (`npm test -- test/reliability/token.test.ts`). The other tier:
# `npm run test:tooling`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
npm run build --silent
# The project comes last: --selectProjects takes every name after it, paths included.
exec npx jest "$@" --selectProjects node
