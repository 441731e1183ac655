/*
 * encode.c - module -> bytes, and structural module equality.
 *
 * How it works: each known section is written into a scratch buffer and
 * then emitted with its size; instructions (bodies and constant
 * expressions) are re-encoded one by one from wasm_reader, canonically
 * (shortest LEB128s), so the rewriter can emit edited code through the same
 * wasm_encode_instr. Custom sections go back after the known section they
 * followed. Because the reader is the only instruction decoder, "encode then
 * decode" equals the original exactly when the encoder is right, which is
 * what wasm_module_equal checks.
 */
#include "wasm.h"

#include <stdio.h>
#include <string.h>

void wasm_encode_instr(wasm_buf *b, const wasm_instr *in)
{
	const wasm_opinfo *oi = wasm_op_info(in->op);

	if (oi->prefix) {
		wasm_buf_byte(b, oi->prefix);
		wasm_buf_u32(b, oi->code);
	} else {
		wasm_buf_byte(b, oi->code);
	}
	switch ((wasm_imm)oi->imm) {
	case WASM_IMM_NONE: break;
	case WASM_IMM_BLOCK:
		if (in->u.block.kind == WASM_BT_EMPTY)
			wasm_buf_byte(b, 0x40);
		else if (in->u.block.kind == WASM_BT_VAL)
			wasm_buf_byte(b, (uint8_t)in->u.block.val);
		else
			wasm_buf_s64(b, (int64_t)in->u.block.val);
		break;
	case WASM_IMM_LABEL:
	case WASM_IMM_FUNC:
	case WASM_IMM_LOCAL:
	case WASM_IMM_GLOBAL:
	case WASM_IMM_TABLE:
	case WASM_IMM_MEM:
	case WASM_IMM_DATA:
	case WASM_IMM_ELEM:
	case WASM_IMM_TAG: wasm_buf_u32(b, in->u.idx); break;
	case WASM_IMM_CALL_INDIRECT:
	case WASM_IMM_MEMORY_INIT:
	case WASM_IMM_MEMORY_COPY:
	case WASM_IMM_TABLE_INIT:
	case WASM_IMM_TABLE_COPY:
		wasm_buf_u32(b, in->u.idx2.a);
		wasm_buf_u32(b, in->u.idx2.b);
		break;
	case WASM_IMM_BR_TABLE:
		wasm_buf_u32(b, in->u.br_table.count);
		for (uint32_t i = 0; i < in->u.br_table.count; i++)
			wasm_buf_u32(b, in->u.br_table.labels[i]);
		wasm_buf_u32(b, in->u.br_table.def);
		break;
	case WASM_IMM_SELECT_T:
		wasm_buf_u32(b, in->u.select.count);
		wasm_buf_put(b, in->u.select.types, in->u.select.count);
		break;
	case WASM_IMM_MEMARG:
	case WASM_IMM_MEMARG_LANE:
		/* Memory 0 is written the single-memory way so that modules
		 * without multi-memory stay readable by every tool. */
		if (in->u.mem.m.mem) {
			wasm_buf_u32(b, in->u.mem.m.align | 0x40);
			wasm_buf_u32(b, in->u.mem.m.mem);
		} else {
			wasm_buf_u32(b, in->u.mem.m.align);
		}
		wasm_buf_u32(b, (uint32_t)in->u.mem.m.offset);
		if (oi->imm == WASM_IMM_MEMARG_LANE)
			wasm_buf_byte(b, in->u.mem.lane);
		break;
	case WASM_IMM_I32: wasm_buf_s32(b, in->u.i32); break;
	case WASM_IMM_I64: wasm_buf_s64(b, in->u.i64); break;
	case WASM_IMM_F32: wasm_buf_put(b, &in->u.f32, 4); break;
	case WASM_IMM_F64: wasm_buf_put(b, &in->u.f64, 8); break;
	case WASM_IMM_V128:
	case WASM_IMM_SHUFFLE: wasm_buf_put(b, in->u.v128, 16); break;
	case WASM_IMM_LANE: wasm_buf_byte(b, in->u.lanes[0]); break;
	case WASM_IMM_REFTYPE: wasm_buf_byte(b, in->u.reftype); break;
	case WASM_IMM_FENCE: wasm_buf_byte(b, 0); break;
	}
}

