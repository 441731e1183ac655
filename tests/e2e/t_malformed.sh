#!/usr/bin/env bash
# Bad inputs to `heisen validate` and `heisen inspect`: every one must end
# with exit code 2, exactly one line on stderr naming the file (with
# "offset 0x" when the bytes are at fault) and nothing on stdout. A valid
# module is the control (exit 0, silent stderr).
. "$(dirname "$0")/lib.sh"

hex() { # FILE HEX... : write the bytes
	local f=$1
	shift
	printf '%s' "$*" | tr -d ' ' | xxd -r -p >"$f"
}

header='0061736d 01000000'
# (module (func)): type, function and code sections.
valid_body='01 04 01 60 00 00  03 02 01 00  0a 04 01 02 00 0b'

hex "$dir/valid.wasm" "$header $valid_body"
# Cut inside the code section.
hex "$dir/truncated.wasm" "$header 01 04 01 60 00 00  03 02 01 00  0a 04 01"
hex "$dir/bad-magic.wasm" "0061736e 01000000"
hex "$dir/bad-version.wasm" "0061736d 02000000"
# Type count written with 6 continuation bytes: longer than a u32 LEB128.
hex "$dir/leb-overflow.wasm" "$header 01 07 80 80 80 80 80 80 00"
# Function section (3) before the type section (1).
hex "$dir/out-of-order.wasm" "$header 03 01 00  01 01 00"
# A type count of 2^32-1 in a 5-byte section: must not try to allocate it.
hex "$dir/count-too-large.wasm" "$header 01 05 ff ff ff ff 0f"
: >"$dir/empty.wasm"
mkdir "$dir/a-directory.wasm"
missing=$dir/missing.wasm

# expect FILE KIND: KIND is ok, binary (error at an offset) or io.
expect() {
	local file=$1 kind=$2 cmd rc nerr what
	for cmd in validate inspect; do
		"$HEISEN" "$cmd" "$file" >"$dir/out" 2>"$dir/err"
		rc=$?
		nerr=$(wc -l <"$dir/err")
		what="heisen $cmd $(basename "$file")"
		if [ "$kind" = ok ]; then
			[ "$rc" -eq 0 ] || bad "$what: exit $rc, want 0; stderr: $(snippet "$dir/err")"
			[ -s "$dir/err" ] && bad "$what: unexpected stderr: $(snippet "$dir/err")"
			[ "$cmd" = inspect ] && [ ! -s "$dir/out" ] && bad "$what: inspect printed nothing"
			continue
		fi
		[ "$rc" -eq 2 ] || bad "$what: exit $rc, want 2"
		[ -s "$dir/out" ] && bad "$what: stdout not empty: $(snippet "$dir/out")"
		# one line: exactly one newline-terminated line
		if [ "$nerr" -ne 1 ] || [ "$(wc -c <"$dir/err")" -le 1 ]; then
			bad "$what: want one line on stderr, got $nerr: $(snippet "$dir/err")"
		fi
		grep -qF -- "$file" "$dir/err" || bad "$what: message does not name the file: $(snippet "$dir/err")"
		if [ "$kind" = binary ]; then
			grep -q 'offset 0x' "$dir/err" || bad "$what: message has no 'offset 0x': $(snippet "$dir/err")"
		fi
	done
}

expect "$dir/valid.wasm" ok
expect "$dir/truncated.wasm" binary
expect "$dir/bad-magic.wasm" binary
expect "$dir/bad-version.wasm" binary
expect "$dir/leb-overflow.wasm" binary
expect "$dir/out-of-order.wasm" binary
expect "$dir/count-too-large.wasm" binary
expect "$dir/empty.wasm" binary
expect "$dir/a-directory.wasm" io
expect "$missing" io

finish t_malformed
