#!/usr/bin/env bash
# 128-bit SIMD end to end, on demos/simd-race.c (two threads' vectorised
# chunks overlap by one v128.store) and its race-free twin
# demos/simd-race-free.c, both built by `make demos` with `heisen cc -O2
# -msimd128`:
#   (a) the kernel is vectorised: v128.load and v128.store in the
#       disassembly of work(), where it is inlined;
#   (b) `heisen sites` lists them as sites of width 16 at the kernel's
#       line (text and JSON), and a module with every SIMD memory
#       instruction, instrumented, passes wabt's wasm-validate, with a
#       site of the right width and kind for each;
#   (c) heisen runs both demos to the native builds' output (this fails,
#       not skips, on an engine without SIMD), instrumented too;
#   (d) a default `heisen sweep` of simd-race finds the race at the line
#       its header names, with 16-byte value evidence; `heisen check`
#       finds it in one run and reports writes of size 16;
#   (e) the twin: no race in three check runs, nor in a sweep.
. "$(dirname "$0")/lib.sh"
for tool in wasm-objdump wasm-validate wat2wasm python3; do
	command -v "$tool" >/dev/null || { echo "  FAIL: $tool not found (make deps)"; exit 1; }
done
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
export XDG_CACHE_HOME=$dir/cache
build=$root/demos/build
racy=$build/simd-race.wasm
twin=$build/simd-race-free.wasm
line=$(sed -n 's/^ \* race: simd-race\.c:\([0-9]*\) simd-race\.c:\1$/\1/p' "$root/demos/simd-race.c")
[ -n "$line" ] || bad "demos/simd-race.c: no 'race: simd-race.c:N simd-race.c:N' line"

# ---- (a) vectorised -------------------------------------------------------------

for w in "$racy" "$twin"; do
	name=$(basename "$w" .wasm)
	wasm-objdump -d "$w" | awk '/^[0-9a-f]+ func\[[0-9]+\] </ { on = /<work>:/ } on' >"$dir/$name.work"
	for op in v128.load v128.store f32x4.mul f32x4.add; do
		grep -qE "\| *$op( |\$)" "$dir/$name.work" ||
			bad "$name: no $op in the disassembly of work() (not vectorised? built without -msimd128?)"
	done
done

# ---- (b) sites ---------------------------------------------------------------------

for w in "$racy" "$twin"; do
	name=$(basename "$w" .wasm)
	# The kernel's line: its store's marker.
	kline=$(grep -n 'heisen:site write o ' "$root/demos/$name.c" | cut -d: -f1)
	hq sites sites "$w"
	want sites 0
	# id kind op width mem function offset source
	for kind_op in read:v128.load write:v128.store; do
		awk -v k="${kind_op%%:*}" -v op="${kind_op#*:}" -v src="$name.c:$kline:" \
			'$2 == k && $3 == op && $4 == 16 && $6 == "work" && index($NF, src) { found = 1 }
			 END { exit !found }' "$dir/sites.out" ||
			bad "$name: heisen sites has no ${kind_op%%:*} site ${kind_op#*:} of width 16 in work at $name.c:$kline: $(grep -m3 v128 "$dir/sites.out" | tr '\n' '|')"
	done
	hq sitesj sites "$w" --json
	want sitesj 0
	python3 - "$dir/sitesj.out" "$name.c" "$kline" <<'EOF' || bad "$name: heisen sites --json: v128 sites wrong"
import json, os, sys
d = json.load(open(sys.argv[1]))
v = [s for s in d["sites"] if s["op"].startswith("v128.")]
assert v, "no v128 site"
for s in v:
    want = {"v128.load": ("read", 16), "v128.store": ("write", 16)}.get(s["op"])
    if want:
        assert (s["kind"], s["width"]) == want, s
stores = [s for s in v if s["op"] == "v128.store" and s["source"]
          and os.path.basename(s["source"]["file"]) == sys.argv[2]
          and s["source"]["line"] == int(sys.argv[3])]
assert stores, "no v128.store site at %s:%s" % (sys.argv[2], sys.argv[3])
EOF
done