static uint32_t map_func(const wasm_encode_hooks *h, uint32_t idx)
{
	return h && h->func_index ? h->func_index(h->ctx, idx) : idx;
}

static uint32_t map_mem(const wasm_encode_hooks *h, uint32_t idx)
{
	return h && h->mem_index ? h->mem_index(h->ctx, idx) : idx;
}

/* Re-encode the instructions in [start, end) of the module's bytes (a
 * constant expression: only ref.func names an index that hooks move). */
static wasm_status put_code(wasm_buf *b, const wasm_module *m, size_t start,
			    size_t end, const wasm_encode_hooks *h,
			    wasm_err *err)
{
	wasm_reader r;
	wasm_instr in;
	wasm_status st = WASM_OK;

	wasm_reader_init(&r, m->bytes, start, end);
	while (r.pos < r.end) {
		if ((st = wasm_reader_next(&r, &in, err)))
			break;
		if (wasm_op_info(in.op)->imm == WASM_IMM_FUNC)
			in.u.idx = map_func(h, in.u.idx);
		wasm_encode_instr(b, &in);
	}
	wasm_reader_fini(&r);
	return st;
}

static void put_name(wasm_buf *b, wasm_str s)
{
	wasm_buf_u32(b, s.len);
	wasm_buf_put(b, s.p, s.len);
}

static void put_limits(wasm_buf *b, const wasm_limits *l)
{
	wasm_buf_byte(b, (uint8_t)((l->has_max ? 1 : 0) | (l->shared ? 2 : 0)));
	wasm_buf_u32(b, l->min);
	if (l->has_max)
		wasm_buf_u32(b, l->max);
}

static void put_tabletype(wasm_buf *b, const wasm_tabletype *t)
{
	wasm_buf_byte(b, t->elem);
	put_limits(b, &t->lim);
}

/* Append section `id` whose payload is in `sec`, then empty `sec`. */
static void flush_section(wasm_buf *out, wasm_buf *sec, uint8_t id)
{
	wasm_buf_byte(out, id);
	wasm_buf_u32(out, (uint32_t)sec->len);
	wasm_buf_put(out, sec->data, sec->len);
	if (sec->oom)
		out->oom = true;
	sec->len = 0;
}

static wasm_status put_customs(wasm_buf *out, const wasm_module *m,
			       uint8_t after, const wasm_encode_hooks *h,
			       wasm_err *err)
{
	wasm_status st = WASM_OK;

	for (uint32_t i = 0; i < m->ncustoms && !st; i++) {
		const wasm_custom *c = &m->customs[i];
		wasm_buf tmp = {0};
		bool keep = true;
		if (c->after != after)
			continue;
		if (h && h->custom) {
			keep = false;
			st = h->custom(h->ctx, c, &tmp, &keep, err);
		} else {
			put_name(&tmp, c->name);
			wasm_buf_put(&tmp, m->bytes + c->start, c->len);
		}
		if (keep && !st)
			flush_section(out, &tmp, 0);
		wasm_buf_fini(&tmp);
	}
	return st;
}

/* Write the payload of known section `id` into sec; false if the module
 * has nothing for it. */
