#!/usr/bin/env bash
# The rewriter through its commands, `heisen instrument` and `heisen
# sites` (rewriter/instrument.h has the probe ABI):
#   - every demo instrumented with --all-memories passes wabt's
#     wasm-validate (--enable-threads --enable-multi-memory: the mask is a
#     second, shared memory), and gives the same bytes without the flag
#     (every demo memory is shared);
#   - meaning is kept: each demo (all race-free and deterministic, see
#     t_demos.sh) prints the same stdout and exits the same under
#     masked_run at mask 0 (every site disarmed) and mask 1 (every site
#     calls the probe) as the original under `heisen run`;
#   - the site count is the number of access instructions that
#     `wasm-objdump -d` shows (loads, stores, atomic loads/stores/RMW/
#     cmpxchg, memory.copy/fill/init; not wait/notify/fence), in
#     `heisen sites --json` and in `heisen instrument`'s report;
#   - refusals: an instrumented module, a module without a shared memory
#     (without --all-memories), `sites` on a module that is not
#     instrumented, and the malformed inputs of t_malformed.sh: exit 2,
#     one line on stderr naming the file, nothing on stdout, no output file;
#   - large inputs: 2^16 functions (and 2^16 + 1 sites, so the mask takes
#     2 pages) and a function with 50 000 locals: instrumented into a valid
#     module or refused with one line, never a crash (`make SANITIZE=1
#     e2e` runs this under ASan).
# masked_run (tests/e2e/masked_run.c) is built next to $HEISEN.
. "$(dirname "$0")/lib.sh"

masked=${MASKED_RUN:-$(dirname "$HEISEN")/tests/e2e/masked_run}
if [ ! -x "$masked" ]; then
	echo "  FAIL: $masked not built (make $(basename "$(dirname "$HEISEN")")/tests/e2e/masked_run)"
	exit 1
fi
for tool in wasm-validate wasm-objdump wat2wasm; do
	command -v "$tool" >/dev/null || { echo "  FAIL: $tool not found (make deps)"; exit 1; }
done

run() { # ARGS... : run heisen, leaving rc, $dir/out and $dir/err
	timeout -s KILL 120 "$HEISEN" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
}

# A crash is an exit by signal (>= 128) or a sanitizer report.
crashed() {
	[ "$rc" -ge 128 ] || grep -qE 'Sanitizer|runtime error:' "$dir/err"
}

# The number of sites `heisen sites FILE --json` lists, or "" when it
# cannot be read.
json_sites() {
	run sites "$1" --json
	[ "$rc" -eq 0 ] || return
	if command -v python3 >/dev/null; then
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)["sites"]))' \
			<"$dir/out" 2>/dev/null
	else
		grep -o '"kind"' "$dir/out" | wc -l
	fi
}

# Access instructions of wasm-objdump -d: what the rewriter must probe
# when every memory is shared.
objdump_sites() {
	wasm-objdump -d "$1" | awk -F'|' 'NF > 1 { print $2 }' | awk '{ print $1 }' |
		grep -cE '^((i32|i64|f32|f64|v128)\.(atomic\.)?(load|store|rmw)|memory\.(copy|fill|init)$)'
}

need_demos

