/*
 * test_inline.c - inlined frames (rewriter/inline.c) on modules clang
 * builds in the setup (wasm32-wasi, -O2, DWARF 4 and DWARF 5): bump()
 * is inlined into twice(), twice() into work(); an offset of bump's
 * line inside work() must give bump then twice, each with the file and
 * line it was inlined at; main's code gives none. Then the same
 * module's .debug_info and .debug_abbrev cut short at every length and
 * damaged at every byte: an error or a table, never a crash (run it
 * under ASan: make SANITIZE=1). Skipped when clang cannot build for
 * wasm32-wasi.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/wasm.h"
#include "rewriter/inline.h"
#include "rewriter/srcmap.h"

/* Line numbers below are this source's: keep them in step. */
static const char src[] =
    "static int counter;\n"						/* 1 */
    "static inline __attribute__((always_inline)) void bump(int *p)\n"	/* 2 */
    "{\n"								/* 3 */
    "\t*p = *p * 3 + 1;\n"						/* 4 */
    "}\n"								/* 5 */
    "static inline __attribute__((always_inline)) void twice(int *p)\n" /* 6 */
    "{\n"								/* 7 */
    "\tbump(p);\n"							/* 8 */
    "\tbump(p);\n"							/* 9 */
    "}\n"								/* 10 */
    "__attribute__((noinline)) void work(void) { twice(&counter); }\n"	/* 11 */
    "int main(void) { work(); return counter; }\n";			/* 12 */

