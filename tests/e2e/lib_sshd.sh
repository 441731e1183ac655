# lib_sshd.sh - real sshds on loopback, for the tests of heisen's remote
# nodes. Source it after lib.sh, then start a daemon, or several:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/lib_sshd.sh"
#   sshd_start              # one sshd, sessions' node identity the machine's
#   sshd_start a            # an sshd whose sessions are node "a"
#
# sshd_start skips the test (lib.sh's skip) when /usr/sbin/sshd is missing
# or does not start, and otherwise gives:
#   $sshd_port       the port of the sshd it just started, at 127.0.0.1
#                    (copy it before starting the next one)
#   $ssh_user        the login for node URLs: this user (an sshd that is
#                    not root can only log in the user it runs as)
#   HEISEN_SSH       exported: ssh with a client config of its own, a
#                    throw-away key, any host key trusted, never a prompt;
#                    one for every sshd started here (the port is in the
#                    node URL), since heisen reads one $HEISEN_SSH
#   sshd_free_port   prints a port of 127.0.0.1 that nothing listens on
# so that ssh://$ssh_user@127.0.0.1:$sshd_port$dir/a.db is a workspace
# that the heisen under test serves: sessions find it first on PATH.
# With a NODE (a name heisen accepts for a node), the sessions of that
# sshd have HEISEN_NODE=NODE, so the workspaces it serves record their
# runs as made by machine NODE: several sshds are several machines. The
# daemons stop when the test exits. Keys, configs and logs ($dir/ssh/ for
# what all share, $dir/ssh-NODE/sshd.log or $dir/ssh/sshd.log) stay under
# $dir; the one thing written outside it is /run/sshd, sshd's
# privilege-separation directory, when it is missing.
#
# Outside lib.sh (a benchmark), define what it gives first: $dir, $HEISEN
# and skip MSG (give up without failing).

sshd_pids=()
sshd_ready=

sshd_free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

sshd_stop() {
	local p
	for p in "${sshd_pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	sshd_pids=()
}

# sshd_wait PID FOLDER: 0 once sshd PID accepts connections, 1 if it
# exited first (it logged why), 2 if it still did not after 10 s (then it
# is stopped). sshd writes its PidFile (FOLDER/sshd.pid) once its
# listening sockets are bound, so its pid there means the port is its own
# and accepts connections; probing the port instead would be fooled by
# whoever holds it when sshd's bind fails, and leaves a
# kex_exchange_identification error in the log.
sshd_wait() {
	local pid=$1 s=$2 _
	for _ in $(seq 100); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null
			return 1
		fi
		[ "$(cat "$s/sshd.pid" 2>/dev/null)" = "$pid" ] && return 0
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 2
}

# sshd_setup: what every sshd of the test shares, once: the checks, the
# keys, the client config and HEISEN_SSH, the bin folder that leads the
# sessions' PATH, and the EXIT trap that stops the daemons.
sshd_setup() {
	local s=$dir/ssh heisen prev old
	[ -n "$sshd_ready" ] && return 0
	[ -x /usr/sbin/sshd ] ||
		skip "no /usr/sbin/sshd (apt-get install openssh-server)"
	if ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
		skip "no ssh or ssh-keygen (apt-get install openssh-client)"
	fi
	if ! command -v python3 >/dev/null; then
		echo "  FAIL: python3 is needed (to find a free port)"
		exit 1
	fi
	# heisen refuses these characters in a node URL's path, and
	# HEISEN_SSH is split on spaces.
	case $dir in *[!A-Za-z0-9._/-]*)
		skip "the scratch folder $dir has characters a node URL cannot hold" ;;
	esac
	ssh_user=$(id -un)
	heisen=$(readlink -f "$HEISEN")
	mkdir -p "$s/bin"
	ln -s "$heisen" "$s/bin/heisen"
	if ! ssh-keygen -q -N '' -C '' -t ed25519 -f "$s/host_key" ||
		! ssh-keygen -q -N '' -C '' -t ed25519 -f "$s/client_key"; then
		echo "  FAIL: ssh-keygen could not make the test's keys"
		exit 1
	fi
	cp "$s/client_key.pub" "$s/authorized_keys"
	# Created by the openssh-server package's service at boot, so missing
	# where no system sshd ever ran (a container); sshd refuses to start
	# without it. Not root and missing: sshd says so and the test skips.
	[ -d /run/sshd ] || mkdir -m 0755 /run/sshd 2>/dev/null

	cat >"$s/config" <<EOF
Host *
	IdentityFile $s/client_key
	IdentitiesOnly yes
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	GlobalKnownHostsFile /dev/null
	LogLevel ERROR
	BatchMode yes
	ConnectTimeout 5
EOF
	export HEISEN_SSH="ssh -F $s/config"

	# Stop sshd on exit, then do what the EXIT trap did until now
	# (lib.sh's rm -rf "$dir"): trap -p quotes it for the shell.
	eval "old=($(trap -p EXIT))"
	prev=${old[2]:-}
	# shellcheck disable=SC2064 # the old trap's text, expanded now
	trap "sshd_stop; $prev" EXIT
	sshd_ready=1
}

# sshd_start [NODE]: one more sshd (see the top of this file).
sshd_start() {
	local node=${1:-} s=$dir/ssh d _ env pid
	sshd_setup
	d=$s
	env="PATH=$s/bin:/usr/local/bin:/usr/bin:/bin SHLVL=1"
	if [ -n "$node" ]; then
		case $node in -* | *[!A-Za-z0-9._-]*)
			echo "  FAIL: sshd_start: '$node' is not a node name"
			exit 1 ;;
		esac
		d=$dir/ssh-$node
		mkdir -p "$d"
		env="$env HEISEN_NODE=$node"
	fi

	# The free port can be taken before sshd binds it: try another.
	for _ in 1 2 3; do
		sshd_port=$(sshd_free_port)
		# The session's PATH: sshd sets SetEnv's variables after its
		# default PATH, so they win there. But the login shell then runs
		# the command, and Debian's bash (built with SSH_SOURCE_BASHRC)
		# sources /etc/bash.bashrc and ~/.bashrc when sshd starts it:
		# root's ~/.bashrc on the machine this was written on prepends
		# pyenv's and cargo's directories, which left ours fifth. bash
		# does that only as a top-level shell, which it tells by SHLVL,
		# so SHLVL=1 (bash counts itself 2) skips both files and PATH is
		# exactly this one (checked with bash 5.2 and OpenSSH 9.2 on
		# Debian 12). Other login shells: dash reads no file for a
		# command, zsh reads ~/.zshenv whatever SHLVL says.
		cat >"$d/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $sshd_port
HostKey $s/host_key
AuthorizedKeysFile $s/authorized_keys
AllowUsers $ssh_user
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
PermitUserRC no
StrictModes no
UsePAM no
PidFile $d/sshd.pid
LogLevel ERROR
SetEnv $env
EOF
		/usr/sbin/sshd -D -e -f "$d/sshd_config" \
			</dev/null >>"$d/sshd.log" 2>&1 &
		pid=$!
		sshd_wait "$pid" "$d"
		case $? in
		0)
			sshd_pids+=("$pid")
			return 0
			;;
		2) skip "sshd did not accept connections in 10 s: $(tail -n 1 "$d/sshd.log")" ;;
		esac
		grep -q "Address already in use" "$d/sshd.log" || break
	done
	skip "sshd did not start: $(tail -n 1 "$d/sshd.log")"
}
