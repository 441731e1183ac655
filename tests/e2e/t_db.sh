#!/usr/bin/env bash
# The database query commands (campaigns, runs, bugs, show, profiles) on a
# workspace written by db_fill (tests/e2e/db_fill.c, built next to
# $HEISEN) through db.h, with known campaigns, runs and bugs (its header
# comment lists them): plain and --json output hold the recorded values;
# --fail-on-bugs exits 1 on bugs and 0 on none; an unknown campaign or
# bug, a missing database and a file that is not a database exit 2, and
# the file is left as it was; $HEISEN_DB names the database.
. "$(dirname "$0")/lib.sh"
unset HEISEN_DB

fill=${DB_FILL:-$(dirname "$HEISEN")/tests/e2e/db_fill}
if [ ! -x "$fill" ]; then
	echo "  FAIL: $fill not built (make $(basename "$(dirname "$HEISEN")")/tests/e2e/db_fill)"
	exit 1
fi
if ! command -v python3 >/dev/null; then
	echo "  FAIL: python3 is needed to read the JSON output"
	exit 1
fi

mkdir -p "$dir/prog" "$dir/work"
# The program's source, found through the program's directory.
cat >"$dir/prog/racy.c" <<'EOF'
/* line 1 */
int counter;
void counter_add(void)
{
	counter = counter + 1; /* line 5 */
}
void worker(void) {
	counter = 0; /* line 8 */
}
int main(void)
{
	return counter; /* line 12 */
}
EOF
db=$dir/fill.db
"$fill" "$db" "$dir/prog/racy.wasm" >"$dir/ids" 2>"$dir/fill.err" ||
	{ echo "  FAIL: db_fill failed: $(snippet "$dir/fill.err")"; exit 1; }
id() { awk -v k="$1" '$1 == k {print $2}' "$dir/ids"; }
c1=$(id campaign1) c2=$(id campaign2) bug_a=$(id bugA) bug_b=$(id bugB)
[ -n "$c1" ] && [ -n "$bug_a" ] && [ -n "$bug_b" ] ||
	{ echo "  FAIL: db_fill printed no ids: $(snippet "$dir/ids")"; exit 1; }
cd "$dir/work" || exit 1

# q NAME ARGS...: run heisen, stdout to $dir/NAME.out, stderr to
# $dir/NAME.err, exit code in $rc.
q() {
	local name=$1
	shift
	"$HEISEN" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
	rc=$?
}
# expect_rc NAME CODE: what `q NAME` exited with.
expect_rc() {
	[ "$rc" -eq "$2" ] || bad "$1: exit $rc, expected $2 (stderr: $(snippet "$dir/$1.err"))"
}
# pycheck NAME 'python statements using d (the JSON) and ids': any
# assertion failing is reported.
pycheck() {
	python3 - "$dir/$1.out" "$dir/ids" "$2" >"$dir/py.err" 2>&1 <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
ids = {k: int(v) for k, v in (l.split() for l in open(sys.argv[2]))}
exec(sys.argv[3])
EOF
		bad "$1: JSON check failed: $(tail -c 600 "$dir/py.err" | tr '\n' ' ')"
}

# ---- campaigns ----------------------------------------------------------
q campaigns campaigns --db "$db"
expect_rc campaigns 0
grep -Eq "^$c1 +sweep +racy\.wasm +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} +done +8/8 +4 +2 +12\.5,100 +default,one-core +[^ ]+$" "$dir/campaigns.out" ||
	bad "campaigns: no row '$c1 racy.wasm DATE done 8/8 4 2 12.5,100 default,one-core NODE': $(snippet "$dir/campaigns.out")"
grep -Eq "^$c2 +sweep +racy\.wasm .* stopped +1/- +1 +0 " "$dir/campaigns.out" ||
	bad "campaigns: budget campaign not shown as 1/-: $(snippet "$dir/campaigns.out")"
