#!/usr/bin/env bash
# --format sarif|junit|jsonl (docs/triage.md, "Machine output for CI") on
# two racy demos (lost-update, helper-race) and a clean one
# (mutex-counter), checked in one workspace:
#   (a) SARIF: valid against the SARIF 2.1.0 schema (from ../shared
#       beside the checkout; skipped with a message without it); a result
#       per bug not suppressed, their partialFingerprints the signatures of
#       'bugs --json', each thread flow's top frame at its access's line
#       and function (helper-race's with their callers); absolute file:
#       URIs, or with --source-root relative ones on SRCROOT; a
#       suppressed bug is left out and counted;
#   (b) JUnit: well-formed, a failure per bug, the clean program a test
#       case without one; check and sweep too;
#   (c) JSONL: every line parses; a sweep's run lines are its runs, in
#       order before its bug lines and the summary; each run line is
#       flushed as its run is recorded: read while the sweep still runs,
#       Ctrl-C after the first line leaves a stopped campaign;
#   (d) --format with --json, an unknown format, --source-root without
#       sarif, --show-suppressed with --format: exit 2; --fail-on-bugs
#       exit codes as without --format.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
command -v python3 >/dev/null || skip "python3 missing (make deps)"
command -v xmllint >/dev/null || skip "xmllint missing (make deps: libxml2-utils)"

demos=$root/demos/build
lost=$demos/lost-update.wasm
helper=$demos/helper-race.wasm
clean=$demos/mutex-counter.wasm

# pycheck WHAT SCRIPT FILE...: run SCRIPT with the files in argv[1:].
pycheck() {
	local what=$1 script=$2
	shift 2
	python3 -c "import json, sys
$script" "$@" >"$dir/py.err" 2>&1 ||
		bad "$what: $(snippet "$dir/py.err")"
}

# ---- the workspace: two racy programs and a clean one ------------------
for p in lost helper clean; do
	hq check_$p check "${!p}" --runs 2 --db w.db
	want check_$p 0
done
hq bugs_json bugs --db w.db --json
want bugs_json 0
nbugs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["bugs"]))' bugs_json.out)
[ "${nbugs:-0}" -ge 3 ] || bad "the checks recorded ${nbugs:-0} bugs, expected lost-update's and helper-race's"

# ---- (a) SARIF -----------------------------------------------------------
hq sarif bugs --db w.db --format sarif
want sarif 0
schema=$root/../shared/schemas/sarif-schema-2.1.0.json
if [ -f "$schema" ] && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	/usr/bin/python3 -m jsonschema -i sarif.out "$schema" >schema.err 2>&1 ||
		bad "SARIF does not validate against $schema: $(snippet schema.err)"
	hq sarif_root bugs --db w.db --format sarif --source-root "$root"
	want sarif_root 0
	/usr/bin/python3 -m jsonschema -i sarif_root.out "$schema" >schema.err 2>&1 ||
		bad "SARIF with --source-root does not validate: $(snippet schema.err)"
else
	echo "  note: SARIF schema validation skipped: no $schema or no python3-jsonschema (make deps) in /usr/bin/python3; structural checks only"
fi

