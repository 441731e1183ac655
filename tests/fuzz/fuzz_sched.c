/*
 * fuzz_sched.c - libFuzzer target for schedule files
 * (rep_sched_parse_file, replay/sched.h) and the strategy names in them
 * (rep_sched_parse).
 *
 * A refusal is WASM_INVALID (or WASM_NOMEM) with a reason. An accepted
 * file must keep what the scheduler relies on (decisions with events
 * ascending) and survive a round trip: rep_sched_write of it parses to
 * the same content, and its strategy's name parses to the same spec.
 * The input as a NUL-terminated word also goes through rep_sched_parse.
 */
#include "tests/fuzz/fuzz_util.h"

#include "replay/sched.h"

static void refused(wasm_status st, const wasm_err *e, const char *what)
{
	if (st != WASM_INVALID && st != WASM_NOMEM)
		fuzz_fail("%s: unexpected %s: %s", what, wasm_status_name(st),
			  e->msg);
	fuzz_check_err(e, st);
}

static bool same_spec(const rep_sched_spec *a, const rep_sched_spec *b)
{
	if (a->strategy != b->strategy || a->seed != b->seed)
		return false;
	switch (a->strategy) {
	case REP_SCHED_RANDOM: return a->p == b->p;
	case REP_SCHED_PCT: return a->depth == b->depth && a->k == b->k;
	case REP_SCHED_FIXED:
	case REP_SCHED_CHAOS: return true;
	}
	return false;
}

static void word(const uint8_t *data, size_t size)
{
	char buf[128], name[64];
	rep_sched_spec s = {0}, s2 = {0};
	wasm_status st;
	wasm_err e;

	if (size >= sizeof buf)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	wasm_err_clear(&e);
	if ((st = rep_sched_parse(buf, &s, &e))) {
		refused(st, &e, "rep_sched_parse");
		return;
	}
	rep_sched_name(&s, name, sizeof name);
	if ((st = rep_sched_parse(name, &s2, &e)))
		fuzz_fail("rep_sched_name's '%s' is refused: %s", name, e.msg);
	if (!same_spec(&s, &s2))
		fuzz_fail("'%s' and its name '%s' differ", buf, name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *out = fuzz_out_path("a.sched");
	rep_sched_file f, g;
	wasm_status st;
	wasm_err e;

	word(data, size);
	wasm_err_clear(&e);
	st = rep_sched_parse_file((const char *)data, size, "fuzz", &f, &e);
	if (st) {
		refused(st, &e, "rep_sched_parse_file");
		rep_sched_file_clear(&f);
		return 0;
	}
	for (size_t i = 1; i < f.n; i++)
		if (f.d[i].event <= f.d[i - 1].event)
			fuzz_fail("decision %zu: events not ascending", i);
	if ((st = rep_sched_write(out, &f, &e)))
		fuzz_fail("rep_sched_write: %s", e.msg);
	if ((st = rep_sched_read(out, &g, &e)))
		fuzz_fail("rep_sched_read of rep_sched_write's file: %s",
			  e.msg);
	if (!same_spec(&f.spec, &g.spec))
		fuzz_fail("the strategy changes in a round trip");
	if (f.points != g.points || f.digest != g.digest ||
	    f.switches != g.switches)
		fuzz_fail("points, digest or switches change in a round trip");
	if (f.n != g.n)
		fuzz_fail("%zu decisions become %zu in a round trip", f.n, g.n);
	for (size_t i = 0; i < f.n; i++)
		if (f.d[i].event != g.d[i].event ||
		    f.d[i].thread != g.d[i].thread)
			fuzz_fail("decision %zu changes in a round trip", i);
	rep_sched_file_clear(&f);
	rep_sched_file_clear(&g);
	return 0;
}
