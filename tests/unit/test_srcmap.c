/*
 * test_srcmap.c - the DWARF line table reader (rewriter/srcmap.c): v4 and
 * v5 tables built byte by byte inside small modules, lookups before,
 * between and after rows and across sequences, the comp dir from
 * .debug_info, the wasm-ld leftovers it must drop, and hostile sections
 * (truncated, huge lengths, bad forms, every byte mutated) that must give
 * WASM_MALFORMED and never crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "modbuild.h"
#include "rewriter/srcmap.h"

/* The code section of every test module: two functions of type () -> ()
 * with bodies `nop nop nop end`. Payload offsets (= DWARF addresses):
 *   func 0: size LEB at 1, first instruction at 3, end at 7
 *   func 1: size LEB at 7, first instruction at 9, end at 13 */
#define F0_LO 1
#define F0_HI 7
#define F1_LO 7
#define F1_HI 13

/* Custom sections to append after the code section; NULL-named ends. */
typedef struct sect {
	const char *name;
	const wasm_buf *body;
} sect;

static void build_module(wasm_buf *b, const sect *extra)
{
	static const uint8_t type[] = {1, 0x60, 0, 0};
	static const uint8_t func[] = {2, 0, 0};
	static const uint8_t code[] = {2,    5, 0, 1, 1, 1, 0x0b,
				       5,    0, 1, 1, 1, 0x0b};
	mb_begin(b);
	mb_section(b, 1, type, sizeof type);
	mb_section(b, 3, func, sizeof func);
	mb_section(b, 10, code, sizeof code);
	for (; extra && extra->name; extra++) {
		size_t n = strlen(extra->name);
		wasm_buf_byte(b, 0);
		wasm_buf_u32(b, (uint32_t)(1 + n + extra->body->len));
		wasm_buf_byte(b, (uint8_t)n);
		wasm_buf_put(b, extra->name, n);
		wasm_buf_put(b, extra->body->data, extra->body->len);
	}
}

/* The header fields both versions share after header_length:
 * min_inst 1, (max_ops 1), default_is_stmt 1, line_base -5,
 * line_range 14, opcode_base 13 and the standard lengths. */