static wasm_status put_section(wasm_buf *s, const wasm_module *m, uint8_t id,
			       const wasm_encode_hooks *h, wasm_err *err)
{
	wasm_status st = WASM_OK;
	uint32_t ntypes = h ? h->nextra_types : 0;
	uint32_t nimports = h ? h->nextra_imports : 0;

	switch (id) {
	case 1:
		wasm_buf_u32(s, m->ntypes + ntypes);
		for (uint32_t i = 0; i < m->ntypes + ntypes; i++) {
			const wasm_functype *ft =
			    i < m->ntypes ? &m->types[i]
					  : &h->extra_types[i - m->ntypes];
			wasm_buf_byte(s, 0x60);
			wasm_buf_u32(s, ft->nparams);
			wasm_buf_put(s, ft->types, ft->nparams);
			wasm_buf_u32(s, ft->nresults);
			wasm_buf_put(s, ft->types + ft->nparams, ft->nresults);
		}
		break;
	case 2:
		wasm_buf_u32(s, m->nimports + nimports);
		for (uint32_t i = 0; i < m->nimports + nimports; i++) {
			const wasm_import *im =
			    i < m->nimports
				? &m->imports[i]
				: &h->extra_imports[i - m->nimports];
			put_name(s, im->module);
			put_name(s, im->name);
			wasm_buf_byte(s, (uint8_t)im->kind);
			switch (im->kind) {
			case WASM_EXTERN_FUNC:
				wasm_buf_u32(s, im->u.func_type);
				break;
			case WASM_EXTERN_TABLE:
				put_tabletype(s, &im->u.table);
				break;
			case WASM_EXTERN_MEMORY:
				put_limits(s, &im->u.memory);
				break;
			case WASM_EXTERN_GLOBAL:
				wasm_buf_byte(s, im->u.global.type);
				wasm_buf_byte(s, im->u.global.mut);
				break;
			case WASM_EXTERN_TAG:
				wasm_buf_byte(s, 0);
				wasm_buf_u32(s, im->u.tag_type);
				break;
			}
		}
		break;
	case 3:
		wasm_buf_u32(s, m->nfuncs);
		for (uint32_t i = 0; i < m->nfuncs; i++)
			wasm_buf_u32(s, m->funcs[i].type);
		break;
	case 4:
		wasm_buf_u32(s, m->ntables);
		for (uint32_t i = 0; i < m->ntables; i++)
			put_tabletype(s, &m->tables[i]);
		break;
	case 5:
		wasm_buf_u32(s, m->nmems);
		for (uint32_t i = 0; i < m->nmems; i++)
			put_limits(s, &m->mems[i]);
		break;
	case WASM_SECTION_TAG:
		wasm_buf_u32(s, m->ntags);
		for (uint32_t i = 0; i < m->ntags; i++) {
			wasm_buf_byte(s, 0);
			wasm_buf_u32(s, m->tags[i]);
		}
		break;
	case 6:
		wasm_buf_u32(s, m->nglobals);
		for (uint32_t i = 0; i < m->nglobals && !st; i++) {
			const wasm_global *g = &m->globals[i];
			wasm_buf_byte(s, g->type.type);
			wasm_buf_byte(s, g->type.mut);
			st = put_code(s, m, g->init.start, g->init.end, h, err);
		}
		break;
	case 7:
		wasm_buf_u32(s, m->nexports);
		for (uint32_t i = 0; i < m->nexports; i++) {
			const wasm_export *ex = &m->exports[i];
			uint32_t idx = ex->index;
			if (ex->kind == WASM_EXTERN_FUNC)
				idx = map_func(h, idx);
			else if (ex->kind == WASM_EXTERN_MEMORY)
				idx = map_mem(h, idx);
			put_name(s, ex->name);
			wasm_buf_byte(s, (uint8_t)ex->kind);
			wasm_buf_u32(s, idx);
		}
		break;
	case 8: wasm_buf_u32(s, map_func(h, m->start)); break;
	case 9:
		wasm_buf_u32(s, m->nelems);
		for (uint32_t i = 0; i < m->nelems && !st; i++) {
			const wasm_elem *e = &m->elems[i];
			wasm_buf_u32(s, e->flags);
			if (e->mode == WASM_SEG_ACTIVE) {
				if (e->flags & 2)
					wasm_buf_u32(s, e->table);
				st = put_code(s, m, e->offset.start,
					      e->offset.end, h, err);
			}
			if (e->flags & 3)
				wasm_buf_byte(s, (e->flags & 4) ? e->type : 0);
			wasm_buf_u32(s, e->count);
			for (uint32_t k = 0; k < e->count && !st; k++) {
				if (e->flags & 4)
					st = put_code(s, m, e->exprs[k].start,
						      e->exprs[k].end, h, err);
				else
					wasm_buf_u32(s,
						     map_func(h, e->funcs[k]));
			}
		}
		break;
	case 12: wasm_buf_u32(s, m->datacount); break;
	case 10: {
		wasm_buf body = {0};
		wasm_buf_u32(s, m->nfuncs);
		for (uint32_t i = 0; i < m->nfuncs && !st; i++) {
			const wasm_func *f = &m->funcs[i];
			body.len = 0;
			wasm_buf_u32(&body, f->ngroups);
			for (uint32_t k = 0; k < f->ngroups; k++) {
				wasm_buf_u32(&body, f->groups[k].count);
				wasm_buf_byte(&body, f->groups[k].type);
			}
			st = put_code(&body, m, f->code_start, f->code_end, h,
				      err);
			if (st)
				err->func = m->nfunc_imports + i;
			wasm_buf_u32(s, (uint32_t)body.len);
			wasm_buf_put(s, body.data, body.len);
			if (body.oom)
				s->oom = true;
		}
		wasm_buf_fini(&body);
		break;
	}
	case 11:
		wasm_buf_u32(s, m->ndatas);
		for (uint32_t i = 0; i < m->ndatas && !st; i++) {
			const wasm_data *ds = &m->datas[i];
			uint32_t mem = map_mem(h, ds->mem), flags = ds->flags;
			/* Flags 0 means memory 0: a moved memory needs the
			 * explicit form. */
			if (flags == 0 && mem != 0)
				flags = 2;
			wasm_buf_u32(s, flags);
			if (flags == 2)
				wasm_buf_u32(s, mem);
			if (ds->mode == WASM_SEG_ACTIVE)
				st = put_code(s, m, ds->offset.start,
					      ds->offset.end, h, err);
			wasm_buf_u32(s, ds->len);
			wasm_buf_put(s, m->bytes + ds->start, ds->len);
		}
		break;
	}
	return st;
}

