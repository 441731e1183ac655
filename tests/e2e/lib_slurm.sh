# lib_slurm.sh - a one-machine Slurm cluster for the tests and benchmarks
# of heisen's Slurm nodes (docs/slurm.md). Source it after lib.sh, then:
#
#   slurm_start [CPUS]   # munged, slurmctld and slurmd, in the foreground
#                        # processes of the test, stopped when it exits
#
# It writes a slurm.conf naming this machine as the only node (CPUS
# CPUs, default all online), proctrack/linuxproc, no accounting, state,
# spool, logs and munge's key and socket under $dir/slurm, on ports
# nothing listens on, and exports SLURM_CONF so that sbatch, squeue and
# the others use it. It waits (at most 30 s) for the node to be idle and
# skips the test (lib.sh's skip) only where the daemons cannot start: not
# root, or the Debian packages missing (make deps installs them). It
# gives:
#   $slurm_dir        the cluster's folder
#   slurm_logs        prints the daemons' logs' tails (for a failure)
#   slurm_wait JOB T  waits at most T seconds until JOB has no pending or
#                     running task; false (and the logs) when it still has
#
# Outside lib.sh (a benchmark), define what it gives first: $dir and
# skip MSG.

slurm_pids=()

slurm_stop() {
	local p
	for p in "${slurm_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${slurm_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	slurm_pids=()
}

slurm_logs() {
	local f
	for f in "$slurm_dir"/log/*.log "$slurm_dir"/*.out; do
		[ -f "$f" ] || continue
		echo "--- $f"
		tail -n 15 "$f"
	done
}

slurm_free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

slurm_start() {
	local cpus=${1:-$(nproc)} host ctld_port d_port i
	for i in munged slurmctld slurmd; do
		[ -x /usr/sbin/$i ] ||
			skip "no /usr/sbin/$i (make deps, or apt-get install munge slurmctld slurmd slurm-client)"
	done
	command -v sbatch >/dev/null || skip "no sbatch (apt-get install slurm-client)"
	[ "$(id -u)" = 0 ] || skip "slurmctld and slurmd need root to start"
	slurm_dir=$dir/slurm
	mkdir -p "$slurm_dir"/state "$slurm_dir"/spool "$slurm_dir"/log
	host=$(hostname -s)
	ctld_port=$(slurm_free_port)
	d_port=$(slurm_free_port)
	head -c 1024 /dev/urandom >"$slurm_dir/munge.key"
	chmod 600 "$slurm_dir/munge.key"
	cat >"$slurm_dir/slurm.conf" <<EOF
ClusterName=heisentest
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$slurm_dir/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/log/slurmctld.log
SlurmdLogFile=$slurm_dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
SchedulerParameters=sched_interval=1
NodeName=$host CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$slurm_dir/slurm.conf
	/usr/sbin/munged --foreground --force --key-file="$slurm_dir/munge.key" \
		--socket="$slurm_dir/munge.sock" --pid-file="$slurm_dir/munged.pid" \
		--seed-file="$slurm_dir/munge.seed" --log-file="$slurm_dir/log/munged.log" \
		>"$slurm_dir/munged.out" 2>&1 &
	slurm_pids+=($!)
	# Stop the daemons on exit, then do what the EXIT trap did until now
	# (lib.sh's rm -rf "$dir"): trap -p quotes it for the shell.
	eval "old=($(trap -p EXIT))"
	prev=${old[2]:-}
	# shellcheck disable=SC2064 # the old trap's text, expanded now
	trap "slurm_stop; $prev" EXIT
	for i in $(seq 50); do
		[ -S "$slurm_dir/munge.sock" ] && break
		sleep 0.1
	done
	/usr/sbin/slurmctld -D -i -f "$SLURM_CONF" >"$slurm_dir/slurmctld.out" 2>&1 &
	slurm_pids+=($!)
	/usr/sbin/slurmd -D -f "$SLURM_CONF" >"$slurm_dir/slurmd.out" 2>&1 &
	slurm_pids+=($!)
	for i in $(seq 300); do
		sinfo -h -o %t 2>/dev/null | grep -qx idle && return 0
		sleep 0.1
	done
	if ! scontrol ping >/dev/null 2>&1; then
		echo "slurmctld did not start:"
		slurm_logs
		skip "slurmctld cannot start here (its log is above)"
	fi
	echo "the Slurm node did not become idle in 30 s:"
	sinfo 2>&1
	slurm_logs
	return 1
}

slurm_wait() {
	local job=$1 limit=$2 i
	for i in $(seq $((limit * 5))); do
		[ -z "$(squeue -h -r -j "$job" -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	echo "job $job still has tasks after ${limit}s:"
	squeue -r -j "$job" 2>&1 | head -20
	slurm_logs
	return 1
}
