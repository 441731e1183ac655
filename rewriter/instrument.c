/*
 * instrument.c - the rewriter: put a probe in front of every access to a
 * shared memory (DESIGN.md "Probe ABI"), and the heisen.sites table.
 *
 * How it works:
 *   One pass over every body. A small scanner (scan.h, driven by tables
 *   built from opcodes.def) steps over the instructions the rewriter
 *   leaves alone without decoding them, and decodes only those that name
 *   a function or a memory: calls and ref.func (their index moves), and
 *   memory instructions (their memory may move, and they may be sites).
 *   Unchanged bytes are not re-encoded: the pass keeps the start of the
 *   current unchanged run and copies it in one memcpy when something must
 *   be written instead (a probe sequence, or an instruction with a moved
 *   index, re-encoded with wasm_encode_instr). A function's new body is
 *   built in a scratch buffer; its scratch locals are numbered in order of
 *   first use (one i32 $addr, then one local per (type, position) of the
 *   operands stashed above an address, shared by every site of the
 *   function) and declared after the function's own local groups, one
 *   group each. The loop steps over one-byte opcodes with no immediate
 *   or a one-byte LEB by a table lookup and no unpredictable branch.
 *   The code section is complete before the rest of the module is
 *   written, because the mask's size depends on the number of sites. It
 *   is written once, into the buffer that becomes the output, after a
 *   gap bounded from the input for what precedes it (splice_code moves
 *   it into place). The rest goes through wasm_encode_with (with an
 *   empty code section, replaced by the splice): hooks move function
 *   and memory indices in exports, start, element and data segments and
 *   constant expressions, append the imports (and the probe's type if the
 *   module has no (i32 i32)->() type), rebuild the name section and add
 *   heisen.sites after the code section. After each body, a second walk
 *   of the original (cover.h) marks the reads a later store covers.
 *   The FNV-1a hash of the input (serial by design) runs on a thread of
 *   its own during the pass, for inputs of 1 MiB or more.
 *   Cost: on genmod's 24 MB module (11 M instructions, 1 M sites, output
 *   2.4x the input) about 0.2 s (was 0.3 s): mostly the scan, then the
 *   page faults (huge pages: wasm_buf advises them for big buffers) and
 *   the in-place move of the 60 MB output. No allocation per
 *   instruction; buffers grow by doubling from a size estimated from the
 *   input.
 *
 * Limitations:
 *   - memory.copy is one site on its destination; when only the source
 *     memory is instrumented the copy is not a site (the probe gets one
 *     address, and it would name the wrong memory).
 *   - The probe gets addr + offset computed in 32 bits: an access whose
 *     effective address overflows (it traps) reports the wrapped value.
 *   - A name section the decoder could not read is dropped rather than
 *     carried over with stale indices. Subsections other than function,
 *     local, label and memory names are copied as they are: they name
 *     types, tables, globals and segments, whose indices do not move.
 *   - The scanner trusts the encoding: the input must have passed
 *     wasm_validate (the header's precondition). Its bounds checks only
 *     keep a broken input inside the body, not make sense of it.
 *   - DWARF and other custom sections describe the original code; the
 *     site table's offsets are what maps the new code back to them.
 */
#include "instrument.h"
#include "cover.h"
#include "scan.h"

#include <pthread.h>
#include <string.h>

/* The validator's limit on locals per function (params included). */
#define RW_MAX_LOCALS 50000000u

static const char SITES_NAME[] = "heisen.sites";