wasm_status wasm_encode(const wasm_module *m, uint8_t **out, size_t *len,
			wasm_err *err)
{
	return wasm_encode_with(m, NULL, out, len, err);
}

wasm_status wasm_encode_with(const wasm_module *m, const wasm_encode_hooks *h,
			     uint8_t **out, size_t *len, wasm_err *err)
{
	/* Known sections in binary order (tag before global, datacount
	 * before code). */
	static const uint8_t order[] = {1, 2, 3,  4,  5, WASM_SECTION_TAG, 6, 7,
					8, 9, 12, 10, 11};
	wasm_buf b = {0}, sec = {0};
	wasm_status st = WASM_OK;

	*out = NULL;
	*len = 0;
	wasm_err_clear(err);
	if (h && h->size_hint)
		wasm_buf_reserve(&b, h->size_hint);
	wasm_buf_put(&b, "\0asm\1\0\0\0", 8);
	st = put_customs(&b, m, 0, h, err);
	for (size_t i = 0; i < sizeof order && !st; i++) {
		uint8_t id = order[i];
		bool done = false;
		bool extra = h && ((id == 1 && h->nextra_types) ||
				   (id == 2 && h->nextra_imports));
		if (!m->section_present[id] && !extra)
			continue;
		err->section = wasm_section_name(id);
		if (h && h->section)
			st = h->section(h->ctx, id, &sec, &done, err);
		if (!st && !done)
			st = put_section(&sec, m, id, h, err);
		if (st)
			break;
		flush_section(&b, &sec, id);
		if (h && h->after) {
			if ((st = h->after(h->ctx, id, &sec, err)))
				break;
			if (sec.len)
				flush_section(&b, &sec, 0);
		}
		st = put_customs(&b, m, id, h, err);
	}
	wasm_buf_fini(&sec);
	if (!st && b.oom)
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory encoding the module");
	if (st) {
		wasm_buf_fini(&b);
		return st;
	}
	err->section = NULL;
	*out = wasm_buf_take(&b, len);
	return WASM_OK;
}

