/*
 * bench_engine.c - the fixed cost of a run: instantiate a compiled module
 * and call an empty _start, as a campaign does thousands of times.
 *
 *   bench_engine [N] [FILE.wasm]
 *
 * Three figures, each the mean over N iterations (default 2000) after a
 * warm-up:
 *   instance  - instantiate + call _start into an existing proc and thread
 *   proc      - new proc + thread + instantiate + call + free everything
 *   wasi_run  - wasi_run of FILE.wasm (a WASI command, e.g. the kernels'
 *               empty.wasm), stdout to /dev/null: the path `heisen run`
 *               and campaigns take, fd table and env.memory included
 * A report, not a test: nothing here fails on a timing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "core/wasi.h"

/* (module (func (export "_start"))) */
static const uint8_t empty_mod[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01,
	0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x0a, 0x01, 0x06,
	0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x00, 0x0a, 0x04, 0x01,
	0x02, 0x00, 0x0b};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool no_imports(void *ctx, const wasm_import *imp, eng_extern *out)
{
	return false;
}

/* One instantiate + _start; false (with a message) on any failure. */
static bool run_once(eng_module *cm, eng_proc *p, eng_thread *t)
{
	eng_instance *in;
	eng_extern ex;
	eng_trap trap;
	wasm_err err;

	if (!eng_instantiate(cm, p, t, no_imports, NULL, &in, &trap, &err)) {
		fprintf(stderr, "bench_engine: instantiate: %s\n", err.msg);
		return false;
	}
	if (!eng_instance_export(in, "_start", &ex) ||
	    eng_call(t, ex.u.func, NULL, NULL, &trap) != ENG_OK) {
		fprintf(stderr, "bench_engine: _start failed\n");
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	wasm_module *m;
	eng_module *cm;
	eng_proc *p;
	eng_thread *t;
	wasm_err err;
	double t0, inst_us, proc_us;

	if (n <= 0 || wasm_decode(empty_mod, sizeof empty_mod, &m, &err) ||
	    wasm_validate(m, &err) || eng_compile(m, &cm, &err)) {
		fprintf(stderr, "bench_engine: usage: bench_engine [N] "
				"[FILE.wasm], or setup failed\n");
		return 2;
	}

	/* Instances accumulate in the proc until it is freed, so this one
	 * is measured in batches of 200 per proc. */
	t0 = now();
	for (int done = 0; done < n;) {
		p = eng_proc_new(NULL);
		t = eng_thread_new(p, &err);
		for (int k = 0; k < 200 && done < n; k++, done++)
			if (!run_once(cm, p, t))
				return 3;
		eng_proc_free(p);
	}
	inst_us = (now() - t0) / n * 1e6;

	t0 = now();
	for (int i = 0; i < n; i++) {
		p = eng_proc_new(NULL);
		t = eng_thread_new(p, &err);
		if (!t || !run_once(cm, p, t))
			return 3;
		eng_proc_free(p);
	}
	proc_us = (now() - t0) / n * 1e6;
	eng_module_free(cm);

	printf("instance_us=%.2f proc_us=%.2f", inst_us, proc_us);
	if (argc > 2) {
		wasi_config cfg;
		eng_trap trap;
		int code, devnull = open("/dev/null", O_WRONLY);
		double us;

		if (wasi_load(argv[2], &cm, &err)) {
			fprintf(stderr, "\nbench_engine: %s: %s\n", argv[2],
				err.msg);
			return 2;
		}
		wasi_config_init(&cfg);
		cfg.stdio[1] = devnull;
		t0 = now();
		for (int i = 0; i < n; i++)
			if (wasi_run(cm, &cfg, &trap, &code, &err) ||
			    trap.kind != ENG_EXIT || code != 0) {
				fprintf(stderr, "\nbench_engine: run failed\n");
				return 3;
			}
		us = (now() - t0) / n * 1e6;
		printf(" wasi_run_us=%.2f", us);
		eng_module_free(cm);
		close(devnull);
	}
	printf("\n");
	return 0;
}
