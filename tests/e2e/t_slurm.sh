#!/usr/bin/env bash
# Slurm nodes (docs/slurm.md) on a real one-machine cluster started here
# (lib_slurm.sh: munged, slurmctld and slurmd from Debian's packages):
# a 400-run fibonacci campaign dispatched as 16 array tasks comes home as
# one campaign, every plan index once, with the bugs of a local sweep of
# the same plan, and a second fetch adds nothing; a task cancelled
# mid-run keeps its finished runs and `dispatch --resume` runs only the
# rest (a slice another task took, through that task); a truncated task
# file is refused while the others are imported
# (and so is the export a task left beside its file, damaged, until the
# file changes); a campaign home whole calls nothing on the cluster, and
# `fetch --wait` brings a resumed slice home as its task ends;
# hostile program arguments reach the tasks as given; Slurm's failures
# are messages that say what to do. Skipped only where the daemons cannot
# start (not root, packages missing).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_slurm.sh"
need_demos
slurm_start 2 || { bad "the cluster did not come up"; finish t_slurm; }

# The tasks run the heisen under test: sbatch hands them this PATH. Its
# calls are logged: a fetch of what is already home calls nothing there.
mkdir "$dir/bin" "$dir/shared"
printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$dir/heisen.log" "$HEISEN" >"$dir/bin/heisen"
chmod +x "$dir/bin/heisen"
# squeue as heisen calls it, logged: a fetch asks Slurm only about tasks
# that left no stream.
printf '#!/bin/sh\necho "$*" >>"%s"\nexec %s "$@"\n' "$dir/squeue.log" "$(command -v squeue)" >"$dir/bin/squeue"
chmod +x "$dir/bin/squeue"
export PATH=$dir/bin:$PATH
fib=$root/demos/build/fibonacci.wasm
home=$dir/home.db
host=$(hostname -s)

# Runs of one task of the first campaign; the job of a dispatch's answer.
job_of() { sed -n 's/.* as Slurm job \([0-9]*\):.*/\1/p' "$dir/out"; }

# A time limit: a task takes the slices of pending tasks while the time
# it has left (squeue's %L) is more than twice its longest slice.
expect 0 "node add" "$HEISEN" node add cl "slurm://$dir/shared" --tasks 16 --time 10 --db "$home"
expect 0 "node check" "$HEISEN" node check cl --db "$home" --json
python3 - "$dir/out" "$host" <<'PY' || bad "node check: $(snippet "$dir/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "slurm" and d["reachable"] is True, d
assert d["hostname"] == sys.argv[2] and d["partitions"][0].startswith("debug*|up"), d
PY

# 400 runs (2 profiles x 2 densities x 100) in 16 slices of 25.
plan=(--runs 100 --densities 25,100 --profiles default,noisy --seed 0x5eed)
expect 0 "dispatch" "$HEISEN" dispatch cl "$fib" "${plan[@]}" --db "$home" -- \
	"x; touch $dir/pwned" "\$(touch $dir/pwned2)" "it's"
grep -q "^cl: campaign 1 submitted as Slurm job [0-9]*: tasks 0-15 of 16 slices of its 400 runs" "$dir/out" ||
	bad "dispatch: $(snippet "$dir/out") $(snippet "$dir/err")"
