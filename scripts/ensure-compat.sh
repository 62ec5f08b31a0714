#!/usr/bin/env bash
# n8n 1.x's engine for `npm run test:compat`: n8n-core 1.122.48 and n8n-workflow 1.120.31 (what
# n8n 1.123.x runs), installed once into the git-ignored .cache/compat-1x (install scripts off,
# as for the repo: see .npmrc).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
dir="$root/.cache/compat-1x"
core=1.122.48
workflow=1.120.31
installed() { node -p "require('$dir/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(installed n8n-core)" = "$core" ] && [ "$(installed n8n-workflow)" = "$workflow" ]; then exit 0; fi
mkdir -p "$dir"
echo '{"name":"compat-1x","private":true}' > "$dir/package.json"
cp "$root/.npmrc" "$dir/.npmrc"
echo "Installing n8n 1.x's engine (n8n-core $core, n8n-workflow $workflow) into .cache/compat-1x ..." >&2
(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "n8n-core@$core" "n8n-workflow@$workflow" >&2)
