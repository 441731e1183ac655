/*
 * bench_jit.c - what loading a module costs before its first instruction
 * runs, with and without the compiler (core/jit.h).
 *
 *   bench_jit FILE.wasm [RUNS]      (RUNS defaults to 3)
 *
 * Reads the file once, then RUNS times: decode + validate + eng_compile
 * with the compiler off (the register code only), and the same with it
 * on, where a function is compiled on its first call. Then, with it on,
 * every function compiled at once (eng_jit_compile_all): the compiler's
 * time for the whole module and its throughput in MB of the code section
 * per second, the functions it compiled and those it left to the
 * interpreter, and the bytes of machine code. Reports the best of each.
 * "Load to ready" is what a first run waits for before the module's
 * first instruction: the module's instantiation (its memories and
 * segments) comes on top, the same with either engine, and so does the
 * compile of each function the run calls.
 *
 * Output: a human line, then one `key=value` line for scripts (run.sh).
 * MB here is 10^6 bytes. This is a report: nothing asserts a timing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/engine.h"
#include "core/jit.h"
#include "core/wasm.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One load of data: decode, validate, compile; its wall time into *s
 * and the module's figures into *st. False with a message on failure. */
static bool load(const uint8_t *data, size_t len, const char *path, bool jit,
		 double *s, eng_exec_stats *st)
{
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	wasm_err err;
	char msg[512];
	double t0 = now();

	wasm_err_clear(&err);
	eng_jit_enable(jit);
	if (wasm_decode(data, len, &m, &err) || wasm_validate(m, &err)) {
		wasm_module_free(m);
		goto fail;
	}
	if (eng_compile(m, &cm, &err))
		goto fail;
	*s = now() - t0;
	/* Ready: functions are compiled on their first call. The
	 * compiler's throughput is that of compiling them all. */
	eng_jit_compile_all(cm);
	eng_module_exec_stats(cm, st);
	eng_module_free(cm);
	return true;
fail:
	wasm_err_format(&err, path, msg, sizeof msg);
	fprintf(stderr, "bench_jit: %s\n", msg);
	return false;
}

int main(int argc, char **argv)
{
	const char *path;
	long runs = 3;
	uint8_t *data = NULL;
	size_t len = 0;
	wasm_err err;
	double best_off = -1, best_on = -1, best_jit = -1;
	eng_exec_stats st = {0};

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_jit FILE.wasm [RUNS]\n");
		return 2;
	}
	path = argv[1];
	if (argc == 3) {
		char *end;

		errno = 0;
		runs = strtol(argv[2], &end, 10);
		if (errno || *end || runs < 1 || runs > 100) {
			fprintf(stderr, "bench_jit: RUNS must be 1..100: %s\n",
				argv[2]);
			return 2;
		}
	}
	wasm_err_clear(&err);
	if (wasm_read_file(path, &data, &len, &err) != WASM_OK) {
		char msg[512];
		wasm_err_format(&err, path, msg, sizeof msg);
		fprintf(stderr, "bench_jit: %s\n", msg);
		return 2;
	}
	for (long i = 0; i < runs; i++) {
		double off, on;
		if (!load(data, len, path, false, &off, &st) ||
		    !load(data, len, path, true, &on, &st)) {
			free(data);
			return 2;
		}
		if (best_off < 0 || off < best_off)
			best_off = off;
		if (best_on < 0 || on < best_on)
			best_on = on;
		if (best_jit < 0 || st.compile_s < best_jit)
			best_jit = st.compile_s;
	}
	free(data);
	if (!st.jit) {
		printf("bench_jit: %s: no compiler on this machine; load to "
		       "ready %.3f s\n",
		       path, best_off);
		printf("bytes=%zu off_s=%.6f jit=0\n", len, best_off);
		return 0;
	}
	printf("%s: %.1f MB, code section %.1f MB; load to ready %.3f s "
	       "interpreted, %.3f s compiled; the compiler %.3f s "
	       "(%.1f MB/s), %u functions compiled, %u interpreted, %.1f MB "
	       "of machine code\n",
	       path, (double)len / 1e6, (double)st.wasm_bytes / 1e6, best_off,
	       best_on, best_jit, (double)st.wasm_bytes / best_jit / 1e6,
	       st.compiled, st.interpreted, (double)st.code_bytes / 1e6);
	printf("bytes=%zu code_bytes=%zu off_s=%.6f on_s=%.6f jit_s=%.6f "
	       "mbps=%.1f compiled=%u interpreted=%u machine_bytes=%zu\n",
	       len, st.wasm_bytes, best_off, best_on, best_jit,
	       (double)st.wasm_bytes / best_jit / 1e6, st.compiled,
	       st.interpreted, st.code_bytes);
	return 0;
}