# Results against bugs --json: one per bug, fingerprints = signatures,
# both locations and each flow's top frame at the sites.
pycheck "SARIF results against bugs --json" '
log = json.load(open(sys.argv[1]))
bugs = {b["id"]: b for b in json.load(open(sys.argv[2]))["bugs"]}
assert log["version"] == "2.1.0", log["version"]
(run,) = log["runs"]
driver = run["tool"]["driver"]
assert driver["name"] == "heisen", driver
rules = [r["id"] for r in driver["rules"]]
assert "data-race" in rules, rules
res = run["results"]
assert len(res) == len(bugs), (len(res), len(bugs))
assert run["properties"]["suppressed"] == 0, run["properties"]
assert "originalUriBaseIds" not in run
callers = 0
for r in res:
    b = bugs[r["properties"]["bug"]]
    assert r["ruleId"] == rules[r["ruleIndex"]], r["ruleId"]
    assert r["level"] == "error", r["level"]
    assert r["partialFingerprints"] == {"heisenSignature/v1": b["signature"]}, r["partialFingerprints"]
    assert r["properties"]["state"] == b["state"]
    assert r["properties"]["runs"] == b["runs"]
    assert r["message"]["text"].startswith("Data race: "), r["message"]
    locs = [r["locations"][0], r["relatedLocations"][0]]
    got = sorted((l["physicalLocation"]["region"]["startLine"], l["logicalLocations"][0]["name"]) for l in locs)
    sites = sorted((s["line"], s["function"]) for s in b["sites"])
    assert got == sites, (got, sites)
    for l in locs:
        uri = l["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("file:///") and "uriBaseId" not in l["physicalLocation"]["artifactLocation"], uri
    flows = r["codeFlows"][0]["threadFlows"]
    assert len(flows) == 2, len(flows)
    for loc, flow in zip(locs, flows):
        top = flow["locations"][0]["location"]
        assert top["physicalLocation"]["region"]["startLine"] == loc["physicalLocation"]["region"]["startLine"], (top, loc)
        assert top["logicalLocations"][0]["name"] == loc["logicalLocations"][0]["name"]
        names = [f["location"]["logicalLocations"][0]["name"] for f in flow["locations"]]
        callers += "pay_rent" in names or "pay_wages" in names
assert callers > 0, "no thread flow of helper-race names pay_rent or pay_wages"
' sarif.out bugs_json.out

# --source-root: files under it relative on SRCROOT, the rest absolute.
hq sarif_root bugs --db w.db --format sarif --source-root "$root"
want sarif_root 0
realroot=$(cd "$root" && pwd -P)
pycheck "SARIF --source-root" '
log = json.load(open(sys.argv[1]))
root = sys.argv[2].rstrip("/") + "/"
(run,) = log["runs"]
assert run["originalUriBaseIds"] == {"SRCROOT": {"uri": "file://" + root}}, run["originalUriBaseIds"]
rel = 0
for r in run["results"]:
    for flow in r["codeFlows"][0]["threadFlows"]:
        for f in flow["locations"]:
            al = f["location"]["physicalLocation"]["artifactLocation"]
            if al.get("uriBaseId") == "SRCROOT":
                assert not al["uri"].startswith(("/", "file:")), al
                rel += 1
            else:
                assert al["uri"].startswith("file:///") and not al["uri"].startswith("file://" + root), al
    al = r["locations"][0]["physicalLocation"]["artifactLocation"]
    assert al == {"uri": al["uri"], "uriBaseId": "SRCROOT"} and al["uri"].startswith("demos/"), al
assert rel > 0
' sarif_root.out "$realroot"

# A suppressed bug is left out of every format and counted.
printf 'race:credit\n' >supp
hq bugs_supp bugs --db w.db --json --suppressions supp
want bugs_supp 0
hq sarif_supp bugs --db w.db --format sarif --suppressions supp
want sarif_supp 0
pycheck "SARIF with suppressions" '
log = json.load(open(sys.argv[1]))
listed = json.load(open(sys.argv[2]))
(run,) = log["runs"]
assert listed["suppressed"] > 0, listed["suppressed"]
assert len(run["results"]) == len(listed["bugs"]), (len(run["results"]), len(listed["bugs"]))
assert run["properties"]["suppressed"] == listed["suppressed"], run["properties"]
assert all(r["properties"]["program"] != "helper-race.wasm" for r in run["results"])
' sarif_supp.out bugs_supp.out

# Triaged not-a-bug: a note, still listed.
nab=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bugs"][0]["id"])' bugs_json.out)
hq triage triage "$nab" not-a-bug --db w.db
want triage 0
hq sarif_nab bugs --db w.db --format sarif
want sarif_nab 0
pycheck "SARIF level of a not-a-bug" '
(run,) = json.load(open(sys.argv[1]))["runs"]
lv = {r["properties"]["bug"]: r["level"] for r in run["results"]}
assert lv.pop(int(sys.argv[2])) == "note", lv
assert set(lv.values()) == {"error"}, lv
' sarif_nab.out "$nab"

# ---- (b) JUnit -----------------------------------------------------------
hq junit bugs --db w.db --format junit
want junit 0
xmllint --noout junit.out 2>xml.err || bad "JUnit is not well-formed XML: $(snippet xml.err)"
nfail=$(xmllint --xpath 'count(//testsuites/testsuite/testcase/failure)' junit.out 2>/dev/null)
[ "$nfail" = "$nbugs" ] || bad "JUnit has $nfail failures, expected $nbugs (the bugs)"
ncase=$(xmllint --xpath 'count(//testsuites/testsuite/testcase)' junit.out 2>/dev/null)
[ "$ncase" = 3 ] || bad "JUnit has $ncase test cases, expected 3 (one per program)"
cleanfail=$(xmllint --xpath 'count(//testcase[@name="mutex-counter.wasm"])' junit.out 2>/dev/null),$(xmllint --xpath 'count(//testcase[@name="mutex-counter.wasm"]/failure)' junit.out 2>/dev/null)
[ "$cleanfail" = 1,0 ] || bad "mutex-counter.wasm: test cases,failures $cleanfail, expected 1,0"
[ "$(xmllint --xpath 'string(//testcase[@name="lost-update.wasm"]/@classname)' junit.out 2>/dev/null)" = heisen.lost-update ] ||
	bad "lost-update's test case is not of class heisen.lost-update: $(snippet junit.out)"
grep -q 'WARNING: heisen: data race' junit.out || bad "JUnit failures carry no race report"
hq junit_supp bugs --db w.db --format junit --suppressions supp
want junit_supp 0
[ "$(xmllint --xpath 'count(//testcase[@name="helper-race.wasm"]/failure)' junit_supp.out 2>/dev/null)" = 0 ] ||
	bad "a suppressed bug is a JUnit failure"
[ "$(xmllint --xpath 'string(//testsuite/properties/property[@name="suppressed"]/@value)' junit_supp.out 2>/dev/null)" -gt 0 ] 2>/dev/null ||
	bad "JUnit does not count the suppressed bugs: $(snippet junit_supp.out)"

# check and sweep: the program's test case, a failure per race / bug.
hq check_junit check "$clean" --db c.db --format junit
want check_junit 0
xmllint --noout check_junit.out 2>xml.err || bad "check's JUnit is not well-formed: $(snippet xml.err)"
[ "$(xmllint --xpath 'count(//testcase[@name="mutex-counter.wasm"])' check_junit.out 2>/dev/null),$(xmllint --xpath 'count(//failure)' check_junit.out 2>/dev/null)" = 1,0 ] ||
	bad "check of a clean program: $(snippet check_junit.out)"
hq check_junit2 check "$lost" --db c.db --format junit --fail-on-bugs
want check_junit2 1
hq check_json2 bugs --db c.db --program lost-update.wasm --json
[ "$(xmllint --xpath 'count(//testcase/failure)' check_junit2.out 2>/dev/null)" = \
	"$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["bugs"]))' check_json2.out)" ] ||
	bad "check --format junit: failures are not the races: $(snippet check_junit2.out)"

# ---- (c) JSONL -------------------------------------------------------------
hq sweep_jsonl sweep "$lost" --db s.db --densities 100 --runs 4 --profiles default --jobs 2 --format jsonl
want sweep_jsonl 0
hq runs_json runs 1 --db s.db --json
want runs_json 0
hq sweep_bugs bugs --db s.db --json
pycheck "sweep --format jsonl" '
lines = [json.loads(l) for l in open(sys.argv[1])]
runs = json.load(open(sys.argv[2]))["runs"]
bugs = json.load(open(sys.argv[3]))["bugs"]
assert all(l["schema"] == "heisen.event/1" and l["command"] == "sweep" for l in lines)
types = [l["type"] for l in lines]
nr, nb = types.count("run"), types.count("bug")
assert types == ["run"] * nr + ["bug"] * nb + ["summary"], types
assert nr == len(runs) == 4, (nr, len(runs))
assert sorted(l["run"] for l in lines[:nr]) == sorted(r["id"] for r in runs)
assert {l["bug"] for l in lines[nr:nr + nb]} == {b["id"] for b in bugs}, "bug lines are not the campaign bugs"
seen = {i for l in lines[:nr] for i in l["bugs"]}
assert seen == {b["id"] for b in bugs}, (seen, bugs)
s = lines[-1]
assert s["runs"] == 4 and s["bugs"] == nb and s["status"] == "done" and s["campaign"] == 1, s
for l in lines[nr:nr + nb]:
    assert len(l["sites"]) == 2 and l["signature"], l
' sweep_jsonl.out runs_json.out sweep_bugs.out

hq bugs_jsonl bugs --db w.db --format jsonl --suppressions supp
want bugs_jsonl 0
pycheck "bugs --format jsonl" '
lines = [json.loads(l) for l in open(sys.argv[1])]
listed = json.load(open(sys.argv[2]))
assert [l["type"] for l in lines] == ["bug"] * len(listed["bugs"]) + ["summary"]
assert [l["bug"] for l in lines[:-1]] == [b["id"] for b in listed["bugs"]]
assert [l["signature"] for l in lines[:-1]] == [b["signature"] for b in listed["bugs"]]
assert lines[-1]["suppressed"] == listed["suppressed"] and lines[-1]["runs"] is None, lines[-1]
' bugs_jsonl.out bugs_supp.out

# Streamed and flushed line by line: a guest that deadlocks makes each
# run last its --timeout (3s) and the --budget (5s) lets a second run
# start after the first, so the first run line can only reach the reader
# in time to Ctrl-C that second run if it left when its run was recorded;
# written at the end, or held in a buffer, it would come after the
# campaign ended "done" (exit 0, not 130).
mkfifo stream
"$HEISEN" sweep "$demos/guests/deadlock.wasm" --db t.db --budget 5s --timeout 3s \
	--densities 100 --profiles default --jobs 1 --format jsonl >stream 2>stream.err &
pid=$!
exec 3<stream
if IFS= read -r -t 120 first <&3; then
	kill -INT "$pid" 2>/dev/null
	cat <&3 >stream.rest
else
	bad "no JSONL line from a running sweep"
	kill -KILL "$pid" 2>/dev/null
fi
exec 3<&-
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || bad "the sweep interrupted after its first line: exit $rc, expected 130: $(snippet stream.err)"
printf '%s\n' "${first:-}" >stream.first
pycheck "the streamed sweep" '
first = json.loads(open(sys.argv[1]).read())
assert first["type"] == "run" and first["status"] == "timeout", first
rest = [json.loads(l) for l in open(sys.argv[2])]
assert rest and rest[-1]["type"] == "summary", rest[-1:]
assert rest[-1]["status"] == "stopped", rest[-1]
assert rest[-1]["runs"] == 1 + sum(l["type"] == "run" for l in rest), rest[-1]
' stream.first stream.rest

hq check_jsonl check "$clean" --db c.db --format jsonl --runs 2
want check_jsonl 0
pycheck "check --format jsonl" '
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["type"] for l in lines] == ["run", "run", "summary"], lines
assert lines[-1]["bugs"] == 0 and lines[-1]["programs"] == ["mutex-counter.wasm"], lines[-1]
' check_jsonl.out

