#!/usr/bin/env bash
# heisen node through a real ssh and sshd on loopback (lib_sshd.sh), where
# t_node.sh uses a stand-in: a key login reaches the node's heisen, check
# reports it in words and as heisen.node-check/1, and a port with nothing
# listening is unreachable with ssh's own reason. Then two sshds are two
# machines, a and b (HEISEN_NODE): a sweep dispatched to both and fetched
# home shows each as its own row; a second fetch adds nothing; a program
# is sent once; its arguments never reach a shell; and a fetch cut short
# or corrupted on the way is refused with the workspace unchanged.
# Skipped where no sshd can start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_sshd.sh"
unset HEISEN_DB

sshd_start
home=$dir/home.db

# The harness itself: a session must run the heisen under test, not one
# that a shell start-up file put earlier on PATH.
# shellcheck disable=SC2086 # HEISEN_SSH is words, as heisen splits it
expect 0 "ssh to the test's sshd" $HEISEN_SSH -p "$sshd_port" \
	"$ssh_user@127.0.0.1" 'command -v heisen'
[ "$(readlink -f "$(cat "$dir/out")")" = "$(readlink -f "$HEISEN")" ] ||
	bad "sessions find another heisen: $(snippet "$dir/out")"

expect 0 "add" "$HEISEN" node add a \
	"ssh://$ssh_user@127.0.0.1:$sshd_port$dir/a.db" --db "$home"
expect 0 "check" "$HEISEN" node check a --db "$home"
version=$("$HEISEN" version | sed 's/^heisen //')
grep -qx "a: reachable, heisen $version on $(hostname) ($(uname -m), $(nproc) cores)" \
	"$dir/out" || bad "check: $(snippet "$dir/out")"
expect 0 "check --json" "$HEISEN" node check a --db "$home" --json
python3 - "$dir/out" "$version" "$(nproc)" <<'PY' || bad "check --json: $(snippet "$dir/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.node-check/1" and d["name"] == "a", d
assert d["reachable"] is True and d["error"] is None, d
assert d["version"] == sys.argv[2] and d["cores"] == int(sys.argv[3]), d
PY

# Nothing listens on the port: ssh's own reason comes back, exit 1.
expect 0 "add a node on a closed port" "$HEISEN" node add closed \
	"ssh://$ssh_user@127.0.0.1:$(sshd_free_port)$dir/c.db" --db "$home"
expect 1 "check a closed port" "$HEISEN" node check closed --db "$home"
grep -q "^closed: unreachable: .*Connection refused" "$dir/out" ||
	bad "closed port: $(snippet "$dir/out")"

# --- dispatch and fetch: two machines, a and b, each an sshd whose
# sessions are that node (HEISEN_NODE), with a workspace of its own. The
# nodes above go: fetch --all would try the closed port.
expect 0 "remove a" "$HEISEN" node remove a --db "$home"
expect 0 "remove closed" "$HEISEN" node remove closed --db "$home"
need_demos
fib=$root/demos/build/fibonacci.wasm
sshd_start a
port_a=$sshd_port
sshd_start b
port_b=$sshd_port
mkdir -p "$dir/na" "$dir/nb"
ws_a=$dir/na/w.db
ws_b=$dir/nb/w.db
expect 0 "add a" "$HEISEN" node add a "ssh://$ssh_user@127.0.0.1:$port_a$ws_a" --db "$home"
expect 0 "add b" "$HEISEN" node add b "ssh://$ssh_user@127.0.0.1:$port_b$ws_b" --db "$home"

# The sweeps dispatch started (their pids: this is one machine), stopped
# when the test gives up on them: they write under $dir.
sweeps=()
reap() {
	local p
	for p in "${sweeps[@]}"; do kill "$p" 2>/dev/null; done
}

# dispatched FILE NODE...: check dispatch --json (FILE) started a sweep
# on each NODE, its program stored under the node's workspace; note the
# sweeps' pids.
dispatched() {
	local json=$1
	shift
	# shellcheck disable=SC2207 # pids, one a word
	sweeps+=($(grep -o '"pid [0-9]*' "$json" | cut -c6-))
	python3 - "$json" "$dir" "$@" <<'PY' && return 0
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.dispatch/1" and d["program"] == "fibonacci.wasm", d
assert [n["name"] for n in d["nodes"]] == sys.argv[3:], d
for n in d["nodes"]:
    w = f'{sys.argv[2]}/n{n["name"]}'
    assert n["ok"] and n["error"] is None, n
    assert n["program_path"] == f'{w}/heisen-programs/{d["hash"]}/fibonacci.wasm', n
    m = re.fullmatch(r"pid (\d+) on the node, log (.*)", n["started"])
    assert m and m[2] == f"{w}/heisen-dispatch.log", n
PY
	bad "dispatch --json: $(snippet "$json")"
	reap
	return 1
}

