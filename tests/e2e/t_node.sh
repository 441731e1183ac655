#!/usr/bin/env bash
# heisen node: add, list (table and heisen.nodes/1), remove, duplicates
# and unknown names; hostile names and URLs refused with exit 2 and
# nothing stored; check through a stand-in for ssh (HEISEN_SSH) that
# records its argv and runs the remote words here, so no sshd is needed;
# an unreachable node (HEISEN_SSH=false, a missing transport, a timeout)
# exits 1; node self's heisen.node-self/1; session defaults (set db,
# set timeout) reach only the sub-commands that take them.
. "$(dirname "$0")/lib.sh"
unset HEISEN_DB HEISEN_SSH

if ! command -v python3 >/dev/null || ! command -v sqlite3 >/dev/null; then
	echo "  FAIL: python3 and sqlite3 are needed"
	exit 1
fi
db=$dir/w.db
count() { sqlite3 "$db" "SELECT count(*) FROM remotes"; }

expect 0 "add" "$HEISEN" node add pi ssh://me@pi.local:2222/home/me/heisen.db --db "$db"
expect 0 "add without user and port" "$HEISEN" node add box ssh://box/srv/w.db --db "$db"
expect 2 "duplicate name" "$HEISEN" node add pi ssh://other/x.db --db "$db"
grep -q "already has a node called pi" "$dir/err" || bad "duplicate: $(snippet "$dir/err")"
[ "$(count)" = 2 ] || bad "after add: $(count) nodes, expected 2"

expect 0 "list" "$HEISEN" node list --db "$db"
grep -q "^pi .*ssh://me@pi.local:2222/home/me/heisen.db" "$dir/out" ||
	bad "list: $(snippet "$dir/out")"
expect 0 "list --json" "$HEISEN" node list --db "$db" --json
python3 - "$dir/out" <<'PY' || bad "list --json: $(snippet "$dir/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.nodes/1", d
n = {x["name"]: x for x in d["nodes"]}
pi, box = n["pi"], n["box"]
assert (pi["user"], pi["host"], pi["port"], pi["path"]) == \
    ("me", "pi.local", 2222, "/home/me/heisen.db"), pi
assert (box["user"], box["port"], box["host"]) == (None, None, "box"), box
assert pi["last_fetch"] is None and pi["runs_fetched"] == 0, pi
assert pi["added"] > 1.6e9, pi
PY

# Hostile names and URLs: refused, nothing stored.
nl=$'\n'
for name in 'a;rm -rf /' '$(x)' '-oProxyCommand=x' 'a b' "a'b" 'a"b' \
	"a${nl}b" 'a`id`' '' "$(printf 'n%.0s' {1..65})"; do
	expect 2 "name '$name'" "$HEISEN" node add "$name" ssh://h/w.db --db "$db"
done
for url in 'ssh://a;rm -rf /x/w.db' 'ssh://$(x)/w.db' \
	'ssh://-oProxyCommand=x/w.db' 'ssh://-p22/w.db' 'ssh://h/w db' \
	"ssh://h/w'.db" 'ssh://h/w".db' 'ssh://h/a`id`' "ssh://h/a${nl}b" \
	'ssh://u;x@h/w.db' 'ssh://-ox@h/w.db' 'ssh://@h/w.db' \
	'http://h/w.db' 'h:/w.db' 'ssh:///w.db' 'ssh://h' 'ssh://h/' \
	'ssh://h:0/w.db' 'ssh://h:65536/w.db' 'ssh://h:x/w.db' \
	'ssh://h:/w.db' 'ssh://[::1]/w.db' 'ssh://h/~/w.db' 'ssh://h/$HOME'; do
	expect 2 "url '$url'" "$HEISEN" node add ok "$url" --db "$db"
done
[ "$(count)" = 2 ] || bad "hostile input stored something: $(count) nodes"
expect 2 "a bad port says so" "$HEISEN" node add ok ssh://h:99999/w.db --db "$db"
grep -q "port of the URL is not a number from 1 to 65535" "$dir/err" ||
	bad "bad port message: $(snippet "$dir/err")"

# node self.
expect 0 "self" "$HEISEN" node self --json
python3 - "$dir/out" "$(nproc)" "$(uname -m)" <<'PY' || bad "self --json: $(snippet "$dir/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.node-self/1", d
assert d["cores"] == int(sys.argv[2]) and d["arch"] == sys.argv[3], d
assert d["version"] and d["hostname"], d
PY

# check through a stand-in for ssh: it records its argv, drops ssh's
# options and the destination, and runs the remote words here as ssh
# does on the node: joined with spaces, by a shell.
mkdir "$dir/bin"
ln -s "$HEISEN" "$dir/bin/heisen"
cat >"$dir/fakessh" <<EOF2
#!/usr/bin/env bash
printf '%s\n' "\$@" >"$dir/argv"
while [ \$# -gt 0 ]; do
	case \$1 in -p | -o) shift 2 ;; -*) shift ;; *) break ;; esac
