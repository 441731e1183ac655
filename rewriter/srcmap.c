/*
 * srcmap.c - the DWARF line table of a Wasm module, as a sorted array of
 * rows for binary search (srcmap.h).
 *
 * How it works:
 *   1. .debug_info is skimmed first, only for each compile unit's first
 *      DIE: its DW_AT_stmt_list (which line table it owns) and its
 *      DW_AT_comp_dir. DWARF 4 line tables name the compilation directory
 *      only implicitly (directory index 0), so without this step every
 *      path would stay relative to wherever clang ran. Anything odd in
 *      .debug_info just leaves a table without a comp dir: .debug_info is
 *      a convenience here, never an error.
 *   2. Every unit of .debug_line is read in turn: its header (versions
 *      2..5, DWARF32 and DWARF64; v5 directory and file tables described
 *      by DW_LNCT_* entry formats), giving a per-unit file table whose
 *      paths are joined with their directory and the comp dir once, into
 *      the map's own storage.
 *   3. The line-number program runs on the standard state machine
 *      (DWARF 5 section 6.2.2; v2..v4 differ only in the header).
 *      Rows are buffered per sequence and kept when DW_LNE_end_sequence
 *      closes it; the end row is kept too, as a marker, so that a lookup
 *      past the end of a sequence finds the marker and answers "unknown"
 *      instead of the previous sequence's last line.
 *   4. Addresses are offsets from the code section's payload
 *      (WebAssembly tool-conventions Debugging.md); they become file
 *      offsets by adding m->section_start[10]. All rows are sorted by
 *      (offset, end markers first, order of appearance), and a lookup
 *      takes the last row at or below the offset: the same rule as
 *      llvm-symbolizer, so the two agree on an address that carries
 *      several rows.
 *
 * Robustness: every read goes through a cursor that checks bounds and
 * turns sticky-bad on the first overrun, so a hostile section ends the
 * parse with WASM_MALFORMED (offset inside .debug_line) and never reads
 * outside it. Every loop consumes at least one byte per step, so none
 * can spin. Rows are at most one per program byte.
 *
 * Limitations:
 *   - A sequence is kept only if it starts in a function body's header
 *     (size LEB .. first instruction) and ends where a body ends
 *     (seq_fits): that drops what wasm-ld leaves for discarded code
 *     (tombstone addresses 0 and 0xffffffff) and for functions renamed
 *     by --wrap, whose old line table lands on the wrapper's address
 *     (the demos' guest library wraps malloc and stdio). A compiler that
 *     starts sequences mid-function would lose its lines here.
 *     In an instrumented module (it has a "heisen.sites" section) the
 *     bodies have moved away from the DWARF, so only the tombstone part
 *     of that check applies, and a --wrap leftover may shadow the
 *     wrapper's lines (guest library code, not user code).
 *   - Overlapping sequences that both pass that check resolve to
 *     whichever row sorts last.
 *   - A sequence without DW_LNE_end_sequence at the end of its unit is
 *     dropped, as LLVM does.
 *   - VLIW op_index is tracked (max_ops_per_inst > 1) but the map keys on
 *     the address alone.
 *   - Strings by DW_FORM_strx* (v5 split DWARF) are not resolved: such a
 *     file has no name (file NULL) but its lines still map.
 *   - Columns are reported as recorded; 0 means "no column".
 */
#include "rewriter/srcmap.h"

#include "rewriter/dwarf.h"

#include <stdlib.h>
#include <string.h>

/* One row of the line table, keyed by file offset. */
typedef struct srow {
	uint64_t off;	 /* file offset (code payload start + address) */
	uint32_t file;	 /* index into rw_srcmap.files, UINT32_MAX unknown */
	uint32_t line;	 /* 0: no source line (compiler-generated code) */
	uint32_t column; /* 0: no column */
	uint32_t ord;	 /* order of appearance: makes the sort stable */
	bool end;	 /* end_sequence marker: no position from here */
} srow;

/* The file table of one line-table unit: files[first .. first + n) of
 * the map, numbered from base (1 before DWARF 5, 0 in 5). */
typedef struct sunit {
	uint64_t off; /* the unit's offset in .debug_line */
	uint32_t first, n, base;
} sunit;

