#!/usr/bin/env bash
# Regenerate tests/fuzz/corpus/module/ from the .wat seeds next to this script.
#
# Every seed is assembled with the features heisen supports (threads and
# multi-memory on top of wabt's defaults: SIMD, bulk memory, reference
# types, multi-value...). names.wat also gets a name section. One extra
# seed, custom-sections.wasm, has custom sections before, between and after
# the known sections, which wat2wasm cannot write: encode must put each one
# back where it stood.
#
# The corpus is committed so `make fuzz-regress` needs no wabt; run this
# after editing a seed and commit both. Output is deterministic.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../corpus/module
command -v wat2wasm >/dev/null || { echo "make-corpus: wat2wasm (wabt) not found" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out"/*.wasm

flags=(--enable-threads --enable-multi-memory)
for wat in "$here"/*.wat; do
	name=$(basename "$wat" .wat)
	extra=()
	[ "$name" = names ] && extra=(--debug-names)
	wat2wasm "${flags[@]}" "${extra[@]}" "$wat" -o "$out/$name.wasm"
done

# A custom section: id 0, size, name, payload. Sizes stay below 128 so each
# LEB128 is one byte.
custom() { # NAME PAYLOAD -> hex
	local n=$1 p=$2
	local body
	body=$(printf '%02x' "${#n}"; printf '%s' "$n" | xxd -p; printf '%s' "$p" | xxd -p)
	body=$(printf '%s' "$body" | tr -d '\n')
	printf '00%02x%s' $((${#body} / 2)) "$body"
}
# Split start.wasm after its first known section (the type section, whose
# size fits in one LEB128 byte) and insert custom sections around it.
base=$(xxd -p "$out/start.wasm" | tr -d '\n')
header=${base:0:16}
first_size=$((16#${base:18:2}))
[ "$first_size" -lt 128 ] || { echo "make-corpus: start.wasm type section too big" >&2; exit 1; }
first=${base:16:$((4 + 2 * first_size))}
rest=${base:$((16 + ${#first}))}
{
	printf '%s' "$header"
	custom before-all "seed: custom section ahead of every known section"
	printf '%s' "$first"
	custom after-type "between type and function"
	custom after-type-2 ""
	printf '%s' "$rest"
	custom trailing "last"
} | xxd -r -p >"$out/custom-sections.wasm"

for f in "$out"/*.wasm; do
	if ! wasm-validate --enable-threads --enable-multi-memory "$f"; then
		echo "make-corpus: $f does not validate" >&2
		exit 1
	fi
done
n=$(find "$out" -name "*.wasm" | wc -l)
echo "make-corpus: $n seeds in $out"
