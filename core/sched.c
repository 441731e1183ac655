/*
 * sched.c - serial execution: one thread of a proc runs guest code at a
 * time, and the embedder's scheduler (engine.h's eng_sched) chooses the
 * next at every scheduling point. This file is the mechanism only: the
 * turn, the threads' states, virtual time, the deadlock verdict and the
 * execution digest. Which thread runs is the policy's (replay/sched.h).
 *
 * The turn: p->s_turn is the id of the one thread allowed to run guest
 * code. All of a serial proc's threads run on one OS thread, each on a
 * stack of its own (fiber.h): a thread whose turn passes switches to
 * the stack of the thread that has it, and runs again when something
 * switches back to it with the turn. Once the proc stops, order no
 * longer matters: each thread left unwinds without running guest code
 * (its points see the stop word) when eng_proc_join runs it.
 */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_DEADLINE UINT64_MAX

static bool stopping(const eng_proc *p)
{
	return atomic_load_explicit(&p->stop, memory_order_relaxed) &
	       ENG_STOP_REQ;
}

/* splitmix64's finaliser over the running digest: order matters, and
 * one changed word changes everything after it. */
static void mix(eng_proc *p, uint64_t v)
{
	uint64_t z = p->s_digest ^ (v + 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	p->s_digest = z ^ (z >> 31);
}

uint64_t eng_sched_name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

void eng_proc_set_sched(eng_proc *p, const eng_sched *s)
{
	p->sched = *s;
	p->serial = true;
}

bool eng_proc_serial(const eng_proc *p) { return p->serial; }

uint64_t eng_proc_vclock(eng_proc *p)
{
	uint64_t v;

	if (!p->serial)
		return 0;
	pthread_mutex_lock(&p->s_lock);
	v = p->s_vclock;
	pthread_mutex_unlock(&p->s_lock);
	return v;
}

uint32_t eng_sched_alive(eng_thread *t)
{
	eng_proc *p = t->proc;
	uint32_t n = 0;

	pthread_mutex_lock(&p->s_lock);
	for (uint32_t i = 0; i < p->s_nalive; i++)
		n += p->s_alive[i]->id != 0 && p->s_alive[i] != t;
	pthread_mutex_unlock(&p->s_lock);
	return n;
}

void eng_proc_sched_stats(eng_proc *p, eng_sched_stats *out)
{
	memset(out, 0, sizeof *out);
	if (!p->serial)
		return;
	pthread_mutex_lock(&p->s_lock);
	out->events = p->s_events;
	out->digest = p->s_digest;
	out->switches = p->s_switches;
	out->threads = p->s_nthreads;
	out->vclock_ns = p->s_vclock;
	pthread_mutex_unlock(&p->s_lock);
}

bool eng_sched_register(eng_thread *t)
{
	eng_proc *p = t->proc;
	bool ok = true;

	pthread_mutex_lock(&p->s_lock);
	if (t->id >= p->s_cap) {
		uint32_t nc = p->s_cap ? p->s_cap * 2 : 16;
		eng_thread **v;
		while (nc <= t->id)
			nc *= 2;
		v = wasm_realloc(p->s_threads, nc * sizeof *v);
		if (v) {
			memset(v + p->s_cap, 0, (nc - p->s_cap) * sizeof *v);
			p->s_threads = v;
			p->s_cap = nc;
		} else {
			ok = false;
		}
	}
	if (ok && p->s_nalive == p->s_alive_cap) {
		uint32_t nc = p->s_alive_cap ? p->s_alive_cap * 2 : 16;
		eng_thread **v = wasm_realloc(p->s_alive, nc * sizeof *v);
		if (v) {
			p->s_alive = v;
			p->s_alive_cap = nc;
		} else {
			ok = false;
		}
	}
	if (ok) {
		/* Ids come in order, but keep the list sorted whatever
		 * the order of registration: the scheduler sees the
		 * runnable threads by id. */
		uint32_t at = p->s_nalive;
		while (at && p->s_alive[at - 1]->id > t->id)
			at--;
		memmove(p->s_alive + at + 1, p->s_alive + at,
			(p->s_nalive - at) * sizeof *p->s_alive);
		p->s_alive[at] = t;
		p->s_nalive++;
		p->s_threads[t->id] = t;
		if (t->id >= p->s_nthreads)
			p->s_nthreads = t->id + 1;
		t->s_state = ENG_S_RUN;
		t->s_deadline = NO_DEADLINE;
	}
	pthread_mutex_unlock(&p->s_lock);
	return ok;
}

/* t is done: off the list of the living. Holds p->s_lock. */
static void bury(eng_proc *p, eng_thread *t)
{
	for (uint32_t i = 0; i < p->s_nalive; i++)
		if (p->s_alive[i] == t) {
			memmove(p->s_alive + i, p->s_alive + i + 1,
				(p->s_nalive - i - 1) * sizeof *p->s_alive);
			p->s_nalive--;
			break;
		}
	t->s_state = ENG_S_DONE;
}

/* The thread whose turn it is (NULL before any registered). Holds
 * p->s_lock. */
static eng_thread *holder(const eng_proc *p)
{
	return p->s_turn < p->s_nthreads ? p->s_threads[p->s_turn] : NULL;
}

/* Run the others until it is t's turn again or the proc stops. Holds
 * p->s_lock, which it lets go while they run. */
static void await_turn(eng_thread *t)
{
	eng_proc *p = t->proc;

	while (p->s_turn != t->id && !stopping(p)) {
		eng_thread *n = holder(p);
		pthread_mutex_unlock(&p->s_lock);
		eng_rt_fiber_to(p, t, n, false);
		pthread_mutex_lock(&p->s_lock);
	}
}

void eng_sched_enter(eng_thread *t)
{
	eng_proc *p = t->proc;

	pthread_mutex_lock(&p->s_lock);
	await_turn(t);
	pthread_mutex_unlock(&p->s_lock);
}

/* Whether t is a spawned thread that can still be switched to. */
static bool resumable(const eng_thread *t)
{
	return t && t->has_fib && !t->fib_done;
}

eng_thread *eng_sched_leftover(eng_proc *p)
{
	for (int pass = 0; pass < 2; pass++) {
		eng_thread *n = NULL, *host = NULL;

		pthread_mutex_lock(&p->s_lock);
		if (!stopping(p)) {
			eng_thread *h = holder(p);
			if (resumable(h))
				n = h;
			else if (h && !h->has_fib && h->s_state != ENG_S_DONE)
				host = h;
		}
		for (uint32_t i = 0; stopping(p) && !n && i < p->s_nthreads;
		     i++)
			if (resumable(p->s_threads[i]))
				n = p->s_threads[i];
		pthread_mutex_unlock(&p->s_lock);
		if (n || !host)
			return n;
		/* The main thread joins while the turn is its own: it is
		 * done, and the turn goes on to the others. */
		eng_sched_end(host);
	}
	return NULL;
}

void eng_sched_exit(eng_thread *t)
{
	eng_proc *p = t->proc;
	eng_thread *n = NULL;

	pthread_mutex_lock(&p->s_lock);
	/* The turn's holder if it can run; otherwise (the proc stops, or
	 * the turn is the main thread's) the OS thread's own stack, whose
	 * main thread or eng_proc_join goes on from there. */
	if (!stopping(p) && resumable(holder(p)) && holder(p) != t)
		n = holder(p);
	pthread_mutex_unlock(&p->s_lock);
	eng_rt_fiber_to(p, t, n, true);
}

/* Waiters whose deadline has come run again, timed out. */
static void wake_due(eng_proc *p)
{
	for (uint32_t i = 0; i < p->s_nalive; i++) {
		eng_thread *w = p->s_alive[i];
		if (w->s_state == ENG_S_WAIT && w->s_deadline <= p->s_vclock) {
			w->s_state = ENG_S_RUN;
			w->s_result = 2;
		}
	}
}

static uint32_t runnable(eng_proc *p, uint32_t *ids)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->s_nalive; i++)
		if (p->s_alive[i]->s_state == ENG_S_RUN)
			ids[n++] = p->s_alive[i]->id;
	return n;
}

