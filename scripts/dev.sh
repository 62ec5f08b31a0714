#!/usr/bin/env bash
# `npm run dev`: the n8n editor with this node, the local sandbox and the example workflows.
#
# Builds the package, starts the sandbox (its inbox, at the sandbox's address, shows every message
# sent), and runs the cached n8n 2.41.1 (Node 24) on 127.0.0.1 with a persistent user folder where
# this repo is linked in as an installed community package. The owner account, a sandbox credential
# and examples/*.json are set up on the way. Ctrl-C stops it all.
#
# Environment (defaults):
#   N8N_PORT=5678                            the editor
#   SANDBOX_PORT=8787                        the sandbox (its token is always demotoken0000)
#   N8N_RUNNERS_BROKER_PORT=5679             n8n's task-runner broker
#   N8N_DEV_USER_FOLDER=<repo>/.cache/n8n-dev  n8n's data (remove it to start afresh)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"

n8n_port="${N8N_PORT:-5678}"
sandbox_port="${SANDBOX_PORT:-8787}"
broker_port="${N8N_RUNNERS_BROKER_PORT:-5679}"
folder="${N8N_DEV_USER_FOLDER:-$root/.cache/n8n-dev}"
sandbox_token=demotoken0000
sandbox_url="http://127.0.0.1:$sandbox_port"
editor_url="http://127.0.0.1:$n8n_port"
owner_email=dev@example.com
owner_password=Dev-Sandbox-2026
package=n8n-nodes-conversational-messaging
# The id and name the example workflows refer to.
credential_id=cmSandboxCred001
credential_name='Conversational Messaging sandbox'

