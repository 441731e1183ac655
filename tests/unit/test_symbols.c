/*
 * test_symbols.c - what an address holds (rewriter/symbols.c), on a
 * module built byte by byte: DWARF variables (a typedef'd int, an array,
 * a struct the optimiser split into pieces), data segments (active, and
 * passive ones placed by the start function's memory.init, the .bss its
 * memory.fill zeroes), the main stack below __stack_pointer and the heap
 * above; the same module once instrumented (the start function's
 * operands go through a probe's locals); and hostile .debug_info and
 * .debug_abbrev sections, which give WASM_MALFORMED or a table, never a
 * crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "modbuild.h"
#include "rewriter/instrument.h"
#include "rewriter/symbols.h"

#define SP 0x11000u /* __stack_pointer's initial value */

/* A name-section style name: LEB length and bytes. */
static void put_name(wasm_buf *b, const char *s)
{
	wasm_buf_u32(b, (uint32_t)strlen(s));
	wasm_buf_put(b, s, strlen(s));
}

static void patch_u32(wasm_buf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* DW_OP_addr a: an exprloc of 5 bytes. */
static void put_addr_loc(wasm_buf *b, uint32_t a)
{
	wasm_buf_u32(b, 5);
	wasm_buf_byte(b, 0x03);
	mb_u32(b, a);
}

/* .debug_abbrev and one DWARF 4 unit of .debug_info:
 *   counter  counter_t (typedef of int)   at 0x420
 *   table    int[16]                      at 0x500
 *   ledger   struct of 8 bytes, in pieces at 0x540 and 0x544
 *   unsized  a variable of no known type  at 0x5a0 */
static void build_dwarf(wasm_buf *info, wasm_buf *abbrev)
{
	static const uint8_t ab[] = {
	    1,	  0x11, 1, 0,	 0,		   /* compile unit, children */
	    2,	  0x34, 0, 0x03, 0x08, 0x49, 0x13, /* variable: name, type, */
	    0x02, 0x18, 0, 0,			   /* location (exprloc) */
	    3,	  0x24, 0, 0x03, 0x08, 0x0b, 0x0b, 0, 0, /* base: name, size */
	    4,	  0x01, 1, 0x49, 0x13, 0,    0,		 /* array: type */
	    5,	  0x21, 0, 0x37, 0x0b, 0,    0,		 /* subrange: count */
	    6,	  0x13, 0, 0x0b, 0x0b, 0,    0,		 /* struct: byte size */
	    7,	  0x16, 0, 0x03, 0x08, 0x49, 0x13, 0, 0, /* typedef */
	    8,	  0x34, 0, 0x03, 0x08, 0x02, 0x18, 0, 0, /* variable, no type */
	    0};
	uint32_t t_int, t_arr, t_st, t_td;
	size_t ref;

	memset(abbrev, 0, sizeof *abbrev);
	wasm_buf_put(abbrev, ab, sizeof ab);
	memset(info, 0, sizeof *info);
	mb_u32(info, 0); /* unit length, patched */
	mb_u16(info, 4);
	mb_u32(info, 0); /* abbrev offset */
	wasm_buf_byte(info, 4);
	wasm_buf_byte(info, 1); /* compile unit */
	t_int = (uint32_t)info->len;
	wasm_buf_byte(info, 3);
	mb_cstr(info, "int");
	wasm_buf_byte(info, 4);
	t_arr = (uint32_t)info->len;
	wasm_buf_byte(info, 4);
	mb_u32(info, t_int);
	wasm_buf_byte(info, 5);
	wasm_buf_byte(info, 16);
	wasm_buf_byte(info, 0); /* end of the array's children */
	t_st = (uint32_t)info->len;
	wasm_buf_byte(info, 6);
	wasm_buf_byte(info, 8);
	t_td = (uint32_t)info->len;
	wasm_buf_byte(info, 7);
	mb_cstr(info, "counter_t");
	mb_u32(info, t_int);
	wasm_buf_byte(info, 2);
	mb_cstr(info, "counter");
	mb_u32(info, t_td);
	put_addr_loc(info, 0x420);
	wasm_buf_byte(info, 2);
	mb_cstr(info, "table");
	mb_u32(info, t_arr);
	put_addr_loc(info, 0x500);
	wasm_buf_byte(info, 2);
	mb_cstr(info, "ledger");
	mb_u32(info, t_st);
	/* DW_OP_addr 0x540 DW_OP_piece 4 DW_OP_addr 0x544 DW_OP_piece 4 */
	wasm_buf_u32(info, 14);
	wasm_buf_byte(info, 0x03);
	mb_u32(info, 0x540);
	wasm_buf_byte(info, 0x93);
	wasm_buf_byte(info, 4);
	wasm_buf_byte(info, 0x03);
	mb_u32(info, 0x544);
	wasm_buf_byte(info, 0x93);
	wasm_buf_byte(info, 4);
	wasm_buf_byte(info, 8);
	mb_cstr(info, "unsized");
	put_addr_loc(info, 0x5a0);
	wasm_buf_byte(info, 0); /* end of the unit's children */
	ref = info->len - 4;
	patch_u32(info, 0, (uint32_t)ref);
}

static void custom(wasm_buf *b, const char *name, const wasm_buf *body)
{
	size_t n = strlen(name);

	wasm_buf_byte(b, 0);
	wasm_buf_u32(b, (uint32_t)(1 + n + body->len));
	wasm_buf_byte(b, (uint8_t)n);
	wasm_buf_put(b, name, n);
	wasm_buf_put(b, body->data, body->len);
}

/* The module: a shared memory; __stack_pointer = SP; a start function
 * that copies passive segment 0 (.rodata, 0x20 bytes) to 0x400 and
 * zeroes 0x500..0x600 (.bss); active segment 1 (.data, 16 bytes) at
 * 0x420; a name section naming the function, the global and both
 * segments; the DWARF
 * of build_dwarf. */
static void build_module(wasm_buf *b, const wasm_buf *info,
			 const wasm_buf *abbrev)
{
	static const uint8_t type[] = {1, 0x60, 0, 0};
	static const uint8_t func[] = {1, 0};
	static const uint8_t mem[] = {1, 0x03, 32, 32};
	static const uint8_t global[] = {
	    1, 0x7f, 1, 0x41, 0x80, 0xa0, 0x04, 0x0b}; /* mut i32 = 0x11000 */
	static const uint8_t start[] = {0};
	static const uint8_t datacount[] = {2};
	static const uint8_t code[] = {1,    24,   0, /* locals */
				       0x41, 0x80, 0x08, 0x41, 0x00, 0x41,
				       0x20, 0xfc, 0x08, 0,    0, /* init */
				       0x41, 0x80, 0x0a, 0x41, 0x00, 0x41,
				       0x80, 0x02, 0xfc, 0x0b, 0,    0x0b};
	wasm_buf data = {0}, names = {0}, sub = {0};

	/* passive .rodata (0x20 bytes), active .data at 0x420 (16) */
	wasm_buf_byte(&data, 2);
	wasm_buf_byte(&data, 1);
	wasm_buf_byte(&data, 0x20);
	for (int i = 0; i < 0x20; i++)
		wasm_buf_byte(&data, (uint8_t)i);
	wasm_buf_byte(&data, 0);
	wasm_buf_put(&data, (const uint8_t[]){0x41, 0xa0, 0x08, 0x0b}, 4);
	wasm_buf_byte(&data, 16);
	for (int i = 0; i < 16; i++)
		wasm_buf_byte(&data, (uint8_t)i);

	/* Function names too, as wasm-ld writes them: the rewriter keeps a
	 * name section only when the decoder read some. */
	wasm_buf_byte(&sub, 1);
	wasm_buf_byte(&sub, 0);
	put_name(&sub, "__wasm_init_memory");
	wasm_buf_byte(&names, 1);
	wasm_buf_u32(&names, (uint32_t)sub.len);
	wasm_buf_put(&names, sub.data, sub.len);
	sub.len = 0;
	wasm_buf_byte(&sub, 1);
	wasm_buf_byte(&sub, 0);
	put_name(&sub, "__stack_pointer");
	wasm_buf_byte(&names, 7);
	wasm_buf_u32(&names, (uint32_t)sub.len);
	wasm_buf_put(&names, sub.data, sub.len);
	sub.len = 0;
	wasm_buf_byte(&sub, 2);
	wasm_buf_byte(&sub, 0);
	put_name(&sub, ".rodata");
	wasm_buf_byte(&sub, 1);
	put_name(&sub, ".data");
	wasm_buf_byte(&names, 9);
	wasm_buf_u32(&names, (uint32_t)sub.len);
	wasm_buf_put(&names, sub.data, sub.len);

	mb_begin(b);
	mb_section(b, 1, type, sizeof type);
	mb_section(b, 3, func, sizeof func);
	mb_section(b, 5, mem, sizeof mem);
	mb_section(b, 6, global, sizeof global);
	mb_section(b, 8, start, sizeof start);
	mb_section(b, 12, datacount, sizeof datacount);
	mb_section(b, 10, code, sizeof code);
	mb_section(b, 11, data.data, data.len);
	if (info)
		custom(b, ".debug_info", info);
	if (abbrev)
		custom(b, ".debug_abbrev", abbrev);
	custom(b, "name", &names);
	wasm_buf_fini(&data);
	wasm_buf_fini(&names);
	wasm_buf_fini(&sub);
}

static wasm_module *decode(const wasm_buf *b)
{
	wasm_module *m = NULL;
	wasm_err e;

	assert_int_equal(wasm_decode(b->data, b->len, &m, &e), WASM_OK);
	assert_int_equal(wasm_validate(m, &e), WASM_OK);
	return m;
}

static void expect(const rw_symbols *s, uint32_t addr, rw_region region,
		   const char *name, uint32_t offset, uint32_t size)
{
	rw_symbol y;
	bool found = rw_symbols_lookup(s, addr, &y);

	assert_int_equal(found, region != RW_REGION_UNKNOWN);
	assert_int_equal(y.region, region);
	if (name)
		assert_string_equal(y.name, name);
	else
		assert_null(y.name);
	assert_int_equal(y.offset, offset);
	assert_int_equal(y.size, size);
}

/* Every kind of answer, for the module as built and once instrumented. */
static void expect_all(const rw_symbols *s)
{
	assert_int_equal(rw_symbols_count(s), 5); /* ledger's 2 pieces */
	expect(s, 0x420, RW_REGION_GLOBAL, "counter", 0, 4);
	expect(s, 0x423, RW_REGION_GLOBAL, "counter", 3, 4);
	expect(s, 0x508, RW_REGION_GLOBAL, "table", 8, 64);
	expect(s, 0x53f, RW_REGION_GLOBAL, "table", 63, 64);
	expect(s, 0x540, RW_REGION_GLOBAL, "ledger", 0, 8);
	expect(s, 0x546, RW_REGION_GLOBAL, "ledger", 6, 8);
	/* No type, no size: one byte. */
	expect(s, 0x5a0, RW_REGION_GLOBAL, "unsized", 0, 0);
	expect(s, 0x5a1, RW_REGION_SEGMENT, ".bss", 0xa1, 0x100);
	expect(s, 0x404, RW_REGION_SEGMENT, ".rodata", 4, 0x20);
	expect(s, 0x428, RW_REGION_SEGMENT, ".data", 8, 16);
	expect(s, 0x5f0, RW_REGION_SEGMENT, ".bss", 0xf0, 0x100);
	expect(s, 0x600, RW_REGION_STACK, NULL, 0, SP - 0x600);
	expect(s, SP - 1, RW_REGION_STACK, NULL, SP - 1 - 0x600, SP - 0x600);
	expect(s, SP, RW_REGION_HEAP, NULL, 0, 0);
	expect(s, 0x100, RW_REGION_UNKNOWN, NULL, 0, 0);
}

static void variables_segments_stack_heap(void **state)
{
	wasm_buf info, abbrev, b;
	wasm_module *m;
	rw_symbols *s;
	wasm_err e;

	build_dwarf(&info, &abbrev);
	build_module(&b, &info, &abbrev);
	m = decode(&b);
	assert_int_equal(rw_symbols_new(m, &s, &e), WASM_OK);
	expect_all(s);
	rw_symbols_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

/* The rewriter stashes memory.init's operands in locals around a probe:
 * the start function's segments must still be found. */
static void instrumented_start_function(void **state)
{
	wasm_buf info, abbrev, b;
	wasm_module *m, *im;
	rw_options opt = {0};
	rw_sites sites;
	uint8_t *out;
	size_t len;
	rw_symbols *s;
	wasm_err e;

	build_dwarf(&info, &abbrev);
	build_module(&b, &info, &abbrev);
	m = decode(&b);
	assert_int_equal(rw_instrument(m, &opt, &out, &len, &sites, &e),
			 WASM_OK);
	assert_true(sites.nsites >= 2);
	assert_int_equal(wasm_decode(out, len, &im, &e), WASM_OK);
	assert_int_equal(rw_symbols_new(im, &s, &e), WASM_OK);
	expect_all(s);
	rw_symbols_free(s);
	wasm_module_free(im);
	wasm_free(out);
	rw_sites_free(&sites);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

static void no_dwarf_keeps_segments_and_stack(void **state)
{
	wasm_buf b;
	wasm_module *m;
	rw_symbols *s;
	wasm_err e;

	build_module(&b, NULL, NULL);
	m = decode(&b);
	assert_int_equal(rw_symbols_new(m, &s, &e), WASM_OK);
	assert_int_equal(rw_symbols_count(s), 0);
	expect(s, 0x420, RW_REGION_SEGMENT, ".data", 0, 16);
	expect(s, 0x508, RW_REGION_SEGMENT, ".bss", 8, 0x100);
	expect(s, 0x1000, RW_REGION_STACK, NULL, 0xa00, SP - 0x600);
	rw_symbols_free(s);
	/* A NULL table knows nothing. */
	expect(NULL, 0x420, RW_REGION_UNKNOWN, NULL, 0, 0);
	wasm_module_free(m);
	wasm_buf_fini(&b);
}

static wasm_status symbols_of(const wasm_buf *info, const wasm_buf *abbrev,
			      wasm_err *e)
{
	wasm_buf b;
	wasm_module *m;
	rw_symbols *s = NULL;
	wasm_status st;

	build_module(&b, info, abbrev);
	m = decode(&b);
	st = rw_symbols_new(m, &s, e);
	if (st)
		assert_null(s);
	else
		/* Whatever it found must answer lookups everywhere. */
		for (uint32_t a = 0x3f0; a < 0x620; a++) {
			rw_symbol y;
			rw_symbols_lookup(s, a, &y);
		}
	rw_symbols_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	return st;
}

static void truncated_and_hostile_units_are_malformed(void **state)
{
	wasm_buf info, abbrev, cut;
	wasm_err e;

	build_dwarf(&info, &abbrev);
	/* A unit longer than the section. */
	patch_u32(&info, 0, (uint32_t)info.len);
	assert_int_equal(symbols_of(&info, &abbrev, &e), WASM_MALFORMED);
	assert_non_null(strstr(e.msg, ".debug_info"));
	assert_string_equal(e.section, ".debug_info");
	/* A reserved length. */
	patch_u32(&info, 0, 0xfffffff4);
	assert_int_equal(symbols_of(&info, &abbrev, &e), WASM_MALFORMED);
	wasm_buf_fini(&info);
	/* A DIE whose abbreviation does not exist. */
	wasm_buf_fini(&abbrev);
	build_dwarf(&info, &abbrev);
	info.data[11] = 0x7f;
	assert_int_equal(symbols_of(&info, &abbrev, &e), WASM_MALFORMED);
	wasm_buf_fini(&info);
	/* An abbreviation table cut short. */
	wasm_buf_fini(&abbrev);
	build_dwarf(&info, &abbrev);
	cut = (wasm_buf){0};
	wasm_buf_put(&cut, abbrev.data, 12);
	assert_int_equal(symbols_of(&info, &cut, &e), WASM_MALFORMED);
	wasm_buf_fini(&cut);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

/* Every byte of both sections set to a few values in turn: each build
 * returns OK or WASM_MALFORMED (ASan and UBSan catch the rest). */
static void every_byte_mutated(void **state)
{
	static const uint8_t vals[] = {0x00, 0x7f, 0x80, 0xff, 0x13};
	wasm_buf info, abbrev;
	wasm_err e;

	build_dwarf(&info, &abbrev);
	for (int which = 0; which < 2; which++) {
		wasm_buf *w = which ? &abbrev : &info;
		for (size_t i = 0; i < w->len; i++) {
			uint8_t keep = w->data[i];
			for (size_t v = 0; v < sizeof vals; v++) {
				wasm_status st;
				w->data[i] = vals[v];
				st = symbols_of(&info, &abbrev, &e);
				assert_true(st == WASM_OK ||
					    st == WASM_MALFORMED);
			}
			w->data[i] = keep;
		}
	}
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

/* A type chain that points at itself has no size; it must not loop. */
static void cyclic_types_have_no_size(void **state)
{
	wasm_buf info, abbrev, b;
	wasm_module *m;
	rw_symbols *s;
	wasm_err e;
	/* counter_t's DIE: after the header (11), the unit's DIE (1), int
	 * (6), the array (5), its subrange (2) and end (1), the struct (2). */
	size_t td = 11 + 1 + 6 + 5 + 2 + 1 + 2;

	build_dwarf(&info, &abbrev);
	assert_int_equal(info.data[td], 7);
	patch_u32(&info, td + 1 + 10, (uint32_t)td);
	build_module(&b, &info, &abbrev);
	m = decode(&b);
	assert_int_equal(rw_symbols_new(m, &s, &e), WASM_OK);
	expect(s, 0x420, RW_REGION_GLOBAL, "counter", 0, 0);
	rw_symbols_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

/* Fail the Nth allocation for every N until the build succeeds: each
 * failure is WASM_NOMEM with nothing leaked (ASan's leak check). */
static void allocation_failure_at_every_step(void **state)
{
	wasm_buf info, abbrev, b;
	wasm_module *m;
	wasm_err e;

	build_dwarf(&info, &abbrev);
	build_module(&b, &info, &abbrev);
	m = decode(&b);
	for (long n = 0;; n++) {
		rw_symbols *s;
		wasm_status st;
		wasm_alloc_fail_after(n);
		st = rw_symbols_new(m, &s, &e);
		wasm_alloc_fail_after(-1);
		if (st == WASM_OK) {
			expect_all(s);
			rw_symbols_free(s);
			break;
		}
		assert_int_equal(st, WASM_NOMEM);
		assert_null(s);
		assert_true(n < 1000);
	}
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(variables_segments_stack_heap),
	    cmocka_unit_test(instrumented_start_function),
	    cmocka_unit_test(no_dwarf_keeps_segments_and_stack),
	    cmocka_unit_test(truncated_and_hostile_units_are_malformed),
	    cmocka_unit_test(every_byte_mutated),
	    cmocka_unit_test(cyclic_types_have_no_size),
	    cmocka_unit_test(allocation_failure_at_every_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
