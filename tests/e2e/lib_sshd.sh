# lib_sshd.sh - a real sshd on loopback, for the tests of heisen's remote
# nodes. Source it after lib.sh, then start the daemon:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/lib_sshd.sh"
#   sshd_start
#
# sshd_start skips the test (lib.sh's skip) when /usr/sbin/sshd is missing
# or does not start, and otherwise gives:
#   $sshd_port       the port it listens on, at 127.0.0.1
#   $ssh_user        the login for node URLs: this user (an sshd that is
#                    not root can only log in the user it runs as)
#   HEISEN_SSH       exported: ssh with a client config of its own, a
#                    throw-away key, any host key trusted, never a prompt
#   sshd_free_port   prints a port of 127.0.0.1 that nothing listens on
# so that ssh://$ssh_user@127.0.0.1:$sshd_port$dir/a.db is a workspace
# that the heisen under test serves: sessions find it first on PATH. The
# daemon stops when the test exits. Keys, configs and the log
# ($dir/ssh/sshd.log) stay under $dir; the one thing written outside it is
# /run/sshd, sshd's privilege-separation directory, when it is missing.

sshd_pid=

sshd_free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

sshd_stop() {
	[ -n "$sshd_pid" ] || return 0
	kill "$sshd_pid" 2>/dev/null
	wait "$sshd_pid" 2>/dev/null
	sshd_pid=
}

# sshd_wait: 0 once sshd accepts connections, 1 if it exited first (it
# logged why), 2 if it still did not after 10 s (then it is stopped).
# sshd writes its PidFile once its listening sockets are bound, so its pid
# there means the port is its own and accepts connections; probing the
# port instead would be fooled by whoever holds it when sshd's bind
# fails, and leaves a kex_exchange_identification error in the log.
sshd_wait() {
	local _
	for _ in $(seq 100); do
		if ! kill -0 "$sshd_pid" 2>/dev/null; then
			wait "$sshd_pid" 2>/dev/null
			sshd_pid=
			return 1
		fi
		[ "$(cat "$dir/ssh/sshd.pid" 2>/dev/null)" = "$sshd_pid" ] && return 0
		sleep 0.1
	done
	sshd_stop
	return 2
}

sshd_start() {
	local s=$dir/ssh _ heisen prev
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
	eval "set -- $(trap -p EXIT)"
	prev=${3:-}
	# shellcheck disable=SC2064 # the old trap's text, expanded now
	trap "sshd_stop; $prev" EXIT

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
		cat >"$s/sshd_config" <<EOF
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
PidFile $s/sshd.pid
LogLevel ERROR
SetEnv PATH=$s/bin:/usr/local/bin:/usr/bin:/bin SHLVL=1
EOF
		/usr/sbin/sshd -D -e -f "$s/sshd_config" \
			</dev/null >>"$s/sshd.log" 2>&1 &
		sshd_pid=$!
		sshd_wait
		case $? in
		0) return 0 ;;
		2) skip "sshd did not accept connections in 10 s: $(tail -n 1 "$s/sshd.log")" ;;
		esac
		grep -q "Address already in use" "$s/sshd.log" || break
	done
	skip "sshd did not start: $(tail -n 1 "$s/sshd.log")"
}
