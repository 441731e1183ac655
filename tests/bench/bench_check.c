/*
 * bench_check.c - what happens-before detection (heisen check) costs on one
 * program, against the uninstrumented engine in the same process:
 *
 *   bench_check PLAIN.wasm CHECKED.wasm [ARGS...]
 *
 * PLAIN runs under the engine alone (wasi_run); CHECKED (PLAIN
 * instrumented, or PLAIN itself when it is a demo that det_prog_load
 * instruments) runs with the sites `heisen check` probes (det_hb_sites)
 * and the happens-before probe,
 * under the default profile and under throttled (what `heisen check` uses
 * unless told otherwise). Each best of 3 by its own run time. Prints one
 * line: plain_s hb_s hb_throttled_s shadow_bytes touched_bytes races.
 * Exit 3 when a run fails.
 */
#include "core/wasi.h"
#include "detector/campaign.h"
#include "detector/hb.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *const *args;
	const char *checked = argc > 2 ? argv[2] : NULL;
	uint32_t nargs;
	int devnull = open("/dev/null", O_WRONLY);
	double plain = 1e9, hb[2] = {1e9, 1e9};
	uint64_t shadow = 0, touched = 0, races = 0;
	eng_module *cm;
	det_prog *p;
	uint8_t *mask;
	uint32_t *ids;
	wasm_err e;

	if (argc < 3 || devnull < 0) {
		fprintf(stderr, "usage: bench_check PLAIN.wasm CHECKED.wasm "
				"[ARGS...]\n");
		return 2;
	}
	/* The program's argv: its own name, then ARGS. */
	argv[2] = argv[1];
	args = (const char *const *)argv + 2;
	nargs = (uint32_t)argc - 2;
	if (wasi_load(argv[1], &cm, &e)) {
		fprintf(stderr, "bench_check: %s: %s\n", argv[1], e.msg);
		return 3;
	}
	for (int i = 0; i < 3; i++) {
		wasi_config cfg;
		eng_trap trap;
		int code;
		double t0 = now(), t;
		wasi_config_init(&cfg);
		cfg.argv = args;
		cfg.argc = nargs;
		cfg.stdio[1] = devnull;
		if (wasi_run(cm, &cfg, &trap, &code, &e) || code) {
			fprintf(stderr, "bench_check: %s did not run: %s\n",
				argv[1], trap.msg);
			return 3;
		}
		t = now() - t0;
		plain = t < plain ? t : plain;
	}
	eng_module_free(cm);
	if (det_prog_load(checked, &p, &e)) {
		fprintf(stderr, "bench_check: %s: %s\n", checked, e.msg);
		return 3;
	}
	if (!(mask = malloc(p->sites.nsites + 1)))
		return 3;
	/* What `heisen check` probes: every site but the covered reads. */
	if (!(ids = malloc((p->sites.nsites + 1) * sizeof *ids)))
		return 3;
	memset(mask, 0, p->sites.nsites + 1);
	for (uint32_t i = 0, n = det_hb_sites(&p->sites, ids); i < n; i++)
		mask[ids[i]] = 1;
	free(ids);
	for (int prof = 0; prof < 2; prof++)
		for (int i = 0; i < 3; i++) {
			det_run_opts o = {0};
			det_run_result r;
			o.algo = DET_HB;
			o.hb_bytes = true;
			o.mask = mask;
			o.profile =
			    det_profile_find(prof ? "throttled" : "default");
			o.argv = args;
			o.argc = nargs;
			o.stdio[0] = 0;
			o.stdio[1] = devnull;
			o.stdio[2] = 2;
			if (det_run(p->cm, &p->sites, &o, &r, &e) ||
			    r.status != DET_OK) {
				fprintf(stderr, "bench_check: %s: %s\n",
					checked, r.msg);
				return 3;
			}
			if (r.duration_ns / 1e9 < hb[prof])
				hb[prof] = r.duration_ns / 1e9;
			shadow =
			    r.shadow_bytes > shadow ? r.shadow_bytes : shadow;
			touched = r.touched_bytes > touched ? r.touched_bytes
							    : touched;
			races = r.nbugs > races ? r.nbugs : races;
			det_run_result_free(&r);
		}
	printf("%.6f %.6f %.6f %llu %llu %llu\n", plain, hb[0], hb[1],
	       (unsigned long long)shadow, (unsigned long long)touched,
	       (unsigned long long)races);
	free(mask);
	det_prog_free(p);
	close(devnull);
	return 0;
}