# Every SIMD memory instruction (the module of tests/unit/test_rewriter.c):
# an instrumented module wabt accepts, each a site of its width and kind.
cat >"$dir/simd.wat" <<'EOF'
(module
  (memory $m 1 1 shared)
  (memory $p 1)
  (func (export "f") (param $a i32) (param $v v128) (result v128)
    (v128.store offset=16 (local.get $a) (local.get $v))
    (v128.store8_lane 3 (local.get $a) (local.get $v))
    (v128.store16_lane 7 (local.get $a) (local.get $v))
    (v128.store32_lane offset=4 2 (local.get $a) (local.get $v))
    (v128.store64_lane 1 (local.get $a) (local.get $v))
    (drop (v128.load8x8_s (local.get $a)))
    (drop (v128.load8x8_u (local.get $a)))
    (drop (v128.load16x4_s (local.get $a)))
    (drop (v128.load16x4_u (local.get $a)))
    (drop (v128.load32x2_s (local.get $a)))
    (drop (v128.load32x2_u offset=8 (local.get $a)))
    (drop (v128.load8_splat (local.get $a)))
    (drop (v128.load16_splat (local.get $a)))
    (drop (v128.load32_splat (local.get $a)))
    (drop (v128.load64_splat (local.get $a)))
    (drop (v128.load32_zero (local.get $a)))
    (drop (v128.load64_zero (local.get $a)))
    (drop (v128.load8_lane 15 (local.get $a) (local.get $v)))
    (drop (v128.load16_lane 0 (local.get $a) (local.get $v)))
    (drop (v128.load32_lane 3 (local.get $a) (local.get $v)))
    (v128.store $p (i32.const 0) (v128.load $p (i32.const 16)))
    (v128.load64_lane 1 (local.get $a) (v128.load offset=32 (local.get $a))))
)
EOF
if ! wat2wasm --enable-threads --enable-multi-memory "$dir/simd.wat" -o "$dir/simd.wasm" 2>"$dir/wat.err"; then
	bad "wat2wasm simd.wat: $(snippet "$dir/wat.err")"
else
	hq inst instrument "$dir/simd.wasm" -o "$dir/simd.hz.wasm"
	want inst 0
	wasm-validate --enable-threads --enable-multi-memory "$dir/simd.hz.wasm" >"$dir/val" 2>&1 ||
		bad "instrumented simd.wasm rejected by wasm-validate: $(snippet "$dir/val")"
	hq simdsites sites "$dir/simd.hz.wasm"
	want simdsites 0
	awk 'NR > 1 { printf "%s %s %s\n", $3, $4, $2 }' "$dir/simdsites.out" >"$dir/simdsites.got"
	cat >"$dir/simdsites.want" <<'EOF'
v128.store 16 write
v128.store8_lane 1 write
v128.store16_lane 2 write
v128.store32_lane 4 write
v128.store64_lane 8 write
v128.load8x8_s 8 read
v128.load8x8_u 8 read
v128.load16x4_s 8 read
v128.load16x4_u 8 read
v128.load32x2_s 8 read
v128.load32x2_u 8 read
v128.load8_splat 1 read
v128.load16_splat 2 read
v128.load32_splat 4 read
v128.load64_splat 8 read
v128.load32_zero 4 read
v128.load64_zero 8 read
v128.load8_lane 1 read
v128.load16_lane 2 read
v128.load32_lane 4 read
v128.load 16 read
v128.load64_lane 8 read
EOF
	cmp -s "$dir/simdsites.want" "$dir/simdsites.got" || {
		bad "sites of every SIMD memory instruction (op width kind):"
		diff "$dir/simdsites.want" "$dir/simdsites.got" | sed 's/^/    /'
	}
fi

# ---- (c) runs -------------------------------------------------------------------------

masked=${MASKED_RUN:-$(dirname "$HEISEN")/tests/e2e/masked_run}
[ -x "$masked" ] ||
	bad "$masked not built (make $(basename "$(dirname "$HEISEN")")/tests/e2e/masked_run)"
