#!/usr/bin/env bash
# Runs the cached real n8n (tools/n8n-runtime, Node 24) with an offline, quiet, 127.0.0.1-only
# environment:   scripts/n8n.sh <n8n args>      e.g. scripts/n8n.sh start | import:workflow --input=x.json
# N8N_RUNTIME=1x runs n8n 1.123.x (tools/n8n-runtime-1x, Node 22) instead; see scripts/n8n-env.sh.
#
# Installs the runtime first if needed (scripts/ensure-n8n.sh; its output goes to stderr).
# Every variable below is only a default: anything already set in the environment wins.
#   N8N_USER_FOLDER defaults to <repo>/.cache/n8n-user (n8n keeps its data in $N8N_USER_FOLDER/.n8n),
#   so ~/.n8n is never touched. Set N8N_USER_FOLDER to a temp dir for isolated runs.
# Set N8N_SKIP_ENSURE=1 to skip the (~0.3 s) cache check.
# Note: n8n loads a .env file from the current directory (dotenv, never overriding set vars).
# All names were checked against n8n 2.41.1 (@n8n/config 2.39.0 / n8n-core / n8n dist); the 1.x
# differences (marked below) against n8n 1.123.81.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/n8n-env.sh
source "$SCRIPT_DIR/n8n-env.sh"
N8N_MAJOR="${N8N_EXPECTED_VERSION%%.*}"   # 2 by default, 1 with N8N_RUNTIME=1x

if [ "${N8N_SKIP_ENSURE:-0}" != 1 ] || [ ! -x "$N8N_NODE" ] || [ ! -f "$N8N_BIN" ]; then
  "$SCRIPT_DIR/ensure-n8n.sh" --quiet >&2
fi

: "${N8N_USER_FOLDER:=$N8N_REPO_ROOT/.cache/n8n-user}"
export N8N_USER_FOLDER

# n8n spawns its internal JS task runner as `node` from PATH: make that the runtime's Node (24; 1x: 22),
# not the system node.
export PATH="$N8N_NODE_DIR:$PATH"

# Network: listen on loopback only (main HTTP server; the task-runner broker is 127.0.0.1 by default).
export N8N_LISTEN_ADDRESS="${N8N_LISTEN_ADDRESS:-127.0.0.1}"
export N8N_HOST="${N8N_HOST:-127.0.0.1}"                    # used in editor/webhook URLs
export N8N_PROTOCOL="${N8N_PROTOCOL:-http}"
export N8N_SECURE_COOKIE="${N8N_SECURE_COOKIE:-false}"      # plain http on 127.0.0.1
export N8N_RUNNERS_BROKER_LISTEN_ADDRESS="${N8N_RUNNERS_BROKER_LISTEN_ADDRESS:-127.0.0.1}"
# Task runners: always on in n8n 2.x (N8N_RUNNERS_ENABLED was removed: setting it only logs a
# deprecation). Internal mode = n8n spawns the JS runner itself with this same Node 24.
# A second concurrent instance needs its own N8N_RUNNERS_BROKER_PORT (default 5679).
export N8N_RUNNERS_MODE="${N8N_RUNNERS_MODE:-internal}"
# Python in the Code node off. (Internal mode still probes for the Python runner and logs
# "Failed to start Python task runner ... virtual environment is missing": harmless, no opt-out.)
export N8N_PYTHON_ENABLED="${N8N_PYTHON_ENABLED:-false}"

# Offline and quiet: no telemetry, no calls to *.n8n.io, no banners/surveys.
export N8N_DIAGNOSTICS_ENABLED="${N8N_DIAGNOSTICS_ENABLED:-false}"                 # PostHog/RudderStack telemetry
export N8N_VERSION_NOTIFICATIONS_ENABLED="${N8N_VERSION_NOTIFICATIONS_ENABLED:-false}"  # api.n8n.io/api/versions
export N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED="${N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED:-false}"
export N8N_TEMPLATES_ENABLED="${N8N_TEMPLATES_ENABLED:-false}"                     # api.n8n.io/api/ templates
export N8N_DYNAMIC_BANNERS_ENABLED="${N8N_DYNAMIC_BANNERS_ENABLED:-false}"         # api.n8n.io/api/banners
export N8N_PERSONALIZATION_ENABLED="${N8N_PERSONALIZATION_ENABLED:-false}"         # onboarding survey
export N8N_HIRING_BANNER_ENABLED="${N8N_HIRING_BANNER_ENABLED:-false}"
export N8N_AI_ENABLED="${N8N_AI_ENABLED:-false}"
# The mcp-registry module fetches https://api.n8n.io/api/mcp-servers at startup (logs ENOTFOUND
# errors offline). Comma-separated; names are validated by n8n (MODULE_NAMES in @n8n/backend-common).
# n8n 1.x has no mcp-registry module (an unknown name aborts startup: 'Unknown module "mcp-registry"')
# and (checked at debug level) nothing calls api.n8n.io at startup there, so nothing is disabled.
if [ "$N8N_MAJOR" = 1 ]; then
  export N8N_DISABLED_MODULES="${N8N_DISABLED_MODULES-}"
else
  export N8N_DISABLED_MODULES="${N8N_DISABLED_MODULES-mcp-registry}"   # set it empty to disable nothing
fi
export N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS="${N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS:-true}"  # no "permissions too wide" warning
# (No license is activated, so the license SDK never calls license.n8n.io; N8N_LICENSE_AUTO_RENEW_ENABLED
#  is left alone because setting it false only adds an "automatic license renewal is disabled" warning.)

# Community packages: our package is unverified; n8n 2.41.1 loads unverified packages by default but
# warns that the default flips to false in v3. Pin it on.
export N8N_UNVERIFIED_PACKAGES_ENABLED="${N8N_UNVERIFIED_PACKAGES_ENABLED:-true}"
# Pin the 2.41.1 defaults explicitly: same behaviour, and it silences the "default will change"
# deprecation notices at startup. (The "internal task runner mode is deprecated" notice remains.)
export N8N_RUNNERS_TASK_TIMEOUT="${N8N_RUNNERS_TASK_TIMEOUT:-300}"
export N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES="${N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES:-2147483648}"
export N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES="${N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES:-5000}"
# (n8n 1.x has no N8N_COMPRESSION_NODE_* settings and ignores them; its task timeout default is 300 too.)

# n8n 1.x: pin the settings whose defaults n8n 2 changed to their 2.x values, so the e2e suites meet
# the same behaviour on both runtimes (and 1.x's startup deprecation notices for them stay quiet).
if [ "$N8N_MAJOR" = 1 ]; then
  export N8N_RUNNERS_ENABLED="${N8N_RUNNERS_ENABLED:-true}"                          # 1.x: off, Code node in-process
  export DB_SQLITE_POOL_SIZE="${DB_SQLITE_POOL_SIZE:-3}"                              # 1.x: 0, legacy driver without WAL
  export N8N_BLOCK_ENV_ACCESS_IN_NODE="${N8N_BLOCK_ENV_ACCESS_IN_NODE:-true}"        # 1.x: false, $env readable
  export N8N_GIT_NODE_DISABLE_BARE_REPOS="${N8N_GIT_NODE_DISABLE_BARE_REPOS:-true}"  # 1.x: false
fi

exec "$N8N_NODE" "$N8N_BIN" "$@"
