/*
 * fuzz_dwarf.c - libFuzzer target for the DWARF readers of rewriter/ on
 * their own: the line table (rw_srcmap_new), the .debug_info walk of the
 * symbol table (rw_symbols_new) and the inlined subroutines
 * (rw_inline_new), with every section taken from the input.
 *
 * The input is a list of records, each a kind byte, a u32 length (little
 * endian) and that many bytes: kinds 0..8 are the sections of names[]
 * below (a later record of a kind replaces an earlier one), kind 9 the
 * module's function layout (u32 body sizes, at least 2 each). The target
 * builds a module of that many functions of nops carrying those custom
 * sections, so that DWARF addresses land in code as they did in the
 * module the seed came from (tests/fuzz/make-corpus.sh), and decodes it.
 *
 * A reader may refuse its sections (WASM_MALFORMED, WASM_LIMIT,
 * WASM_NOMEM) with a reason; what it builds is then looked up across the
 * code (up to 4096 offsets: line, inlined frames and their call files)
 * and across the first 64 KiB of memory (symbols): nothing may read out
 * of bounds, and every name it gives is a string.
 */
#include "tests/fuzz/fuzz_util.h"

#include "rewriter/inline.h"
#include "rewriter/srcmap.h"
#include "rewriter/symbols.h"

static const char *const names[] = {
    ".debug_line", ".debug_line_str", ".debug_str",
    ".debug_info", ".debug_abbrev",   ".debug_str_offsets",
    ".debug_addr", ".debug_ranges",   ".debug_rnglists",
};
#define NSECS	  (sizeof names / sizeof *names)
#define K_LAYOUT  NSECS
#define MAX_FUNCS 4096u
#define MAX_CODE  (1u << 20)

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n)
			cap *= 2;
		if (!(b->p = realloc(b->p, cap)))
			fuzz_fail("out of memory");
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_byte(buf *b, uint8_t c) { put(b, &c, 1); }

static void put_leb(buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		put_byte(b, (uint8_t)(c | (v ? 0x80 : 0)));
	} while (v);
}

static void section(buf *m, uint8_t id, const buf *payload)
{
	put_byte(m, id);
	put_leb(m, payload->n);
	put(m, payload->p, payload->n);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The module the input describes; false when it describes none. */
static bool build(const uint8_t *data, size_t size, buf *m)
{
	const uint8_t *sec[NSECS] = {0}, *layout = NULL;
	size_t len[NSECS] = {0}, nlayout = 0, at = 0;
	uint32_t nfuncs = 1, total = 0;
	buf s = {0};

	while (size - at >= 5) {
		uint8_t k = data[at];
		uint32_t n = get_u32(data + at + 1);

		at += 5;
		if (n > size - at || k > K_LAYOUT)
			return false;
		if (k == K_LAYOUT) {
			layout = data + at;
			nlayout = n / 4;
		} else {
			sec[k] = data + at;
			len[k] = n;
		}
		at += n;
	}
	if (nlayout) {
		nfuncs = nlayout < MAX_FUNCS ? (uint32_t)nlayout : MAX_FUNCS;
		for (uint32_t i = 0; i < nfuncs; i++) {
			uint32_t b = get_u32(layout + 4 * i);
			if (b < 2 || b > MAX_CODE - total)
				return false;
			total += b;
		}
	}
	put(m, "\0asm\1\0\0\0", 8);
	put(&s, "\1\x60\0\0", 4); /* one type: [] -> [] */
	section(m, 1, &s);
	s.n = 0;
	put_leb(&s, nfuncs);
	for (uint32_t i = 0; i < nfuncs; i++)
		put_byte(&s, 0);
	section(m, 3, &s);
	s.n = 0;
	put_leb(&s, nfuncs);
	for (uint32_t i = 0; i < nfuncs; i++) {
		uint32_t b = nlayout ? get_u32(layout + 4 * i) : 2;

		put_leb(&s, b);
		put_byte(&s, 0); /* no locals */
		for (uint32_t j = 2; j < b; j++)
			put_byte(&s, 0x01); /* nop */
		put_byte(&s, 0x0b);
	}
	section(m, 10, &s);
	for (size_t k = 0; k < NSECS; k++) {
		size_t nl = strlen(names[k]);

		if (!sec[k])
			continue;
		s.n = 0;
		put_leb(&s, nl);
		put(&s, names[k], nl);
		put(&s, sec[k], len[k]);
		section(m, 0, &s);
	}
	free(s.p);
	return true;
}

static void refused(const char *what, wasm_status st, const wasm_err *e)
{
	if (st != WASM_MALFORMED && st != WASM_LIMIT && st != WASM_NOMEM)
		fuzz_fail("%s: unexpected %s: %s", what, wasm_status_name(st),
			  e->msg);
	fuzz_check_err(e, st);
}

/* Touch every byte of a name the readers gave, for ASan. */
static void name_ok(const char *s)
{
	if (s && strlen(s) > (1u << 24))
		fuzz_fail("a name of more than 16 MiB");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	buf mb = {0};
	wasm_module *m = NULL;
	rw_srcmap *map = NULL;
	rw_symbols *sym = NULL;
	rw_inline *inl = NULL;
	wasm_status st;
	wasm_err e;

	if (!build(data, size, &mb)) {
		free(mb.p);
		return 0;
	}
	wasm_err_clear(&e);
	if ((st = wasm_decode(mb.p, mb.n, &m, &e)))
		fuzz_fail("the module built from the input does not decode: "
			  "%s",
			  e.msg);
	if ((st = rw_srcmap_new(m, &map, &e))) {
		refused("rw_srcmap_new", st, &e);
		map = NULL;
	}
	wasm_err_clear(&e);
	if ((st = rw_symbols_new(m, &sym, &e))) {
		refused("rw_symbols_new", st, &e);
		sym = NULL;
	}
	wasm_err_clear(&e);
	if ((st = rw_inline_new(m, map, &inl, &e))) {
		refused("rw_inline_new", st, &e);
		inl = NULL;
	}
	size_t lo = m->section_start[10],
	       hi = m->section_start[10] + m->section_size[10];
	/* At most 4096 lookups of each kind, spread over the code. */
	size_t step = (hi - lo) / 4096 + 1;
	for (size_t off = lo; off < hi; off += step) {
		rw_inframe fr[RW_INLINE_MAX];
		const char *func;
		rw_srcpos pos;
		uint32_t n;

		if (map && rw_srcmap_lookup(map, off, &pos))
			name_ok(pos.file);
		n = rw_inline_lookup(inl, off, fr, RW_INLINE_MAX, &func);
		if (n > RW_INLINE_MAX)
			fuzz_fail("%u inlined frames for %d slots", n,
				  RW_INLINE_MAX);
		name_ok(func);
		for (uint32_t i = 0; i < n; i++) {
			name_ok(fr[i].name);
			name_ok(fr[i].call_file);
		}
	}
	for (uint64_t i = 0; i < 64; i++)
		name_ok(rw_srcmap_file(map, i * 16, i % 8));
	for (uint32_t a = 0; a < 65536; a += 61) {
		rw_symbol y;
		if (rw_symbols_lookup(sym, a, &y))
			name_ok(y.name);
	}
	rw_inline_free(inl);
	rw_symbols_free(sym);
	rw_srcmap_free(map);
	wasm_module_free(m);
	free(mb.p);
	return 0;
}
