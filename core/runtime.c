/*
 * runtime.c - everything around the interpreter: procs and their threads,
 * memories, tables, globals, host functions, instantiation and linking,
 * eng_call with its trap point, the guard-page signal handler and the
 * parking lot of memory.atomic.wait/notify.
 *
 * How it works:
 *   Memories. Every memory is one reservation of 8 GiB + 64 KiB
 *   (PROT_NONE, MAP_NORESERVE) of which the first size bytes are
 *   read-write; grow mprotects more, so a memory never moves and
 *   base + u32 address + u32 offset + width never leaves it. A fault in
 *   the reservation while the thread runs guest code (thread-local
 *   current thread, in_wasm, the current instance's memories) is turned
 *   into ENG_TRAP_MEMORY_OOB by siglongjmp to the innermost eng_call;
 *   any other fault goes to the handler that was installed before ours
 *   (ASan's, or the default action: a real crash).
 *
 *   Procs. One atomic stop flag per proc, polled by the interpreter; the
 *   first stop request (or the trap of a thread of a multi-threaded
 *   proc, or proc_exit) is recorded with a compare-and-swap so it is safe
 *   from any thread and from a signal handler. A watchdog thread per proc
 *   with a timeout stops it at the deadline.
 *
 *   Wait/notify. A fixed hash of 256 buckets keyed by the waited address
 *   (memories never move, so the host address is a unique key); each
 *   bucket has a mutex and a FIFO list of parked threads. A parked thread
 *   sleeps on its own futex word: notify sets it to 1, a proc stop to 2
 *   (without any lock: futex wake is async-signal-safe), so stopping
 *   wakes every waiter of the proc promptly.
 *
 * Limitations:
 *   Tables are capped at 10,000,000 elements. A trap in a proc that never
 *   spawned threads is returned to the caller of eng_call but does not
 *   stop the proc (the spec runner keeps calling after assert_trap).
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"
#include "jit.h"

#define RESERVE ((size_t)8 << 30) + ENG_PAGE
#define MAX_TABLE 10000000u
#define ALTSTACK_SIZE (64 * 1024)

const char *eng_trap_name(eng_trap_kind k)
{
	switch (k) {
	case ENG_OK: return "ok";
	case ENG_TRAP_UNREACHABLE: return "unreachable";
	case ENG_TRAP_MEMORY_OOB: return "out of bounds memory access";
	case ENG_TRAP_TABLE_OOB: return "out of bounds table access";
	case ENG_TRAP_UNDEFINED_ELEM: return "undefined element";
	case ENG_TRAP_UNINIT_ELEM: return "uninitialized element";
	case ENG_TRAP_INDIRECT_TYPE: return "indirect call type mismatch";
	case ENG_TRAP_DIV_ZERO: return "integer divide by zero";
	case ENG_TRAP_INT_OVERFLOW: return "integer overflow";
	case ENG_TRAP_BAD_CONVERSION: return "invalid conversion to integer";
	case ENG_TRAP_STACK: return "call stack exhausted";
	case ENG_TRAP_UNALIGNED: return "unaligned atomic";
	case ENG_TRAP_WAIT_UNSHARED: return "expected shared memory";
	case ENG_TRAP_HOST: return "host function failed";
	case ENG_EXIT: return "exit";
	case ENG_TIMEOUT: return "timeout";
	case ENG_STOPPED: return "stopped";
	case ENG_LIMIT: return "resource limit exceeded";
	case ENG_THREAD_EXIT: return "thread exited";
	case ENG_DEADLOCK: return "deadlock";
	case ENG_TRAP_EXCEPTION: return "uncaught exception";
	}
	return "unknown trap";
}

/* ---- signals ----------------------------------------------------------- */

static __thread eng_thread *tls_cur;
static struct sigaction old_segv, old_bus;
static pthread_once_t sig_once = PTHREAD_ONCE_INIT;
static pthread_key_t alt_key;

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;

	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
		old->sa_sigaction(sig, si, uc);
		return;
	}
	if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* Default action: reinstall it and return; the access faults
	 * again and the process dies as it would have without us. */
	signal(sig, SIG_DFL);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	eng_thread *t = tls_cur;

	if (t && t->in_wasm && t->trap_jmp && t->cur_inst) {
		uintptr_t a = (uintptr_t)si->si_addr;
		eng_instance *in = t->cur_inst;
		for (uint32_t i = 0; i < in->nmems; i++) {
			uintptr_t b = (uintptr_t)in->mems[i]->base;
			if (a >= b && a - b < in->mems[i]->reserved) {
				eng_jit_fault(t, uc);
				siglongjmp(*t->trap_jmp, 1);
			}
		}
	}
	chain(sig, si, uc);
}

static void alt_free(void *p)
{
	stack_t ss = {.ss_flags = SS_DISABLE};
	sigaltstack(&ss, NULL);
	munmap(p, ALTSTACK_SIZE);
}

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;

/* Install on_fault for sig unless it is installed, keeping whatever was
 * there to chain to. Called at every proc and thread creation, so a
 * handler installed later by someone else (a test framework, a
 * sanitizer) goes behind ours again. */
static void sig_install(int sig, struct sigaction *old)
{
	struct sigaction sa, cur;

	if (sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == on_fault)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, old);
}

static void sig_check(void)
{
	pthread_mutex_lock(&sig_lock);
	sig_install(SIGSEGV, &old_segv);
	sig_install(SIGBUS, &old_bus);
	pthread_mutex_unlock(&sig_lock);
}

static void sig_init(void)
{
	pthread_key_create(&alt_key, alt_free);
}

/* Give the calling OS thread an alternate signal stack unless it has one
 * (ASan installs its own). */
static void ensure_altstack(void)
{
	stack_t old, ss;
	void *p;

	pthread_once(&sig_once, sig_init);
	sig_check();
	if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE))
		return;
	p = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	ss.ss_sp = p;
	ss.ss_size = ALTSTACK_SIZE;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) != 0) {
		munmap(p, ALTSTACK_SIZE);
		return;
	}
	pthread_setspecific(alt_key, p);
}

/* ---- futex ------------------------------------------------------------- */

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL,
		NULL, 0);
}

/* Sleep while *w == 0, at most ns (< 0: no limit). */
static void futex_wait(_Atomic uint32_t *w, int64_t ns)
{
	struct timespec ts, *tp = NULL;

	if (ns >= 0) {
		ts.tv_sec = ns / 1000000000;
		ts.tv_nsec = ns % 1000000000;
		tp = &ts;
	}
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, 0, tp, NULL, 0);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- procs ------------------------------------------------------------- */

static void obj_add(eng_proc *p, eng_obj *o, void (*fr)(eng_obj *))
{
	o->free = fr;
	pthread_mutex_lock(&p->lock);
	o->next = p->objs;
	p->objs = o;
	pthread_mutex_unlock(&p->lock);
}

