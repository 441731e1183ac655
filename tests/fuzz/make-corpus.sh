#!/usr/bin/env bash
# Regenerate the seed corpora of the reader targets (tests/fuzz/corpus/NAME/,
# NAME a target of tests/fuzz/fuzz_NAME.c but module/) with heisen itself:
# a sweep of two racy demos into a workspace, then its export stream, repro
# files of every mode, mask files, schedule files of every strategy, and
# the DWARF sections of a demo; suppression files, scripts and node URLs
# are what a person writes, in the forms docs/ show. The module corpus has
# its own script (seeds/make-corpus.sh).
#
# Usage: tests/fuzz/make-corpus.sh HEISEN   (after `make all demos`)
# The corpora are committed so that `make fuzz-regress` needs none of
# this; run it after a reader's format changes and commit the result.
# Seeds stay small (a few KiB each, tens per target).
set -euo pipefail
heisen=$(realpath "${1:?usage: make-corpus.sh HEISEN}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
b=$root/demos/build
out=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in repro sched mask suppress script nodeurl import dwarf; do
	rm -rf "${out:?}/$t"
	mkdir -p "$out/$t"
done
db=$tmp/w.db

# --- a workspace with bugs, stacks and a failure ------------------------------
for demo in fibonacci antidep; do
	"$heisen" sweep "$b/$demo.wasm" --db "$db" --densities 50:100:50 \
		--runs 2 --profiles default --seed 7 >/dev/null 2>&1
done

# --- export streams: everything, from a cursor, and an empty one --------------
"$heisen" export --db "$db" -o "$out/import/all.hsync" 2>/dev/null
"$heisen" export --db "$db" --since 3 -o "$out/import/since3.hsync" 2>/dev/null
"$heisen" export --db "$db" --since 1000000 -o "$out/import/none.hsync" 2>/dev/null
"$heisen" export --db "$db" --since 1000000 --all-campaigns -o "$out/import/campaigns.hsync" 2>/dev/null

# --- repro files: each bug in each mode; a failure from minimize ---------------
for bug in $(sqlite3 "$db" "SELECT id FROM bugs ORDER BY id LIMIT 3"); do
	for mode in pinned minimal trigger; do
		"$heisen" replay "$bug" --db "$db" --mode $mode --runs 1 \
			--save "$out/repro/bug$bug-$mode.repro" >/dev/null 2>&1 || true
	done
done
"$heisen" minimize "$b/lost-update.wasm" --seed 1 --failure exit:1 \
	--save "$out/repro/failure.repro" -- check >/dev/null 2>&1 || true

# --- mask files: a run's mask, and ranges; two bytes of site count first ---
mask() { # NAME NSITES FILE
	{ printf "$(printf '\\x%02x\\x%02x' $((($2 - 1) & 255)) $((($2 - 1) >> 8)))"; cat "$3"; } \
		>"$out/mask/$1.mask"
}
nsites=$(sqlite3 "$db" "SELECT p.nsites FROM programs p ORDER BY id LIMIT 1" 2>/dev/null || echo 512)
for run in 1 2 4; do
	"$heisen" mask save "$run" -o "$tmp/m$run.txt" --db "$db" >/dev/null 2>&1 &&
		mask "run$run" "${nsites:-512}" "$tmp/m$run.txt"
done
printf '0 3 5-9, 12\n# a comment\n20-20\n' >"$tmp/r.txt"
mask ranges 64 "$tmp/r.txt"

# --- schedule files: every strategy ------------------------------------------
i=0
for s in random random:0.3 pct:3 pct:2:500; do
	i=$((i + 1))
	"$heisen" run "$b/lost-update.wasm" --schedule "$s" --schedule-seed $i \
		--save-schedule "$out/sched/$i.sched" >/dev/null 2>&1 || true
done
"$heisen" run "$b/lost-update.wasm" --schedule fixed --schedule-file "$out/sched/1.sched" \
	--save-schedule "$out/sched/fixed.sched" >/dev/null 2>&1 || true

# --- DWARF: the debug sections of seeds/dwarf.c and its function layout ------
# (DWARF 4 and 5, with and without inlining; no C library, so they stay
# small: a demo's are 160 KiB).
dw=()
for v in "4 -O0" "4 -O2" "5 -O1" "5 -O2"; do
	set -- $v
	clang --target=wasm32 -nostdlib -Wl,--no-entry -Wl,--export-all \
		-gdwarf-$1 $2 -o "$tmp/d$1$2.wasm" "$here/seeds/dwarf.c"
	dw+=("$tmp/d$1$2.wasm" "$out/dwarf/v$1$2.dwarf")
done
python3 - "${dw[@]}" <<'PY'
import struct, sys
names = [".debug_line", ".debug_line_str", ".debug_str", ".debug_info",
         ".debug_abbrev", ".debug_str_offsets", ".debug_addr",
         ".debug_ranges", ".debug_rnglists"]
def leb(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
for src, dst in zip(sys.argv[1::2], sys.argv[2::2]):
    b = open(src, "rb").read()
    i, recs, layout = 8, [], []
    while i < len(b):
        sid = b[i]; n, i = leb(b, i + 1); end = i + n
        if sid == 0:
            ln, j = leb(b, i); name = b[j:j + ln].decode()
            if name in names:
                recs.append(bytes([names.index(name)]) + struct.pack("<I", end - j - ln) + b[j + ln:end])
        elif sid == 10:
            cnt, j = leb(b, i)
            for _ in range(cnt):
                sz, k = leb(b, j); layout.append(sz); j = k + sz
        i = end
    lay = b"".join(struct.pack("<I", x) for x in layout)
    open(dst, "wb").write(bytes([9]) + struct.pack("<I", len(lay)) + lay + b"".join(recs))
PY

# --- suppression files, scripts and node URLs, as docs/ write them ------------
printf 'race:bump_a\n' >"$out/suppress/one.supp"
printf '# known races\nrace:^worker$\nrace_top:counter.c:42\n\ncalled_from:*lock*  # callers\nrace:src/fib.c\n' \
	>"$out/suppress/mixed.supp"
printf 'race:a*b$\nrace:^*x*y*z\ncalled_from:^main$\n' >"$out/suppress/anchors.supp"
printf 'thread:foo\n' >"$out/suppress/tsan-type.supp"
printf 'set db w.db\nsweep demos/build/fibonacci.wasm --densities 10:100:10 --runs 2\nbugs --json; show 1\n' \
	>"$out/script/sweep.hz"
printf "run app.wasm --density 50 -- 'a b' \"c \\\\\" d\" \\\\\$x # comment\nunset db\n" >"$out/script/quotes.hz"
printf 'replay 1 --mode trigger --runs 20 --until-first --save r.repro\nexport -o s.hsync --since 2; import s.hsync --db b.db --json\n' \
	>"$out/script/replay.hz"
printf 'node add lab ssh://me@lab.example:2222/home/me/heisen.db\nfetch lab --json\n' >"$out/script/node.hz"
printf 'ssh://me@lab.example:2222/home/me/heisen.db' >"$out/nodeurl/full.url"
printf 'ssh://host/w.db' >"$out/nodeurl/short.url"
printf 'lab-2.node_1' >"$out/nodeurl/name.url"
printf 'ssh://-oProxyCommand=x/y' >"$out/nodeurl/option.url"

# Nothing empty, nothing large.
find "$out" -mindepth 2 -empty -delete
big=$(find "$out" -mindepth 2 -size +64k)
[ -z "$big" ] || { echo "make-corpus: seeds over 64 KiB: $big" >&2; exit 1; }
for t in repro sched mask suppress script nodeurl import dwarf; do
	echo "$t: $(ls "$out/$t" | wc -l) seeds, $(du -sk "$out/$t" | cut -f1) KiB"
done