struct rw_srcmap {
	srow *rows; /* sorted by srow_cmp */
	size_t nrows, cap;
	char **files; /* joined paths, owned */
	uint32_t nfiles, files_cap;
	sunit *units; /* in .debug_line order, which is offset order */
	size_t nunits, units_cap;
	bool has_lines;
	/* While an instrumented module's map is built: each kept sequence,
	 * its DWARF range and its rows (drop_overlapping). */
	struct seqspan {
		uint64_t lo, hi;
		size_t first, n;
	} * seqs;
	size_t nseqs, seqs_cap;
};

/* Comp dirs by line-table offset, from .debug_info. */
typedef struct compdir {
	uint64_t stmt_list;
	const char *dir;
} compdir;

typedef struct compdirs {
	compdir *v;
	size_t n, cap;
} compdirs;

/* Record the stmt_list and comp_dir of each compile unit. Best effort:
 * returns false only when out of memory. */
static bool scan_info(const rw_dsecs *s, compdirs *out)
{
	rw_dcur c = {.p = s->info, .end = s->info_len};
	while (s->info && c.pos < s->info_len && !c.bad) {
		rw_dw_unit u;
		uint64_t len, code, attr, form, stmt = UINT64_MAX;
		const char *dir = NULL;
		size_t next;
		rw_dcur a;
		rw_dw_val val;

		c.end = s->info_len;
		len = rw_dw_unit_length(&c, &u.offsz);
		if (c.bad || len > c.end - c.pos)
			break;
		next = c.pos + (size_t)len;
		c.end = next;
		rw_dw_unit_header(&c, &u);
		/* Only full and partial compile units name a comp dir. */
		if (c.bad || u.version < 2 || u.version > 5 ||
		    (u.type != 1 && u.type != 3))
			goto next_unit;
		code = rw_dc_uleb(&c);
		if (c.bad ||
		    !rw_dw_abbrev_find(s, u.abbrev_off, code, &a, NULL, NULL))
			goto next_unit;
		while (rw_dw_attr(&a, &c, &u, s, &attr, &form, &val)) {
			if (attr == 0x10) /* DW_AT_stmt_list */
				stmt = val.u;
			else if (attr == 0x1b) /* DW_AT_comp_dir */
				dir = val.str;
		}
		if (stmt != UINT64_MAX && dir) {
			if (out->n == out->cap) {
				size_t cap = out->cap ? 2 * out->cap : 8;
				compdir *v =
				    wasm_realloc(out->v, cap * sizeof *v);
				if (!v)
					return false;
				out->v = v;
				out->cap = cap;
			}
			out->v[out->n++] = (compdir){stmt, dir};
		}
	next_unit:
		if (c.bad)
			break;
		c.pos = next;
	}
	return true;
}

static const char *compdir_for(const compdirs *cd, uint64_t off)
{
	for (size_t i = 0; i < cd->n; i++)
		if (cd->v[i].stmt_list == off)
			return cd->v[i].dir;
	return NULL;
}

/* A raw file entry of one line-table unit. */
typedef struct lfile {
	const char *name; /* NULL if unknown (strx, bad offset) */
	uint64_t dir;	  /* directory index, as in the unit */
	uint32_t global;  /* index into rw_srcmap.files once joined */
} lfile;

/* Per-unit state of the parse. */
typedef struct lunit {
	unsigned version, offsz;
	const char *compdir;
	const char *
	    *dirs; /* v5: index 0 = comp dir; v4: 1-based, [0] = comp dir */
	uint64_t ndirs;
	lfile *files;
	uint64_t nfiles, files_cap;
	uint64_t file_base; /* 1 for v2..v4, 0 for v5 */
} lunit;

static bool is_abs(const char *p) { return p && p[0] == '/'; }

/* Join dir and name the way clang records paths: an absolute name stands
 * alone, a relative directory hangs off the comp dir. Returns a new
 * string in *out (NULL name gives NULL), false when out of memory. */