job=$(job_of)
job1=$job
dir1=$(sed -n 's/.* writing to \([^;]*\);.*/\1/p' "$dir/out")
expect 0 "node status" "$HEISEN" node status cl --db "$home" --json
python3 - "$dir/out" <<'PY' || bad "node status: $(snippet "$dir/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.node-jobs/1", d
c = d["campaigns"][0]
assert c["id"] == 1 and c["runs_planned"] == 400 and c["slices"] == 16, c
assert sum(c["tasks"].values()) == 16 and len(c["task_states"]) == 16, c
PY
slurm_wait "$job" 90 || bad "job $job did not end"
# Two CPUs for 16 tasks: the two tasks Slurm started first took the
# slices of the others, still pending, and cancelled them; each slice
# counts in the state of the task that ran it.
expect 0 "node status, slices taken" "$HEISEN" node status cl --db "$home" --json
python3 - "$dir/out" <<'PY' || bad "node status after the job: $(snippet "$dir/out")"
import json, sys
c = json.load(open(sys.argv[1]))["campaigns"][0]
assert c["tasks"]["completed"] == 16 and c["slices_taken"] >= 1, c
assert c["task_states"] == ["completed"] * 16, c
PY
# Every slice claimed once, by task 0 or 1 (a link naming the task).
claims=$(for l in "$dir"/shared/heisen-slurm/*/claims-"$job"/*; do readlink "$l"; done | sort | uniq -c | awk '{ print $2 ":" $1 }' | tr '\n' ' ')
case $claims in
"0:"*" 1:"*" ") [ "$(( $(sed 's/[0-9]*:\([0-9]*\) /\1+/g' <<<"$claims") 0 ))" = 16 ] || bad "claims: $claims" ;;
*) bad "slices claimed by other tasks than 0 and 1: $claims" ;;
esac
expect 0 "node status, text" "$HEISEN" node status cl --db "$home"
grep -q "16 completed" "$dir/out" && grep -q "slices* run by tasks that ended their own first" "$dir/out" ||
	bad "node status text: $(snippet "$dir/out")"
# Each task left its export beside its file, and node tasks sends it
# while the file is unchanged: a stream damaged after its header is
# refused and the other tasks imported; once the task file changes
# (touch), the file is exported instead and only that task is fetched.
streams=("$dir"/shared/heisen-slurm/*/task-*.db.stream)
[ "${#streams[@]}" = 16 ] || bad "${#streams[@]} task streams, want 16"
s5=$(ls "$dir"/shared/heisen-slurm/*/task-5.db.stream)
python3 - "$s5" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
body = b.index(b"\n") + 1
b[body + (len(b) - body) // 2] ^= 0x5A
open(sys.argv[1], "wb").write(b)
PY
: >"$dir/squeue.log"
expect 1 "fetch, a damaged task stream" "$HEISEN" fetch cl --db "$home"
[ ! -s "$dir/squeue.log" ] || bad "fetch asked Slurm though every task had ended: $(snippet "$dir/squeue.log")"
grep -q "^heisen fetch: cl: 1 task files refused.*task 5 " "$dir/err" ||
	bad "damaged stream: $(snippet "$dir/err")"
grep -q "^cl: 375 runs added (0 campaigns, [0-9]* bugs new) from 15 task files$" "$dir/out" ||
	bad "fetch: $(snippet "$dir/out") $(snippet "$dir/err")"
touch "${s5%.stream}"
expect 0 "fetch, the task file changed since its stream" "$HEISEN" fetch cl --db "$home"
grep -q "^cl: 25 runs added (0 campaigns, [0-9]* bugs new) from 1 task files$" "$dir/out" ||
	bad "fetch of the one task left: $(snippet "$dir/out") $(snippet "$dir/err")"
[ "$(sqlite3 "$home" "SELECT count(*), count(DISTINCT idx), min(idx), max(idx) FROM runs")" = "400|400|0|399" ] ||
	bad "plan indices: $(sqlite3 "$home" "SELECT count(*), count(DISTINCT idx), min(idx), max(idx) FROM runs")"
[ "$(sqlite3 "$home" "SELECT count(*) FROM campaigns")" = 1 ] || bad "not one campaign at home"
[ "$(sqlite3 "$home" "SELECT status FROM campaigns")" = done ] || bad "campaign not done after the fetch"
[ "$(sqlite3 "$home" "SELECT DISTINCT n.hostname FROM runs r JOIN nodes n ON n.id = r.node_id")" = "$host" ] ||
	bad "runs' node is not the compute node"
[ ! -e "$dir/pwned" ] && [ ! -e "$dir/pwned2" ] || bad "a program argument ran as a shell command"
printf 'x; touch %s/pwned\0$(touch %s/pwned2)\0it'"'"'s\0' "$dir" "$dir" | xxd -p | tr -d '\n' >"$dir/args.want"
for ws in "$home" "$dir"/shared/heisen-slurm/*/task-7.db; do
	[ "$(sqlite3 "$ws" "SELECT lower(hex(args)) FROM campaigns")" = "$(cat "$dir/args.want")" ] ||
		bad "arguments in $ws: $(sqlite3 "$ws" "SELECT hex(args) FROM campaigns")"
done
# The same plan swept here: the same runs (index, seed, cell) and bugs.
hq local sweep "$fib" "${plan[@]}" --jobs 2 --db "$dir/local.db" -- \
	"x; touch $dir/pwned" "\$(touch $dir/pwned2)" "it's"
want local 0
q="SELECT idx, seed, profile, density_bp FROM runs ORDER BY idx"
[ "$(sqlite3 "$home" "$q")" = "$(sqlite3 "$dir/local.db" "$q")" ] || bad "the runs differ from a local sweep's"
q="SELECT func_a, line_a, func_b, line_b FROM bugs ORDER BY 1, 2, 3, 4"
[ "$(sqlite3 "$home" "$q")" = "$(sqlite3 "$dir/local.db" "$q")" ] ||
	bad "bugs differ: slurm $(sqlite3 "$home" "$q" | tr '\n' ' ') local $(sqlite3 "$dir/local.db" "$q" | tr '\n' ' ')"
# A campaign home whole is not asked for again: no call on the cluster.
: >"$dir/squeue.log"
: >"$dir/heisen.log"
expect 0 "fetch again" "$HEISEN" fetch cl --db "$home" --json
python3 - "$dir/out" <<'PY' || bad "second fetch: $(snippet "$dir/out")"
import json, sys
n = json.load(open(sys.argv[1]))["nodes"][0]
assert n["ok"] and n["runs_added"] == 0 and n["task_files"] == 0 and n["fetches"] == 1, n
PY
[ ! -s "$dir/squeue.log" ] && [ ! -s "$dir/heisen.log" ] ||
	bad "a fetch of a campaign home whole called the cluster: $(snippet "$dir/squeue.log") $(snippet "$dir/heisen.log")"
# The TUI's Nodes screen (3) shows the campaign and its tasks' states.
if command -v tmux >/dev/null; then
	sock=heisen-slurm-$$
	tm() { tmux -L "$sock" "$@"; }
	export TMUX_TMPDIR=$dir
	TMUX= tm new-session -d -s tui -x 140 -y 24 "$HEISEN tui --db $home"
	seen=
	for i in $(seq 100); do
		[ $i = 3 ] && tm send-keys -t tui 3
		seen=$(tm capture-pane -p -t tui 2>/dev/null)
		grep -Eq '^cl +local +yes +#1 done 400/400 16 ok' <<<"$seen" && break
		sleep 0.1
	done
	grep -Eq '^cl +local +yes +#1 done 400/400 16 ok' <<<"$seen" ||
		bad "Nodes screen: no 'cl local yes #1 done 400/400 16 ok' row: $(head -c 600 <<<"$seen")"
	tm kill-server 2>/dev/null
fi

# Faults: 4 slices of 150 runs on 2 CPUs. The first task to end its own
# slice takes slice 3 (the last pending); that task is cancelled
# mid-slice: its own slice, ended, stays completed, slice 3 is cancelled.
# Slice 2's file is then truncated by hand.
expect 0 "node add, 4 tasks" "$HEISEN" node add cl4 "slurm://$dir/shared" --tasks 4 --db "$home"
expect 0 "dispatch 600" "$HEISEN" dispatch cl4 "$fib" --runs 150 --densities 100 \
	--profiles default,noisy,one-core,throttled --seed 9 --db "$home"
job=$(job_of)
dir2=$(sed -n 's/.* writing to \([^;]*\);.*/\1/p' "$dir/out")
for i in $(seq 1200); do
	[ -L "$dir2/claims-$job/3" ] &&
		[ "$(sqlite3 "$dir2/task-3.db" "SELECT count(*) FROM runs" 2>/dev/null)" -ge 10 ] 2>/dev/null && break
	sleep 0.1
done
taker=$(readlink "$dir2/claims-$job/3")
case $taker in
0 | 1) ;;
*)
	bad "slice 3 taken by '$taker', not by task 0 or 1"
	taker=0
	;;
