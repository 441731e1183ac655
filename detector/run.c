/*
 * run.c - one run of an instrumented program under one mask: heisen.mask
 * and heisen.probe chained in front of WASI for every instance of the run,
 * the profile applied around it, the outcome mapped to a det_status.
 */
#include "detector/race.h"

#include "core/wasi.h"

#include <pthread.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const det_profile det_profiles[] = {
    {"default", "the machine as it is: no pinning, no load, no throttling",
     false, 0, false},
    {"one-core", "every thread of the run pinned to one CPU", true, 0, false},
    {"throttled",
     "a slow device: threads yield their CPU every 64 polls while the "
     "run has several",
     false, 64, false},
    {"noisy", "a background thread keeps a CPU busy during the run", false, 0,
     true},
    {NULL, NULL, false, 0, false},
};

const det_profile *det_profile_find(const char *name)
{
	for (const det_profile *p = det_profiles; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

void det_profile_names(char *buf, size_t cap, const char *sep)
{
	size_t len = 0;

	buf[0] = '\0';
	for (const det_profile *p = det_profiles; p->name && len < cap; p++) {
		int n = snprintf(buf + len, cap - len, "%s%s",
				 p == det_profiles ? "" : sep, p->name);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

static const char *const status_names[] = {
    [DET_OK] = "ok",	       [DET_EXIT] = "exit",   [DET_TRAP] = "trap",
    [DET_TIMEOUT] = "timeout", [DET_LIMIT] = "limit", [DET_CRASH] = "crash",
    [DET_ERROR] = "error",
};

const char *det_status_name(det_status s)
{
	return (unsigned)s < sizeof status_names / sizeof *status_names
		   ? status_names[s]
		   : "?";
}

bool det_status_parse(const char *s, det_status *out)
{
	for (unsigned i = 0; i < sizeof status_names / sizeof *status_names;
	     i++)
		if (!strcmp(s, status_names[i])) {
			*out = (det_status)i;
			return true;
		}
	return false;
}

wasm_status det_failure_parse(const char *s, det_failure *out, wasm_err *err)
{
	memset(out, 0, sizeof *out);
	if (!strcmp(s, "trap")) {
		out->kind = DET_FAIL_TRAP;
		return WASM_OK;
	}
	if (!strncmp(s, "exit:", 5)) {
		char *end;
		long c = strtol(s + 5, &end, 10);
		if (s[5] && !*end && c >= 0 && c <= 255) {
			out->kind = DET_FAIL_EXIT;
			out->code = (int)c;
			return WASM_OK;
		}
	}
	if (!strncmp(s, "stdout:", 7) && s[7]) {
		regex_t re;
		int rc =
		    regcomp(&re, s + 7, REG_EXTENDED | REG_NOSUB | REG_NEWLINE);
		if (rc) {
			char msg[160];
			regerror(rc, &re, msg, sizeof msg);
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "failure pattern '%s': %s", s + 7,
					    msg);
		}
		regfree(&re);
		out->kind = DET_FAIL_STDOUT;
		out->pattern = s + 7;
		return WASM_OK;
	}
	return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
			    "failure '%s': say trap, exit:N (N from 0 to "
			    "255) or stdout:REGEX",
			    s);
}

bool det_failure_match(const det_failure *f, const regex_t *re,
		       det_status status, int exit_code, const char *out)
{
	switch (f->kind) {
	case DET_FAIL_TRAP: return status == DET_TRAP;
	case DET_FAIL_EXIT:
		return (status == DET_OK || status == DET_EXIT) &&
		       exit_code == f->code;
	case DET_FAIL_STDOUT: return re && out && !regexec(re, out, 0, NULL, 0);
	}
	return false;
}

static bool is_name(const wasm_str *n, const char *s)
{
	return n->len == strlen(s) && memcmp(n->p, s, n->len) == 0;
}

static bool is_mask_import(const wasm_import *imp)
{
	return imp->kind == WASM_EXTERN_MEMORY &&
	       is_name(&imp->module, "heisen") && is_name(&imp->name, "mask");
}

static uint64_t limits_span(const wasm_limits *l)
{
	return l->has_max ? (uint64_t)l->max * 65536 : (uint64_t)1 << 32;
}

uint64_t det_mem_span(const wasm_module *m)
{
	uint64_t span = 0, s;

	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *imp = &m->imports[i];
		if (imp->kind != WASM_EXTERN_MEMORY || is_mask_import(imp))
			continue;
		if ((s = limits_span(&imp->u.memory)) > span)
			span = s;
	}
	for (uint32_t i = 0; i < m->nmems; i++)
		if ((s = limits_span(&m->mems[i])) > span)
			span = s;
	return span;
}

/* ---- the run's imports --------------------------------------------------- */

#define NHINTS 12

typedef struct run_ctx {
	const det_run_opts *opts;
	det_run_result *res;
	det_probe *probe;
	uint32_t nsites;
	pthread_mutex_t lock; /* the objects below, shared by instances */
	eng_proc *proc;
	eng_memory *mask;
	eng_func *probe_fn;
	eng_func *hint_fn[NHINTS]; /* heisen.hint's, as hint_names */
	bool failed;	      /* err says why an import could not be provided */
	wasm_err err;
} run_ctx;

static eng_trap_kind probe_call(eng_thread *t, void *ctx, const eng_val *args,
				eng_val *results, eng_trap *trap)
{
	det_probe_access(ctx, t, eng_thread_id(t), (uint32_t)args[0],
			 (uint32_t)args[1]);
	return ENG_OK;
}

/* The guest library's hints (core/wasi.h), in hint_names' order. */
static const char *const hint_names[NHINTS] = {
    "alloc",  "free", "stack",	"nosync",     "lock",	     "unlock",
    "benign", "hb",   "ignore", "new_memory", "thread_name", "thread_local"};
static const char *const hint_sigs[NHINTS] = {
    "ii", "i", "ii", "i", "ii", "i", "ii", "ii", "ii", "ii", "ii", "ii"};

static eng_trap_kind hint_alloc(eng_thread *t, void *ctx, const eng_val *args,
				eng_val *results, eng_trap *trap)
{
	det_probe_alloc(ctx, t, eng_thread_id(t), (uint32_t)args[0],
			(uint32_t)args[1]);
	return ENG_OK;
}

static eng_trap_kind hint_free(eng_thread *t, void *ctx, const eng_val *args,
			       eng_val *results, eng_trap *trap)
{
	det_probe_release(ctx, (uint32_t)args[0]);
	return ENG_OK;
}

static eng_trap_kind hint_stack(eng_thread *t, void *ctx, const eng_val *args,
				eng_val *results, eng_trap *trap)
{
	det_probe_stack(ctx, eng_thread_id(t), (uint32_t)args[0],
			(uint32_t)args[1]);
	eng_thread_set_c_stack(t, (uint32_t)args[0], (uint32_t)args[1]);
	return ENG_OK;
}

static eng_trap_kind hint_nosync(eng_thread *t, void *ctx, const eng_val *args,
				 eng_val *results, eng_trap *trap)
{
	det_probe_nosync(ctx, (uint32_t)args[0] != 0);
	return ENG_OK;
}

/* lock(addr, kind): kind as det_lock_kind; unlock(addr). */
static eng_trap_kind hint_lock(eng_thread *t, void *ctx, const eng_val *args,
			       eng_val *results, eng_trap *trap)
{
	det_probe_lock(ctx, t, eng_thread_id(t), (uint32_t)args[0],
		       (uint8_t)(uint32_t)args[1]);
	return ENG_OK;
}

static eng_trap_kind hint_unlock(eng_thread *t, void *ctx, const eng_val *args,
				 eng_val *results, eng_trap *trap)
{
	det_probe_unlock(ctx, (uint32_t)args[0]);
	return ENG_OK;
}

/* The annotations (docs/annotations.md): benign(addr, size); hb(addr,
 * release): 1 releases, 0 acquires; ignore(writes, begin);
 * new_memory(addr, size). */
static eng_trap_kind hint_benign(eng_thread *t, void *ctx, const eng_val *args,
				 eng_val *results, eng_trap *trap)
{
	det_probe_benign(ctx, (uint32_t)args[0], (uint32_t)args[1]);
	return ENG_OK;
}

static eng_trap_kind hint_hb(eng_thread *t, void *ctx, const eng_val *args,
			     eng_val *results, eng_trap *trap)
{
	det_probe_hb_edge(ctx, eng_thread_id(t), (uint32_t)args[0],
			  (uint32_t)args[1] != 0);
	return ENG_OK;
}

static eng_trap_kind hint_ignore(eng_thread *t, void *ctx, const eng_val *args,
				 eng_val *results, eng_trap *trap)
{
	det_probe_ignore(ctx, (uint32_t)args[0] != 0, (uint32_t)args[1] != 0);
	return ENG_OK;
}

/* thread_local(addr, size): errno, one for all threads in this libc. */
static eng_trap_kind hint_thread_local(eng_thread *t, void *ctx,
				       const eng_val *args, eng_val *results,
				       eng_trap *trap)
{
	det_probe_thread_local(ctx, (uint32_t)args[0], (uint32_t)args[1]);
	return ENG_OK;
}

static eng_trap_kind hint_new_memory(eng_thread *t, void *ctx,
				     const eng_val *args, eng_val *results,
				     eng_trap *trap)
{
	det_probe_new_memory(ctx, (uint32_t)args[0], (uint32_t)args[1]);
	return ENG_OK;
}

/* thread_name(addr, len): the calling thread's name. */
static eng_trap_kind hint_thread_name(eng_thread *t, void *ctx,
				      const eng_val *args, eng_val *results,
				      eng_trap *trap)
{
	det_probe_thread_name(ctx, t, eng_thread_id(t), (uint32_t)args[0],
			      (uint32_t)args[1]);
	return ENG_OK;
}

static const eng_host_fn hint_fns[NHINTS] = {
    hint_alloc,	 hint_free,	  hint_stack,	    hint_nosync,
    hint_lock,	 hint_unlock,	  hint_benign,	    hint_hb,
    hint_ignore, hint_new_memory, hint_thread_name, hint_thread_local};

/* One of the hints, when imp asks for it with its signature. */
static bool resolve_hint(run_ctx *r, const wasm_import *imp, eng_extern *out)
{
	static uint8_t i32s[2] = {WASM_I32, WASM_I32};

	if (imp->kind != WASM_EXTERN_FUNC || r->opts->algo == DET_SHARED)
		return false;
	for (int i = 0; i < NHINTS; i++) {
		wasm_functype ft = {(uint32_t)strlen(hint_sigs[i]), 0, i32s};
		if (!is_name(&imp->name, hint_names[i]))
			continue;
		if (!r->hint_fn[i])
			r->hint_fn[i] = eng_host_func_new(
			    r->proc, &ft, hint_fns[i], r->probe, hint_names[i]);
		out->kind = WASM_EXTERN_FUNC;
		out->u.func = r->hint_fn[i];
		return r->hint_fn[i] != NULL;
	}
	return false;
}

static void on_sync(void *ctx, eng_thread *t, eng_sync_event ev, uint64_t addr)
{
	det_probe_sync(ctx, eng_thread_id(t), ev, addr);
}

static void on_switch(void *ctx, eng_thread *t, bool resume)
{
	det_probe_switch(ctx, t, resume);
}

static void on_proc(void *ctx, eng_proc *p)
{
	run_ctx *r = ctx;
	r->proc = p;
	if (r->opts->algo == DET_HB)
		eng_proc_set_sync_hook(p, on_sync, r->probe);
	if (r->opts->sched) {
		eng_proc_set_sched(p, r->opts->sched);
		if (r->probe)
			eng_proc_set_switch_hook(p, on_switch, r->probe);
	}
}

static void on_done(void *ctx, eng_proc *p)
{
	run_ctx *r = ctx;
	eng_proc_sched_stats(p, &r->res->sched);
}

static void *on_spawn(void *ctx, eng_thread *parent)
{
	run_ctx *r = ctx;
	return det_probe_spawn(r->probe, parent, eng_thread_id(parent));
}

static void on_start(void *ctx, eng_thread *child, void *token)
{
	run_ctx *r = ctx;
	uint32_t tid = child ? eng_thread_id(child) : 0;
	det_probe_start(r->probe, child ? &tid : NULL, token);
}

static void on_end(void *ctx, eng_thread *t)
{
	det_probe_end(((run_ctx *)ctx)->probe, eng_thread_id(t));
}

static eng_memory *make_mask(run_ctx *r, const wasm_limits *lim)
{
	eng_memory *mem = eng_memory_new(r->proc, lim, &r->err);

	if (!mem) {
		r->failed = true;
		return NULL;
	}
	if (eng_memory_size(mem) < r->nsites) {
		wasm_err_set(&r->err, WASM_INVALID, WASM_NO_OFFSET,
			     "heisen.mask has %llu bytes but the site table "
			     "has %u sites (the module was instrumented "
			     "differently: instrument it again)",
			     (unsigned long long)eng_memory_size(mem),
			     r->nsites);
		r->failed = true;
		return NULL;
	}
	memcpy(eng_memory_data(mem), r->opts->mask, r->nsites);
	return mem;
}

/* Thread instances resolve the same imports again and get the objects
 * the first instance got. */
static bool resolve(void *ctx, const wasm_import *imp, eng_extern *out)
{
	run_ctx *r = ctx;
	bool ok = false;

	if (is_name(&imp->module, WASI_HINT_MODULE)) {
		pthread_mutex_lock(&r->lock);
		ok = resolve_hint(r, imp, out);
		pthread_mutex_unlock(&r->lock);
		return ok;
	}
	if (!is_name(&imp->module, "heisen"))
		return false;
	pthread_mutex_lock(&r->lock);
	if (is_mask_import(imp)) {
		if (!r->mask && !r->failed)
			r->mask = make_mask(r, &imp->u.memory);
		out->kind = WASM_EXTERN_MEMORY;
		out->u.memory = r->mask;
		ok = r->mask != NULL;
	} else if (is_name(&imp->name, "probe") &&
		   imp->kind == WASM_EXTERN_FUNC) {
		if (!r->probe_fn) {
			static uint8_t types[2] = {WASM_I32, WASM_I32};
			static const wasm_functype ft = {2, 0, types};
			eng_host_filter filter = det_probe_filter(r->probe);
			r->probe_fn = eng_host_func_new(
			    r->proc, &ft, probe_call, r->probe, "heisen.probe");
			const eng_shadow_test *test =
			    det_probe_shadow_test(r->probe);
			if (r->probe_fn && filter &&
			    eng_host_func_set_filter(r->probe_fn, filter) &&
			    test)
				eng_host_func_set_shadow_test(r->probe_fn,
							      test);
		}
		out->kind = WASM_EXTERN_FUNC;
		out->u.func = r->probe_fn;
		ok = r->probe_fn != NULL;
	}
	pthread_mutex_unlock(&r->lock);
	return ok;
}

/* ---- profiles ------------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct noise {
	pthread_t thread;
	atomic_bool stop;
	bool running;
} noise;

/* Busy 200 us, asleep 50 us: a load that takes a CPU most of the time
 * and still lets the scheduler move the run's threads around. */
static void *noise_main(void *arg)
{
	noise *n = arg;
	const struct timespec nap = {0, 50000};

	while (!atomic_load_explicit(&n->stop, memory_order_relaxed)) {
		uint64_t until = now_ns() + 200000;
		while (now_ns() < until)
			;
		nanosleep(&nap, NULL);
	}
	return NULL;
}

typedef struct regime {
	cpu_set_t saved;
	bool pinned;
	noise noise;
} regime;

static void regime_enter(regime *g, const det_profile *pr)
{
	g->pinned = false;
	g->noise.running = false;
	atomic_init(&g->noise.stop, false);
	if (pr->noisy)
		g->noise.running = pthread_create(&g->noise.thread, NULL,
						  noise_main, &g->noise) == 0;
	/* Threads the run creates inherit the calling thread's affinity;
	 * pin to the CPU we are on, so that nothing has to migrate. */
	if (pr->one_core &&
	    sched_getaffinity(0, sizeof g->saved, &g->saved) == 0) {
		cpu_set_t one;
		int cpu = sched_getcpu();
		CPU_ZERO(&one);
		if (cpu < 0 || !CPU_ISSET(cpu, &g->saved))
			for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET(cpu, &g->saved))
					break;
		CPU_SET(cpu, &one);
		g->pinned = sched_setaffinity(0, sizeof one, &one) == 0;
	}
}

