/*
 * test_engine.c - the engine end to end: traps with function and offset,
 * guard-page faults, call-stack exhaustion, memory.grow limits, host
 * functions, import errors, atomics on real threads, wait/notify
 * ping-pong, a real data race, stopping and timing out a proc.
 *
 * The test module is embedded as bytes generated once by
 * `wat2wasm --enable-threads --debug-names` from this source:
 *
 * (module
 *   (import "env" "memory" (memory 1 10 shared))
 *   (import "env" "host_add" (func $host_add (param i32 i32) (result i32)))
 *   (type $ii (func (param i32) (result i32)))
 *   (table 2 funcref)
 *   (elem (i32.const 0) $inc)
 *   (func $inc (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
 *   (func $div (export "div") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))
 *   (func (export "unreachable") (unreachable))
 *   (func $load (export "load") (param i32) (result i32) (i32.load offset=4 (local.get 0)))
 *   (func (export "call_ind") (param i32 i32) (result i32)
 *     (call_indirect (type $ii) (local.get 1) (local.get 0)))
 *   (func (export "call_ind_bad") (result i32)
 *     (call_indirect (param i64) (result i32) (i64.const 1) (i32.const 0)))
 *   (func $rec (export "recurse") (param i32) (result i32)
 *     (call $rec (i32.add (local.get 0) (i32.const 1))))
 *   (func (export "fib") (param i32) (result i32)
 *     (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
 *       (then (local.get 0))
 *       (else (i32.add (call 8 (i32.sub (local.get 0) (i32.const 1)))
 *                      (call 8 (i32.sub (local.get 0) (i32.const 2)))))))
 *   (func (export "host") (param i32) (result i32)
 *     (call $host_add (local.get 0) (i32.const 100)))
 *   (func (export "atomic_add") (param $n i32)
 *     (loop $l
 *       (drop (i32.atomic.rmw.add (i32.const 8) (i32.const 1)))
 *       (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
 *   (func (export "plain_add") (param $n i32)
 *     (loop $l
 *       (i32.store (i32.const 12) (i32.add (i32.load (i32.const 12)) (i32.const 1)))
 *       (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
 *   (func (export "pingpong") (param $me i32) (param $n i32)
 *     (local $other i32)
 *     (local.set $other (i32.xor (local.get $me) (i32.const 1)))
 *     (block $done
 *       (loop $outer
 *         (br_if $done (i32.eqz (local.get $n)))
 *         (block $ready
 *           (loop $w
 *             (br_if $ready (i32.eq (i32.atomic.load (i32.const 0)) (local.get $me)))
 *             (drop (memory.atomic.wait32 (i32.const 0) (local.get $other) (i64.const -1)))
 *             (br $w)))
 *         (drop (i32.atomic.rmw.add (i32.const 4) (i32.const 1)))
 *         (i32.atomic.store (i32.const 0) (local.get $other))
 *         (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
 *         (local.set $n (i32.sub (local.get $n) (i32.const 1)))
 *         (br $outer))))
 *   (func (export "spin") (loop $l (br $l)))
 *   (func (export "wait_forever") (result i32)
 *     (memory.atomic.wait32 (i32.const 16) (i32.const 0) (i64.const -1)))
 *   (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
 *   (func (export "size") (result i32) (memory.size))
 *   (func (export "unaligned") (result i32) (i32.atomic.load (i32.const 1)))
 * )
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "core/engine.h"
#include "core/engine_int.h"
#include "core/jit.h"
#include "core/simd.h"
#include "modbuild.h"

static const uint8_t mod_bytes[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x21, 0x07, 0x60,
	0x01, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x00,
	0x00, 0x60, 0x00, 0x01, 0x7f, 0x60, 0x01, 0x7e, 0x01, 0x7f, 0x60, 0x01,
	0x7f, 0x00, 0x60, 0x02, 0x7f, 0x7f, 0x00, 0x02, 0x1f, 0x02, 0x03, 0x65,
	0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03, 0x01,
	0x0a, 0x03, 0x65, 0x6e, 0x76, 0x08, 0x68, 0x6f, 0x73, 0x74, 0x5f, 0x61,
	0x64, 0x64, 0x00, 0x01, 0x03, 0x12, 0x11, 0x00, 0x01, 0x02, 0x00, 0x01,
	0x03, 0x00, 0x00, 0x00, 0x05, 0x05, 0x06, 0x02, 0x03, 0x00, 0x03, 0x03,
	0x04, 0x04, 0x01, 0x70, 0x00, 0x02, 0x07, 0xa1, 0x01, 0x10, 0x03, 0x64,
	0x69, 0x76, 0x00, 0x02, 0x0b, 0x75, 0x6e, 0x72, 0x65, 0x61, 0x63, 0x68,
	0x61, 0x62, 0x6c, 0x65, 0x00, 0x03, 0x04, 0x6c, 0x6f, 0x61, 0x64, 0x00,
	0x04, 0x08, 0x63, 0x61, 0x6c, 0x6c, 0x5f, 0x69, 0x6e, 0x64, 0x00, 0x05,
	0x0c, 0x63, 0x61, 0x6c, 0x6c, 0x5f, 0x69, 0x6e, 0x64, 0x5f, 0x62, 0x61,
	0x64, 0x00, 0x06, 0x07, 0x72, 0x65, 0x63, 0x75, 0x72, 0x73, 0x65, 0x00,
	0x07, 0x03, 0x66, 0x69, 0x62, 0x00, 0x08, 0x04, 0x68, 0x6f, 0x73, 0x74,
	0x00, 0x09, 0x0a, 0x61, 0x74, 0x6f, 0x6d, 0x69, 0x63, 0x5f, 0x61, 0x64,
	0x64, 0x00, 0x0a, 0x09, 0x70, 0x6c, 0x61, 0x69, 0x6e, 0x5f, 0x61, 0x64,
	0x64, 0x00, 0x0b, 0x08, 0x70, 0x69, 0x6e, 0x67, 0x70, 0x6f, 0x6e, 0x67,
	0x00, 0x0c, 0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x0d, 0x0c, 0x77, 0x61,
	0x69, 0x74, 0x5f, 0x66, 0x6f, 0x72, 0x65, 0x76, 0x65, 0x72, 0x00, 0x0e,
	0x04, 0x67, 0x72, 0x6f, 0x77, 0x00, 0x0f, 0x04, 0x73, 0x69, 0x7a, 0x65,
	0x00, 0x10, 0x09, 0x75, 0x6e, 0x61, 0x6c, 0x69, 0x67, 0x6e, 0x65, 0x64,
	0x00, 0x11, 0x09, 0x07, 0x01, 0x00, 0x41, 0x00, 0x0b, 0x01, 0x01, 0x0a,
	0x98, 0x02, 0x11, 0x07, 0x00, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x0b, 0x07,
	0x00, 0x20, 0x00, 0x20, 0x01, 0x6d, 0x0b, 0x03, 0x00, 0x00, 0x0b, 0x07,
	0x00, 0x20, 0x00, 0x28, 0x02, 0x04, 0x0b, 0x09, 0x00, 0x20, 0x01, 0x20,
	0x00, 0x11, 0x00, 0x00, 0x0b, 0x09, 0x00, 0x42, 0x01, 0x41, 0x00, 0x11,
	0x04, 0x00, 0x0b, 0x09, 0x00, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x10, 0x07,
	0x0b, 0x1c, 0x00, 0x20, 0x00, 0x41, 0x02, 0x49, 0x04, 0x7f, 0x20, 0x00,
	0x05, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x08, 0x20, 0x00, 0x41, 0x02,
	0x6b, 0x10, 0x08, 0x6a, 0x0b, 0x0b, 0x09, 0x00, 0x20, 0x00, 0x41, 0xe4,
	0x00, 0x10, 0x00, 0x0b, 0x17, 0x00, 0x03, 0x40, 0x41, 0x08, 0x41, 0x01,
	0xfe, 0x1e, 0x02, 0x00, 0x1a, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00,
	0x0d, 0x00, 0x0b, 0x0b, 0x1b, 0x00, 0x03, 0x40, 0x41, 0x0c, 0x41, 0x0c,
	0x28, 0x02, 0x00, 0x41, 0x01, 0x6a, 0x36, 0x02, 0x00, 0x20, 0x00, 0x41,
	0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x0b, 0x57, 0x01, 0x01, 0x7f,
	0x20, 0x00, 0x41, 0x01, 0x73, 0x21, 0x02, 0x02, 0x40, 0x03, 0x40, 0x20,
	0x01, 0x45, 0x0d, 0x01, 0x02, 0x40, 0x03, 0x40, 0x41, 0x00, 0xfe, 0x10,
	0x02, 0x00, 0x20, 0x00, 0x46, 0x0d, 0x01, 0x41, 0x00, 0x20, 0x02, 0x42,
	0x7f, 0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b, 0x41, 0x04,
	0x41, 0x01, 0xfe, 0x1e, 0x02, 0x00, 0x1a, 0x41, 0x00, 0x20, 0x02, 0xfe,
	0x17, 0x02, 0x00, 0x41, 0x00, 0x41, 0x01, 0xfe, 0x00, 0x02, 0x00, 0x1a,
	0x20, 0x01, 0x41, 0x01, 0x6b, 0x21, 0x01, 0x0c, 0x00, 0x0b, 0x0b, 0x0b,
	0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, 0x0c, 0x00, 0x41, 0x10,
	0x41, 0x00, 0x42, 0x7f, 0xfe, 0x01, 0x02, 0x00, 0x0b, 0x06, 0x00, 0x20,
	0x00, 0x40, 0x00, 0x0b, 0x04, 0x00, 0x3f, 0x00, 0x0b, 0x08, 0x00, 0x41,
	0x01, 0xfe, 0x10, 0x02, 0x00, 0x0b, 0x00, 0x69, 0x04, 0x6e, 0x61, 0x6d,
	0x65, 0x01, 0x20, 0x05, 0x00, 0x08, 0x68, 0x6f, 0x73, 0x74, 0x5f, 0x61,
	0x64, 0x64, 0x01, 0x03, 0x69, 0x6e, 0x63, 0x02, 0x03, 0x64, 0x69, 0x76,
	0x04, 0x04, 0x6c, 0x6f, 0x61, 0x64, 0x07, 0x03, 0x72, 0x65, 0x63, 0x02,
	0x39, 0x12, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00,
	0x05, 0x00, 0x06, 0x00, 0x07, 0x00, 0x08, 0x00, 0x09, 0x00, 0x0a, 0x01,
	0x00, 0x01, 0x6e, 0x0b, 0x01, 0x00, 0x01, 0x6e, 0x0c, 0x03, 0x00, 0x02,
	0x6d, 0x65, 0x01, 0x01, 0x6e, 0x02, 0x05, 0x6f, 0x74, 0x68, 0x65, 0x72,
	0x0d, 0x00, 0x0e, 0x00, 0x0f, 0x00, 0x10, 0x00, 0x11, 0x00, 0x04, 0x05,
	0x01, 0x00, 0x02, 0x69, 0x69
};

/* ---- helpers ----------------------------------------------------------- */

