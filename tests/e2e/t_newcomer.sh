#!/usr/bin/env bash
# The newcomer's path on a copy of the checkout with nothing beside it:
# `make` alone gives a heisen whose `cc` works (the guest library is part
# of the default target) and a pthread program compiled with it runs;
# the spec step says it was skipped when no suite is found, and fails
# when HEISEN_SPEC_DIR names a folder without one.
. "$(dirname "$0")/lib.sh"

if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "t_newcomer: $root is not a git checkout; nothing to copy as a clone would"
	exit 0
fi
# What a clone of this tree would hold once committed: the tracked files
# and the new ones git does not ignore, as they are now.
clone=$dir/fresh/heisen
mkdir -p "$clone"
(cd "$root" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$clone" 2>"$dir/cp.err")
[ -f "$clone/Makefile" ] || { bad "copy failed: $(snippet "$dir/cp.err")"; finish t_newcomer; }

make -C "$clone" -j2 "${make_flags[@]}" >"$dir/make.log" 2>&1 ||
	{ bad "make failed: $(tail -5 "$dir/make.log" | tr '\n' ' ')"; finish t_newcomer; }
bin=$clone/build/heisen
[ "${make_flags[*]}" = SANITIZE=1 ] && bin=$clone/build-asan/heisen
[ -x "$bin" ] || bad "make did not build $bin"

cat >"$dir/x.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>

static int total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&lock);
		total += *(int *)arg;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	int one = 1;
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, &one);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("total %d\n", total);
	return 0;
}
EOF
cd "$dir" || exit 3
"$bin" cc -g x.c -o x.wasm 2>"$dir/cc.err" ||
	bad "heisen cc after plain make: $(snippet "$dir/cc.err")"
out=$("$bin" run x.wasm 2>"$dir/run.err")
[ "$out" = "total 3000" ] || bad "heisen run x.wasm: '$out' $(snippet "$dir/run.err")"

# The spec step of `make test`, with no suite beside the copy.
spec_build=$(dirname "$bin")
env -u HEISEN_SPEC_DIR "$clone/tests/spec/run.sh" "$spec_build" >"$dir/spec.out" 2>&1
rc=$?
[ $rc -eq 0 ] || bad "spec step without a suite: exit $rc: $(snippet "$dir/spec.out")"
grep -q '^spec: skipped: ' "$dir/spec.out" && grep -q 'HEISEN_SPEC_DIR' "$dir/spec.out" ||
	bad "spec step does not say it was skipped and how to run it: $(snippet "$dir/spec.out")"
[ "$(wc -l <"$dir/spec.out")" -eq 1 ] || bad "spec skip is more than one line"
HEISEN_SPEC_DIR=$dir/none "$clone/tests/spec/run.sh" "$spec_build" >"$dir/spec2.out" 2>&1
[ $? -eq 2 ] || bad "HEISEN_SPEC_DIR naming no suite should fail (exit 2)"

finish t_newcomer
