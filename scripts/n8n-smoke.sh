#!/usr/bin/env bash
# Smoke test of the cached real n8n (scripts/ensure-n8n.sh + scripts/n8n.sh), in a fresh temp
# N8N_USER_FOLDER that is deleted afterwards:
#   1. n8n --version
#   2. n8n import:workflow + n8n execute --id   (Manual Trigger -> Set (expression, i.e. the
#      isolated-vm expression engine) -> Code (runs in n8n's JS task runner under Node 24))
#   3. n8n start on 127.0.0.1, wait for GET /healthz/readiness = 200 (plain /healthz answers before the
#      REST routes exist), POST /rest/owner/setup, POST /rest/login, GET /rest/login,
#      check the JS task runner process is the Node 24 binary, then stop it (SIGTERM).
# Ports: N8N_SMOKE_PORT (default 5678) and N8N_SMOKE_BROKER_PORT (default 5679) must be free.
# Exits non-zero on the first failure. Takes ~30 s once the runtime is installed.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
N8N="$SCRIPT_DIR/n8n.sh"
PORT="${N8N_SMOKE_PORT:-5678}"
BROKER_PORT="${N8N_SMOKE_BROKER_PORT:-5679}"
BASE="http://127.0.0.1:$PORT"

log() { echo "n8n-smoke: $*" >&2; }
die() { echo "n8n-smoke: FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null || die "curl is required"

"$SCRIPT_DIR/ensure-n8n.sh" --quiet >&2
# shellcheck source=scripts/n8n-env.sh
source "$SCRIPT_DIR/n8n-env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/n8n-smoke.XXXXXX")"
SERVER_PID=""
# Signal the server's process group (server + its task runner) when it leads one, else just the server.
signal_server() {
  if [ "$(ps -o pgid= -p "$SERVER_PID" 2>/dev/null | tr -d ' ')" = "$SERVER_PID" ]; then
    kill "-$1" -- "-$SERVER_PID" 2>/dev/null || true
  else
    kill "-$1" "$SERVER_PID" 2>/dev/null || true
  fi
}
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    signal_server TERM
    for _ in $(seq 1 40); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.25; done
    signal_server KILL
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

export N8N_USER_FOLDER="$WORK/home"
export N8N_PORT="$PORT"
export N8N_RUNNERS_BROKER_PORT="$BROKER_PORT"
export N8N_SKIP_ENSURE=1
mkdir -p "$N8N_USER_FOLDER"

# 1. version
v="$("$N8N" --version)"
[ "$v" = "$N8N_EXPECTED_VERSION" ] || die "n8n --version printed '$v', expected $N8N_EXPECTED_VERSION"
log "n8n --version: $v (Node $("$N8N_NODE" --version))"

# 2. import + execute
cat > "$WORK/wf.json" <<'EOF'
{
  "id": "smokeWorkflow001",
  "name": "n8n-smoke",
  "active": false,
  "settings": {},
  "nodes": [
    { "id": "a0000000-0000-4000-8000-000000000001", "name": "Start", "type": "n8n-nodes-base.manualTrigger",
      "typeVersion": 1, "position": [0, 0], "parameters": {} },
    { "id": "a0000000-0000-4000-8000-000000000002", "name": "Set", "type": "n8n-nodes-base.set",
      "typeVersion": 3.4, "position": [220, 0],
      "parameters": { "assignments": { "assignments": [
        { "id": "s1", "name": "hello", "value": "={{ 'wor' + 'ld' }}", "type": "string" } ] }, "options": {} } },
    { "id": "a0000000-0000-4000-8000-000000000003", "name": "Code", "type": "n8n-nodes-base.code",
      "typeVersion": 2, "position": [440, 0],
      "parameters": { "jsCode": "return [{ json: { smoke: $input.first().json.hello + '-ok' } }];" } }
  ],
  "connections": {
    "Start": { "main": [[{ "node": "Set", "type": "main", "index": 0 }]] },
    "Set": { "main": [[{ "node": "Code", "type": "main", "index": 0 }]] }
  }
}
EOF
t=$SECONDS
"$N8N" import:workflow --input="$WORK/wf.json" > "$WORK/import.log" 2>&1 \
  || { cat "$WORK/import.log" >&2; die "import:workflow failed"; }
