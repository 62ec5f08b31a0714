#!/usr/bin/env bash
# `npm run test:compat`: the package on the n8n versions it supports. The engine suites on n8n
# 2.41's engine and on n8n 1.x's (n8n-core 1.122.48 + n8n-workflow 1.120.31, what n8n 1.123.x
# runs), then real n8n 1.123.81 (N8N_RUNTIME=1x): the package loads, the credential test, one
# operation of every resource, and Send and Wait for Response on every channel.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/ensure-compat.sh
npm run build --silent
echo "Engine suites on n8n 2.41's engine"
npx jest
echo "Engine suites on n8n 1.x's engine"
npx jest -c jest.compat.config.js
echo "Real n8n 1.x"
N8N_RUNTIME=1x bash test/e2e/run.sh test/e2e/credential.e2e.ts test/e2e/resources.e2e.ts test/e2e/sendAndWait.e2e.ts
