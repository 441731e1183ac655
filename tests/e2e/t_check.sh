#!/usr/bin/env bash
# `heisen check` (happens-before race detection, docs/check.md) end to end:
#   (a) one run of each racy demo reports every race its header names:
#       "* race:" lines (a collision sweep finds those too) and "* hb-race:"
#       lines (two accesses far apart in time, which only happens-before
#       sees); comp-bug.c's two builds add their "race-O2:"/"race-O0:" lines
#       as in t_sweep.sh;
#   (b) the race-free controls (demos/control-*.c) and the hb-ok-* guests
#       (tests/e2e/guests/), one per primitive of the guest library, report
#       no race in 3 runs;
#   (c) the hostile guests (10 000 threads; memory grown while threads run)
#       end with status ok and no race; one that traps mid-run is recorded
#       as a trap, with no race;
#   (d) the plain report has ThreadSanitizer's shape;
#   (e) --fail-on-bugs gives 1 on a race and 0 without; bad usage gives 2,
#       a message on stderr, nothing on stdout and no workspace;
#   (f) the runs are a campaign of kind check, and each bug says which
#       detector found it: hb, collision (a sweep) or both;
#   (g) call stacks: a racing store in a helper called from two places
#       (guests/hb-helper.c) names the caller each thread came through
#       (the later access's from its probe, the earlier one's from its
#       thread's trace), in check's report, its JSON and `heisen show`; races on
#       bytes of memory.copy/fill ranges past their first byte are found.
. "$(dirname "$0")/lib.sh"
need_demos
# A command that ignored --db would write ./heisen.db: let it land here.
cd "$dir" || exit 1
unset HEISEN_DB

build=$root/demos/build
# Generous: each of these programs runs in well under a second; only a
# check that hangs or crawls gets near it.
runtime=(--timeout 60)

# hc OUT ERR ARGS...: heisen ARGS, stdout to OUT and stderr to ERR,
# leaving rc. KILL, not TERM: a hung check must not hang the suite (137).
hc() {
	local out=$1 err=$2
	shift 2
	timeout -s KILL 300 "$HEISEN" "$@" >"$out" 2>"$err"
	rc=$?
}

# The checks of a heisen.check/1 document:
#   hb.py valid FILE PROGRAM RUNS          the schema, nothing more
#   hb.py races FILE PROGRAM RUNS RACES    ... and every race of RACES
#                                          ("a.c:1 b.c:2" lines) is there,
#                                          as an unordered pair of
#                                          basename:line, every run ok
#   hb.py none FILE PROGRAM RUNS           ... no race, every run ok
cat >"$dir/hb.py" <<'EOF'
import json, os, re, sys

LETTER = {"read": "R", "write": "W", "range-read": "R", "range-write": "W",
          "atomic-read": "A", "atomic-write": "A", "atomic-rmw": "A"}


def pair(race):
    return frozenset("%s:%s" % (os.path.basename(s["file"] or "?"), s["line"])
                     for s in race["sites"])


def load(path, program, runs):
    d = json.load(open(path))
    assert d.get("schema") == "heisen.check/1", "schema %r" % d.get("schema")
    assert d["program"] == program, "program %r, want %r" % (d["program"], program)
    assert isinstance(d["campaign"], int) and d["campaign"] > 0, d["campaign"]
    assert d["runs"] == runs, "runs %r, want %d" % (d["runs"], runs)
    st = d["statuses"]
    assert all(isinstance(n, int) and n > 0 for n in st.values()), \
        "statuses %r: only those that occurred, with their counts" % st
    assert sum(st.values()) == runs, "statuses %r for %d runs" % (st, runs)
    for r in d["races"]:
        what = "race %r" % r
        assert isinstance(r["bug"], int) and r["bug"] > 0, what
        assert 1 <= r["runs"] <= runs, what
        sites = r["sites"]
        assert len(sites) == 2, what
        for s in sites:
            for k in ("kind", "width", "function", "file", "line"):
                assert k in s, "%s: site without %r" % (what, k)
            assert isinstance(s.get("site", s.get("id")), int), \
                "%s: site without its id" % what
        assert re.fullmatch("[RWA]/[RWA]", r["kinds"]), what
        assert r["kinds"] == "%s/%s" % tuple(LETTER.get(s["kind"], "?")
                                             for s in sites), \
            "%s: kinds do not match the sites' kinds" % what
        # A race has a write, and is not two atomics.
        assert r["kinds"] not in ("R/R", "A/A"), what
        f = r["first"]
        assert len(f["tid"]) == 2 and len(f["addr"]) == 2, what
        assert f["tid"][0] != f["tid"][1], "%s: one thread" % what
        if "run" in f:
            assert 1 <= f["run"] <= runs, what
        w = [max(s["width"] or 0, 1) for s in sites]
        a = f["addr"]
        assert a[0] < a[1] + w[1] and a[1] < a[0] + w[0], \
            "%s: the two accesses do not overlap" % what
    return d