done
shift
PATH="$dir/bin:\$PATH" exec sh -c "\$*"
EOF2
chmod +x "$dir/fakessh"
export HEISEN_SSH="$dir/fakessh -x"
expect 0 "check" "$HEISEN" node check pi --db "$db" --json
python3 - "$dir/out" "$(nproc)" <<'PY' || bad "check --json: $(snippet "$dir/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.node-check/1" and d["name"] == "pi", d
assert d["reachable"] is True and d["error"] is None, d
assert d["cores"] == int(sys.argv[2]) and d["version"] and d["arch"], d
PY
printf '%s\n' -x -p 2222 -o BatchMode=yes me@pi.local "'heisen'" "'node'" \
	"'self'" "'--json'" >"$dir/argv.want"
cmp -s "$dir/argv" "$dir/argv.want" ||
	bad "check's transport argv: $(tr '\n' ' ' <"$dir/argv")"
expect 0 "check, plain" "$HEISEN" node check box --db "$db"
grep -q "^box: reachable, heisen " "$dir/out" || bad "check plain: $(snippet "$dir/out")"
printf '%s\n' -x -o BatchMode=yes box "'heisen'" "'node'" "'self'" "'--json'" \
	>"$dir/argv.want"
cmp -s "$dir/argv" "$dir/argv.want" ||
	bad "check box's transport argv: $(tr '\n' ' ' <"$dir/argv")"

# Unreachable: exit 1, with the transport's last error line.
HEISEN_SSH=false expect 1 "check, transport fails" "$HEISEN" node check pi --db "$db" --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reachable"] is False and "exited with 1" in d["error"], d
' "$dir/out" || bad "check unreachable --json: $(snippet "$dir/out")"
cat >"$dir/failssh" <<'EOF2'
#!/bin/sh
echo "debug1: trying" >&2
echo "ssh: connect to host pi.local port 2222: Connection refused" >&2
exit 255
EOF2
chmod +x "$dir/failssh"
HEISEN_SSH=$dir/failssh expect 1 "check, connection refused" "$HEISEN" node check pi --db "$db"
grep -q "^pi: unreachable: .*exited with 255: ssh: connect to host pi.local port 2222: Connection refused$" \
	"$dir/out" || bad "check's last stderr line: $(snippet "$dir/out")"
HEISEN_SSH=$dir/no-such-ssh expect 1 "check, no transport" "$HEISEN" node check pi --db "$db"
grep -q "cannot run $dir/no-such-ssh" "$dir/out" || bad "missing transport: $(snippet "$dir/out")"
printf '#!/bin/sh\nexec sleep 30\n' >"$dir/slowssh"
chmod +x "$dir/slowssh"
start=$(date +%s)
HEISEN_SSH=$dir/slowssh expect 1 "check, timeout" "$HEISEN" node check pi --db "$db" --timeout 0.5
[ $(($(date +%s) - start)) -lt 10 ] || bad "check --timeout 0.5 took too long"
grep -q "no answer in time" "$dir/out" || bad "timeout: $(snippet "$dir/out")"
printf '#!/bin/sh\necho hello\n' >"$dir/otherssh"
chmod +x "$dir/otherssh"
HEISEN_SSH=$dir/otherssh expect 1 "check, not heisen" "$HEISEN" node check pi --db "$db"
grep -q "not as 'heisen node self --json' does" "$dir/out" || bad "not heisen: $(snippet "$dir/out")"

# Usage errors and unknown nodes: exit 2.
expect 2 "check unknown" "$HEISEN" node check nope --db "$db"
grep -q "has no node called nope" "$dir/err" || bad "check unknown: $(snippet "$dir/err")"
expect 2 "check bad timeout" "$HEISEN" node check pi --db "$db" --timeout soon
expect 2 "remove unknown" "$HEISEN" node remove nope --db "$db"
expect 2 "unknown sub-command" "$HEISEN" node frob --db "$db"
expect 2 "add, one operand" "$HEISEN" node add pi --db "$db"
expect 2 "add --json" "$HEISEN" node add x ssh://h/w.db --json --db "$db"
expect 2 "list --timeout" "$HEISEN" node list --timeout 1 --db "$db"
expect 2 "list, no workspace" "$HEISEN" node list --db "$dir/none.db"
[ ! -e "$dir/none.db" ] || bad "node list created a workspace"
expect 0 "help node" "$HEISEN" help node
grep -q "Exit status:" "$dir/out" || bad "help node has no exit status"

