#!/usr/bin/env bash
# Race annotations (docs/annotations.md), with guests of tests/e2e/guests/:
#   (a) annotations-on, annotated for ThreadSanitizer (a benign counter,
#       a flag handshake ordered with AnnotateHappensBefore/After):
#       0 races under `heisen check` and a sweep (3 runs), the benign
#       races counted (text and --json); annotations-off, the same
#       without annotations, reports them under both;
#   (b) annotations-headers uses dynamic_annotations.h, heisen's own
#       header, <sanitizer/tsan_interface.h> and <valgrind/helgrind.h>:
#       check reports only its unannotated race, with both threads'
#       names, in text and JSON, and `show` names them from the
#       workspace;
#   (c) natively with ThreadSanitizer, where the C compiler has it: the
#       same verdicts on annotations-on and annotations-off.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB

guests=$root/tests/e2e/guests
build=$root/demos/build/guests

# nraces FILE.json: the races of a check's --json
nraces() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["races"]))' "$1"; }

# ---- (a) annotated and not -----------------------------------------------

hq on check "$build/annotations-on.wasm" --db "$dir/on.db" --json
want on 0
[ "$(nraces "$dir/on.out")" = 0 ] || bad "annotations-on: check reports races: $(snippet "$dir/on.out")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["benign"] >= 2 and d["benign_runs"] == 1))' \
	"$dir/on.out" || bad "annotations-on: benign races not counted: $(snippet "$dir/on.out")"
hq ontext check "$build/annotations-on.wasm" --db "$dir/on.db"
grep -Eq "^[0-9]+ races annotated benign left out \(in 1 of 1 run\)" "$dir/ontext.out" ||
	bad "annotations-on: no benign line: $(snippet "$dir/ontext.out")"
hq off check "$build/annotations-off.wasm" --db "$dir/off.db" --json
want off 0
[ "$(nraces "$dir/off.out")" -ge 3 ] || bad "annotations-off: check reports too few races: $(snippet "$dir/off.out")"

hq son sweep "$build/annotations-on.wasm" --runs 3 --densities 100 --profiles default --db "$dir/son.db" --json
want son 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["program_bugs"] == [] and d["benign"] > 0))' \
	"$dir/son.out" || bad "annotations-on: the sweep reports bugs or counts no benign race: $(snippet "$dir/son.out")"
hq soff sweep "$build/annotations-off.wasm" --runs 3 --densities 100 --profiles default --db "$dir/soff.db" --json
want soff 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d["program_bugs"])' \
	"$dir/soff.out" || bad "annotations-off: the sweep reports no bug: $(snippet "$dir/soff.out")"

# ---- (b) every header, and thread names ----------------------------------

src=$guests/annotations-headers.c
hq hdr check "$build/annotations-headers.wasm" --db "$dir/hdr.db" --json
want hdr 0
python3 - "$dir/hdr.out" "$(grep -n 'race: left' "$src" | cut -d: -f1)" \
	"$(grep -n 'race: right' "$src" | cut -d: -f1)" <<'PY' || bad "annotations-headers: $(snippet "$dir/hdr.out")"
import json, sys
d = json.load(open(sys.argv[1]))
want = {int(sys.argv[2]), int(sys.argv[3])}
assert d["races"], "no race"
for r in d["races"]:
    assert {s["line"] for s in r["sites"]} == want, r["sites"]
    assert {s["thread_name"] for s in r["sites"]} == {"left-hand", "right-hand"}
assert d["benign"] == 1, d["benign"]
PY
hq hdrtext check "$build/annotations-headers.wasm" --db "$dir/hdr.db"
grep -Eq "by thread [0-9]+ 'left-hand':" "$dir/hdrtext.out" &&
	grep -Eq "^  Thread [0-9]+ 'right-hand' created by thread 0" "$dir/hdrtext.out" ||
	bad "annotations-headers: no thread names in the text: $(snippet "$dir/hdrtext.out")"
"$HEISEN" show 1 --db "$dir/hdr.db" >"$dir/show.txt" 2>&1 &&
	grep -q "'right-hand'" "$dir/show.txt" || bad "show: no thread name: $(snippet "$dir/show.txt")"

# ---- (c) ThreadSanitizer's verdicts, natively ----------------------------

cc=${CC:-cc}
if echo 'int main(void){return 0;}' >"$dir/t.c" &&
	"$cc" -fsanitize=thread -o "$dir/t" "$dir/t.c" 2>/dev/null && "$dir/t"; then
	for name in annotations-on annotations-off; do
		if ! "$cc" -fsanitize=thread -g -O1 -pthread -o "$dir/$name" \
			"$guests/$name.c" 2>"$dir/tsan.err"; then
			bad "$name: native TSan build failed: $(snippet "$dir/tsan.err")"
			continue
		fi
		n=$(TSAN_OPTIONS=exitcode=0 "$dir/$name" 2>&1 >/dev/null |
			grep -c '^WARNING: ThreadSanitizer: data race')
		case $name in
		*-on) [ "$n" = 0 ] || bad "$name: natively TSan reports $n races, want none" ;;
		*) [ "$n" -gt 0 ] || bad "$name: natively TSan reports no race" ;;
		esac
	done
else
	echo "no ThreadSanitizer for $cc: native verdicts not compared"
fi

finish t_annotations