log() { echo "dev: $*" >&2; }
die() { echo "dev: ERROR: $*" >&2; exit 1; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# n8n exits at once, without a word, under NODE_ENV=test (set by jest when a test runs this script).
if [ "${NODE_ENV:-}" = test ]; then unset NODE_ENV; fi

for port in "$n8n_port" "$sandbox_port" "$broker_port"; do
	if listening "$port"; then die "port $port on 127.0.0.1 is in use (another npm run dev?); see the ports in scripts/dev.sh"; fi
done

# The one-time installs of a fresh clone print progress here, their output goes to a log.
# shellcheck source=scripts/lib/quietly.sh
source scripts/lib/quietly.sh
setup_logs="$root/.cache/logs"
if ! bash scripts/ensure-deps.sh --check; then
	quietly "first run: installing the npm dependencies (one time, about 2 minutes)" "$setup_logs/install-deps.log" bash scripts/ensure-deps.sh
fi
log "building the package"
# Under .ci/run and test/e2e/run.sh (CI_BUILT=1), dist/ is this tree's build already.
bash scripts/ensure-build.sh >/dev/null
if ! bash scripts/ensure-n8n.sh --check; then
	# shellcheck source=scripts/n8n-env.sh
	source scripts/n8n-env.sh
	quietly "first run: installing n8n $N8N_EXPECTED_VERSION with Node $N8N_NODE_MAJOR (one time, about 5 minutes and 3 GB; later starts take seconds)" \
		"$setup_logs/install-n8n.log" bash scripts/ensure-n8n.sh
fi

# The user folder, with this repo installed the way n8n installs community packages.
mkdir -p "$folder/.n8n/nodes/node_modules" "$folder/logs"
ln -sfn "$root" "$folder/.n8n/nodes/node_modules/$package"
printf '{"name":"installed-nodes","private":true,"dependencies":{"%s":"*"}}\n' "$package" >"$folder/.n8n/nodes/package.json"

export N8N_USER_FOLDER="$folder" N8N_PORT="$n8n_port" N8N_RUNNERS_BROKER_PORT="$broker_port" N8N_SKIP_ENSURE=1
# In the user folder: n8n reads a .env file from its working directory.
n8n() { (cd "$folder" && exec "$root/scripts/n8n.sh" "$@"); }

# Import the credential and the examples when they changed since the last import, so that edits
# made in the editor survive a restart (an import overwrites the workflows with the same ids).
credential_file="$folder/sandbox-credential.json"
printf '[{"id":"%s","name":"%s","type":"conversationalMessagingApi","data":{"baseUrl":"%s","apiToken":"%s"}}]\n' \
	"$credential_id" "$credential_name" "$sandbox_url" "$sandbox_token" >"$credential_file"
stamp="$folder/.imported-stamp"
want="$(cat "$credential_file" examples/*.json | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	log "importing the sandbox credential and the example workflows"
	n8n import:credentials --input="$credential_file" >"$folder/logs/import.log" 2>&1 || die "import:credentials failed, see $folder/logs/import.log"
	n8n import:workflow --separate --input="$root/examples" >>"$folder/logs/import.log" 2>&1 || die "import:workflow failed, see $folder/logs/import.log"
	echo "$want" >"$stamp"
fi

# Each long-running process gets its own session and process group (setsid), so that stopping it
# stops its children too (tsx runs node; n8n runs its task runner), and so that Ctrl-C reaches this
# script only: it stops them in order. With no job control, setsid does not fork: $! is the group.
pids=()
stop() {
	# Ctrl-C reaches this script twice under npm (from the terminal, then forwarded by npm): the
	# second one must not cut the cleanup short.
	trap '' INT TERM
	trap - EXIT
	[ "${#pids[@]}" = 0 ] && return
	log "stopping"
	for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
	for _ in $(seq 1 100); do
		alive=0
		for pid in "${pids[@]}"; do if kill -0 -- "-$pid" 2>/dev/null; then alive=1; fi; done
		[ "$alive" = 0 ] && break
		sleep 0.2
	done
	for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	log "stopped"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

setsid node_modules/.bin/tsx sandbox/cli.ts --port "$sandbox_port" --token "$sandbox_token" >"$folder/logs/sandbox.log" 2>&1 &
sandbox_pid=$!
pids+=("$sandbox_pid")
(cd "$folder" && exec setsid "$root/scripts/n8n.sh" start) >"$folder/logs/n8n.log" 2>&1 &
n8n_pid=$!
pids+=("$n8n_pid")

log "starting the sandbox and n8n (logs in $folder/logs)"
started=$SECONDS
until curl -fs -o /dev/null "$sandbox_url/__sandbox/requests"; do
	kill -0 "$sandbox_pid" 2>/dev/null || die "the sandbox stopped: $(tail -n 20 "$folder/logs/sandbox.log")"
	sleep 0.2
done
# /healthz/readiness answers once the REST routes exist (plain /healthz answers before).
until curl -fs -o /dev/null "$editor_url/healthz/readiness"; do
	kill -0 "$n8n_pid" 2>/dev/null || die "n8n stopped: $(tail -n 40 "$folder/logs/n8n.log")"
	[ $((SECONDS - started)) -lt 180 ] || die "n8n was not ready after 180 s, see $folder/logs/n8n.log"
	sleep 0.5
done

json_post() { curl -sS -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d "$2" "$editor_url$1"; }
setup="$(json_post /rest/owner/setup "{\"email\":\"$owner_email\",\"firstName\":\"Dev\",\"lastName\":\"Owner\",\"password\":\"$owner_password\"}")"
if [ "$setup" != 200 ]; then
	# Set up on an earlier run: check that the login still works.
	login="$(json_post /rest/login "{\"emailOrLdapLoginId\":\"$owner_email\",\"password\":\"$owner_password\"}")"
	[ "$login" = 200 ] || log "warning: owner setup answered $setup and login $login; was the password changed in the editor?"
fi

cat <<EOF

  n8n editor   $editor_url
  login        $owner_email / $owner_password
  sandbox      $sandbox_url   token $sandbox_token
  inbox        $sandbox_url/   every message the sandbox sent, with its links (a Send and Wait SMS's answer page too)
  credential   "$credential_name" (id $credential_id)
  examples     $(ls examples/*.json | wc -l) workflows named "Example: ..."
  logs         $folder/logs/{n8n,sandbox}.log

  Ready in $SECONDS s. Ctrl-C stops n8n and the sandbox.

EOF

# Until Ctrl-C, or until either process stops by itself.
set +e
wait -n "$sandbox_pid" "$n8n_pid"
status=$?
set -e
if kill -0 "$n8n_pid" 2>/dev/null; then
	log "the sandbox stopped (exit $status): $(tail -n 20 "$folder/logs/sandbox.log")"
else
	log "n8n stopped (exit $status): $(tail -n 40 "$folder/logs/n8n.log")"
fi
exit 1