# Session defaults reach only the sub-commands that take them.
expect 0 "set db and timeout in a script" "$HEISEN" -c \
	"set db $db; set timeout 5s; node list; node self; node check box"
grep -q "^box: reachable" "$dir/out" || bad "script: $(snippet "$dir/out")"

expect 0 "remove" "$HEISEN" node remove pi --db "$db"
[ "$(count)" = 1 ] || bad "after remove: $(count) nodes, expected 1"
expect 0 "remove the last" "$HEISEN" node remove box --db "$db"
expect 0 "list empty" "$HEISEN" node list --db "$db"
grep -q "^no nodes in " "$dir/out" || bad "empty list: $(snippet "$dir/out")"

# dispatch, status and fetch through the stand-in (t_ssh.sh does it through
# a real sshd): the program is sent once and swept on the "node" (here, a
# workspace of this machine named by HEISEN_NODE), and its runs come home.
need_demos
home=$dir/home.db
nodews=$dir/node/ws.db
mkdir "$dir/node"
expect 0 "add a local node" "$HEISEN" node add loc "ssh://127.0.0.1$nodews" --db "$home"
export HEISEN_SSH="$dir/fakessh -x"
# Words a shell would run, given to the program as arguments: they must
# arrive as they are, never as commands.
HEISEN_NODE=far expect 0 "dispatch" "$HEISEN" dispatch loc \
	"$root/demos/build/fibonacci.wasm" --densities 100 --runs 3 \
	--profiles default --db "$home" -- "x; touch $dir/pwned" "\$(touch $dir/pwned2)"
grep -q "^loc: sweep of fibonacci.wasm started (pid [0-9]* on the node" \
	"$dir/out" || bad "dispatch: $(snippet "$dir/out") $(snippet "$dir/err")"