def main():
    mode, path, program, runs = sys.argv[1:5]
    runs = int(runs)
    try:
        d = load(path, program, runs)
        if mode in ("races", "none"):
            assert d["statuses"] == {"ok": runs}, "statuses %r" % d["statuses"]
    except (AssertionError, KeyError, TypeError, ValueError) as e:
        sys.exit("bad heisen.check/1 document: %s %s" % (type(e).__name__, e))
    got = set(pair(r) for r in d["races"])
    shown = sorted(" ".join(sorted(g)) for g in got)
    if mode == "races":
        missing = [r for r in sys.argv[5].strip().splitlines()
                   if frozenset(r.split()) not in got]
        if missing:
            sys.exit("not reported: %s; reported: %s" % (missing, shown))
    elif mode == "none" and got:
        sys.exit("races reported: %s" % shown)


main()
EOF
hb() { python3 "$dir/hb.py" "$@"; }

# ---- (a) every racy demo, one run ---------------------------------------------

# races_of SRC TAG: the races SRC's header names for the build TAG stands
# for, one "file:line file:line" a line ("race: none" in a control is none).
races_of() {
	sed -n "s/^ \* \(race\|hb-race\|$2\): *//p" "$1" | grep -v '^none$'
}

# Races whose two accesses every run executes must be in the one run. In
# fibonacci the threads share the loop counter: a thread that ends the
# loop before its partner leaves the barrier leaves the partner's writes
# unexecuted, and their races with them. Check's default profile makes
# threads take turns, but its loop's probes mostly repeat an epoch and
# are tested inline, so the loop can end before a loaded machine wakes
# the partner (1 to 3 runs in 100 idle, more under ASan): a miss gets up
# to three more runs.
second_chance=" fibonacci "

racy=0 hb_only=0
for src in "$root"/demos/*.c; do
	name=$(basename "$src" .c)
	case $name in
	comp-bug) builds="comp-opt-bug:race-O2 comp-unopt-bug:race-O0" ;;
	*) builds="$name:race" ;;
	esac
	grep -q '^ \* hb-race:' "$src" && hb_only=$((hb_only + 1))
	args=$(sed -n 's/^ \* args: *//p' "$src")
	for b in $builds; do
		prog=${b%%:*}
		races=$(races_of "$src" "${b#*:}")
		[ -n "$races" ] || continue
		racy=$((racy + 1))
		for try in 1 2 3 4; do
			# shellcheck disable=SC2086
			hc "$dir/$prog.json" "$dir/$prog.err" check "$build/$prog.wasm" \
				--runs 1 --json --db "$dir/racy.db" "${runtime[@]}" \
				${args:+-- $args}
			if [ "$rc" -ne 0 ]; then
				bad "$prog: check exit $rc: $(snippet "$dir/$prog.err")"
				break
			fi
			hb races "$dir/$prog.json" "$prog.wasm" 1 "$races" \
				>"$dir/why" 2>&1 && break
			[ "$try" -lt 4 ] && [[ $second_chance == *" $prog "* ]] &&
				continue
			bad "$prog: one run: $(snippet "$dir/why")"
			break
		done
	done
done
[ "$racy" -ge 10 ] || bad "only $racy racy demo builds found in $root/demos"
[ "$hb_only" -ge 3 ] || bad "only $hb_only demos with 'hb-race:' lines"

# ---- (b) race-free programs, three runs ---------------------------------------