typedef struct env {
	eng_memory *mem;
	eng_func *host_add;
	bool omit_host; /* resolve env.host_add as unknown */
	bool bad_host;  /* resolve env.host_add with a wrong type */
} env;

static eng_trap_kind host_add(eng_thread *t, void *ctx, const eng_val *a,
			      eng_val *r, eng_trap *trap)
{
	(void)ctx;
	assert_non_null(eng_thread_instance(t));
	if ((uint32_t)a[0] == 666) {
		snprintf(trap->msg, sizeof trap->msg, "host says no");
		return ENG_TRAP_HOST;
	}
	r[0] = (uint32_t)(a[0] + a[1]);
	return ENG_OK;
}

static bool resolve(void *ctx, const wasm_import *imp, eng_extern *out)
{
	env *e = ctx;
	if (imp->kind == WASM_EXTERN_MEMORY) {
		out->kind = WASM_EXTERN_MEMORY;
		out->u.memory = e->mem;
		return true;
	}
	if (e->omit_host)
		return false;
	out->kind = WASM_EXTERN_FUNC;
	out->u.func = e->host_add;
	return true;
}

static eng_module *compile_mod(void)
{
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	wasm_err err;

	assert_int_equal(wasm_decode(mod_bytes, sizeof mod_bytes, &m, &err),
			 WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	return cm;
}

/* A proc with the shared memory and the host function set up. */
static eng_proc *proc_env(const eng_limits *lim, env *e)
{
	eng_proc *p = eng_proc_new(lim);
	wasm_limits l = {.min = 1, .max = 10, .has_max = true, .shared = true};
	uint8_t ty[3] = {0x7f, 0x7f, 0x7f};
	wasm_functype ft = {2, 1, ty};
	wasm_err err;

	assert_non_null(p);
	memset(e, 0, sizeof *e);
	e->mem = eng_memory_new(p, &l, &err);
	assert_non_null(e->mem);
	e->host_add = eng_host_func_new(p, &ft, host_add, NULL, "host_add");
	assert_non_null(e->host_add);
	return p;
}

static eng_instance *instance(eng_module *cm, eng_proc *p, eng_thread *t,
			      env *e)
{
	eng_instance *in = NULL;
	eng_trap tr;
	wasm_err err;
	bool ok = eng_instantiate(cm, p, t, resolve, e, &in, &tr, &err);
	if (!ok)
		fail_msg("instantiate: %s / %s", err.msg, tr.msg);
	return in;
}

static eng_func *fn(eng_instance *in, const char *name)
{
	eng_extern ex;
	assert_true(eng_instance_export(in, name, &ex));
	assert_int_equal(ex.kind, WASM_EXTERN_FUNC);
	return ex.u.func;
}

static eng_trap_kind call1(eng_thread *t, eng_instance *in, const char *name,
			   eng_val a, eng_val b, eng_val *r, eng_trap *tr)
{
	eng_val args[2] = {a, b};
	eng_val res[2] = {0, 0};
	eng_trap_kind k = eng_call(t, fn(in, name), args, res, tr);
	if (r)
		*r = res[0];
	return k;
}

typedef struct fixture {
	eng_module *cm;
	eng_proc *p;
	eng_thread *t;
	eng_instance *in;
	env e;
} fixture;

static void fx_open(fixture *f, const eng_limits *lim)
{
	wasm_err err;
	f->cm = compile_mod();
	f->p = proc_env(lim, &f->e);
	f->t = eng_thread_new(f->p, &err);
	assert_non_null(f->t);
	f->in = instance(f->cm, f->p, f->t, &f->e);
}

static void fx_close(fixture *f)
{
	eng_proc_free(f->p);
	eng_module_free(f->cm);
}

/* ---- single-threaded behaviour ----------------------------------------- */

static void runs_fib_and_host_calls(void **state)
{
	eng_exec_stats es;
	fixture f;
	eng_val r;
	eng_trap tr;
	(void)state;

	fx_open(&f, NULL);
	/* With the compiler on, a function is compiled on its first call:
	 * none before. */
	eng_module_exec_stats(f.cm, &es);
	if (eng_jit_wanted()) {
		assert_int_equal(es.compiled, 0);
		assert_true(es.uncalled >= 8);
		assert_int_equal(es.interpreted, 0);
	} else {
		assert_int_equal(es.compiled, 0);
		assert_int_equal(es.uncalled, 0);
	}
	assert_int_equal(call1(f.t, f.in, "fib", 20, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 6765);
	assert_int_equal(call1(f.t, f.in, "host", 5, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 105);
	assert_int_equal(call1(f.t, f.in, "call_ind", 0, 41, &r, &tr), ENG_OK);
	assert_int_equal(r, 42);
	assert_int_equal(call1(f.t, f.in, "host", 666, 0, &r, &tr),
			 ENG_TRAP_HOST);
	assert_string_equal(tr.msg, "host says no");
	/* The thread is usable again after a trap. */
	assert_int_equal(call1(f.t, f.in, "fib", 10, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 55);
	/* What was called is compiled; the rest waits, until everything
	 * is compiled at once, the atomics and wait/notify included. */
	eng_module_exec_stats(f.cm, &es);
	if (eng_jit_wanted()) {
		uint32_t all = es.compiled + es.uncalled;
		assert_true(es.compiled >= 3);
		assert_true(es.uncalled >= 1);
		assert_true(es.code_bytes > 0);
		eng_jit_compile_all(f.cm);
		eng_module_exec_stats(f.cm, &es);
		assert_int_equal(es.compiled, all);
		assert_int_equal(es.uncalled, 0);
		assert_int_equal(es.interpreted, 0);
		assert_int_equal(call1(f.t, f.in, "div", -7, 2, &r, &tr),
				 ENG_OK);
		assert_int_equal((int32_t)r, -3);
	}
	fx_close(&f);
}

static void traps_name_function_and_offset(void **state)
{
	fixture f;
	eng_val r;
	eng_trap tr;
	(void)state;

	fx_open(&f, NULL);
	assert_int_equal(call1(f.t, f.in, "div", 1, 0, &r, &tr),
			 ENG_TRAP_DIV_ZERO);
	assert_int_equal(tr.func, 2);
	assert_true(tr.offset != WASM_NO_OFFSET && tr.offset < sizeof mod_bytes);
	assert_int_equal(mod_bytes[tr.offset], 0x6d); /* i32.div_s */
	assert_non_null(strstr(tr.msg, "integer divide by zero in function 2 "
					"'div' at offset 0x"));
	assert_int_equal(call1(f.t, f.in, "div", 0x80000000u, -1, &r, &tr),
			 ENG_TRAP_INT_OVERFLOW);
	assert_string_equal(eng_trap_name(tr.kind), "integer overflow");
	assert_int_equal(call1(f.t, f.in, "unreachable", 0, 0, &r, &tr),
			 ENG_TRAP_UNREACHABLE);
	assert_int_equal(mod_bytes[tr.offset], 0x00);
	assert_int_equal(call1(f.t, f.in, "call_ind", 1, 1, &r, &tr),
			 ENG_TRAP_UNINIT_ELEM);
	assert_int_equal(call1(f.t, f.in, "call_ind", 7, 1, &r, &tr),
			 ENG_TRAP_UNDEFINED_ELEM);
	assert_int_equal(call1(f.t, f.in, "call_ind_bad", 0, 0, &r, &tr),
			 ENG_TRAP_INDIRECT_TYPE);
	assert_int_equal(call1(f.t, f.in, "unaligned", 0, 0, &r, &tr),
			 ENG_TRAP_UNALIGNED);
	fx_close(&f);
}

static void guard_page_fault_is_a_trap(void **state)
{
	fixture f;
	eng_val r;
	eng_trap tr;
	(void)state;

	fx_open(&f, NULL);
	assert_int_equal(call1(f.t, f.in, "load", 65532, 0, &r, &tr),
			 ENG_TRAP_MEMORY_OOB);
	assert_int_equal(tr.func, 4);
	assert_int_equal(mod_bytes[tr.offset], 0x28); /* i32.load */
	assert_non_null(strstr(tr.msg, "out of bounds memory access in "
					"function 4 'load'"));
	/* Highest address + offset: still inside the reservation. */
	assert_int_equal(call1(f.t, f.in, "load", 0xffffffffu, 0, &r, &tr),
			 ENG_TRAP_MEMORY_OOB);
	assert_int_equal(call1(f.t, f.in, "load", 65528, 0, &r, &tr), ENG_OK);
	/* After a grow the same address works. */
	assert_int_equal(call1(f.t, f.in, "grow", 1, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 1);
	assert_int_equal(call1(f.t, f.in, "load", 65532, 0, &r, &tr), ENG_OK);
	fx_close(&f);
}

static void infinite_recursion_exhausts_the_stack(void **state)
{
	fixture f;
	eng_val r;
	eng_trap tr;
	eng_limits lim = {.max_call_depth = 5000};
	(void)state;

	fx_open(&f, &lim);
	assert_int_equal(call1(f.t, f.in, "recurse", 0, 0, &r, &tr),
			 ENG_TRAP_STACK);
	assert_string_equal(eng_trap_name(tr.kind), "call stack exhausted");
	assert_int_equal(tr.func, 7);
	/* A small value stack runs out before the depth limit. */
	fx_close(&f);
	lim.max_call_depth = 0;
	lim.stack_slots = 1000;
	fx_open(&f, &lim);
	assert_int_equal(call1(f.t, f.in, "recurse", 0, 0, &r, &tr),
			 ENG_TRAP_STACK);
	assert_int_equal(call1(f.t, f.in, "fib", 15, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 610);
	fx_close(&f);
}

/* Recursion through function pointers:
 * (module
 *   (type $v (func (param i32) (result i32)))
 *   (table 2 funcref)
 *   (elem (i32.const 0) $a $b)
 *   (func $a (type $v)
 *     (if (result i32) (i32.eqz (local.get 0))
 *       (then (i32.const 0))
 *       (else (i32.add (i32.const 1)
 *         (call_indirect (type $v) (i32.sub (local.get 0) (i32.const 1))
 *                        (i32.const 1))))))
 *   (func $b (type $v) ... the same, calling element 0)
 *   (export "down" (func $a)))
 */
static const uint8_t down_bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x03, 0x03, 0x02, 0x00, 0x00, 0x04, 0x04, 0x01,
    0x70, 0x00, 0x02, 0x07, 0x08, 0x01, 0x04, 0x64, 0x6f, 0x77, 0x6e, 0x00,
    0x00, 0x09, 0x08, 0x01, 0x00, 0x41, 0x00, 0x0b, 0x02, 0x00, 0x01, 0x0a,
    0x33, 0x02, 0x18, 0x00, 0x20, 0x00, 0x45, 0x04, 0x7f, 0x41, 0x00, 0x05,
    0x41, 0x01, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x41, 0x01, 0x11, 0x00, 0x00,
    0x6a, 0x0b, 0x0b, 0x18, 0x00, 0x20, 0x00, 0x45, 0x04, 0x7f, 0x41, 0x00,
    0x05, 0x41, 0x01, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x41, 0x00, 0x11, 0x00,
    0x00, 0x6a, 0x0b, 0x0b};

/* Compiled, a call_indirect to a compiled function is a native call (16
 * bytes of native stack): 9000 levels run, as interpreted, and the depth
 * limit (10 000) traps in the same function both ways. Through jit_call's
 * C frames the native stack's budget ran out near 1000. */
static void indirect_recursion_reaches_the_depth_limit(void **state)
{
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	eng_instance *in = NULL;
	eng_proc *p;
	eng_thread *t;
	eng_val r;
	eng_trap tr;
	wasm_err err;
	(void)state;

	assert_int_equal(wasm_decode(down_bytes, sizeof down_bytes, &m, &err),
			 WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	assert_non_null(p = eng_proc_new(NULL));
	assert_non_null(t = eng_thread_new(p, &err));
	assert_true(eng_instantiate(cm, p, t, NULL, NULL, &in, &tr, &err));
	assert_int_equal(call1(t, in, "down", 9000, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 9000);
	assert_int_equal(call1(t, in, "down", 20000, 0, &r, &tr),
			 ENG_TRAP_STACK);
	/* 10 000 frames: the entry's and 9999 calls, the last from $b. */
	assert_int_equal(tr.func, 1);
	assert_int_equal(call1(t, in, "down", 5, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 5);
	eng_proc_free(p);
	eng_module_free(cm);
}

static void memory_grow_stops_at_the_limit(void **state)
{
	fixture f;
	eng_val r;
	eng_trap tr;
	eng_limits lim = {.max_memory_pages = 4};
	(void)state;

	fx_open(&f, &lim);
	assert_int_equal(call1(f.t, f.in, "grow", 2, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 1);
	assert_int_equal(call1(f.t, f.in, "grow", 2, 0, &r, &tr), ENG_OK);
	assert_int_equal((uint32_t)r, 0xffffffffu);
	assert_int_equal(call1(f.t, f.in, "grow", 1, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 3);
	assert_int_equal(call1(f.t, f.in, "grow", 1, 0, &r, &tr), ENG_OK);
	assert_int_equal((uint32_t)r, 0xffffffffu);
	assert_int_equal(call1(f.t, f.in, "size", 0, 0, &r, &tr), ENG_OK);
	assert_int_equal(r, 4);
	assert_int_equal(eng_memory_size(f.e.mem), 4 * 65536);
	fx_close(&f);
}

static void import_errors_are_actionable(void **state)
{
	eng_module *cm = compile_mod();
	env e;
	eng_proc *p = proc_env(NULL, &e);
	wasm_err err;
	eng_thread *t = eng_thread_new(p, &err);
	eng_instance *in = NULL;
	eng_trap tr;
	uint8_t ty[2] = {0x7f, 0x7f};
	wasm_functype ft = {1, 1, ty};
	wasm_limits l = {.min = 1, .max = 10, .has_max = true};
	(void)state;

	e.omit_host = true;
	assert_false(eng_instantiate(cm, p, t, resolve, &e, &in, &tr, &err));
	assert_null(in);
	assert_string_equal(err.msg,
			    "unknown import \"env\".\"host_add\" (function)");
	e.omit_host = false;
	e.host_add = eng_host_func_new(p, &ft, host_add, NULL, "wrong");
	assert_false(eng_instantiate(cm, p, t, resolve, &e, &in, &tr, &err));
	assert_non_null(strstr(err.msg, "incompatible import type for "
					"\"env\".\"host_add\""));
	e.mem = eng_memory_new(p, &l, &err); /* not shared */
	assert_false(eng_instantiate(cm, p, t, resolve, &e, &in, &tr, &err));
	assert_non_null(strstr(err.msg, "\"env\".\"memory\""));
	eng_proc_free(p);
	eng_module_free(cm);
}

/* One compiled module, many instances in one proc: each works on its own
 * (the speed of this is measured by tests/bench/bench_engine.c). */
static void instantiate_many_times(void **state)
{
	fixture f;
	eng_instance *in;
	(void)state;

	fx_open(&f, NULL);
	for (int i = 0; i < 200; i++) {
		in = instance(f.cm, f.p, f.t, &f.e);
		assert_int_equal(eng_call(f.t, fn(in, "size"), NULL,
					  (eng_val[1]){0}, NULL),
				 ENG_OK);
	}
	fx_close(&f);
}

/* ---- threads ----------------------------------------------------------- */

typedef struct job {
	eng_module *cm;
	env *e;
	const char *func;
	eng_val a, b;
	eng_trap_kind result;
	eng_trap trap;
} job;

static void job_main(eng_thread *t, void *arg)
{
	job *j = arg;
	eng_instance *in = instance(j->cm, eng_thread_proc(t), t, j->e);
	eng_val args[2] = {j->a, j->b}, res[1];
	j->result = eng_call(t, fn(in, j->func), args, res, &j->trap);
}

static uint32_t mem_u32(env *e, uint32_t addr)
{
	uint32_t v;
	memcpy(&v, eng_memory_data(e->mem) + addr, 4);
	return v;
}

static void atomics_from_four_threads_are_exact(void **state)
{
	fixture f;
	job j[4];
	wasm_err err;
	(void)state;

	fx_open(&f, NULL);
	for (int i = 0; i < 4; i++) {
		j[i] = (job){f.cm, &f.e, "atomic_add", 1000000, 0, -1, {0}};
		assert_true(eng_proc_spawn(f.p, job_main, &j[i], &err) > 0);
	}
	eng_proc_join(f.p);
	for (int i = 0; i < 4; i++)
		assert_int_equal(j[i].result, ENG_OK);
	assert_int_equal(mem_u32(&f.e, 8), 4000000);
	fx_close(&f);
}

static void wait_notify_ping_pong(void **state)
{
	fixture f;
	job j[2];
	wasm_err err;
	(void)state;

	fx_open(&f, NULL);
	for (int i = 0; i < 2; i++) {
		j[i] = (job){f.cm, &f.e, "pingpong", (eng_val)i, 100000, -1,
			     {0}};
		assert_true(eng_proc_spawn(f.p, job_main, &j[i], &err) > 0);
	}
	eng_proc_join(f.p);
	for (int i = 0; i < 2; i++)
		assert_int_equal(j[i].result, ENG_OK);
	assert_int_equal(mem_u32(&f.e, 4), 200000);
	fx_close(&f);
}

static void plain_counter_loses_updates(void **state)
{
	int lost_runs = 0;
	(void)state;

	/* Long enough for the two threads to overlap, or to be switched
	 * between the load and the store, even when compiled code runs the
	 * loop in a few ms on a machine busy elsewhere. */
	enum { N = 10000000 };

	for (int run = 0; run < 20 && !lost_runs; run++) {
		fixture f;
		job j[2];
		wasm_err err;
		fx_open(&f, NULL);
		for (int i = 0; i < 2; i++) {
			j[i] = (job){f.cm, &f.e, "plain_add", N, 0, -1, {0}};
			assert_true(eng_proc_spawn(f.p, job_main, &j[i],
						   &err) > 0);
		}
		eng_proc_join(f.p);
		if (mem_u32(&f.e, 12) < 2 * N)
			lost_runs++;
		fx_close(&f);
	}
	assert_true(lost_runs > 0);
}

static void timeout_stops_a_spinning_loop(void **state)
{
	fixture f;
	eng_trap tr, st;
	eng_limits lim = {.timeout_s = 0.2};
	(void)state;

	fx_open(&f, &lim);
	assert_int_equal(call1(f.t, f.in, "spin", 0, 0, NULL, &tr),
			 ENG_TIMEOUT);
	eng_proc_status(f.p, &st);
	assert_int_equal(st.kind, ENG_TIMEOUT);
	/* Once stopped, calls return the stop reason at once. */
	assert_int_equal(call1(f.t, f.in, "fib", 3, 0, NULL, &tr),
			 ENG_TIMEOUT);
	fx_close(&f);
}

static void stop_wakes_a_thread_waiting_forever(void **state)
{
	fixture f;
	job j;
	wasm_err err;
	eng_trap why = {.kind = ENG_STOPPED, .msg = "test stop"};
	struct timespec ts = {0, 50 * 1000 * 1000};
	(void)state;

	fx_open(&f, NULL);
	j = (job){f.cm, &f.e, "wait_forever", 0, 0, -1, {0}};
	assert_true(eng_proc_spawn(f.p, job_main, &j, &err) > 0);
	nanosleep(&ts, NULL);
	eng_proc_stop(f.p, &why);
	eng_proc_join(f.p);
	assert_int_equal(j.result, ENG_STOPPED);
	assert_string_equal(j.trap.msg, "test stop");
	fx_close(&f);

	/* The same with the timeout, the waiter being the caller. */
	eng_limits lim = {.timeout_s = 0.1};
	eng_trap tr;
	fx_open(&f, &lim);
	assert_int_equal(call1(f.t, f.in, "wait_forever", 0, 0, NULL, &tr),
			 ENG_TIMEOUT);
	fx_close(&f);
}

static void spawn_respects_the_thread_limit(void **state)
{
	fixture f;
	job j[3];
	wasm_err err;
	eng_limits lim = {.max_threads = 2};
	eng_trap why = {.kind = ENG_STOPPED};
	(void)state;

	fx_open(&f, &lim);
	for (int i = 0; i < 2; i++) {
		j[i] = (job){f.cm, &f.e, "wait_forever", 0, 0, -1, {0}};
		assert_true(eng_proc_spawn(f.p, job_main, &j[i], &err) > 0);
	}
	j[2] = (job){f.cm, &f.e, "wait_forever", 0, 0, -1, {0}};
	assert_int_equal(eng_proc_spawn(f.p, job_main, &j[2], &err), -1);
	assert_int_equal(err.status, WASM_LIMIT);
	eng_proc_stop(f.p, &why);
	fx_close(&f); /* joins */
}

static void trap_in_a_thread_stops_the_proc(void **state)
{
	fixture f;
	job j[2];
	wasm_err err;
	eng_trap st;
	(void)state;

	fx_open(&f, NULL);
	j[0] = (job){f.cm, &f.e, "wait_forever", 0, 0, -1, {0}};
	j[1] = (job){f.cm, &f.e, "unreachable", 0, 0, -1, {0}};
	assert_true(eng_proc_spawn(f.p, job_main, &j[0], &err) > 0);
	assert_true(eng_proc_spawn(f.p, job_main, &j[1], &err) > 0);
	eng_proc_join(f.p);
	assert_int_equal(j[1].result, ENG_TRAP_UNREACHABLE);
	assert_int_equal(j[0].result, ENG_TRAP_UNREACHABLE);
	eng_proc_status(f.p, &st);
	assert_int_equal(st.kind, ENG_TRAP_UNREACHABLE);
	fx_close(&f);
}

/* A module where a calls b and b calls the host function h:
 *   (import "env" "h" (func (param i32)))
 *   (func $b (param i32) local.get 0 call 0)   ;; call at file offset 45
 *   (func $a (param i32) local.get 0 call $b)  ;; call at file offset 52
 *   (export "a" (func $a)) */
static const uint8_t chain_bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, /* header */
    0x01, 0x05, 0x01, 0x60, 0x01, 0x7f, 0x00,	    /* type */
    0x02, 0x09, 0x01, 0x03, 'e',  'n',	'v',  0x01, 'h', 0x00, 0x00,
    0x03, 0x03, 0x02, 0x00, 0x00,		    /* functions */
    0x07, 0x05, 0x01, 0x01, 'a',  0x00, 0x02,	    /* export */
    0x0a, 0x0f, 0x02,				    /* code */
    0x06, 0x00, 0x20, 0x00, 0x10, 0x00, 0x0b,	    /* b */
    0x06, 0x00, 0x20, 0x00, 0x10, 0x01, 0x0b,	    /* a */
};

static eng_where chain_seen[8];
static uint32_t chain_n;

static eng_trap_kind host_where(eng_thread *t, void *ctx, const eng_val *a,
				eng_val *r, eng_trap *trap)
{
	chain_n = eng_thread_backtrace(t, chain_seen, 8);
	return ENG_OK;
}

static bool resolve_where(void *ctx, const wasm_import *imp, eng_extern *out)
{
	out->kind = WASM_EXTERN_FUNC;
	out->u.func = ctx;
	return true;
}

/* From inside a host call, the frames the guest is in: b at its call of
 * h, then a at its call of b; nothing outside a host call. */
/* ---- calls through a pointer of another type ------------------------------
 * A module built by heisen cc carries the custom section heisen.c_calls;
 * its calls through a pointer of another type run as on a C ABI where
 * the types allow it (core/engine_int.h, eng_indirect_adapt). Generated
 * by `wat2wasm --debug-names` from:
 *
 * (module
 *   (type $i_i (func (param i32) (result i32)))
 *   (table 5 funcref)
 *   (elem (i32.const 0) $seven $add3 $void1 $half $pick)
 *   (func $seven (result i32) (i32.const 7))
 *   (func $add3 (param i32 i32 i32) (result i32)
 *     (i32.add (i32.add (local.get 0) (local.get 1)) (local.get 2)))
 *   (func $void1 (param i32))
 *   (func $half (param f64) (result i32) (i32.trunc_f64_s (local.get 0)))
 *   (func $pick (param i32 externref) (result i32) (local.get 0))
 *   (func (export "knr") (result i32)
 *     (call_indirect (type $i_i) (i32.const 5) (i32.const 0)))
 *   (func (export "fewer") (result i32)
 *     (drop (call $add3 (i32.const 99) (i32.const 99) (i32.const 99)))
 *     (call_indirect (param i32 i32) (result i32)
 *       (i32.const 40) (i32.const 2) (i32.const 1)))
 *   (func (export "dropped")
 *     (call_indirect (param i32) (i32.const 1) (i32.const 0)))
 *   (func (export "no_result") (result i32)
 *     (call_indirect (type $i_i) (i32.const 1) (i32.const 2)))
 *   (func (export "float") (result i32)
 *     (call_indirect (type $i_i) (i32.const 1) (i32.const 3)))
 *   (func (export "ref") (result i32)
 *     (call_indirect (type $i_i) (i32.const 1) (i32.const 4))))
 */
static const uint8_t c_calls_bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x29, 0x08, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x01, 0x7f, 0x60, 0x03, 0x7f, 0x7f,
    0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x60, 0x01, 0x7c, 0x01, 0x7f,
    0x60, 0x02, 0x7f, 0x6f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f,
    0x60, 0x00, 0x00, 0x03, 0x0c, 0x0b, 0x01, 0x02, 0x03, 0x04, 0x05, 0x01,
    0x01, 0x07, 0x01, 0x01, 0x01, 0x04, 0x04, 0x01, 0x70, 0x00, 0x05, 0x07,
    0x33, 0x06, 0x03, 0x6b, 0x6e, 0x72, 0x00, 0x05, 0x05, 0x66, 0x65, 0x77,
    0x65, 0x72, 0x00, 0x06, 0x07, 0x64, 0x72, 0x6f, 0x70, 0x70, 0x65, 0x64,
    0x00, 0x07, 0x09, 0x6e, 0x6f, 0x5f, 0x72, 0x65, 0x73, 0x75, 0x6c, 0x74,
    0x00, 0x08, 0x05, 0x66, 0x6c, 0x6f, 0x61, 0x74, 0x00, 0x09, 0x03, 0x72,
    0x65, 0x66, 0x00, 0x0a, 0x09, 0x0b, 0x01, 0x00, 0x41, 0x00, 0x0b, 0x05,
    0x00, 0x01, 0x02, 0x03, 0x04, 0x0a, 0x69, 0x0b, 0x04, 0x00, 0x41, 0x07,
    0x0b, 0x0a, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x20, 0x02, 0x6a, 0x0b,
    0x02, 0x00, 0x0b, 0x05, 0x00, 0x20, 0x00, 0xaa, 0x0b, 0x04, 0x00, 0x20,
    0x00, 0x0b, 0x09, 0x00, 0x41, 0x05, 0x41, 0x00, 0x11, 0x00, 0x00, 0x0b,
    0x17, 0x00, 0x41, 0xe3, 0x00, 0x41, 0xe3, 0x00, 0x41, 0xe3, 0x00, 0x10,
    0x01, 0x1a, 0x41, 0x28, 0x41, 0x02, 0x41, 0x01, 0x11, 0x06, 0x00, 0x0b,
    0x09, 0x00, 0x41, 0x01, 0x41, 0x00, 0x11, 0x03, 0x00, 0x0b, 0x09, 0x00,
    0x41, 0x01, 0x41, 0x02, 0x11, 0x00, 0x00, 0x0b, 0x09, 0x00, 0x41, 0x01,
    0x41, 0x03, 0x11, 0x00, 0x00, 0x0b, 0x09, 0x00, 0x41, 0x01, 0x41, 0x04,
    0x11, 0x00, 0x00, 0x0b, 0x00, 0x49, 0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01,
    0x21, 0x05, 0x00, 0x05, 0x73, 0x65, 0x76, 0x65, 0x6e, 0x01, 0x04, 0x61,
    0x64, 0x64, 0x33, 0x02, 0x05, 0x76, 0x6f, 0x69, 0x64, 0x31, 0x03, 0x04,
    0x68, 0x61, 0x6c, 0x66, 0x04, 0x04, 0x70, 0x69, 0x63, 0x6b, 0x02, 0x17,
    0x0b, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00, 0x05,
    0x00, 0x06, 0x00, 0x07, 0x00, 0x08, 0x00, 0x09, 0x00, 0x0a, 0x00, 0x04,
    0x06, 0x01, 0x00, 0x03, 0x69, 0x5f, 0x69};

/* The module above, with the heisen.c_calls section or without it. */
static eng_module *compile_c_calls(bool c_calls, wasm_buf *b)
{
	static const uint8_t section[] = {0x00, 0x10, 0x0e, 'h', 'e', 'i',
					  's',	'e',  'n',  '.', 'c', '_',
					  'c',	'a',  'l',  'l', 's', 0x01};
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	wasm_err err;

	memset(b, 0, sizeof *b);
	wasm_buf_put(b, c_calls_bytes, sizeof c_calls_bytes);
	if (c_calls)
		wasm_buf_put(b, section, sizeof section);
	assert_int_equal(wasm_decode(b->data, b->len, &m, &err), WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	return cm;
}

static void c_calls_adapt_where_types_allow(void **state)
{
	static const char *const traps[] = {"no_result", "float", "ref"};
	eng_val r;
	eng_trap tr;
	(void)state;

	for (int with = 0; with < 2; with++) {
		wasm_buf b;
		eng_module *cm = compile_c_calls(with, &b);
		env e;
		eng_proc *p = proc_env(NULL, &e);
		wasm_err err;
		eng_thread *t = eng_thread_new(p, &err);
		eng_instance *in;

		assert_non_null(t);
		in = instance(cm, p, t, &e);
		if (with) {
			/* () -> i32 called as (i32) -> i32: the argument
			 * is dropped. */
			assert_int_equal(call1(t, in, "knr", 0, 0, &r, &tr),
					 ENG_OK);
			assert_int_equal(r, 7);
			/* The third parameter reads 0, not the 99 an
			 * earlier call left in its slot. */
			assert_int_equal(call1(t, in, "fewer", 0, 0, &r, &tr),
					 ENG_OK);
			assert_int_equal(r, 42);
			assert_int_equal(call1(t, in, "dropped", 0, 0, &r, &tr),
					 ENG_OK);
		} else {
			assert_int_equal(call1(t, in, "knr", 0, 0, &r, &tr),
					 ENG_TRAP_INDIRECT_TYPE);
			assert_non_null(strstr(tr.msg, "'seven' () -> (i32) "
						       "called through (i32) "
						       "-> (i32)"));
			assert_int_equal(call1(t, in, "fewer", 0, 0, &r, &tr),
					 ENG_TRAP_INDIRECT_TYPE);
		}
		/* A result never written, a double read from an i32's
		 * bits, a reference made of zeros: always a trap. */
		for (size_t i = 0; i < sizeof traps / sizeof *traps; i++)
			assert_int_equal(call1(t, in, traps[i], 0, 0, &r, &tr),
					 ENG_TRAP_INDIRECT_TYPE);
		eng_proc_free(p);
		eng_module_free(cm);
		wasm_buf_fini(&b);
	}
}

/* ---- a host function's filter ----------------------------------------------
 * eng_host_func_set_filter: the call is not made when the filter says
 * so, from compiled code as from the interpreter. Generated by wat2wasm
 * from:
 *
 * (module
 *   (import "env" "probe" (func $p (param i32 i32)))
 *   (func (export "run") (param $n i32)
 *     (loop $l
 *       (call $p (local.get $n) (i32.const 7))
 *       (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))
 */
static const uint8_t filt_bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60,
    0x02, 0x7f, 0x7f, 0x00, 0x60, 0x01, 0x7f, 0x00, 0x02, 0x0d, 0x01, 0x03,
    0x65, 0x6e, 0x76, 0x05, 0x70, 0x72, 0x6f, 0x62, 0x65, 0x00, 0x00, 0x03,
    0x02, 0x01, 0x01, 0x07, 0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x01,
    0x0a, 0x16, 0x01, 0x14, 0x00, 0x03, 0x40, 0x20, 0x00, 0x41, 0x07, 0x10,
    0x00, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x0b};

typedef struct filt_seen {
	uint32_t filtered, called, tid;
	uint64_t sum; /* of the first arguments the function got */
} filt_seen;

static bool even_filtered(void *ctx, uint32_t tid, const eng_val *args)
{
	filt_seen *f = ctx;

	f->filtered++;
	f->tid = tid;
	return args[1] == 7 && !(args[0] & 1);
}

static eng_trap_kind filt_host(eng_thread *t, void *ctx, const eng_val *args,
			       eng_val *results, eng_trap *trap)
{
	filt_seen *f = ctx;

	(void)t, (void)results, (void)trap;
	f->called++;
	f->sum += args[0];
	return ENG_OK;
}

static uint32_t pick_first(void *ctx, uint64_t event, uint32_t cur,
			   eng_point_kind k, const uint32_t *runnable,
			   uint32_t n)
{
	(void)ctx, (void)event, (void)cur, (void)k, (void)runnable, (void)n;
	return 0;
}

/* run(10) of cm in a new proc (serial or not) whose probe has the
 * filter: what the filter and the function saw into *f; the calling
 * thread's id. */
static uint32_t run_filtered(eng_module *cm, bool serial, filt_seen *f)
{
	eng_proc *p = eng_proc_new(NULL);
	uint8_t ty[3] = {0x7f, 0x7f, 0x7f};
	wasm_functype ft = {2, 0, ty}, with_result = {2, 1, ty};
	eng_instance *in = NULL;
	eng_extern ex;
	eng_val arg = 10;
	eng_trap tr;
	wasm_err err;
	eng_thread *t;
	eng_func *h;
	uint32_t tid;

	assert_non_null(p);
	if (serial)
		eng_proc_set_sched(p, &(eng_sched){.pick = pick_first});
	memset(f, 0, sizeof *f);
	t = eng_thread_new(p, &err);
	h = eng_host_func_new(p, &ft, filt_host, f, "probe");
	assert_true(eng_host_func_set_filter(h, even_filtered));
	/* A function with results cannot be skipped. */
	assert_false(eng_host_func_set_filter(
	    eng_host_func_new(p, &with_result, filt_host, f, "r"),
	    even_filtered));
	assert_true(
	    eng_instantiate(cm, p, t, resolve_where, h, &in, &tr, &err));
	assert_true(eng_instance_export(in, "run", &ex));
	assert_int_equal(eng_call(t, ex.u.func, &arg, NULL, &tr), ENG_OK);
	tid = eng_thread_id(t);
	eng_proc_free(p);
	return tid;
}

static void filter_skips_the_calls_it_takes(void **state)
{
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	filt_seen f;
	wasm_err err;
	uint32_t tid;
	(void)state;

	assert_int_equal(wasm_decode(filt_bytes, sizeof filt_bytes, &m, &err),
			 WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	/* run(10): the probe with 10, 9, ..., 1; the odd ones called. */
	tid = run_filtered(cm, false, &f);
	assert_int_equal(f.filtered, 10);
	assert_int_equal(f.called, 5);
	assert_int_equal(f.sum, 9 + 7 + 5 + 3 + 1);
	assert_int_equal(f.tid, tid);
	/* A serial run: each host call is a scheduling point, so the
	 * filter is never asked and every call is made. */
	run_filtered(cm, true, &f);
	assert_int_equal(f.filtered, 0);
	assert_int_equal(f.called, 10);
	eng_module_free(cm);
}

/* ---- a filter's shadow test ------------------------------------------------
 * eng_host_func_set_shadow_test: a call is skipped, with neither the
 * filter nor the function called, exactly when the test holds, whether
 * compiled code makes it inline or the interpreter in C. run(addr, site)
 * calls the probe once; from wat2wasm of:
 *
 * (module
 *   (import "env" "probe" (func $p (param i32 i32)))
 *   (func (export "run") (param i32 i32)
 *     (call $p (local.get 0) (local.get 1))))
 */
static const uint8_t shadow_bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60,
    0x02, 0x7f, 0x7f, 0x00, 0x02, 0x0d, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x05,
    0x70, 0x72, 0x6f, 0x62, 0x65, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07,
    0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x01, 0x0a, 0x0a, 0x01, 0x08,
    0x00, 0x20, 0x00, 0x20, 0x01, 0x10, 0x00, 0x0b};

static bool never_filtered(void *ctx, uint32_t tid, const eng_val *args)
{
	(void)tid, (void)args;
	((filt_seen *)ctx)->filtered++;
	return false;
}

#define SH_WORD	   0x8000000001000005ull /* the thread's word */
#define SH_MASK(m) ((uint64_t)(m) << 40)
#define SH_BITS(s) ((uint64_t)((s) + 1) << 48)
/* Whose a word is (the test's ocare), and a bit of it that names
 * another thread. */
#define SH_OCARE	0x83000000ull
#define SH_OTHER_THREAD 0x02000000ull

/* The throttle's interval: a slow yield (the CPU went to another
 * process) doubles it up to the cap, a quick one shrinks it by a
 * sixteenth, never below the profile's. */
static void throttle_backs_off_on_a_loaded_machine(void **state)
{
	const int64_t slow = ENG_THROTTLE_SLOW_NS, quick = 2000;
	uint32_t every = 64, n = 0;

	(void)state;
	assert_int_equal(eng_rt_throttle_next(64, 64, quick), 64);
	assert_int_equal(eng_rt_throttle_next(64, 64, slow), 128);
	assert_int_equal(eng_rt_throttle_next(64, 64, slow - 1), 64);
	while (every < ENG_THROTTLE_MAX && n++ < 100)
		every = eng_rt_throttle_next(every, 64, slow);
	assert_int_equal(n, 14); /* 64 << 14 = 2^20 */
	assert_int_equal(eng_rt_throttle_next(every, 64, slow),
			 ENG_THROTTLE_MAX);
	assert_int_equal(eng_rt_throttle_next(ENG_THROTTLE_MAX - 1, 64, slow),
			 ENG_THROTTLE_MAX);
	assert_int_equal(eng_rt_throttle_next(1600, 64, quick), 1500);
	for (n = 0; every > 64 && n < 1000; n++)
		every = eng_rt_throttle_next(every, 64, quick);
	assert_int_equal(every, 64);
	assert_true(n > 100 && n < 200); /* 2^20 -> 64 by 15/16 steps */
}

/* A throttled proc's polls take the slow path only while a spawned
 * thread is alive: the first thread alone yields to nobody. */
static void hold_until_told(eng_thread *t, void *arg)
{
	(void)t;
	while (!__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void throttle_polls_only_beside_spawned_threads(void **state)
{
	eng_limits lim = {.throttle = 64, .max_threads = 4};
	eng_proc *p;
	wasm_err err;
	int go = 0;
	(void)state;

	assert_non_null(p = eng_proc_new(&lim));
	assert_false(atomic_load(&p->stop) & ENG_STOP_THROTTLE);
	if (eng_proc_spawn(p, hold_until_told, &go, &err) < 0)
		fail_msg("spawn: %s", err.msg);
	assert_true(atomic_load(&p->stop) & ENG_STOP_THROTTLE);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	eng_proc_join(p);
	assert_false(atomic_load(&p->stop) & ENG_STOP_THROTTLE);
	eng_proc_free(p);
}

static void shadow_test_skips_exactly_when_it_holds(void **state)
{
	/* Sites: 0 four bytes (a cell's first word), 1 one byte (its
	 * second, with no other word), 2 eight bytes (two cells), 3 none,
	 * 4 two bytes (the second word). */
	static const eng_shadow_site sites[5] = {
	    {SH_BITS(0), SH_MASK(0xf), 0, 0, 8, 4, 3, {0}},
	    {SH_BITS(1), SH_MASK(0x1), 8, 0, 0, 1, 0, {0}},
	    {SH_BITS(2), SH_MASK(0xf), 0, 16, 8, 8, 3, {0}},
	    {0, 0, 0, 0, 0, 0, 0, {0}},
	    {SH_BITS(4), SH_MASK(0x3), 8, 0, -8, 2, 1, {0}},
	};
	/* 16 cells of 64 bytes of memory, two words each. */
	static uint64_t sh[32] __attribute__((aligned(16)));
	const uint64_t w = SH_WORD, own = SH_WORD & SH_OCARE,
		       foreign = own ^ SH_OTHER_THREAD;
	/* S: the test holds; C: a word differs (the function, not the
	 * filter); N: the filter decides. */
	const struct {
		uint32_t addr, site;
		char how;
	} cases[] = {
	    {8, 0, 'S'},  /* sh[4]: this very record */
	    {12, 0, 'C'}, /* sh[6]: one byte short */
	    {16, 0, 'S'}, /* sh[8]: other bits outside care */
	    {20, 0, 'C'}, /* sh[10]: another epoch */
	    {9, 0, 'N'},  /* misaligned */
	    {25, 1, 'S'}, /* sh[13]: byte 1 of cell 6 */
	    {26, 1, 'C'}, /* byte 2 is not in it */
	    {32, 2, 'S'}, /* sh[16] and sh[18] */
	    {40, 2, 'C'}, /* sh[20], but sh[22] another site's beside
			     another thread's */
	    {8, 3, 'N'},  /* a site without the test */
	    {8, 5, 'N'},  /* past the sites */
	    {60, 0, 'S'}, /* sh[30], the last four bytes */
	    {60, 2, 'N'}, /* past the limit */
	    {2, 4, 'S'},  /* sh[1]: bytes 2 and 3 of cell 0 */
	    {3, 4, 'N'},  /* misaligned */
	    {4, 0, 'S'},  /* sh[2]: another site's, nothing beside it */
	    {28, 0, 'S'}, /* sh[14]: another site's, the thread's beside */
	    {48, 0, 'C'}, /* sh[24]: another site's, another thread's
			     beside */
	    {53, 1, 'C'}, /* sh[27]: another site's, and site 1 has no
			     other word */
	    {56, 4, 'S'}, /* sh[29]: another site's, nothing beside (-8) */
	    {52, 0, 'C'}, /* sh[26]: another site's, but another epoch */
	};
	eng_shadow_thread rec[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
	eng_shadow_test test = {rec,
				2,
				sizeof *rec,
				sites,
				5,
				sh,
				64,
				0xffff0000ffffffffull,
				0x80000000ffffffffull,
				SH_OCARE};
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	uint8_t ty[2] = {0x7f, 0x7f};
	wasm_functype ft = {2, 0, ty};
	eng_instance *in = NULL;
	eng_extern ex;
	filt_seen f = {0};
	eng_trap tr;
	wasm_err err;
	eng_thread *t;
	eng_func *h;
	eng_proc *p;
	uint32_t tid, skips = 0;
	(void)state;

	sh[4] = w | SH_BITS(0) | SH_MASK(0xf);
	sh[6] = w | SH_BITS(0) | SH_MASK(0x7);
	sh[8] = w | SH_BITS(0) | SH_MASK(0xf) | (uint64_t)0x9 << 32;
	sh[10] = (w + 1) | SH_BITS(0) | SH_MASK(0xf);
	sh[13] = w | SH_BITS(1) | SH_MASK(0x2);
	sh[16] = sh[18] = w | SH_BITS(2) | SH_MASK(0xf);
	sh[20] = sh[16];
	sh[22] = w | SH_BITS(0) | SH_MASK(0xf);
	sh[30] = sh[4];
	sh[1] = w | SH_BITS(4) | SH_MASK(0xc);
	sh[23] = foreign | SH_MASK(0xf);
	sh[2] = w | SH_BITS(3) | SH_MASK(0xf);
	sh[14] = sh[24] = sh[2];
	sh[15] = own | SH_BITS(1) | SH_MASK(0x3);
	sh[25] = foreign;
	sh[27] = w | SH_BITS(3) | SH_MASK(0x2);
	sh[29] = w | SH_BITS(0) | SH_MASK(0x3);
	sh[26] = (w + 1) | SH_BITS(3) | SH_MASK(0xf);
	assert_int_equal(
	    wasm_decode(shadow_bytes, sizeof shadow_bytes, &m, &err), WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	p = eng_proc_new(NULL);
	assert_non_null(p);
	t = eng_thread_new(p, &err);
	tid = eng_thread_id(t);
	assert_true(tid < 2);
	rec[tid].word = w;
	rec[tid].own = own;
	h = eng_host_func_new(p, &ft, filt_host, &f, "probe");
	/* The test needs the filter it stands for. */
	assert_false(eng_host_func_set_shadow_test(h, &test));
	assert_true(eng_host_func_set_filter(h, never_filtered));
	assert_true(eng_host_func_set_shadow_test(h, &test));
	assert_true(
	    eng_instantiate(cm, p, t, resolve_where, h, &in, &tr, &err));
	assert_true(eng_instance_export(in, "run", &ex));
	/* A thread past nthreads (before its first test: compiled code
	 * keeps the thread's record from then on): the filter decides. */
	{
		eng_val args[2] = {8, 0};
		uint32_t called = f.called, filtered = f.filtered;

		test.nthreads = tid;
		assert_int_equal(eng_call(t, ex.u.func, args, NULL, &tr),
				 ENG_OK);
		assert_int_equal(f.called, called + 1);
		assert_int_equal(f.filtered, filtered + 1);
		test.nthreads = 2;
	}
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		eng_val args[2] = {cases[i].addr, cases[i].site};
		uint32_t called = f.called, filtered = f.filtered;
		char how = cases[i].how;

		rec[tid].tested = 0;
		assert_int_equal(eng_call(t, ex.u.func, args, NULL, &tr),
				 ENG_OK);
		skips += how == 'S';
		if (f.called != called + (how != 'S') ||
		    f.filtered != filtered + (how == 'N') ||
		    rec[tid].skipped != skips ||
		    rec[tid].tested != (how == 'C'))
			fail_msg("case %zu (addr %u, site %u, %c): called %u, "
				 "filtered %u, skipped %llu, tested %llu",
				 i, cases[i].addr, cases[i].site, how,
				 f.called - called, f.filtered - filtered,
				 (unsigned long long)rec[tid].skipped,
				 (unsigned long long)rec[tid].tested);
	}
	/* A thread without a word: the filter decides. */
	{
		eng_val args[2] = {8, 0};
		uint32_t called = f.called;

		rec[tid].word = 0;
		assert_int_equal(eng_call(t, ex.u.func, args, NULL, &tr),
				 ENG_OK);
		assert_int_equal(f.called, called + 1);
		rec[tid].word = w;
	}
	assert_int_equal(rec[tid].skipped, skips);
	eng_proc_free(p);
	eng_module_free(cm);
}

/* ---- every SIMD instruction compiles ----------------------------------------
 * A module with one function per 0xFD opcode of opcodes.def (its operands
 * as zero constants, its immediates zero, its result dropped), over one
 * page of memory, validates; with the compiler on, every function
 * compiles (none runs interpreted), whether through an SSE template or
 * simd.h's function. Nothing is run: the spec suite checks what they
 * compute. */
static void simd_const(wasm_buf *b, char t)
{
	static const uint8_t zeros[16] = {0};

	switch (t) {
	case 'i': wasm_buf_byte(b, 0x41), wasm_buf_byte(b, 0); break;
	case 'l': wasm_buf_byte(b, 0x42), wasm_buf_byte(b, 0); break;
	case 'f': wasm_buf_byte(b, 0x43), wasm_buf_put(b, zeros, 4); break;
	case 'd': wasm_buf_byte(b, 0x44), wasm_buf_put(b, zeros, 8); break;
	default:
		wasm_buf_byte(b, 0xfd), wasm_buf_u32(b, 0x0c);
		wasm_buf_put(b, zeros, 16);
	}
}

static void every_simd_instruction_compiles(void **state)
{
	static const uint8_t zeros[16] = {0};
	static const uint8_t type[] = {1, 0x60, 0, 0}, mem[] = {1, 0, 1};
	wasm_buf b, funcs = {0}, code = {0};
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	eng_exec_stats es;
	uint32_t n = 0;
	wasm_err err;
	(void)state;

	for (uint32_t op = 0; op < WASM_OP_COUNT; op++) {
		const wasm_opinfo *in = wasm_op_info((wasm_op)op);
		const char *sig = in->sig, *res;
		wasm_buf body = {0};

		if (in->prefix != 0xfd)
			continue;
		assert_non_null(sig);
		res = strchr(sig, '>');
		assert_non_null(res);
		wasm_buf_byte(&body, 0); /* no locals */
		for (const char *c = sig; c < res; c++)
			simd_const(&body, *c);
		wasm_buf_byte(&body, 0xfd);
		wasm_buf_u32(&body, in->code);
		switch (in->imm) {
		case WASM_IMM_MEMARG: wasm_buf_put(&body, zeros, 2); break;
		case WASM_IMM_MEMARG_LANE: wasm_buf_put(&body, zeros, 3); break;
		case WASM_IMM_LANE: wasm_buf_byte(&body, 0); break;
		case WASM_IMM_V128:
		case WASM_IMM_SHUFFLE: wasm_buf_put(&body, zeros, 16); break;
		default: assert_int_equal(in->imm, WASM_IMM_NONE);
		}
		for (const char *c = res + 1; *c; c++)
			wasm_buf_byte(&body, 0x1a); /* drop */
		wasm_buf_byte(&body, 0x0b);
		wasm_buf_u32(&code, (uint32_t)body.len);
		wasm_buf_put(&code, body.data, body.len);
		wasm_buf_fini(&body);
		n++;
	}
	assert_int_equal(n, 236);
	wasm_buf_u32(&funcs, n);
	for (uint32_t i = 0; i < n; i++)
		wasm_buf_byte(&funcs, 0);
	mb_begin(&b);
	mb_section(&b, 1, type, sizeof type);
	mb_section(&b, 3, funcs.data, funcs.len);
	mb_section(&b, 5, mem, sizeof mem);
	{
		wasm_buf sec = {0};
		wasm_buf_u32(&sec, n);
		wasm_buf_put(&sec, code.data, code.len);
		mb_section(&b, 10, sec.data, sec.len);
		wasm_buf_fini(&sec);
	}
	assert_int_equal(wasm_decode(b.data, b.len, &m, &err), WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	if (eng_jit_wanted()) {
		eng_jit_compile_all(cm);
		eng_module_exec_stats(cm, &es);
		assert_int_equal(es.compiled, n);
		assert_int_equal(es.interpreted, 0);
	}
	eng_module_free(cm);
	wasm_buf_fini(&b);
	wasm_buf_fini(&funcs);
	wasm_buf_fini(&code);
}

/* ---- SIMD templates agree with simd.h -------------------------------------
 * Each pure SIMD instruction (simd.h's unary, binary, ternary, shift and
 * test lists) as an exported function of its operands, called on random
 * vectors mixed with edge lanes (NaNs, infinities, ±0, halves, integer
 * extremes, 2^31 as a float; the second operand now and then the first
 * or its negation), must give what simd.h's function gives
 * called directly: compiled code's templates against the interpreter's
 * definition (with the compiler off, both sides are simd.h). Float lanes
 * compare equal when both are NaNs, whose payloads Wasm leaves open. */
enum { SK_UN, SK_BIN, SK_TERN, SK_SHIFT, SK_TEST };
typedef struct simd_case {
	wasm_op op;
	uint8_t kind;
	union {
		eng_v128 (*un)(eng_v128);
		eng_v128 (*bin)(eng_v128, eng_v128);
		eng_v128 (*tern)(eng_v128, eng_v128, eng_v128);
		eng_v128 (*shift)(eng_v128, uint64_t);
		uint64_t (*test)(eng_v128);
	} fn;
} simd_case;

#define SC_UN(id, f)	{WASM_OP_##id, SK_UN, {.un = eng_simd_##f}},
#define SC_BIN(id, f)	{WASM_OP_##id, SK_BIN, {.bin = eng_simd_##f}},
#define SC_TERN(id, f)	{WASM_OP_##id, SK_TERN, {.tern = eng_simd_##f}},
#define SC_SHIFT(id, f) {WASM_OP_##id, SK_SHIFT, {.shift = eng_simd_##f}},
#define SC_TEST(id, f)	{WASM_OP_##id, SK_TEST, {.test = eng_simd_##f}},
static const simd_case simd_cases[] = {
    ENG_SIMD_UNOPS(SC_UN) ENG_SIMD_BINOPS(SC_BIN) ENG_SIMD_TERNOPS(SC_TERN)
	ENG_SIMD_SHIFTS(SC_SHIFT) ENG_SIMD_TESTS(SC_TEST)};
#undef SC_UN
#undef SC_BIN
#undef SC_TERN
#undef SC_SHIFT
#undef SC_TEST

static uint64_t sc_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random lanes, about half of them replaced by an edge value of a
 * 32- or 64-bit lane. */
static eng_v128 sc_vector(uint64_t *s)
{
	static const uint32_t e32[] = {
	    0,		0x80000000, 0x7fffffff, 0xffffffff, 0x7fc00000,
	    0xff800000, 0x7f800000, 0x4f000000, 0xcf000000, 0x3f000000,
	    0x3fc00000, 0x40200000, 0x00008000, 0x80808080, 0x7f7f7f7f};
	static const uint64_t e64[] = {
	    0x7ff8000000000000ull, 0x8000000000000000ull,
	    0x41e0000000000000ull, 0xc1e0000000000000ull,
	    0x3fe0000000000000ull, 0x3ff8000000000000ull,
	    0x7ff0000000000000ull, 0x43e0000000000000ull,
	    0x0000000000000001ull, 0};
	eng_v128 v;

	v.u64[0] = sc_rand(s);
	v.u64[1] = sc_rand(s);
	for (int i = 0; i < 4; i++)
		if (sc_rand(s) & 1)
			v.u32[i] = e32[sc_rand(s) % (sizeof e32 / sizeof *e32)];
	for (int i = 0; i < 2; i++)
		if (sc_rand(s) % 4 == 0)
			v.u64[i] = e64[sc_rand(s) % (sizeof e64 / sizeof *e64)];
	return v;
}

static bool sc_same(const char *name, eng_v128 a, eng_v128 b)
{
	if (!strncmp(name, "f32x4", 5)) {
		for (int i = 0; i < 4; i++)
			if (a.u32[i] != b.u32[i] &&
			    !(a.f32[i] != a.f32[i] && b.f32[i] != b.f32[i]))
				return false;
		return true;
	}
	if (!strncmp(name, "f64x2", 5)) {
		for (int i = 0; i < 2; i++)
			if (a.u64[i] != b.u64[i] &&
			    !(a.f64[i] != a.f64[i] && b.f64[i] != b.f64[i]))
				return false;
		return true;
	}
	return !memcmp(&a, &b, 16);
}

static void simd_templates_agree_with_simd_h(void **state)
{
	static const char *const types[] = {
	    "\x60\x01\x7b\x01\x7b", "\x60\x02\x7b\x7b\x01\x7b",
	    "\x60\x03\x7b\x7b\x7b\x01\x7b", "\x60\x02\x7b\x7f\x01\x7b",
	    "\x60\x01\x7b\x01\x7f"};
	static const uint8_t nparams[] = {1, 2, 3, 2, 1};
	const uint32_t n = sizeof simd_cases / sizeof *simd_cases;
	wasm_buf b, sec = {0};
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	eng_instance *in = NULL;
	eng_proc *p;
	eng_thread *t;
	eng_trap tr;
	wasm_err err;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	(void)state;

	mb_begin(&b);
	wasm_buf_u32(&sec, 5);
	for (int k = 0; k < 5; k++)
		wasm_buf_put(&sec, types[k], strlen(types[k]));
	mb_section(&b, 1, sec.data, sec.len);
	sec.len = 0;
	wasm_buf_u32(&sec, n);
	for (uint32_t i = 0; i < n; i++)
		wasm_buf_u32(&sec, simd_cases[i].kind);
	mb_section(&b, 3, sec.data, sec.len);
	sec.len = 0;
	wasm_buf_u32(&sec, n);
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		int len = snprintf(name, sizeof name, "f%u", i);
		wasm_buf_u32(&sec, (uint32_t)len);
		wasm_buf_put(&sec, name, (size_t)len);
		wasm_buf_byte(&sec, 0);
		wasm_buf_u32(&sec, i);
	}
	mb_section(&b, 7, sec.data, sec.len);
	sec.len = 0;
	wasm_buf_u32(&sec, n);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t body[16];
		size_t len = 0;
		body[len++] = 0; /* no locals */
		for (uint8_t a = 0; a < nparams[simd_cases[i].kind]; a++)
			body[len++] = 0x20, body[len++] = a; /* local.get */
		body[len++] = 0xfd;
		for (uint32_t c = wasm_op_info(simd_cases[i].op)->code;;
		     c >>= 7) {
			body[len++] =
			    (uint8_t)(c & 0x7f) | (c > 0x7f ? 0x80 : 0);
			if (c <= 0x7f)
				break;
		}
		body[len++] = 0x0b;
		wasm_buf_u32(&sec, (uint32_t)len);
		wasm_buf_put(&sec, body, len);
	}
	mb_section(&b, 10, sec.data, sec.len);
	wasm_buf_fini(&sec);
	assert_int_equal(wasm_decode(b.data, b.len, &m, &err), WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	p = eng_proc_new(NULL);
	assert_non_null(p);
	t = eng_thread_new(p, &err);
	assert_true(eng_instantiate(cm, p, t, NULL, NULL, &in, &tr, &err));
	for (uint32_t i = 0; i < n; i++) {
		const simd_case *c = &simd_cases[i];
		const char *name = wasm_op_info(c->op)->name;
		char ename[16];
		eng_extern ex;

		snprintf(ename, sizeof ename, "f%u", i);
		assert_true(eng_instance_export(in, ename, &ex));
		for (int trial = 0; trial < 64; trial++) {
			eng_v128 v[3] = {sc_vector(&seed), sc_vector(&seed),
					 sc_vector(&seed)},
				 want = {0}, got = {0};
			eng_val args[6], res[2] = {0, 0};
			uint64_t count = sc_rand(&seed) % 80;

			/* Lanes against themselves, or their negation,
			 * for equal operands and ±0 pairs. */
			if (trial % 4 == 1)
				v[1] = v[0];
			if (trial % 4 == 2)
				for (int l = 0; l < 4; l++)
					v[1].u32[l] = v[0].u32[l] ^ 0x80000000u;
			if (trial % 4 == 3)
				for (int l = 0; l < 2; l++)
					v[1].u64[l] =
					    v[0].u64[l] ^ 0x8000000000000000ull;
			memcpy(args, v, sizeof v);
			if (c->kind == SK_SHIFT)
				args[2] = count;
			assert_int_equal(eng_call(t, ex.u.func, args, res, &tr),
					 ENG_OK);
			switch (c->kind) {
			case SK_UN: want = c->fn.un(v[0]); break;
			case SK_BIN: want = c->fn.bin(v[0], v[1]); break;
			case SK_TERN:
				want = c->fn.tern(v[0], v[1], v[2]);
				break;
			case SK_SHIFT: want = c->fn.shift(v[0], count); break;
			default: want.u64[0] = c->fn.test(v[0]);
			}
			memcpy(&got, res, c->kind == SK_TEST ? 8 : 16);
			if (!sc_same(name, got, want))
				fail_msg("%s on %016llx%016llx %016llx%016llx: "
					 "got %016llx%016llx, simd.h "
					 "%016llx%016llx",
					 name, (unsigned long long)v[0].u64[1],
					 (unsigned long long)v[0].u64[0],
					 (unsigned long long)v[1].u64[1],
					 (unsigned long long)v[1].u64[0],
					 (unsigned long long)got.u64[1],
					 (unsigned long long)got.u64[0],
					 (unsigned long long)want.u64[1],
					 (unsigned long long)want.u64[0]);
		}
	}
	eng_proc_free(p);
	eng_module_free(cm);
	wasm_buf_fini(&b);
}

static void backtrace_names_each_frames_call(void **state)
{
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	eng_proc *p = eng_proc_new(NULL);
	uint8_t ty[1] = {0x7f};
	wasm_functype ft = {1, 0, ty};
	eng_instance *in = NULL;
	eng_extern ex;
	eng_val arg = 7;
	eng_trap tr;
	wasm_err err;
	eng_thread *t;
	eng_func *h;
	(void)state;

	assert_int_equal(
	    wasm_decode(chain_bytes, sizeof chain_bytes, &m, &err), WASM_OK);
	assert_int_equal(wasm_validate(m, &err), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	assert_non_null(p);
	t = eng_thread_new(p, &err);
	h = eng_host_func_new(p, &ft, host_where, NULL, "h");
	assert_true(eng_instantiate(cm, p, t, resolve_where, h, &in, &tr, &err));
	assert_true(eng_instance_export(in, "a", &ex));
	assert_int_equal(eng_call(t, ex.u.func, &arg, NULL, &tr), ENG_OK);
	assert_int_equal(chain_n, 2);
	assert_int_equal(chain_seen[0].func, 1);
	assert_int_equal(chain_seen[0].offset, 45);
	assert_int_equal(chain_seen[1].func, 2);
	assert_int_equal(chain_seen[1].offset, 52);
	assert_int_equal(eng_thread_backtrace(t, chain_seen, 8), 0);
	eng_proc_free(p);
	eng_module_free(cm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(backtrace_names_each_frames_call),
	    cmocka_unit_test(filter_skips_the_calls_it_takes),
	    cmocka_unit_test(throttle_backs_off_on_a_loaded_machine),
	    cmocka_unit_test(throttle_polls_only_beside_spawned_threads),
	    cmocka_unit_test(shadow_test_skips_exactly_when_it_holds),
	    cmocka_unit_test(every_simd_instruction_compiles),
	    cmocka_unit_test(simd_templates_agree_with_simd_h),
	    cmocka_unit_test(runs_fib_and_host_calls),
	    cmocka_unit_test(traps_name_function_and_offset),
	    cmocka_unit_test(guard_page_fault_is_a_trap),
	    cmocka_unit_test(infinite_recursion_exhausts_the_stack),
	    cmocka_unit_test(indirect_recursion_reaches_the_depth_limit),
	    cmocka_unit_test(memory_grow_stops_at_the_limit),
	    cmocka_unit_test(import_errors_are_actionable),
	    cmocka_unit_test(instantiate_many_times),
	    cmocka_unit_test(atomics_from_four_threads_are_exact),
	    cmocka_unit_test(wait_notify_ping_pong),
	    cmocka_unit_test(plain_counter_loses_updates),
	    cmocka_unit_test(timeout_stops_a_spinning_loop),
	    cmocka_unit_test(stop_wakes_a_thread_waiting_forever),
	    cmocka_unit_test(spawn_respects_the_thread_limit),
	    cmocka_unit_test(trap_in_a_thread_stops_the_proc),
	    cmocka_unit_test(c_calls_adapt_where_types_allow),
	};
	int failed;

	/* Every test with each engine (core/jit.h): the same traps,
	 * messages, backtraces and stops from compiled code as from the
	 * interpreter. The compiler is off where the machine has none. */
	eng_jit_enable(false);
	failed = cmocka_run_group_tests_name("interpreter", tests, NULL, NULL);
	eng_jit_enable(true);
	failed += cmocka_run_group_tests_name("compiler", tests, NULL, NULL);
	return failed;
}