static bool join_path(const char *comp, const char *dir, const char *name,
		      char **out)
{
	const char *parts[3];
	size_t np = 0, len = 1;
	char *r, *w;
	*out = NULL;
	if (!name)
		return true;
	if (!is_abs(name)) {
		if (dir && *dir && !is_abs(dir) && comp && *comp)
			parts[np++] = comp;
		if (dir && *dir)
			parts[np++] = dir;
		else if (comp && *comp)
			parts[np++] = comp;
	}
	parts[np++] = name;
	for (size_t i = 0; i < np; i++)
		len += strlen(parts[i]) + 1;
	r = w = wasm_malloc(len);
	if (!r)
		return false;
	for (size_t i = 0; i < np; i++) {
		size_t n = strlen(parts[i]);
		memcpy(w, parts[i], n);
		w += n;
		/* One slash between parts, none doubled. */
		if (i + 1 < np && n && parts[i][n - 1] != '/')
			*w++ = '/';
	}
	*w = 0;
	*out = r;
	return true;
}

static bool add_file(rw_srcmap *s, lunit *u, const char *name, uint64_t dir)
{
	const char *d = NULL;
	char *path;
	if (u->nfiles == u->files_cap) {
		uint64_t cap = u->files_cap ? 2 * u->files_cap : 16;
		lfile *v = wasm_realloc(u->files, cap * sizeof *v);
		if (!v)
			return false;
		u->files = v;
		u->files_cap = cap;
	}
	if (dir < u->ndirs)
		d = u->dirs[dir];
	if (!join_path(u->compdir, d, name, &path))
		return false;
	if (s->nfiles == s->files_cap) {
		uint32_t cap = s->files_cap ? 2 * s->files_cap : 16;
		char **v = wasm_realloc(s->files, cap * sizeof *v);
		if (!v) {
			wasm_free(path);
			return false;
		}
		s->files = v;
		s->files_cap = cap;
	}
	s->files[s->nfiles] = path;
	u->files[u->nfiles++] = (lfile){name, dir, s->nfiles++};
	return true;
}

/* v5 directory or file table: a format list, then entries. */
typedef struct lformat {
	uint64_t content, form;
} lformat;

enum {
	LNCT_PATH = 1,
	LNCT_DIRECTORY_INDEX = 2,
};

/* Read one v5 entry table into dirs (is_dir) or files. */
static wasm_status read_v5_table(rw_dcur *c, rw_srcmap *s, lunit *u,
				 const rw_dsecs *ds, unsigned addrsz,
				 bool is_dir)
{
	lformat fmt[16];
	unsigned nfmt = rw_dc_u8(c);
	uint64_t count;
	if (nfmt > 16) {
		rw_dc_fail(c, c->pos - 1, "too many entry formats");
		return WASM_MALFORMED;
	}
	for (unsigned i = 0; i < nfmt; i++) {
		fmt[i].content = rw_dc_uleb(c);
		fmt[i].form = rw_dc_uleb(c);
	}
	count = rw_dc_uleb(c);
	if (c->bad)
		return WASM_MALFORMED;
	/* An entry without formats says nothing: a table of them is
	 * corrupt, and its count cannot be bounded by the bytes it takes. */
	if (count && !nfmt) {
		rw_dc_fail(c, c->pos, "entries without an entry format");
		return WASM_MALFORMED;
	}
	/* Each entry takes at least one byte unless every form is empty:
	 * bound the count by the bytes left so a huge count cannot make us
	 * allocate or loop for nothing. */
	if (count > c->end - c->pos) {
		rw_dc_fail(c, c->pos, "entry count exceeds the header");
		return WASM_MALFORMED;
	}
	if (is_dir) {
		u->dirs = wasm_calloc(count ? count : 1, sizeof *u->dirs);
		if (!u->dirs)
			return WASM_NOMEM;
		u->ndirs = count;
	}
	for (uint64_t i = 0; i < count && !c->bad; i++) {
		const char *name = NULL;
		uint64_t dir = 0;
		for (unsigned f = 0; f < nfmt; f++) {
			rw_dw_val v;
			rw_dw_form(c, fmt[f].form, u->offsz, addrsz, 5, ds, &v);
			if (fmt[f].content == LNCT_PATH)
				name = v.str;
			else if (fmt[f].content == LNCT_DIRECTORY_INDEX)
				dir = v.u;
		}
		if (c->bad)
			break;
		if (is_dir) {
			/* Entry 0 is the comp dir; later relative
			 * directories hang off it. */
			u->dirs[i] = name;
			if (i == 0 && name)
				u->compdir = name;
		} else if (!add_file(s, u, name, dir)) {
			return WASM_NOMEM;
		}
	}
	return c->bad ? WASM_MALFORMED : WASM_OK;
}

