#!/usr/bin/env bash
# Run every tests/e2e/t_*.sh against the heisen binary in $HEISEN.
#
#   HEISEN=/abs/path/to/heisen tests/e2e/run.sh     (make e2e sets it)
#
# Each test is a standalone bash script: exit 0 means pass, exit 77 means
# skipped (the machine lacks what it needs, say an sshd: lib.sh's `skip`),
# anything else fails, and it prints what broke. This prints PASS/FAIL per
# test (with the failing test's output) and `SKIP name: reason` (the
# test's last line), then exactly `e2e: N passed, M failed, K skipped`,
# and exits non-zero if anything failed; skips never do.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "${HEISEN:-}" ] || [ ! -x "$HEISEN" ]; then
	echo "e2e: HEISEN must name the heisen binary (got '${HEISEN:-}')" >&2
	exit 2
fi
export HEISEN

passed=0
failed=0
skipped=0
log=$(mktemp) || exit 3
trap 'rm -f "$log"' EXIT

for t in "$here"/t_*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	bash "$t" >"$log" 2>&1
	case $? in
	0)
		echo "PASS $name"
		passed=$((passed + 1))
		;;
	77)
		echo "SKIP $name: $(tail -n 1 "$log")"
		skipped=$((skipped + 1))
		;;
	*)
		echo "FAIL $name"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
		;;
	esac
done

echo "e2e: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