const char *rw_kind_name(rw_kind k)
{
	static const char *const names[] = {
	    "read",	  "write",	"atomic-read", "atomic-write",
	    "atomic-rmw", "range-read", "range-write",
	};
	return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

uint64_t rw_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The hash of the input runs on its own thread while the pass scans:
 * FNV-1a is serial, but independent of the rest. */
typedef struct hash_job {
	const uint8_t *p;
	size_t n;
	uint64_t h;
} hash_job;

static void *hash_thread(void *arg)
{
	hash_job *j = arg;

	j->h = rw_hash(j->p, j->n);
	return NULL;
}

bool rw_sites_same(const rw_sites *a, const rw_sites *b)
{
	for (uint32_t i = 0; i < a->nsites; i++) {
		const rw_site *x = &a->sites[i], *y = &b->sites[i];
		if (x->func != y->func || x->offset != y->offset ||
		    x->op != y->op || x->width != y->width ||
		    x->kind != y->kind || x->mem != y->mem ||
		    x->covered != y->covered ||
		    (x->covered && (x->covered_by != y->covered_by ||
				    x->cover_at != y->cover_at)))
			return false;
	}
	return true;
}

void rw_sites_free(rw_sites *s)
{
	if (!s)
		return;
	wasm_free(s->sites);
	wasm_free(s->map_at);
	wasm_free(s->map);
	memset(s, 0, sizeof *s);
}

/* ---- the pass --------------------------------------------------------- */

/* Stash slots: one per (value type, position above the address). At most
 * two operands sit above an address (cmpxchg, memory.copy/fill/init). */
enum { NTYPES = 5, NPOS = 2, NSLOTS = NTYPES * NPOS };

typedef struct rw_ctx {
	const wasm_module *m;
	bool is_static;
	const uint8_t *smask;
	uint32_t slen;
	bool *instr_mem;     /* per memory of m: its accesses are sites */
	uint32_t probe;	     /* new index of heisen.probe */
	uint32_t mask;	     /* new index of heisen.mask, or UINT32_MAX */
	uint32_t probe_type; /* type index of (i32 i32)->() */
	bool add_type;	     /* probe_type is appended */
	uint8_t sites_after; /* known section heisen.sites follows */
	rw_sites *tab;	     /* table being built */
	uint32_t cap;	     /* allocated sites */
	uint32_t mapcap;     /* allocated tab->map entries */
	wasm_buf code;	     /* code section payload */
	wasm_buf body;	     /* one function's new instructions */
	wasm_buf hdr;	     /* one function's locals declaration */
	/* Per function: local index of $addr and of each slot, or -1. */
	int64_t addr_local;
	int64_t slot_local[NSLOTS];
	uint8_t new_types[1 + NSLOTS]; /* types of the added locals */
	uint32_t nnew;
	uint64_t base; /* index of the first added local */
	rw_scan scan;
	/* One-byte opcodes the loop steps over inline (most instructions:
	 * local.get, i32.const, i32.add…): FAST_NONE has no immediate,
	 * FAST_LEB one LEB128; the rest go through rw_scan_next. */
	uint8_t fast[256];
} rw_ctx;

enum { FAST_SLOW = 0, FAST_NONE, FAST_LEB };

static uint32_t new_func(const rw_ctx *c, uint32_t idx)
{
	return idx >= c->m->nfunc_imports ? idx + 1 : idx;
}

static uint32_t new_mem(const rw_ctx *c, uint32_t idx)
{
	return !c->is_static && idx >= c->m->nmem_imports ? idx + 1 : idx;
}

static uint32_t hook_func(void *ctx, uint32_t idx)
{
	return new_func(ctx, idx);
}

static uint32_t hook_mem(void *ctx, uint32_t idx) { return new_mem(ctx, idx); }

static int type_slot(char sig)
{
	switch (sig) {
	case 'i': return 0;
	case 'l': return 1;
	case 'f': return 2;
	case 'd': return 3;
	default: return 4; /* 'v' */
	}
}

static const uint8_t slot_type[NTYPES] = {WASM_I32, WASM_I64, WASM_F32,
					  WASM_F64, WASM_V128};

/* Local index for a scratch local, declared on first use. */
static uint32_t scratch(rw_ctx *c, int64_t *slot, uint8_t type)
{
	if (*slot < 0) {
		*slot = (int64_t)(c->base + c->nnew);
		c->new_types[c->nnew++] = type;
	}
	return (uint32_t)*slot;
}

/* Kind of an access, from its opcode's flags. */
static rw_kind kind_of(const wasm_opinfo *oi)
{
	if (oi->flags & WASM_F_RANGE_WRITE)
		return RW_RANGE_WRITE;
	if (oi->flags & WASM_F_ATOMIC) {
		if ((oi->flags & WASM_F_LOAD) && (oi->flags & WASM_F_STORE))
			return RW_ATOMIC_RMW;
		return (oi->flags & WASM_F_STORE) ? RW_ATOMIC_WRITE
						  : RW_ATOMIC_READ;
	}
	return (oi->flags & WASM_F_STORE) ? RW_WRITE : RW_READ;
}

static wasm_status add_site(rw_ctx *c, const rw_site *s, wasm_err *err)
{
	rw_sites *t = c->tab;

	if (t->nsites == RW_MAX_SITES)
		return wasm_err_set(err, WASM_LIMIT, s->offset,
				    "more than 2^30 access sites");
	if (t->nsites == c->cap) {
		uint32_t n =
		    c->cap ? (c->cap > UINT32_MAX / 2 ? UINT32_MAX : c->cap * 2)
			   : 256;
		rw_site *p = wasm_realloc(t->sites, (size_t)n * sizeof *p);
		if (!p)
			return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory for the site table");
		t->sites = p;
		c->cap = n;
	}
	t->sites[t->nsites++] = *s;
	return WASM_OK;
}

/* From `at` bytes into the current function's new instructions on, the
 * code is the original's from file offset orig on. An entry that keeps
 * the previous one's shift is left out. */
static wasm_status add_map(rw_ctx *c, uint32_t fn, size_t at, size_t orig,
			   wasm_err *err)
{
	rw_sites *t = c->tab;
	uint32_t first = t->map_at[fn], n = t->map_at[fn + 1];

	if (n > first) {
		const struct rw_offmap *e = &t->map[n - 1];
		if ((int64_t)at - e->at == (int64_t)orig - e->orig)
			return WASM_OK;
	}
	if (at > UINT32_MAX)
		return wasm_err_set(err, WASM_LIMIT, orig,
				    "instrumented function over 4 GiB");
	if (n == c->mapcap) {
		uint32_t cap = c->mapcap ? c->mapcap * 2 : 256;
		struct rw_offmap *p;
		if (c->mapcap > UINT32_MAX / 2 ||
		    !(p = wasm_realloc(t->map, (size_t)cap * sizeof *p)))
			return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory for the offset "
					    "map");
		t->map = p;
		c->mapcap = cap;
	}
	t->map[n] = (struct rw_offmap){(uint32_t)at, (uint32_t)orig};
	t->map_at[fn + 1] = n + 1;
	return WASM_OK;
}

/* wasm_buf_put, with the common case (room left) inline. */
static inline void buf_put(wasm_buf *b, const void *p, size_t n)
{
	if (n && !b->oom && b->cap - b->len >= n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	} else {
		wasm_buf_put(b, p, n);
	}
}

/* Inline LEB128 writers into a small array: a site costs one
 * wasm_buf_put instead of ~20 calls. */