static void *watchdog_main(void *arg)
{
	eng_proc *p = arg;
	struct timespec dl;
	double s = p->lim.timeout_s;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += (time_t)s;
	dl.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&p->lock);
	while (!p->wd_quit) {
		if (pthread_cond_timedwait(&p->wd_cv, &p->lock, &dl) ==
		    ETIMEDOUT) {
			eng_trap tr;
			memset(&tr, 0, sizeof tr);
			tr.kind = ENG_TIMEOUT;
			tr.func = WASM_NO_FUNC;
			tr.offset = WASM_NO_OFFSET;
			snprintf(tr.msg, sizeof tr.msg,
				 "timeout: the run took more than %g s", s);
			pthread_mutex_unlock(&p->lock);
			eng_proc_stop(p, &tr);
			return NULL;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

eng_proc *eng_proc_new(const eng_limits *lim)
{
	eng_proc *p = wasm_calloc(1, sizeof *p);
	pthread_condattr_t ca;

	if (!p)
		return NULL;
	pthread_once(&sig_once, sig_init);
	sig_check();
	if (lim)
		p->lim = *lim;
	if (!p->lim.max_memory_pages || p->lim.max_memory_pages > 65536)
		p->lim.max_memory_pages = 65536;
	if (!p->lim.max_threads)
		p->lim.max_threads = 64;
	if (!p->lim.max_call_depth)
		p->lim.max_call_depth = 10000;
	if (!p->lim.stack_slots)
		p->lim.stack_slots = 1u << 20;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->s_lock, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wd_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (p->lim.timeout_s > 0 &&
	    pthread_create(&p->watchdog, NULL, watchdog_main, p) == 0)
		p->has_watchdog = true;
	return p;
}

/* The spawned threads alive: n, with p->lock held. Polls take the slow
 * path of a throttled profile (ENG_STOP_THROTTLE) only while there are
 * some: the first thread alone has nobody to take turns with, and its
 * calls and loops then poll as fast as under the default profile. */
static void set_live(eng_proc *p, uint32_t n)
{
	__atomic_store_n(&p->live, n, __ATOMIC_RELAXED);
	if (!p->lim.throttle)
		return;
	if (n)
		atomic_fetch_or(&p->stop, ENG_STOP_THROTTLE);
	else
		atomic_fetch_and(&p->stop, ~ENG_STOP_THROTTLE);
}

void eng_proc_stop(eng_proc *p, const eng_trap *why)
{
	int exp = 0;

	if (atomic_compare_exchange_strong(&p->rec_state, &exp, 1)) {
		if (why) {
			p->rec = *why;
		} else {
			memset(&p->rec, 0, sizeof p->rec);
			p->rec.kind = ENG_STOPPED;
			p->rec.func = WASM_NO_FUNC;
			p->rec.offset = WASM_NO_OFFSET;
			strcpy(p->rec.msg, "stopped");
		}
		atomic_store(&p->rec_state, 2);
	}
	atomic_fetch_or(&p->stop, ENG_STOP_REQ);
	eng_rt_wake_proc(p);
}

bool eng_rt_poll(eng_thread *t)
{
	eng_proc *p = t->proc;

	if (atomic_load_explicit(&p->stop, memory_order_relaxed) &
	    ENG_STOP_REQ)
		return true;
	if (!t->throttle)
		t->throttle = p->lim.throttle;
	/* Yield only with another thread of the run to yield to: a phase
	 * with one thread has nobody to take turns with. */
	if (++t->polls >= t->throttle) {
		t->polls = 0;
		if (__atomic_load_n(&p->live, __ATOMIC_RELAXED)) {
			int64_t t0 = now_ns();
			sched_yield();
			t->throttle = eng_rt_throttle_next(
			    t->throttle, p->lim.throttle, now_ns() - t0);
		}
	}
	return false;
}

uint32_t eng_rt_throttle_next(uint32_t every, uint32_t base, int64_t took_ns)
{
	if (took_ns >= ENG_THROTTLE_SLOW_NS)
		return every >= ENG_THROTTLE_MAX / 2 ? ENG_THROTTLE_MAX
						     : every * 2;
	every -= every / 16;
	return every > base ? every : base;
}

void eng_proc_status(eng_proc *p, eng_trap *out)
{
	int s;

	while ((s = atomic_load(&p->rec_state)) == 1)
		;
	if (s == 2) {
		*out = p->rec;
		return;
	}
	memset(out, 0, sizeof *out);
	out->kind = ENG_OK;
	out->func = WASM_NO_FUNC;
	out->offset = WASM_NO_OFFSET;
}

void eng_proc_set_host(eng_proc *p, void *host)
{
	p->host = host;
}

void *eng_proc_host(const eng_proc *p)
{
	return p->host;
}

static void thread_release(eng_thread *t)
{
	if (t->stack) {
		munmap(t->stack, t->stack_bytes);
		t->stack = NULL;
	}
	if (t->frames) {
		munmap(t->frames,
		       ((size_t)t->max_depth + 2) * sizeof *t->frames);
		t->frames = NULL;
	}
	wasm_free(t->exn_vals);
	t->exn_vals = NULL;
	t->exn_cap = 0;
	t->exn_tag = NULL;
}

bool eng_exn_set(eng_thread *t, const eng_tag *tag, const eng_val *vals)
{
	if (tag->nslots > t->exn_cap) {
		eng_val *v =
		    wasm_realloc(t->exn_vals, (size_t)tag->nslots * sizeof *v);
		if (!v)
			return false;
		t->exn_vals = v;
		t->exn_cap = tag->nslots;
	}
	/* vals may be the thread's own buffer (a rethrow of what is being
	 * thrown): memmove. */
	if (tag->nslots)
		memmove(t->exn_vals, vals, tag->nslots * sizeof *vals);
	t->exn_tag = tag;
	return true;
}

void eng_proc_join(eng_proc *p)
{
	pthread_t *fin;
	uint32_t n;

	/* A serial proc's threads run only when something switches to
	 * them: here, until each has ended. */
	if (p->serial) {
		eng_thread *left;
		while ((left = eng_sched_leftover(p)))
			eng_rt_fiber_to(p, NULL, left, false);
	}

	pthread_mutex_lock(&p->lock);
	while (p->live > 0)
		pthread_cond_wait(&p->done_cv, &p->lock);
	fin = p->finished;
	n = p->nfinished;
	p->finished = NULL;
	p->nfinished = p->cap_finished = 0;
	pthread_mutex_unlock(&p->lock);
	for (uint32_t i = 0; i < n; i++)
		pthread_join(fin[i], NULL);
	wasm_free(fin);
}

void eng_proc_await(eng_proc *p, uint32_t keep, double timeout_s)
{
	struct timespec dl;
	uint64_t ns = (uint64_t)(timeout_s * 1e9);

	/* done_cv times on CLOCK_REALTIME, the default. */
	clock_gettime(CLOCK_REALTIME, &dl);
	ns += (uint64_t)dl.tv_nsec;
	dl.tv_sec += (time_t)(ns / 1000000000u);
	dl.tv_nsec = (long)(ns % 1000000000u);
	pthread_mutex_lock(&p->lock);
	while (p->live > keep &&
	       !(atomic_load(&p->stop) & ENG_STOP_REQ) &&
	       pthread_cond_timedwait(&p->done_cv, &p->lock, &dl) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&p->lock);
}

void eng_proc_free(eng_proc *p)
{
	eng_obj *o, *next;
	eng_thread *t, *tn;

	if (!p)
		return;
	eng_proc_stop(p, NULL);
	eng_proc_join(p);
	if (p->has_watchdog) {
		pthread_mutex_lock(&p->lock);
		p->wd_quit = true;
		pthread_cond_signal(&p->wd_cv);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->watchdog, NULL);
	}
	for (o = p->objs; o; o = next) {
		next = o->next;
		o->free(o);
	}
	for (t = atomic_load(&p->threads); t; t = tn) {
		tn = t->next_in_proc;
		thread_release(t);
		eng_fiber_free(&t->fib);
		wasm_free(t);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->s_lock);
	wasm_free(p->s_threads);
	wasm_free(p->s_alive);
	wasm_free(p->stops);
	pthread_cond_destroy(&p->done_cv);
	pthread_cond_destroy(&p->wd_cv);
	wasm_free(p);
}

/* ---- threads ----------------------------------------------------------- */

eng_thread *eng_thread_new(eng_proc *p, wasm_err *err)
{
	eng_thread *t = wasm_calloc(1, sizeof *t);
	void *s;

	if (!t)
		goto nomem;
	ensure_altstack();
	t->proc = p;
	t->max_depth = p->lim.max_call_depth;
	t->stack_bytes = (size_t)p->lim.stack_slots * sizeof(eng_val);
	s = mmap(NULL, t->stack_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s == MAP_FAILED)
		goto nomem;
	t->stack = s;
	t->stack_end = t->stack + p->lim.stack_slots;
	t->stack_top = t->stack;
	s = mmap(NULL, ((size_t)t->max_depth + 2) * sizeof *t->frames,
		 PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s == MAP_FAILED)
		goto nomem;
	t->frames = s;
	pthread_mutex_lock(&p->lock);
	t->id = p->next_tid++;
	t->next_in_proc = atomic_load(&p->threads);
	atomic_store(&p->threads, t);
	pthread_mutex_unlock(&p->lock);
	if (p->serial && !eng_sched_register(t)) {
		/* In the proc's list already: eng_proc_free frees it. */
		t->s_state = ENG_S_DONE;
		wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
			     "out of memory for the thread table");
		return NULL;
	}
	return t;
nomem:
	if (t) {
		thread_release(t);
		wasm_free(t);
	}
	wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
		     "out of memory for a thread's stacks");
	return NULL;
}

void eng_thread_set_c_stack(eng_thread *t, uint32_t lo, uint32_t hi)
{
	t->sp_lo = lo < hi ? lo : 0;
	t->sp_hi = hi;
}

uint32_t eng_thread_id(const eng_thread *t)
{
	return t->id;
}

eng_proc *eng_thread_proc(const eng_thread *t)
{
	return t->proc;
}

eng_instance *eng_thread_instance(const eng_thread *t)
{
	return t->cur_inst;
}

