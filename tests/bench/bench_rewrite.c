/*
 * bench_rewrite.c - time the rewriter (rw_instrument) on one file.
 *
 *   bench_rewrite FILE.wasm [RUNS]      (RUNS defaults to 3)
 *
 * Reads, decodes and validates the file once (bench_validate times
 * those), then runs rw_instrument RUNS times on the decoded module and
 * reports the best run, as bench_validate does: the minimum is the least
 * noisy estimate on a machine shared with other work. Freeing the output
 * is outside the timed region. Throughput is of the INPUT bytes, the size
 * a user hands to `heisen instrument`. Shared memories only when the
 * module has one (the common case, and genmod's); otherwise all memories.
 *
 * Then the same RUNS times with rw_options.cover (the covered reads
 * marked, what `heisen instrument` does), reported as cover_s.
 *
 * Output: a human line, then one `key=value` line for scripts (run.sh).
 * MB is 10^6 bytes. This is a report: nothing asserts a timing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/wasm.h"
#include "rewriter/instrument.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int report_error(const wasm_err *err, const char *path)
{
	char msg[512];

	wasm_err_format(err, path, msg, sizeof msg);
	fprintf(stderr, "bench_rewrite: %s\n", msg);
	return err->status == WASM_NOMEM || err->status == WASM_IO ? 3 : 2;
}

int main(int argc, char **argv)
{
	long runs = 3;
	uint8_t *data = NULL;
	size_t len = 0, outlen = 0;
	wasm_module *m = NULL;
	wasm_err err;
	double best = -1;
	uint32_t nsites = 0;
	int rc = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_rewrite FILE.wasm [RUNS]\n");
		return 2;
	}
	const char *path = argv[1];
	if (argc == 3) {
		char *end;

		errno = 0;
		runs = strtol(argv[2], &end, 10);
		if (errno || *end || runs < 1 || runs > 1000) {
			fprintf(stderr,
				"bench_rewrite: RUNS must be 1..1000: %s\n",
				argv[2]);
			return 2;
		}
	}
	wasm_err_clear(&err);
	if (wasm_read_file(path, &data, &len, &err) != WASM_OK ||
	    wasm_decode(data, len, &m, &err) != WASM_OK ||
	    wasm_validate(m, &err) != WASM_OK) {
		rc = report_error(&err, path);
		goto done;
	}
	bool any_shared = false;
	for (uint32_t i = 0; i < m->nimports; i++)
		if (m->imports[i].kind == WASM_EXTERN_MEMORY &&
		    m->imports[i].u.memory.shared)
			any_shared = true;
	for (uint32_t i = 0; i < m->nmems; i++)
		any_shared |= m->mems[i].shared;
	const rw_options o = {.all_memories = !any_shared};
	/* Then with the covered reads marked (rw_options.cover), as
	 * `heisen instrument` and the campaigns instrument. */
	double best_cover = -1;

	for (long i = 0; i < 2 * runs; i++) {
		uint8_t *out = NULL;
		rw_sites sites = {0};
		rw_options oi = o;
		double *b = i < runs ? &best : &best_cover;
		oi.cover = i >= runs;
		wasm_err_clear(&err);
		double t0 = now();
		wasm_status st =
		    rw_instrument(m, &oi, &out, &outlen, &sites, &err);
		double t1 = now();
		nsites = sites.nsites;
		wasm_free(out);
		rw_sites_free(&sites);
		if (st != WASM_OK) {
			rc = report_error(&err, path);
			goto done;
		}
		if (*b < 0 || t1 - t0 < *b)
			*b = t1 - t0;
	}

	printf("bench_rewrite: %s: %zu bytes -> %zu bytes, %u sites%s, best "
	       "of %ld: %.4f s, %.1f MB/s\n",
	       path, len, outlen, nsites, o.all_memories ? " (all memories)" : "",
	       runs, best, (double)len / 1e6 / best);
	printf("bytes=%zu out_bytes=%zu sites=%u runs=%ld best_s=%.6f "
	       "mb_s=%.3f cover_s=%.6f cover_mb_s=%.3f\n",
	       len, outlen, nsites, runs, best, (double)len / 1e6 / best,
	       best_cover, (double)len / 1e6 / best_cover);
done:
	wasm_module_free(m);
	wasm_free(data);
	return rc;
}