for w in "$racy" "$twin"; do
	name=$(basename "$w" .wasm)
	"$build/native/$name" >"$dir/native.out" 2>/dev/null
	timeout -s KILL 120 "$HEISEN" run "$w" </dev/null >"$dir/run.out" 2>"$dir/run.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		bad "$name: heisen run exit $rc (does the engine run SIMD?): $(snippet "$dir/run.err")"
	elif ! cmp -s "$dir/native.out" "$dir/run.out"; then
		bad "$name: heisen run prints '$(snippet "$dir/run.out")', native '$(snippet "$dir/native.out")'"
	fi
	# Instrumented, every site armed: the v128 operands stashed around
	# each probe come back unchanged.
	if [ -x "$masked" ]; then
		hq inst instrument "$w" -o "$dir/$name.hz.wasm"
		want inst 0
		timeout -s KILL 120 "$masked" --mask 1 "$dir/$name.hz.wasm" </dev/null \
			>"$dir/masked.out" 2>"$dir/masked.err"
		rc=$?
		[ "$rc" -eq 0 ] && cmp -s "$dir/native.out" "$dir/masked.out" ||
			bad "$name: instrumented at mask 1: exit $rc, '$(snippet "$dir/masked.out")', native '$(snippet "$dir/native.out")'; $(snippet "$dir/masked.err")"
	fi
done

# ---- (d) the race: a default sweep, one check run ----------------------------------------

# found FILE KEY: whether FILE's JSON list KEY has the race line <-> line
# of simd-race.c, W/W, both sites of width 16 where the list gives widths
# (heisen.check/1 does, heisen.bugs/1 rows do not); prints its bug id.
found() {
	python3 - "$1" "$2" "$line" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
line = int(sys.argv[3])
for b in d[sys.argv[2]]:
    s = b["sites"]
    if all(os.path.basename(x["file"] or "?") == "simd-race.c" and x["line"] == line
           and x.get("width", 16) == 16 for x in s) and b["kinds"] == "W/W":
        print(b.get("id", b.get("bug")))
        sys.exit(0)
sys.exit("not found; reported: %s" % sorted(
    "%s:%s<->%s:%s" % (os.path.basename(b["sites"][0]["file"] or "?"), b["sites"][0]["line"],
                       os.path.basename(b["sites"][1]["file"] or "?"), b["sites"][1]["line"])
    for b in d[sys.argv[2]]))
EOF
}

hq sweep sweep "$racy" --db "$dir/w.db" --seed 1 --json
want sweep 0
if [ "$rc" -eq 0 ]; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "done" and d["done"] == d["planned"] == 400, d
assert d["statuses"].get("ok") == 400, d["statuses"]
' "$dir/sweep.out" || bad "simd-race: the default sweep is not 400 ok runs: $(snippet "$dir/sweep.out")"
	if bug=$(found "$dir/sweep.out" program_bugs 2>"$dir/why"); then
		hq show show "$bug" --db "$dir/w.db" --json
		want show 0
		python3 - "$dir/show.out" <<'EOF' || bad "simd-race: bug $bug: not two 16-byte sites with 16-byte value evidence"
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["width"] for s in d["sites"]] == [16, 16], d["sites"]
vals = [ex["value"] for ex in d["examples"] if ex.get("value")]
assert vals, "no example with a value"
for v in vals:
    assert len(v["before"]) == len(v["after"]) == 32, v
EOF
	else
		bad "simd-race: a default sweep did not find the race at simd-race.c:$line: $(snippet "$dir/why")"
	fi
fi

hq check check "$racy" --runs 1 --db "$dir/c.db" --json
want check 0
if [ "$rc" -eq 0 ]; then
	found "$dir/check.out" races >/dev/null 2>"$dir/why" ||
		bad "simd-race: one check run did not find the race at simd-race.c:$line: $(snippet "$dir/why")"
fi
hq checkt check "$racy" --runs 1 --db "$dir/c.db"
grep -qE "^  (Write|Unordered write) of size 16 at 0x[0-9a-f]{8} by thread [0-9]+:$" "$dir/checkt.out" ||
	bad "simd-race: check's report has no write of size 16: $(snippet "$dir/checkt.out")"

# ---- (e) the twin ---------------------------------------------------------------------------

hq tcheck check "$twin" --runs 3 --db "$dir/t.db" --json
want tcheck 0
hq tsweep sweep "$twin" --runs 2 --db "$dir/t.db" --seed 2 --json
want tsweep 0
for f in tcheck tsweep; do
	python3 - "$dir/$f.out" <<'EOF' || bad "simd-race-free: $f: $(snippet "$dir/$f.out")"
import json, sys
d = json.load(open(sys.argv[1]))
st = d["statuses"]
assert st.get("ok", 0) > 0 and st["ok"] == sum(st.values()), "statuses %s" % st
races = d["races"] if "races" in d else d["program_bugs"]
assert races == [], "races: %s" % races
EOF
done

finish t_simd
