#!/usr/bin/env bash
# Threads that end by pthread_exit, with programs built by `heisen cc`:
#   pool        500 threads, each ending by pthread_exit from a nested
#               call, are created and joined 10 at a time: all 500 joins
#               return their values, and while the program sleeps half-way
#               the heisen process has no OS thread per ended thread (a
#               pthread_exit used to park its thread: the 65th
#               pthread_create failed with EAGAIN)
#   main-exit   pthread_exit in main while a worker still runs: the
#               program lives until the worker ends, exit status 0
#   check       a worker's write before its pthread_exit is ordered before
#               main's read after the join (0 races); main's read before
#               the join races with it (1 race)
. "$(dirname "$0")/lib.sh"
cd "$dir" || exit 1
unset HEISEN_DB

cat >"$dir/exit.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void end_here(long v, int depth)
{
	if (depth)
		end_here(v, depth - 1);
	pthread_exit((void *)v);
}

static void *worker(void *arg)
{
	end_here((long)arg, 5);
	return NULL;
}

static void *slow(void *arg)
{
	struct timespec ts = {0, 300 * 1000 * 1000};
	nanosleep(&ts, NULL);
	printf("worker done\n");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "pool")) {
		long sum = 0;
		int joins = 0;
		for (int i = 0; i < 500; i += 10) {
			pthread_t t[10];
			for (int k = 0; k < 10; k++) {
				int rc = pthread_create(&t[k], NULL, worker,
							(void *)(long)(i + k));
				if (rc) {
					printf("create %d: %s\n", i + k,
					       strerror(rc));
					return 1;
				}
			}
			for (int k = 0; k < 10; k++) {
				void *r;
				if (pthread_join(t[k], &r) == 0)
					joins++;
				sum += (long)r;
			}
			if (i + 10 == 250) {
				struct timespec ts = {2, 0};
				printf("half-way\n");
				fflush(stdout);
				nanosleep(&ts, NULL);
			}
		}
		printf("%d joins, sum %ld\n", joins, sum);
	} else if (!strcmp(mode, "main-exit")) {
		pthread_t t;
		if (pthread_create(&t, NULL, slow, NULL))
			return 1;
		printf("main exits\n");
		fflush(stdout);
		pthread_exit(NULL);
	}
	return 0;
}
EOF
if ! "$HEISEN" cc -O1 -g -o "$dir/exit.wasm" "$dir/exit.c" 2>"$dir/cc.err"; then
	echo "  FAIL: heisen cc exit.c: $(snippet "$dir/cc.err")"
	exit 1
fi

# ---- pool: 500 pthread_exits, OS threads bounded --------------------------------
"$HEISEN" run "$dir/exit.wasm" -- pool </dev/null >"$dir/pool.out" 2>"$dir/pool.err" &
pid=$!
threads=
for _ in $(seq 600); do
	if grep -q '^half-way' "$dir/pool.out"; then
		threads=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$pid/status")
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
# The guest sleeps 2 s; a hung engine must not hang the suite.
for _ in $(seq 600); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] && grep -qx '500 joins, sum 124750' "$dir/pool.out" ||
	bad "pool: exit $rc; out: $(snippet "$dir/pool.out") err: $(snippet "$dir/pool.err")"
# The main thread, perhaps an ended thread not yet joined by the engine
# (it joins them at the next spawn) and nothing per pthread_exit: 250
# threads have ended by now.
if [ -z "$threads" ]; then
	bad "pool: no Threads: count read half-way; out: $(snippet "$dir/pool.out")"
elif [ "$threads" -gt 4 ]; then
	bad "pool: $threads OS threads half-way through, after 250 threads ended by pthread_exit (want at most 4)"
fi

# ---- main-exit: the program outlives main --------------------------------------
timeout -s KILL 60 "$HEISEN" run "$dir/exit.wasm" -- main-exit </dev/null >"$dir/main.out" 2>"$dir/main.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$dir/main.out")" = "$(printf 'main exits\nworker done')" ] ||
	bad "main-exit: exit $rc, want 0 with both lines; out: $(snippet "$dir/main.out") err: $(snippet "$dir/main.err")"

# ---- check: pthread_exit orders like a return ----------------------------------
for order in after before; do
	cat >"$dir/hb-$order.c" <<EOF
#include <pthread.h>
#include <stdio.h>

static int result;

static void *worker(void *arg)
{
	result = 42;
	pthread_exit(NULL);
}

int main(void)
{
	pthread_t t;
	int seen;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
#if $([ "$order" = before ] && echo 1 || echo 0)
	seen = result;
	pthread_join(t, NULL);
#else
	pthread_join(t, NULL);
	seen = result;
#endif
	printf("%d\n", seen);
	return 0;
}
EOF
	if ! "$HEISEN" cc -O1 -g -o "$dir/hb-$order.wasm" "$dir/hb-$order.c" 2>"$dir/cc.err"; then
		bad "heisen cc hb-$order.c: $(snippet "$dir/cc.err")"
		continue
	fi
	timeout -s KILL 300 "$HEISEN" check "$dir/hb-$order.wasm" --runs 3 --json \
		--db "$dir/hb.db" --timeout 60 >"$dir/hb-$order.json" 2>"$dir/hb-$order.err"
	rc=$?
	[ "$rc" -eq 0 ] || { bad "check hb-$order: exit $rc: $(snippet "$dir/hb-$order.err")"; continue; }
	want=0
	[ "$order" = before ] && want=1
	python3 - "$dir/hb-$order.json" "$want" <<'EOF' >"$dir/why" 2>&1 || bad "check hb-$order: $(snippet "$dir/why")"
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
assert d["statuses"] == {"ok": 3}, "statuses %r" % d["statuses"]
lines = sorted(sorted(s["line"] for s in r["sites"]) for r in d["races"])
assert len(d["races"]) == want, "races %r, want %d" % (lines, want)
if want:
    assert lines == [[8, 20]], "race on lines %r, want 8 and 20" % lines
EOF
done

finish t_exit
