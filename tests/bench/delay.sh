#!/usr/bin/env bash
# How the probe delay trades detection against speed: the measurement
# behind DET_DEFAULT_DELAY (detector/race.h; README "Choosing the delay").
#
#   tests/bench/delay.sh BUILD_DIR [DELAYS]     (DELAYS default "0 20 50 100 200 500")
#
# For each delay, a sweep of 20 densities x 20 runs on the profile default
# (--jobs 2, seed 1: sweep's default before it spread its runs over every
# profile, kept so that the figures compare) of every racy demo; per
# delay: the share of runs that detected one of the demo's intended races
# (its header's "race:" lines), how many intended races were found, wall
# time, and detecting runs per second (what a campaign's budget buys). A
# report only; it fails only on a failed sweep.
set -uo pipefail

build=${1:?usage: tests/bench/delay.sh BUILD_DIR [DELAYS]}
delays=${2:-0 20 50 100 200 500}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
heisen=$build/heisen
scratch=$(mktemp -d) || exit 3
trap 'rm -rf "$scratch"' EXIT
export XDG_CACHE_HOME=$scratch/cache

demos="fibonacci fibonacci-lock lock-free-queue antidep indirectaccess comp-opt-bug comp-unopt-bug input-dep"
echo
echo "probe delay (spin units) against detection: sweeps (20 densities x 20 runs, profile default) of the racy demos"
echo
echo "| delay | runs | runs detecting an intended race | intended races found | wall | detecting runs/s |"
echo "|---|---|---|---|---|---|"
for d in $delays; do
	db=$scratch/d$d.db
	t0=$(date +%s.%N)
	for name in $demos; do
		src=$root/demos/$name.c tag=race
		case $name in
		comp-opt-bug) src=$root/demos/comp-bug.c tag=race-O2 ;;
		comp-unopt-bug) src=$root/demos/comp-bug.c tag=race-O0 ;;
		esac
		args=$(sed -n 's/^ \* args: *//p' "$src")
		sed -n "s/^ \* \(race\|$tag\): *//p" "$src" >"$scratch/$name.races"
		# shellcheck disable=SC2086
		"$heisen" sweep "$root/demos/build/$name.wasm" --db "$db" --seed 1 \
			--profiles default --runs 20 --jobs 2 --delay "$d" -- $args >/dev/null 2>"$scratch/err" ||
			{ echo "sweep of $name failed: $(head -c 300 "$scratch/err")"; exit 1; }
	done
	t1=$(date +%s.%N)
	python3 - "$db" "$scratch" "$d" "$t0" "$t1" $demos <<'EOF'
import os, sqlite3, sys
db, scratch, delay, t0, t1 = sys.argv[1:6]
names = sys.argv[6:]
c = sqlite3.connect(db)
runs = detecting = found = wanted = 0
for name in names:
    want = [frozenset(l.split()) for l in open(os.path.join(scratch, name + ".races")) if l.strip()]
    wanted += len(want)
    prog = c.execute("select id from programs where name=?", (name + ".wasm",)).fetchone()[0]
    bugs = {}
    for bid, fa, la, fb, lb in c.execute(
            "select id, file_a, line_a, file_b, line_b from bugs where program_id=?", (prog,)):
        key = frozenset(["%s:%s" % (os.path.basename(fa or "?"), la),
                         "%s:%s" % (os.path.basename(fb or "?"), lb)])
        if key in want:
            bugs[bid] = key
    found += len(set(bugs.values()))
    runs += c.execute("select count(*) from runs r join campaigns k on r.campaign_id=k.id "
                      "where k.program_id=?", (prog,)).fetchone()[0]
    if bugs:
        q = "select count(distinct run_id) from run_bugs where bug_id in (%s)" % ",".join(map(str, bugs))
        detecting += c.execute(q).fetchone()[0]
wall = float(t1) - float(t0)
print("| %s | %d | %.1f %% | %d of %d | %.1f s | %.1f |" % (
    delay, runs, 100.0 * detecting / runs, found, wanted, wall, detecting / wall))
EOF
done
