/*
 * wasi.c - binds the WASI preview1 functions (wasi_funcs.c) and
 * wasi-threads to the engine, and runs command modules. See wasi.h.
 *
 * How it works:
 *   One `run` per wasi_run: the proc, the WASI state (fds, args, env),
 *   the shared env.memory and a cache of resolved imports by import
 *   index, so that the thousand-th thread instance reuses the host
 *   functions of the first instead of creating new ones (they belong to
 *   the proc and would pile up until it is freed).
 *   Host functions find the caller's memory through eng_thread_instance
 *   and call the engine-free implementation with a view of it.
 *   thread-spawn starts eng_proc_spawn(thread_main): a new instance of
 *   the same compiled module on the new thread, then
 *   wasi_thread_start(tid, arg). Anything that ends a thread badly
 *   (trap, failed instantiation) stops the whole proc with that reason;
 *   the first stop wins and is the run's outcome.
 */
#include "wasi_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct run run;

/* A host function's context: the run and which function it is. */
typedef struct binding {
	run *r;
	const wasi_func *f;
} binding;

struct run {
	eng_module *cm;
	const wasm_module *m;
	const wasi_config *cfg;
	eng_proc *p;
	wasi_ctx ctx;
	eng_memory *memory;   /* env.memory, created once per run, or NULL */
	eng_thread *main;     /* the thread that runs _start */
	pthread_mutex_t lock; /* guards cache and cached */
	eng_extern *cache;    /* per import index: what WASI resolved */
	bool *cached;
	binding *bind;	   /* per import index */
	uint64_t start_ns; /* when the run started, CLOCK_MONOTONIC */
};

/* A spawned thread's start: freed by the thread. */
typedef struct spawn {
	run *r;
	uint32_t arg;
	void *token; /* the on_spawn hook's */
} spawn;