/* Stop p: every live thread waits and none has a deadline. Each thread's
 * place goes into the message, so the user sees what waited on what. */
static void deadlock(eng_proc *p)
{
	eng_trap tr;
	size_t n;

	memset(&tr, 0, sizeof tr);
	tr.kind = ENG_DEADLOCK;
	tr.func = WASM_NO_FUNC;
	tr.offset = WASM_NO_OFFSET;
	n = (size_t)snprintf(tr.msg, sizeof tr.msg,
			     "deadlock: every thread waits (at point %llu)",
			     (unsigned long long)p->s_events);
	for (uint32_t i = 0; i < p->s_nalive && n < sizeof tr.msg; i++) {
		eng_thread *w = p->s_alive[i];
		if (w->s_state == ENG_S_WAIT)
			n += (size_t)snprintf(tr.msg + n, sizeof tr.msg - n,
					      "; thread %u waits at 0x%llx",
					      w->id,
					      (unsigned long long)w->s_off);
	}
	eng_proc_stop(p, &tr);
}

/* Give the turn to the thread the scheduler picks after point `k` of
 * thread cur (which may no longer be runnable). Holds p->s_lock. False
 * when nobody can run: the proc was stopped as deadlocked. */
static bool pass_turn(eng_proc *p, eng_thread *cur, eng_point_kind k)
{
	uint32_t ids[256], *v = ids, n, pick;
	bool ok = true;

	if (p->s_nalive > 256 && !(v = wasm_malloc(p->s_nalive * sizeof *v))) {
		/* Out of memory for the list: let cur go on if it can. */
		return cur->s_state == ENG_S_RUN;
	}
	wake_due(p);
	n = runnable(p, v);
	if (n == 0) {
		/* Everyone waits: time jumps to the earliest deadline. */
		uint64_t next = NO_DEADLINE;
		for (uint32_t i = 0; i < p->s_nalive; i++) {
			eng_thread *w = p->s_alive[i];
			if (w->s_state == ENG_S_WAIT && w->s_deadline < next)
				next = w->s_deadline;
		}
		if (next != NO_DEADLINE) {
			p->s_vclock = next;
			wake_due(p);
			n = runnable(p, v);
		}
	}
	if (n == 0) {
		/* Threads that ended leave none: that is the end, not a
		 * deadlock, and the main thread's end stops the proc. */
		bool waiting = false;
		for (uint32_t i = 0; i < p->s_nalive; i++)
			waiting =
			    waiting || p->s_alive[i]->s_state == ENG_S_WAIT;
		if (waiting)
			deadlock(p);
		ok = false;
		goto out;
	}
	pick = p->sched.pick(p->sched.ctx, p->s_events, cur->id, k, v, n);
	if (pick >= n)
		pick = 0;
	if (v[pick] != cur->id) {
		p->s_switches++;
		p->s_turn = v[pick];
	}
out:
	if (v != ids)
		wasm_free(v);
	return ok;
}

