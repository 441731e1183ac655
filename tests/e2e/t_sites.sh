#!/usr/bin/env bash
# `heisen sites` names the right source lines: every shared-memory access
# marked in a demo source with a trailing `/* heisen:site KINDS VAR */`
# (KINDS: read, write, atomic-read, atomic-write, atomic-rmw, range-read,
# range-write, comma-separated) has at least one site of a compatible
# kind at that file:line, in the demos built with -g (DWARF 4, clang's
# default for wasm32) and in one demo built with -gdwarf-5. A plain
# `read`/`write` marker also accepts the atomic and range forms, since
# the compiler picks the instruction. And a read that a store covers
# (rewriter/cover.h) says so, by the store's site id.
. "$(dirname "$0")/lib.sh"

need_demos
cd "$root" || exit 1

# sites WASM > "KIND FILE LINE" per site with a source position. JSON
# (heisen.sites/1) through python3 when it is there, else the plain table,
# whose last column is FILE:LINE:COLUMN or "-".
sites() {
	if command -v python3 >/dev/null; then
		"$HEISEN" sites "$1" --json >"$dir/sites.json" 2>"$dir/sites.err" ||
			{ bad "heisen sites $1 --json failed: $(snippet "$dir/sites.err")"; return; }
		python3 - "$dir/sites.json" <<'EOF' || bad "bad JSON from heisen sites $1"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.sites/1", d["schema"]
for s in d["sites"]:
    src = s.get("source")
    if src and src.get("file"):
        print(s["kind"], src["file"], src["line"])
EOF
	else
		"$HEISEN" sites "$1" >"$dir/sites.txt" 2>"$dir/sites.err" ||
			{ bad "heisen sites $1 failed: $(snippet "$dir/sites.err")"; return; }
		awk 'NR > 1 && $NF != "-" {
			n = split($NF, p, ":"); line = p[n - 1]
			file = substr($NF, 1, length($NF) - length(p[n - 1]) - length(p[n]) - 2)
			print $2, file, line }' "$dir/sites.txt"
	fi
}

# compatible MARKED SITE: whether a site of kind SITE satisfies a marker.
compatible() {
	case "$1:$2" in
	"$2:$2" | read:atomic-read | read:range-read | write:atomic-write | \
		write:range-write) return 0 ;;
	esac
	return 1
}

# check_demo SRC WASM LABEL: every marker of SRC against the sites of WASM.
check_demo() {
	local src=$1 wasm=$2 label=$3 n=0 line rest kinds var kind k f l found
	sites "$wasm" >"$dir/pos.txt"
	# Paths as DWARF records them: absolute (comp dir joined) here, as
	# the demos are built from $root; compare the resolved paths.
	while IFS=: read -r line rest; do
		rest=${rest#*heisen:site }
		rest=${rest%%\*/*}
		read -r kinds var <<<"$rest"
		for kind in ${kinds//,/ }; do
			n=$((n + 1))
			found=
			while read -r k f l; do
				[ "$l" = "$line" ] || continue
				case "$f" in /*) ;; *) f="$root/$f" ;; esac
				[ "$(realpath -m "$f")" = "$(realpath -m "$src")" ] || continue
				compatible "$kind" "$k" && { found=1; break; }
			done <"$dir/pos.txt"
			[ -n "$found" ] || bad "$label: no $kind site for $var at $src:$line (sites there: $(awk -v l="$line" '$3 == l {printf "%s ", $1}' "$dir/pos.txt"))"
		done
	done < <(grep -n 'heisen:site ' "$src")
	[ "$n" -gt 0 ] || bad "$label: no markers found in $src"
}

markers=0
for src in demos/*.c; do
	grep -q 'heisen:site ' "$src" || continue
	markers=$((markers + 1))
	name=$(basename "$src" .c)
	check_demo "$src" "demos/build/$name.wasm" "$name (DWARF 4)"
done
[ "$markers" -ge 2 ] || bad "expected markers in at least 2 demos, found $markers"

# DWARF 5: DW_LNCT entry formats, .debug_line_str, directory 0 = comp dir.
if "$HEISEN" cc -gdwarf-5 -O1 -o "$dir/mutex-counter-v5.wasm" demos/mutex-counter.c \
	>"$dir/cc.out" 2>&1; then
	if command -v llvm-dwarfdump >/dev/null &&
		! llvm-dwarfdump --debug-line "$dir/mutex-counter-v5.wasm" | grep -q 'version: 5'; then
		bad "-gdwarf-5 did not give a version 5 line table"
	fi
	check_demo demos/mutex-counter.c "$dir/mutex-counter-v5.wasm" "mutex-counter (DWARF 5)"
else
	bad "heisen cc -gdwarf-5 failed: $(snippet "$dir/cc.out")"
fi

# Reads a later store of their stretch covers (what `heisen check` leaves
# to the store's probe): lost-update.c's `unsigned b = balance` is covered
# by the store of `balance = b + amount` on the next line, in the JSON
# (covered_by) and in the table ("(covered by N)"); the store is not.
lu=demos/build/lost-update.wasm
if ! "$HEISEN" sites "$lu" --json >"$dir/lu.json" 2>"$dir/lu.err" ||
	! "$HEISEN" sites "$lu" >"$dir/lu.txt" 2>>"$dir/lu.err"; then
	bad "heisen sites $lu failed: $(snippet "$dir/lu.err")"
else
	read_line=$(grep -n 'heisen:site read balance' demos/lost-update.c | cut -d: -f1)
	if python3 - "$dir/lu.json" "$read_line" >"$dir/lu.ids" 2>&1 <<'EOF'; then
import json, os, sys
d = json.load(open(sys.argv[1]))
line = int(sys.argv[2])
at = {s["id"]: s for s in d["sites"]}
def where(s):
    src = s.get("source") or {}
    return (os.path.basename(src.get("file") or "?"), src.get("line"))
reads = [s for s in d["sites"] if s["kind"] == "read" and where(s) == ("lost-update.c", line)]
assert reads, "no read site at line %d" % line
for r in reads:
    w = at.get(r["covered_by"])
    assert w and w["kind"] == "write" and where(w) == ("lost-update.c", line + 1), \
        "read site %d: covered_by %s" % (r["id"], r["covered_by"])
    assert w["covered_by"] is None, "store %d covered too" % w["id"]
    print(r["id"], w["id"])
EOF
		while read -r r w; do
			grep -qE "^$r +read .*\(covered by $w\)\$" "$dir/lu.txt" ||
				bad "lost-update: the table does not show site $r covered by $w"
		done <"$dir/lu.ids"
	else
		bad "lost-update: $(snippet "$dir/lu.ids")"
	fi
fi

# Without DWARF the sites are still listed, with no source (not an error).
if "$HEISEN" cc -O1 -o "$dir/nodebug.wasm" demos/mutex-counter.c >"$dir/cc.out" 2>&1; then
	"$HEISEN" sites "$dir/nodebug.wasm" >"$dir/nd.txt" 2>"$dir/nd.err" ||
		bad "heisen sites without DWARF failed: $(snippet "$dir/nd.err")"
	grep -q 'mutex-counter.c' "$dir/nd.txt" && bad "source positions without DWARF"
	[ -s "$dir/nd.err" ] && bad "warning without DWARF: $(snippet "$dir/nd.err")"
else
	bad "heisen cc without -g failed: $(snippet "$dir/cc.out")"
fi

finish t_sites
