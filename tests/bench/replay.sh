#!/usr/bin/env bash
# Reproduction rates: for every bug a sweep (20 densities x 20 runs on the
# profile default, seed 1) of each racy demo finds, `heisen replay` in the
# three modes, RUNS runs each, against the detectability of the cell the
# bug was first logged in (its first detecting run's profile and density).
#
#   tests/bench/replay.sh BUILD_DIR [RUNS]      (RUNS default 100)
#
# Prints one row per bug and a summary: the lowest trigger rate (goal:
# at least 99 % for every bug), and how many pinned rates reach the
# original cell's detectability within its 95 % interval (pinned's upper
# bound at least the cell's lower bound). A report only; it fails only
# when a sweep or a replay cannot run.
set -uo pipefail

build=${1:?usage: tests/bench/replay.sh BUILD_DIR [RUNS]}
runs=${2:-100}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/tests/bench/lib.sh"
heisen=$build/heisen
bench_scratch

echo
echo "reproduction: heisen replay BUG --mode M --runs $runs, every bug of a sweep (20 densities x 20 runs, profile default) of the racy demos"
echo
echo "| demo | bug | kinds | original cell | pinned | minimal | trigger |"
echo "|---|---|---|---|---|---|---|"
t0=$(date +%s.%N)
for name in $bench_demos; do
	sweep_demo "$heisen" "$root" "$name" "$db" "$scratch/err" --seed 1 \
		--profiles default --runs 20 ||
		{ echo "replay.sh: sweep of $name failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
done
bugs=$(sqlite3 -separator ' ' "$db" "SELECT b.id, p.name FROM bugs b JOIN programs p ON p.id = b.program_id ORDER BY b.id")
while read -r bug prog; do
	row="| ${prog%.wasm} | $bug"
	for mode in pinned minimal trigger; do
		"$heisen" replay "$bug" --db "$db" --mode $mode --runs "$runs" \
			--json >"$scratch/$mode.json" 2>"$scratch/err"
		rc=$?
		if [ $rc -gt 1 ]; then
			echo "replay.sh: replay $bug --mode $mode: exit $rc: $(head -c 300 "$scratch/err")" >&2
			exit 3
		fi
	done
	row=$(python3 - "$scratch" "$row" <<'EOF'
import json, sys
d = {m: json.load(open(f"{sys.argv[1]}/{m}.json")) for m in ("pinned", "minimal", "trigger")}
letter = {"read": "R", "write": "W", "range-read": "R", "range-write": "W"}
k = "/".join(letter.get(s["kind"], "A") for s in d["pinned"]["sites"])
o = d["pinned"]["original"]
def pct(x):
    return f'{100 * x["rate"]:.1f} % [{100 * x["interval"][0]:.1f}, {100 * x["interval"][1]:.1f}]'
cell = f'{o["profile"]} {o["density_bp"] / 100:g} %: {o["detected"]}/{o["runs"]} = {pct(o)}'
print(f'{sys.argv[2]} | {k} | {cell} | {pct(d["pinned"])} | {pct(d["minimal"])} | {pct(d["trigger"])} |')
meets = d["pinned"]["interval"][1] >= o["interval"][0]
with open(f"{sys.argv[1]}/summary", "a") as f:
    f.write(f'{d["trigger"]["rate"]} {int(meets)}\n')
EOF
)
	echo "$row"
done <<<"$bugs"
t1=$(date +%s.%N)
awk -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
	{ n++; if (min == "" || $1 < min) min = $1; if ($1 >= 0.99) ok++; meets += $2 }
	END {
		printf "\n%d bugs; trigger: lowest rate %.1f %%, %d of %d at 99 %% or more (goal: all); ", n, 100 * min, ok, n
		printf "pinned within the original cell'"'"'s interval or above: %d of %d; %.0f s in all\n", meets, n, t
	}' "$scratch/summary"