static void regime_leave(regime *g)
{
	if (g->pinned)
		sched_setaffinity(0, sizeof g->saved, &g->saved);
	if (g->noise.running) {
		atomic_store(&g->noise.stop, true);
		pthread_join(g->noise.thread, NULL);
	}
}

/* ---- det_run ------------------------------------------------------------- */

static void set_outcome(det_run_result *res, wasm_status st,
			const eng_trap *trap, int code, const wasm_err *werr)
{
	res->exit_code = -1;
	if (st) {
		res->status = DET_ERROR;
		wasm_err_format(werr, NULL, res->msg, sizeof res->msg);
		return;
	}
	switch (trap->kind) {
	case ENG_EXIT:
		res->status = code == 0 ? DET_OK : DET_EXIT;
		res->exit_code = code;
		return;
	case ENG_TIMEOUT: res->status = DET_TIMEOUT; break;
	case ENG_LIMIT: res->status = DET_LIMIT; break;
	case ENG_STOPPED: res->status = DET_ERROR; break;
	default: res->status = DET_TRAP; break;
	}
	snprintf(res->msg, sizeof res->msg, "%s",
		 trap->msg[0] ? trap->msg : eng_trap_name(trap->kind));
}

static wasm_status copy_findings(const det_probe *probe,
				 const det_run_opts *opts, uint32_t nsites,
				 det_run_result *res, wasm_err *err)
{
	res->probes = det_probe_calls(probe);
	if (opts->algo == DET_SHARED) {
		res->shared = wasm_malloc(nsites ? nsites : 1);
		if (!res->shared)
			goto nomem;
		memcpy(res->shared, det_probe_shared(probe), nsites);
		return WASM_OK;
	}
	const det_violation *v =
	    det_probe_violations(probe, &res->nbugs, &res->dropped);
	res->bugs = wasm_malloc((size_t)(res->nbugs ? res->nbugs : 1) *
				sizeof *res->bugs);
	if (!res->bugs)
		goto nomem;
	memcpy(res->bugs, v, (size_t)res->nbugs * sizeof *v);
	det_probe_lock_details(probe, res->bugs, res->nbugs);
	res->benign = det_probe_benign_count(probe);
	det_probe_trigger_stats(probe, &res->holds, &res->met);
	if (opts->hb_bytes)
		det_probe_hb_bytes(probe, &res->shadow_bytes,
				   &res->touched_bytes);
	return WASM_OK;
nomem:
	res->nbugs = 0;
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
			    "out of memory for the run's findings");
}