# wait_done NAME N: until node NAME's workspace has N campaigns, all done
# (node status, through ssh). Each sweep here takes a second or two: 120 s
# means it is stuck, and the test ends there.
wait_done() {
	local end=$((SECONDS + 120)) rc
	while [ "$SECONDS" -lt "$end" ]; do
		"$HEISEN" node status "$1" --db "$home" --json >"$dir/status" 2>"$dir/err"
		python3 - "$dir/status" "$2" <<'PY'
import json, sys
try:
    c = json.load(open(sys.argv[1]))["campaigns"]
except ValueError:
    sys.exit(1)
if any(x["status"] not in ("running", "done") for x in c):
    sys.exit(2)
sys.exit(0 if len(c) == int(sys.argv[2]) and all(x["status"] == "done" for x in c) else 1)
PY
		rc=$?
		[ "$rc" -eq 0 ] && return 0
		[ "$rc" -eq 2 ] && break
		sleep 0.3
	done
	bad "node $1: not $2 campaigns done: $(snippet "$dir/status") $(snippet "$dir/err") log: $(tail -c 300 "$dir/n$1/heisen-dispatch.log" 2>&1)"
	reap
	finish t_ssh
}

expect 0 "dispatch" "$HEISEN" dispatch a b "$fib" --densities 50,100 --runs 4 \
	--profiles default,throttled --db "$home" --json
cp "$dir/out" "$dir/dispatch.json"
dispatched "$dir/dispatch.json" a b || finish t_ssh
wait_done a 1
wait_done b 1
expect 0 "node status" "$HEISEN" node status a --db "$home"
grep -q "fibonacci.wasm .* done  *16/16 " "$dir/out" ||
	bad "node status: $(snippet "$dir/out")"

expect 0 "fetch a b" "$HEISEN" fetch a b --db "$home"
for n in a b; do
	grep -qx "$n: 16 runs added (1 campaigns, [0-9]* bugs new), cursor 16" "$dir/out" ||
		bad "fetch a b, node $n: $(snippet "$dir/out")"
done
[ "$(sqlite3 "$home" 'SELECT count(*) FROM runs')" = 32 ] ||
	bad "fetch a b: $(sqlite3 "$home" 'SELECT count(*) FROM runs') runs at home, expected 32"

# A bug both machines saw: show and grid give each machine its rows, by
# the name its sessions had (HEISEN_NODE is the host name).
expect 0 "bugs --json" "$HEISEN" bugs --db "$home" --json
both=
for b in $(python3 -c 'import json, sys
print(" ".join(str(b["id"]) for b in json.load(open(sys.argv[1]))["bugs"]))' "$dir/out"); do
	"$HEISEN" show "$b" --db "$home" --json >"$dir/show.json" 2>"$dir/err" ||
		bad "show $b: $(snippet "$dir/err")"
	if python3 - "$dir/show.json" <<'PY'; then both=$b; break; fi
import json, sys
seen = {c["node"] for c in json.load(open(sys.argv[1]))["cells"] if c["k"]}
sys.exit(seen != {"a", "b"})
PY
done
if [ -z "$both" ]; then
	bad "no bug detected on both nodes: $(snippet "$dir/out")"
else
	python3 - "$dir/show.json" <<'PY' || bad "show $both --json: $(snippet "$dir/show.json")"
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
for node in ("a", "b"):
    mine = [c for c in cells if c["node"] == node]
    assert len(mine) == 4 and sum(c["n"] for c in mine) == 16, (node, mine)
    assert {(c["profile"], c["density_bp"]) for c in mine} == {
        (p, d) for p in ("default", "throttled") for d in (5000, 10000)}, mine
assert len({c["node_id"] for c in cells}) == 2, cells
PY
	expect 0 "grid --json" "$HEISEN" grid "$both" --db "$home" --json
	python3 - "$dir/out" <<'PY' || bad "grid $both --json: $(snippet "$dir/out")"
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
for node in ("a", "b"):
    mine = [c for c in cells if c["node"] == node]
    assert len(mine) == 4 and all(c["runs"] == 4 for c in mine), (node, mine)
    assert any(c["detected"] for c in mine), (node, mine)
assert len(cells) == 8, cells
PY
fi

# Fetched already: nothing more comes.
expect 0 "fetch --all again" "$HEISEN" fetch --all --db "$home" --json
python3 - "$dir/out" <<'PY' || bad "fetch --all again: $(snippet "$dir/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.fetch/1" and [n["name"] for n in d["nodes"]] == ["a", "b"], d
for n in d["nodes"]:
    assert n["ok"] and n["error"] is None and n["cursor"] == 16, n
    assert n["runs_added"] == n["campaigns_added"] == n["bugs_added"] == 0, n
PY
[ "$(sqlite3 "$home" 'SELECT count(*) FROM runs')" = 32 ] ||
	bad "fetch --all again: the runs at home went from 32 to $(sqlite3 "$home" 'SELECT count(*) FROM runs')"

# Dispatched again, the program is not sent again: the node keeps the file
# it has (a new one would be renamed in: another inode). The program's
# arguments are words, never shell: nothing of them runs, on either side,
# and they reach the sweep as given, a '--db' among them too.
stored=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["nodes"][0]["program_path"])' "$dir/dispatch.json")
was=$(stat -c '%i %y' "$stored")
hostile=("x; touch $dir/pwned" "\$(touch $dir/pwned2)" "\`touch $dir/pwned3\`"
	"it's" '' "--db" "$dir/other.db")
