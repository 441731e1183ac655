# lib.sh - what every end-to-end test shares. Source it first:
#
#   . "$(dirname "$0")/lib.sh"
#
# It checks $HEISEN (the binary under test) and gives:
#   $root          the source tree
#   $dir           a scratch folder, removed on exit
#   bad MSG        record a failed check (printed as "  FAIL: MSG")
#   snippet FILE   the first 400 bytes of FILE on one line, for messages
#   expect CODE WHAT CMD...
#                  run CMD (stdout to $dir/out, stderr to $dir/err) and
#                  check that it exits with CODE
#   hq NAME ARGS...
#                  heisen ARGS, stdout to $dir/NAME.out and stderr to
#                  $dir/NAME.err, leaving its exit code in rc (killed
#                  after 300 s: a hung command must not hang the suite)
#   want NAME CODE record a failure unless rc is CODE, with NAME's output
#   make_flags     make's flags for the build $HEISEN comes from (SANITIZE=1
#                  for build-asan/heisen), as an array
#   need_demos     build demos/ with the heisen under test (plain or ASan)
#   tmux_session NAME
#                  for tests that drive the TUI: tmux and the demos
#                  checked, $heisen (absolute), a private tmux server
#                  killed on exit, tm (tmux on it), and wait_for ERE WHAT
#                  (poll the pane "tui" until a line matches, the screen
#                  then in $scr; after 60 s a failure showing the screen)
#   deep_dir BASE  make and print a folder under BASE whose absolute path
#                  has at least 120 characters (a checkout in a deep
#                  temporary folder), for the tests that show paths
#   show_bugs DB   every bug of workspace DB, `heisen show` as JSON into
#                  $dir/show.N.json and as text into $dir/show.N.txt
#   skip MSG       give up without failing: what this machine lacks (run.sh
#                  counts the test as skipped, not passed)
#   finish NAME    report the failed checks and exit 1, or exit 0
set -u
: "${HEISEN:?HEISEN must name the heisen binary}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=$(mktemp -d) || exit 3
trap 'rm -rf "$dir"' EXIT
failures=0

bad() { echo "  FAIL: $*"; failures=$((failures + 1)); }

snippet() { head -c 400 "$1" | tr '\n' ' '; }

deep_dir() {
	local d
	d=$(cd "$1" && pwd)/a-folder-named-at-length-as-deep-checkouts-are
	while [ ${#d} -lt 120 ]; do d=$d/and-deeper; done
	mkdir -p "$d" && echo "$d"
}

show_bugs() {
	local ids
	ids=$("$HEISEN" bugs --db "$1" --json | python3 -c '
import json, sys
print(" ".join(str(b["id"]) for b in json.load(sys.stdin)["bugs"]))')
	rm -f "$dir"/show.*
	for b in $ids; do
		"$HEISEN" show "$b" --db "$1" --json >"$dir/show.$b.json" ||
			bad "show $b --json: exit $?"
		"$HEISEN" show "$b" --db "$1" >"$dir/show.$b.txt" ||
			bad "show $b: exit $?"
	done
}

expect() {
	local want=$1 what=$2
	shift 2
	"$@" >"$dir/out" 2>"$dir/err"
	local got=$?
	[ "$got" -eq "$want" ] ||
		bad "$what: exit $got, expected $want: $(snippet "$dir/err")"
}

hq() {
	local name=$1
	shift
	timeout -s KILL 300 "$HEISEN" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
	rc=$?
}
want() {
	[ "$rc" -eq "$2" ] ||
		bad "$1: exit $rc, expected $2: $(snippet "$dir/$1.err") $(snippet "$dir/$1.out")"
}

make_flags=()
case "$HEISEN" in */build-asan/heisen) make_flags+=(SANITIZE=1) ;; esac

need_demos() {
	if ! make -s -C "$root" "${make_flags[@]}" demos >"$dir/make.log" 2>&1; then
		echo "  FAIL: make demos failed:"
		sed 's/^/    /' "$dir/make.log" | tail -20
		exit 1
	fi
}

tmux_session() {
	command -v tmux >/dev/null ||
		{ echo "  FAIL: tmux is missing (make deps installs it)"; exit 1; }
	need_demos
	heisen=$(cd "$(dirname "$HEISEN")" && pwd)/$(basename "$HEISEN")
	export TMUX_TMPDIR=$dir XDG_CACHE_HOME="$dir/cache" XDG_STATE_HOME="$dir/state"
	unset TMUX
	sock=heisen-$1-$$
	trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$dir"' EXIT
	scr=
}
tm() { tmux -L "$sock" "$@"; }
wait_for() {
	local deadline=$((SECONDS + 60))
	while :; do
		scr=$(tm capture-pane -p -t tui 2>/dev/null)
		grep -qE -- "$1" <<<"$scr" && return 0
		if [ $SECONDS -ge $deadline ]; then
			bad "$2: no /$1/ on the screen:"
			sed 's/^/      | /' <<<"$scr"
			return 1
		fi
		sleep 0.1
	done
}

# 77 is the automake convention for a skipped test. Checks that already
# failed still fail the test: a skip must not hide them.
skip() {
	echo "skipped: $*"
	if [ "$failures" -ne 0 ]; then
		echo "  FAIL: $failures check(s) failed before the skip"
		exit 1
	fi
	exit 77
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$1: $failures check(s) failed"
		exit 1
	fi
	exit 0
}