q campaigns_json campaigns --db "$db" --json
expect_rc campaigns_json 0
pycheck campaigns_json '
assert d["schema"] == "heisen.campaigns/1", d["schema"]
c = d["campaigns"]
assert [x["id"] for x in c] == [ids["campaign2"], ids["campaign1"]], c
a, b = c[1], c[0]
assert a["program"] == "racy.wasm" and a["status"] == "done", a
assert (a["runs_done"], a["runs_planned"], a["runs_per_cell"]) == (8, 8, 2), a
assert (a["cells"], a["bugs"]) == (4, 2), a
assert a["profiles"] == ["default", "one-core"], a
assert a["densities"] == "12.5,100" and a["density_bp"] == [1250, 10000], a
assert a["seed"] == "deadbeefcafef00d" and a["budget_ms"] is None, a
assert a["timeout_ms"] == 10000 and a["jobs"] == 2 and a["delay"] == 2000, a
assert isinstance(a["created"], int) and a["created"] > 1600000000, a
assert b["runs_planned"] is None and b["runs_per_cell"] is None, b
assert (b["runs_done"], b["bugs"], b["budget_ms"]) == (1, 0, 60000), b
'

# ---- runs ---------------------------------------------------------------
q runs runs "$c1" --db "$db"
expect_rc runs 0
[ "$(grep -c . "$dir/runs.out")" -eq 9 ] ||
	bad "runs: expected a header and 8 rows: $(snippet "$dir/runs.out")"
grep -Eq "^$(id run0) +0 +default +12\.5% +0123456789abcdef +1\.5 +1 +ok\$" "$dir/runs.out" ||
	bad "runs: run 0 not '$(id run0) 0 default 12.5% 0123456789abcdef 1.5 1 ok': $(snippet "$dir/runs.out")"
grep -Eq "^$(id run3) +3 +one-core +100% +0123456789abcdf2 +4\.5 +0 +exit 3\$" "$dir/runs.out" ||
	bad "runs: run 3 not shown as 'exit 3': $(snippet "$dir/runs.out")"
grep -Eq "^$(id run5) +5 .* trap: integer divide by zero\$" "$dir/runs.out" ||
	bad "runs: run 5 not shown with its trap message: $(snippet "$dir/runs.out")"