expect 0 "dispatch again" "$HEISEN" dispatch a "$fib" --densities 100 --runs 1 \
	--profiles default --db "$home" --json -- "${hostile[@]}"
dispatched "$dir/out" a || finish t_ssh
wait_done a 2
[ "$(stat -c '%i %y' "$stored")" = "$was" ] ||
	bad "dispatch again sent the program again: $was, now $(stat -c '%i %y' "$stored")"
for f in pwned pwned2 pwned3 other.db; do
	[ ! -e "$dir/$f" ] || bad "dispatch's program arguments made $dir/$f"
done
python3 - "$ws_a" "${hostile[@]}" <<'PY' || bad "the sweep did not get the arguments as given"
import sqlite3, sys
(args,) = sqlite3.connect(sys.argv[1]).execute(
    "SELECT args FROM campaigns ORDER BY id DESC LIMIT 1").fetchone()
got = args.split(b"\0")[:-1]
want = [a.encode() for a in sys.argv[2:]]
assert got == want, (got, want)
PY

# A name the node would refuse is refused here, before any ssh.
cp "$fib" "$dir/fib+1.wasm"
expect 2 "dispatch fib+1.wasm" "$HEISEN" dispatch a "$dir/fib+1.wasm" --db "$home"
grep -q "letters, digits" "$dir/err" || bad "dispatch fib+1.wasm: $(snippet "$dir/err")"

# --- A fetch cut short or corrupted on the way adds nothing, and leaves
# the cursor where it was; the next good one brings everything. A new
# home workspace, so that there is something to fetch.
HEISEN_NODE=a "$HEISEN" export --db "$ws_a" -o "$dir/full.hsync" 2>"$dir/err" ||
	bad "export of a: $(snippet "$dir/err")"
size=$(stat -c %s "$dir/full.hsync")
nruns=$(sqlite3 "$ws_a" 'SELECT count(*) FROM runs')
home2=$dir/home2.db
expect 0 "add a to home2" "$HEISEN" node add a "ssh://$ssh_user@127.0.0.1:$port_a$ws_a" --db "$home2"

# The runs at home, a's row (cursor, runs fetched, last fetch) and
# SQLite's own check: the workspace's state, which the file's bytes are
# not (WAL).
state() {
	sqlite3 "$home2" "SELECT count(*) FROM runs;
		SELECT cursor, runs_fetched, coalesce(last_fetch, '-') FROM remotes WHERE name = 'a';
		PRAGMA integrity_check" | tr '\n' ' '
}
before=$(state)
[ "$before" = "0 0|0|- ok " ] || bad "home2 at the start: $before"

# The transports: the real ssh, its output cut after $CUT bytes (then
# exiting $CUT_EXIT), or with one byte flipped half way.
cat >"$dir/cut.sh" <<EOF
#!/bin/sh
$HEISEN_SSH "\$@" | head -c "\$CUT"
exit "\$CUT_EXIT"
EOF
cat >"$dir/flip.sh" <<EOF
#!/bin/sh
$HEISEN_SSH "\$@" | python3 -c 'import sys
b = bytearray(sys.stdin.buffer.read())
b[len(b) // 2] ^= 0x20
sys.stdout.buffer.write(b)'
EOF
chmod +x "$dir/cut.sh" "$dir/flip.sh"

# refused WHAT [VAR=VALUE...]: fetch a through those transports fails
# and home2 is as it was.
refused() {
	local what=$1
	shift
	expect 1 "fetch, $what" env "$@" "$HEISEN" fetch a --db "$home2"
	if ! grep -q "^heisen fetch: a: .*; nothing was imported from it$" "$dir/err" ||
		[ "$(grep -c "nothing was imported" "$dir/err")" != 1 ]; then
		bad "fetch, $what: $(snippet "$dir/err")"
	fi
	[ "$(state)" = "$before" ] || bad "fetch, $what: home2 went from '$before' to '$(state)'"
}
half=$((size / 2))
cut=$((RANDOM % (size - 1) + 1))
refused "half the stream, then exit 0" HEISEN_SSH="$dir/cut.sh" CUT=$half CUT_EXIT=0
refused "half the stream, then exit 255" HEISEN_SSH="$dir/cut.sh" CUT=$half CUT_EXIT=255
refused "cut after $cut of $size bytes" HEISEN_SSH="$dir/cut.sh" CUT=$cut CUT_EXIT=0
refused "a byte flipped" HEISEN_SSH="$dir/flip.sh"

expect 0 "fetch after the failed ones" "$HEISEN" fetch a --db "$home2"
grep -qx "a: $nruns runs added (2 campaigns, [0-9]* bugs new), cursor $nruns" "$dir/out" ||
	bad "fetch after the failed ones: $(snippet "$dir/out")"
after=$(state)
case $after in "$nruns $nruns|$nruns|"[0-9]*" ok ") ;;
*) bad "home2 after the good fetch: $after" ;;
esac

finish t_ssh
