/*
 * fuzz_mask.c - libFuzzer target for mask files (det_mask_read,
 * detector/race.h: `heisen run --mask`, `heisen instrument --static`).
 *
 * The input's first two bytes give the module's site count (1..65536),
 * the rest is the file. A refusal is WASM_INVALID (or WASM_NOMEM) with a
 * reason. An accepted file must arm only sites below the count, and
 * survive a round trip: rep_write_mask of the mask read reads back to
 * the same mask.
 */
#include "tests/fuzz/fuzz_util.h"

#include "detector/race.h"
#include "replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *out = fuzz_out_path("a.mask");
	uint8_t *m1, *m2;
	uint32_t nsites;
	wasm_status st;
	wasm_err e;

	if (size < 2)
		return 0;
	nsites = 1u + (data[0] | (uint32_t)data[1] << 8);
	/* One byte past the end, to see that nothing is written there. */
	m1 = calloc(nsites + 1, 1);
	m2 = calloc(nsites, 1);
	if (!m1 || !m2)
		fuzz_fail("out of memory");
	m1[nsites] = 0xa5;
	wasm_err_clear(&e);
	st = det_mask_read(fuzz_file(data + 2, size - 2), m1, nsites, &e);
	if (m1[nsites] != 0xa5)
		fuzz_fail("det_mask_read wrote past the mask");
	if (st) {
		if (st != WASM_INVALID && st != WASM_NOMEM)
			fuzz_fail("det_mask_read: unexpected %s: %s",
				  wasm_status_name(st), e.msg);
		fuzz_check_err(&e, st);
		goto done;
	}
	for (uint32_t i = 0; i < nsites; i++)
		if (m1[i] > 1)
			fuzz_fail("site %u: mask byte %u", i, m1[i]);
	if ((st = rep_write_mask(out, m1, nsites, "fuzz", &e)))
		fuzz_fail("rep_write_mask: %s", e.msg);
	if ((st = det_mask_read(out, m2, nsites, &e)))
		fuzz_fail("det_mask_read of rep_write_mask's file: %s", e.msg);
	if (memcmp(m1, m2, nsites))
		fuzz_fail("a mask changes in a round trip");
done:
	free(m1);
	free(m2);
	return 0;
}