/* The end of spawned thread t: its stacks released, the proc's count of
 * live threads down and whoever waits on it told. An OS thread (os) is
 * listed for eng_proc_join or the next spawn to join. */
static void thread_ended(eng_thread *t, bool os)
{
	eng_proc *p = t->proc;

	thread_release(t);
	pthread_mutex_lock(&p->lock);
	set_live(p, p->live - 1);
	if (os && p->nfinished == p->cap_finished) {
		uint32_t nc = p->cap_finished ? p->cap_finished * 2 : 16;
		pthread_t *nf = wasm_realloc(p->finished, nc * sizeof *nf);
		if (nf) {
			p->finished = nf;
			p->cap_finished = nc;
		}
	}
	if (os && p->nfinished < p->cap_finished)
		p->finished[p->nfinished++] = pthread_self();
	else if (os)
		pthread_detach(pthread_self());
	pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->lock);
}

static void *thread_main(void *arg)
{
	eng_thread *t = arg;

	ensure_altstack();
	t->fn(t, t->arg);
	thread_ended(t, true);
	return NULL;
}

/* A spawned thread of a serial proc, on its own stack: it runs when its
 * turn comes, and ends by switching away for good. */
static void fiber_main(void *arg)
{
	eng_thread *t = arg;
	eng_proc *p = t->proc;

	tls_cur = NULL;
	if (p->switch_hook)
		p->switch_hook(p->switch_ctx, t, true);
	eng_sched_enter(t);
	t->fn(t, t->arg);
	eng_sched_end(t);
	thread_ended(t, false);
	t->fib_done = true;
	eng_sched_exit(t);
}

void eng_rt_fiber_to(eng_proc *p, eng_thread *from, eng_thread *to, bool last)
{
	eng_fiber *a = from && from->has_fib ? &from->fib : &p->host_fiber;
	eng_fiber *b = to && to->has_fib ? &to->fib : &p->host_fiber;
	/* Each stack keeps its own: the thread in guest code there. */
	eng_thread *mine = tls_cur;

	if (a == b)
		return;
	if (from && p->switch_hook)
		p->switch_hook(p->switch_ctx, from, false);
	if (last) {
		eng_fiber_finish(a, b);
		return;
	}
	eng_fiber_switch(a, b);
	tls_cur = mine;
	if (from && p->switch_hook)
		p->switch_hook(p->switch_ctx, from, true);
}

int32_t eng_proc_spawn(eng_proc *p, eng_thread_fn fn, void *arg,
		       wasm_err *err)
{
	eng_thread *t;
	pthread_attr_t at;
	pthread_t *fin;
	uint32_t nfin;
	int rc;

	pthread_mutex_lock(&p->lock);
	if (p->live >= p->lim.max_threads) {
		pthread_mutex_unlock(&p->lock);
		wasm_err_set(err, WASM_LIMIT, WASM_NO_OFFSET,
			     "thread limit reached: %u threads are running",
			     p->lim.max_threads);
		return -1;
	}
	set_live(p, p->live + 1);
	p->nspawned++;
	/* Join threads that have finished, so that a program spawning
	 * many short threads does not pile up their OS resources. */
	fin = p->finished;
	nfin = p->nfinished;
	p->finished = NULL;
	p->nfinished = p->cap_finished = 0;
	pthread_mutex_unlock(&p->lock);
	for (uint32_t i = 0; i < nfin; i++)
		pthread_join(fin[i], NULL);
	wasm_free(fin);

	t = eng_thread_new(p, err);
	if (!t)
		goto undo;
	t->fn = fn;
	t->arg = arg;
	if (p->serial) {
		/* The stacks of threads that have ended go back first: a
		 * program running thousands of short threads one after
		 * another keeps a few mapped, not thousands. */
		for (eng_thread *o = atomic_load(&p->threads); o;
		     o = o->next_in_proc)
			if (o->fib_done && o->fib.map)
				eng_fiber_free(&o->fib);
		if (!eng_fiber_new(&t->fib, ENG_FIBER_STACK, fiber_main, t)) {
			eng_sched_end(t);
			thread_release(t);
			wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				     "cannot map a thread's stack: %s",
				     strerror(errno));
			goto undo;
		}
		t->has_fib = true;
		eng_sched_spawned(p);
		return (int32_t)t->id;
	}
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 1u << 20);
	rc = pthread_create(&t->os, &at, thread_main, t);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		thread_release(t);
		wasm_err_set(err, rc == EAGAIN ? WASM_LIMIT : WASM_NOMEM,
			     WASM_NO_OFFSET, "cannot create a thread: %s",
			     strerror(rc));
		goto undo;
	}
	return (int32_t)t->id;
undo:
	pthread_mutex_lock(&p->lock);
	set_live(p, p->live - 1);
	pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->lock);
	return -1;
}

/* ---- memories ------------------------------------------------------- */

static void memory_free(eng_obj *o)
{
	eng_memory *m = (eng_memory *)o;
	if (m->base)
		munmap(m->base, m->reserved);
	pthread_mutex_destroy(&m->grow_lock);
	wasm_free(m);
}

eng_memory *eng_memory_new(eng_proc *p, const wasm_limits *lim,
			   wasm_err *err)
{
	eng_memory *m;
	uint32_t maxp = p->lim.max_memory_pages;
	void *base;

	if (lim->has_max && lim->max < maxp)
		maxp = lim->max;
	if (lim->min > maxp) {
		wasm_err_set(err, WASM_LIMIT, WASM_NO_OFFSET,
			     "memory of %u pages exceeds the limit of %u "
			     "pages",
			     lim->min, maxp);
		return NULL;
	}
	m = wasm_calloc(1, sizeof *m);
	if (!m) {
		wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
		return NULL;
	}
	base = mmap(NULL, RESERVE, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		wasm_free(m);
		wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
			     "cannot reserve address space for a memory: %s",
			     strerror(errno));
		return NULL;
	}
	if (lim->min &&
	    mprotect(base, (size_t)lim->min * ENG_PAGE,
		     PROT_READ | PROT_WRITE) != 0) {
		munmap(base, RESERVE);
		wasm_free(m);
		wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
			     "cannot commit %u pages of memory: %s", lim->min,
			     strerror(errno));
		return NULL;
	}
	m->base = base;
	m->reserved = RESERVE;
	m->size = (uint64_t)lim->min * ENG_PAGE;
	m->max_pages = maxp;
	m->lim = *lim;
	pthread_mutex_init(&m->grow_lock, NULL);
	obj_add(p, &m->obj, memory_free);
	return m;
}

uint8_t *eng_memory_data(eng_memory *mem)
{
	return mem->base;
}

uint64_t eng_memory_size(eng_memory *mem)
{
	return atomic_load(&mem->size);
}

const wasm_limits *eng_memory_limits(const eng_memory *mem)
{
	return &mem->lim;
}

uint32_t eng_rt_memory_grow(eng_proc *p, eng_memory *m, uint32_t delta)
{
	uint64_t size;
	uint32_t old;

	(void)p;
	pthread_mutex_lock(&m->grow_lock);
	size = atomic_load(&m->size);
	old = (uint32_t)(size / ENG_PAGE);
	if (delta == 0)
		goto done;
	if ((uint64_t)old + delta > m->max_pages ||
	    mprotect(m->base + size, (size_t)delta * ENG_PAGE,
		     PROT_READ | PROT_WRITE) != 0) {
		old = UINT32_MAX;
		goto done;
	}
	m->lim.min = old + delta;
	atomic_store(&m->size, size + (uint64_t)delta * ENG_PAGE);
done:
	pthread_mutex_unlock(&m->grow_lock);
	return old;
}

/* ---- tables, globals, host functions ----------------------------------- */

static bool table_init(eng_table *t, const wasm_tabletype *type)
{
	t->type = *type;
	t->size = type->lim.min;
	t->max = type->lim.has_max ? type->lim.max : UINT32_MAX;
	if (t->max > MAX_TABLE)
		t->max = MAX_TABLE;
	if (t->size > MAX_TABLE)
		return false;
	t->elems = wasm_calloc(t->size ? t->size : 1, sizeof *t->elems);
	return t->elems != NULL;
}

static void table_free(eng_obj *o)
{
	eng_table *t = (eng_table *)o;
	wasm_free(t->elems);
	wasm_free(t);
}

eng_table *eng_table_new(eng_proc *p, const wasm_tabletype *type,
			 wasm_err *err)
{
	eng_table *t = wasm_calloc(1, sizeof *t);

	if (!t || !table_init(t, type)) {
		if (t)
			wasm_free(t->elems);
		wasm_free(t);
		wasm_err_set(err, WASM_LIMIT, WASM_NO_OFFSET,
			     "cannot create a table of %u elements",
			     type->lim.min);
		return NULL;
	}
	obj_add(p, &t->obj, table_free);
	return t;
}