static inline size_t leb_u32(uint8_t *p, uint32_t v)
{
	size_t n = 0;

	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		p[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static inline size_t leb_s32(uint8_t *p, int32_t v)
{
	size_t n = 0;

	for (;;) {
		uint8_t b = v & 0x7f;
		v >>= 7; /* arithmetic shift: gcc and clang */
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
			p[n++] = b;
			return n;
		}
		p[n++] = b | 0x80;
	}
}

/* Bytes of the longest site sequence: 2 stashes, the probe (three calls
 * for a range), 2 restores; each instruction at most 1 + 5 + 5 bytes. */
enum { SEQ_MAX = 30 * 11 };

/* Append, in front of site `id` for access `in` (DESIGN "Probe ABI"):
 * stash the operands above the address, the probe, restore them. */
static void put_site(rw_ctx *c, const wasm_instr *in, uint32_t id, uint64_t off)
{
	const char *sig = wasm_op_info(in->op)->sig;
	uint32_t addr = scratch(c, &c->addr_local, WASM_I32);
	uint32_t loc[NPOS];
	uint8_t q[SEQ_MAX];
	size_t n = 0;
	int k = 0;

	/* Operands above the address: sig is "i<above>>results". */
	for (const char *p = sig + 1; *p && *p != '>' && k < NPOS; p++, k++) {
		int t = type_slot(*p);
		loc[k] =
		    scratch(c, &c->slot_local[k * NTYPES + t], slot_type[t]);
	}
	for (int j = k - 1; j >= 0; j--) {
		q[n++] = 0x21; /* local.set */
		n += leb_u32(q + n, loc[j]);
	}
	q[n++] = 0x22; /* local.tee $addr */
	n += leb_u32(q + n, addr);
	if (!c->is_static) {
		q[n++] = 0x41; /* i32.const SITE */
		n += leb_s32(q + n, (int32_t)id);
		q[n++] = 0x2D; /* i32.load8_u (memory MASK) */
		if (c->mask) {
			q[n++] = 0x40;
			n += leb_u32(q + n, c->mask);
		} else {
			q[n++] = 0;
		}
		q[n++] = 0;
		q[n++] = 0x04; /* if (empty) */
		q[n++] = 0x40;
	}
	q[n++] = 0x20; /* local.get $addr */
	n += leb_u32(q + n, addr);
	if (off) {
		q[n++] = 0x41; /* i32.const OFFSET; i32.add */
		n += leb_s32(q + n, (int32_t)(uint32_t)off);
		q[n++] = 0x6A;
	}
	q[n++] = 0x41; /* i32.const SITE; call $probe */
	n += leb_s32(q + n, (int32_t)id);
	q[n++] = 0x10;
	n += leb_u32(q + n, c->probe);
	if (wasm_op_info(in->op)->flags & WASM_F_RANGE_WRITE && k == NPOS) {
		/* The source of a copy within one memory, then the length:
		 * the operands above the address. */
		bool src = in->op == WASM_OP_MEMORY_COPY &&
			   in->u.idx2.a == in->u.idx2.b;
		for (int j = src ? 0 : 1; j < NPOS; j++) {
			q[n++] = 0x20; /* local.get; i32.const; call $probe */
			n += leb_u32(q + n, loc[j]);
			q[n++] = 0x41;
			n += leb_s32(q + n, (int32_t)(id | (j ? RW_PROBE_LEN
							      : RW_PROBE_SRC)));
			q[n++] = 0x10;
			n += leb_u32(q + n, c->probe);
		}
	}
	if (!c->is_static)
		q[n++] = 0x0B; /* end */
	for (int j = 0; j < k; j++) {
		q[n++] = 0x20; /* local.get */
		n += leb_u32(q + n, loc[j]);
	}
	buf_put(&c->body, q, n);
}

/* Rewrite defined function i into c->code. */
static wasm_status do_func(rw_ctx *c, uint32_t i, wasm_err *err)
{
	const wasm_module *m = c->m;
	const wasm_func *f = &m->funcs[i];
	const wasm_functype *ft = &m->types[f->type];
	const uint8_t *p = m->bytes + f->code_start;
	const uint8_t *end = m->bytes + f->code_end;
	const uint8_t *lim = end - (end - p > 16 ? 16 : end - p);
	wasm_instr in;
	wasm_status st = WASM_OK;
	size_t run = f->code_start; /* start of the unchanged bytes */

	c->body.len = 0;
	c->hdr.len = 0;
	c->nnew = 0;
	c->addr_local = -1;
	for (int k = 0; k < NSLOTS; k++)
		c->slot_local[k] = -1;
	c->base = (uint64_t)ft->nparams + f->nlocals;
	c->tab->map_at[i + 1] = c->tab->map_at[i];
	if ((st = add_map(c, i, 0, f->code_start, err)))
		return st;
	while (p < end) {
		const wasm_opinfo *oi;
		bool moved = false, site = false;
		uint32_t mem = 0;
		uint64_t off = 0;

		/* Step over the instructions left alone: a table lookup per
		 * instruction, the step is the table value (1, or 2 for a
		 * one-byte LEB). Up to 16 bytes before the end, p[1] is
		 * inside the body; the tail goes the careful way. */
		while (p < lim) {
			unsigned k = c->fast[*p];
			/* Branch-free: the mix of 1- and 2-byte steps is
			 * unpredictable; a longer LEB is rare. */
			unsigned more = (k >> 1) & ((unsigned)p[1] >> 7);
			if (!k)
				break;
			p += k;
			if (more)
				p = rw_skip_leb(p, end);
		}
		if (p >= lim) {
			if (p >= end)
				break;
			switch (c->fast[*p]) {
			case FAST_NONE: p++; continue;
			case FAST_LEB: p = rw_skip_leb(p + 1, end); continue;
			default: break;
			}
		}
		if (!rw_scan_next(&c->scan, m->bytes, &p, end, &in))
			continue;
		oi = wasm_op_info(in.op);
		switch ((wasm_imm)oi->imm) {
		case WASM_IMM_FUNC:
			moved = in.u.idx >= m->nfunc_imports;
			in.u.idx = new_func(c, in.u.idx);
			break;
		case WASM_IMM_MEMARG:
		case WASM_IMM_MEMARG_LANE:
			mem = in.u.mem.m.mem;
			off = in.u.mem.m.offset;
			site = (oi->flags & (WASM_F_LOAD | WASM_F_STORE)) &&
			       !(oi->flags & WASM_F_SYNC);
			in.u.mem.m.mem = new_mem(c, mem);
			moved = in.u.mem.m.mem != mem;
			break;
		case WASM_IMM_MEM: /* memory.size/grow/fill */
			mem = in.u.idx;
			site = oi->flags & WASM_F_RANGE_WRITE;
			in.u.idx = new_mem(c, mem);
			moved = in.u.idx != mem;
			break;
		case WASM_IMM_MEMORY_INIT: /* data, memory */
			mem = in.u.idx2.b;
			site = true;
			in.u.idx2.b = new_mem(c, mem);
			moved = in.u.idx2.b != mem;
			break;
		case WASM_IMM_MEMORY_COPY: /* destination, source */
			mem = in.u.idx2.a;
			site = true;
			in.u.idx2.a = new_mem(c, mem);
			in.u.idx2.b = new_mem(c, in.u.idx2.b);
			moved = in.u.idx2.a != mem;
			break;
		default: break;
		}
		site = site && c->instr_mem[mem];
		if (site) {
			uint32_t id = c->tab->nsites;
			rw_site s = {
			    .func = m->nfunc_imports + i,
			    .offset = (uint32_t)in.offset,
			    .op = (uint16_t)in.op,
			    .width = oi->width,
			    .kind = (uint8_t)kind_of(oi),
			    .mem = mem,
			};
			if (s.kind == RW_RANGE_WRITE)
				s.width = 0;
			if ((st = add_site(c, &s, err)))
				break;
			if (!c->is_static || (id < c->slen && c->smask[id])) {
				buf_put(&c->body, m->bytes + run,
					in.offset - run);
				run = in.offset;
				put_site(c, &in, id, off);
				if ((st = add_map(c, i, c->body.len, run, err)))
					break;
			}
		}
		if (moved) {
			buf_put(&c->body, m->bytes + run, in.offset - run);
			wasm_encode_instr(&c->body, &in);
			run = (size_t)(p - m->bytes);
			if ((st = add_map(c, i, c->body.len, run, err)))
				break;
		}
	}
	if (st) {
		err->func = m->nfunc_imports + i;
		err->section = "code";
		return st;
	}
	buf_put(&c->body, m->bytes + run, f->code_end - run);
	if (c->base + c->nnew > RW_MAX_LOCALS) {
		err->func = m->nfunc_imports + i;
		return wasm_err_set(err, WASM_LIMIT, f->code_start,
				    "function would have %llu locals with the "
				    "probe's scratch locals; heisen supports "
				    "at most %u",
				    (unsigned long long)(c->base + c->nnew),
				    RW_MAX_LOCALS);
	}
	wasm_buf_u32(&c->hdr, f->ngroups + c->nnew);
	for (uint32_t k = 0; k < f->ngroups; k++) {
		wasm_buf_u32(&c->hdr, f->groups[k].count);
		wasm_buf_byte(&c->hdr, f->groups[k].type);
	}
	for (uint32_t k = 0; k < c->nnew; k++) {
		wasm_buf_byte(&c->hdr, 1);
		wasm_buf_byte(&c->hdr, c->new_types[k]);
	}
	if (c->hdr.len + c->body.len > UINT32_MAX) {
		err->func = m->nfunc_imports + i;
		return wasm_err_set(err, WASM_LIMIT, f->code_start,
				    "instrumented body over 4 GiB");
	}
	wasm_buf_u32(&c->code, (uint32_t)(c->hdr.len + c->body.len));
	buf_put(&c->code, c->hdr.data, c->hdr.len);
	buf_put(&c->code, c->body.data, c->body.len);
	if (c->body.oom || c->hdr.oom)
		c->code.oom = true;
	return WASM_OK;
}

/* ---- writing the module ----------------------------------------------- */

static wasm_status hook_section(void *ctx, uint8_t id, wasm_buf *s, bool *done,
				wasm_err *err)
{
	(void)ctx;
	(void)err;
	if (id != 10)
		return WASM_OK;
	/* The payload already sits in c->code after a gap for the rest of
	 * the module (rw_instrument splices it there): write it empty. */
	(void)s;
	*done = true;
	return WASM_OK;
}

static void put_str(wasm_buf *b, const char *p, uint32_t n)
{
	wasm_buf_u32(b, n);
	wasm_buf_put(b, p, n);
}

/* The offset map of a version 2 table and later (format: instrument.h). */
static void put_map(wasm_buf *s, const rw_sites *t)
{
	for (uint32_t i = 0; i < t->nmapfn; i++) {
		struct rw_offmap prev = {0, 0};
		wasm_buf_u32(s, t->map_at[i + 1] - t->map_at[i]);
		for (uint32_t k = t->map_at[i]; k < t->map_at[i + 1]; k++) {
			uint8_t q[10];
			size_t n = leb_u32(q, t->map[k].at - prev.at);
			n += leb_u32(q + n, t->map[k].orig - prev.orig);
			wasm_buf_put(s, q, n);
			prev = t->map[k];
		}
	}
}

/* The covered sites of a version 4 table (format: instrument.h). */
static void put_covered(wasm_buf *s, const rw_sites *t)
{
	uint32_t n = 0, prev = 0;

	for (uint32_t i = 0; i < t->nsites; i++)
		n += t->sites[i].covered;
	wasm_buf_u32(s, n);
	for (uint32_t i = 0; i < t->nsites; i++)
		if (t->sites[i].covered) {
			wasm_buf_u32(s, i - prev);
			wasm_buf_u32(s, t->sites[i].covered_by - i);
			wasm_buf_u32(s, t->sites[i].cover_at);
			prev = i;
		}
}

static wasm_status hook_after(void *ctx, uint8_t id, wasm_buf *s, wasm_err *err)
{
	rw_ctx *c = ctx;
	const rw_sites *t = c->tab;

	(void)err;
	if (id != c->sites_after)
		return WASM_OK;
	put_str(s, SITES_NAME, sizeof SITES_NAME - 1);
	wasm_buf_u32(s, t->version);
	wasm_buf_u64(s, t->hash);
	wasm_buf_u32(s, t->probe_func);
	wasm_buf_u32(s, t->mask_mem);
	wasm_buf_u32(s, t->code_start);
	wasm_buf_u32(s, t->nsites);
	for (uint32_t i = 0; i < t->nsites; i++) {
		const rw_site *p = &t->sites[i];
		uint8_t q[30];
		size_t n = leb_u32(q, p->func);
		n += leb_u32(q + n, p->offset);
		n += leb_u32(q + n, p->op);
		n += leb_u32(q + n, p->width);
		n += leb_u32(q + n, p->kind);
		n += leb_u32(q + n, p->mem);
		wasm_buf_put(s, q, n);
	}
	wasm_buf_u32(s, t->nmapfn);
	put_map(s, t);
	put_covered(s, t);
	return WASM_OK;
}

/* A bounded LEB128 cursor for custom section payloads. */
typedef struct cur {
	const uint8_t *p, *end;
	bool bad;
} cur;

static uint64_t get_leb(cur *c, unsigned bits)
{
	uint64_t v = 0;

	for (unsigned shift = 0; !c->bad; shift += 7) {
		uint8_t byte;
		if (c->p >= c->end || shift >= bits + 7) {
			c->bad = true;
			break;
		}
		byte = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			break;
	}
	if (bits < 64 && (v >> bits))
		c->bad = true;
	return c->bad ? 0 : v;
}

static uint32_t get_u32(cur *c) { return (uint32_t)get_leb(c, 32); }

/* Copy a name map (vec(index name)), moving each index with map. */
static void copy_namemap(cur *c, wasm_buf *s, const rw_ctx *x,
			 uint32_t (*map)(const rw_ctx *, uint32_t))
{
	uint32_t n = get_u32(c);

	wasm_buf_u32(s, n);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint32_t idx = get_u32(c), len = get_u32(c);
		if (c->bad || len > (size_t)(c->end - c->p)) {
			c->bad = true;
			break;
		}
		wasm_buf_u32(s, map ? map(x, idx) : idx);
		put_str(s, (const char *)c->p, len);
		c->p += len;
	}
}

