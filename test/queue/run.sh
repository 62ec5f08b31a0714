#!/usr/bin/env bash
# n8n queue mode at scale: PostgreSQL + Redis (Debian's, on free loopback ports in a temp folder),
# the sandbox, one n8n main and two workers, driven by test/queue/queue.ts, in one of two runs:
#   test/queue/run.sh [queue]   `npm run test:queue`: bursts of Send SMS executions (every message
#                               once, a rate limit, outages, a worker killed, a daily cap held by
#                               two workers at once) and Send and Wait, in
#                               .ci/run (QUEUE_REQUESTS, QUEUE_CONTACTS, QUEUE_IN_FLIGHT,
#                               QUEUE_KILL_REQUESTS, QUEUE_LIMITED_REQUESTS, QUEUE_OUTAGE_REQUESTS,
#                               QUEUE_OUTAGE_CONTACTS, QUEUE_OUTAGE_CUTS resize it)
#   test/queue/run.sh research  `npm run test:research`: the research load (test/queue/research.ts:
#                               two workers at concurrency 2, 20 researches of 150 s at once through
#                               the example that waits with n8n's Wait node, each checked twice,
#                               then with Wait for Completion; about 18 minutes), in the weekly
#                               workflow (QUEUE_RESEARCHES, QUEUE_RESEARCH_RUN_MS resize it)
# Each writes its part of docs/SCALE.md and the n8n logs to .tmp/<run>/ (npm run report:scale puts
# the parts in docs/). Builds the package unless CI_BUILT=1 (scripts/ensure-build.sh).
# Everything started here is stopped by process id on exit, then checked gone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
cd "$root"

mode="${1:-queue}"
case "$mode" in
  # The driver's limit: a hung run ends (measured: queue ~6 min, research ~18 min).
  queue) driver_timeout=1200 ;;
  research) driver_timeout=2400 ;;
  *) echo "usage: test/queue/run.sh [queue|research]" >&2; exit 2 ;;
esac

log() { echo "$mode: $*" >&2; }
started=$SECONDS

bash scripts/ensure-deps.sh
bash scripts/ensure-n8n.sh --quiet
bash scripts/ensure-queue-deps.sh
bash scripts/ensure-build.sh

pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

run_dir="$(mktemp -d /tmp/cm-queue-XXXXXX)"
logs="$root/.tmp/$mode"
rm -rf "$logs" && mkdir -p "$logs"
pids_file="$run_dir/pids"      # the driver appends the process group id of each n8n it starts
ports_file="$run_dir/ports"    # and each port it listens on
: >"$pids_file" && : >"$ports_file"
pg_pid=''
redis_pid=''
driver_pid=''

# Postgres refuses to run as root: as root, the cluster belongs to Debian's postgres user.
if [ "$(id -u)" = 0 ]; then as_pg=(runuser -u postgres --); else as_pg=(); fi

stop_pid() { # pid [signal]: signal it, wait up to 15 s, then SIGKILL
  local pid=$1 sig=${2:-TERM}
  kill -0 "$pid" 2>/dev/null || return 0
  kill "-$sig" "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  log "pid $pid ignored SIG$sig: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  trap '' PIPE   # a closed stdout (e.g. `| tail` interrupted) must not stop the cleanup half-way
  if [ -n "$driver_pid" ]; then stop_pid "$driver_pid"; fi
  # n8n processes run in their own process groups (the driver stops them; this is for a driver that died).
  while read -r pgid; do
    if [ -n "$pgid" ] && kill -0 "-$pgid" 2>/dev/null; then log "stopping n8n group $pgid"; kill -KILL "-$pgid" 2>/dev/null || true; fi
  done <"$pids_file"
  if [ -n "$redis_pid" ]; then stop_pid "$redis_pid"; fi
  if [ -n "$pg_pid" ]; then stop_pid "$pg_pid" INT; fi   # SIGINT: postgres' fast shutdown
  rm -rf "$run_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# PostgreSQL: a throwaway cluster, trust auth on loopback; durability off (test data only).
pg_port="$(free_port)"
mkdir -p "$run_dir/pg" "$run_dir/pg-socket"
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$run_dir" "$run_dir/pg" "$run_dir/pg-socket"; fi
"${as_pg[@]}" "$pg_bin/initdb" -D "$run_dir/pg" -U postgres --auth=trust -E UTF8 >"$logs/initdb.log" 2>&1
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$run_dir/pg" -l "$run_dir/pg/server.log" -w -t 60 start \
  -o "-p $pg_port -k $run_dir/pg-socket -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" >/dev/null
pg_pid="$(head -n 1 "$run_dir/pg/postmaster.pid")"
"$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres n8n
log "postgres $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port (pid $pg_pid)"

# Redis: no persistence, loopback only.
redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$run_dir" \
  --logfile "$logs/redis.log" >/dev/null 2>&1 &
redis_pid=$!
for _ in $(seq 1 100); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  kill -0 "$redis_pid" 2>/dev/null || { log "redis-server exited: $(tail -n 5 "$logs/redis.log")"; exit 1; }
  sleep 0.1
done
log "redis $(redis-server --version | awk '{print $3}' | cut -d= -f2) on 127.0.0.1:$redis_port (pid $redis_pid)"

set +e
QUEUE_MODE="$mode" QUEUE_PG_PORT="$pg_port" QUEUE_REDIS_PORT="$redis_port" QUEUE_PSQL="$pg_bin/psql" \
  QUEUE_PIDS_FILE="$pids_file" QUEUE_PORTS_FILE="$ports_file" QUEUE_LOG_DIR="$logs" \
  QUEUE_SETUP_SECONDS="$((SECONDS - started))" \
  timeout --kill-after=30 "$driver_timeout" node_modules/.bin/tsx test/queue/queue.ts &
driver_pid=$!
wait "$driver_pid"
driver_status=$?
driver_pid=''
set -e
read -r passed failed 2>/dev/null <"$logs/result" || { passed=0; failed=1; }

# Nothing the run started may outlive it. The driver stops its n8n processes (each with its task
# runner, in its own process group): any still there is a failure. Then redis and postgres.
leftovers=''
while read -r pgid; do
  if [ -n "$pgid" ] && kill -0 "-$pgid" 2>/dev/null; then
    leftovers+=" n8n-group:$pgid"
    kill -KILL "-$pgid" 2>/dev/null || true
  fi
done <"$pids_file"
stopped=("$redis_pid" "$pg_pid")
stop_pid "$redis_pid"; redis_pid=''
stop_pid "$pg_pid" INT; pg_pid=''
for pid in "${stopped[@]}"; do if kill -0 "$pid" 2>/dev/null; then leftovers+=" pid:$pid"; fi; done
listening="$(ss -Htln | awk '{print $4}' | sed 's/.*://')"
for port in "$pg_port" "$redis_port" $(cat "$ports_file"); do
  if grep -qx "$port" <<<"$listening"; then leftovers+=" port:$port"; fi
done
if [ -z "$leftovers" ]; then
  echo "ok - no process or port left behind"
  passed=$((passed + 1))
else
  echo "not ok - left behind:$leftovers"
  failed=$((failed + 1))
fi
[ "$driver_status" = 0 ] || [ "$failed" -gt 0 ] || failed=1
log "total $((SECONDS - started)) s; n8n logs and this run's part of docs/SCALE.md in .tmp/$mode/"
echo "$mode: $passed passed, $failed failed"
[ "$failed" = 0 ]