esac
scancel "${job}_$taker" || bad "scancel"
slurm_wait "$job" 90 || bad "job $job did not end"
expect 0 "node status, cancelled" "$HEISEN" node status cl4 --db "$home"
grep -q "campaign 2 (fibonacci.wasm): 0/600 runs home, stopped; job $job, 4 tasks: 3 completed 1 cancelled" "$dir/out" ||
	bad "status after scancel: $(snippet "$dir/out")"
expect 0 "node status, cancelled, JSON" "$HEISEN" node status cl4 --db "$home" --json
python3 - "$dir/out" "$taker" <<'PY' || bad "status after scancel: $(snippet "$dir/out")"
import json, sys
c = json.load(open(sys.argv[1]))["campaigns"][0]
t = int(sys.argv[2])
assert c["task_states"][t] == "completed" and c["task_states"][3] == "cancelled", c
assert c["slices_taken"] >= 1, c
PY
cp "$dir2/task-2.db" "$dir/task-2.good"
truncate -s $(($(stat -c %s "$dir2/task-2.db") / 2)) "$dir2/task-2.db"
: >"$dir/squeue.log"
expect 1 "fetch, a truncated task file" "$HEISEN" fetch cl4 --db "$home"
grep -q -- "-j $job" "$dir/squeue.log" || bad "fetch did not ask Slurm about the cancelled task: $(snippet "$dir/squeue.log")"
grep -q "^heisen fetch: cl4: 1 task files refused.*task 2 .*damaged" "$dir/err" ||
	bad "truncated task file: $(snippet "$dir/err")"
