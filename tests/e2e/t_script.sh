#!/usr/bin/env bash
# Scripted mode: heisen -f FILE, -c 'CMD; CMD', commands on stdin; `set`
# defaults reaching the commands that take them; errors named by line;
# --keep-going; quoting, comments and syntax errors.
. "$(dirname "$0")/lib.sh"
need_demos
ctl="$root/demos/build/control-mutex.wasm"
export XDG_CACHE_HOME="$dir/cache"
unset HEISEN_DB
cd "$dir" || exit 3
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }

run() { # ARGS... : run heisen, leaving rc, $dir/out and $dir/err
	"$HEISEN" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
}

# --- a script against the same commands from argv ------------------------------
cat >"$dir/s.hz" <<EOF
#!/usr/bin/env -S heisen -f
# A campaign into a database named once.
set db $dir/w.db
set densities 50; set seed 7   # two settings on one line
set jobs 1; set profiles default
sweep $ctl --runs 2
bugs --json
campaigns --json
EOF
run -f "$dir/s.hz"
[ "$rc" -eq 0 ] || bad "-f s.hz: exit $rc: $(snippet "$dir/err")"
[ -e "$dir/w.db" ] || bad "set db: no database at $dir/w.db"
[ -e "$dir/heisen.db" ] && bad "set db: ./heisen.db was created as well"
# The script's JSON documents are its last two lines.
tail -n 2 "$dir/out" | head -n 1 >"$dir/bugs.script.json"
tail -n 1 "$dir/out" >"$dir/camp.script.json"
"$HEISEN" bugs --json --db "$dir/w.db" >"$dir/bugs.argv.json" || bad "bugs --db: exit $?"
"$HEISEN" campaigns --json --db "$dir/w.db" >"$dir/camp.argv.json" || bad "campaigns --db: exit $?"
cmp -s "$dir/bugs.script.json" "$dir/bugs.argv.json" ||
	bad "bugs --json in a script differs from argv: $(snippet "$dir/bugs.script.json")"
cmp -s "$dir/camp.script.json" "$dir/camp.argv.json" ||
	bad "campaigns --json in a script differs from argv: $(snippet "$dir/camp.script.json")"
[ "$(jget "$dir/camp.argv.json" '[(c["densities"], c["seed"], c["jobs"], c["profiles"], c["runs_done"]) for c in d["campaigns"]]')" = "[('50', '0000000000000007', 1, ['default'], 2)]" ] ||
	bad "set densities/seed/jobs/profiles did not reach sweep: $(snippet "$dir/camp.argv.json")"

# A line's own option wins over the session; unset goes back to the default.
run -c "set db $dir/w.db; set seed 7; set densities 50; set profiles default; sweep $ctl --runs 1 --seed 9 --jobs 1; unset seed; sweep $ctl --runs 1 --jobs 1; campaigns --json"
[ "$rc" -eq 0 ] || bad "-c with overrides: exit $rc: $(snippet "$dir/err")"
tail -n 1 "$dir/out" >"$dir/c.json"
# Newest first: after the script's campaign (seed 7), one with --seed 9
# over 'set seed 7', then one with a random seed.
seeds=$(jget "$dir/c.json" '[c["seed"] for c in d["campaigns"]]')
jget "$dir/c.json" '[c["seed"] for c in d["campaigns"]][1:] == ["0000000000000009", "0000000000000007"] and d["campaigns"][0]["seed"] not in ("0000000000000007", "0000000000000009")' | grep -qx True ||
	bad "sweep --seed 9 over 'set seed 7', then unset seed: seeds $seeds"