/* v2..v4 include_directories and file_names. */
static wasm_status read_v4_tables(rw_dcur *c, rw_srcmap *s, lunit *u)
{
	size_t start = c->pos;
	uint64_t n = 0;
	const char *d;
	/* Count first, so dirs is one allocation. */
	while ((d = rw_dc_str(c)) && *d)
		n++;
	if (c->bad)
		return WASM_MALFORMED;
	u->dirs = wasm_calloc(n + 1, sizeof *u->dirs);
	if (!u->dirs)
		return WASM_NOMEM;
	u->ndirs = n + 1;
	u->dirs[0] = u->compdir;
	c->pos = start;
	for (uint64_t i = 1; i <= n; i++)
		u->dirs[i] = rw_dc_str(c);
	rw_dc_u8(c); /* the empty string ending the list */
	for (;;) {
		const char *name = rw_dc_str(c);
		uint64_t dir;
		if (!name || !*name)
			break;
		dir = rw_dc_uleb(c);
		rw_dc_uleb(c); /* modification time */
		rw_dc_uleb(c); /* length */
		if (c->bad)
			break;
		if (!add_file(s, u, name, dir))
			return WASM_NOMEM;
	}
	return c->bad ? WASM_MALFORMED : WASM_OK;
}

static bool push_row(rw_srcmap *s, const srow *r)
{
	if (s->nrows == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		srow *v = wasm_realloc(s->rows, cap * sizeof *v);
		if (!v)
			return false;
		s->rows = v;
		s->cap = cap;
	}
	s->rows[s->nrows++] = *r;
	return true;
}

/* Standard opcodes (DWARF 5 table 7.25). */
enum {
	LNS_copy = 1,
	LNS_advance_pc,
	LNS_advance_line,
	LNS_set_file,
	LNS_set_column,
	LNS_negate_stmt,
	LNS_set_basic_block,
	LNS_const_add_pc,
	LNS_fixed_advance_pc,
	LNS_set_prologue_end,
	LNS_set_epilogue_begin,
	LNS_set_isa,
};
/* Extended opcodes. */
enum {
	LNE_end_sequence = 1,
	LNE_set_address,
	LNE_define_file,
	LNE_set_discriminator,
};

/* The code section, for the sequence filter (Limitations). */
typedef struct codespan {
	uint64_t start, size; /* payload file offset and bytes */
	const wasm_module *m;
	bool moved; /* instrumented: bodies no longer where DWARF says */
} codespan;

/* Whether a sequence [lo, hi) of DWARF addresses can describe real code:
 * it must start in the header of some function body (between its size
 * LEB and its first instruction) and end exactly where a body ends.
 * wasm-ld leaves other sequences behind: tombstones (0, 0xffffffff) of
 * discarded functions, and, with --wrap, the line table of the wrapped
 * original (dlmalloc's malloc) relocated onto the wrapper's address,
 * overlapping the wrapper's own and the functions after it. */
static bool seq_fits(const codespan *code, uint64_t lo, uint64_t hi)
{
	const wasm_module *m = code->m;
	uint64_t flo, fhi;
	uint32_t a = 0, b;
	if (lo == 0 || lo >= hi || lo >= 0xfffffff0 || !m->nfuncs)
		return false;
	/* The rewriter keeps the DWARF of the original code, whose bodies
	 * it has moved: only the tombstone checks apply. */
	if (code->moved)
		return true;
	if (hi > code->size)
		return false;
	flo = code->start + lo;
	fhi = code->start + hi;
	/* The last function whose body starts at or before flo. */
	b = m->nfuncs;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (m->funcs[mid].body_start <= flo)
			a = mid + 1;
		else
			b = mid;
	}
	if (a == 0 || flo > m->funcs[a - 1].code_start)
		return false;
	/* Its end, or the end of a later one (a sequence may span several
	 * functions when a compiler does not split them). */
	for (b = a - 1; b < m->nfuncs && m->funcs[b].code_end <= fhi; b++)
		if (m->funcs[b].code_end == fhi)
			return true;
	return false;
}

