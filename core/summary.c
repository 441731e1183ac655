/*
 * summary.c - counts for `heisen inspect`: instructions and memory
 * accesses per memory, and which debug information a module carries.
 */
#include "wasm.h"

#include <string.h>

static void count_access(wasm_summary *s, const wasm_instr *in)
{
	const wasm_opinfo *oi = wasm_op_info(in->op);
	uint32_t mem;

	if (!(oi->flags & (WASM_F_LOAD | WASM_F_STORE | WASM_F_RANGE_WRITE)))
		return;
	s->accesses++;
	if (oi->flags & WASM_F_ATOMIC)
		s->atomics++;
	switch ((wasm_imm)oi->imm) {
	case WASM_IMM_MEMARG:
	case WASM_IMM_MEMARG_LANE: mem = in->u.mem.m.mem; break;
	case WASM_IMM_MEM: mem = in->u.idx; break;
	case WASM_IMM_MEMORY_INIT: mem = in->u.idx2.b; break;
	case WASM_IMM_MEMORY_COPY:
		mem = in->u.idx2.a;
		if (in->u.idx2.b != mem && in->u.idx2.b < s->nmems)
			s->per_mem[in->u.idx2.b]++;
		break;
	default: return;
	}
	if (mem < s->nmems)
		s->per_mem[mem]++;
}

wasm_status wasm_summarize(const wasm_module *m, wasm_summary *s, wasm_err *err)
{
	wasm_reader r;
	wasm_instr in;
	wasm_status st = WASM_OK;

	memset(s, 0, sizeof *s);
	s->nmems = wasm_mem_count(m);
	s->per_mem = wasm_calloc(s->nmems ? s->nmems : 1, sizeof *s->per_mem);
	if (!s->per_mem)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	for (uint32_t i = 0; i < m->ncustoms; i++) {
		const wasm_str *n = &m->customs[i].name;
		if (n->len > 7 && !memcmp(n->p, ".debug_", 7))
			s->has_dwarf = true;
		if (n->len == 11 && !memcmp(n->p, ".debug_line", 11))
			s->has_debug_line = true;
	}
	for (uint32_t f = 0; f < m->nfuncs && !st; f++) {
		wasm_reader_init(&r, m->bytes, m->funcs[f].code_start,
				 m->funcs[f].code_end);
		while (r.pos < r.end) {
			if ((st = wasm_reader_next(&r, &in, err))) {
				err->section = "code";
				err->func = m->nfunc_imports + f;
				break;
			}
			s->instrs++;
			count_access(s, &in);
		}
		wasm_reader_fini(&r);
	}
	if (st)
		wasm_summary_fini(s);
	return st;
}

void wasm_summary_fini(wasm_summary *s)
{
	wasm_free(s->per_mem);
	s->per_mem = NULL;
}