stored=$(ls "$dir"/node/heisen-programs/*/fibonacci.wasm 2>/dev/null)
cmp -s "$stored" "$root/demos/build/fibonacci.wasm" || bad "program not stored as sent"
for i in $(seq 100); do
	grep -q '"status":"done"' "$dir/status.json" 2>/dev/null && break
	sleep 0.2
	"$HEISEN" node status loc --db "$home" --json >"$dir/status.json" 2>&1
done
grep -q '"status":"done"' "$dir/status.json" || bad "node status: $(snippet "$dir/status.json")"
[ ! -e "$dir/pwned" ] && [ ! -e "$dir/pwned2" ] || bad "a program argument ran as a shell command"
expect 0 "fetch" "$HEISEN" fetch loc --db "$home"
grep -q "^loc: 3 runs added (1 campaigns, [0-9]* bugs new), cursor 3$" "$dir/out" ||
	bad "fetch: $(snippet "$dir/out") $(snippet "$dir/err")"
[ "$(sqlite3 "$home" "SELECT DISTINCT n.hostname FROM runs r JOIN nodes n ON n.id = r.node_id")" = far ] ||
	bad "fetched runs do not keep their node"
expect 0 "fetch again" "$HEISEN" fetch --all --db "$home" --json
grep -q '"runs_added":0' "$dir/out" || bad "second fetch: $(snippet "$dir/out")"
[ "$(sqlite3 "$home" "SELECT cursor || ' ' || runs_fetched FROM remotes")" = "3 3" ] ||
	bad "cursor and count after two fetches"
# Sent once: a second dispatch finds the program and does not store it anew.
touch -d @1 "$stored"
HEISEN_NODE=far expect 0 "dispatch again" "$HEISEN" dispatch loc \
	"$root/demos/build/fibonacci.wasm" --densities 100 --runs 1 --profiles default --db "$home"
[ "$(stat -c %Y "$stored")" = 1 ] || bad "the program was stored again"
# The TUI's Nodes screen (3) learns in the background whether each node
# answers and what its newest campaign is, and fetches with f.
for i in $(seq 100); do
	"$HEISEN" node status loc --db "$home" --json 2>/dev/null | python3 -c '
import json, sys
c = json.load(sys.stdin)["campaigns"][0]
sys.exit(c["id"] != 2 or c["status"] != "done")' 2>/dev/null && break
	sleep 0.2
done
if command -v tmux >/dev/null; then
	sock=heisen-node-$$
	tm() { tmux -L "$sock" "$@"; }
	export TMUX_TMPDIR=$dir
	TMUX= HEISEN_SSH="$dir/fakessh -x" tm new-session -d -s tui -x 120 -y 24 \
		"$HEISEN tui --db $home"
	seen=
	for i in $(seq 100); do
		[ $i = 3 ] && tm send-keys -t tui 3
		seen=$(tm capture-pane -p -t tui 2>/dev/null)
		grep -Eq '^loc +127\.0\.0\.1 +yes +#2 done 1/1 ' <<<"$seen" && break
		sleep 0.1
	done
	grep -Eq '^loc +127\.0\.0\.1 +yes +#2 done 1/1 ' <<<"$seen" ||
		bad "Nodes screen: no 'loc ... yes #2 done 1/1' row: $(head -c 600 <<<"$seen")"
	tm send-keys -t tui f
	for i in $(seq 100); do
		seen=$(tm capture-pane -p -t tui 2>/dev/null)
		grep -q '^loc: 1 runs added' <<<"$seen" && break
		sleep 0.1
	done
	grep -q '^loc: 1 runs added' <<<"$seen" || bad "Nodes screen f: $(head -c 600 <<<"$seen")"
	tm kill-server 2>/dev/null
fi
expect 2 "dispatch, no program" "$HEISEN" dispatch loc --db "$home"
expect 2 "dispatch, unknown node" "$HEISEN" dispatch nope "$root/demos/build/fibonacci.wasm" --db "$home"
expect 2 "fetch, nothing named" "$HEISEN" fetch --db "$home"
expect 2 "fetch, both" "$HEISEN" fetch loc --all --db "$home"
# The node's side refuses what it cannot trust.
expect 2 "receive, bad hash" "$HEISEN" node receive --db "$nodews" xyz fib.wasm
expect 2 "receive, bad name" "$HEISEN" node receive --db "$nodews" 0123456789abcdef ../x.wasm
printf 'junk' | expect 2 "receive, wrong bytes" "$HEISEN" node receive --db "$nodews" 0123456789abcdef j.wasm
grep -q "arrived with hash" "$dir/err" || bad "receive, wrong bytes: $(snippet "$dir/err")"
expect 2 "start, not a sweep" "$HEISEN" node start --db "$nodews" -- rm x
# A URL naming a directory means its heisen.db; a sweep that cannot start
# on the node is reported by dispatch, not only in the node's log.
mkdir "$dir/dirnode"
expect 0 "add a directory node" "$HEISEN" node add dirn "ssh://127.0.0.1$dir/dirnode" --db "$home"
HEISEN_NODE=far expect 0 "dispatch to a directory" "$HEISEN" dispatch dirn \
	"$root/demos/build/fibonacci.wasm" --densities 100 --runs 1 --profiles default --db "$home"
[ -f "$dir/dirnode/heisen.db" ] || bad "directory node: no DIR/heisen.db: $(snippet "$dir/err")"
expect 2 "add, URL ends with /" "$HEISEN" node add slash "ssh://127.0.0.1$dir/dirnode/" --db "$home"
grep -q "ends with '/'.*heisen.db" "$dir/err" || bad "slash URL: $(snippet "$dir/err")"
printf 'not a database, long enough to be read as one' >"$dir/junk.db"
expect 0 "add a node on junk" "$HEISEN" node add junk "ssh://127.0.0.1$dir/junk.db" --db "$home"
HEISEN_NODE=far expect 1 "dispatch, workspace unusable" "$HEISEN" dispatch junk \
	"$root/demos/build/fibonacci.wasm" --densities 100 --runs 1 --profiles default --db "$home"
grep -q "^heisen dispatch: junk: .*not a heisen database" "$dir/err" ||
	bad "dispatch to an unusable workspace: $(snippet "$dir/out") $(snippet "$dir/err")"
unset HEISEN_SSH
# Slurm nodes: hostile partitions, accounts and URLs are refused, nothing
# stored.
n0=$(sqlite3 "$home" "SELECT count(*) FROM remotes")
for bad_add in "slurm:///s --partition a;b" "slurm:///s --partition -x" \
	"slurm:///s --account \$(id)" "slurm:///s --time 1h" "slurm:///s --tasks 0" \
	"slurm://-oProxyCommand=x/s" "slurm:///s?partition=\`id\`" "ssh://h/w.db --partition p"; do
	url=${bad_add%% *}
	opts=${bad_add#"$url"}
	# shellcheck disable=SC2086
	expect 2 "node add $bad_add" "$HEISEN" node add hostile "$url" $opts --db "$home"
done
[ "$(sqlite3 "$home" "SELECT count(*) FROM remotes")" = "$n0" ] || bad "a hostile node was stored"
expect 0 "add a Slurm node" "$HEISEN" node add cl slurm:///scratch/h --partition debug \
	--account lab --time 10:00 --tasks 8 --db "$home"
[ "$(sqlite3 "$home" "SELECT url FROM remotes WHERE name = 'cl'")" = \
	"slurm:///scratch/h?partition=debug&account=lab&time=10:00&tasks=8" ] ||
	bad "Slurm node URL: $(sqlite3 "$home" "SELECT url FROM remotes WHERE name = 'cl'")"

finish t_node