static bool push_seq(rw_srcmap *s, uint64_t lo, uint64_t hi, size_t first)
{
	if (s->nseqs == s->seqs_cap) {
		size_t nc = s->seqs_cap ? s->seqs_cap * 2 : 64;
		struct seqspan *v = wasm_realloc(s->seqs, nc * sizeof *v);
		if (!v)
			return false;
		s->seqs = v;
		s->seqs_cap = nc;
	}
	s->seqs[s->nseqs++] = (struct seqspan){lo, hi, first, s->nrows - first};
	return true;
}

static int seq_cmp(const void *a, const void *b)
{
	const struct seqspan *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* An instrumented module keeps the original's DWARF but not its function
 * bodies, so seq_fits cannot tell a sequence wasm-ld left behind by its
 * ends (--wrap relocates the wrapped original's table onto the wrapper,
 * over the functions after it, and its end row would then hide them).
 * Real sequences do not overlap one another; such a leftover overlaps two
 * or more. So the sequence overlapping the most others goes, again while
 * one overlaps two or more (a wrapper overlapped by two leftovers stays
 * once they are gone). False when out of memory. */
static bool drop_overlapping(rw_srcmap *s)
{
	uint32_t *hits = wasm_calloc(s->nseqs + 1, sizeof *hits);
	uint8_t *gone = wasm_calloc(s->nrows + 1, 1);
	size_t k = 0;

	if (!hits || !gone) {
		wasm_free(hits);
		wasm_free(gone);
		return false;
	}
	qsort(s->seqs, s->nseqs, sizeof *s->seqs, seq_cmp);
	for (size_t i = 0; i < s->nseqs; i++)
		for (size_t j = i + 1;
		     j < s->nseqs && s->seqs[j].lo < s->seqs[i].hi; j++) {
			hits[i]++;
			hits[j]++;
		}
	for (;;) {
		size_t worst = 0;
		for (size_t i = 1; i < s->nseqs; i++)
			if (hits[i] > hits[worst])
				worst = i;
		if (hits[worst] < 2)
			break;
		for (size_t j = 0; j < s->nseqs; j++)
			if (j != worst && hits[j] &&
			    s->seqs[j].lo < s->seqs[worst].hi &&
			    s->seqs[worst].lo < s->seqs[j].hi)
				hits[j]--;
		hits[worst] = 0;
		memset(gone + s->seqs[worst].first, 1, s->seqs[worst].n);
	}
	for (size_t r = 0; r < s->nrows; r++)
		if (!gone[r])
			s->rows[k++] = s->rows[r];
	s->nrows = k;
	wasm_free(hits);
	wasm_free(gone);
	return true;
}

/* Run one unit's line-number program over [c->pos, c->end). */
static wasm_status run_program(rw_dcur *c, rw_srcmap *s, lunit *u,
			       const codespan *code, uint8_t min_inst,
			       uint8_t max_ops, bool default_stmt,
			       int8_t line_base, uint8_t line_range,
			       uint8_t opcode_base, const uint8_t *std_lens)
{
	uint64_t addr = 0, op_index = 0, file = 1, line = 1, column = 0;
	size_t seq_start = s->nrows; /* rows of the open sequence */
	bool stmt = default_stmt; /* tracked, not kept: sites want every row */
	uint64_t seq_lo = 0;

#define ADVANCE(n)                                                             \
	do {                                                                   \
		uint64_t adv_ = (n);                                           \
		if (max_ops <= 1) {                                            \
			addr += min_inst * adv_;                               \
		} else {                                                       \
			addr += min_inst * ((op_index + adv_) / max_ops);      \
			op_index = (op_index + adv_) % max_ops;                \
		}                                                              \
	} while (0)

	while (c->pos < c->end && !c->bad) {
		size_t at = c->pos;
		uint8_t op = rw_dc_u8(c);
		bool emit = false, end = false;
		if (op >= opcode_base) {
			unsigned adj = op - opcode_base;
			ADVANCE(adj / line_range);
			line += (uint64_t)(int64_t)(line_base +
						    (int)(adj % line_range));
			emit = true;
		} else if (op == 0) {
			uint64_t len = rw_dc_uleb(c);
			size_t body;
			uint8_t sub;
			if (c->bad)
				break;
			if (len == 0 || len > c->end - c->pos) {
				rw_dc_fail(c, at, "bad extended opcode length");
				break;
			}
			body = c->pos;
			sub = rw_dc_u8(c);
			switch (sub) {
			case LNE_end_sequence: emit = end = true; break;
			case LNE_set_address:
				if (len - 1 == 0 || len - 1 > 8) {
					rw_dc_fail(c, at,
						   "bad set_address size");
					break;
				}
				addr = rw_dc_uint(c, (size_t)len - 1);
				op_index = 0;
				break;
			case LNE_define_file: {
				const char *name = rw_dc_str(c);
				uint64_t dir = rw_dc_uleb(c);
				if (!c->bad && !add_file(s, u, name, dir))
					return WASM_NOMEM;
				break;
			}
			default: /* set_discriminator and vendor ones */ break;
			}
			if (c->bad)
				break;
			/* Trust the length, not our reading of the body. */
			if (c->pos - body > len) {
				rw_dc_fail(c, at,
					   "extended opcode overruns "
					   "its length");
				break;
			}
			c->pos = body + (size_t)len;
		} else {
			switch (op) {
			case LNS_copy: emit = true; break;
			case LNS_advance_pc: ADVANCE(rw_dc_uleb(c)); break;
			case LNS_advance_line:
				line += (uint64_t)rw_dc_sleb(c);
				break;
			case LNS_set_file: file = rw_dc_uleb(c); break;
			case LNS_set_column: column = rw_dc_uleb(c); break;
			case LNS_negate_stmt: stmt = !stmt; break;
			case LNS_set_basic_block: break;
			case LNS_const_add_pc:
				ADVANCE((255u - opcode_base) / line_range);
				break;
			case LNS_fixed_advance_pc:
				addr += rw_dc_uint(c, 2);
				op_index = 0;
				break;
			case LNS_set_prologue_end: break;
			case LNS_set_epilogue_begin: break;
			case LNS_set_isa: rw_dc_uleb(c); break;
			default: /* unknown standard opcode: skip its args */
				for (unsigned i = 0; i < std_lens[op - 1]; i++)
					rw_dc_uleb(c);
				break;
			}
		}
		if (c->bad)
			break;
		if (emit) {
			srow r = {0};
			uint64_t fi = file - u->file_base;
			r.off = addr;
			r.file = (file >= u->file_base && fi < u->nfiles)
				     ? u->files[fi].global
				     : UINT32_MAX;
			r.line = (uint32_t)line;
			r.column = (uint32_t)column;
			r.end = end;
			r.ord = (uint32_t)s->nrows; /* unique among kept rows */
			if (s->nrows == seq_start)
				seq_lo = addr;
			if (!push_row(s, &r))
				return WASM_NOMEM;
		}
		if (end) {
			if (!seq_fits(code, seq_lo, addr)) {
				s->nrows = seq_start;
			} else {
				if (code->moved &&
				    !push_seq(s, seq_lo, addr, seq_start))
					return WASM_NOMEM;
				for (size_t i = seq_start; i < s->nrows; i++)
					s->rows[i].off += code->start;
			}
			seq_start = s->nrows;
			addr = op_index = 0;
			file = line = 1;
			column = 0;
			stmt = default_stmt;
		}
	}
#undef ADVANCE
	s->nrows = seq_start; /* an unterminated sequence is dropped */
	return c->bad ? WASM_MALFORMED : WASM_OK;
}

/* Keep the file table of unit u (at off) for rw_srcmap_file. Its
 * files are the map's last u->nfiles: add_file appends to both. */
static bool push_unit(rw_srcmap *s, size_t off, const lunit *u)
{
	if (!u->nfiles)
		return true;
	if (s->nunits == s->units_cap) {
		size_t cap = s->units_cap ? 2 * s->units_cap : 8;
		sunit *v = wasm_realloc(s->units, cap * sizeof *v);
		if (!v)
			return false;
		s->units = v;
		s->units_cap = cap;
	}
	s->units[s->nunits++] =
	    (sunit){off, u->files[0].global, (uint32_t)u->nfiles,
		    (uint32_t)u->file_base};
	return true;
}

/* Parse the unit of .debug_line at c->pos; leaves c->pos at the next. */
static wasm_status read_unit(rw_dcur *c, rw_srcmap *s, const rw_dsecs *ds,
			     const compdirs *cd, const codespan *code)
{
	lunit u = {0};
	size_t unit_off = c->pos, next, prog;
	uint64_t len, hlen;
	unsigned addrsz = 4;
	uint8_t min_inst, max_ops = 1, line_range, opcode_base;
	int8_t line_base;
	bool default_stmt;
	const uint8_t *std_lens;
	wasm_status st = WASM_OK;

	c->end = ds->line_len;
	len = rw_dw_unit_length(c, &u.offsz);
	if (c->bad)
		return WASM_MALFORMED;
	if (len > c->end - c->pos) {
		rw_dc_fail(c, unit_off, "unit length exceeds the section");
		return WASM_MALFORMED;
	}
	next = c->pos + (size_t)len;
	c->end = next;
	u.version = (unsigned)rw_dc_uint(c, 2);
	if (!c->bad && (u.version < 2 || u.version > 5)) {
		rw_dc_fail(c, c->pos - 2, "unsupported line table version");
		return WASM_MALFORMED;
	}
	if (u.version >= 5) {
		addrsz = rw_dc_u8(c);
		rw_dc_u8(c); /* segment selector size */
	}
	hlen = rw_dc_uint(c, u.offsz);
	if (c->bad)
		return WASM_MALFORMED;
	if (hlen > c->end - c->pos) {
		rw_dc_fail(c, c->pos - u.offsz,
			   "header length exceeds the unit");
		return WASM_MALFORMED;
	}
	prog = c->pos + (size_t)hlen;
	c->end = prog; /* the header may not read into the program */
	min_inst = rw_dc_u8(c);
	if (u.version >= 4)
		max_ops = rw_dc_u8(c);
	default_stmt = rw_dc_u8(c) != 0;
	line_base = (int8_t)rw_dc_u8(c);
	line_range = rw_dc_u8(c);
	opcode_base = rw_dc_u8(c);
	if (c->bad)
		return WASM_MALFORMED;
	if (line_range == 0) {
		rw_dc_fail(c, c->pos - 2, "line_range is 0");
		return WASM_MALFORMED;
	}
	if (opcode_base == 0) {
		rw_dc_fail(c, c->pos - 1, "opcode_base is 0");
		return WASM_MALFORMED;
	}
	std_lens = c->p + c->pos;
	rw_dc_skip(c, opcode_base - 1u);
	if (c->bad)
		return WASM_MALFORMED;
	u.compdir = compdir_for(cd, unit_off);
	if (u.version >= 5) {
		u.file_base = 0;
		if ((st = read_v5_table(c, s, &u, ds, addrsz, true)) ||
		    (st = read_v5_table(c, s, &u, ds, addrsz, false)))
			goto done;
	} else {
		u.file_base = 1;
		if ((st = read_v4_tables(c, s, &u)))
			goto done;
	}
	/* Vendor header fields may follow: header_length says where the
	 * program starts. */
	c->pos = prog;
	c->end = next;
	st = run_program(c, s, &u, code, min_inst, max_ops, default_stmt,
			 line_base, line_range, opcode_base, std_lens);
	if (!st && !push_unit(s, unit_off, &u))
		st = WASM_NOMEM;
	if (!st)
		c->pos = next;
done:
	wasm_free(u.dirs);
	wasm_free(u.files);
	return st;
}

static int srow_cmp(const void *a, const void *b)
{
	const srow *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1; /* markers first: a new sequence wins */
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

wasm_status rw_srcmap_new(const wasm_module *m, rw_srcmap **out, wasm_err *err)
{
	rw_srcmap *s;
	rw_dsecs ds;
	compdirs cd = {0};
	size_t sites_len;
	codespan code = {m->section_start[10], m->section_size[10], m, false};
	rw_dcur c;
	wasm_status st = WASM_OK;

	*out = NULL;
	s = wasm_calloc(1, sizeof *s);
	if (!s)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	rw_dw_sections(m, &ds);
	if (!ds.line || !m->section_present[10])
		goto done;
	code.moved = rw_custom_bytes(m, "heisen.sites", &sites_len) != NULL;
	if (!scan_info(&ds, &cd)) {
		st = WASM_NOMEM;
		goto done;
	}
	c = (rw_dcur){.p = ds.line, .end = ds.line_len};
	while (c.pos < ds.line_len && !st)
		st = read_unit(&c, s, &ds, &cd, &code);
	if (st == WASM_MALFORMED) {
		/* The offset is inside .debug_line, as srcmap.h promises. */
		err->section = ".debug_line";
		err->func = WASM_NO_FUNC;
		wasm_err_set(err, st, c.at, "malformed .debug_line: %s",
			     c.why ? c.why : "bad data");
		goto done;
	}
	if (st)
		goto done;
	if (code.moved && s->nseqs && !drop_overlapping(s)) {
		st = WASM_NOMEM;
		goto done;
	}
	if (s->nrows) /* qsort's pointer must not be NULL */
		qsort(s->rows, s->nrows, sizeof *s->rows, srow_cmp);
	s->has_lines = s->nrows > 0;
done:
	wasm_free(cd.v);
	wasm_free(s->seqs);
	s->seqs = NULL;
	s->nseqs = s->seqs_cap = 0;
	if (st == WASM_NOMEM) {
		err->section = NULL;
		err->func = WASM_NO_FUNC;
		wasm_err_set(err, st, WASM_NO_OFFSET, "out of memory");
	}
	if (st) {
		rw_srcmap_free(s);
		return st;
	}
	*out = s;
	return WASM_OK;
}

void rw_srcmap_free(rw_srcmap *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nfiles; i++)
		wasm_free(s->files[i]);
	wasm_free(s->files);
	wasm_free(s->units);
	wasm_free(s->rows);
	wasm_free(s);
}

const char *rw_srcmap_file(const rw_srcmap *s, uint64_t stmt_list,
			   uint64_t index)
{
	size_t lo = 0, hi;
	const sunit *u;

	if (!s)
		return NULL;
	hi = s->nunits;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->units[mid].off < stmt_list)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nunits || s->units[lo].off != stmt_list)
		return NULL;
	u = &s->units[lo];
	if (index < u->base || index - u->base >= u->n)
		return NULL;
	return s->files[u->first + (index - u->base)];
}

