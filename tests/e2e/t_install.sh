#!/usr/bin/env bash
# What `make install` gives a user besides the binary: the manual page
# heisen(1), which names every command of the command table and renders
# without groff warnings, and the bash completion, sourced in bash and
# driven both through its completion function and through a real
# interactive bash in tmux (Tab on the line).
. "$(dirname "$0")/lib.sh"
need_demos

prefix=$dir/prefix
make -s -C "$root" "${make_flags[@]}" install PREFIX="$prefix" >"$dir/make.log" 2>&1 ||
	{ bad "make install failed: $(tail -5 "$dir/make.log" | tr '\n' ' ')"; finish t_install; }
man1=$prefix/share/man/man1/heisen.1
comp=$prefix/share/bash-completion/completions/heisen
[ -s "$man1" ] || bad "no man page at $man1"
[ -s "$comp" ] || bad "no bash completion at $comp"
export PATH="$prefix/bin:$PATH"

# The commands of the table, as `heisen help` lists them.
mapfile -t cmds < <(heisen help | awk '/^commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ "${#cmds[@]}" -ge 20 ] || bad "heisen help lists only ${#cmds[@]} commands"

# --- the manual page ----------------------------------------------------------
MANWIDTH=100 man -P cat -l "$man1" >"$dir/man.txt" 2>"$dir/man.err" ||
	bad "man -l failed: $(snippet "$dir/man.err")"
for c in "${cmds[@]}"; do
	grep -Eq "^   $c\$" "$dir/man.txt" || bad "man page has no section for '$c'"
	grep -Eq "^ +heisen +$c( |\$)" "$dir/man.txt" || bad "man page has no synopsis for '$c'"
done
for sect in NAME SYNOPSIS DESCRIPTION COMMANDS 'EXIT STATUS' ENVIRONMENT FILES; do
	grep -q "^$sect\$" "$dir/man.txt" || bad "man page has no $sect section"
done
# every option of a command is there (sweep's, for one)
for o in $(heisen help sweep | awk '/^options:/ { on = 1; next } on { print $1 }'); do
	grep -q -- "$o" "$dir/man.txt" || bad "man page lacks sweep's $o"
done
grep -q HEISEN_DB "$dir/man.txt" || bad "man page lacks HEISEN_DB"
MANWIDTH=100 man --warnings -P cat -l "$man1" 2>"$dir/warn.err" >/dev/null
[ -s "$dir/warn.err" ] && bad "groff warnings: $(snippet "$dir/warn.err")"
# help --man is what was installed
cmp -s <(heisen help --man) "$man1" || bad "installed page differs from heisen help --man"

# --- bash completion: the function ---------------------------------------------
cd "$dir" || exit 3
mkdir -p "$dir/programs" "$dir/with space"
touch "$dir/programs/app.wasm"
# Bugs to complete: check finds fibonacci's races by happens-before in
# any run (a sampled sweep of one run may see no collision).
heisen check "$root/demos/build/fibonacci.wasm" --db "$dir/w.db" --runs 1 \
	>/dev/null 2>&1 || bad "check for the id checks failed"
bugs=$(sqlite3 "$dir/w.db" "SELECT group_concat(id, ' ') FROM (SELECT id FROM bugs ORDER BY id)")
[ -n "$bugs" ] || bad "check found no bug to complete"

# complete LINE: COMPREPLY for LINE (cursor at its end), space-separated.
complete_line() {
	bash --norc --noprofile -c '
		. "$1"
		line=$2
		COMP_LINE=$line
		COMP_POINT=${#line}
		# bash splits words at COMP_WORDBREAKS too; so do we
		read -ra COMP_WORDS <<<"${line//=/ = }"
		[[ $line == *[[:space:]] || $line == *= ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_heisen
		echo "${COMPREPLY[*]}"' _ "$comp" "$1"
}
check() { # LINE WANT
	local got
	got=$(complete_line "$1")
	[ "$got" = "$2" ] || bad "completing '$1': got '$got', want '$2'"
}
check "heisen sw" "sweep"
check "heisen sweep --prof" "--profiles"
check "heisen sweep --pro" "--profiles --progress-fd"
check "heisen sweep --profiles=one" "one-core"
check "heisen sweep --profiles " "default noisy one-core throttled"
check "heisen help camp" "campaigns"
check "heisen run programs/a" "programs/app.wasm"
check "heisen run prog" "programs/"
check "heisen run with" 'with\ space/'
check "heisen show --db w.db " "$bugs"
check "heisen show --db=w.db " "$bugs"
check "heisen nosuch " ""

# --- bash completion: Tab in an interactive bash ---------------------------------
cat >"$dir/rc" <<EOF
PS1='\$ '
export PATH="$PATH"
. "$comp"
EOF
sock=$dir/tmux.sock
tmux -S "$sock" new-session -d -x 120 -y 20 -c "$dir" \
	"bash --rcfile $dir/rc --noprofile -i" || bad "tmux failed"
# capture-pane drops trailing blanks: a space after a completion shows
# as the gap before the '|' typed after Tab.
screen_has() { # PATTERN MSG: wait until the pane's last line matches
	for _ in $(seq 50); do
		tmux -S "$sock" capture-pane -p | grep -v '^$' | tail -1 | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	bad "$2: $(tmux -S "$sock" capture-pane -p | grep -v '^$' | tail -1)"
}
screen_has '^\$$' "no prompt"
tmux -S "$sock" send-keys 'heisen sw' Tab '|'
screen_has '^\$ heisen sweep \|$' "Tab after 'heisen sw'"
tmux -S "$sock" send-keys -- BSpace '--prof' Tab '|'
screen_has '^\$ heisen sweep --profiles \|$' "Tab after '--prof'"
tmux -S "$sock" send-keys C-u 'heisen run prog' Tab '|'
screen_has '^\$ heisen run programs/\|$' "Tab on a directory (no space after it)"
tmux -S "$sock" send-keys BSpace Tab '|'
screen_has '^\$ heisen run programs/app\.wasm \|$' "Tab into the directory"
tmux -S "$sock" kill-server 2>/dev/null

finish t_install