# Settings go only where they fit: run takes no --seed without --density.
run -c "set seed 5; set timeout 20; run $ctl"
[ "$rc" -eq 0 ] || bad "run after 'set seed': exit $rc: $(snippet "$dir/err")"
run -c "set db 'x y.db'; set delay 20; set; unset delay; set"
[ "$rc" -eq 0 ] && [ "$(cat "$dir/out")" = "set db 'x y.db'
set delay 20
set db 'x y.db'" ] || bad "set listing: exit $rc: $(snippet "$dir/out")"

# --- errors name the line; --keep-going -------------------------------------------
printf 'version\n# two\nno-such-command\nhelp set\n' >"$dir/e.hz"
run -f "$dir/e.hz"
[ "$rc" -eq 2 ] || bad "unknown command on line 3: exit $rc, want 2"
grep -q "e.hz:3: " "$dir/err" || bad "line 3's error does not say e.hz:3: $(snippet "$dir/err")"
grep -q "unknown command 'no-such-command'" "$dir/err" || bad "the command's own message is missing: $(snippet "$dir/err")"
grep -q "usage: heisen set" "$dir/out" && bad "line 4 ran after the failure on line 3"
grep -q "^heisen " "$dir/out" || bad "line 1 (version) did not run"
run -f "$dir/e.hz" --keep-going
[ "$rc" -eq 2 ] || bad "--keep-going: exit $rc, want the failure's 2"
grep -q "usage: heisen set" "$dir/out" || bad "--keep-going: line 4 did not run"
# Any non-zero exit stops a script: the program's own 3 here (exit 1 from
# --fail-on-bugs the same way, tests/unit/test_script.c).
run -c "run $root/demos/build/guests/exit3.wasm; version"
[ "$rc" -eq 3 ] && grep -q "^-c: command 'run' failed (exit 3)" "$dir/err" ||
	bad "-c 'run exit3.wasm; version': exit $rc, want 3: $(snippet "$dir/err")"
grep -q "^heisen " "$dir/out" && bad "-c: version ran after a failed command"
run -c "version;version ; no-such-command"
[ "$rc" -eq 2 ] && [ "$(grep -c '^heisen ' "$dir/out")" -eq 2 ] &&
	grep -q "^-c: command 'no-such-command' failed (exit 2)" "$dir/err" ||
	bad "-c with ';': exit $rc: $(snippet "$dir/out") / $(snippet "$dir/err")"
# `set` outside a script is a usage error.
run set db x.db
[ "$rc" -eq 2 ] && grep -q "only works in scripts" "$dir/err" || bad "heisen set: exit $rc: $(snippet "$dir/err")"

# --- stdin, -f -, quoting, comments, syntax errors ---------------------------------
mkdir -p "$dir/with space"
cp "$ctl" "$dir/with space/c m.wasm"
cat >"$dir/q.hz" <<EOF
validate '$dir/with space/c m.wasm' # single quotes
validate "$dir/with space/c m.wasm"; # double quotes, a ';' and nothing after it
validate $dir/with\\ space/c\\ m.wasm
help 'set' # help works in scripts
EOF
"$HEISEN" <"$dir/q.hz" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 0 ] || bad "heisen < q.hz: exit $rc: $(snippet "$dir/err")"
[ "$(grep -c 'c m.wasm' "$dir/out")" -eq 3 ] || bad "quoted file names: $(snippet "$dir/out")"
grep -q "usage: heisen set" "$dir/out" || bad "help in a script printed no help"
"$HEISEN" -f - <"$dir/e.hz" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "^stdin:3: " "$dir/err" || bad "-f - with an error on line 3: exit $rc: $(snippet "$dir/err")"

printf 'version\nversion\nvalidate "%s\nversion\n' "$ctl" >"$dir/u.hz"
run -f "$dir/u.hz" --keep-going
[ "$rc" -eq 2 ] || bad "unclosed quote: exit $rc, want 2"
grep -q "u.hz:3: unclosed quote" "$dir/err" || bad "unclosed quote not reported on line 3: $(snippet "$dir/err")"
[ "$(grep -c '^heisen ' "$dir/out")" -eq 3 ] || bad "--keep-going after a syntax error: lines 1, 2 and 4 should run"
run -c "version; validate 'a"
[ "$rc" -eq 2 ] && grep -q "^-c: unclosed quote" "$dir/err" || bad "-c unclosed quote: exit $rc: $(snippet "$dir/err")"
[ -s "$dir/out" ] && bad "-c with a syntax error ran a command of the line"

finish t_script