uint32_t eng_rt_table_grow(eng_table *t, eng_val init, uint32_t delta)
{
	uint32_t old = t->size;
	eng_val *ne;

	if ((uint64_t)old + delta > t->max)
		return UINT32_MAX;
	if (delta == 0)
		return old;
	ne = wasm_realloc(t->elems, ((size_t)old + delta) * sizeof *ne);
	if (!ne)
		return UINT32_MAX;
	for (uint32_t i = 0; i < delta; i++)
		ne[old + i] = init;
	t->elems = ne;
	t->size = old + delta;
	t->type.lim.min = t->size;
	return old;
}

static void global_free(eng_obj *o)
{
	wasm_free(o);
}

eng_global *eng_global_new(eng_proc *p, wasm_globaltype type,
			   const eng_val *v)
{
	eng_global *g = wasm_calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->type = type;
	memcpy(g->val, v, eng_type_slots(type.type) * sizeof *v);
	obj_add(p, &g->obj, global_free);
	return g;
}

void eng_global_get(const eng_global *g, eng_val *out)
{
	memcpy(out, g->val, eng_type_slots(g->type.type) * sizeof *out);
}

wasm_globaltype eng_global_type(const eng_global *g)
{
	return g->type;
}

const wasm_functype *eng_func_type(const eng_func *f)
{
	return f->type;
}

/* The slots f's params and results take, from its type. */
static void func_slots(eng_func *f)
{
	const wasm_functype *ft = f->type;

	f->nargs = eng_slots(ft->types, ft->nparams);
	f->nrets = eng_slots(ft->types + ft->nparams, ft->nresults);
}

static void hostfn_free(eng_obj *o)
{
	eng_func *f = (eng_func *)o;
	wasm_free(f->own_type.types);
	wasm_free(f->name);
	wasm_free(f);
}

eng_func *eng_host_func_new(eng_proc *p, const wasm_functype *type,
			    eng_host_fn fn, void *ctx, const char *name)
{
	eng_func *f = wasm_calloc(1, sizeof *f);
	uint32_t n = type->nparams + type->nresults;

	if (!f)
		return NULL;
	f->own_type.nparams = type->nparams;
	f->own_type.nresults = type->nresults;
	f->own_type.types = wasm_malloc(n ? n : 1);
	f->name = wasm_malloc(name ? strlen(name) + 1 : 1);
	if (!f->own_type.types || !f->name) {
		wasm_free(f->own_type.types);
		wasm_free(f->name);
		wasm_free(f);
		return NULL;
	}
	memcpy(f->own_type.types, type->types, n);
	strcpy(f->name, name ? name : "");
	f->name_hash = eng_sched_name_hash(f->name);
	f->type = &f->own_type;
	f->type_id = eng_type_intern(type);
	func_slots(f);
	f->host = fn;
	f->ctx = ctx;
	obj_add(p, &f->obj, hostfn_free);
	return f;
}

bool eng_host_func_set_filter(eng_func *f, eng_host_filter filter)
{
	if (f->inst || f->nrets)
		return false;
	f->filter = filter;
	return true;
}

bool eng_host_func_set_shadow_test(eng_func *f, const eng_shadow_test *t)
{
	const wasm_functype *ft = f->type;

	/* The limits keep compiled code's index arithmetic in 32 bits. */
	if (!f->filter || ft->nparams != 2 || ft->nresults ||
	    ft->types[0] != WASM_I32 || ft->types[1] != WASM_I32 ||
	    (t && ((uint64_t)t->nthreads * t->stride >= (uint64_t)1 << 31 ||
		   t->nsites >= (uint32_t)1 << 26)))
		return false;
	f->shadow = t;
	return true;
}

/* One word of the test (engine.h): the access again, or another of the
 * thread's with no other thread's record beside it. */
static bool shadow_word_holds(const eng_shadow_test *t,
			      const eng_shadow_thread *r,
			      const eng_shadow_site *e, const uint64_t *x,
			      uint64_t word, uint64_t m)
{
	uint64_t v = __atomic_load_n(x, __ATOMIC_RELAXED), o;

	if ((v & (t->care | m)) == (word | e->bits | m))
		return true;
	if (!e->other || (v & (t->same | m)) != (word | m))
		return false;
	o = __atomic_load_n((const uint64_t *)((const uint8_t *)x + e->other),
			    __ATOMIC_RELAXED) &
	    t->ocare;
	return !o || o == __atomic_load_n(&r->own, __ATOMIC_RELAXED);
}

