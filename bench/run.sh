#!/usr/bin/env bash
# npm run bench: per-item cost of the node against n8n's HTTP Request node and plain node:http,
# load time, packed size and researcher polling, with the cached n8n runtime (Node 24).
# Writes docs/PERFORMANCE.md. Arguments go to bench/main.ts (--quick: short run, prints only;
# --shared: only the shared-limit, CRM and outage tables; --only <cells>: some of those, prints
# only; --list: their names). See docs/PERFORMANCE.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"

bash scripts/ensure-deps.sh
bash scripts/ensure-n8n.sh --quiet
# shellcheck source=scripts/n8n-env.sh
source scripts/n8n-env.sh

# Build when dist/ is missing or older than any source the package is built from.
marker=dist/nodes/ConversationalMessaging/ConversationalMessaging.node.js
if [ ! -f "$marker" ] || [ -n "$(find nodes credentials package.json tsconfig.json tsconfig.build.json gulpfile.js -newer "$marker" -print -quit)" ]; then
  npm run build
fi

exec "$N8N_NODE" --import tsx bench/main.ts "$@"