/* Rebuild the name section with moved function and memory indices. */
static wasm_status hook_custom(void *ctx, const wasm_custom *cs, wasm_buf *s,
			       bool *keep, wasm_err *err)
{
	rw_ctx *x = ctx;
	const wasm_module *m = x->m;
	wasm_buf sub = {0};
	cur c = {m->bytes + cs->start, m->bytes + cs->start + cs->len, false};

	(void)err;
	put_str(s, cs->name.p, cs->name.len);
	if (cs->name.len != 4 || memcmp(cs->name.p, "name", 4)) {
		wasm_buf_put(s, m->bytes + cs->start, cs->len);
		*keep = true;
		return WASM_OK;
	}
	if (!m->names.present)
		return WASM_OK; /* unreadable: dropped (see Limitations) */
	while (c.p < c.end && !c.bad) {
		uint8_t id = *c.p++;
		uint32_t len = get_u32(&c);
		cur in;
		if (c.bad || len > (size_t)(c.end - c.p)) {
			c.bad = true;
			break;
		}
		in = (cur){c.p, c.p + len, false};
		c.p += len;
		sub.len = 0;
		switch (id) {
		case 1: copy_namemap(&in, &sub, x, new_func); break;
		case 6: copy_namemap(&in, &sub, x, new_mem); break;
		case 2:
		case 3: { /* indirect name maps keyed by function */
			uint32_t n = get_u32(&in);
			wasm_buf_u32(&sub, n);
			for (uint32_t i = 0; i < n && !in.bad; i++) {
				wasm_buf_u32(&sub, new_func(x, get_u32(&in)));
				copy_namemap(&in, &sub, x, NULL);
			}
			break;
		}
		default: wasm_buf_put(&sub, in.p, len); break;
		}
		if (in.bad)
			c.bad = true;
		wasm_buf_byte(s, id);
		wasm_buf_u32(s, (uint32_t)sub.len);
		wasm_buf_put(s, sub.data, sub.len);
		if (sub.oom)
			s->oom = true;
	}
	wasm_buf_fini(&sub);
	*keep = !c.bad;
	return WASM_OK;
}

