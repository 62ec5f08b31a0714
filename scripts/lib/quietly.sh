# shellcheck shell=bash
# quietly LABEL LOG COMMAND...: runs COMMAND with all its output in the file LOG and prints, in
# its place, LABEL, the time passed every QUIETLY_EVERY seconds (15) and how long it took. On
# failure it prints the end of LOG and returns the command's status. For one-time installs whose
# output (npm, a C compiler) would bury what a user needs to read.
quietly() {
	local label="$1" log="$2" every="${QUIETLY_EVERY:-15}"
	shift 2
	mkdir -p "$(dirname "$log")"
	echo "dev: $label (full log: $log)" >&2
	local start=$SECONDS next=$every status=0
	"$@" >"$log" 2>&1 &
	local pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if [ $((SECONDS - start)) -ge "$next" ] && kill -0 "$pid" 2>/dev/null; then
			echo "dev:   ... $((SECONDS - start)) s" >&2
			next=$((next + every))
		fi
	done
	wait "$pid" || status=$?
	if [ "$status" = 0 ]; then
		echo "dev:   done in $((SECONDS - start)) s" >&2
	else
		echo "dev: ERROR: $label failed (exit $status); the end of $log:" >&2
		tail -n 40 "$log" >&2
	fi
	return "$status"
}
