/*
 * fuzz_instrument.c - libFuzzer target for the rewriter.
 *
 * Every input goes through wasm_decode and wasm_validate; rejection is
 * fine. A valid module is instrumented twice, on shared memories only and
 * with all_memories, and each time:
 *
 *   bytes --decode/validate--> m --rw_instrument--> out, sites
 *         out --decode/validate--> im --rw_sites_read--> back
 *
 *   - rw_instrument either succeeds or refuses with a reason (INVALID:
 *     "nothing to instrument" / already instrumented; LIMIT; NOMEM);
 *   - the output must decode and validate: the rewriter never writes a
 *     module the validator refuses;
 *   - the site table read back equals the one returned, and its hash is
 *     the FNV-1a of the input;
 *   - the mask and probe indices point at the heisen imports;
 *   - instrumenting the output again is refused (it has a site table).
 *
 * An input's own site table (a mutated instrumented module in the
 * corpus) is read first: it is read or refused, never a crash.
 *
 * A broken property prints what broke and calls __builtin_trap(), so
 * libFuzzer keeps the input as a crash. `make fuzz-regress` replays the
 * committed corpus (tests/fuzz/corpus/module) through this target too.
 */
#include <stdio.h>
#include <string.h>

#include "core/wasm.h"
#include "rewriter/instrument.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const wasm_err *err, const char *detail)
{
	char buf[512];

	if (err) {
		wasm_err_format(err, "<instrumented>", buf, sizeof buf);
		fprintf(stderr, "fuzz_instrument: %s: %s\n", what, buf);
	} else {
		fprintf(stderr, "fuzz_instrument: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
	}
	__builtin_trap();
}

/* Resource failures are not bugs of the input path. */
static bool resource(wasm_status st)
{
	return st == WASM_NOMEM || st == WASM_LIMIT;
}

/* The import at index `idx` of kind `kind`, or NULL. */
static const wasm_import *nth_import(const wasm_module *m, wasm_extern kind,
				     uint32_t idx)
{
	for (uint32_t i = 0; i < m->nimports; i++)
		if (m->imports[i].kind == kind && idx-- == 0)
			return &m->imports[i];
	return NULL;
}

static bool named(const wasm_import *imp, const char *mod, const char *name)
{
	return imp && imp->module.len == strlen(mod) &&
	       !memcmp(imp->module.p, mod, imp->module.len) &&
	       imp->name.len == strlen(name) &&
	       !memcmp(imp->name.p, name, imp->name.len);
}

static void one(const wasm_module *m, const uint8_t *data, size_t size,
		bool all)
{
	const rw_options o = {.all_memories = all, .cover = true};
	uint8_t *out = NULL, *out2 = NULL;
	size_t len = 0, len2 = 0;
	wasm_module *im = NULL;
	rw_sites sites, back, s2;
	wasm_err err;
	char why[300];
	memset(&sites, 0, sizeof sites);
	memset(&back, 0, sizeof back);
	memset(&s2, 0, sizeof s2);

	wasm_err_clear(&err);
	wasm_status st = rw_instrument(m, &o, &out, &len, &sites, &err);
	if (st != WASM_OK) {
		if (!resource(st) && st != WASM_INVALID)
			fail("rw_instrument: unexpected status", &err, NULL);
		if (err.msg[0] == '\0')
			fail("rw_instrument refused without a reason", NULL,
			     wasm_status_name(st));
		goto done;
	}
	wasm_err_clear(&err);
	st = wasm_decode(out, len, &im, &err);
	if (resource(st))
		goto done;
	if (st != WASM_OK)
		fail("instrumented module does not decode", &err, NULL);
	wasm_err_clear(&err);
	st = wasm_validate(im, &err);
	if (resource(st))
		goto done;
	if (st != WASM_OK)
		fail("instrumented module does not validate", &err, NULL);

	wasm_err_clear(&err);
	st = rw_sites_read(im, &back, &err);
	if (resource(st))
		goto done;
	if (st != WASM_OK)
		fail("rw_sites_read on the output", &err, NULL);
	if (back.version != RW_SITES_VERSION || back.nsites != sites.nsites ||
	    back.hash != sites.hash || back.probe_func != sites.probe_func ||
	    back.mask_mem != sites.mask_mem || !rw_sites_same(&back, &sites)) {
		snprintf(why, sizeof why,
			 "read %u sites probe %u mask %u, returned %u sites "
			 "probe %u mask %u",
			 back.nsites, back.probe_func, back.mask_mem,
			 sites.nsites, sites.probe_func, sites.mask_mem);
		fail("site table read back differs", NULL, why);
	}
	if (sites.hash != rw_hash(data, size))
		fail("site table hash is not FNV-1a of the input", NULL, NULL);
	for (uint32_t i = 0; i < sites.nsites; i++) {
		const rw_site *s = &sites.sites[i];
		if (s->func < m->nfunc_imports ||
		    s->func >= m->nfunc_imports + m->nfuncs ||
		    s->mem >= m->nmem_imports + m->nmems ||
		    s->offset >= size || s->kind > RW_RANGE_WRITE) {
			snprintf(why, sizeof why,
				 "site %u: func %u mem %u offset %u kind %u",
				 i, s->func, s->mem, s->offset, s->kind);
			fail("site out of range", NULL, why);
		}
	}
	if (!named(nth_import(im, WASM_EXTERN_FUNC, sites.probe_func),
		   "heisen", "probe"))
		fail("probe_func is not the heisen.probe import", NULL, NULL);
	if (!named(nth_import(im, WASM_EXTERN_MEMORY, sites.mask_mem),
		   "heisen", "mask"))
		fail("mask_mem is not the heisen.mask import", NULL, NULL);

	/* A second pass would probe the probes: it must be refused. */
	wasm_err_clear(&err);
	st = rw_instrument(im, &o, &out2, &len2, &s2, &err);
	if (st == WASM_OK)
		fail("an instrumented module was instrumented again", NULL,
		     NULL);
done:
	rw_sites_free(&sites);
	rw_sites_free(&back);
	rw_sites_free(&s2);
	wasm_module_free(im);
	wasm_free(out);
	wasm_free(out2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wasm_module *m = NULL;
	wasm_err err;

	wasm_err_clear(&err);
	if (wasm_decode(data, size, &m, &err) != WASM_OK)
		goto done;
	wasm_err_clear(&err);
	if (wasm_validate(m, &err) != WASM_OK)
		goto done;
	/* An input with a site table of its own (a mutated instrumented
	 * module): reading it either succeeds or says why not. */
	{
		rw_sites t;
		wasm_status st = rw_sites_read(m, &t, &err);
		if (st == WASM_OK)
			rw_sites_free(&t);
		else if (st != WASM_INVALID && st != WASM_MALFORMED &&
			 !resource(st))
			fail("rw_sites_read on the input", &err, NULL);
	}
	one(m, data, size, false);
	one(m, data, size, true);
done:
	wasm_module_free(m);
	return 0;
}