/* ---- equality -------------------------------------------------------- */

#define DIFF(...)                                                              \
	do {                                                                   \
		if (cap)                                                       \
			snprintf(why, cap, __VA_ARGS__);                       \
		return false;                                                  \
	} while (0)

static bool str_eq(wasm_str a, wasm_str b)
{
	return a.len == b.len && (a.len == 0 || !memcmp(a.p, b.p, a.len));
}

static bool limits_eq(const wasm_limits *a, const wasm_limits *b)
{
	return a->min == b->min && a->has_max == b->has_max &&
	       (!a->has_max || a->max == b->max) && a->shared == b->shared;
}

/* Compare two instructions' meaning: opcode and immediates. */
static bool instr_eq(const wasm_instr *x, const wasm_instr *y)
{
	if (x->op != y->op)
		return false;
	switch ((wasm_imm)wasm_op_info(x->op)->imm) {
	case WASM_IMM_NONE:
	case WASM_IMM_FENCE: return true;
	case WASM_IMM_BLOCK:
		return x->u.block.kind == y->u.block.kind &&
		       x->u.block.val == y->u.block.val;
	case WASM_IMM_BR_TABLE:
		/* With no targets the reader may not have a label array. */
		return x->u.br_table.count == y->u.br_table.count &&
		       x->u.br_table.def == y->u.br_table.def &&
		       (!x->u.br_table.count ||
			!memcmp(x->u.br_table.labels, y->u.br_table.labels,
				x->u.br_table.count * sizeof(uint32_t)));
	case WASM_IMM_SELECT_T:
		return x->u.select.count == y->u.select.count &&
		       (!x->u.select.count ||
			!memcmp(x->u.select.types, y->u.select.types,
				x->u.select.count));
	case WASM_IMM_MEMARG:
	case WASM_IMM_MEMARG_LANE:
		return x->u.mem.m.align == y->u.mem.m.align &&
		       x->u.mem.m.mem == y->u.mem.m.mem &&
		       x->u.mem.m.offset == y->u.mem.m.offset &&
		       x->u.mem.lane == y->u.mem.lane;
	case WASM_IMM_CALL_INDIRECT:
	case WASM_IMM_MEMORY_INIT:
	case WASM_IMM_MEMORY_COPY:
	case WASM_IMM_TABLE_INIT:
	case WASM_IMM_TABLE_COPY:
		return x->u.idx2.a == y->u.idx2.a && x->u.idx2.b == y->u.idx2.b;
	case WASM_IMM_I32: return x->u.i32 == y->u.i32;
	case WASM_IMM_I64: return x->u.i64 == y->u.i64;
	case WASM_IMM_F32: return x->u.f32 == y->u.f32;
	case WASM_IMM_F64: return x->u.f64 == y->u.f64;
	case WASM_IMM_V128:
	case WASM_IMM_SHUFFLE: return !memcmp(x->u.v128, y->u.v128, 16);
	case WASM_IMM_LANE: return x->u.lanes[0] == y->u.lanes[0];
	case WASM_IMM_REFTYPE: return x->u.reftype == y->u.reftype;
	default: return x->u.idx == y->u.idx;
	}
}