# ---- (d) usage and the gate ------------------------------------------------
hq u_json bugs --db w.db --format sarif --json
want u_json 2
hq u_fmt bugs --db w.db --format xml
want u_fmt 2
hq u_root sweep "$lost" --db w.db --format jsonl --source-root "$root"
want u_root 2
hq u_show bugs --db w.db --format junit --show-suppressed
want u_show 2
hq u_check check "$lost" --db u.db --format junit --json
want u_check 2
[ -e u.db ] && bad "check with --format and --json made a workspace"
for f in u_json u_fmt u_root u_show u_check; do
	[ -s $f.out ] && bad "$f: output on stdout: $(snippet $f.out)"
	[ -s $f.err ] || bad "$f: no message on stderr"
done
hq g_any bugs --db w.db --format sarif --fail-on-bugs
want g_any 1
hq g_new bugs --db w.db --format junit --fail-on-bugs new
want g_new 1
printf 'race:credit\nrace:deposit\n' >supp_all
hq g_none bugs --db w.db --format jsonl --fail-on-bugs --suppressions supp_all
want g_none 0
pycheck "gate counts in the summary" '
s = [json.loads(l) for l in open(sys.argv[1])][-1]
assert s["bugs"] == 0 and s["failing"] == 0 and s["fail_on_bugs"] == "any", s
' g_none.out

finish t_formats
