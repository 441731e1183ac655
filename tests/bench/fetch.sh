#!/usr/bin/env bash
# Fetch benchmark (run by tests/bench/run.sh, i.e. `make bench`; also
# alone): how long `heisen fetch` takes to bring 100 000 runs home from a
# node, through a real ssh to an sshd on loopback (tests/e2e/lib_sshd.sh).
#
#   tests/bench/fetch.sh BUILD_DIR [RUNS]      (RUNS default 100000)
#
# The node's workspace is written by db_fill --runs (a sweep's shape: one
# run in ten detecting one of 7 bugs), not by running the runs. Each
# fetch goes into a new home workspace, so each brings every run: best of
# 3, wall clock of the whole command (ssh's connection and login, export
# on the node, the stream over loopback, the check and import at home).
# Goal: <= 5 s. Beside it, for where the time goes, `heisen export -o`
# and `heisen import FILE` of the same runs alone on this machine, best of
# 3 each. Loopback has no network to speak of: a real link adds the
# stream's bytes over its bandwidth. Skipped (exit 0) where no sshd can
# start. A report only: it fails only when a fetch does not bring every
# run.
set -uo pipefail

build=${1:?usage: tests/bench/fetch.sh BUILD_DIR [RUNS]}
n=${2:-100000}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/tests/bench/lib.sh"
fill=$build/tests/e2e/db_fill
heisen=$(cd "$build" && pwd)/heisen
for tool in "$fill" "$heisen"; do
	if [ ! -x "$tool" ]; then
		echo "bench: $tool not built (run: make bench)" >&2
		exit 2
	fi
done
bench_scratch

# What lib_sshd.sh takes from lib.sh: a folder, the heisen to serve, and
# how to give up without failing (here, without failing `make bench`).
# shellcheck disable=SC2034 # read by lib_sshd.sh
dir=$scratch HEISEN=$heisen
skip() {
	echo "bench: fetch skipped: $*" >&2
	exit 0
}
. "$root/tests/e2e/lib_sshd.sh"
sshd_start node

node_db=$scratch/node.db
if ! HEISEN_NODE=node "$fill" "$node_db" --runs "$n" >"$scratch/err" 2>&1; then
	echo "fetch.sh: db_fill failed: $(head -c 300 "$scratch/err")" >&2
	exit 3
fi

# fetch_once I: a new home (the I-th), one fetch of every run; prints
# its seconds and the stream's bytes.
fetch_once() {
	local home=$scratch/home$1.db t0 t1
	"$heisen" node add node "ssh://$ssh_user@127.0.0.1:$sshd_port$node_db" \
		--db "$home" >/dev/null 2>"$scratch/err" || return 1
	t0=$(date +%s.%N)
	"$heisen" fetch node --db "$home" --json >"$scratch/fetch.json" 2>"$scratch/err" ||
		return 1
	t1=$(date +%s.%N)
	python3 - "$scratch/fetch.json" "$n" "$t0" "$t1" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))["nodes"][0]
assert f["ok"] and f["runs_added"] == int(sys.argv[2]), f
print(f"{float(sys.argv[4]) - float(sys.argv[3]):.6f} {f['bytes']}")
EOF
}

best=
for i in 1 2 3; do
	if ! r=$(fetch_once "$i"); then
		echo "fetch.sh: fetch failed: $(head -c 300 "$scratch/err") $(head -c 300 "$scratch/fetch.json")" >&2
		exit 3
	fi
	read -r t bytes <<<"$r"
	best=$(awk -v a="$t" -v b="$best" 'BEGIN { printf "%.6f", (b == "" || a < b + 0) ? a : b }')
done

if ! t_export=$(best_of_3 "$scratch/out" "$heisen" export --db "$node_db" -o "$scratch/s.hsync"); then
	echo "fetch.sh: export failed: $(head -c 300 "$scratch/out")" >&2
	exit 3
fi
# Each import into a workspace of its own, new: the counter names it.
imports=0
import_new() {
	imports=$((imports + 1))
	"$heisen" import "$scratch/s.hsync" --db "$scratch/import$imports.db"
}
if ! t_import=$(best_of_3 "$scratch/out" import_new); then
	echo "fetch.sh: import failed: $(head -c 300 "$scratch/out")" >&2
	exit 3
fi

row() { # WHAT SECONDS GOAL
	awk -v w="$1" -v s="$2" -v n="$n" -v g="$3" \
		'BEGIN { printf "| %s | %.2f s | %.0f | %s |\n", w, s, n / s, g }'
}
echo
echo "fetch of $n runs ($bytes bytes of stream) from a node over ssh to an sshd on 127.0.0.1;"
echo "best of 3, each into a new workspace; export and import alone for where the time goes"
echo
echo "| what | time | runs/s | goal |"
echo "|---|---|---|---|"
row "heisen fetch of $n runs" "$best" "<= 5 s"
row "heisen export -o FILE alone" "$t_export" ""
row "heisen import FILE alone (new workspace)" "$t_import" ""