/* Compare two instruction streams; where names the stream for the message. */
static bool code_eq(const wasm_module *a, size_t as, size_t ae,
		    const wasm_module *b, size_t bs, size_t be,
		    const char *where, char *why, size_t cap)
{
	wasm_reader ra, rb;
	wasm_instr x, y;
	wasm_err e;
	bool eq = true;

	wasm_reader_init(&ra, a->bytes, as, ae);
	wasm_reader_init(&rb, b->bytes, bs, be);
	for (uint32_t n = 0; eq; n++) {
		bool enda = ra.pos >= ra.end, endb = rb.pos >= rb.end;
		if (enda || endb) {
			if (enda != endb) {
				snprintf(why, cap,
					 "%s: lengths differ after %u "
					 "instructions",
					 where, n);
				eq = false;
			}
			break;
		}
		if (wasm_reader_next(&ra, &x, &e) ||
		    wasm_reader_next(&rb, &y, &e)) {
			snprintf(why, cap, "%s: instruction %u: %s", where, n,
				 e.msg);
			eq = false;
		} else if (!instr_eq(&x, &y)) {
			snprintf(
			    why, cap,
			    "%s: instruction %u differs (%s at 0x%zx vs %s "
			    "at 0x%zx)",
			    where, n, wasm_op_info(x.op)->name, x.offset,
			    wasm_op_info(y.op)->name, y.offset);
			eq = false;
		}
	}
	wasm_reader_fini(&ra);
	wasm_reader_fini(&rb);
	return eq;
}

#define EXPR_EQ(ea, eb, where)                                                 \
	code_eq(a, (ea).start, (ea).end, b, (eb).start, (eb).end, where, why,  \
		cap)