/* Tell the scheduler's note of point *pt (its event and thread set
 * here). */
static void note(eng_proc *p, eng_thread *t, eng_point *pt)
{
	if (!p->sched.note)
		return;
	pt->event = p->s_events;
	pt->thread = t;
	p->sched.note(p->sched.ctx, pt);
}

/* One scheduling point of the turn holder t: count it, mix it into the
 * digest (kind, then a and b), let the scheduler choose, and wait for
 * the turn if it went elsewhere. Holds p->s_lock. */
static eng_trap_kind point(eng_thread *t, eng_point *pt, uint64_t a, uint64_t b)
{
	eng_proc *p = t->proc;
	eng_point_kind k = pt->kind;

	if (stopping(p))
		return ENG_STOPPED;
	note(p, t, pt);
	p->s_vclock += ENG_POINT_NS;
	mix(p, ((uint64_t)t->id << 8) | k);
	mix(p, a);
	mix(p, b);
	pass_turn(p, t, k);
	p->s_events++;
	if (p->s_turn != t->id) {
		await_turn(t);
		/* Back after others ran: what t does at its point happens
		 * now, not when it reached it. */
		if (p->sched.note && !stopping(p)) {
			pt->resumed = true;
			p->sched.note(p->sched.ctx, pt);
		}
	}
	return stopping(p) ? ENG_STOPPED : ENG_OK;
}

