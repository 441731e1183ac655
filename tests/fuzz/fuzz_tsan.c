/*
 * fuzz_tsan.c - libFuzzer target for race reports as text
 * (rep_tsan_parse, replay/tsan.h): ThreadSanitizer's and heisen's own.
 *
 * A refusal is WASM_INVALID with a reason. An accepted report must keep
 * what synthesis relies on: two accesses, each with at least one and at
 * most REP_TSAN_FRAMES frames, every string NUL-terminated within its
 * field, a block index within the count, and the same answer when the
 * file reader reads the input from a file. The first byte picks the
 * block asked for (1 to 4), so that later blocks are read too.
 */
#include "tests/fuzz/fuzz_util.h"

#include "replay/tsan.h"

static void check_str(const char *s, size_t cap, const char *what)
{
	if (!memchr(s, 0, cap))
		fuzz_fail("%s is not NUL-terminated", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static rep_tsan_race r, r2;
	uint32_t index = size ? (uint32_t)(data[0] & 3) + 1 : 1;
	wasm_status st, st2;
	wasm_err e, e2;

	wasm_err_clear(&e);
	st = rep_tsan_parse((const char *)data, size, "fuzz", index, &r, &e);
	wasm_err_clear(&e2);
	st2 = rep_tsan_read(fuzz_file(data, size), index, &r2, &e2);
	if (st != st2)
		fuzz_fail("the text and the file reader disagree: %s, %s",
			  wasm_status_name(st), wasm_status_name(st2));
	if (st) {
		if (st != WASM_INVALID)
			fuzz_fail("unexpected %s: %s", wasm_status_name(st),
				  e.msg);
		fuzz_check_err(&e, st);
		return 0;
	}
	if (r.index != index || r.nblocks < index)
		fuzz_fail("block %u of %u accepted for --index %u", r.index,
			  r.nblocks, index);
	check_str(r.location, sizeof r.location, "location");
	check_str(r.summary, sizeof r.summary, "summary");
	for (int k = 0; k < 2; k++) {
		const rep_tsan_access *a = &r.acc[k];
		if (!a->nframes || a->nframes > REP_TSAN_FRAMES)
			fuzz_fail("access %d has %u frames", k, a->nframes);
		if (!a->report_line)
			fuzz_fail("access %d has no line", k);
		check_str(a->thread, sizeof a->thread, "thread");
		for (uint32_t i = 0; i < a->nframes; i++) {
			check_str(a->frame[i].func, sizeof a->frame[i].func,
				  "function");
			check_str(a->frame[i].file, sizeof a->frame[i].file,
				  "file");
		}
		if (a->nframes != r2.acc[k].nframes ||
		    a->addr != r2.acc[k].addr || a->size != r2.acc[k].size ||
		    strcmp(a->frame[0].file, r2.acc[k].frame[0].file) ||
		    a->frame[0].line != r2.acc[k].frame[0].line)
			fuzz_fail("access %d differs read from a file", k);
	}
	return 0;
}