eng_shadow_answer eng_shadow_test_run(const eng_shadow_test *t, uint32_t tid,
				      const eng_val *args)
{
	uint32_t addr = (uint32_t)args[0], site = (uint32_t)args[1];
	const eng_shadow_site *e;
	eng_shadow_thread *r;
	const uint64_t *x;
	uint64_t word, m;

	if (tid >= t->nthreads || site >= t->nsites)
		return ENG_SHADOW_NONE;
	r = (eng_shadow_thread *)((char *)t->threads + (size_t)tid * t->stride);
	e = &t->sites[site];
	word = __atomic_load_n(&r->word, __ATOMIC_RELAXED);
	if (!word ||
	    (e->width != 1 && e->width != 2 && e->width != 4 &&
	     e->width != 8) ||
	    (addr & e->align) || (uint64_t)addr + e->width > t->limit)
		return ENG_SHADOW_NONE;
	m = e->mask << (addr & 3);
	x = (const uint64_t *)((const uint8_t *)t->shadow +
			       (uint64_t)(addr & ~3u) * 4 + e->off);
	if (!shadow_word_holds(t, r, e, x, word, m) ||
	    !shadow_word_holds(t, r, e,
			       (const uint64_t *)((const uint8_t *)x + e->next),
			       word, m)) {
		__atomic_store_n(&r->tested, 1, __ATOMIC_RELAXED);
		return ENG_SHADOW_CALL;
	}
	__atomic_store_n(&r->skipped,
			 __atomic_load_n(&r->skipped, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	return ENG_SHADOW_SKIP;
}

eng_trap_kind eng_rt_call_host(eng_thread *t, eng_func *f, eng_val *args,
			       eng_val *results, eng_trap *trap)
{
	eng_trap_kind k;
	bool was = t->in_wasm;

	t->in_wasm = false;
	trap->kind = ENG_OK;
	trap->msg[0] = 0;
	if (t->proc->serial && (k = eng_sched_host(t, f, args)) != ENG_OK) {
		t->in_wasm = was;
		trap->kind = k;
		snprintf(trap->msg, sizeof trap->msg, "%s", eng_trap_name(k));
		trap->func = WASM_NO_FUNC;
		trap->offset = WASM_NO_OFFSET;
		return k;
	}
	k = f->host(t, f->ctx, args, results, trap);
	t->in_wasm = was;
	if (k != ENG_OK) {
		trap->kind = k;
		if (!trap->msg[0])
			snprintf(trap->msg, sizeof trap->msg,
				 "%s in host function '%s'", eng_trap_name(k),
				 f->name ? f->name : "?");
		if (k != ENG_EXIT) {
			trap->func = WASM_NO_FUNC;
			trap->offset = WASM_NO_OFFSET;
		}
	}
	return k;
}

/* ---- bulk memory and tables ------------------------------------------- */

eng_trap_kind eng_rt_bulk(eng_instance *inst, const eng_cell *ip, eng_val *fp,
			  unsigned op)
{
	switch (op) {
	case EOP_MEMORY_FILL: {
		eng_memory *m = inst->mems[ip[3].u32[0]];
		uint64_t d = (uint32_t)fp[ip[1].u32[0]],
			 n = (uint32_t)fp[ip[2].u32[0]];
		if (d + n >
		    atomic_load_explicit(&m->size, memory_order_relaxed))
			return ENG_TRAP_MEMORY_OOB;
		memset(m->base + d, (int)(uint8_t)fp[ip[1].u32[1]], n);
		return ENG_OK;
	}
	case EOP_MEMORY_COPY: {
		eng_memory *dm = inst->mems[ip[3].u32[0]];
		eng_memory *sm = inst->mems[ip[3].u32[1]];
		uint64_t d = (uint32_t)fp[ip[1].u32[0]],
			 s = (uint32_t)fp[ip[1].u32[1]];
		uint64_t n = (uint32_t)fp[ip[2].u32[0]];
		if (s + n >
			atomic_load_explicit(&sm->size, memory_order_relaxed) ||
		    d + n >
			atomic_load_explicit(&dm->size, memory_order_relaxed))
			return ENG_TRAP_MEMORY_OOB;
		memmove(dm->base + d, sm->base + s, n);
		return ENG_OK;
	}
	case EOP_MEMORY_INIT: {
		uint32_t x = ip[3].u32[0];
		eng_memory *m = inst->mems[ip[3].u32[1]];
		const wasm_data *seg = &inst->cm->m->datas[x];
		uint64_t d = (uint32_t)fp[ip[1].u32[0]],
			 s = (uint32_t)fp[ip[1].u32[1]];
		uint64_t n = (uint32_t)fp[ip[2].u32[0]];
		uint64_t len = inst->data_dropped[x] ? 0 : seg->len;
		if (s + n > len || d + n > atomic_load_explicit(
					       &m->size, memory_order_relaxed))
			return ENG_TRAP_MEMORY_OOB;
		memcpy(m->base + d, inst->cm->m->bytes + seg->start + s, n);
		return ENG_OK;
	}
	case EOP_DATA_DROP: {
		inst->data_dropped[ip[1].u32[0]] = true;
		return ENG_OK;
	}

	case EOP_TABLE_GET: {
		eng_table *t = inst->tables[ip[2].u32[0]];
		uint32_t i = (uint32_t)fp[ip[1].u32[1]];
		if (i >= t->size)
			return ENG_TRAP_TABLE_OOB;
		fp[ip[1].u32[0]] = t->elems[i];
		return ENG_OK;
	}
	case EOP_TABLE_SET: {
		eng_table *t = inst->tables[ip[2].u32[0]];
		uint32_t i = (uint32_t)fp[ip[1].u32[0]];
		if (i >= t->size)
			return ENG_TRAP_TABLE_OOB;
		t->elems[i] = fp[ip[1].u32[1]];
		return ENG_OK;
	}
	case EOP_TABLE_SIZE: {
		fp[ip[1].u32[0]] = inst->tables[ip[1].u32[1]]->size;
		return ENG_OK;
	}
	case EOP_TABLE_GROW: {
		eng_table *t = inst->tables[ip[2].u32[1]];
		fp[ip[1].u32[0]] = eng_rt_table_grow(
		    t, fp[ip[1].u32[1]], (uint32_t)fp[ip[2].u32[0]]);
		return ENG_OK;
	}
	case EOP_TABLE_FILL: {
		eng_table *t = inst->tables[ip[3].u32[0]];
		uint64_t i = (uint32_t)fp[ip[1].u32[0]],
			 n = (uint32_t)fp[ip[2].u32[0]];
		eng_val v = fp[ip[1].u32[1]];
		if (i + n > t->size)
			return ENG_TRAP_TABLE_OOB;
		for (uint64_t k = 0; k < n; k++)
			t->elems[i + k] = v;
		return ENG_OK;
	}
	case EOP_TABLE_COPY: {
		eng_table *dt = inst->tables[ip[3].u32[0]];
		eng_table *st = inst->tables[ip[3].u32[1]];
		uint64_t d = (uint32_t)fp[ip[1].u32[0]],
			 s = (uint32_t)fp[ip[1].u32[1]];
		uint64_t n = (uint32_t)fp[ip[2].u32[0]];
		if (s + n > st->size || d + n > dt->size)
			return ENG_TRAP_TABLE_OOB;
		memmove(dt->elems + d, st->elems + s, n * sizeof(eng_val));
		return ENG_OK;
	}
	case EOP_TABLE_INIT: {
		uint32_t x = ip[3].u32[0];
		eng_table *t = inst->tables[ip[3].u32[1]];
		uint64_t d = (uint32_t)fp[ip[1].u32[0]],
			 s = (uint32_t)fp[ip[1].u32[1]];
		uint64_t n = (uint32_t)fp[ip[2].u32[0]];
		uint64_t len = inst->elem_vals[x] ? inst->elem_len[x] : 0;
		if (s + n > len || d + n > t->size)
			return ENG_TRAP_TABLE_OOB;
		if (n)
			memcpy(t->elems + d, inst->elem_vals[x] + s,
			       n * sizeof(eng_val));
		return ENG_OK;
	}
	case EOP_ELEM_DROP: {
		/* An empty segment is a dropped one; the values stay owned
		 * by the instance and are freed with it. */
		inst->elem_len[ip[1].u32[0]] = 0;
		return ENG_OK;
	}
	}
	return ENG_TRAP_HOST;
}

eng_trap_kind eng_rt_wait_notify(eng_thread *t, eng_instance *inst,
				 const eng_cell *ip, eng_val *fp, unsigned op)
{
	unsigned w = op == EOP_MEMORY_ATOMIC_WAIT64 ? 8 : 4;
	eng_memory *m = inst->mems[ip[3].u32[1]];
	uint64_t ea = (uint64_t)(uint32_t)fp[ip[1].u32[1]] + ip[3].u32[0];
	uint64_t size = atomic_load_explicit(&m->size, memory_order_relaxed);
	uint64_t b = fp[ip[2].u32[0]];
	uint32_t res = 0;
	eng_trap_kind k;

	t->pc = ip;
	/* Out of bounds first when also misaligned, as for every atomic. */
	if (ea + w > size)
		return ENG_TRAP_MEMORY_OOB;
	if (ea & (w - 1))
		return ENG_TRAP_UNALIGNED;
	if (op == EOP_MEMORY_ATOMIC_NOTIFY) {
		fp[ip[1].u32[0]] =
		    eng_rt_notify(t, m, m->base + ea, (uint32_t)b);
		return ENG_OK;
	}
	k = eng_rt_wait(t, m, m->base + ea, w == 8 ? b : (uint32_t)b, w == 8,
			(int64_t)fp[ip[2].u32[1]], &res);
	if (k == ENG_TRAP_WAIT_UNSHARED)
		return k;
	if (k != ENG_OK)
		return ENG_STOPPED;
	fp[ip[1].u32[0]] = res;
	return ENG_OK;
}

/* ---- wait / notify ---------------------------------------------------- */

#define NBUCKETS 256
static struct bucket {
	pthread_mutex_t lock;
	eng_thread *head, *tail;
} buckets[NBUCKETS] = {[0 ... NBUCKETS - 1] = {PTHREAD_MUTEX_INITIALIZER,
					       NULL, NULL}};

static struct bucket *bucket_of(uintptr_t key)
{
	uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
	return &buckets[h >> 56];
}

/* Remove t from b's list if it is there; true if it was. */
static bool bucket_remove(struct bucket *b, eng_thread *t)
{
	eng_thread **pp = &b->head, *prev = NULL;

	for (; *pp; prev = *pp, pp = &(*pp)->park_next) {
		if (*pp == t) {
			*pp = t->park_next;
			if (b->tail == t)
				b->tail = prev;
			t->park_next = NULL;
			return true;
		}
	}
	return false;
}

/* The word memory.atomic.wait compares with its expected value. */
static uint64_t wait_word(const uint8_t *addr, bool is64)
{
	return is64 ? __atomic_load_n((const uint64_t *)addr, __ATOMIC_SEQ_CST)
		    : __atomic_load_n((const uint32_t *)addr, __ATOMIC_SEQ_CST);
}

eng_trap_kind eng_rt_wait(eng_thread *t, eng_memory *mem, uint8_t *addr,
			  uint64_t expect, bool is64, int64_t timeout_ns,
			  uint32_t *result)
{
	struct bucket *b;
	uint64_t cur;
	int64_t deadline = 0;
	bool notified;
	eng_proc *p = t->proc;

	if (!mem->lim.shared)
		return ENG_TRAP_WAIT_UNSHARED;
	if (p->serial) {
		eng_trap_kind k;
		/* Nobody else runs: the value cannot change under us. */
		cur = wait_word(addr, is64);
		if (cur != expect) {
			*result = 1;
			return ENG_OK;
		}
		k = eng_sched_wait(t, (uintptr_t)addr,
				   (uint64_t)(addr - mem->base), timeout_ns,
				   result);
		if (k == ENG_OK && *result == 0 && p->sync_hook)
			p->sync_hook(p->sync_ctx, t, ENG_SYNC_WOKEN,
				     (uint64_t)(addr - mem->base));
		return k;
	}
	b = bucket_of((uintptr_t)addr);
	pthread_mutex_lock(&b->lock);
	cur = wait_word(addr, is64);
	if (cur != expect) {
		pthread_mutex_unlock(&b->lock);
		*result = 1;
		return ENG_OK;
	}
	atomic_store(&t->park_word, 0);
	t->park_key = (uintptr_t)addr;
	t->park_next = NULL;
	if (b->tail)
		b->tail->park_next = t;
	else
		b->head = t;
	b->tail = t;
	atomic_store(&t->parked, true);
	pthread_mutex_unlock(&b->lock);

	if (timeout_ns >= 0)
		deadline = now_ns() + timeout_ns;
	for (;;) {
		int64_t left = -1;
		if (atomic_load(&t->park_word) != 0 ||
		    (atomic_load(&p->stop) & ENG_STOP_REQ))
			break;
		if (timeout_ns >= 0) {
			left = deadline - now_ns();
			if (left <= 0)
				break;
		}
		futex_wait(&t->park_word, left);
	}
	pthread_mutex_lock(&b->lock);
	notified = !bucket_remove(b, t);
	atomic_store(&t->parked, false);
	pthread_mutex_unlock(&b->lock);
	if (notified) {
		if (p->sync_hook)
			p->sync_hook(p->sync_ctx, t, ENG_SYNC_WOKEN,
				     (uint64_t)(addr - mem->base));
		*result = 0;
		return ENG_OK;
	}
	if (atomic_load(&p->stop) & ENG_STOP_REQ)
		return ENG_STOPPED;
	*result = 2;
	return ENG_OK;
}

uint32_t eng_rt_notify(eng_thread *self, eng_memory *mem, uint8_t *addr,
		       uint32_t count)
{
	struct bucket *b;
	eng_thread *t, *prev = NULL, *next;
	uint32_t n = 0;

	if (!mem->lim.shared || count == 0)
		return 0;
	if (self->proc->sync_hook)
		self->proc->sync_hook(self->proc->sync_ctx, self,
				      ENG_SYNC_NOTIFY,
				      (uint64_t)(addr - mem->base));
	if (self->proc->serial) {
		/* A stop is seen by the thread's next poll. */
		eng_trap_kind k;
		return eng_sched_notify(self, (uintptr_t)addr,
					(uint64_t)(addr - mem->base), count,
					&k);
	}
	b = bucket_of((uintptr_t)addr);
	pthread_mutex_lock(&b->lock);
	for (t = b->head; t && n < count; t = next) {
		next = t->park_next;
		if (t->park_key != (uintptr_t)addr) {
			prev = t;
			continue;
		}
		if (prev)
			prev->park_next = next;
		else
			b->head = next;
		if (b->tail == t)
			b->tail = prev;
		t->park_next = NULL;
		atomic_store(&t->park_word, 1);
		futex_wake(&t->park_word);
		n++;
	}
	pthread_mutex_unlock(&b->lock);
	return n;
}

void eng_proc_set_sync_hook(eng_proc *p, eng_sync_hook fn, void *ctx)
{
	p->sync_hook = fn;
	p->sync_ctx = ctx;
}

void eng_proc_set_switch_hook(eng_proc *p, eng_switch_hook fn, void *ctx)
{
	p->switch_hook = fn;
	p->switch_ctx = ctx;
}

void eng_rt_wake_proc(eng_proc *p)
{
	for (eng_thread *t = atomic_load(&p->threads); t;
	     t = t->next_in_proc) {
		if (atomic_load(&t->parked)) {
			uint32_t z = 0;
			atomic_compare_exchange_strong(&t->park_word, &z, 2);
			futex_wake(&t->park_word);
		}
	}
}

/* ---- calls ------------------------------------------------------------- */

static void trap_clear(eng_trap *tr)
{
	tr->kind = ENG_OK;
	tr->exit_code = 0;
	tr->func = WASM_NO_FUNC;
	tr->offset = WASM_NO_OFFSET;
	tr->msg[0] = 0;
}

/* Run f with a trap point for guard-page faults. Saves and restores the
 * thread's per-call state so that host functions may call in again. */
static eng_trap_kind run_guarded(eng_thread *t, eng_func *f, eng_val *base,
				 eng_trap *trap)
{
	sigjmp_buf jb;
	sigjmp_buf *prev_jmp = t->trap_jmp;
	eng_thread *prev_tls = tls_cur;
	eng_instance *prev_inst = t->cur_inst;
	eng_val *prev_top = t->stack_top;
	const eng_cell *prev_pc = t->pc;
	eng_trap *prev_out = t->trap_out;
	uintptr_t prev_lo = t->jit_sp_lo;
	bool prev_in = t->in_wasm;
	uint32_t depth = t->depth;
	const eng_cell *tpc;
	eng_instance *tinst;
	eng_trap_kind k;
	int jumped;

	t->trap_jmp = &jb;
	t->trap_out = trap;
	/* Compiled code's native frames get a budget of this thread's
	 * stack, from the outermost entry on (fiber and thread stacks are
	 * 1 MiB). The frame's address, not a local's: ASan may keep locals
	 * elsewhere. */
	if (!t->jit_sp_lo)
		t->jit_sp_lo =
		    (uintptr_t)__builtin_frame_address(0) - ENG_JIT_STACK;
	tls_cur = t;
	if ((jumped = sigsetjmp(jb, 0)) == 0) {
		t->in_wasm = true;
		k = eng_interp(t, f, base, false, trap, &tpc, &tinst);
	} else if (jumped == 2) {
		/* A trap of compiled code: the trap is filled. */
		k = t->jit_kind;
		t->depth = depth;
	} else {
		/* A guard-page fault in guest code. */
		k = ENG_TRAP_MEMORY_OOB;
		eng_trap_at(trap, k, t->cur_inst ? t->cur_inst->cm : NULL,
			    t->pc, NULL);
		t->depth = depth;
	}
	t->in_wasm = prev_in;
	t->trap_jmp = prev_jmp;
	t->trap_out = prev_out;
	t->jit_sp_lo = prev_lo;
	tls_cur = prev_tls;
	t->cur_inst = prev_inst;
	t->stack_top = prev_top;
	t->pc = prev_pc;
	return k;
}

eng_trap_kind eng_call(eng_thread *t, eng_func *f, const eng_val *args,
		       eng_val *results, eng_trap *trap)
{
	eng_trap dummy;
	eng_proc *p = t->proc;
	eng_val *base = t->stack_top;
	uint32_t n = f->nargs > f->nrets ? f->nargs : f->nrets;
	eng_trap_kind k;

	if (!trap)
		trap = &dummy;
	trap_clear(trap);
	if (atomic_load_explicit(&p->stop, memory_order_relaxed) &
	    ENG_STOP_REQ) {
		eng_proc_status(p, trap);
		return trap->kind;
	}
	if (base + n + f->nrets + 1 > t->stack_end) {
		trap->kind = ENG_TRAP_STACK;
		snprintf(trap->msg, sizeof trap->msg, "%s",
			 eng_trap_name(ENG_TRAP_STACK));
		return trap->kind;
	}
	if (f->nargs)
		memcpy(base, args, f->nargs * sizeof *args);
	if (!f->fn) {
		eng_val *res = base + f->nargs;
		eng_instance *prev_inst = t->cur_inst;
		eng_val *prev_top = t->stack_top;
		t->stack_top = res + f->nrets;
		k = eng_rt_call_host(t, f, base, res, trap);
		t->stack_top = prev_top;
		t->cur_inst = prev_inst;
		if (k == ENG_OK && f->nrets)
			memcpy(results, res, f->nrets * sizeof *res);
	} else {
		k = run_guarded(t, f, base, trap);
		if (k == ENG_OK && f->nrets)
			memcpy(results, base, f->nrets * sizeof *base);
	}
	if (k == ENG_STOPPED) {
		eng_proc_status(p, trap);
		if (trap->kind == ENG_OK)
			trap->kind = ENG_STOPPED;
		return trap->kind;
	}
	if (k != ENG_OK && k != ENG_THREAD_EXIT &&
	    (k == ENG_EXIT || p->nspawned > 0))
		eng_proc_stop(p, trap);
	return k;
}

/* ---- instantiation ----------------------------------------------------- */

static void instance_free(eng_obj *o)
{
	eng_instance *in = (eng_instance *)o;
	const wasm_module *m = in->cm->m;

	if (in->own_tables)
		for (uint32_t i = 0; i < m->ntables; i++)
			wasm_free(in->own_tables[i].elems);
	if (in->elem_vals)
		for (uint32_t i = 0; i < m->nelems; i++)
			wasm_free(in->elem_vals[i]);
	wasm_free(in->funcs);
	wasm_free(in->own_funcs);
	wasm_free(in->tables);
	wasm_free(in->mems);
	wasm_free(in->mem_base);
	wasm_free(in->globals);
	wasm_free(in->elem_vals);
	wasm_free(in->elem_len);
	wasm_free(in->data_dropped);
	wasm_free(in->own_globals);
	wasm_free(in->own_tables);
	wasm_free(in->tags);
	wasm_free(in->own_tags);
	wasm_free(in);
}

/* Evaluate a constant expression of a type that takes w slots into
 * out[0..w) (slot form: a v128 is two). */
static bool eval_const(eng_instance *in, const wasm_expr *e, eng_val *out,
		       uint32_t w)
{
	const wasm_module *m = in->cm->m;
	wasm_reader r;
	wasm_instr ins;
	wasm_err err;
	eng_val st[16];
	uint32_t n = 0;
	bool ok = true;

	wasm_reader_init(&r, m->bytes, e->start, e->end);
	while (ok && r.pos < r.end) {
		if (wasm_reader_next(&r, &ins, &err)) {
			ok = false;
			break;
		}
		/* A push needs room: 15 slots in use refuse one, 14 still
		 * take a v128's two. */
		if (n >= 15 && ins.op != WASM_OP_END &&
		    ins.op != WASM_OP_I32_ADD && ins.op != WASM_OP_I32_SUB &&
		    ins.op != WASM_OP_I32_MUL && ins.op != WASM_OP_I64_ADD &&
		    ins.op != WASM_OP_I64_SUB && ins.op != WASM_OP_I64_MUL) {
			ok = false;
			break;
		}
		switch (ins.op) {
		case WASM_OP_I32_CONST: st[n++] = (uint32_t)ins.u.i32; break;
		case WASM_OP_I64_CONST: st[n++] = (uint64_t)ins.u.i64; break;
		case WASM_OP_F32_CONST: st[n++] = ins.u.f32; break;
		case WASM_OP_F64_CONST: st[n++] = ins.u.f64; break;
		case WASM_OP_REF_NULL: st[n++] = 0; break;
		case WASM_OP_REF_FUNC:
			st[n++] = (uintptr_t)in->funcs[ins.u.idx];
			break;
		case WASM_OP_V128_CONST:
			memcpy(&st[n], ins.u.v128, 16);
			n += 2;
			break;
		case WASM_OP_GLOBAL_GET: {
			const eng_global *g = in->globals[ins.u.idx];
			eng_global_get(g, &st[n]);
			n += eng_type_slots(g->type.type);
			break;
		}
		case WASM_OP_I32_ADD:
			n--, st[n - 1] = (uint32_t)(st[n - 1] + st[n]);
			break;
		case WASM_OP_I32_SUB:
			n--, st[n - 1] = (uint32_t)(st[n - 1] - st[n]);
			break;
		case WASM_OP_I32_MUL:
			n--, st[n - 1] = (uint32_t)(st[n - 1] * st[n]);
			break;
		case WASM_OP_I64_ADD: n--, st[n - 1] += st[n]; break;
		case WASM_OP_I64_SUB: n--, st[n - 1] -= st[n]; break;
		case WASM_OP_I64_MUL: n--, st[n - 1] *= st[n]; break;
		case WASM_OP_END: r.pos = r.end; break;
		default: ok = false;
		}
	}
	wasm_reader_fini(&r);
	if (ok && n >= w)
		memcpy(out, &st[n - w], w * sizeof *out);
	return ok && n >= w;
}

static wasm_status link_err(wasm_err *err, const wasm_import *imp,
			    const char *fmt, const char *a, const char *b)
{
	char why[200];
	snprintf(why, sizeof why, fmt, a, b);
	return wasm_err_set(err, WASM_INVALID, imp->at,
			    "incompatible import type for \"%.*s\".\"%.*s\": "
			    "%s",
			    (int)imp->module.len, imp->module.p,
			    (int)imp->name.len, imp->name.p, why);
}

/* Limits matching: actual (min, max) against the declared import. */
static bool limits_match(uint64_t amin, bool ahas, uint64_t amax,
			 const wasm_limits *want)
{
	if (amin < want->min)
		return false;
	if (want->has_max && (!ahas || amax > want->max))
		return false;
	return true;
}

static wasm_status check_import(eng_instance *in, const wasm_import *imp,
				const eng_extern *ex, wasm_err *err)
{
	const eng_module *cm = in->cm;
	char buf[24], buf2[24];

	if (ex->kind != imp->kind)
		return link_err(err, imp, "expected %s, got %s",
				wasm_extern_name(imp->kind),
				wasm_extern_name(ex->kind));
	switch (imp->kind) {
	case WASM_EXTERN_FUNC:
		if (!ex->u.func ||
		    ex->u.func->type_id != cm->type_ids[imp->u.func_type])
			return link_err(err, imp, "function type mismatch%s%s",
					"", "");
		break;
	case WASM_EXTERN_TABLE: {
		const eng_table *t = ex->u.table;
		if (!t || t->type.elem != imp->u.table.elem)
			return link_err(err, imp,
					"table element type mismatch%s%s", "",
					"");
		if (!limits_match(t->size, t->type.lim.has_max,
				  t->type.lim.max, &imp->u.table.lim)) {
			snprintf(buf, sizeof buf, "%u", t->size);
			return link_err(err, imp,
					"table limits do not match (size %s)%s",
					buf, "");
		}
		break;
	}
	case WASM_EXTERN_MEMORY: {
		const eng_memory *mm = ex->u.memory;
		uint64_t pages = atomic_load(&((eng_memory *)mm)->size) /
				 ENG_PAGE;
		if (mm->lim.shared != imp->u.memory.shared)
			return link_err(err, imp, "expected %s memory%s",
					imp->u.memory.shared ? "shared"
							     : "unshared",
					"");
		if (!limits_match(pages, mm->lim.has_max, mm->lim.max,
				  &imp->u.memory)) {
			snprintf(buf, sizeof buf, "%" PRIu64, pages);
			snprintf(buf2, sizeof buf2, "%u", imp->u.memory.min);
			return link_err(err, imp,
					"memory limits do not match (%s pages, "
					"at least %s needed)",
					buf, buf2);
		}
		break;
	}
	case WASM_EXTERN_GLOBAL: {
		const eng_global *g = ex->u.global;
		if (!g || g->type.type != imp->u.global.type ||
		    g->type.mut != imp->u.global.mut)
			return link_err(err, imp, "global type mismatch%s%s",
					"", "");
		break;
	}
	case WASM_EXTERN_TAG:
		if (!ex->u.tag ||
		    ex->u.tag->type_id != cm->type_ids[imp->u.tag_type])
			return link_err(err, imp, "tag type mismatch%s%s", "",
					"");
		break;
	}
	return WASM_OK;
}

static void seg_trap(eng_trap *trap, eng_trap_kind k, const char *what,
		     uint32_t i)
{
	trap_clear(trap);
	trap->kind = k;
	snprintf(trap->msg, sizeof trap->msg, "%s (%s segment %u)",
		 eng_trap_name(k), what, i);
}

bool eng_instantiate(eng_module *cm, eng_proc *p, eng_thread *t,
		     eng_resolver resolve, void *ctx, eng_instance **out,
		     eng_trap *trap, wasm_err *err)
{
	const wasm_module *m = cm->m;
	eng_instance *in;
	uint32_t nf = wasm_func_count(m), nt = wasm_table_count(m);
	uint32_t nm = wasm_mem_count(m), ng = wasm_global_count(m);
	uint32_t fi = 0, ti = 0, mi = 0, gi = 0, xi = 0;
	uint32_t nx = wasm_tag_count(m);
	eng_trap dummy;

	*out = NULL;
	if (!trap)
		trap = &dummy;
	trap_clear(trap);
	in = wasm_calloc(1, sizeof *in);
	if (!in)
		goto nomem;
	in->cm = cm;
	in->proc = p;
	in->nmems = nm;
	in->funcs = wasm_calloc(nf ? nf : 1, sizeof *in->funcs);
	in->own_funcs = wasm_calloc(m->nfuncs ? m->nfuncs : 1,
				    sizeof *in->own_funcs);
	in->tables = wasm_calloc(nt ? nt : 1, sizeof *in->tables);
	in->own_tables = wasm_calloc(m->ntables ? m->ntables : 1,
				     sizeof *in->own_tables);
	in->mems = wasm_calloc(nm ? nm : 1, sizeof *in->mems);
	in->mem_base = nm ? wasm_calloc(nm, sizeof *in->mem_base) : NULL;
	in->globals = wasm_calloc(ng ? ng : 1, sizeof *in->globals);
	in->own_globals = wasm_calloc(m->nglobals ? m->nglobals : 1,
				      sizeof *in->own_globals);
	in->tags = wasm_calloc(nx ? nx : 1, sizeof *in->tags);
	in->own_tags =
	    wasm_calloc(m->ntags ? m->ntags : 1, sizeof *in->own_tags);
	in->elem_vals = wasm_calloc(m->nelems ? m->nelems : 1,
				    sizeof *in->elem_vals);
	in->elem_len = wasm_calloc(m->nelems ? m->nelems : 1,
				   sizeof *in->elem_len);
	in->data_dropped = wasm_calloc(m->ndatas ? m->ndatas : 1,
				       sizeof *in->data_dropped);
	if (!in->funcs || !in->own_funcs || !in->tables || !in->own_tables ||
	    !in->mems || (nm && !in->mem_base) || !in->globals ||
	    !in->own_globals || !in->tags || !in->own_tags || !in->elem_vals ||
	    !in->elem_len || !in->data_dropped)
		goto nomem;

	/* Imports, checked before anything is created. */
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *imp = &m->imports[i];
		eng_extern ex;
		memset(&ex, 0, sizeof ex);
		if (!resolve || !resolve(ctx, imp, &ex)) {
			wasm_err_set(err, WASM_INVALID, imp->at,
				     "unknown import \"%.*s\".\"%.*s\" (%s)",
				     (int)imp->module.len, imp->module.p,
				     (int)imp->name.len, imp->name.p,
				     imp->kind == WASM_EXTERN_FUNC
					     ? "function"
					     : wasm_extern_name(imp->kind));
			goto fail_free;
		}
		if (check_import(in, imp, &ex, err))
			goto fail_free;
		switch (imp->kind) {
		case WASM_EXTERN_FUNC: in->funcs[fi++] = ex.u.func; break;
		case WASM_EXTERN_TABLE: in->tables[ti++] = ex.u.table; break;
		case WASM_EXTERN_MEMORY: in->mems[mi++] = ex.u.memory; break;
		case WASM_EXTERN_GLOBAL:
			in->globals[gi++] = ex.u.global;
			break;
		case WASM_EXTERN_TAG: in->tags[xi++] = ex.u.tag; break;
		}
	}
	for (uint32_t i = 0; i < m->ntags; i++) {
		const wasm_functype *tt = &m->types[m->tags[i]];
		in->own_tags[i].type_id = cm->type_ids[m->tags[i]];
		in->own_tags[i].nslots = eng_slots(tt->types, tt->nparams);
		in->tags[xi++] = &in->own_tags[i];
	}
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		eng_func *f = &in->own_funcs[i];
		f->type_id = cm->type_ids[m->funcs[i].type];
		f->type = &m->types[m->funcs[i].type];
		func_slots(f);
		f->inst = in;
		f->fn = &cm->fns[i];
		in->funcs[fi++] = f;
	}
	for (uint32_t i = 0; i < m->ntables; i++) {
		if (!table_init(&in->own_tables[i], &m->tables[i])) {
			wasm_err_set(err, WASM_LIMIT, m->tables[i].lim.at,
				     "table of %u elements is too large",
				     m->tables[i].lim.min);
			goto fail_free;
		}
		in->tables[ti++] = &in->own_tables[i];
	}
	/* From here on the instance may be referenced from imported
	 * tables, so it belongs to the proc even if instantiation fails. */
	obj_add(p, &in->obj, instance_free);
	for (uint32_t i = 0; i < m->nmems; i++) {
		eng_memory *mem = eng_memory_new(p, &m->mems[i], err);
		if (!mem)
			return false;
		in->mems[mi++] = mem;
	}
	for (uint32_t i = 0; i < nm; i++)
		in->mem_base[i] = in->mems[i]->base;
	for (uint32_t i = 0; i < m->nglobals; i++) {
		eng_global *g = &in->own_globals[i];
		g->type = m->globals[i].type;
		in->globals[gi++] = g;
		if (!eval_const(in, &m->globals[i].init, g->val,
				eng_type_slots(g->type.type))) {
			wasm_err_set(err, WASM_LIMIT, m->globals[i].init.start,
				     "unsupported constant expression");
			return false;
		}
	}

	/* Element segments: evaluate, then apply the active ones. */
	for (uint32_t i = 0; i < m->nelems; i++) {
		const wasm_elem *e = &m->elems[i];
		eng_val *v = wasm_calloc(e->count ? e->count : 1, sizeof *v);
		if (!v)
			goto nomem_linked;
		for (uint32_t k = 0; k < e->count; k++) {
			if (e->funcs)
				v[k] = (uintptr_t)in->funcs[e->funcs[k]];
			else if (!eval_const(in, &e->exprs[k], &v[k], 1)) {
				wasm_free(v);
				wasm_err_set(err, WASM_LIMIT, e->at,
					     "unsupported constant expression");
				return false;
			}
		}
		in->elem_vals[i] = v;
		in->elem_len[i] = e->count;
	}
	for (uint32_t i = 0; i < m->nelems; i++) {
		const wasm_elem *e = &m->elems[i];
		if (e->mode == WASM_SEG_ACTIVE) {
			eng_table *tab = in->tables[e->table];
			eng_val off;
			if (!eval_const(in, &e->offset, &off, 1)) {
				wasm_err_set(err, WASM_LIMIT, e->at,
					     "unsupported constant expression");
				return false;
			}
			off = (uint32_t)off;
			if (off + e->count > tab->size) {
				seg_trap(trap, ENG_TRAP_TABLE_OOB, "element",
					 i);
				return false;
			}
			if (e->count)
				memcpy(tab->elems + off, in->elem_vals[i],
				       e->count * sizeof(eng_val));
		}
		if (e->mode != WASM_SEG_PASSIVE) {
			wasm_free(in->elem_vals[i]);
			in->elem_vals[i] = NULL;
			in->elem_len[i] = 0;
		}
	}
	for (uint32_t i = 0; i < m->ndatas; i++) {
		const wasm_data *d = &m->datas[i];
		if (d->mode != WASM_SEG_ACTIVE)
			continue;
		eng_memory *mem = in->mems[d->mem];
		eng_val off;
		if (!eval_const(in, &d->offset, &off, 1)) {
			wasm_err_set(err, WASM_LIMIT, d->offset.start,
				     "unsupported constant expression");
			return false;
		}
		off = (uint32_t)off;
		if (off + d->len > atomic_load(&mem->size)) {
			seg_trap(trap, ENG_TRAP_MEMORY_OOB, "data", i);
			return false;
		}
		memcpy(mem->base + off, m->bytes + d->start, d->len);
		in->data_dropped[i] = true;
	}
	if (m->has_start) {
		eng_trap_kind k =
			eng_call(t, in->funcs[m->start], NULL, NULL, trap);
		if (k != ENG_OK)
			return false;
	}
	*out = in;
	return true;

nomem_linked:
	wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
	return false;
fail_free:
	instance_free(&in->obj);
	return false;
nomem:
	wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
	if (in)
		instance_free(&in->obj);
	return false;
}