n=0
for src in "$root"/demos/control-*.c "$root"/tests/e2e/guests/hb-ok-*.c; do
	name=$(basename "$src" .c)
	case $src in
	*/guests/*) wasm=$build/guests/$name.wasm ;;
	*) wasm=$build/$name.wasm ;;
	esac
	n=$((n + 1))
	hc "$dir/$name.json" "$dir/$name.err" check "$wasm" --runs 3 --json \
		--db "$dir/clean.db" "${runtime[@]}"
	if [ "$rc" -ne 0 ]; then
		bad "$name: check exit $rc: $(snippet "$dir/$name.err")"
		continue
	fi
	hb none "$dir/$name.json" "$name.wasm" 3 >"$dir/why" 2>&1 ||
		bad "$name: 3 runs: $(snippet "$dir/why")"
done
[ "$n" -ge 14 ] || bad "only $n race-free programs found (3 controls, 11 hb-ok guests expected)"

# ---- (c) hostile guests ---------------------------------------------------------

# hb-many-threads takes seconds under plain `heisen run` already (10 000
# spawns): a long timeout, so that a slow machine does not fail it.
for name in hb-many-threads hb-grow; do
	hc "$dir/$name.json" "$dir/$name.err" check "$build/guests/$name.wasm" \
		--runs 1 --json --db "$dir/clean.db" --timeout 240
	if [ "$rc" -ne 0 ]; then
		bad "$name: check exit $rc: $(snippet "$dir/$name.err")"
		continue
	fi
	hb none "$dir/$name.json" "$name.wasm" 1 >"$dir/why" 2>&1 ||
		bad "$name: $(snippet "$dir/why")"
done
# The same 10 000 threads one at a time (a serial run: every thread a
# stack of its own on one OS thread, the ended ones' stacks given back).
hc "$dir/many-serial.json" "$dir/many-serial.err" check \
	"$build/guests/hb-many-threads.wasm" --schedule random:0.05 \
	--schedule-seed 1 --json --db "$dir/clean.db" --timeout 240
if [ "$rc" -ne 0 ]; then
	bad "hb-many-threads, serial: check exit $rc: $(snippet "$dir/many-serial.err")"
else
	hb none "$dir/many-serial.json" hb-many-threads.wasm 1 >"$dir/why" 2>&1 ||
		bad "hb-many-threads, serial: $(snippet "$dir/why")"
fi

# A program that traps mid-run (a thread hits unreachable while the other
# works): each run is recorded as a trap, the check goes on, no race.
hc "$dir/trap.json" "$dir/trap.err" check "$build/guests/trap.wasm" --runs 3 \
	--json --db "$dir/clean.db" "${runtime[@]}"
if [ "$rc" -ne 0 ]; then
	bad "trap: check exit $rc: $(snippet "$dir/trap.err")"
else
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["statuses"] == {"trap": 3}, d["statuses"]
assert d["races"] == [], d["races"]
' "$dir/trap.json" 2>"$dir/why" || bad "trap: $(snippet "$dir/why")"
fi

# ---- (d) the plain report -------------------------------------------------------

# early-read has one race: the parent's read (line 69) and the helper's
# store (line 55) of its result.
hc "$dir/plain.out" "$dir/plain.err" check "$build/early-read.wasm" --runs 1 \
	--db "$dir/plain.db" "${runtime[@]}"
if [ "$rc" -ne 0 ]; then
	bad "plain report: check exit $rc: $(snippet "$dir/plain.err")"
else
	python3 - "$dir/plain.out" >"$dir/why" 2>&1 <<'EOF' ||
import os, re, sys
# One line per failure, for the test's message.
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
text = open(sys.argv[1]).read()
blocks = text.split("WARNING: heisen: data race")[1:]
assert len(blocks) == 1, "%d WARNING lines, want 1" % len(blocks)
lines = blocks[0].splitlines()
access = re.compile(r"\s+(.*) of size (\d+) at 0x[0-9a-fA-F]+ by thread (\d+):$")
frame = re.compile(r"\s+#0 (\S+) (\S+):(\d+)(\s.*)?$")
frames, threads, summary = [], [], None
for i, l in enumerate(lines):
    m = access.match(l)
    if m:
        assert re.search("read|write", m.group(1), re.I), "access %r" % l
        threads.append(m.group(3))
        f = frame.match(lines[i + 1]) if i + 1 < len(lines) else None
        assert f, "no '#0 FUNC FILE:LINE' frame after %r" % l
        frames.append((f.group(1), os.path.basename(f.group(2)), f.group(3)))
    m = re.match(r"SUMMARY: heisen: data race (\S+):(\d+) in (\S+)$", l)
    if m:
        summary = (m.group(3), os.path.basename(m.group(1)), m.group(2))
assert len(frames) == 2, "%d accesses, want 2" % len(frames)
assert threads[0] != threads[1], "both accesses by thread %s" % threads[0]
got = sorted("%s:%s" % (f, l) for _, f, l in frames)
assert got == ["early-read.c:55", "early-read.c:69"], "accesses at %s" % got
assert summary, "no 'SUMMARY: heisen: data race FILE:LINE in FUNC' line"
assert summary in frames, "SUMMARY %s names neither access %s" % (summary, frames)
EOF
		bad "plain report: $(snippet "$dir/why") -- output: $(snippet "$dir/plain.out")"
fi

# ---- (e) exit codes -------------------------------------------------------------

hc "$dir/fail.out" "$dir/fail.err" check "$build/early-read.wasm" --runs 1 \
	--fail-on-bugs --db "$dir/fail.db" "${runtime[@]}"
[ "$rc" -eq 1 ] || bad "--fail-on-bugs on early-read: exit $rc, want 1: $(snippet "$dir/fail.err")"
hc "$dir/fail.out" "$dir/fail.err" check "$build/control-mutex.wasm" --runs 1 \
	--fail-on-bugs --db "$dir/fail.db" "${runtime[@]}"
[ "$rc" -eq 0 ] || bad "--fail-on-bugs on control-mutex: exit $rc, want 0: $(snippet "$dir/fail.err")"

printf 'not a module\n' >"$dir/text.wasm"
# usage LABEL ARGS...: check ARGS is exit 2, a message, no output, and
# no workspace created.
usage() {
	local label=$1
	shift
	rm -f "$dir/usage.db"
	hc "$dir/usage.out" "$dir/usage.err" check "$@" --db "$dir/usage.db"
	[ "$rc" -eq 2 ] || bad "$label: exit $rc, want 2: $(snippet "$dir/usage.err")"
	[ -s "$dir/usage.err" ] || bad "$label: no message on stderr"
	[ -s "$dir/usage.out" ] && bad "$label: output on stdout: $(snippet "$dir/usage.out")"
	[ -e "$dir/usage.db" ] && bad "$label: created the workspace"
}
usage "--runs 0" "$build/early-read.wasm" --runs 0
usage "a missing file" "$dir/no-such.wasm" --runs 1
usage "an unknown option" "$build/early-read.wasm" --no-such-option
usage "not a module" "$dir/text.wasm" --runs 1

# ---- (f) the workspace: campaign kind, found_by ---------------------------------

fdb=$dir/found.db
hc "$dir/f.json" "$dir/f.err" check "$build/fibonacci.wasm" --runs 2 --json \
	--db "$fdb" "${runtime[@]}"
[ "$rc" -eq 0 ] || bad "fibonacci: check exit $rc: $(snippet "$dir/f.err")"
hb valid "$dir/f.json" fibonacci.wasm 2 >"$dir/why" 2>&1 ||
	bad "fibonacci: $(snippet "$dir/why")"

# bugs_json OUT: heisen bugs --json of the workspace.
bugs_json() {
	hc "$1" "$dir/bugs.err" bugs --db "$fdb" --json
	[ "$rc" -eq 0 ] || bad "bugs --json: exit $rc: $(snippet "$dir/bugs.err")"
}

# Before any sweep, every bug was found by check alone, and they are
# check's races, under the same ids.
bugs_json "$dir/bugs1.json"
python3 - "$dir/f.json" "$dir/bugs1.json" >"$dir/why" 2>&1 <<'EOF' ||
import json, sys
# One line per failure, for the test's message.
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
check = json.load(open(sys.argv[1]))
bugs = json.load(open(sys.argv[2]))["bugs"]
assert check["races"], "check of fibonacci found no race"
want = {r["bug"]: sorted(s.get("site", s.get("id")) for s in r["sites"])
        for r in check["races"]}
got = {b["id"]: sorted(s["site"] for s in b["sites"]) for b in bugs}
assert got == want, "bugs %s, check's races %s" % (got, want)
wrong = [(b["id"], b.get("found_by")) for b in bugs if b.get("found_by") != "hb"]
assert not wrong, "found_by, want hb: %s" % wrong
EOF
	bad "bugs after check: $(snippet "$dir/why")"

# A serial sweep of one run at density 100 catches some of the same races
# meeting (serial: an armed thread sleeps while the other runs, so it
# does on a loaded machine too). found_by must then follow from which
# campaigns' runs saw each bug (heisen runs C --bug B).
hc "$dir/sw.json" "$dir/sw.err" sweep "$build/fibonacci.wasm" --db "$fdb" \
	--runs 1 --densities 100 --schedule random --seed 1 --json
[ "$rc" -eq 0 ] || bad "fibonacci: sweep exit $rc: $(snippet "$dir/sw.err")"
bugs_json "$dir/bugs2.json"
hc "$dir/camps.json" "$dir/camps.err" campaigns --db "$fdb" --json
[ "$rc" -eq 0 ] || bad "campaigns --json: exit $rc: $(snippet "$dir/camps.err")"
HEISEN="$HEISEN" python3 - "$fdb" "$dir/f.json" "$dir/camps.json" \
	"$dir/bugs2.json" >"$dir/why" 2>&1 <<'EOF' || bad "found_by: $(snippet "$dir/why")"
import json, os, subprocess, sys
# One line per failure, for the test's message.
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
db, check, camps, bugs = sys.argv[1:5]
check = json.load(open(check))
camps = json.load(open(camps))["campaigns"]
bugs = json.load(open(bugs))["bugs"]

kinds = sorted(c.get("kind") for c in camps)
assert kinds == ["check", "sweep"], "campaign kinds %s" % kinds
c = [c for c in camps if c["kind"] == "check"][0]
assert c["id"] == check["campaign"], "check campaign %s, want %s" % (c["id"], check["campaign"])
assert c["program"] == "fibonacci.wasm", c
assert c["runs_done"] == 2, "check campaign: %s runs, want 2" % c["runs_done"]
assert c["status"] == "done", "check campaign: status %s" % c["status"]


def saw(campaign, bug):
    out = subprocess.run([os.environ["HEISEN"], "runs", str(campaign), "--bug",
                          str(bug), "--db", db, "--json"], check=True,
                         stdout=subprocess.PIPE).stdout
    return bool(json.loads(out)["runs"])


both = 0
for b in bugs:
    hb = any(saw(c["id"], b["id"]) for c in camps if c["kind"] == "check")
    coll = any(saw(c["id"], b["id"]) for c in camps if c["kind"] == "sweep")
    want = {(True, True): "both", (True, False): "hb",
            (False, True): "collision"}.get((hb, coll))
    assert want, "bug %d: no campaign's runs saw it" % b["id"]
    assert b.get("found_by") == want, \
        "bug %d: found_by %r, want %r" % (b["id"], b.get("found_by"), want)
    both += want == "both"
assert both, "no bug found by both check and the sweep"
EOF

# ---- (g) call stacks ------------------------------------------------------------

hc "$dir/helper.json" "$dir/helper.err" check "$build/guests/hb-helper.wasm" \
	--json --db "$dir/helper.db" "${runtime[@]}"
if [ "$rc" -ne 0 ]; then
	bad "hb-helper: check exit $rc: $(snippet "$dir/helper.err")"
else
	python3 - "$dir/helper.json" >"$dir/why" 2>&1 <<'EOF' ||
import json, os, sys
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
d = json.load(open(sys.argv[1]))
races = d["races"]
assert races, "no race"
for r in races:
    stacks = [s["stack"] for s in r["sites"]]
    assert all(stacks), "race %d: a stack is missing: %s" % (r["bug"], stacks)
    # The later access's from its probe, the earlier one's from its
    # thread's trace: each through its own caller.
    by = {st[1]["function"]: st for st in stacks}
    assert sorted(by) == ["early_path", "late_path"], "race %d: callers %s" % (r["bug"], sorted(by))
    for path, lines, top in (("late_path", (24, 37), "second"), ("early_path", (22, 28), "first")):
        st = by[path]
        names = [f["function"] for f in st]
        assert names[:3] == ["bump", path, top], "race %d: frames %s" % (r["bug"], names)
        assert os.path.basename(st[0]["file"]) == "hb-helper.c" and st[0]["line"] == 19, "frame 0 %r" % st[0]
        assert (st[1]["line"], st[2]["line"]) == lines, "caller lines %r" % st[1:3]
EOF
		bad "hb-helper stacks: $(snippet "$dir/why")"
	"$HEISEN" show 1 --db "$dir/helper.db" >"$dir/helper.show" 2>&1 ||
		bad "show of hb-helper's bug: exit $?"
	grep -Eq '^    #1 late_path .*hb-helper.c:24$' "$dir/helper.show" ||
		bad "show prints no '#1 late_path hb-helper.c:24' frame: $(snippet "$dir/helper.show")"
	grep -Eq '^    #1 early_path .*hb-helper.c:22$' "$dir/helper.show" ||
		bad "show prints no '#1 early_path hb-helper.c:22' frame: $(snippet "$dir/helper.show")"
fi

# Bulk memory: a race on byte 150 of a memory.copy's source, of its
# destination and of a memory.fill, each found (not only their first byte).
g=$root/tests/e2e/guests/hb-range.c
line_of() { grep -n "heisen:site $1" "$g" | cut -d: -f1; }
hc "$dir/range.json" "$dir/range.err" check "$build/guests/hb-range.wasm" \
	--json --db "$dir/range.db" "${runtime[@]}"
if [ "$rc" -ne 0 ]; then
	bad "hb-range: check exit $rc: $(snippet "$dir/range.err")"
else
	copy=$(line_of "range copy") fill=$(line_of "range fill")
	hb races "$dir/range.json" hb-range.wasm 1 \
		"hb-range.c:$copy hb-range.c:$(line_of "write src")
hb-range.c:$copy hb-range.c:$(line_of "read dst")
hb-range.c:$fill hb-range.c:$(line_of "write buf")" >"$dir/why" 2>&1 ||
		bad "hb-range: $(snippet "$dir/why")"
	python3 -c '
import json, sys
k = sorted(s["kind"] for r in json.load(open(sys.argv[1]))["races"] for s in r["sites"])
assert k == ["range-read", "range-write", "range-write", "read", "write", "write"], k
' "$dir/range.json" 2>"$dir/why" || bad "hb-range kinds: $(snippet "$dir/why")"
fi

# The guest library's synchronisation is POSIX's only: destroying a mutex
# the worker let go of must not order main's read after the worker's write
# (the destroy's look at the mutex word hid this race in every run).
g=$root/tests/e2e/guests/hb-destroy.c
hc "$dir/destroy.json" "$dir/destroy.err" check "$build/guests/hb-destroy.wasm" \
	--runs 3 --json --db "$dir/destroy.db" "${runtime[@]}"
if [ "$rc" -ne 0 ]; then
	bad "hb-destroy: check exit $rc: $(snippet "$dir/destroy.err")"
else
	hb races "$dir/destroy.json" hb-destroy.wasm 3 \
		"hb-destroy.c:$(line_of "write result") hb-destroy.c:$(line_of "read result")" \
		>"$dir/why" 2>&1 || bad "hb-destroy: $(snippet "$dir/why")"
fi

# Runs that trap are summarised with their reason, in text and JSON.
"$HEISEN" check "$root/demos/build/guests/trap.wasm" --runs 2 --db "$dir/trap.db" >"$dir/trap.txt" 2>&1
grep -qE "^    trap in 2 runs \(first: run [0-9]+\): unreachable in function [0-9]+ 'work' at offset 0x" "$dir/trap.txt" ||
	bad "trap reason not listed: $(snippet "$dir/trap.txt")"
"$HEISEN" check "$root/demos/build/guests/trap.wasm" --runs 2 --db "$dir/trap.db" --json >"$dir/trap.json" 2>/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["reasons"]; assert len(r) == 1 and r[0]["status"] == "trap" and r[0]["runs"] == 2 and "unreachable" in r[0]["message"], r' "$dir/trap.json" ||
	bad "trap reason not in the JSON: $(snippet "$dir/trap.json")"

finish t_check