bool wasm_module_equal(const wasm_module *a, const wasm_module *b, char *why,
		       size_t cap)
{
	char where[64];

	if (cap)
		why[0] = '\0';
	if (a->ntypes != b->ntypes)
		DIFF("type count %u vs %u", a->ntypes, b->ntypes);
	for (uint32_t i = 0; i < a->ntypes; i++) {
		const wasm_functype *x = &a->types[i], *y = &b->types[i];
		if (x->nparams != y->nparams || x->nresults != y->nresults ||
		    memcmp(x->types, y->types, x->nparams + x->nresults))
			DIFF("type %u differs", i);
	}
	if (a->nimports != b->nimports)
		DIFF("import count %u vs %u", a->nimports, b->nimports);
	for (uint32_t i = 0; i < a->nimports; i++) {
		const wasm_import *x = &a->imports[i], *y = &b->imports[i];
		bool same = x->kind == y->kind &&
			    str_eq(x->module, y->module) &&
			    str_eq(x->name, y->name);
		if (same) {
			switch (x->kind) {
			case WASM_EXTERN_FUNC:
				same = x->u.func_type == y->u.func_type;
				break;
			case WASM_EXTERN_TABLE:
				same =
				    x->u.table.elem == y->u.table.elem &&
				    limits_eq(&x->u.table.lim, &y->u.table.lim);
				break;
			case WASM_EXTERN_MEMORY:
				same = limits_eq(&x->u.memory, &y->u.memory);
				break;
			case WASM_EXTERN_GLOBAL:
				same = x->u.global.type == y->u.global.type &&
				       x->u.global.mut == y->u.global.mut;
				break;
			case WASM_EXTERN_TAG:
				same = x->u.tag_type == y->u.tag_type;
				break;
			}
		}
		if (!same)
			DIFF("import %u differs", i);
	}
	if (a->nfuncs != b->nfuncs)
		DIFF("function count %u vs %u", a->nfuncs, b->nfuncs);
	for (uint32_t i = 0; i < a->nfuncs; i++) {
		const wasm_func *x = &a->funcs[i], *y = &b->funcs[i];
		if (x->type != y->type || x->ngroups != y->ngroups)
			DIFF("function %u: type or local groups differ", i);
		for (uint32_t k = 0; k < x->ngroups; k++)
			if (x->groups[k].count != y->groups[k].count ||
			    x->groups[k].type != y->groups[k].type)
				DIFF("function %u: local group %u differs", i,
				     k);
		snprintf(where, sizeof where, "function %u body",
			 a->nfunc_imports + i);
		if (!code_eq(a, x->code_start, x->code_end, b, y->code_start,
			     y->code_end, where, why, cap))
			return false;
	}
	if (a->ntables != b->ntables)
		DIFF("table count %u vs %u", a->ntables, b->ntables);
	for (uint32_t i = 0; i < a->ntables; i++)
		if (a->tables[i].elem != b->tables[i].elem ||
		    !limits_eq(&a->tables[i].lim, &b->tables[i].lim))
			DIFF("table %u differs", i);
	if (a->nmems != b->nmems)
		DIFF("memory count %u vs %u", a->nmems, b->nmems);
	for (uint32_t i = 0; i < a->nmems; i++)
		if (!limits_eq(&a->mems[i], &b->mems[i]))
			DIFF("memory %u differs", i);
	if (a->ntags != b->ntags)
		DIFF("tag count %u vs %u", a->ntags, b->ntags);
	for (uint32_t i = 0; i < a->ntags; i++)
		if (a->tags[i] != b->tags[i])
			DIFF("tag %u differs", i);
	if (a->nglobals != b->nglobals)
		DIFF("global count %u vs %u", a->nglobals, b->nglobals);
	for (uint32_t i = 0; i < a->nglobals; i++) {
		const wasm_global *x = &a->globals[i], *y = &b->globals[i];
		if (x->type.type != y->type.type || x->type.mut != y->type.mut)
			DIFF("global %u type differs", i);
		snprintf(where, sizeof where, "global %u init", i);
		if (!EXPR_EQ(x->init, y->init, where))
			return false;
	}
	if (a->nexports != b->nexports)
		DIFF("export count %u vs %u", a->nexports, b->nexports);
	for (uint32_t i = 0; i < a->nexports; i++)
		if (!str_eq(a->exports[i].name, b->exports[i].name) ||
		    a->exports[i].kind != b->exports[i].kind ||
		    a->exports[i].index != b->exports[i].index)
			DIFF("export %u differs", i);
	if (a->has_start != b->has_start ||
	    (a->has_start && a->start != b->start))
		DIFF("start function differs");
	if (a->nelems != b->nelems)
		DIFF("element segment count %u vs %u", a->nelems, b->nelems);
	for (uint32_t i = 0; i < a->nelems; i++) {
		const wasm_elem *x = &a->elems[i], *y = &b->elems[i];
		if (x->flags != y->flags || x->type != y->type ||
		    x->table != y->table || x->count != y->count)
			DIFF("element segment %u differs", i);
		snprintf(where, sizeof where, "element segment %u", i);
		if (x->mode == WASM_SEG_ACTIVE &&
		    !EXPR_EQ(x->offset, y->offset, where))
			return false;
		for (uint32_t k = 0; k < x->count; k++) {
			if (x->funcs && x->funcs[k] != y->funcs[k])
				DIFF("element segment %u item %u differs", i,
				     k);
			if (x->exprs &&
			    !EXPR_EQ(x->exprs[k], y->exprs[k], where))
				return false;
		}
	}
	if (a->has_datacount != b->has_datacount ||
	    a->datacount != b->datacount)
		DIFF("data count differs");
	if (a->ndatas != b->ndatas)
		DIFF("data segment count %u vs %u", a->ndatas, b->ndatas);
	for (uint32_t i = 0; i < a->ndatas; i++) {
		const wasm_data *x = &a->datas[i], *y = &b->datas[i];
		if (x->flags != y->flags || x->mem != y->mem ||
		    x->len != y->len ||
		    memcmp(a->bytes + x->start, b->bytes + y->start, x->len))
			DIFF("data segment %u differs", i);
		snprintf(where, sizeof where, "data segment %u", i);
		if (x->mode == WASM_SEG_ACTIVE &&
		    !EXPR_EQ(x->offset, y->offset, where))
			return false;
	}
	if (a->ncustoms != b->ncustoms)
		DIFF("custom section count %u vs %u", a->ncustoms, b->ncustoms);
	for (uint32_t i = 0; i < a->ncustoms; i++) {
		const wasm_custom *x = &a->customs[i], *y = &b->customs[i];
		if (!str_eq(x->name, y->name) || x->len != y->len ||
		    x->after != y->after ||
		    memcmp(a->bytes + x->start, b->bytes + y->start, x->len))
			DIFF("custom section %u (%.*s) differs", i,
			     (int)x->name.len, x->name.p);
	}
	return true;
}
