#!/usr/bin/env bash
# Debian's redis-server and PostgreSQL server for the queue-mode test (test/queue/run.sh).
# Installs only what is missing, without starting the system services: the test runs its own
# instances on free loopback ports in a temporary folder.
# Prints nothing when both are there.
set -euo pipefail

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ -z "$(pg_bin)" ] || [ ! -x "$(pg_bin)/initdb" ]; then missing+=(postgresql); fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing Debian's ${missing[*]}..."
if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
# Package scripts must not start redis on 6379 or a cluster on 5432: policy-rc.d 101 forbids
# it (Docker images usually ship one; if not, put one there for the install only).
policy=/usr/sbin/policy-rc.d
added_policy=0
cleanup() { if [ "$added_policy" = 1 ]; then $SUDO rm -f "$policy"; fi; }
trap cleanup EXIT
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
  $SUDO chmod 755 "$policy"
  added_policy=1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
redis-server --version
"$(pg_bin)/postgres" --version
