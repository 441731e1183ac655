/*
 * bench_validate.c - time heisen's decode + validate on one file.
 *
 *   bench_validate FILE.wasm [RUNS]      (RUNS defaults to 5)
 *
 * Reads the file once, then runs wasm_decode + wasm_validate RUNS times
 * and reports the best run: the minimum is the least noisy estimate of
 * what the code costs on a machine shared with other work. Reading the
 * file and freeing the module are outside the timed region; decode
 * includes its private copy of the bytes, as every real caller pays it.
 *
 * Output: a human line, then one `key=value` line for scripts (run.sh).
 * MB here is 10^6 bytes. This is a report: nothing asserts a timing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/wasm.h"

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
	fprintf(stderr, "bench_validate: %s\n", msg);
	return err->status == WASM_NOMEM || err->status == WASM_IO ? 3 : 2;
}

int main(int argc, char **argv)
{
	const char *path;
	long runs = 5;
	uint8_t *data = NULL;
	size_t len = 0;
	wasm_err err;
	double best = -1, best_dec = -1, best_val = -1;
	int rc = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_validate FILE.wasm [RUNS]\n");
		return 2;
	}
	path = argv[1];
	if (argc == 3) {
		char *end;

		errno = 0;
		runs = strtol(argv[2], &end, 10);
		if (errno || *end || runs < 1 || runs > 1000) {
			fprintf(stderr,
				"bench_validate: RUNS must be 1..1000: %s\n",
				argv[2]);
			return 2;
		}
	}
	wasm_err_clear(&err);
	if (wasm_read_file(path, &data, &len, &err) != WASM_OK)
		return report_error(&err, path);

	for (long i = 0; i < runs; i++) {
		wasm_module *m = NULL;
		double t0, t1, t2;

		wasm_err_clear(&err);
		t0 = now();
		if (wasm_decode(data, len, &m, &err) != WASM_OK) {
			rc = report_error(&err, path);
			goto done;
		}
		t1 = now();
		if (wasm_validate(m, &err) != WASM_OK) {
			wasm_module_free(m);
			rc = report_error(&err, path);
			goto done;
		}
		t2 = now();
		wasm_module_free(m);
		/* the best total, and separately the best of each phase */
		if (best < 0 || t2 - t0 < best)
			best = t2 - t0;
		if (best_dec < 0 || t1 - t0 < best_dec)
			best_dec = t1 - t0;
		if (best_val < 0 || t2 - t1 < best_val)
			best_val = t2 - t1;
	}

	printf("bench_validate: %s: %zu bytes, best of %ld: %.4f s "
	       "(decode %.4f s, validate %.4f s), %.1f MB/s\n",
	       path, len, runs, best, best_dec, best_val,
	       (double)len / 1e6 / best);
	printf("bytes=%zu runs=%ld best_s=%.6f decode_s=%.6f validate_s=%.6f "
	       "mb_s=%.3f\n",
	       len, runs, best, best_dec, best_val, (double)len / 1e6 / best);
done:
	wasm_free(data);
	return rc;
}
