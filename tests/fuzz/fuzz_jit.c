/*
 * fuzz_jit.c - differential libFuzzer target: the compiler (core/jit.c)
 * against the interpreter it must agree with.
 *
 * How it works: a valid module without imports is compiled twice, once
 * interpreted and once compiled (eng_jit_enable), and each is
 * instantiated in a proc of its own. Then every exported function is
 * called, in export order, with arguments made from the input's last
 * bytes (the same on both sides). What must agree, call by call:
 *   - the outcome: a trap's kind and message (function and offset), or
 *     the results bit for bit;
 *   - afterwards, every memory's size and bytes and every global's
 *     value.
 * Instantiation (segments, the start function) must agree the same way.
 * Each proc has a 100 ms watchdog so that a loop ends; a call that times
 * out on either side ends the comparison (the two stop at different
 * points). The call depth is capped at 1000 so that compiled code's
 * native stack budget (ENG_JIT_STACK) never ends a recursion before the
 * interpreter's depth limit does.
 *
 * A disagreement prints both sides and calls __builtin_trap(), so that
 * libFuzzer keeps the input. Seeds: the module corpus (tests/fuzz/seeds,
 * built by make-corpus.sh) and the spec suite's modules.
 *
 * Limitations: modules with imports are skipped (nothing to link them
 * to); v128 results compare as their two slots.
 */
#include <stdio.h>
#include <string.h>

#include "core/engine.h"
#include "core/jit.h"
#include "core/wasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CALLS 16
#define MAX_SLOTS 64

typedef struct side {
	eng_module *cm;
	eng_proc *p;
	eng_thread *t;
	eng_instance *inst;
	eng_trap trap;
	bool ok;
} side;

static void side_free(side *s)
{
	if (s->p)
		eng_proc_free(s->p);
	eng_module_free(s->cm);
	memset(s, 0, sizeof *s);
}

static bool open_side(const uint8_t *data, size_t size, bool jit, side *s)
{
	eng_limits lim = {.max_memory_pages = 256,
			  .max_call_depth = 1000,
			  .stack_slots = 1u << 16,
			  .timeout_s = 0.1};
	wasm_module *m = NULL;
	wasm_err err;

	memset(s, 0, sizeof *s);
	wasm_err_clear(&err);
	if (wasm_decode(data, size, &m, &err) || wasm_validate(m, &err) ||
	    m->nimports) {
		wasm_module_free(m);
		return false;
	}
	eng_jit_enable(jit);
	if (eng_compile(m, &s->cm, &err))
		return false;
	/* Functions are compiled on their first call; for half the inputs
	 * (by their last byte) every function up front, so that the
	 * compiler also meets the functions no export reaches. */
	if (jit && (data[size - 1] & 1))
		eng_jit_compile_all(s->cm);
	if (!(s->p = eng_proc_new(&lim)) ||
	    !(s->t = eng_thread_new(s->p, &err))) {
		side_free(s);
		return false;
	}
	s->ok = eng_instantiate(s->cm, s->p, s->t, NULL, NULL, &s->inst,
				&s->trap, &err);
	return true;
}

static void differ(const char *what, const char *a, const char *b)
{
	fprintf(stderr,
		"fuzz_jit: %s differs\n  interpreted: %s\n  compiled:    %s\n",
		what, a, b);
	__builtin_trap();
}

static void same_trap(const char *what, const eng_trap *a, const eng_trap *b)
{
	if (a->kind != b->kind || strcmp(a->msg, b->msg))
		differ(what, a->msg[0] ? a->msg : eng_trap_name(a->kind),
		       b->msg[0] ? b->msg : eng_trap_name(b->kind));
}

