#!/usr/bin/env bash
# Inlined frames in race reports (docs/detection.md "A race report"):
# tests/e2e/guests/inline-helper.c races in bump(), a static inline
# always_inline helper, called from early_path() and late_path().
#   (a) `heisen check --json`: the later access's stack has bump as frame
#       0, inlined, at the racing line, then late_path (not inlined) at
#       the line of its call to bump, then second; the earlier access's
#       (from its thread's trace) has bump inlined into early_path;
#   (b) `heisen show BUG` prints '#0 bump FILE:LINE (inlined)' and
#       '#1 late_path FILE:LINE';
#   (b') SARIF's thread flow says "bump (inlined)";
#   (c) a suppression naming late_path, the function bump was inlined
#       into, suppresses the race (as TSan's do);
#   (d) an export stream carries the mark: the importing workspace shows
#       the same frames.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB

wasm=$root/demos/build/guests/inline-helper.wasm
src=$root/tests/e2e/guests/inline-helper.c
site=$(grep -n 'heisen:site write counter' "$src" | cut -d: -f1)
late=$(grep -n 'void late_path' "$src" | cut -d: -f1)
second=$(grep -n '	late_path();' "$src" | cut -d: -f1)

# ---- (a) check --json ----------------------------------------------------------

timeout -s KILL 300 "$HEISEN" check "$wasm" --db "$dir/a.db" --json \
	>"$dir/check.json" 2>"$dir/check.err"
rc=$?
[ "$rc" -eq 0 ] || bad "check exit $rc: $(snippet "$dir/check.err")"
python3 - "$dir/check.json" "$site" "$late" "$second" >"$dir/why" 2>&1 <<'PY' ||
import json, os, sys
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
d = json.load(open(sys.argv[1]))
site, late, second = map(int, sys.argv[2:5])
races = d["races"]
assert races, "no race"
for r in races:
    kept = [s["stack"] for s in r["sites"] if s["stack"]]
    assert len(kept) == 2, "race %d: %d stacks" % (r["bug"], len(kept))
    early = [s for s in kept if s[1]["function"] == "early_path"]
    assert len(early) == 1 and early[0][0]["function"] == "bump" and early[0][0]["inlined"], \
        "race %d: the earlier access's stack %s" % (r["bug"], early)
    st = [s for s in kept if s[1]["function"] == "late_path"][0]
    got = [(f["function"], os.path.basename(f["file"]), f["line"], f["inlined"]) for f in st[:3]]
    want = [("bump", "inline-helper.c", site, True),
            ("late_path", "inline-helper.c", late, False),
            ("second", "inline-helper.c", second, False)]
    assert got == want, "race %d: frames %s, want %s" % (r["bug"], got, want)
    # The inlined frame is where its code is: late_path's offset.
    assert st[0]["offset"] == st[1]["offset"], "offsets %r" % st[:2]
    assert not any(f["inlined"] for f in st[1:]), "only frame 0 is inlined"
PY
	bad "check --json: $(snippet "$dir/why")"

# ---- (b) show ------------------------------------------------------------------

"$HEISEN" show 1 --db "$dir/a.db" >"$dir/show.txt" 2>&1 || bad "show 1: exit $?"
grep -Eq "^    #0 bump .*inline-helper.c:$site \(inlined\)( \(site [0-9]+\))?$" "$dir/show.txt" ||
	bad "show: no '#0 bump inline-helper.c:$site (inlined)': $(snippet "$dir/show.txt")"
grep -Eq "^    #1 late_path .*inline-helper.c:$late$" "$dir/show.txt" ||
	bad "show: no '#1 late_path inline-helper.c:$late': $(snippet "$dir/show.txt")"

"$HEISEN" check "$wasm" --db "$dir/s.db" --format sarif >"$dir/sarif" 2>"$dir/sarif.err" ||
	bad "check --format sarif: exit $?: $(snippet "$dir/sarif.err")"
grep -q '"text":"bump (inlined)"' "$dir/sarif" ||
	bad "SARIF: no 'bump (inlined)' location in a thread flow"

# ---- (c) a suppression on the function bump was inlined into ---------------------

printf 'race:^late_path$\n' >"$dir/supp"
"$HEISEN" check "$wasm" --db "$dir/c.db" --json --suppressions "$dir/supp" \
	>"$dir/supp.json" 2>"$dir/supp.err" || bad "check --suppressions: exit $?"
python3 - "$dir/supp.json" >"$dir/why" 2>&1 <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["races"], "races left: %r" % [r["bug"] for r in d["races"]]
assert d["suppressed"] >= 1, "suppressed %r" % d["suppressed"]
PY
	bad "race:^late_path$ does not suppress: $(snippet "$dir/why")"

# ---- (d) through an export stream ------------------------------------------------

"$HEISEN" export --db "$dir/a.db" >"$dir/stream" 2>"$dir/export.err" ||
	bad "export: exit $?: $(snippet "$dir/export.err")"
"$HEISEN" import "$dir/stream" --db "$dir/d.db" >"$dir/import.out" 2>&1 ||
	bad "import: exit $?: $(snippet "$dir/import.out")"
"$HEISEN" show 1 --db "$dir/d.db" >"$dir/show.d.txt" 2>&1 || bad "show (imported): exit $?"
grep -Eq "^    #0 bump .*inline-helper.c:$site \(inlined\)" "$dir/show.d.txt" ||
	bad "imported: no inlined frame 0: $(snippet "$dir/show.d.txt")"

finish t_inline