bool rw_srcmap_has_lines(const rw_srcmap *s) { return s && s->has_lines; }

/* Index of the row that holds offset (as rw_srcmap_lookup finds it), or
 * SIZE_MAX. */
static size_t row_at(const rw_srcmap *s, size_t offset)
{
	size_t lo = 0, hi = s ? s->nrows : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->rows[mid].off <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 || s->rows[lo - 1].end ? SIZE_MAX : lo - 1;
}

bool rw_srcmap_lookup_near(const rw_srcmap *s, size_t offset, rw_srcpos *pos)
{
	size_t i = row_at(s, offset), best = SIZE_MAX;
	uint64_t dist = UINT64_MAX;

	if (!rw_srcmap_lookup(s, offset, pos) || pos->line || i == SIZE_MAX)
		return i != SIZE_MAX;
	for (size_t k = i; k-- > 0 && !s->rows[k].end;)
		if (s->rows[k].line) {
			best = k;
			dist = offset - s->rows[k].off;
			break;
		}
	for (size_t k = i + 1; k < s->nrows && !s->rows[k].end; k++)
		if (s->rows[k].line) {
			if (s->rows[k].off - offset < dist)
				best = k;
			break;
		}
	if (best != SIZE_MAX) {
		const srow *r = &s->rows[best];
		pos->file = r->file < s->nfiles ? s->files[r->file] : NULL;
		pos->line = r->line;
		pos->column = r->column;
	}
	return true;
}

bool rw_srcmap_lookup(const rw_srcmap *s, size_t offset, rw_srcpos *pos)
{
	size_t lo = 0, hi;
	const srow *r;
	*pos = (rw_srcpos){NULL, 0, 0};
	if (!s || !s->nrows)
		return false;
	/* First row with off > offset; the answer is the one before. */
	hi = s->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->rows[mid].off <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	r = &s->rows[lo - 1];
	if (r->end)
		return false;
	pos->file = r->file < s->nfiles ? s->files[r->file] : NULL;
	pos->line = r->line;
	pos->column = r->column;
	return true;
}