/* Memories and globals of both instances. */
static void same_state(side *a, side *b, const char *after)
{
	const wasm_module *m = eng_module_wasm(a->cm);
	char x[64], y[64];

	for (uint32_t i = 0; i < m->nmems; i++) {
		eng_memory *ma = eng_instance_memory(a->inst, i);
		eng_memory *mb = eng_instance_memory(b->inst, i);
		uint64_t na = eng_memory_size(ma), nb = eng_memory_size(mb);
		if (na != nb) {
			snprintf(x, sizeof x, "%llu bytes",
				 (unsigned long long)na);
			snprintf(y, sizeof y, "%llu bytes",
				 (unsigned long long)nb);
			differ(after, x, y);
		}
		for (uint64_t k = 0; k < na; k++)
			if (eng_memory_data(ma)[k] != eng_memory_data(mb)[k]) {
				snprintf(x, sizeof x,
					 "memory %u byte %llu = %u", i,
					 (unsigned long long)k,
					 eng_memory_data(ma)[k]);
				snprintf(y, sizeof y,
					 "memory %u byte %llu = %u", i,
					 (unsigned long long)k,
					 eng_memory_data(mb)[k]);
				differ(after, x, y);
			}
	}
	for (uint32_t i = 0; i < m->nexports; i++) {
		const wasm_export *ex = &m->exports[i];
		eng_extern ea, eb;
		eng_val va[2] = {0}, vb[2] = {0};
		if (ex->kind != WASM_EXTERN_GLOBAL ||
		    !eng_instance_export_n(a->inst, (const char *)ex->name.p,
					   ex->name.len, &ea) ||
		    !eng_instance_export_n(b->inst, (const char *)ex->name.p,
					   ex->name.len, &eb))
			continue;
		eng_global_get(ea.u.global, va);
		eng_global_get(eb.u.global, vb);
		if (eng_global_type(ea.u.global).type == WASM_FUNCREF ||
		    eng_global_type(ea.u.global).type == WASM_EXTERNREF)
			continue; /* addresses of each side's own objects */
		if (memcmp(va, vb, sizeof va)) {
			snprintf(x, sizeof x, "global %u = %016llx", i,
				 (unsigned long long)va[0]);
			snprintf(y, sizeof y, "global %u = %016llx", i,
				 (unsigned long long)vb[0]);
			differ(after, x, y);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	side a, b;
	const wasm_module *m;
	uint32_t calls = 0;

	if (!open_side(data, size, false, &a))
		return 0;
	if (!open_side(data, size, true, &b)) {
		side_free(&a);
		return 0;
	}
	if (a.ok != b.ok)
		differ("instantiation", a.ok ? "ok" : a.trap.msg,
		       b.ok ? "ok" : b.trap.msg);
	if (!a.ok) {
		if (a.trap.kind != ENG_TIMEOUT && b.trap.kind != ENG_TIMEOUT)
			same_trap("the start function", &a.trap, &b.trap);
		goto out;
	}
	same_state(&a, &b, "state after instantiation");
	m = eng_module_wasm(a.cm);
	for (uint32_t i = 0; i < m->nexports && calls < MAX_CALLS; i++) {
		const wasm_export *ex = &m->exports[i];
		eng_val args[MAX_SLOTS] = {0}, ra[MAX_SLOTS] = {0},
			rb[MAX_SLOTS] = {0};
		eng_extern fa, fb;
		const wasm_functype *ft;
		eng_trap ta, tb;
		uint32_t np, nr;
		char what[96];

		if (ex->kind != WASM_EXTERN_FUNC ||
		    !eng_instance_export_n(a.inst, (const char *)ex->name.p,
					   ex->name.len, &fa) ||
		    !eng_instance_export_n(b.inst, (const char *)ex->name.p,
					   ex->name.len, &fb))
			continue;
		ft = eng_func_type(fa.u.func);
		np = eng_slots(ft->types, ft->nparams);
		nr = eng_slots(ft->types + ft->nparams, ft->nresults);
		if (np > MAX_SLOTS || nr > MAX_SLOTS)
			continue;
		/* Arguments from the input's tail: the same bytes on both
		 * sides; references stay null. */
		for (uint32_t k = 0, s = 0; k < ft->nparams; k++) {
			uint8_t t = ft->types[k];
			uint32_t w = eng_type_slots(t);
			for (uint32_t h = 0; h < w; h++, s++) {
				uint64_t v = 0;
				for (int byte = 0; byte < 8 && size; byte++)
					v = v << 8 |
					    data[(size - 1 -
						  (s * 8 + (uint32_t)byte) %
						      size)];
				if (t != WASM_FUNCREF && t != WASM_EXTERNREF)
					args[s] = t == WASM_I32 || t == WASM_F32
						      ? (uint32_t)v
						      : v;
			}
		}
		calls++;
		eng_call(a.t, fa.u.func, args, ra, &ta);
		eng_call(b.t, fb.u.func, args, rb, &tb);
		snprintf(what, sizeof what, "call %u of export %u", calls, i);
		if (ta.kind == ENG_TIMEOUT || tb.kind == ENG_TIMEOUT)
			break;
		same_trap(what, &ta, &tb);
		if (ta.kind == ENG_OK) {
			for (uint32_t k = 0, s = 0; k < ft->nresults; k++) {
				uint8_t t = ft->types[ft->nparams + k];
				uint32_t w = eng_type_slots(t);
				if (t != WASM_FUNCREF && t != WASM_EXTERNREF &&
				    memcmp(ra + s, rb + s, w * sizeof *ra)) {
					char x[64], y[64];
					snprintf(x, sizeof x,
						 "result %u = %016llx", k,
						 (unsigned long long)ra[s]);
					snprintf(y, sizeof y,
						 "result %u = %016llx", k,
						 (unsigned long long)rb[s]);
					differ(what, x, y);
				}
				s += w;
			}
		}
		same_state(&a, &b, what);
		if (ta.kind != ENG_OK)
			break; /* a trap may leave a proc stopped */
	}
out:
	side_free(&a);
	side_free(&b);
	return 0;
}