static bool str_is(wasm_str s, const char *lit)
{
	return strlen(lit) == s.len && !memcmp(s.p, lit, s.len);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void set_trap(eng_trap *t, eng_trap_kind k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_trap(eng_trap *t, eng_trap_kind k, const char *fmt, ...)
{
	va_list ap;

	memset(t, 0, sizeof *t);
	t->kind = k;
	t->func = WASM_NO_FUNC;
	t->offset = WASM_NO_OFFSET;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
}

/* wasi_ctx.should_stop: the proc has a stop request, or the run's wall
 * clock is over (checked here too, so that a thread sleeping in the host
 * sees its own timeout whatever the engine's timer does). */
static bool should_stop(void *ctx)
{
	run *r = ctx;
	double limit = r->cfg->limits.timeout_s;
	eng_trap st;

	eng_proc_status(r->p, &st);
	if (st.kind != ENG_OK)
		return true;
	if (limit > 0 && (double)(now_ns() - r->start_ns) / 1e9 >= limit) {
		set_trap(&st, ENG_TIMEOUT, "timed out after %g s", limit);
		eng_proc_stop(r->p, &st);
		return true;
	}
	return false;
}

/* ---- host functions -------------------------------------------------- */

/* WASI's memory is the one exported as "memory" (what the ABI names);
 * a module that exports none (clang's --import-memory) uses memory 0.
 * Memory 0 alone is not enough: instrumenting a module that defines its
 * memory puts the imported heisen.mask first. */
static wasi_mem caller_memory(eng_thread *t)
{
	eng_instance *inst = eng_thread_instance(t);
	eng_memory *mem = NULL;
	eng_extern ex;
	static uint8_t none; /* a base for empty copies, never written */
	wasi_mem m = {&none, 0, t};

	if (inst && eng_instance_export(inst, "memory", &ex) &&
	    ex.kind == WASM_EXTERN_MEMORY)
		mem = ex.u.memory;
	else if (inst)
		mem = eng_instance_memory(inst, 0);

	if (mem) {
		m.base = eng_memory_data(mem);
		m.size = eng_memory_size(mem);
	}
	return m; /* no memory: every non-empty range is EFAULT */
}

static eng_trap_kind host_wasi(eng_thread *t, void *ctx, const eng_val *args,
			       eng_val *results, eng_trap *trap)
{
	binding *b = ctx;
	wasi_mem m = caller_memory(t);
	uint16_t rc = b->f->impl(&b->r->ctx, &m, args);

	if (rc == WASI_STOPPING) {
		/* End this thread with the proc's reason: the engine would
		 * stop it at its next back-edge anyway. */
		eng_proc_status(b->r->p, trap);
		if (trap->kind == ENG_OK)
			set_trap(trap, ENG_STOPPED, "stopped");
		return trap->kind;
	}
	results[0] = rc;
	return ENG_OK;
}

/* Any preview1 function we do not implement: it links, and returns
 * ENOSYS if its type returns one i32 (every preview1 function that
 * returns does), zeros otherwise. */
static eng_trap_kind host_nosys(eng_thread *t, void *ctx, const eng_val *args,
				eng_val *results, eng_trap *trap)
{
	const wasm_functype *ft = ctx;

	for (uint32_t i = 0; i < ft->nresults; i++)
		results[i] = 0;
	if (ft->nresults == 1 && ft->types[ft->nparams] == WASM_I32)
		results[0] = WASI_ENOSYS;
	return ENG_OK;
}

/* A hint nobody listens to (wasi.h). */
static eng_trap_kind host_hint(eng_thread *t, void *ctx, const eng_val *args,
			       eng_val *results, eng_trap *trap)
{
	return ENG_OK;
}

/* heisen.hint.stack(lo, hi): the engine checks the thread's stack
 * pointer against it (eng_thread_set_c_stack). */
static eng_trap_kind host_hint_stack(eng_thread *t, void *ctx,
				     const eng_val *args, eng_val *results,
				     eng_trap *trap)
{
	eng_thread_set_c_stack(t, (uint32_t)args[0], (uint32_t)args[1]);
	return ENG_OK;
}

/* exit_grace_s: wait until at most `keep` spawned threads are alive (the
 * caller t itself when it is one), the grace is over or the proc is
 * stopping. A serial proc's threads run only while t waits at a point:
 * t sleeps the grace in virtual time, which ends it early once every
 * other thread has ended or blocks. */
static void exit_grace(run *r, eng_thread *t, uint32_t keep)
{
	/* A serial proc counts t out of the threads the grace waits for
	 * (eng_sched_alive); keep does so for eng_proc_await. */
	if (r->cfg->exit_grace_s <= 0)
		return;
	if (!eng_proc_serial(r->p)) {
		eng_proc_await(r->p, keep, r->cfg->exit_grace_s);
		return;
	}
	uint64_t until =
	    eng_proc_vclock(r->p) + (uint64_t)(r->cfg->exit_grace_s * 1e9);
	while (eng_sched_alive(t) && eng_proc_vclock(r->p) < until &&
	       eng_sched_sleep(t, until) == ENG_OK)
		;
}

static eng_trap_kind host_proc_exit(eng_thread *t, void *ctx,
				    const eng_val *args, eng_val *results,
				    eng_trap *trap)
{
	run *r = ctx;
	int code = (int)(uint32_t)args[0];

	exit_grace(r, t, t == r->main ? 0 : 1);
	set_trap(trap, ENG_EXIT, "exit with code %d", code);
	trap->exit_code = code;
	eng_proc_stop(r->p, trap); /* every thread, not only this one */
	return ENG_EXIT;
}

/* heisen.thread.exit: end the calling thread as if wasi_thread_start had
 * returned (pthread_exit, after the guest has done what a return would
 * do). The main thread has no such end: the program ends with proc_exit. */
static eng_trap_kind host_thread_exit(eng_thread *t, void *ctx,
				      const eng_val *args, eng_val *results,
				      eng_trap *trap)
{
	run *r = ctx;

	if (t == r->main) {
		set_trap(trap, ENG_TRAP_HOST,
			 "heisen.thread.exit called on the main thread (a "
			 "program ends with proc_exit)");
		return ENG_TRAP_HOST;
	}
	set_trap(trap, ENG_THREAD_EXIT, "thread %u exited", eng_thread_id(t));
	return ENG_THREAD_EXIT;
}

static bool resolve(void *ctx, const wasm_import *imp, eng_extern *out);

/* A spawned thread: instantiate the module again on it, then
 * wasi_thread_start(tid, arg). */
static void thread_body(eng_thread *t, void *arg)
{
	spawn *s = arg;
	run *r = s->r;
	eng_val a[2] = {eng_thread_id(t), s->arg}, res[1];
	eng_instance *inst;
	eng_extern ex;
	eng_trap tr;
	wasm_err err;

	if (r->cfg->on_start)
		r->cfg->on_start(r->cfg->hook_ctx, t, s->token);
	wasm_free(s);
	memset(&tr, 0, sizeof tr);
	wasm_err_clear(&err);
	if (!eng_instantiate(r->cm, r->p, t, resolve, r, &inst, &tr, &err)) {
		/* The module's start function ended the thread. */
		if (tr.kind == ENG_THREAD_EXIT)
			goto end;
		if (tr.kind == ENG_OK)
			set_trap(&tr,
				 err.status == WASM_LIMIT ? ENG_LIMIT
							  : ENG_TRAP_HOST,
				 "thread %u: cannot instantiate: %s",
				 eng_thread_id(t), err.msg);
		eng_proc_stop(r->p, &tr);
		return;
	}
	if (!eng_instance_export(inst, "wasi_thread_start", &ex) ||
	    ex.kind != WASM_EXTERN_FUNC) {
		set_trap(&tr, ENG_TRAP_HOST,
			 "thread-spawn: the module exports no function "
			 "wasi_thread_start");
		eng_proc_stop(r->p, &tr);
		return;
	}
	if (eng_call(t, ex.u.func, a, res, &tr) != ENG_OK &&
	    tr.kind != ENG_THREAD_EXIT)
		eng_proc_stop(r->p, &tr);
end:
	if (r->cfg->on_end)
		r->cfg->on_end(r->cfg->hook_ctx, t);
}

static eng_trap_kind host_thread_spawn(eng_thread *t, void *ctx,
				       const eng_val *args, eng_val *results,
				       eng_trap *trap)
{
	run *r = ctx;
	spawn *s = wasm_malloc(sizeof *s);
	wasm_err err;
	int32_t tid = -1;

	wasm_err_clear(&err);
	if (s) {
		s->r = r;
		s->arg = (uint32_t)args[0];
		s->token = r->cfg->on_spawn
			       ? r->cfg->on_spawn(r->cfg->hook_ctx, t)
			       : NULL;
		if ((tid = eng_proc_spawn(r->p, thread_body, s, &err)) < 0) {
			if (r->cfg->on_start)
				r->cfg->on_start(r->cfg->hook_ctx, NULL,
						 s->token);
			wasm_free(s);
		}
	}
	/* wasi-threads: a negative result is an error; wasi-libc turns it
	 * into EAGAIN from pthread_create. */
	results[0] = (uint32_t)(tid > 0 ? tid : -WASI_EAGAIN);
	return ENG_OK;
}

/* ---- resolving imports ------------------------------------------------ */

/* A function type from a signature string ("iI>i"); types has room for
 * 16 entries, more than any preview1 function needs. */
static void sig_type(const char *sig, wasm_functype *ft, uint8_t *types)
{
	bool res = false;

	ft->nparams = ft->nresults = 0;
	ft->types = types;
	for (const char *c = sig; *c; c++) {
		if (*c == '>') {
			res = true;
			continue;
		}
		types[ft->nparams + ft->nresults] =
		    *c == 'I' ? WASM_I64 : WASM_I32;
		if (res)
			ft->nresults++;
		else
			ft->nparams++;
	}
}

static eng_func *host_func(run *r, const char *sig, eng_host_fn fn, void *ctx,
			   const char *name)
{
	uint8_t types[16];
	wasm_functype ft;

	sig_type(sig, &ft, types);
	return eng_host_func_new(r->p, &ft, fn, ctx, name);
}

/* Whether ft is the type sig_type makes of sig. */
static bool is_sig(const wasm_functype *ft, const char *sig)
{
	uint8_t types[16];
	wasm_functype want;

	sig_type(sig, &want, types);
	return ft->nparams == want.nparams && ft->nresults == want.nresults &&
	       !memcmp(ft->types, want.types, want.nparams + want.nresults);
}

/* WASI's own imports: env.memory, wasi_snapshot_preview1.*,
 * wasi.thread-spawn. idx is the import's index (its binding slot). */
static bool resolve_wasi(run *r, const wasm_import *imp, uint32_t idx,
			 eng_extern *out)
{
	eng_func *fn = NULL;

	if (imp->kind == WASM_EXTERN_MEMORY) {
		if (!str_is(imp->module, "env") ||
		    !str_is(imp->name, "memory") || !r->memory)
			return false;
		out->kind = WASM_EXTERN_MEMORY;
		out->u.memory = r->memory;
		return true;
	}
	if (imp->kind != WASM_EXTERN_FUNC)
		return false;
	if (str_is(imp->module, "wasi_snapshot_preview1")) {
		const wasi_func *f = wasi_func_find(imp->name.p, imp->name.len);
		if (str_is(imp->name, "proc_exit")) {
			fn = host_func(r, "i>", host_proc_exit, r, "proc_exit");
		} else if (f) {
			r->bind[idx].r = r;
			r->bind[idx].f = f;
			fn = host_func(r, f->sig, host_wasi, &r->bind[idx],
				       f->name);
		} else if (imp->u.func_type < r->m->ntypes) {
			fn = eng_host_func_new(
			    r->p, &r->m->types[imp->u.func_type], host_nosys,
			    &r->m->types[imp->u.func_type],
			    "wasi (not implemented)");
		}
	} else if (str_is(imp->module, "wasi") &&
		   str_is(imp->name, "thread-spawn")) {
		fn = host_func(r, "i>i", host_thread_spawn, r, "thread-spawn");
	} else if (str_is(imp->module, WASI_THREAD_MODULE) &&
		   str_is(imp->name, "exit")) {
		fn = host_func(r, "", host_thread_exit, r, "thread exit");
	} else if (str_is(imp->module, WASI_HINT_MODULE) &&
		   str_is(imp->name, "stack") &&
		   imp->u.func_type < r->m->ntypes &&
		   is_sig(&r->m->types[imp->u.func_type], "ii>")) {
		fn = host_func(r, "ii>", host_hint_stack, r, "hint stack");
	} else if (str_is(imp->module, WASI_HINT_MODULE) &&
		   imp->u.func_type < r->m->ntypes &&
		   !r->m->types[imp->u.func_type].nresults) {
		fn =
		    eng_host_func_new(r->p, &r->m->types[imp->u.func_type],
				      host_hint, NULL, "hint (nobody listens)");
	}
	if (!fn)
		return false;
	out->kind = WASM_EXTERN_FUNC;
	out->u.func = fn;
	return true;
}

/* The resolver every instance of the run uses: the embedder's first,
 * then WASI's (cached by import index). */
static bool resolve(void *ctx, const wasm_import *imp, eng_extern *out)
{
	run *r = ctx;
	uintptr_t a = (uintptr_t)imp, lo = (uintptr_t)r->m->imports;
	uint32_t idx;
	bool ok;

	if (r->cfg->resolve && r->cfg->resolve(r->cfg->resolve_ctx, imp, out))
		return true;
	if (a < lo || (a - lo) / sizeof *imp >= r->m->nimports)
		return false; /* not an import of this module */
	idx = (uint32_t)((a - lo) / sizeof *imp);
	pthread_mutex_lock(&r->lock);
	if ((ok = r->cached[idx])) {
		*out = r->cache[idx];
	} else if ((ok = resolve_wasi(r, imp, idx, out))) {
		r->cache[idx] = *out;
		r->cached[idx] = true;
	}
	pthread_mutex_unlock(&r->lock);
	return ok;
}

/* ---- public ------------------------------------------------------------ */

static const wasm_export *find_export(const wasm_module *m, const char *name,
				      wasm_extern kind)
{
	for (uint32_t i = 0; i < m->nexports; i++)
		if (m->exports[i].kind == kind &&
		    str_is(m->exports[i].name, name))
			return &m->exports[i];
	return NULL;
}

/* Whether function idx has type (params...) -> () with n i32 params. */
static bool is_i32_void(const wasm_module *m, uint32_t idx, uint32_t n)
{
	const wasm_functype *ft = wasm_func_type(m, idx);

	if (!ft || ft->nparams != n || ft->nresults != 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (ft->types[i] != WASM_I32)
			return false;
	return true;
}

wasm_status wasi_check_command(const wasm_module *m, wasm_err *err)
{
	const wasm_export *start = find_export(m, "_start", WASM_EXTERN_FUNC);
	bool threads = false, shared_env = false;

	if (!start)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "not a WASI command module: no exported "
				    "function _start (reactors are not "
				    "supported)");
	if (!is_i32_void(m, start->index, 0))
		return wasm_err_set(err, WASM_INVALID, start->at,
				    "_start must have type () -> ()");
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *im = &m->imports[i];
		if (im->kind == WASM_EXTERN_FUNC &&
		    str_is(im->module, "wasi") &&
		    str_is(im->name, "thread-spawn"))
			threads = true;
		if (im->kind == WASM_EXTERN_MEMORY &&
		    str_is(im->module, "env") && str_is(im->name, "memory"))
			shared_env = im->u.memory.shared;
	}
	if (threads) {
		const wasm_export *ts =
		    find_export(m, "wasi_thread_start", WASM_EXTERN_FUNC);
		if (!ts || !is_i32_void(m, ts->index, 2))
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "imports wasi.thread-spawn but "
					    "does not export "
					    "wasi_thread_start(i32, i32)");
		if (!shared_env)
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "imports wasi.thread-spawn but not "
					    "a shared memory env.memory: "
					    "threads would not share memory "
					    "(link with --import-memory "
					    "--shared-memory)");
	}
	return WASM_OK;
}