[ "$(sqlite3 "$home" "PRAGMA integrity_check")" = ok ] || bad "integrity_check after a refused task"
got=$(sqlite3 "$home" "SELECT count(*) FROM runs WHERE campaign_id = 2")
part=$(sqlite3 "$dir2/task-3.db" "SELECT count(*) FROM runs")
[ "$got" = $((300 + part)) ] && [ "$part" -lt 150 ] ||
	bad "fetch after scancel: $got runs home, cancelled task had $part"
cp "$dir/task-2.good" "$dir2/task-2.db"
expect 0 "fetch, the file restored" "$HEISEN" fetch cl4 --db "$home"
t0=$(date +%s.%N)
expect 0 "dispatch --resume" "$HEISEN" dispatch cl4 --resume 2 --db "$home"
grep -q "^cl4: campaign 2 submitted again as Slurm job [0-9]*: tasks 3 of 4 slices" "$dir/out" ||
	bad "resume: $(snippet "$dir/out") $(snippet "$dir/err")"
# fetch --wait: fetched again as tasks end, until none runs.
expect 0 "fetch --wait after resume" "$HEISEN" fetch cl4 --wait --timeout 90s --db "$home" --json
python3 - "$dir/out" <<'PY' || bad "fetch --wait: $(snippet "$dir/out")"
import json, sys
n = json.load(open(sys.argv[1]))["nodes"][0]
assert n["ok"] and n["tasks_running"] == 0 and n["fetches"] >= 1 and n["task_files"] == 1, n
PY
[ "$(sqlite3 "$home" "SELECT count(*), count(DISTINCT idx), max(idx) FROM runs WHERE campaign_id = 2")" = "600|600|599" ] ||
	bad "after resume: $(sqlite3 "$home" "SELECT count(*), count(DISTINCT idx) FROM runs WHERE campaign_id = 2")"
[ "$(sqlite3 "$dir2/task-3.db" "SELECT count(*) FROM runs WHERE started > $t0")" = $((150 - part)) ] ||
	bad "the resumed task ran more than its missing runs"
[ "$(sqlite3 "$home" "SELECT status FROM campaigns WHERE id = 2")" = done ] || bad "campaign 2 not done"
expect 0 "resume, nothing left" "$HEISEN" dispatch cl4 --resume 2 --db "$home"
grep -q "nothing to submit again" "$dir/out" || bad "second resume: $(snippet "$dir/out")"

# A cluster behind a login host: every Slurm command and the batch
# script go through the transport, each word quoted for the login
# shell. The stand-in for ssh drops ssh's options and the destination
# and runs the words here through a shell, as ssh does on the host.
cat >"$dir/fakessh" <<EOF2
#!/usr/bin/env bash
while [ \$# -gt 0 ]; do
	case \$1 in -p | -o) shift 2 ;; -*) shift ;; *) break ;; esac
done
shift
exec sh -c "\$*"
EOF2
chmod +x "$dir/fakessh"
export HEISEN_SSH="$dir/fakessh -x"
expect 0 "node add, login host" "$HEISEN" node add login "slurm://me@login.example:2222$dir/shared" --tasks 2 --db "$home"
expect 0 "node check, login host" "$HEISEN" node check login --db "$home"
expect 0 "dispatch, login host" "$HEISEN" dispatch login "$fib" --runs 2 --densities 100 --profiles default,noisy \
	--seed 3 --db "$home" -- "a'b" '$(touch '"$dir"'/pwned3)' "c d"
job=$(job_of)
slurm_wait "$job" 60 || bad "job $job did not end"
expect 0 "fetch, login host" "$HEISEN" fetch login --db "$home"
grep -q "^login: 4 runs added (0 campaigns, [0-9]* bugs new) from 2 task files$" "$dir/out" ||
	bad "fetch through ssh: $(snippet "$dir/out") $(snippet "$dir/err")"
