#!/usr/bin/env bash
# `npm run report:screenshots`: the browser suite's pictures of its last run (test/e2e/editor.e2e.ts
# leaves them in .tmp/screenshots/) into docs/, where the README and docs/SCREENSHOTS.md show them.
# The tests never write into docs/: a run changes the documentation only when someone asks.
set -euo pipefail
cd "$(dirname "$0")/.."
shots=.tmp/screenshots
if ! compgen -G "$shots/*.png" >/dev/null; then
  echo "report:screenshots: no pictures in $shots/; run npm run test:e2e (its editor suite) first" >&2
  exit 1
fi
for file in "$shots"/*.png "$shots"/*.gif; do
  [ -e "$file" ] || continue
  cp "$file" docs/
  echo "docs/$(basename "$file")"
done