wasm_status wasi_load(const char *path, eng_module **out, wasm_err *err)
{
	uint8_t *bytes = NULL;
	size_t len;
	wasm_module *m = NULL;
	wasm_status st;

	*out = NULL;
	wasm_err_clear(err);
	if ((st = wasm_read_file(path, &bytes, &len, err)))
		return st;
	st = wasm_decode(bytes, len, &m, err);
	wasm_free(bytes);
	if (!st)
		st = wasm_validate(m, err);
	if (!st)
		st = wasi_check_command(m, err);
	if (st) {
		wasm_module_free(m);
		return st;
	}
	return eng_compile(m, out, err); /* owns m from here, also on error */
}

static void run_free(run *r)
{
	if (!r)
		return;
	/* The proc first: it stops and joins the threads whose host calls
	 * use the WASI state. */
	eng_proc_free(r->p);
	if (r->cache)
		wasi_ctx_fini(&r->ctx);
	pthread_mutex_destroy(&r->lock);
	wasm_free(r->cache);
	wasm_free(r->cached);
	wasm_free(r->bind);
	wasm_free(r);
}

wasm_status wasi_run(eng_module *cm, const wasi_config *cfg, eng_trap *trap,
		     int *exit_code, wasm_err *err)
{
	const wasm_module *m = eng_module_wasm(cm);
	uint32_t n = m->nimports ? m->nimports : 1;
	run *r = wasm_calloc(1, sizeof *r);
	eng_thread *t;
	eng_instance *inst;
	eng_extern ex;
	eng_trap tr;
	eng_val res[1];
	wasm_status st = WASM_OK;

	wasm_err_clear(err);
	memset(trap, 0, sizeof *trap);
	*exit_code = -1;
	if (!r)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory starting a run");
	pthread_mutex_init(&r->lock, NULL);
	r->cm = cm;
	r->m = m;
	r->cfg = cfg;
	if ((st = wasi_check_command(m, err)))
		goto done;
	r->cached = wasm_calloc(n, sizeof *r->cached);
	r->bind = wasm_calloc(n, sizeof *r->bind);
	r->p = eng_proc_new(&cfg->limits);
	if (!r->cached || !r->bind || !r->p) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory starting a run");
		goto done;
	}
	if ((st = wasi_ctx_init(&r->ctx, cfg, err)))
		goto done;
	/* From here run_free must tear the WASI state down: cache marks it. */
	if (!(r->cache = wasm_calloc(n, sizeof *r->cache))) {
		wasi_ctx_fini(&r->ctx);
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory starting a run");
		goto done;
	}
	r->ctx.should_stop = should_stop;
	r->ctx.stop_ctx = r;
	r->start_ns = now_ns();
	if (cfg->on_proc)
		cfg->on_proc(cfg->hook_ctx, r->p);

	/* The one env.memory every instance of the run shares, with the
	 * limits the module declares (capped by the proc's limit). */
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *im = &m->imports[i];
		if (im->kind != WASM_EXTERN_MEMORY ||
		    !str_is(im->module, "env") || !str_is(im->name, "memory"))
			continue;
		if (!(r->memory = eng_memory_new(r->p, &im->u.memory, err))) {
			if (err->status != WASM_LIMIT)
				goto done_err;
			set_trap(trap, ENG_LIMIT, "env.memory: %s", err->msg);
			wasm_err_clear(err);
			goto done;
		}
		break;
	}
	if (!(t = eng_thread_new(r->p, err)))
		goto done_err;
	r->main = t;
	memset(&tr, 0, sizeof tr);
	if (!eng_instantiate(cm, r->p, t, resolve, r, &inst, &tr, err)) {
		if (tr.kind == ENG_OK && err->status != WASM_LIMIT)
			goto done_err; /* unknown import, bad import type */
		if (tr.kind == ENG_OK)
			set_trap(&tr, ENG_LIMIT, "%s", err->msg);
		wasm_err_clear(err);
	} else if (!eng_instance_export(inst, "_start", &ex) ||
		   ex.kind != WASM_EXTERN_FUNC) {
		set_trap(&tr, ENG_TRAP_HOST, "no function _start");
	} else if (eng_call(t, ex.u.func, NULL, res, &tr) == ENG_OK) {
		/* _start returned: the program is over, whatever its other
		 * threads are doing (after the grace, if any). */
		exit_grace(r, t, 0);
		set_trap(&tr, ENG_EXIT, "_start returned");
		tr.exit_code = 0;
	}
	eng_proc_stop(r->p, &tr);
	eng_proc_join(r->p);
	if (cfg->on_done)
		cfg->on_done(cfg->hook_ctx, r->p);
	eng_proc_status(r->p, trap);
	if (trap->kind == ENG_OK)
		*trap = tr;
	if (trap->kind == ENG_EXIT)
		*exit_code = trap->exit_code;
	goto done;
done_err:
	st = err->status ? err->status : WASM_NOMEM;
done:
	run_free(r);
	return st;
}