bool eng_instance_export(eng_instance *inst, const char *name,
			 eng_extern *out)
{
	return eng_instance_export_n(inst, name, strlen(name), out);
}

bool eng_instance_export_n(eng_instance *inst, const char *name, size_t len,
			   eng_extern *out)
{
	const wasm_module *m = inst->cm->m;

	for (uint32_t i = 0; i < m->nexports; i++) {
		const wasm_export *e = &m->exports[i];
		if (e->name.len != len || memcmp(e->name.p, name, len))
			continue;
		out->kind = e->kind;
		switch (e->kind) {
		case WASM_EXTERN_FUNC: out->u.func = inst->funcs[e->index]; break;
		case WASM_EXTERN_TABLE:
			out->u.table = inst->tables[e->index];
			break;
		case WASM_EXTERN_MEMORY:
			out->u.memory = inst->mems[e->index];
			break;
		case WASM_EXTERN_GLOBAL:
			out->u.global = inst->globals[e->index];
			break;
		case WASM_EXTERN_TAG: out->u.tag = inst->tags[e->index]; break;
		}
		return true;
	}
	return false;
}

eng_memory *eng_instance_memory(eng_instance *inst, uint32_t idx)
{
	return idx < inst->nmems ? inst->mems[idx] : NULL;
}

const eng_module *eng_instance_module(const eng_instance *inst)
{
	return inst->cm;
}