wasm_status det_run(eng_module *cm, const rw_sites *sites,
		    const det_run_opts *opts, det_run_result *res,
		    wasm_err *err)
{
	const det_profile *pr = opts->profile ? opts->profile : det_profiles;
	run_ctx r = {.opts = opts, .res = res, .nsites = sites->nsites};
	wasi_config cfg;
	void *world = NULL;
	regime g;
	eng_trap trap;
	wasm_err werr;
	int code = -1;
	wasm_status st;
	uint64_t t0;

	memset(res, 0, sizeof *res);
	st = det_probe_new(opts->algo, sites, det_mem_span(eng_module_wasm(cm)),
			   opts->delay, &r.probe, err);
	if (st)
		return st;
	if (opts->trigger && opts->algo == DET_RACE)
		det_probe_set_trigger(r.probe, opts->trigger);
	det_probe_set_stacks(r.probe, !opts->no_stacks);
	if (opts->mask && (st = det_probe_set_mask(r.probe, opts->mask, err))) {
		det_probe_free(r.probe);
		return st;
	}
	pthread_mutex_init(&r.lock, NULL);
	wasm_err_clear(&r.err);
	wasm_err_clear(&werr);
	if (opts->wasi) {
		cfg = *opts->wasi;
	} else {
		wasi_config_init(&cfg);
		cfg.argv = opts->argv;
		cfg.argc = opts->argc;
		memcpy(cfg.stdio, opts->stdio, sizeof cfg.stdio);
		cfg.limits.timeout_s = opts->timeout_s;
		if (opts->world &&
		    (st = wasi_world_apply(opts->world, &cfg, &world, err)))
			goto done;
	}
	cfg.limits.throttle = opts->sched ? 0 : pr->throttle;
	cfg.serial_seed = opts->sched_seed;
	/* A serial run waits the grace in virtual time (wasi.c's
	 * exit_grace): the unjoined threads run until they end or block. */
	if (opts->algo == DET_HB)
		cfg.exit_grace_s = DET_HB_EXIT_GRACE_S;
	cfg.resolve = resolve;
	cfg.resolve_ctx = &r;
	cfg.on_proc = on_proc;
	cfg.on_done = on_done;
	if (opts->algo != DET_SHARED) {
		cfg.on_spawn = on_spawn;
		cfg.on_start = on_start;
	}
	if (opts->algo == DET_HB)
		cfg.on_end = on_end;
	cfg.hook_ctx = &r;

	regime_enter(&g, pr);
	t0 = now_ns();
	st = wasi_run(cm, &cfg, &trap, &code, &werr);
	res->duration_ns = now_ns() - t0;
	regime_leave(&g);

	if (st == WASM_NOMEM) {
		*err = werr;
		goto done;
	}
	/* The resolver's own reason beats WASI's "unknown import". */
	set_outcome(res, st, &trap, code, r.failed ? &r.err : &werr);
	st = copy_findings(r.probe, opts, sites->nsites, res, err);
done:
	if (st)
		det_run_result_free(res);
	wasm_free(world);
	det_probe_free(r.probe);
	pthread_mutex_destroy(&r.lock);
	return st;
}

int det_stdin_fd(const uint8_t *b, uint32_t n)
{
	int fd = memfd_create("heisen-stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t done = 0;
	int e;

	if (fd < 0)
		return -1;
	while (done < n) {
		ssize_t k = write(fd, b + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			goto fail;
		done += (size_t)k;
	}
	if (fcntl(fd, F_ADD_SEALS,
		  F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) ||
	    lseek(fd, 0, SEEK_SET) != 0)
		goto fail;
	return fd;
fail:
	e = errno ? errno : EIO;
	close(fd);
	errno = e;
	return -1;
}

void det_run_result_free(det_run_result *res)
{
	wasm_free(res->bugs);
	wasm_free(res->shared);
	res->bugs = NULL;
	res->shared = NULL;
	res->nbugs = 0;
}