/* Put the code section payload, c->code from gap on, in place of the
 * empty code section in the encoder's output *out; the result is
 * c->code's buffer (or a new one, should the rest not fit the gap). */
static wasm_status splice_code(rw_ctx *c, size_t gap, uint8_t **out,
			       size_t *len, wasm_err *err)
{
	const uint8_t *o = *out;
	size_t olen = *len, q = 8, code_len, start, hl;
	uint8_t hdr[6];
	wasm_buf nb = {0}, *dst = &c->code;

	/* Find the empty code section: the encoder's own sections. */
	while (q < olen && o[q] != 10) {
		cur k = {o + q + 1, o + olen, false};
		uint32_t n = get_u32(&k);
		if (k.bad || n > (size_t)(k.end - k.p))
			break;
		q = (size_t)(k.p - o) + n;
	}
	if (q + 2 > olen || o[q] != 10 || o[q + 1] != 0)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "internal: no code section in the output");
	code_len = c->code.len - gap;
	if (code_len > UINT32_MAX)
		return wasm_err_set(err, WASM_LIMIT, WASM_NO_OFFSET,
				    "instrumented code section over 4 GiB");
	hdr[0] = 10;
	hl = 1 + leb_u32(hdr + 1, (uint32_t)code_len);
	start = q + hl;
	if (start <= gap) {
		memmove(c->code.data + start, c->code.data + gap, code_len);
		memcpy(c->code.data, o, q);
		memcpy(c->code.data + q, hdr, hl);
		c->code.len = start + code_len;
	} else { /* cannot happen (see the gap); copy, to be safe */
		wasm_buf_put(&nb, o, q);
		wasm_buf_put(&nb, hdr, hl);
		wasm_buf_put(&nb, c->code.data + gap, code_len);
		dst = &nb;
	}
	wasm_buf_put(dst, o + q + 2, olen - q - 2);
	wasm_free(*out);
	*out = NULL;
	*len = 0;
	if (dst->oom) {
		wasm_buf_fini(&nb);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory writing the module");
	}
	*out = wasm_buf_take(dst, len);
	return WASM_OK;
}