eng_trap_kind eng_sched_host(eng_thread *t, const eng_func *f,
			     const eng_val *args)
{
	eng_proc *p = t->proc;
	uint64_t h = f->name_hash;
	eng_trap_kind k;

	for (uint32_t i = 0; i < f->nargs; i++)
		h = (h ^ args[i]) * 0x100000001b3ull;
	eng_point pt = {.kind = ENG_POINT_HOST,
			.host = f->name,
			.args = args,
			.nargs = f->nargs};

	pthread_mutex_lock(&p->s_lock);
	k = point(t, &pt, h, f->nargs);
	pthread_mutex_unlock(&p->s_lock);
	return k;
}

eng_trap_kind eng_sched_wait(eng_thread *t, uintptr_t key, uint64_t off,
			     int64_t timeout_ns, uint32_t *result)
{
	eng_proc *p = t->proc;
	eng_trap_kind k;

	pthread_mutex_lock(&p->s_lock);
	t->s_state = ENG_S_WAIT;
	t->s_key = key;
	t->s_off = off;
	t->s_seq = p->s_events;
	t->s_result = 0;
	t->s_deadline = timeout_ns < 0 ? NO_DEADLINE
			: (uint64_t)timeout_ns > NO_DEADLINE - p->s_vclock
			    ? NO_DEADLINE - 1
			    : p->s_vclock + (uint64_t)timeout_ns;
	k = point(t, &(eng_point){.kind = ENG_POINT_WAIT, .addr = off}, off,
		  (uint64_t)timeout_ns);
	*result = t->s_result;
	t->s_state = ENG_S_RUN;
	t->s_deadline = NO_DEADLINE;
	pthread_mutex_unlock(&p->s_lock);
	return k;
}

eng_trap_kind eng_sched_sleep(eng_thread *t, uint64_t until)
{
	eng_proc *p = t->proc;
	uint32_t r;

	/* Only t runs: the clock cannot move between this read and the
	 * wait. */
	uint64_t now = eng_proc_vclock(p);

	if (until <= now)
		return stopping(p) ? ENG_STOPPED : ENG_OK;
	/* A wait on no address that only its deadline ends. */
	return eng_sched_wait(t, 0, 0,
			      until - now > INT64_MAX ? INT64_MAX
						      : (int64_t)(until - now),
			      &r);
}

uint32_t eng_sched_notify(eng_thread *t, uintptr_t key, uint64_t off,
			  uint32_t count, eng_trap_kind *k)
{
	eng_proc *p = t->proc;
	uint32_t n = 0;

	pthread_mutex_lock(&p->s_lock);
	/* Oldest waiter first, as the parking lot does. */
	while (n < count) {
		eng_thread *first = NULL;
		for (uint32_t i = 0; i < p->s_nalive; i++) {
			eng_thread *w = p->s_alive[i];
			if (w->s_state == ENG_S_WAIT && key &&
			    w->s_key == key &&
			    (!first || w->s_seq < first->s_seq))
				first = w;
		}
		if (!first)
			break;
		first->s_state = ENG_S_RUN;
		first->s_result = 0;
		n++;
	}
	*k = point(t, &(eng_point){.kind = ENG_POINT_NOTIFY, .addr = off}, off,
		   n);
	pthread_mutex_unlock(&p->s_lock);
	return n;
}

void eng_sched_spawned(eng_proc *p)
{
	eng_thread *t;

	pthread_mutex_lock(&p->s_lock);
	t = holder(p);
	if (t)
		point(t,
		      &(eng_point){.kind = ENG_POINT_SPAWN,
				   .addr = p->s_nthreads - 1},
		      p->s_nthreads, 0);
	pthread_mutex_unlock(&p->s_lock);
}

void eng_sched_end(eng_thread *t)
{
	eng_proc *p = t->proc;

	pthread_mutex_lock(&p->s_lock);
	bury(p, t);
	if (p->s_turn == t->id && !stopping(p)) {
		note(p, t, &(eng_point){.kind = ENG_POINT_END});
		p->s_vclock += ENG_POINT_NS;
		mix(p, ((uint64_t)t->id << 8) | ENG_POINT_END);
		pass_turn(p, t, ENG_POINT_END);
		p->s_events++;
	}
	pthread_mutex_unlock(&p->s_lock);
}