static void put_params(wasm_buf *b)
{
	static const uint8_t p[] = {1, 1, 1, (uint8_t)-5, 14, 13,
				    0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
	wasm_buf_put(b, p, sizeof p);
}

static void set_address(wasm_buf *b, uint32_t a)
{
	wasm_buf_byte(b, 0);
	wasm_buf_byte(b, 5);
	wasm_buf_byte(b, 2);
	mb_u32(b, a);
}

static void end_sequence(wasm_buf *b)
{
	static const uint8_t e[] = {0, 1, 1};
	wasm_buf_put(b, e, sizeof e);
}

/* The program both versions run, `first` being the first file index:
 *   seq 1: @1 line 10 file F; @4 line 11 (special opcode);
 *          @6 line 11 column 5; ends at 7
 *   seq 2: @7 line 20 file F+1 column 0; @9 line 0 (compiler code);
 *          ends at 13 (fixed_advance_pc) */
static void put_program(wasm_buf *b, unsigned first)
{
	set_address(b, F0_LO);
	wasm_buf_byte(b, 4); /* set_file */
	wasm_buf_u32(b, first);
	wasm_buf_byte(b, 3); /* advance_line +9 */
	wasm_buf_s32(b, 9);
	wasm_buf_byte(b, 1); /* copy */
	/* special: address +3, line +1: (1 - -5) + 14 * 3 + 13 */
	wasm_buf_byte(b, (uint8_t)(6 + 14 * 3 + 13));
	wasm_buf_byte(b, 5); /* set_column 5 */
	wasm_buf_u32(b, 5);
	wasm_buf_byte(b, 2); /* advance_pc 2 */
	wasm_buf_u32(b, 2);
	wasm_buf_byte(b, 1); /* copy */
	wasm_buf_byte(b, 2); /* advance_pc 1 */
	wasm_buf_u32(b, 1);
	end_sequence(b);

	set_address(b, F1_LO);
	wasm_buf_byte(b, 4);
	wasm_buf_u32(b, first + 1);
	wasm_buf_byte(b, 3);
	wasm_buf_s32(b, 19);
	wasm_buf_byte(b, 1);
	wasm_buf_byte(b, 3); /* advance_line -20: line 0 */
	wasm_buf_s32(b, -20);
	wasm_buf_byte(b, 9); /* fixed_advance_pc 2 */
	mb_u16(b, 2);
	wasm_buf_byte(b, 1);
	wasm_buf_byte(b, 9);
	mb_u16(b, F1_HI - 9);
	end_sequence(b);
}

/* Wrap a header tail and a program into a DWARF32 unit of `version`. */
static void put_unit(wasm_buf *out, unsigned version, const wasm_buf *hdr,
		     const wasm_buf *prog)
{
	size_t pre = version >= 5 ? 2 + 2 + 4 : 2 + 4;
	mb_u32(out, (uint32_t)(pre + hdr->len + prog->len));
	mb_u16(out, (uint16_t)version);
	if (version >= 5) {
		wasm_buf_byte(out, 4); /* address_size */
		wasm_buf_byte(out, 0); /* segment selector size */
	}
	mb_u32(out, (uint32_t)hdr->len);
	wasm_buf_put(out, hdr->data, hdr->len);
	wasm_buf_put(out, prog->data, prog->len);
}

/* v4: include_directories {"src", "/abs/inc"}; files a.c (dir 1), b.h
 * (dir 2). */
static void build_v4(wasm_buf *line)
{
	wasm_buf hdr = {0}, prog = {0};
	put_params(&hdr);
	mb_cstr(&hdr, "src");
	mb_cstr(&hdr, "/abs/inc");
	wasm_buf_byte(&hdr, 0);
	mb_cstr(&hdr, "a.c");
	wasm_buf_put(&hdr, "\1\0\0", 3);
	mb_cstr(&hdr, "b.h");
	wasm_buf_put(&hdr, "\2\0\0", 3);
	wasm_buf_byte(&hdr, 0);
	put_program(&prog, 1);
	memset(line, 0, sizeof *line);
	put_unit(line, 4, &hdr, &prog);
	wasm_buf_fini(&hdr);
	wasm_buf_fini(&prog);
}

/* v5 with .debug_line_str "/comp\0inc\0": directories {line_strp 0,
 * line_strp 6}; files (path string, dir udata, MD5 data16): a.c dir 0,
 * b.h dir 1. */
static void build_v5(wasm_buf *line, wasm_buf *line_str)
{
	wasm_buf hdr = {0}, prog = {0};
	/* v5 has max_ops_per_inst too: the same parameters. */
	put_params(&hdr);
	wasm_buf_byte(&hdr, 1);	   /* directory formats */
	wasm_buf_put(&hdr, "\1\x1f", 2); /* PATH line_strp */
	wasm_buf_byte(&hdr, 2);
	mb_u32(&hdr, 0);
	mb_u32(&hdr, 6);
	wasm_buf_byte(&hdr, 3); /* file formats */
	wasm_buf_put(&hdr, "\1\x08\2\x0f\5\x1e", 6);
	wasm_buf_byte(&hdr, 2);
	mb_cstr(&hdr, "a.c");
	wasm_buf_byte(&hdr, 0);
	wasm_buf_put(&hdr, "0123456789abcdef", 16);
	mb_cstr(&hdr, "b.h");
	wasm_buf_byte(&hdr, 1);
	wasm_buf_put(&hdr, "0123456789abcdef", 16);
	put_program(&prog, 0);
	memset(line, 0, sizeof *line);
	put_unit(line, 5, &hdr, &prog);
	memset(line_str, 0, sizeof *line_str);
	wasm_buf_put(line_str, "/comp\0inc\0", 10);
	wasm_buf_fini(&hdr);
	wasm_buf_fini(&prog);
}

/* A v4 .debug_info naming comp dir "/comp" for the line table at 0, and
 * its .debug_abbrev: compile_unit, (stmt_list sec_offset), (comp_dir
 * string). */
static void build_info(wasm_buf *info, wasm_buf *abbrev)
{
	static const uint8_t ab[] = {1, 0x11, 0, 0x10, 0x17, 0x1b, 0x08,
				     0, 0,    0};
	wasm_buf die = {0};
	memset(info, 0, sizeof *info);
	memset(abbrev, 0, sizeof *abbrev);
	wasm_buf_put(abbrev, ab, sizeof ab);
	mb_u16(&die, 4);
	mb_u32(&die, 0); /* abbrev offset */
	wasm_buf_byte(&die, 4);
	wasm_buf_byte(&die, 1); /* abbrev code */
	mb_u32(&die, 0);	/* stmt_list */
	mb_cstr(&die, "/comp");
	mb_u32(info, (uint32_t)die.len);
	wasm_buf_put(info, die.data, die.len);
	wasm_buf_fini(&die);
}

/* Decode the module and build its map; returns the map's status. */
static wasm_status load(const wasm_buf *b, wasm_module **m, rw_srcmap **s,
			wasm_err *e)
{
	wasm_err_clear(e);
	assert_int_equal(wasm_decode(b->data, b->len, m, e), WASM_OK);
	return rw_srcmap_new(*m, s, e);
}

/* Look up DWARF address `a`; checks the answer. line 0 with file NULL
 * expects "unknown" (false); file NULL with a line, a row whose file
 * index names no file. */
static void expect(const wasm_module *m, const rw_srcmap *s, size_t a,
		   const char *file, uint32_t line, uint32_t col)
{
	rw_srcpos p;
	bool ok = rw_srcmap_lookup(s, m->section_start[10] + a, &p);
	if (!file && !line) {
		assert_false(ok);
		assert_null(p.file);
		return;
	}
	assert_true(ok);
	assert_int_equal(p.line, line);
	assert_int_equal(p.column, col);
	if (file)
		assert_string_equal(p.file, file);
	else
		assert_null(p.file);
}

/* The rows of put_program, with the two file paths expected. */
static void expect_program(const wasm_module *m, const rw_srcmap *s,
			   const char *f1, const char *f2)
{
	assert_true(rw_srcmap_has_lines(s));
	expect(m, s, 0, NULL, 0, 0); /* before the first row */
	expect(m, s, 1, f1, 10, 0);
	expect(m, s, 3, f1, 10, 0); /* between rows */
	expect(m, s, 4, f1, 11, 0);
	expect(m, s, 6, f1, 11, 5);
	expect(m, s, 7, f2, 20, 0); /* the next sequence starts here */
	expect(m, s, 8, f2, 20, 0);
	expect(m, s, 9, f2, 0, 0);    /* line 0: compiler-generated */
	expect(m, s, 12, f2, 0, 0);
	expect(m, s, 13, NULL, 0, 0); /* the sequence has ended */
	expect(m, s, 1000, NULL, 0, 0);
}

static void v4_rows_and_lookups(void **state)
{
	wasm_buf line, b;
	wasm_module *m;
	rw_srcmap *s;
	wasm_err e;
	build_v4(&line);
	build_module(&b, (sect[]){{".debug_line", &line}, {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	/* No .debug_info: paths stay relative to the unknown comp dir. */
	expect_program(m, s, "src/a.c", "/abs/inc/b.h");
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&line);
}

/* A line-0 row takes the nearest line of its sequence, never another
 * sequence's; rows with a line are as rw_srcmap_lookup gives them. */
static void line_zero_takes_the_nearest_line(void **state)
{
	wasm_buf line, b;
	wasm_module *m;
	rw_srcmap *s;
	rw_srcpos p;
	wasm_err e;
	size_t base;

	build_v4(&line);
	build_module(&b, (sect[]){{".debug_line", &line}, {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	base = m->section_start[10];
	assert_true(rw_srcmap_lookup_near(s, base + 9, &p));
	assert_string_equal(p.file, "/abs/inc/b.h");
	assert_int_equal(p.line, 20);
	assert_true(rw_srcmap_lookup_near(s, base + 12, &p));
	assert_int_equal(p.line, 20);
	assert_true(rw_srcmap_lookup_near(s, base + 4, &p));
	assert_string_equal(p.file, "src/a.c");
	assert_int_equal(p.line, 11);
	assert_false(rw_srcmap_lookup_near(s, base + 13, &p));
	assert_false(rw_srcmap_lookup_near(s, base, &p));
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&line);
}

static void v4_comp_dir_from_debug_info(void **state)
{
	wasm_buf line, info, abbrev, b;
	wasm_module *m;
	rw_srcmap *s;
	wasm_err e;
	build_v4(&line);
	build_info(&info, &abbrev);
	build_module(&b, (sect[]){{".debug_info", &info},
				  {".debug_abbrev", &abbrev},
				  {".debug_line", &line},
				  {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	expect_program(m, s, "/comp/src/a.c", "/abs/inc/b.h");
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&line);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

static void v5_entry_formats_and_line_strp(void **state)
{
	wasm_buf line, line_str, b;
	wasm_module *m;
	rw_srcmap *s;
	wasm_err e;
	build_v5(&line, &line_str);
	build_module(&b, (sect[]){{".debug_line", &line},
				  {".debug_line_str", &line_str},
				  {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	/* Directory 0 is the comp dir; directory 1 hangs off it. */
	expect_program(m, s, "/comp/a.c", "/comp/inc/b.h");
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&line);
	wasm_buf_fini(&line_str);
}

/* Two units in one section: both are read, each with its own files. */
static void several_units(void **state)
{
	wasm_buf l4, l5, line_str, line = {0}, b;
	wasm_module *m;
	rw_srcmap *s;
	wasm_err e;
	build_v4(&l4);
	build_v5(&l5, &line_str);
	/* The v4 unit keeps only sequence 1: cut its second sequence by
	 * using the v5 unit's program for addresses 7..13 instead. Simpler:
	 * both units describe both functions; the later unit's rows sort
	 * last at equal addresses, so the v5 names win. */
	wasm_buf_put(&line, l4.data, l4.len);
	wasm_buf_put(&line, l5.data, l5.len);
	build_module(&b, (sect[]){{".debug_line", &line},
				  {".debug_line_str", &line_str},
				  {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	expect_program(m, s, "/comp/a.c", "/comp/inc/b.h");
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&line);
	wasm_buf_fini(&l4);
	wasm_buf_fini(&l5);
	wasm_buf_fini(&line_str);
}

/* What wasm-ld leaves behind: a tombstoned sequence at 0, one past the
 * code section, and one at a body start that does not end where a body
 * ends (--wrap). None of them may shadow the real rows. */
static void linker_leftovers_are_dropped(void **state)
{
	wasm_buf hdr = {0}, prog = {0}, line = {0}, b;
	wasm_module *m;
	rw_srcmap *s;
	wasm_err e;
	put_params(&hdr);
	wasm_buf_byte(&hdr, 0);
	mb_cstr(&hdr, "/a.c");
	wasm_buf_put(&hdr, "\0\0\0", 3);
	wasm_buf_byte(&hdr, 0);
	put_program(&prog, 1);
	set_address(&prog, 0); /* tombstone 0 */
	wasm_buf_byte(&prog, 1);
	wasm_buf_byte(&prog, 2);
	wasm_buf_u32(&prog, 12);
	end_sequence(&prog);
	set_address(&prog, 0xffffffff); /* tombstone -1 */
	wasm_buf_byte(&prog, 1);
	wasm_buf_byte(&prog, 2);
	wasm_buf_u32(&prog, 4);
	end_sequence(&prog);
	set_address(&prog, F0_LO); /* a wrapped original: 1..10 */
	wasm_buf_byte(&prog, 3);
	wasm_buf_s32(&prog, 99);
	wasm_buf_byte(&prog, 1);
	wasm_buf_byte(&prog, 2);
	wasm_buf_u32(&prog, 9);
	end_sequence(&prog);
	put_unit(&line, 4, &hdr, &prog);
	build_module(&b, (sect[]){{".debug_line", &line}, {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	expect(m, s, 1, "/a.c", 10, 0);
	expect(m, s, 8, NULL, 20, 0); /* file 2 does not exist */
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&line);
	wasm_buf_fini(&hdr);
	wasm_buf_fini(&prog);
}

static void no_dwarf_is_an_empty_map(void **state)
{
	wasm_buf b, empty = {0};
	wasm_module *m;
	rw_srcmap *s;
	wasm_err e;
	rw_srcpos p;
	build_module(&b, NULL);
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	assert_false(rw_srcmap_has_lines(s));
	assert_false(rw_srcmap_lookup(s, m->section_start[10] + 3, &p));
	assert_null(p.file);
	assert_int_equal(p.line, 0);
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	/* An empty .debug_line is no table either, not an error. */
	build_module(&b, (sect[]){{".debug_line", &empty}, {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
	assert_false(rw_srcmap_has_lines(s));
	rw_srcmap_free(s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
	rw_srcmap_free(NULL);
}

/* Build a module around `line` and expect WASM_MALFORMED at `at` inside
 * .debug_line (SIZE_MAX: any offset). */
static void expect_malformed(const wasm_buf *line, size_t at)
{
	wasm_buf b;
	wasm_module *m;
	rw_srcmap *s = (rw_srcmap *)&b;
	wasm_err e;
	build_module(&b, (sect[]){{".debug_line", line}, {NULL, NULL}});
	assert_int_equal(load(&b, &m, &s, &e), WASM_MALFORMED);
	assert_null(s);
	assert_string_equal(e.section, ".debug_line");
	/* Inside the section, or at its end when data is missing there. */
	assert_true(e.offset <= line->len);
	if (at != SIZE_MAX)
		assert_int_equal(e.offset, at);
	wasm_module_free(m);
	wasm_buf_fini(&b);
}

static void truncated_units_are_malformed(void **state)
{
	wasm_buf v4, v5, line_str;
	build_v4(&v4);
	build_v5(&v5, &line_str);
	/* Every proper prefix: the unit length then exceeds the section. */
	for (size_t n = 1; n < v4.len; n++) {
		wasm_buf cut = {.data = v4.data, .len = n};
		expect_malformed(&cut, SIZE_MAX);
	}
	for (size_t n = 1; n < v5.len; n++) {
		wasm_buf cut = {.data = v5.data, .len = n};
		expect_malformed(&cut, SIZE_MAX);
	}
	wasm_buf_fini(&v4);
	wasm_buf_fini(&v5);
	wasm_buf_fini(&line_str);
}

/* Overwrite 4 bytes at `at` of a copy of `src` with v and check. */
static void patch32_malformed(const wasm_buf *src, size_t at, uint32_t v,
			      size_t err_at)
{
	wasm_buf c = {0};
	wasm_buf_put(&c, src->data, src->len);
	memcpy(c.data + at, &v, 4); /* little-endian host, as DWARF here */
	expect_malformed(&c, err_at);
	wasm_buf_fini(&c);
}

static void patch8_malformed(const wasm_buf *src, size_t at, uint8_t v,
			     size_t err_at)
{
	wasm_buf c = {0};
	wasm_buf_put(&c, src->data, src->len);
	c.data[at] = v;
	expect_malformed(&c, err_at);
	wasm_buf_fini(&c);
}

static void hostile_headers_are_malformed(void **state)
{
	wasm_buf v4, v5, line_str;
	/* v4 layout: 0 unit_length, 4 version, 6 header_length,
	 * 10 min_inst, 11 max_ops, 12 default_is_stmt, 13 line_base,
	 * 14 line_range, 15 opcode_base, 16.. standard lengths. */
	build_v4(&v4);
	patch32_malformed(&v4, 0, 0xfffffff0, 0);   /* reserved length */
	patch32_malformed(&v4, 0, 0xffffffff, SIZE_MAX); /* DWARF64, short */
	patch32_malformed(&v4, 0, 0x7fffffff, 0);   /* past the section */
	patch32_malformed(&v4, 6, 0x7fffffff, 6);   /* header too long */
	patch8_malformed(&v4, 4, 1, 4);		    /* version 1 */
	patch8_malformed(&v4, 4, 6, 4);		    /* version 6 */
	patch8_malformed(&v4, 14, 0, 14);	    /* line_range 0 */
	patch8_malformed(&v4, 15, 0, 15);	    /* opcode_base 0 */
	patch8_malformed(&v4, 15, 255, SIZE_MAX);   /* lengths overrun */
	/* v5 layout: 0 length, 4 version, 6 address_size, 7 seg size,
	 * 8 header_length, 12 params (18 bytes), 30 dir format count,
	 * 31 content, 32 form, ... */
	build_v5(&v5, &line_str);
	patch8_malformed(&v5, 32, 0x7e, 34);	  /* unknown form: at its value */
	patch8_malformed(&v5, 30, 200, 30);	  /* too many formats */
	patch8_malformed(&v5, 33, 0x7f, 34);	  /* directory count */
	wasm_buf_fini(&v4);
	wasm_buf_fini(&v5);
	wasm_buf_fini(&line_str);
}

static void hostile_program_is_malformed(void **state)
{
	wasm_buf hdr = {0}, prog = {0}, line = {0};
	put_params(&hdr);
	wasm_buf_byte(&hdr, 0);
	wasm_buf_byte(&hdr, 0);
	/* An extended opcode claiming more bytes than the unit holds. */
	wasm_buf_byte(&prog, 0);
	wasm_buf_u32(&prog, 1000);
	wasm_buf_byte(&prog, 1);
	put_unit(&line, 4, &hdr, &prog);
	expect_malformed(&line, line.len - 4);
	/* set_address with a 9-byte operand. */
	prog.len = 0;
	line.len = 0;
	wasm_buf_put(&prog, "\0\x0a\2" "123456789", 12);
	put_unit(&line, 4, &hdr, &prog);
	expect_malformed(&line, line.len - 12);
	/* An unterminated LEB at the end of the unit: where it starts. */
	prog.len = 0;
	line.len = 0;
	wasm_buf_put(&prog, "\2\x80\x80", 3);
	put_unit(&line, 4, &hdr, &prog);
	expect_malformed(&line, line.len - 2);
	wasm_buf_fini(&hdr);
	wasm_buf_fini(&prog);
	wasm_buf_fini(&line);
}

/* Every byte of both tables set to a few values: the reader must give
 * OK or MALFORMED, never crash, hang or read outside (ASan checks). */
static void every_byte_mutated(void **state)
{
	static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
	wasm_buf v4, v5, line_str, info, abbrev;
	const wasm_buf *tables[2] = {&v4, &v5};
	build_v4(&v4);
	build_v5(&v5, &line_str);
	build_info(&info, &abbrev);
	for (int t = 0; t < 2; t++) {
		for (size_t i = 0; i < tables[t]->len; i++) {
			for (size_t v = 0; v < sizeof vals; v++) {
				wasm_buf c = {0}, b;
				wasm_module *m;
				rw_srcmap *s;
				wasm_err e;
				wasm_status st;
				rw_srcpos p;
				wasm_buf_put(&c, tables[t]->data,
					     tables[t]->len);
				c.data[i] = vals[v];
				build_module(
				    &b, (sect[]){{".debug_info", &info},
						 {".debug_abbrev", &abbrev},
						 {".debug_line", &c},
						 {".debug_line_str", &line_str},
						 {NULL, NULL}});
				st = load(&b, &m, &s, &e);
				assert_true(st == WASM_OK ||
					    st == WASM_MALFORMED);
				for (size_t a = 0; st == WASM_OK && a < 14;
				     a++)
					rw_srcmap_lookup(
					    s, m->section_start[10] + a, &p);
				rw_srcmap_free(s);
				wasm_module_free(m);
				wasm_buf_fini(&b);
				wasm_buf_fini(&c);
			}
		}
	}
	/* And the .debug_info the comp dir comes from: never an error. */
	for (size_t i = 0; i < info.len + abbrev.len; i++) {
		for (size_t v = 0; v < sizeof vals; v++) {
			wasm_buf ci = {0}, ca = {0}, b;
			wasm_module *m;
			rw_srcmap *s;
			wasm_err e;
			wasm_buf_put(&ci, info.data, info.len);
			wasm_buf_put(&ca, abbrev.data, abbrev.len);
			if (i < info.len)
				ci.data[i] = vals[v];
			else
				ca.data[i - info.len] = vals[v];
			build_module(&b, (sect[]){{".debug_info", &ci},
						  {".debug_abbrev", &ca},
						  {".debug_line", &v4},
						  {NULL, NULL}});
			assert_int_equal(load(&b, &m, &s, &e), WASM_OK);
			rw_srcmap_free(s);
			wasm_module_free(m);
			wasm_buf_fini(&b);
			wasm_buf_fini(&ci);
			wasm_buf_fini(&ca);
		}
	}
	wasm_buf_fini(&v4);
	wasm_buf_fini(&v5);
	wasm_buf_fini(&line_str);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

/* Fail the Nth allocation for every N until the build succeeds: each
 * failure is WASM_NOMEM with nothing leaked (ASan's leak check). */
static void allocation_failure_at_every_step(void **state)
{
	wasm_buf line, line_str, info, abbrev, b;
	wasm_module *m;
	wasm_err e;
	build_v5(&line, &line_str);
	build_info(&info, &abbrev);
	build_module(&b, (sect[]){{".debug_info", &info},
				  {".debug_abbrev", &abbrev},
				  {".debug_line", &line},
				  {".debug_line_str", &line_str},
				  {NULL, NULL}});
	assert_int_equal(wasm_decode(b.data, b.len, &m, &e), WASM_OK);
	for (long n = 0;; n++) {
		rw_srcmap *s;
		wasm_status st;
		wasm_alloc_fail_after(n);
		st = rw_srcmap_new(m, &s, &e);
		wasm_alloc_fail_after(-1);
		if (st == WASM_OK) {
			assert_true(rw_srcmap_has_lines(s));
			rw_srcmap_free(s);
			break;
		}
		assert_int_equal(st, WASM_NOMEM);
		assert_null(s);
		assert_true(n < 1000);
	}
	wasm_module_free(m);
	wasm_buf_fini(&b);
	wasm_buf_fini(&line);
	wasm_buf_fini(&line_str);
	wasm_buf_fini(&info);
	wasm_buf_fini(&abbrev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(v4_rows_and_lookups),
	    cmocka_unit_test(line_zero_takes_the_nearest_line),
	    cmocka_unit_test(v4_comp_dir_from_debug_info),
	    cmocka_unit_test(v5_entry_formats_and_line_strp),
	    cmocka_unit_test(several_units),
	    cmocka_unit_test(linker_leftovers_are_dropped),
	    cmocka_unit_test(no_dwarf_is_an_empty_map),
	    cmocka_unit_test(truncated_units_are_malformed),
	    cmocka_unit_test(hostile_headers_are_malformed),
	    cmocka_unit_test(hostile_program_is_malformed),
	    cmocka_unit_test(every_byte_mutated),
	    cmocka_unit_test(allocation_failure_at_every_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