/* ---- entry points ----------------------------------------------------- */

static const wasm_custom *find_sites(const wasm_module *m)
{
	for (uint32_t i = 0; i < m->ncustoms; i++) {
		const wasm_custom *c = &m->customs[i];
		if (c->name.len == sizeof SITES_NAME - 1 &&
		    !memcmp(c->name.p, SITES_NAME, c->name.len))
			return c;
	}
	return NULL;
}

/* The known section after which heisen.sites goes: the code section, or
 * the last one written when there is none (imports always are). */
static uint8_t sites_place(const wasm_module *m)
{
	static const uint8_t order[] = {1, 2, 3,  4,  5, WASM_SECTION_TAG, 6, 7,
					8, 9, 12, 10, 11};
	uint8_t last = 2;

	if (m->section_present[10])
		return 10;
	for (size_t i = 0; i < sizeof order; i++)
		if (m->section_present[order[i]] || order[i] <= 2)
			last = order[i];
	return last;
}

wasm_status rw_instrument(const wasm_module *m, const rw_options *opt,
			  uint8_t **out, size_t *len, rw_sites *sites,
			  wasm_err *err)
{
	static const uint8_t probe_sig[2] = {WASM_I32, WASM_I32};
	rw_ctx c = {0};
	wasm_status st = WASM_OK;
	uint32_t nmem = wasm_mem_count(m);
	bool any = false;
	wasm_functype ptype = {2, 0, (uint8_t *)probe_sig};
	wasm_import imps[2];
	wasm_encode_hooks h = {0};
	uint32_t nimps = 0;
	hash_job hj;
	size_t gap = 0;
	pthread_t ht;
	bool threaded = false;
	rw_cover *cover;

	*out = NULL;
	*len = 0;
	memset(sites, 0, sizeof *sites);
	wasm_err_clear(err);
	if (find_sites(m))
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "already instrumented (has a heisen.sites "
				    "section)");
	c.m = m;
	c.tab = sites;
	c.is_static = opt && opt->static_mask;
	c.smask = c.is_static ? opt->static_mask : NULL;
	c.slen = c.is_static ? opt->static_len : 0;
	c.instr_mem = wasm_calloc(nmem ? nmem : 1, sizeof *c.instr_mem);
	if (!c.instr_mem)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	for (uint32_t i = 0; i < nmem; i++) {
		c.instr_mem[i] =
		    wasm_mem_limits(m, i)->shared || (opt && opt->all_memories);
		any |= c.instr_mem[i];
	}
	if (!any && !(opt && opt->all_memories)) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "no shared memory: nothing to instrument "
				  "(use --all-memories to instrument unshared "
				  "memories)");
		goto done;
	}
	c.probe = m->nfunc_imports;
	c.mask = c.is_static ? UINT32_MAX : m->nmem_imports;
	c.probe_type = m->ntypes;
	c.add_type = true;
	for (uint32_t i = 0; i < m->ntypes; i++) {
		const wasm_functype *ft = &m->types[i];
		if (ft->nparams == 2 && ft->nresults == 0 &&
		    ft->types[0] == WASM_I32 && ft->types[1] == WASM_I32) {
			c.probe_type = i;
			c.add_type = false;
			break;
		}
	}
	c.sites_after = sites_place(m);
	rw_scan_init(&c.scan);
	for (int op = 0; op < WASM_OP_COUNT; op++) {
		const wasm_opinfo *oi = wasm_op_info((wasm_op)op);
		if (oi->prefix)
			continue;
		switch ((wasm_imm)oi->imm) {
		case WASM_IMM_NONE: c.fast[oi->code] = FAST_NONE; break;
		case WASM_IMM_LABEL:
		case WASM_IMM_LOCAL:
		case WASM_IMM_GLOBAL:
		case WASM_IMM_TABLE:
		case WASM_IMM_I32:
		case WASM_IMM_I64: c.fast[oi->code] = FAST_LEB; break;
		default: break;
		}
	}
	sites->nmapfn = m->nfuncs;
	sites->map_at =
	    wasm_calloc((size_t)m->nfuncs + 1, sizeof *sites->map_at);
	if (!sites->map_at) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto done;
	}
	sites->version = RW_SITES_VERSION;
	hj = (hash_job){m->bytes, m->size, 0};
	/* Small inputs hash faster than a thread starts. */
	threaded = m->size >= (1u << 20) &&
		   !pthread_create(&ht, NULL, hash_thread, &hj);
	if (!threaded)
		hj.h = rw_hash(m->bytes, m->size);
	sites->probe_func = c.probe;
	sites->mask_mem = c.mask;
	sites->code_start = (uint32_t)m->section_start[10];

	/* The code section is written once, in the buffer that becomes the
	 * output: after a gap for what precedes it (the input's, grown by
	 * the added imports and type and by moved indices one LEB byte
	 * longer, at most twice its size); the encoder writes the rest with
	 * an empty code section, spliced in around the payload at the end.
	 * Sizing the buffer once from the input avoids most regrowth. */
	if (m->section_present[10]) {
		gap = m->section_start[10] * 2 + 4096;
		if (wasm_buf_reserve(&c.code,
				     gap + (size_t)m->section_size[10] * 3))
			c.code.len = gap;
	}
	wasm_buf_u32(&c.code, m->nfuncs);
	cover = opt && opt->cover ? rw_cover_new() : NULL;
	for (uint32_t i = 0; i < m->nfuncs && !st; i++) {
		uint32_t first = sites->nsites;
		if (!(st = do_func(&c, i, err)) && sites->nsites > first)
			rw_cover_func(cover, m, i, sites->sites + first, first,
				      sites->nsites - first);
	}
	rw_cover_free(cover);
	if (threaded) {
		pthread_join(ht, NULL);
		threaded = false;
	}
	sites->hash = hj.h;
	if (!st && (c.code.oom || c.body.oom || c.hdr.oom))
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory instrumenting the code");
	if (st)
		goto done;

	if (!c.is_static) {
		uint32_t pages =
		    sites->nsites / 65536 + (sites->nsites % 65536 != 0);
		if (!pages)
			pages = 1;
		imps[nimps++] = (wasm_import){
		    .module = {"heisen", 6},
		    .name = {"mask", 4},
		    .kind = WASM_EXTERN_MEMORY,
		    .u.memory = {.min = pages,
				 .max = pages,
				 .has_max = true,
				 .shared = true},
		};
	}
	imps[nimps++] = (wasm_import){
	    .module = {"heisen", 6},
	    .name = {"probe", 5},
	    .kind = WASM_EXTERN_FUNC,
	    .u.func_type = c.probe_type,
	};
	/* Imports of one kind keep their order, so the mask (memory) and
	 * the probe (function) may be written in either order. */
	h.ctx = &c;
	h.func_index = hook_func;
	h.mem_index = hook_mem;
	h.nextra_types = c.add_type ? 1 : 0;
	h.extra_types = &ptype;
	h.nextra_imports = nimps;
	h.extra_imports = imps;
	h.section = hook_section;
	h.custom = hook_custom;
	h.after = hook_after;
	h.size_hint =
	    m->size - m->section_size[10] + 4096 + (size_t)sites->nsites * 12;
	st = wasm_encode_with(m, &h, out, len, err);
	if (!st && m->section_present[10])
		st = splice_code(&c, gap, out, len, err);
