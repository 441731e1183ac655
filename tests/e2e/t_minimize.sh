#!/usr/bin/env bash
# `heisen minimize`: on the lost-update demo (exits 1 when a racing
# deposit loses an update, almost never without a delay), with serial
# runs, the set found contains the racing write, with fewer runs than a
# blind search of random subsets of its size would need; the same
# through an output pattern; the result saved as a repro file replays
# serially with `heisen replay --file`, failing in the runs the check
# failed in; a sampled search reports soundly; a program that never
# fails ends with exit 1; bad input is one message and exit 2.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 3
w=$root/demos/build/lost-update.wasm
write_line=$(grep -n 'heisen:site write balance' "$root/demos/lost-update.c" | cut -d: -f1)

# check JSON: the set contains the write and beat the blind search
# (status 1 and the reason printed when not).
check() {
	python3 - "$1" "$write_line" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
line = int(sys.argv[2])
assert d["schema"] == "heisen.minimize/1"
assert d["found"], "no set found"
lines = [(s["file"] or "").endswith("lost-update.c") and s["line"] for s in d["sites"]]
assert line in lines, f"the write (line {line}) is not in {d['sites']}"
assert len(d["sites"]) <= 3, "more than 3 sites"
assert d["check"]["failed"] > 0, "the set never failed in its check"
assert d["runs"] < d["random_search_runs"], \
    f'{d["runs"]} runs, a blind search {d["random_search_runs"]}'
print(f'  found {[s["site"] for s in d["sites"]]} in {d["runs"]} runs; '
      f'blind search {d["random_search_runs"]:.0f}; check {d["check"]["failed"]}/{d["check"]["runs"]}')
EOF
}

# Serial runs (--schedule): only armed sites switch threads, so the
# search and its result do not depend on the machine's load.
"$HEISEN" minimize "$w" --schedule random --seed 1 --json --failure exit:1 \
	--save lu.repro -- check >exit.json 2>exit.err ||
	bad "minimize --schedule --failure exit:1: exit $?: $(snippet exit.err)"
check exit.json || bad "minimize --schedule --failure exit:1: $(head -c 300 exit.json)"
grep -q '^mode = failure$' lu.repro && grep -q '^failure = exit:1$' lu.repro &&
	grep -q '^arg = check$' lu.repro && grep -q '^sched_strategy = random:0.05$' lu.repro ||
	bad "repro file: $(snippet lu.repro)"
# The replay's runs draw the check's schedules: the same failures.
"$HEISEN" replay --file lu.repro "$w" --runs 20 --json >r.json 2>r.err
rc=$?
[ $rc -le 1 ] || bad "replay of the minimize repro: exit $rc: $(snippet r.err)"
python3 - r.json exit.json <<'EOF' || bad "replay of the minimize repro: $(snippet r.json)"
import json, sys
r, m = (json.load(open(f)) for f in sys.argv[1:3])
assert r["mode"] == "failure" and r["runs"] == 20 and r["delay_sites"], r
assert r["serial"]["strategy"] == "random:0.05", r["serial"]
assert r["reproduced"] == m["check"]["failed"], (r["reproduced"], m["check"])
EOF
grep -v '^sched_seed' lu.repro >edited.repro
"$HEISEN" replay --file edited.repro "$w" --runs 1 >/dev/null 2>edited.err
[ $? -eq 2 ] && grep -q "sched_seed" edited.err ||
	bad "a serial repro without its seed: $(snippet edited.err)"

"$HEISEN" minimize "$w" --schedule pct:2 --seed 2 --json \
	--failure 'stdout:^lost update$' -- check >out.json 2>out.err ||
	bad "minimize --schedule --failure stdout:REGEX: exit $?: $(snippet out.err)"
check out.json || bad "minimize --schedule --failure stdout:REGEX: $(head -c 300 out.json)"

# Sampled runs (the default): what the search finds depends on the load
# of the machine (a delay at an unrelated site can shift the threads into
# a lost update too), so only its report is checked here.
"$HEISEN" minimize "$w" --seed 3 --repeat 2 --json --failure exit:1 \
	--save sampled.repro -- check >sampled.json 2>sampled.err
rc=$?
[ $rc -le 1 ] || bad "minimize (sampled): exit $rc: $(snippet sampled.err)"
python3 - sampled.json $rc <<'EOF' || bad "minimize (sampled): $(snippet sampled.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.minimize/1" and d["schedule"] is None
assert d["found"] == (sys.argv[2] == "0"), d
assert not d["found"] or 1 <= len(d["sites"]) and d["check"]["runs"] == 20
EOF
if [ -e sampled.repro ]; then
	grep -q '^sched_strategy' sampled.repro && bad "a sampled repro names a schedule"
fi

# A program that does not fail: exit 1, and a message that says why.
"$HEISEN" minimize "$root/demos/build/control-mutex.wasm" --failure trap \
	>never.out 2>never.err
[ $? -eq 1 ] && grep -q "never appeared" never.out ||
	bad "a program that never fails: $(snippet never.out) $(snippet never.err)"

expect2() { # NAME CMD...
	local name=$1
	shift
	"$@" >b.out 2>b.err
	[ $? -eq 2 ] || bad "$name: exit $?, expected 2"
	[ -s b.err ] || bad "$name: no message"
}
expect2 no-failure "$HEISEN" minimize "$w"
expect2 bad-failure "$HEISEN" minimize "$w" --failure crash
expect2 bad-exit "$HEISEN" minimize "$w" --failure exit:999
expect2 bad-regex "$HEISEN" minimize "$w" --failure 'stdout:(unclosed'
expect2 bad-groups "$HEISEN" minimize "$w" --failure trap --groups 9
expect2 bad-schedule "$HEISEN" minimize "$w" --failure trap --schedule sometimes
expect2 fixed-schedule "$HEISEN" minimize "$w" --failure trap --schedule fixed
expect2 schedule-profile "$HEISEN" minimize "$w" --failure trap --schedule random --profile default
expect2 not-wasm "$HEISEN" minimize exit.json --failure trap

finish t_minimize