# ---- the demos: valid output, same meaning, site count -----------------------
n=0
for wasm in "$root"/demos/build/*.wasm; do
	name=$(basename "$wasm" .wasm)
	inst=$dir/$name.inst.wasm
	n=$((n + 1))
	run instrument --all-memories "$wasm" -o "$inst"
	if [ "$rc" -ne 0 ] || [ ! -s "$inst" ]; then
		bad "$name: heisen instrument --all-memories: exit $rc: $(snippet "$dir/err")"
		continue
	fi
	crashed && bad "$name: heisen instrument: crash: $(snippet "$dir/err")"
	report=$(cat "$dir/out" "$dir/err")
	if ! wasm-validate --enable-threads --enable-multi-memory "$inst" >"$dir/val" 2>&1; then
		bad "$name: instrumented module rejected by wasm-validate: $(snippet "$dir/val")"
		cp "$inst" "/tmp/heisen-t_instrument-$name.inst.wasm" 2>/dev/null &&
			echo "    (kept /tmp/heisen-t_instrument-$name.inst.wasm)"
	fi
	run instrument "$wasm" -o "$dir/$name.shared.wasm"
	if [ "$rc" -ne 0 ]; then
		bad "$name: heisen instrument (shared memories only): exit $rc: $(snippet "$dir/err")"
	elif ! cmp -s "$inst" "$dir/$name.shared.wasm"; then
		bad "$name: --all-memories changes the output, but every memory of the demo is shared"
	fi

	want=$(objdump_sites "$wasm")
	got=$(json_sites "$inst")
	if [ -z "$got" ]; then
		bad "$name: heisen sites --json failed or printed no \"sites\" array: $(snippet "$dir/err") $(snippet "$dir/out")"
	elif [ "$got" -ne "$want" ]; then
		bad "$name: heisen sites lists $got sites, wasm-objdump -d shows $want accesses"
	fi
	# Before instrumenting, `sites` lists the table the rewriter would
	# give: the same rows as the instrumented module's heisen.sites.
	if command -v python3 >/dev/null; then
		"$HEISEN" sites "$wasm" --json >"$dir/pre.json" 2>"$dir/err"
		"$HEISEN" sites "$inst" --json >"$dir/post.json" 2>>"$dir/err"
		python3 -c 'import json, sys
a, b = (json.load(open(f))["sites"] for f in sys.argv[1:])
if len(a) != len(b):
    sys.exit("%d sites before, %d after" % (len(a), len(b)))
diff = [(x, y) for x, y in zip(a, b) if x != y]
if diff:
    x, y = diff[0]
    keys = ", ".join(k for k in x if x.get(k) != y.get(k))
    sys.exit("%d rows differ, first site %s in %s: %s before, %s after" % (
        len(diff), x["id"], keys, json.dumps([x.get(k) for k in x if x.get(k) != y.get(k)]),
        json.dumps([y.get(k) for k in x if x.get(k) != y.get(k)])))' \
			"$dir/pre.json" "$dir/post.json" 2>>"$dir/err" ||
			bad "$name: heisen sites of the original and of the instrumented module differ: $(snippet "$dir/err")"
	fi
	# The instrument command reports the count it wrote.
	grep -qw -- "$want" <<<"$report" ||
		bad "$name: heisen instrument's report does not say $want sites: $(head -c 300 <<<"$report" | tr '\n' ' ')"

	timeout -s KILL 120 "$HEISEN" run "$wasm" </dev/null >"$dir/orig.out" 2>"$dir/orig.err"
	orc=$?
	for mask in 0 1; do
		timeout -s KILL 120 "$masked" --mask "$mask" "$inst" </dev/null \
			>"$dir/inst.out" 2>"$dir/inst.err"
		irc=$?
		if [ "$irc" -ne "$orc" ]; then
			bad "$name: instrumented at mask $mask exits $irc, original $orc; stderr: $(snippet "$dir/inst.err")"
		elif ! cmp -s "$dir/orig.out" "$dir/inst.out"; then
			bad "$name: instrumented at mask $mask prints other output:"
			diff "$dir/orig.out" "$dir/inst.out" | head -10 | sed 's/^/    /'
		fi
	done
done
[ "$n" -gt 0 ] || bad "no demos found in $root/demos"

# ---- a WASI command that defines its memory ---------------------------------
# (The demos import env.memory, the wasi-threads shape; a plain wasi-libc
# program such as the benchmark kernels defines its memory instead.) The
# mask import then comes before the program's own memory in the index
# space, and the program must still run: WASI must keep using the
# program's memory, not the mask. This one stores "hi\n" and its iovec
# with plain stores (3 sites) and writes them with fd_write.
cat >"$dir/own-memory.wat" <<'EOF'
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store (i32.const 16) (i32.const 0x0a6968)) ;; "hi\n"
    (i32.store (i32.const 0) (i32.const 16))        ;; iov.buf
    (i32.store (i32.const 4) (i32.const 3))         ;; iov.len
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
EOF
wat2wasm "$dir/own-memory.wat" -o "$dir/own-memory.wasm"
[ "$("$HEISEN" run "$dir/own-memory.wasm" 2>&1)" = hi ] ||
	bad "own-memory: the original does not print 'hi' under heisen run"
run instrument --all-memories "$dir/own-memory.wasm" -o "$dir/own-memory.inst.wasm"
if [ "$rc" -ne 0 ]; then
	bad "own-memory: heisen instrument --all-memories: exit $rc: $(snippet "$dir/err")"
else
	for mask in 0 1; do
		timeout -s KILL 60 "$masked" --mask "$mask" "$dir/own-memory.inst.wasm" </dev/null \
			>"$dir/inst.out" 2>"$dir/inst.err"
		irc=$?
		[ "$irc" -eq 0 ] && [ "$(cat "$dir/inst.out")" = hi ] ||
			bad "own-memory: instrumented at mask $mask: exit $irc, printed '$(snippet "$dir/inst.out")', want 'hi' (does WASI use memory 0, now heisen.mask?); stderr: $(snippet "$dir/inst.err")"
	done
fi

# ---- refusals -----------------------------------------------------------------
hex() { # FILE HEX... : write the bytes
	local f=$1
	shift
	printf '%s' "$*" | tr -d ' ' | xxd -r -p >"$f"
}
header='0061736d 01000000'
hex "$dir/truncated.wasm" "$header 01 04 01 60 00 00  03 02 01 00  0a 04 01"
hex "$dir/bad-magic.wasm" "0061736e 01000000"
hex "$dir/bad-version.wasm" "0061736d 02000000"
hex "$dir/leb-overflow.wasm" "$header 01 07 80 80 80 80 80 80 00"
hex "$dir/out-of-order.wasm" "$header 03 01 00  01 01 00"
hex "$dir/count-too-large.wasm" "$header 01 05 ff ff ff ff 0f"
: >"$dir/empty.wasm"
mkdir "$dir/a-directory.wasm"
# Valid, with an unshared memory: nothing to do without --all-memories,
# and not instrumented, so `sites` has nothing to read.
cat >"$dir/unshared.wat" <<'EOF'
(module (memory 1) (func (export "f") (i32.store (i32.const 0) (i32.const 1))))
EOF
wat2wasm "$dir/unshared.wat" -o "$dir/unshared.wasm"

# refuse WHAT KIND CMD... : exit 2, one line naming FILE on stderr, nothing
# on stdout, no output file left. KIND: binary (error at an offset), io,
# or other.
refuse() {
	local file=$1 kind=$2
	shift 2
	rm -f "$dir/refused.wasm"
	run "$@"
	local what="heisen $* ($(basename "$file"))"
	if crashed; then
		bad "$what: crash: $(snippet "$dir/err")"
		return
	fi
	[ "$rc" -eq 2 ] || bad "$what: exit $rc, want 2"
	[ -s "$dir/out" ] && bad "$what: stdout not empty: $(snippet "$dir/out")"
	if [ "$(wc -l <"$dir/err")" -ne 1 ] || [ "$(wc -c <"$dir/err")" -le 1 ]; then
		bad "$what: want one line on stderr, got: $(snippet "$dir/err")"
	fi
	grep -qF -- "$file" "$dir/err" || bad "$what: message does not name the file: $(snippet "$dir/err")"
	if [ "$kind" = binary ]; then
		grep -q 'offset 0x' "$dir/err" || bad "$what: no 'offset 0x': $(snippet "$dir/err")"
	fi
	[ -e "$dir/refused.wasm" ] && bad "$what: left an output file"
}

for f in truncated bad-magic bad-version leb-overflow out-of-order count-too-large empty; do
	refuse "$dir/$f.wasm" binary instrument "$dir/$f.wasm" -o "$dir/refused.wasm"
	refuse "$dir/$f.wasm" binary instrument --all-memories "$dir/$f.wasm" -o "$dir/refused.wasm"
	refuse "$dir/$f.wasm" binary sites "$dir/$f.wasm"
	refuse "$dir/$f.wasm" binary sites "$dir/$f.wasm" --json
done
for f in "$dir/a-directory.wasm" "$dir/missing.wasm"; do
	refuse "$f" io instrument "$f" -o "$dir/refused.wasm"
	refuse "$f" io sites "$f"
done
refuse "$dir/unshared.wasm" other instrument "$dir/unshared.wasm" -o "$dir/refused.wasm"
grep -q -- '--all-memories' "$dir/err" || bad "instrument unshared.wasm: the refusal does not mention --all-memories: $(snippet "$dir/err")"
refuse "$dir/unshared.wasm" other sites "$dir/unshared.wasm"
inst=$dir/hello.inst.wasm
if [ -s "$inst" ]; then
	refuse "$inst" other instrument --all-memories "$inst" -o "$dir/refused.wasm"
fi
run instrument --all-memories "$dir/unshared.wasm" -o "$dir/unshared.inst.wasm"
if [ "$rc" -ne 0 ]; then
	bad "instrument --all-memories unshared.wasm: exit $rc: $(snippet "$dir/err")"
else
	got=$(json_sites "$dir/unshared.inst.wasm")
	[ "$got" = 1 ] || bad "instrument --all-memories unshared.wasm: want 1 site, heisen sites says '$got'"
fi

# ---- large inputs ---------------------------------------------------------
# big MODULE: instrumented into a module wasm-validate accepts, or refused
# with one line; never a crash. Sets big_ok=1 when instrumented. (Not
# called in $(...): bad must count in this shell.)
big() {
	local w=$1 name
	name=$(basename "$w" .wasm)
	big_ok=0
	run instrument "$w" -o "$dir/$name.inst.wasm"
	if crashed; then
		bad "$name: heisen instrument crashed (exit $rc): $(snippet "$dir/err")"
	elif [ "$rc" -eq 0 ]; then
		wasm-validate --enable-threads --enable-multi-memory "$dir/$name.inst.wasm" >"$dir/val" 2>&1 ||
			bad "$name: instrumented module rejected by wasm-validate: $(snippet "$dir/val")"
		big_ok=1
	elif [ "$rc" -ne 2 ] || [ "$(wc -l <"$dir/err")" -ne 1 ]; then
		bad "$name: refused with exit $rc (want 2) and not one line: $(snippet "$dir/err")"
	else
		echo "  ($name refused: $(cat "$dir/err"))"
	fi
}

# 2^16 functions with one store each, the first with two: 65537 sites,
# one more than a mask page holds.
awk 'BEGIN {
	print "(module (memory 1 1 shared)"
	print "(func (i32.store (i32.const 0) (i32.const 1)) (i32.store (i32.const 4) (i32.const 1)))"
	for (i = 1; i < 65536; i++) print "(func (i32.store (i32.const 0) (i32.const 1)))"
	print ")" }' >"$dir/funcs-65536.wat"
if ! wat2wasm --enable-threads "$dir/funcs-65536.wat" -o "$dir/funcs-65536.wasm" 2>"$dir/wat.err"; then
	bad "wat2wasm funcs-65536.wat: $(snippet "$dir/wat.err")"
elif big "$dir/funcs-65536.wasm" && [ "$big_ok" = 1 ]; then
	wasm-objdump -x "$dir/funcs-65536.inst.wasm" | grep 'heisen.mask' >"$dir/mask" 2>&1
	grep -q 'initial=2 max=2' "$dir/mask" ||
		bad "funcs-65536: 65537 sites need a 2-page mask, got: $(snippet "$dir/mask")"
	got=$(json_sites "$dir/funcs-65536.inst.wasm")
	[ "$got" = 65537 ] || bad "funcs-65536: want 65537 sites, heisen sites says '$got'"
fi

# One function with 50 000 i32 locals, the last one stored.
awk 'BEGIN {
	printf "(module (memory 1 1 shared) (func (export \"f\") (local"
	for (i = 0; i < 50000; i++) printf " i32"
	print ")"
	print "(i32.store (i32.const 0) (local.get 49999))))" }' >"$dir/locals-50000.wat"
if ! wat2wasm --enable-threads "$dir/locals-50000.wat" -o "$dir/locals-50000.wasm" 2>"$dir/wat.err"; then
	bad "wat2wasm locals-50000.wat: $(snippet "$dir/wat.err")"
else
	big "$dir/locals-50000.wasm"
fi

finish t_instrument