done:
	wasm_buf_fini(&c.code);
	wasm_buf_fini(&c.body);
	wasm_buf_fini(&c.hdr);
	wasm_free(c.instr_mem);
	if (st)
		rw_sites_free(sites);
	return st;
}

/* The offset map of a version 2 table: one entry list per defined
 * function, each entry at least two bytes. */
static wasm_status read_map(cur *c, const wasm_module *m, rw_sites *t,
			    wasm_err *err)
{
	const uint8_t *at = c->p;
	uint32_t n = get_u32(c), total = 0;

	if (c->bad || n != m->nfuncs)
		return wasm_err_set(err, WASM_MALFORMED,
				    (size_t)(at - m->bytes),
				    "heisen.sites: the offset map has %u "
				    "functions, the module %u",
				    n, m->nfuncs);
	t->nmapfn = n;
	t->map_at = wasm_calloc((size_t)n + 1, sizeof *t->map_at);
	t->map = wasm_malloc((size_t)(c->end - c->p) / 2 * sizeof *t->map + 1);
	if (!t->map_at || !t->map)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for the offset map");
	for (uint32_t i = 0; i < n; i++) {
		struct rw_offmap prev = {0, 0};
		uint32_t k = get_u32(c);
		if (c->bad || k > (size_t)(c->end - c->p) / 2) {
			c->bad = true;
			break;
		}
		for (uint32_t j = 0; j < k; j++) {
			uint32_t da = get_u32(c), d = get_u32(c);
			if ((j && !da) || da > UINT32_MAX - prev.at ||
			    d > UINT32_MAX - prev.orig)
				c->bad = true;
			prev.at += da;
			prev.orig += d;
			t->map[total++] = prev;
		}
		t->map_at[i + 1] = total;
	}
	if (c->bad)
		return wasm_err_set(err, WASM_MALFORMED,
				    (size_t)(at - m->bytes),
				    "heisen.sites: the offset map is broken");
	return WASM_OK;
}