[ ! -e "$dir/pwned3" ] || bad "a program argument ran as a shell command on the login host"
# Its tasks' states through the login host: Slurm's, and the claims
# (node tasks --claims) once a task has ended.
expect 0 "node status, login host" "$HEISEN" node status login --db "$home" --json
python3 - "$dir/out" <<'PY' || bad "node status through ssh: $(snippet "$dir/out") $(snippet "$dir/err")"
import json, sys
c = json.load(open(sys.argv[1]))["campaigns"][0]
assert c["task_states"] == ["completed", "completed"] and c["runs_done"] == 4, c
PY
printf "a'b\0\$(touch %s/pwned3)\0c d\0" "$dir" | xxd -p | tr -d '\n' >"$dir/args3.want"
[ "$(sqlite3 "$home" "SELECT lower(hex(args)) FROM campaigns ORDER BY id DESC LIMIT 1")" = "$(cat "$dir/args3.want")" ] ||
	bad "arguments through ssh: $(sqlite3 "$home" "SELECT hex(args) FROM campaigns ORDER BY id DESC LIMIT 1")"
unset HEISEN_SSH

# The claims of the first job: every slice ended, each of 2 to 15 taken
# by task 0 or 1.
expect 0 "node tasks --claims" "$HEISEN" node tasks "$dir1" 0-15 --claims "$job1"
[ "$(grep -c '^heisen-task \([2-9]\|1[0-5]\) by [01] ended$' "$dir/out")" = 14 ] &&
	grep -q '^heisen-task 0 ended$' "$dir/out" && grep -q '^heisen-task 1 ended$' "$dir/out" ||
	bad "node tasks --claims: $(snippet "$dir/out")"
expect 2 "node tasks --claims, not a job id" "$HEISEN" node tasks "$dir1" 0-15 --claims '1;x'
# The cluster's side of fetch: each task file as its own stream; a task
# that left no file is 'none'.
expect 0 "node tasks" "$HEISEN" node tasks "$dir2" 1,3,9
grep -aq "^heisen-task 1 ok [0-9]*$" "$dir/out" && grep -aq "heisen-task 9 none$" "$dir/out" ||
	bad "node tasks: $(head -c 200 "$dir/out" | tr -c '[:print:]\n' '.')"
expect 2 "node tasks, a relative folder" "$HEISEN" node tasks shared 0

# --wait is for the tasks of a Slurm node.
expect 0 "node add, an ssh node" "$HEISEN" node add box "ssh://box.invalid$dir/box.db" --db "$home"
expect 2 "fetch --wait, an ssh node" "$HEISEN" fetch box --wait --db "$home"
grep -q "^heisen fetch: --wait waits for the tasks of a Slurm node; box is an ssh node" "$dir/err" ||
	bad "fetch --wait of an ssh node: $(snippet "$dir/err")"

# Slurm's failures, said so that a person can act.
expect 0 "node add, no such partition" "$HEISEN" node add nopart "slurm://$dir/shared" --partition nosuch --db "$home"
expect 1 "dispatch, no such partition" "$HEISEN" dispatch nopart "$fib" --runs 1 --profiles default --densities 100 --db "$home"
grep -q "no partition 'nosuch'" "$dir/err" || bad "unknown partition: $(snippet "$dir/err")"
expect 0 "node add, many tasks" "$HEISEN" node add big "slurm://$dir/shared" --tasks 2000 --db "$home"
expect 2 "dispatch above MaxArraySize" "$HEISEN" dispatch big "$fib" --runs 2000 --profiles default --densities 100 --db "$home"
grep -q "MaxArraySize (1001).*--tasks 1001" "$dir/err" || bad "MaxArraySize: $(snippet "$dir/err")"
sed "s|^AuthInfo=.*|AuthInfo=socket=$dir/no-munge.sock|" "$SLURM_CONF" >"$dir/nomunge.conf"
SLURM_CONF=$dir/nomunge.conf expect 1 "dispatch, munge down" "$HEISEN" dispatch cl "$fib" --runs 1 --profiles default --densities 100 --db "$home"
grep -q "munge does not answer" "$dir/err" || bad "munge down: $(snippet "$dir/err")"
mkdir "$dir/nothing"
PATH=$dir/nothing expect 1 "dispatch, no Slurm commands" "$HEISEN" dispatch cl "$fib" --runs 1 --profiles default --densities 100 --db "$home"
grep -q "is not installed on this machine.*slurm-client" "$dir/err" || bad "no sbatch: $(snippet "$dir/err")"
[ "$(sqlite3 "$home" "SELECT count(*) FROM campaigns")" = 3 ] || bad "a failed dispatch left a campaign"

finish t_slurm