typedef struct fixture {
	char dir[64];
	uint8_t *wasm[2]; /* DWARF 4, DWARF 5; NULL: clang could not */
	size_t len[2];
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	char path[128], cmd[512];
	FILE *f;

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/heisen-inline-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(path, sizeof path, "%s/t.c", fx->dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(src, f);
	fclose(f);
	for (int v = 0; v < 2; v++) {
		wasm_err e;
		snprintf(cmd, sizeof cmd,
			 "cd '%s' && clang --target=wasm32-wasi -O2 -gdwarf-%d "
			 "-nostdlib -Wl,--no-entry -Wl,--export-all t.c -o "
			 "t%d.wasm 2>/dev/null",
			 fx->dir, v ? 5 : 4, v);
		if (system(cmd))
			continue;
		snprintf(path, sizeof path, "%s/t%d.wasm", fx->dir, v);
		assert_int_equal(
		    wasm_read_file(path, &fx->wasm[v], &fx->len[v], &e),
		    WASM_OK);
	}
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	char cmd[128];

	for (int v = 0; v < 2; v++)
		wasm_free(fx->wasm[v]);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

/* The module of DWARF version v (4 or 5), decoded; skips without one. */
static wasm_module *module(const fixture *fx, int v)
{
	wasm_module *m = NULL;
	wasm_err e;

	if (!fx->wasm[v - 4])
		skip();
	assert_int_equal(wasm_decode(fx->wasm[v - 4], fx->len[v - 4], &m, &e),
			 WASM_OK);
	return m;
}

/* The body of the function named name. */
static const wasm_func *func_named(const wasm_module *m, const char *name)
{
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		const wasm_str *n = wasm_func_name(m, m->nfunc_imports + i);
		if (n && n->len == strlen(name) && !memcmp(n->p, name, n->len))
			return &m->funcs[i];
	}
	fail_msg("no function %s", name);
	return NULL;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = s ? strlen(s) : 0, k = strlen(end);
	return n >= k && !strcmp(s + n - k, end);
}

static void chain_of_version(void **state, int v)
{
	fixture *fx = *state;
	wasm_module *m = module(fx, v);
	rw_srcmap *sm;
	rw_inline *t;
	const wasm_func *work, *main_fn;
	rw_inframe in[RW_INLINE_MAX];
	const char *home;
	uint32_t seen = 0;
	wasm_err e;

	assert_int_equal(rw_srcmap_new(m, &sm, &e), WASM_OK);
	assert_int_equal(rw_inline_new(m, sm, &t, &e), WASM_OK);
	work = func_named(m, "work");
	main_fn = func_named(m, "__original_main");
	for (size_t off = work->code_start; off < work->code_end; off++) {
		rw_srcpos pos;
		uint32_t n;
		if (!rw_srcmap_lookup(sm, off, &pos) || pos.line != 4)
			continue;
		n = rw_inline_lookup(t, off, in, RW_INLINE_MAX, &home);
		assert_int_equal(n, 2);
		assert_string_equal(in[0].name, "bump");
		assert_true(ends_with(in[0].call_file, "/t.c"));
		assert_true(in[0].call_line == 8 || in[0].call_line == 9);
		assert_string_equal(in[1].name, "twice");
		assert_true(ends_with(in[1].call_file, "/t.c"));
		assert_int_equal(in[1].call_line, 11);
		assert_int_equal(in[1].call_column, 45);
		/* The function the code physically lives in. */
		assert_string_equal(home, "work");
		/* A smaller buffer keeps the innermost frames. */
		assert_int_equal(rw_inline_lookup(t, off, in, 1, NULL), 1);
		assert_string_equal(in[0].name, "bump");
		seen++;
	}
	assert_true(seen > 0);
	/* work() itself is not inlined anywhere: main calls it. */
	for (size_t off = main_fn->code_start; off < main_fn->code_end; off++)
		assert_int_equal(
		    rw_inline_lookup(t, off, in, RW_INLINE_MAX, &home), 0);
	assert_int_equal(rw_inline_lookup(NULL, work->code_start, in, 4, NULL),
			 0);
	rw_inline_free(t);
	rw_srcmap_free(sm);
	wasm_module_free(m);
}

static void dwarf4_chain(void **state) { chain_of_version(state, 4); }
static void dwarf5_chain(void **state) { chain_of_version(state, 5); }

/* Without a srcmap the chain has its names and lines, not its files. */
static void no_files_without_srcmap(void **state)
{
	fixture *fx = *state;
	wasm_module *m = module(fx, 4);
	rw_inline *t;
	rw_inframe in[RW_INLINE_MAX];
	const wasm_func *work = func_named(m, "work");
	uint32_t found = 0;
	wasm_err e;

	assert_int_equal(rw_inline_new(m, NULL, &t, &e), WASM_OK);
	for (size_t off = work->code_start; off < work->code_end; off++)
		if (rw_inline_lookup(t, off, in, RW_INLINE_MAX, NULL) == 2) {
			assert_null(in[0].call_file);
			assert_int_equal(in[1].call_line, 11);
			found++;
		}
	assert_true(found > 0);
	rw_inline_free(t);
	wasm_module_free(m);
}

/* Build the table of m and look up every code offset: OK or
 * MALFORMED, nothing else, and no crash. */
static void build_and_probe(const wasm_module *m, const rw_srcmap *sm)
{
	rw_inline *t = NULL;
	rw_inframe in[RW_INLINE_MAX];
	wasm_err e;
	wasm_status st = rw_inline_new(m, sm, &t, &e);

	if (st) {
		assert_int_equal(st, WASM_MALFORMED);
		assert_null(t);
		assert_non_null(strstr(e.msg, ".debug_info"));
		return;
	}
	for (size_t off = m->section_start[10];
	     off < m->section_start[10] + m->section_size[10]; off++) {
		uint32_t n = rw_inline_lookup(t, off, in, RW_INLINE_MAX, NULL);
		assert_true(n <= RW_INLINE_MAX);
	}
	rw_inline_free(t);
}

static wasm_custom *custom_named(wasm_module *m, const char *name)
{
	for (uint32_t i = 0; i < m->ncustoms; i++)
		if (m->customs[i].name.len == strlen(name) &&
		    !memcmp(m->customs[i].name.p, name, strlen(name)))
			return &m->customs[i];
	fail_msg("no %s section", name);
	return NULL;
}

/* Cut short at every length, then each byte set to 0x00, 0x80 and
 * 0xff in turn (lengths, LEB128 continuations, forms, references). */
static void hostile_section(void **state, int v, const char *name)
{
	fixture *fx = *state;
	wasm_module *m = module(fx, v);
	rw_srcmap *sm = NULL;
	wasm_custom *cs = custom_named(m, name);
	uint32_t len = cs->len;
	static const uint8_t junk[] = {0x00, 0x80, 0xff};
	wasm_err e;

	if (rw_srcmap_new(m, &sm, &e))
		sm = NULL;
	for (uint32_t n = 0; n < len; n++) {
		cs->len = n;
		build_and_probe(m, sm);
	}
	cs->len = len;
	for (uint32_t i = 0; i < len; i++) {
		uint8_t *b = m->bytes + cs->start + i, keep = *b;
		for (size_t k = 0; k < sizeof junk; k++) {
			*b = junk[k];
			build_and_probe(m, sm);
		}
		*b = keep;
	}
	rw_srcmap_free(sm);
	wasm_module_free(m);
}

static void hostile_info4(void **state)
{
	hostile_section(state, 4, ".debug_info");
}
static void hostile_abbrev4(void **state)
{
	hostile_section(state, 4, ".debug_abbrev");
}
static void hostile_ranges4(void **state)
{
	hostile_section(state, 4, ".debug_ranges");
}
static void hostile_info5(void **state)
{
	hostile_section(state, 5, ".debug_info");
}
static void hostile_rnglists5(void **state)
{
	hostile_section(state, 5, ".debug_rnglists");
}
static void hostile_addr5(void **state)
{
	hostile_section(state, 5, ".debug_addr");
}

/* A module without DWARF: an empty table, not an error. */
static void no_dwarf_is_empty(void **state)
{
	static const uint8_t bytes[] = {0, 'a', 's', 'm', 1, 0, 0, 0};
	wasm_module *m = NULL;
	rw_inline *t;
	rw_inframe in[1];
	wasm_err e;

	assert_int_equal(wasm_decode(bytes, sizeof bytes, &m, &e), WASM_OK);
	assert_int_equal(rw_inline_new(m, NULL, &t, &e), WASM_OK);
	assert_int_equal(rw_inline_lookup(t, 8, in, 1, NULL), 0);
	rw_inline_free(t);
	rw_inline_free(NULL);
	wasm_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dwarf4_chain),
	    cmocka_unit_test(dwarf5_chain),
	    cmocka_unit_test(no_files_without_srcmap),
	    cmocka_unit_test(hostile_info4),
	    cmocka_unit_test(hostile_abbrev4),
	    cmocka_unit_test(hostile_ranges4),
	    cmocka_unit_test(hostile_info5),
	    cmocka_unit_test(hostile_rnglists5),
	    cmocka_unit_test(hostile_addr5),
	    cmocka_unit_test(no_dwarf_is_empty),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
