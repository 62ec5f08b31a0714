#!/usr/bin/env bash
# An n8n engine (n8n-core + n8n-workflow) for `npm run test:compat`, installed into the
# git-ignored .cache/compat-<name> with install scripts off, as for the repo (see .npmrc).
#
#   ensure-compat.sh               n8n 1.x's engine, pinned below (what n8n 1.123.x runs), into .cache/compat-1x
#   ensure-compat.sh latest [V]    the newest n8n-core on the npm registry (dist-tag latest), or n8n-core V,
#                                  with the n8n-workflow that release depends on, into .cache/compat-latest
#
# Reinstalls whenever the installed versions are not the wanted ones (e.g. the registry's latest moved).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
# n8n 1.x: test/compatibility.test.ts checks README's Compatibility table names these two.
core=1.122.48
workflow=1.120.31
name=1x
if [ "${1:-}" = latest ]; then
  name=latest
  core="${2:-$(npm view n8n-core version --loglevel=error)}"
  # The n8n-workflow this n8n-core pins: the pair an n8n release ships. A newer n8n-workflow on its
  # own would be a mix no n8n runs (jest maps every import of it, n8n-core's too, to one copy).
  workflow="$(npm view "n8n-core@$core" dependencies.n8n-workflow --loglevel=error)"
  [ -n "$workflow" ] || { echo "ensure-compat: the registry has no n8n-core $core" >&2; exit 1; }
fi
dir="$root/.cache/compat-$name"
installed() { node -p "require('$dir/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(installed n8n-core)" = "$core" ] && [ "$(installed n8n-workflow)" = "$workflow" ]; then exit 0; fi
rm -rf "$dir"
mkdir -p "$dir"
echo "{\"name\":\"compat-$name\",\"private\":true}" > "$dir/package.json"
cp "$root/.npmrc" "$dir/.npmrc"
echo "Installing n8n-core $core and n8n-workflow $workflow into .cache/compat-$name ..." >&2
(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "n8n-core@$core" "n8n-workflow@$workflow" >&2)
