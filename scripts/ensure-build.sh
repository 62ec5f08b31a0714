#!/usr/bin/env bash
# Builds the package into dist/ (npm run build), unless CI_BUILT=1: .ci/run builds it once, in its
# `npm test` step, and sets CI_BUILT=1 for the steps after it, which would otherwise each build the
# same tree again (scan, e2e, queue, research, compat, and `npm run dev` under the e2e suite). Run
# alone, each of those commands builds once.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "${CI_BUILT:-}" = 1 ] && [ -f dist/nodes/ConversationalMessaging/ConversationalMessaging.node.js ]; then
  exit 0
fi
npm run build --silent
