#!/usr/bin/env bash
# The documentation: README.md stays a front door (at most 260 lines);
# every relative Markdown link [text](target) in README.md and docs/*.md
# resolves: the file exists relative to the linking file and, for
# target#anchor, the target has a heading whose GitHub slug is anchor
# (links in ``` fences and in `code spans` are not links; http(s):// and
# mailto: targets are not checked); and every command `heisen help` lists
# has a row in README.md's command table.
. "$(dirname "$0")/lib.sh"

readme=$root/README.md
max_lines=260

# --- the README's length ---------------------------------------------------
if [ ! -f "$readme" ]; then
	bad "README.md is missing"
	finish t_docs
fi
n=$(wc -l <"$readme")
[ "$n" -le "$max_lines" ] ||
	bad "README.md has $n lines, at most $max_lines (move detail to docs/)"

# --- links ---------------------------------------------------------------
# paragraphs FILE: the text of FILE outside ``` / ~~~ fences, one
# paragraph per line (a link or a code span may wrap), code spans removed.
paragraphs() {
	LC_ALL=C awk '
		/^ ? ? ?(```|~~~)/ { fence = !fence; flush(); next }
		fence { next }
		/^[ \t]*$/ { flush(); next }
		{ para = para " " $0 }
		END { flush() }
		function flush() {
			if (para != "") {
				gsub(/`[^`]*`/, "", para)
				print para
			}
			para = ""
		}' "$1"
}

# slugs FILE: the GitHub anchor of every heading of FILE outside fences:
# lower case, only letters, digits, spaces, hyphens and underscores kept,
# spaces made hyphens; a repeated slug gets -1, -2... as on GitHub.
# (ASCII only: GitHub also keeps non-ASCII letters, which this drops.)
slugs() {
	LC_ALL=C awk '
		/^ ? ? ?(```|~~~)/ { fence = !fence; next }
		fence { next }
		/^ ? ? ?#+([ \t]|$)/ {
			h = $0
			sub(/^ *#+[ \t]*/, "", h)
			sub(/[ \t]+#+[ \t]*$/, "", h)
			sub(/[ \t]+$/, "", h)
			h = tolower(h)
			gsub(/[^a-z0-9 _-]/, "", h)
			gsub(/ /, "-", h)
			if (h in seen) { seen[h]++; print h "-" seen[h] }
			else { seen[h] = 0; print h }
		}' "$1"
}

# links FILE: the target of every inline link and image of FILE.
links() {
	paragraphs "$1" | grep -oE '\[[^]]*\]\([^)]*\)' |
		sed -E 's/^\[[^]]*\]\(//; s/\)$//; s/^[ \t]*<?//; s/>?([ \t].*)?$//'
}

files=("$readme")
for f in "$root"/docs/*.md; do
	[ -e "$f" ] && files+=("$f")
done

nlinks=0
for f in "${files[@]}"; do
	rel=${f#"$root"/}
	while IFS= read -r target; do
		nlinks=$((nlinks + 1))
		case "$target" in
		http://* | https://* | mailto:*) continue ;;
		'') bad "$rel: broken link (empty target)"; continue ;;
		esac
		path=${target%%#*}
		anchor=
		case "$target" in *'#'*) anchor=${target#*#} ;; esac
		if [ -z "$path" ]; then
			dest=$f
		else
			dest=$(dirname "$f")/$path
		fi
		if [ ! -e "$dest" ]; then
			bad "$rel: broken link $target (no file $path)"
			continue
		fi
		if [ -n "$anchor" ]; then
			if [ ! -f "$dest" ]; then
				bad "$rel: broken link $target ($path is not a file)"
			elif ! slugs "$dest" | grep -qxF -- "$anchor"; then
				bad "$rel: broken link $target (no heading '#$anchor' in ${path:-$rel})"
			fi
		fi
	done < <(links "$f")
done
[ "$nlinks" -gt 0 ] || bad "no Markdown link found in README.md or docs/*.md"

# --- the command table -------------------------------------------------------
# `heisen help` lists the commands under "commands:" as "  NAME  summary".
if ! "$HEISEN" help >"$dir/help" 2>"$dir/help.err"; then
	bad "heisen help failed: $(snippet "$dir/help.err")"
	finish t_docs
fi
awk '/^commands:/ { on = 1; next }
     on && /^[ \t]*$/ { exit }
     on && match($0, /^  [A-Za-z0-9_-]+ /) { print substr($0, 3, RLENGTH - 3) }' \
	"$dir/help" >"$dir/commands"
[ -s "$dir/commands" ] ||
	bad "no command found under 'commands:' in heisen help: $(snippet "$dir/help")"

# The first cell of each row of the table that starts "| command |" (an
# escaped \| inside a cell does not end it).
awk '/^\| *command *\|/ { on = 1; next }
     on && !/^\|/ { exit }
     on { print }' "$readme" |
	sed 's/\\|/\x01/g' | cut -d'|' -f2 >"$dir/table"
[ -s "$dir/table" ] || bad "README.md: no command table (a table whose header starts '| command |')"

while IFS= read -r cmd; do
	grep -qE "\`(heisen )?$cmd([ \`\\\\]|\$)" "$dir/table" ||
		bad "README.md: command '$cmd' (from heisen help) has no row in the command table"
done <"$dir/commands"

finish t_docs
