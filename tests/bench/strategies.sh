#!/usr/bin/env bash
# Sweep strategies at an equal budget (the paper's section 5.4, the
# analysis issue's item 5): each racy demo is swept over the four
# profiles (densities 10:100:10, RUNS runs a cell, seed 3), then
# `heisen simulate` resamples its recorded runs into campaigns of 1/100,
# 1/30 and 1/10 of the time they took, under the four strategies:
# homogeneous (100 % on the default profile), density-diverse,
# profile-diverse and both.
#
#   tests/bench/strategies.sh BUILD_DIR [RUNS]      (RUNS default 30)
#
# Prints, per budget, a row per demo (mean bugs found per simulated
# campaign, of the bugs the whole sweep found) and the sums. A report
# only; it fails only when a sweep or a simulation cannot run.
set -uo pipefail

build=${1:?usage: tests/bench/strategies.sh BUILD_DIR [RUNS]}
runs=${2:-30}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/tests/bench/lib.sh"
heisen=$build/heisen
bench_scratch

echo
echo "strategies: mean bugs found by simulated campaigns of 1/100, 1/30 and 1/10 of the recorded"
echo "run time; each demo swept over 4 profiles x 10 densities x $runs runs (seed 3), 10000 trials"
for name in $bench_demos; do
	sweep_demo "$heisen" "$root" "$name" "$db" "$scratch/err" --seed 3 \
		--densities 10:100:10 --runs "$runs" \
		--profiles default,one-core,throttled,noisy ||
		{ echo "strategies.sh: sweep of $name failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
	# The recorded time, from simulate's own report.
	"$heisen" simulate --db "$db" --program "$name.wasm" --trials 1 --json \
		>"$scratch/$name.json" 2>"$scratch/err" ||
		{ echo "strategies.sh: simulate $name failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
	recorded=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["recorded_s"])' "$scratch/$name.json")
	for part in 100 30 10; do
		budget=$(python3 -c 'import sys; print(f"{float(sys.argv[1]) / int(sys.argv[2]):.6f}")' "$recorded" $part)
		"$heisen" simulate --db "$db" --program "$name.wasm" --budget "$budget" \
			--json >"$scratch/$name.$part.json" 2>"$scratch/err" ||
			{ echo "strategies.sh: simulate $name failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
	done
done
# shellcheck disable=SC2086
python3 - "$scratch" $bench_demos <<'EOF'
import json, sys
order = ("homogeneous", "density", "profile", "both")
for part in (100, 30, 10):
    print(f"\nbudget: 1/{part} of each demo's recorded run time\n")
    print("| demo | bugs | budget | " + " | ".join(order) + " |")
    print("|---|---|---|---|---|---|---|")
    total = dict.fromkeys(order, 0.0)
    bugs = 0
    for name in sys.argv[2:]:
        d = json.load(open(f"{sys.argv[1]}/{name}.{part}.json"))
        mean = {s["strategy"]: s["mean"] for s in d["strategies"] if not s["empty"]}
        bugs += d["bugs"]
        for s in order:
            total[s] += mean.get(s, 0.0)
        cells = " | ".join(f"{mean[s]:.2f}" if s in mean else "-" for s in order)
        print(f"| {name} | {d['bugs']} | {d['budget_s']:.3f} s | {cells} |")
    print(f"| all | {bugs} | | " + " | ".join(f"{total[s]:.2f}" for s in order) + " |")
    best = max(order, key=lambda s: total[s])
    ratio = f"{total['both'] / total['homogeneous']:.2f}x" if total["homogeneous"] else "-"
    print(f"\nmost bugs: {best} ({total[best]:.2f} of {bugs}); both against homogeneous: {ratio}")
EOF