grep -q "Successfully imported 1 workflow" "$WORK/import.log" || { tail "$WORK/import.log" >&2; die "import:workflow output unexpected"; }
log "import:workflow ok ($((SECONDS - t)) s, includes DB migrations)"

t=$SECONDS
"$N8N" execute --id smokeWorkflow001 > "$WORK/execute.log" 2>&1 \
  || { cat "$WORK/execute.log" >&2; die "execute --id failed"; }
if ! { grep -q "Execution was successful" "$WORK/execute.log" && grep -q '"smoke": "world-ok"' "$WORK/execute.log"; }; then
  cat "$WORK/execute.log" >&2; die "execute output unexpected"
fi
log "execute --id ok ($((SECONDS - t)) s): Code node returned {\"smoke\":\"world-ok\"}"

# 3. server
for p in "$PORT" "$BROKER_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    die "port $p on 127.0.0.1 is in use (set N8N_SMOKE_PORT / N8N_SMOKE_BROKER_PORT)"
  fi
done
t=$SECONDS
setsid "$N8N" start > "$WORK/start.log" 2>&1 &
SERVER_PID=$!
ok=0
for _ in $(seq 1 240); do
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/start.log" >&2; die "n8n start exited"; }
  if curl -fsS "$BASE/healthz/readiness" >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.25
done
[ "$ok" = 1 ] || { cat "$WORK/start.log" >&2; die "/healthz/readiness not 200 after 60 s"; }
log "n8n start: $BASE/healthz/readiness ok after $((SECONDS - t)) s"
if grep -Eq 'ENOTFOUND|EAI_AGAIN|ETIMEDOUT' "$WORK/start.log"; then
  log "warning: n8n tried to reach the network at startup:"
  grep -E 'ENOTFOUND|EAI_AGAIN|ETIMEDOUT' "$WORK/start.log" | head -n 5 >&2
fi

json() { curl -sS -o "$WORK/resp.json" -w '%{http_code}' -b "$WORK/cookies" -c "$WORK/cookies" \
  -H 'Content-Type: application/json' "$@"; }
code="$(json -d '{"email":"smoke@example.com","firstName":"Smoke","lastName":"Test","password":"Smoke-Passw0rd"}' "$BASE/rest/owner/setup")"
[ "$code" = 200 ] || { cat "$WORK/resp.json" >&2; die "POST /rest/owner/setup -> HTTP $code"; }
rm -f "$WORK/cookies"
code="$(json -d '{"emailOrLdapLoginId":"smoke@example.com","password":"Smoke-Passw0rd"}' "$BASE/rest/login")"
[ "$code" = 200 ] || { cat "$WORK/resp.json" >&2; die "POST /rest/login -> HTTP $code"; }
code="$(json "$BASE/rest/login")"
if ! { [ "$code" = 200 ] && grep -q '"email":"smoke@example.com"' "$WORK/resp.json"; }; then
  cat "$WORK/resp.json" >&2; die "GET /rest/login (cookie) -> HTTP $code"
fi
log "owner setup + login + cookie session ok"

# The internal JS task runner is spawned as `node` from PATH: it must be Node 24.
runner_pid=""
for _ in $(seq 1 40); do
  runner_pid="$(pgrep -P "$SERVER_PID" -f '@n8n/task-runner' | head -n 1 || true)"
  [ -n "$runner_pid" ] && break
  sleep 0.25
done
if [ -n "$runner_pid" ]; then
  runner_exe="$(readlink -f "/proc/$runner_pid/exe")"
  [ "$runner_exe" = "$(readlink -f "$N8N_NODE")" ] || die "task runner runs $runner_exe, not $N8N_NODE"
  log "JS task runner (pid $runner_pid) runs $runner_exe"
else
  log "warning: JS task runner process not found (not fatal)"
fi

t=$SECONDS
signal_server TERM
for _ in $(seq 1 120); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.25; done
kill -0 "$SERVER_PID" 2>/dev/null && die "n8n did not stop within 30 s of SIGTERM"
SERVER_PID=""
log "n8n stopped ($((SECONDS - t)) s after SIGTERM)"
echo "n8n-smoke: OK (n8n $N8N_EXPECTED_VERSION)"