q runs_json runs "$c1" --db "$db" --json
expect_rc runs_json 0
pycheck runs_json '
assert d["schema"] == "heisen.runs/1" and d["campaign"] == ids["campaign1"], d
assert d["bug"] is None and d["program"] == "racy.wasm", d
r = d["runs"]
assert [x["idx"] for x in r] == list(range(8)), r
assert [x["id"] for x in r] == [ids["run%d" % i] for i in range(8)], r
for i, x in enumerate(r):
    assert x["profile"] == ("one-core" if i % 2 else "default"), x
    assert x["density_bp"] == (10000 if (i // 2) % 2 else 1250), x
    assert x["seed"] == "%016x" % (0x0123456789abcdef + i), x
    assert x["duration_us"] == 1000 * (i + 1) + 500, x
    assert x["started"] == 1700000000 + i, x
    assert x["bugs"] == {0: 1, 1: 1, 4: 2}.get(i, 0), x
assert (r[3]["status"], r[3]["exit_code"]) == ("exit", 3), r[3]
assert (r[5]["status"], r[5]["exit_code"]) == ("trap", None), r[5]
assert r[5]["message"] == "integer divide by zero", r[5]
assert (r[0]["status"], r[0]["exit_code"], r[0]["message"]) == ("ok", 0, None), r[0]
'
q runs_bug runs "$c1" --bug "$bug_a" --db "$db" --json
expect_rc runs_bug 0
pycheck runs_bug '
assert d["bug"] == ids["bugA"], d
assert [x["idx"] for x in d["runs"]] == [0, 1, 4], d["runs"]
'
q runs_bug_b runs "$c1" --bug "$bug_b" --db "$db"
expect_rc runs_bug_b 0
[ "$(grep -c . "$dir/runs_bug_b.out")" -eq 2 ] && grep -Eq "^$(id run4) +4 " "$dir/runs_bug_b.out" ||
	bad "runs --bug B: expected only run 4: $(snippet "$dir/runs_bug_b.out")"
q runs_c2 runs "$c2" --bug "$bug_a" --db "$db"
expect_rc runs_c2 0
grep -q "no run of campaign $c2 detected bug $bug_a" "$dir/runs_c2.out" ||
	bad "runs --bug in a campaign without it: $(snippet "$dir/runs_c2.out")"
q runs_none runs 999 --db "$db"
expect_rc runs_none 2
grep -q "no campaign 999 in" "$dir/runs_none.err" ||
	bad "runs 999: stderr lacks 'no campaign 999 in': $(snippet "$dir/runs_none.err")"
[ -s "$dir/runs_none.out" ] && bad "runs 999: wrote to stdout: $(snippet "$dir/runs_none.out")"
q runs_word runs first --db "$db"
expect_rc runs_word 2
q runs_nobug runs "$c1" --bug 999 --db "$db"
expect_rc runs_nobug 2
q runs_noarg runs --db "$db"
expect_rc runs_noarg 2

# ---- bugs ---------------------------------------------------------------
q bugs bugs --db "$db"
expect_rc bugs 0
[ "$(grep -c . "$dir/bugs.out")" -eq 3 ] ||
	bad "bugs: expected a header and 2 rows: $(snippet "$dir/bugs.out")"
grep -Eq "^$bug_a +racy\.wasm +W/R +3 +new +collision +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} +counter_add racy\.c:5 <-> main racy\.c:12\$" "$dir/bugs.out" ||
	bad "bugs: bug A row wrong: $(snippet "$dir/bugs.out")"
grep -Eq "^$bug_b +racy\.wasm +A/W +1 .* \? \?:\? <-> worker racy\.c:8\$" "$dir/bugs.out" ||
	bad "bugs: bug B row wrong (unknown parts as ?): $(snippet "$dir/bugs.out")"
[ "$(sed -n 2p "$dir/bugs.out" | awk '{print $1}')" = "$bug_a" ] ||
	bad "bugs: the most detected bug is not first: $(snippet "$dir/bugs.out")"
q bugs_json bugs --db "$db" --json
expect_rc bugs_json 0
pycheck bugs_json '
assert d["schema"] == "heisen.bugs/1" and d["program"] is None, d
b = d["bugs"]
assert [x["id"] for x in b] == [ids["bugA"], ids["bugB"]], b
a = b[0]
assert (a["kinds"], a["runs"], a["program"]) == ("W/R", 3, "racy.wasm"), a
assert a["first_run"] == ids["run0"] and a["first_seen"] > 1600000000, a
assert a["sites"][0] == {"site": 3, "kind": "write", "function": "counter_add", "file": "racy.c", "line": 5}, a
assert a["sites"][1] == {"site": 7, "kind": "read", "function": "main", "file": "racy.c", "line": 12}, a
x = b[1]
assert (x["kinds"], x["runs"]) == ("A/W", 1), x
assert x["sites"][0] == {"site": 10, "kind": "atomic-rmw", "function": None, "file": None, "line": None}, x
'
q bugs_fail bugs --db "$db" --fail-on-bugs
expect_rc bugs_fail 1
grep -q "counter_add" "$dir/bugs_fail.out" || bad "bugs --fail-on-bugs: the list was not printed"
q bugs_prog bugs --program racy.wasm --db "$db" --json
expect_rc bugs_prog 0
pycheck bugs_prog '
assert d["program"]["name"] == "racy.wasm" and d["program"]["hash"] == "1122334455667788", d
assert d["program"]["builds"] == 1, d
assert len(d["bugs"]) == 2, d
'
q bugs_hash bugs --program 1122334455667788 --db "$db" --fail-on-bugs
expect_rc bugs_hash 1
q bugs_noprog bugs --program nosuch.wasm --db "$db"
expect_rc bugs_noprog 2
[ -s "$dir/bugs_noprog.err" ] || bad "bugs --program nosuch.wasm: no message"

empty=$dir/empty.db
"$fill" "$empty" --empty || bad "db_fill --empty failed"
q empty_bugs bugs --db "$empty" --fail-on-bugs
expect_rc empty_bugs 0
q empty_bugs_json bugs --db "$empty" --json
pycheck empty_bugs_json 'assert d["bugs"] == [], d'
q empty_campaigns campaigns --db "$empty"
expect_rc empty_campaigns 0
grep -q "no campaigns" "$dir/empty_campaigns.out" ||
	bad "campaigns on an empty database: $(snippet "$dir/empty_campaigns.out")"

# ---- show ---------------------------------------------------------------
q show show "$bug_a" --db "$db"
expect_rc show 0
grep -q "^bug $bug_a: W/R race in racy.wasm ($dir/prog/racy.wasm)" "$dir/show.out" ||
	bad "show: first line: $(snippet "$dir/show.out")"
grep -q "^site 3 (write) in counter_add at racy.c:5\$" "$dir/show.out" ||
	bad "show: site 3 line: $(snippet "$dir/show.out")"
grep -Eq '^  > +5 \| 	counter = counter \+ 1; /\* line 5 \*/$' "$dir/show.out" ||
	bad "show: line 5 not marked with '>': $(snippet "$dir/show.out")"
grep -Eq '^    +3 \| void counter_add\(void\)$' "$dir/show.out" &&
	grep -Eq '^    +7 \| void worker\(void\) \{$' "$dir/show.out" ||
	bad "show: no context lines 3 and 7 around line 5: $(snippet "$dir/show.out")"
grep -Eq '^  > +12 \| 	return counter; /\* line 12 \*/$' "$dir/show.out" ||
	bad "show: line 12 not marked with '>': $(snippet "$dir/show.out")"
[ "$(grep -c '^  > ' "$dir/show.out")" -eq 2 ] || bad "show: expected two marked lines"
grep -Eq "^  $(id run0) +$c1 +default +12\.5% +0123456789abcdef +1 2 +0x100 0x104\$" "$dir/show.out" ||
	bad "show: example run 0 (threads 1 2, addresses 0x100 0x104): $(snippet "$dir/show.out")"
# Cells count the runs of every campaign of the program: default at
# 100 % has campaign 2's run too.
grep -Eq '^  profile +12\.5% +100%$' "$dir/show.out" ||
	bad "show: detections header: $(snippet "$dir/show.out")"
grep -Eq '^  default +2/2 +0/3$' "$dir/show.out" && grep -Eq '^  one-core +1/2 +0/2$' "$dir/show.out" ||
	bad "show: detections rows (default 2/2 0/3, one-core 1/2 0/2): $(snippet "$dir/show.out")"
q show_json show "$bug_a" --db "$db" --json
expect_rc show_json 0
pycheck show_json '
assert d["schema"] == "heisen.bug/1" and d["id"] == ids["bugA"], d
assert d["program"]["name"] == "racy.wasm" and d["program"]["hash"] == "1122334455667788", d
assert d["state"] == "new" and d["triaged"] is None and d["note"] is None, d
assert d["kinds"] == "W/R" and d["runs"] == 3, d
s0, s1 = d["sites"]
assert (s0["site"], s0["kind"], s0["function"], s0["line"]) == (3, "write", "counter_add", 5), s0
src = s0["source"]
assert src["first_line"] == 3 and len(src["lines"]) == 5, src
assert src["lines"][2] == "\tcounter = counter + 1; /* line 5 */", src
assert src["path"].endswith("prog/racy.c"), src
assert s1["source"]["first_line"] == 10 and len(s1["source"]["lines"]) == 4, s1
ex = d["examples"]
assert [x["run"] for x in ex] == [ids["run0"], ids["run1"], ids["run4"]], ex
assert ex[0]["tid"] == [1, 2] and ex[0]["addr"] == [0x100, 0x104], ex[0]
assert ex[0]["count"] == 4 and ex[0]["campaign"] == ids["campaign1"], ex[0]
assert ex[1]["profile"] == "one-core" and ex[1]["density_bp"] == 1250, ex[1]
cells = {(c["profile"], c["density_bp"]): (c["k"], c["n"]) for c in d["cells"]}
assert cells == {("default", 1250): (2, 2), ("one-core", 1250): (1, 2),
                 ("default", 10000): (0, 3), ("one-core", 10000): (0, 2)}, cells
'
# Bug B: a site with no position shows no source; found from the current
# directory when the file is there.
cp "$dir/prog/racy.c" "$dir/work/racy.c"
q show_b show "$bug_b" --db "$db" --json
expect_rc show_b 0
pycheck show_b '
s0, s1 = d["sites"]
assert s0["source"] is None and s0["function"] is None, s0
assert s1["source"]["path"] == "racy.c" and s1["source"]["lines"][2] == "\tcounter = 0; /* line 8 */", s1
assert [x["run"] for x in d["examples"]] == [ids["run4"]], d["examples"]
assert d["examples"][0]["tid"] == [3, 1], d["examples"]
'
q show_b_text show "$bug_b" --db "$db"
grep -q '^site 10 (atomic-rmw) in ? at ?:?$' "$dir/show_b_text.out" ||
	bad "show B: site without position: $(snippet "$dir/show_b_text.out")"
rm "$dir/work/racy.c" "$dir/prog/racy.c"
q show_nosrc show "$bug_a" --db "$db"
expect_rc show_nosrc 0
grep -q '^  > ' "$dir/show_nosrc.out" && bad "show: marked a line with the source gone"
grep -q 'source not shown: racy.c not found' "$dir/show_nosrc.out" ||
	bad "show: no note for a missing source: $(snippet "$dir/show_nosrc.out")"
q show_none show 999 --db "$db"
expect_rc show_none 2
[ -s "$dir/show_none.err" ] || bad "show 999: no message on stderr"
q show_word show x --db "$db"
expect_rc show_word 2

# ---- profiles -----------------------------------------------------------
q profiles profiles
expect_rc profiles 0
q profiles_json profiles --json
expect_rc profiles_json 0
awk '{print $1}' "$dir/profiles.out" >"$dir/profiles.names"
pycheck profiles_json '
assert d["schema"] == "heisen.profiles/1", d
names = [p["name"] for p in d["profiles"]]
assert names and "default" in names, names
assert names == open(sys.argv[1].replace("profiles_json.out", "profiles.names")).read().split(), names
assert all(p["help"] for p in d["profiles"]), d
'

# ---- which database, and bad ones -------------------------------------
printf 'this is not a SQLite database, just some text\n%.0s' {1..200} >"$dir/garbage"
cp "$dir/garbage" "$dir/garbage.orig"
for cmd in campaigns bugs "runs $c1" "show $bug_a"; do
	# shellcheck disable=SC2086
	q garbage $cmd --db "$dir/garbage"
	expect_rc garbage 2
	grep -q "^heisen: $dir/garbage is not a heisen database" "$dir/garbage.err" ||
		bad "$cmd on a garbage file: message does not name the file: $(snippet "$dir/garbage.err")"
	[ "$(wc -l <"$dir/garbage.err")" -eq 1 ] || bad "$cmd on a garbage file: not one line"
	cmp -s "$dir/garbage" "$dir/garbage.orig" || bad "$cmd changed the garbage file"
done
ls "$dir"/garbage-* >/dev/null 2>&1 && bad "a journal was left next to the garbage file"

q missing campaigns --db "$dir/nosuch.db"
expect_rc missing 2
[ -e "$dir/nosuch.db" ] && bad "campaigns created a database that did not exist"
q default_missing campaigns
expect_rc default_missing 2
[ -e "$dir/work/heisen.db" ] && bad "campaigns created ./heisen.db"

HEISEN_DB=$db q env_db campaigns --json
expect_rc env_db 0
pycheck env_db 'assert len(d["campaigns"]) == 2 and d["db"] == sys.argv[2].replace("ids", "fill.db"), d'
HEISEN_DB=$db q env_override campaigns --db "$empty" --json
pycheck env_override 'assert d["campaigns"] == [], d'
cp "$db" "$dir/work/heisen.db"
q default_db bugs --json
expect_rc default_db 0
pycheck default_db 'assert d["db"] == "heisen.db" and len(d["bugs"]) == 2, d'

# ---- help ---------------------------------------------------------------
for cmd in campaigns runs bugs show profiles; do
	q help help "$cmd"
	expect_rc help 0
	grep -q "^usage: heisen $cmd" "$dir/help.out" || bad "help $cmd: no usage line"
	grep -q "Exit status" "$dir/help.out" || bad "help $cmd: no exit status"
	[ "$cmd" = profiles ] || grep -q -- "--db FILE" "$dir/help.out" ||
		bad "help $cmd: no --db option"
done

finish t_db
