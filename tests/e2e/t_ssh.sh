#!/usr/bin/env bash
# heisen node through a real ssh and sshd on loopback (lib_sshd.sh), where
# t_node.sh uses a stand-in: a key login reaches the node's heisen, check
# reports it in words and as heisen.node-check/1, and a port with nothing
# listening is unreachable with ssh's own reason. Skipped where no sshd
# can start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_sshd.sh"
unset HEISEN_DB

sshd_start
home=$dir/home.db

# expect CODE WHAT CMD...: run CMD, check its exit status.
expect() {
	local want=$1 what=$2
	shift 2
	"$@" >"$dir/out" 2>"$dir/err"
	local got=$?
	[ "$got" -eq "$want" ] ||
		bad "$what: exit $got, expected $want: $(snippet "$dir/err")"
}

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

# --- dispatch and fetch through the node: checks go here once heisen
# --- dispatch, node status and heisen fetch exist (docs/nodes.md).

finish t_ssh
