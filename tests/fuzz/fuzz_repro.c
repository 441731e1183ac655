/*
 * fuzz_repro.c - libFuzzer target for repro files (rep_read, replay/).
 *
 * Every input is a repro file of any mode. rep_read may refuse it, with
 * WASM_INVALID (or WASM_NOMEM) and a reason; what it accepts must survive
 * a round trip: written back by rep_write and read again, the second
 * write is the first byte for byte (nothing the reader took in is lost
 * or changed by the writer, and the writer never makes a file the reader
 * refuses).
 */
#include "tests/fuzz/fuzz_util.h"

#include "replay/replay.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	uint8_t *p;
	wasm_err e;

	if (wasm_read_file(path, &p, len, &e))
		fuzz_fail("cannot read back %s: %s", path, e.msg);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *a = fuzz_out_path("a.repro"), *b = fuzz_out_path("b.repro");
	rep_spec s1, s2;
	uint8_t *t1, *t2;
	size_t n1, n2;
	wasm_status st;
	wasm_err e;

	wasm_err_clear(&e);
	st = rep_read(fuzz_file(data, size), &s1, &e);
	if (st) {
		if (st != WASM_INVALID && st != WASM_NOMEM)
			fuzz_fail("rep_read: unexpected %s: %s",
				  wasm_status_name(st), e.msg);
		fuzz_check_err(&e, st);
		rep_spec_clear(&s1);
		return 0;
	}
	if ((st = rep_write(a, &s1, &e)))
		fuzz_fail("rep_write of an accepted file: %s", e.msg);
	if ((st = rep_read(a, &s2, &e)))
		fuzz_fail("rep_read of rep_write's file: %s", e.msg);
	if ((st = rep_write(b, &s2, &e)))
		fuzz_fail("second rep_write: %s", e.msg);
	t1 = slurp(a, &n1);
	t2 = slurp(b, &n2);
	if (n1 != n2 || memcmp(t1, t2, n1))
		fuzz_fail("a repro file changes in a round trip");
	wasm_free(t1);
	wasm_free(t2);
	rep_spec_clear(&s1);
	rep_spec_clear(&s2);
	return 0;
}