/* The covered sites of a version 4 table: increasing ids of plain reads,
 * each covered by a later plain write whose bytes hold its bytes, no
 * write covering two. */
static wasm_status read_covered(cur *c, const wasm_module *m, rw_sites *t,
				wasm_err *err)
{
	const uint8_t *at = c->p;
	uint32_t n = get_u32(c);
	uint64_t id = 0;
	uint8_t *taken;

	if (c->bad || n > t->nsites)
		return wasm_err_set(
		    err, WASM_MALFORMED, (size_t)(at - m->bytes),
		    "heisen.sites: %u covered sites of %u", n, t->nsites);
	if (!(taken = wasm_calloc((size_t)t->nsites / 8 + 1, 1)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for the site table");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t d = get_u32(c);
		uint64_t by = (id += d) + get_u32(c);
		uint32_t off = get_u32(c);
		rw_site *r = id < t->nsites ? &t->sites[id] : NULL;
		rw_site *w = by < t->nsites ? &t->sites[by] : NULL;
		if (c->bad || (i && !d) || !r || !w || by == id ||
		    r->kind != RW_READ || w->kind != RW_WRITE ||
		    off + r->width > w->width ||
		    (taken[by / 8] & (1u << (by % 8)))) {
			wasm_free(taken);
			return wasm_err_set(
			    err, WASM_MALFORMED, (size_t)(at - m->bytes),
			    "heisen.sites: covered site %u is broken", i);
		}
		taken[by / 8] |= (uint8_t)(1u << (by % 8));
		r->covered = true;
		r->cover_at = (uint8_t)off;
		r->covered_by = (uint32_t)by;
	}
	wasm_free(taken);
	return WASM_OK;
}

bool rw_sites_orig(const rw_sites *s, uint32_t defined, uint32_t at,
		   uint32_t *orig)
{
	uint32_t lo, hi;

	if (defined >= s->nmapfn)
		return false;
	lo = s->map_at[defined];
	hi = s->map_at[defined + 1];
	if (lo == hi || s->map[lo].at > at)
		return false;
	/* The last entry at or before `at`. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->map[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	*orig = s->map[lo].orig + (at - s->map[lo].at);
	return true;
}

wasm_status rw_sites_read(const wasm_module *m, rw_sites *sites, wasm_err *err)
{
	const wasm_custom *cs = find_sites(m);
	cur c;
	rw_sites t = {0};

	memset(sites, 0, sizeof *sites);
	wasm_err_clear(err);
	if (!cs)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "not instrumented (no heisen.sites "
				    "section)");
	err->section = "heisen.sites";
	c = (cur){m->bytes + cs->start, m->bytes + cs->start + cs->len, false};
	t.version = get_u32(&c);
	if (!c.bad && (t.version < 1 || t.version > RW_SITES_VERSION))
		return wasm_err_set(err, WASM_MALFORMED, cs->start,
				    "heisen.sites version %u, expected 1 to "
				    "%u (instrument the original again with "
				    "this heisen)",
				    t.version, RW_SITES_VERSION);
	t.hash = get_leb(&c, 64);
	t.probe_func = get_u32(&c);
	t.mask_mem = get_u32(&c);
	t.code_start = get_u32(&c);
	t.nsites = get_u32(&c);
	/* Each site takes at least 6 bytes: a count beyond that is a lie,
	 * and must not become a huge allocation. */
	if (c.bad || t.nsites > (size_t)(c.end - c.p) / 6)
		return wasm_err_set(err, WASM_MALFORMED, cs->start,
				    "heisen.sites header is truncated or "
				    "its site count is too large");
	t.sites = wasm_calloc(t.nsites ? t.nsites : 1, sizeof *t.sites);
	if (!t.sites)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for the site table");
	for (uint32_t i = 0; i < t.nsites; i++) {
		rw_site *s = &t.sites[i];
		const uint8_t *at = c.p;
		uint32_t op, width, kind;
		s->func = get_u32(&c);
		s->offset = get_u32(&c);
		op = get_u32(&c);
		width = get_u32(&c);
		kind = get_u32(&c);
		s->mem = get_u32(&c);
		if (c.bad || op >= WASM_OP_COUNT || width > 16 ||
		    kind > RW_RANGE_WRITE) {
			wasm_free(t.sites);
			return wasm_err_set(
			    err, WASM_MALFORMED, (size_t)(at - m->bytes),
			    "heisen.sites: site %u is broken", i);
		}
		s->op = (uint16_t)op;
		s->width = (uint8_t)width;
		s->kind = (uint8_t)kind;
	}
	if ((t.version >= 2 && read_map(&c, m, &t, err)) ||
	    (t.version >= 4 && read_covered(&c, m, &t, err))) {
		rw_sites_free(&t);
		return err->status;
	}
	if (c.p != c.end) {
		rw_sites_free(&t);
		return wasm_err_set(err, WASM_MALFORMED,
				    (size_t)(c.p - m->bytes),
				    "heisen.sites: %zu bytes after the last "
				    "site",
				    (size_t)(c.end - c.p));
	}
	err->section = NULL;
	*sites = t;
	return WASM_OK;
}
