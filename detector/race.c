/*
 * race.c - the probes: Algorithm 1 (delay injection) and Algorithm 2
 * (shared-access detection) of the Beanstalk paper over a demand-paged
 * access table with one entry per 4-byte cell of linear memory.
 *
 * Algorithm 1 without the paper's per-entry mutex: an entry is a sequence
 * word and the armed access. The low two bits of the word are the state
 * (free, locked while the arming thread writes the access, armed, asked:
 * armed, and a thread that collided with it wants its stack), the rest a
 * generation bumped by every disarm. A thread arms a free cell with
 * one CAS, writes the access, then publishes "armed" with a release store;
 * a thread that finds the cell taken reads word, access, word again and
 * trusts the access only if the word did not change (a seqlock), so a
 * violation always pairs two accesses that were armed and probed at the
 * same moment. The common path (a free cell, nobody else near it) is one
 * load, one CAS, three plain stores, the delay, one store.
 *
 * Algorithm 2 takes a spin lock per entry, as the paper's table does: the
 * probe is run once per program to prune, so it favours exactness.
 */
#include "detector/race.h"

#include "detector/hb.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define ST_MASK	  3u
#define ST_FREE	  0u
#define ST_LOCKED 1u
#define ST_ARMED  2u
#define ST_ASKED  3u
/* A checker waits this many pauses for an arming thread to publish its
 * access before it gives the cell up (the window is a few stores long
 * unless the arming thread was preempted inside it). */
#define LOCKED_SPINS 64
/* The widest access (v128) covers 5 cells when unaligned; a wider one
 * (a damaged site table) arms only its first 5. */
#define MAX_CELLS 5
/* Slots of det_probe.complete. */
#define COMPLETE_SLOTS 256u
/* Call counters are sharded by thread id so that threads do not share a
 * cache line on every call. */
#define NSHARDS 64
/* Distinct sites a cell's history keeps exactly before the cell is
 * treated as shared (its history flushed to the shared set): a bound on
 * memory that can only add sites, never miss one. */
#define HIST_CAP     1024u
#define HIST_INLINE  2u
#define PAIR_DROPPED UINT32_MAX
/* How long a thread that met a waiting partner at a breakpoint waits for
 * the partner to arm its access before it goes on anyway. */
#define TRIGGER_FOLLOW_NS 2000000u
/* Stack requests outstanding at once; a bug found while all are taken
 * keeps its finder's stack only. */
#define MAX_REQS 64
/* Caller contexts under DET_HB (hb.h "Caller contexts"): at most
 * CTX_MAX per run, in chunks of CTX_CHUNK that never move, each keyed by
 * up to CTX_DEPTH return addresses (one more than a stack keeps, to tell
 * a truncated one). */
#define CTX_CHUNK 256u
#define CTX_MAX	  65536u
#define CTX_DEPTH (DET_MAX_CALLERS + 1)
/* Address ranges a run keeps annotated benign; the ones after are not
 * (a program annotating every element of a big array should annotate
 * the array). The distinct site pairs it counts exactly. */
#define BENIGN_MAX   1024u
#define BENIGN_PAIRS 256u

/* Locks a thread holds, as contexts and violations keep them: the first
 * DET_MAX_LOCKS taken, of held in all. */
typedef struct held_set {
	uint8_t n, held;
	uint8_t kind[DET_MAX_LOCKS];
	uint32_t addr[DET_MAX_LOCKS];
} held_set;

/* A context is its callers and the locks held (hb.h "Caller contexts":
 * the earlier access's locks come from its context). */
typedef struct ctx_entry {
	uint32_t n;
	const void *ip[CTX_DEPTH];
	held_set locks;
	det_stack stack;
} ctx_entry;

typedef struct race_cell {
	uint32_t seq;
	uint32_t tid, site, addr; /* the armed access */
} race_cell;

/* The armed access a new bug asks for its stack: its thread, cell and the
 * generation of the cell's word while it was armed. */
typedef struct armed_ref {
	uint32_t tid, seq;
	uint64_t cell;
} armed_ref;

typedef struct shared_cell {
	uint8_t lock;
	uint8_t shared; /* S[addr] */
	uint8_t owned;	/* owner is valid */
	uint8_t pad;
	uint32_t owner; /* the one thread that touched it while exclusive */
	uint32_t n;	/* sites in the history I[addr] */
	union {
		uint32_t inl[HIST_INLINE]; /* n <= HIST_INLINE */
		uint32_t *more;		   /* n > HIST_INLINE */
	} h;
} shared_cell;

typedef struct shard {
	uint64_t n;
	char pad[56];
} shard;

struct det_probe {
	det_algo algo;
	/* Serial runs: each guest thread's share of this file's
	 * thread-locals while another runs on the OS thread (by thread id;
	 * det_probe_switch). */
	struct det_tls **tls;
	uint32_t ntls;
	det_hb *hb; /* DET_HB */
	const rw_site *site;
	uint32_t nsites;
	uint32_t mask_mem; /* rw_sites.mask_mem */
	uint32_t delay;
	uint64_t mem_bytes, ncells;
	void *table;
	size_t table_bytes;
	uint8_t *shared; /* P, nsites bytes */
	/* DET_HB: per write site, 1 + the unarmed read it covers, or 0
	 * (det_probe_set_mask); NULL when none. */
	uint32_t *cover;

	pthread_mutex_t lock; /* everything below */
	det_violation *bugs;
	uint32_t nbugs, dropped;
	/* Seen site pairs: key (site0 << 32 | site1) + 1 (0 = empty) to
	 * the bug's index, or PAIR_DROPPED for a pair beyond DET_MAX_BUGS. */
	uint64_t *keys;
	uint32_t *vals;
	uint32_t hcap, hcount;
	/* Cells whose history went out of line, to free it at the end
	 * without walking the whole table. */
	uint64_t *hist_cells;
	size_t nhist, caphist;

	shard calls[NSHARDS];

	/* Stack requests of new bugs to the armed thread of their pair (see
	 * race.h), under lock. asking (atomic, on its own line) counts the
	 * threads between asking a cell (ask) and leaving their request: an
	 * armed thread that finds its cell asked waits for it to drop to
	 * zero, so the request is there when it looks. */
	bool stacks;
	struct stack_req {
		uint32_t tid, seq, bug;
		uint8_t side;
		uint64_t cell;
	} req[MAX_REQS];
	uint32_t nreqs;
	_Alignas(64) uint32_t asking;
	char asking_pad[60];
	/* Keys of bugs with both stacks (they ask no more), by the key's
	 * hash; written under lock, read by finders without it (atomic
	 * words): a finder asks only for a pair not found here. */
	uint64_t complete[COMPLETE_SLOTS];

	/* The breakpoint (det_probe_set_trigger), its waiters by role (0:
	 * site[0]; 1: site[1]; one waiter per role) and per-thread wait
	 * counts, all under lock but the atomics the waiters spin on. */
	bool has_trig;
	det_trigger trig;
	struct trig_wait {
		bool busy;
		uint32_t tid, addr, width;
		uint32_t released, probed;    /* atomics */
		uint32_t lead_tid, lead_addr; /* who released it */
	} wait[2];
	uint32_t met; /* atomic: a meeting happened */
	uint64_t holds;
	uint8_t held[NSHARDS]; /* waits per thread (tid % NSHARDS) */

	/* Caller contexts (DET_HB): ids 1..nctx, entry id - 1 in its
	 * chunk; a table of ids by key (open addressing, ctx_hcap a power
	 * of two). Written under ctx_lock; an entry is read without it once
	 * its id has been handed out. serial tells this run's contexts
	 * from an earlier run's in a thread's cache. */
	pthread_mutex_t ctx_lock;
	ctx_entry *ctx_chunk[CTX_MAX / CTX_CHUNK];
	uint32_t nctx, ctx_hcap;
	uint32_t *ctx_hash;
	uint64_t serial;

	/* The program's hints (det_probe_alloc), under lock. */
	pthread_mutex_t hint_lock; /* everything below */
	/* Live heap blocks, open addressing by base address (mix()). */
	struct block {
		uint8_t state; /* SLOT_* */
		uint32_t base, size, tid;
		uint8_t n;
		bool truncated;
		eng_where *frames; /* n, wasm_malloc'd */
	} * blocks;
	uint32_t bcap, bcount, btombs;
	/* Per thread id: its creator and its stack, when hinted. */
	struct thread_info {
		det_spawn spawn;
		bool has_stack;
		uint32_t lo, hi;
		char name[DET_NAME_MAX]; /* AnnotateThreadName's; "" none */
	} * threads;
	uint32_t nthreads;
	/* Locks by address, open addressing (mix()), at most LOCKS_MAX:
	 * their first use and where they lie. */
	struct lock_rec {
		bool used;
		uint32_t addr, tid;
		det_stack first;
		det_loc loc;
	} * lrec;
	uint32_t lcap, lcount;

	/* Ranges annotated benign (det_probe_benign): appended under
	 * hint_lock, nbenign published with a release store so that a
	 * finder reads them with no lock. */
	struct benign_range {
		uint32_t lo, hi;
		bool silent; /* det_probe_thread_local: not counted */
	} benign[BENIGN_MAX];
	uint32_t nbenign;
	/* The distinct site pairs (keys as p->keys) whose races they left
	 * out, under lock; benign_count goes on past the set's capacity. */
	uint64_t bkeys[BENIGN_PAIRS];
	uint32_t benign_count;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline bool plain_write(uint8_t kind)
{
	return kind == RW_WRITE || kind == RW_RANGE_WRITE;
}

static inline uint32_t site_width(const rw_site *s)
{
	return s->width ? s->width : 1;
}

static void hb_found(void *ctx, const det_hb_race *r);

/* Probes made so far in this process: each run's contexts are its own. */
static uint64_t probe_serial;

wasm_status det_probe_new(det_algo algo, const rw_sites *sites,
			  uint64_t mem_bytes, uint32_t delay, det_probe **out,
			  wasm_err *err)
{
	det_probe *p;
	size_t cell_size =
	    algo == DET_SHARED ? sizeof(shared_cell) : sizeof(race_cell);

	*out = NULL;
	if (mem_bytes > (uint64_t)1 << 32)
		mem_bytes = (uint64_t)1 << 32;
	p = wasm_calloc(1, sizeof *p);
	if (!p)
		goto nomem;
	p->algo = algo;
	p->site = sites->sites;
	p->nsites = sites->nsites;
	p->mask_mem = sites->mask_mem;
	p->delay = delay;
	p->stacks = true;
	p->mem_bytes = mem_bytes;
	p->ncells = (mem_bytes + 3) / 4;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->hint_lock, NULL);
	pthread_mutex_init(&p->ctx_lock, NULL);
	p->serial = __atomic_add_fetch(&probe_serial, 1, __ATOMIC_RELAXED);
	if (algo == DET_HB) {
		wasm_status st =
		    det_hb_new(sites, mem_bytes, hb_found, p, &p->hb, err);
		if (st) {
			det_probe_free(p);
			return st;
		}
	} else if (p->ncells) {
		p->table_bytes = (size_t)p->ncells * cell_size;
		/* Zero pages are free cells: only touched pages cost memory. */
		p->table =
		    mmap(NULL, p->table_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p->table == MAP_FAILED) {
			p->table = NULL;
			det_probe_free(p);
			return wasm_err_set(
			    err, WASM_NOMEM, WASM_NO_OFFSET,
			    "cannot reserve %zu MiB of address space for the "
			    "access table of a %llu-byte memory (give the "
			    "program's memory a smaller maximum)",
			    p->table_bytes >> 20,
			    (unsigned long long)mem_bytes);
		}
	}
	if (algo == DET_SHARED) {
		p->shared = wasm_calloc(p->nsites ? p->nsites : 1, 1);
		if (!p->shared)
			goto nomem;
	} else {
		/* Sized so that DET_MAX_BUGS pairs never need a rehash. */
		p->hcap = 4 * DET_MAX_BUGS;
		p->bugs = wasm_malloc(DET_MAX_BUGS * sizeof *p->bugs);
		p->keys = wasm_calloc(p->hcap, sizeof *p->keys);
		p->vals = wasm_malloc(p->hcap * sizeof *p->vals);
		if (!p->bugs || !p->keys || !p->vals)
			goto nomem;
	}
	*out = p;
	return WASM_OK;
nomem:
	det_probe_free(p);
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
			    "out of memory for the probe state");
}

void det_probe_free(det_probe *p)
{
	if (!p)
		return;
	if (p->table) {
		shared_cell *t = p->table;
		for (size_t i = 0; p->algo == DET_SHARED && i < p->nhist; i++) {
			shared_cell *e = &t[p->hist_cells[i]];
			/* A cell can be listed twice: free once. */
			if (e->n > HIST_INLINE)
				wasm_free(e->h.more);
			e->n = 0;
		}
		munmap(p->table, p->table_bytes);
	}
	det_hb_free(p->hb);
	wasm_free(p->cover);
	for (uint32_t i = 0; i < p->bcap; i++)
		wasm_free(p->blocks[i].frames);
	wasm_free(p->blocks);
	wasm_free(p->threads);
	wasm_free(p->lrec);
	for (uint32_t i = 0; i < CTX_MAX / CTX_CHUNK; i++)
		wasm_free(p->ctx_chunk[i]);
	wasm_free(p->ctx_hash);
	for (uint32_t i = 0; i < p->ntls; i++)
		wasm_free(p->tls[i]);
	wasm_free(p->tls);
	pthread_mutex_destroy(&p->ctx_lock);
	pthread_mutex_destroy(&p->hint_lock);
	pthread_mutex_destroy(&p->lock);
	wasm_free(p->hist_cells);
	wasm_free(p->shared);
	wasm_free(p->bugs);
	wasm_free(p->keys);
	wasm_free(p->vals);
	wasm_free(p);
}

/* ---- Algorithm 1 -------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	return x;
}

static bool pairs_grow(det_probe *p)
{
	uint32_t cap = p->hcap * 2;
	uint64_t *keys = wasm_calloc(cap, sizeof *keys);
	uint32_t *vals = wasm_malloc((size_t)cap * sizeof *vals);

	if (!keys || !vals || cap < p->hcap) {
		wasm_free(keys);
		wasm_free(vals);
		return false;
	}
	for (uint32_t i = 0; i < p->hcap; i++) {
		uint32_t j;
		if (!p->keys[i])
			continue;
		j = (uint32_t)mix(p->keys[i]) & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = p->keys[i];
		vals[j] = p->vals[i];
	}
	wasm_free(p->keys);
	wasm_free(p->vals);
	p->keys = keys;
	p->vals = vals;
	p->hcap = cap;
	return true;
}

/* The slot of key, or the empty slot where it belongs. */
/* The pair key of sites a and b, either order. */
static uint64_t pair_key(uint32_t a, uint32_t b)
{
	return (a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a) + 1;
}

/* Under p->lock: bug b's example has both stacks now, so the finders of
 * its pair need not ask (ask) any more. */
static void note_complete(det_probe *p, const det_violation *v)
{
	uint64_t key;

	if (!v->stack[0].n || !v->stack[1].n)
		return;
	key = pair_key(v->site[0], v->site[1]);
	__atomic_store_n(&p->complete[mix(key) % COMPLETE_SLOTS], key,
			 __ATOMIC_RELAXED);
}

static uint32_t pair_slot(const det_probe *p, uint64_t key)
{
	uint32_t j = (uint32_t)mix(key) & (p->hcap - 1);

	while (p->keys[j] && p->keys[j] != key)
		j = (j + 1) & (p->hcap - 1);
	return j;
}

/* The engine thread whose probe call is running on this OS thread (set by
 * det_probe_access): record() takes a new bug's call stack from it. */
static _Thread_local const eng_thread *probe_thread;

/* The stack of engine thread t, in a host call, into st: its frames
 * without the first `skip`, at most DET_MAX_CALLERS of them. */
static void stack_of(const eng_thread *t, uint32_t skip, det_stack *st)
{
	/* The skipped frames, the kept ones, and one to tell that there
	 * were more. */
	eng_where w[DET_MAX_CALLERS + 2];
	uint32_t n;

	if (!t)
		return;
	n = eng_thread_backtrace(t, w, skip + DET_MAX_CALLERS + 1);
	if (n <= skip)
		return;
	st->truncated = n - skip > DET_MAX_CALLERS;
	st->n = (uint8_t)(st->truncated ? DET_MAX_CALLERS : n - skip);
	memcpy(st->caller, w + skip, st->n * sizeof *w);
}

/* The callers of the access whose probe call is running on this thread
 * (the probe call's own frame is the site) into st. */
static void take_stack(det_stack *st) { stack_of(probe_thread, 1, st); }

/* ---- caller contexts (DET_HB) --------------------------------------------
 */

static inline ctx_entry *ctx_at(det_probe *p, uint32_t id)
{
	return &p->ctx_chunk[(id - 1) / CTX_CHUNK][(id - 1) % CTX_CHUNK];
}

static uint32_t ctx_key_hash(const void *const *ip, uint32_t n,
			     const held_set *ls)
{
	uint64_t h = n ^ (uint64_t)ls->held << 40;

	for (uint32_t i = 0; i < n; i++)
		h = mix(h ^ (uintptr_t)ip[i]);
	for (uint32_t i = 0; i < ls->n; i++)
		h = mix(h ^ ((uint64_t)ls->kind[i] << 32 | ls->addr[i]));
	return (uint32_t)h;
}

static bool held_eq(const held_set *a, const held_set *b)
{
	if (a->n != b->n || a->held != b->held)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->addr[i] != b->addr[i] || a->kind[i] != b->kind[i])
			return false;
	return true;
}

static bool ctx_rehash(det_probe *p)
{
	uint32_t cap = p->ctx_hcap ? p->ctx_hcap * 2 : 1024;
	uint32_t *t = wasm_calloc(cap, sizeof *t);

	if (!t)
		return false;
	for (uint32_t id = 1; id <= p->nctx; id++) {
		ctx_entry *e = ctx_at(p, id);
		uint32_t j = ctx_key_hash(e->ip, e->n, &e->locks) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = id;
	}
	wasm_free(p->ctx_hash);
	p->ctx_hash = t;
	p->ctx_hcap = cap;
	return true;
}

/* The id of the context whose callers are ip[0..n) and held locks ls,
 * made (with its stack, taken from the probe's thread, which runs in it)
 * when new; 0 when the run has CTX_MAX already or memory runs out. */
static uint32_t ctx_intern(det_probe *p, const void *const *ip, uint32_t n,
			   const held_set *ls)
{
	uint32_t h = ctx_key_hash(ip, n, ls), id = 0, j;
	ctx_entry *e;

	pthread_mutex_lock(&p->ctx_lock);
	if ((p->nctx + 1) * 2 > p->ctx_hcap && !ctx_rehash(p))
		goto done;
	for (j = h & (p->ctx_hcap - 1); p->ctx_hash[j];
	     j = (j + 1) & (p->ctx_hcap - 1)) {
		e = ctx_at(p, p->ctx_hash[j]);
		if (e->n == n && !memcmp(e->ip, ip, n * sizeof *ip) &&
		    held_eq(&e->locks, ls)) {
			id = p->ctx_hash[j];
			goto done;
		}
	}
	if (p->nctx >= CTX_MAX)
		goto done;
	if (!p->ctx_chunk[p->nctx / CTX_CHUNK] &&
	    !(p->ctx_chunk[p->nctx / CTX_CHUNK] =
		  wasm_malloc(CTX_CHUNK * sizeof(ctx_entry))))
		goto done;
	id = ++p->nctx;
	e = ctx_at(p, id);
	memset(e, 0, sizeof *e);
	e->n = n;
	memcpy(e->ip, ip, n * sizeof *ip);
	e->locks = *ls;
	take_stack(&e->stack);
	p->ctx_hash[j] = id;
done:
	pthread_mutex_unlock(&p->ctx_lock);
	return id;
}

/* This OS thread's context: the probe (serial) and callers it was last
 * named for, and the ids of the last contexts it ran in by key hash, so
 * that code going back and forth between callers (a loop calling two
 * helpers, recursion) names them without ctx_lock. */
#define CTX_SEEN 64u
struct ctx_tls {
	uint64_t serial;
	uint32_t n;
	const void *ip[CTX_DEPTH];
	uint32_t gen; /* held.gen when it was named */
	uint32_t seen[CTX_SEEN];
};
static _Thread_local struct ctx_tls cur_ctx;

/* The locks this OS thread's guest thread holds (det_probe_lock), in the
 * order it took them, for the probe of serial: a thread runs one guest
 * thread of one run at a time. gen moves at every change, for the
 * happens-before contexts; known caches locks whose first use is
 * recorded, so that taking a known lock costs no probe-wide lock. */
#define HELD_MAX  16u
#define HELD_SEEN 64u
struct held_tls {
	uint64_t serial;
	uint32_t n, over; /* in l[]; held beyond it */
	uint32_t gen;
	struct {
		uint32_t addr, depth;
		uint8_t kind;
	} l[HELD_MAX];
	uint32_t known[HELD_SEEN]; /* addr + 1 */
};
static _Thread_local struct held_tls held;

/* held, for probe p (emptied when it was another run's). */
static void held_for(const det_probe *p)
{
	if (held.serial != p->serial) {
		memset(&held, 0, sizeof held);
		held.serial = p->serial;
	}
}

/* The calling thread's locks as a held_set. */
static void held_now(const det_probe *p, held_set *out)
{
	uint32_t all;

	held_for(p);
	memset(out, 0, sizeof *out);
	all = held.n + held.over;
	out->held = (uint8_t)(all > 255 ? 255 : all);
	for (uint32_t i = 0; i < held.n && i < DET_MAX_LOCKS; i++) {
		out->addr[out->n] = held.l[i].addr;
		out->kind[out->n++] = held.l[i].kind;
	}
}

static void lockset_of(const held_set *h, det_lockset *out)
{
	memset(out, 0, sizeof *out);
	out->held = h->held;
	for (uint32_t i = 0; i < h->n && i < DET_MAX_LOCKS; i++) {
		out->lock[i].addr = h->addr[i];
		out->lock[i].kind = h->kind[i];
	}
	out->n = h->n;
}

/* The calling thread's locks into out. */
static void take_locks(const det_probe *p, det_lockset *out)
{
	held_set h;

	held_now(p, &h);
	lockset_of(&h, out);
}

/* Tell the happens-before detector when thread tid's callers change. */
static void note_context(det_probe *p, const eng_thread *t, uint32_t tid)
{
	uint32_t h, id, n;
	const ctx_entry *e;

	held_set ls;

	held_for(p);
	if (cur_ctx.serial != p->serial) {
		/* Another run's: named below even when the walk finds no
		 * callers. */
		memset(&cur_ctx, 0, sizeof cur_ctx);
		cur_ctx.serial = p->serial;
		eng_thread_callers_changed(t, cur_ctx.ip, &cur_ctx.n,
					   CTX_DEPTH);
	} else if (!eng_thread_callers_changed(t, cur_ctx.ip, &cur_ctx.n,
					       CTX_DEPTH) &&
		   cur_ctx.gen == held.gen) {
		return;
	}
	cur_ctx.gen = held.gen;
	held_now(p, &ls);
	n = cur_ctx.n;
	h = ctx_key_hash(cur_ctx.ip, n, &ls) % CTX_SEEN;
	id = cur_ctx.seen[h];
	if (!id || (e = ctx_at(p, id), e->n != n) ||
	    memcmp(e->ip, cur_ctx.ip, n * sizeof *e->ip) ||
	    !held_eq(&e->locks, &ls))
		id = cur_ctx.seen[h] = ctx_intern(p, cur_ctx.ip, n, &ls);
	det_hb_context(p->hb, tid, id);
}

/* The linear memory bytes [addr, addr + width) of site's memory, as the
 * thread in its probe call sees them, or NULL when they are not all
 * there (width <= DET_VALUE_BYTES). */
static const uint8_t *probe_bytes(const det_probe *p, uint32_t site,
				  uint32_t addr, uint32_t width)
{
	eng_instance *inst;
	eng_memory *mem;
	uint32_t idx = p->site[site].mem;

	if (!probe_thread || !(inst = eng_thread_instance(probe_thread)))
		return NULL;
	/* The mask import sits after the original's imported memories. */
	if (p->mask_mem != UINT32_MAX && idx >= p->mask_mem)
		idx++;
	mem = eng_instance_memory(inst, idx);
	if (!mem || (uint64_t)addr + width > eng_memory_size(mem))
		return NULL;
	return eng_memory_data(mem) + addr;
}

/* Copy n guest bytes that other threads may be writing. */
static void copy_racy(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* ---- the program's hints ------------------------------------------------ */

/* Slot states of the block table. */
enum { SLOT_EMPTY, SLOT_LIVE, SLOT_FREED };

/* The slot of the live block at base, or the free slot where it goes.
 * Under hint_lock; bcap > 0. */
static uint32_t block_slot(const det_probe *p, uint32_t base)
{
	uint32_t j = (uint32_t)mix(base) & (p->bcap - 1), spot = UINT32_MAX;

	for (;; j = (j + 1) & (p->bcap - 1)) {
		const struct block *b = &p->blocks[j];
		if (b->state == SLOT_EMPTY)
			return spot != UINT32_MAX ? spot : j;
		if (b->state == SLOT_FREED) {
			if (spot == UINT32_MAX)
				spot = j;
		} else if (b->base == base) {
			return j;
		}
	}
}

/* Room for one more block (live and freed slots at most half the
 * table): false when out of memory. Under hint_lock. */
static bool blocks_room(det_probe *p)
{
	uint32_t cap = 64, old = p->bcap;
	struct block *was = p->blocks;

	if ((p->bcount + p->btombs + 1) * 2 <= p->bcap)
		return true;
	while (cap < (p->bcount + 1) * 4)
		cap *= 2;
	if (!(p->blocks = wasm_calloc(cap, sizeof *p->blocks))) {
		p->blocks = was;
		return false;
	}
	p->bcap = cap;
	p->btombs = 0;
	for (uint32_t i = 0; i < old; i++)
		if (was[i].state == SLOT_LIVE)
			p->blocks[block_slot(p, was[i].base)] = was[i];
	wasm_free(was);
	return true;
}

/* The array v of *n elements of elem bytes (first: its first size)
 * grown to hold index i, the new elements zeroed; NULL when out of
 * memory (v and *n unchanged). */
static void *grow_zeroed(void *v, uint32_t *n, uint32_t i, uint32_t first,
			 size_t elem)
{
	uint32_t m = *n ? *n : first;
	uint8_t *nv;

	if (i < *n)
		return v;
	while (m <= i)
		m *= 2;
	if (!(nv = wasm_realloc(v, (size_t)m * elem)))
		return NULL;
	memset(nv + (size_t)*n * elem, 0, (size_t)(m - *n) * elem);
	*n = m;
	return nv;
}

/* The record of thread tid, created on first use; NULL when out of
 * memory or for an id no run reaches. Under hint_lock. */
static struct thread_info *thread_info(det_probe *p, uint32_t tid)
{
	struct thread_info *v;

	if (tid >= 1u << 20)
		return NULL;
	if (!(v = grow_zeroed(p->threads, &p->nthreads, tid, 16, sizeof *v)))
		return NULL;
	p->threads = v;
	return &v[tid];
}

void det_probe_alloc(det_probe *p, const eng_thread *t, uint32_t tid,
		     uint32_t addr, uint32_t size)
{
	det_stack st = {.n = 0};
	eng_where *frames = NULL;
	struct block *b;

	if (p->algo == DET_SHARED || !addr)
		return;
	stack_of(t, 0, &st);
	if (st.n && !(frames = wasm_malloc(st.n * sizeof *frames)))
		return;
	memcpy(frames, st.caller, st.n * sizeof *frames);
	pthread_mutex_lock(&p->hint_lock);
	if (!blocks_room(p)) {
		wasm_free(frames);
		goto done;
	}
	b = &p->blocks[block_slot(p, addr)];
	/* A block allocated again without a free (an allocator that does
	 * not hint every path) is the new one. */
	if (b->state == SLOT_LIVE)
		wasm_free(b->frames);
	else if (b->state == SLOT_FREED)
		p->btombs--, p->bcount++;
	else
		p->bcount++;
	*b = (struct block){
	    .state = SLOT_LIVE,
	    .base = addr,
	    .size = size,
	    .tid = tid,
	    .n = st.n,
	    .truncated = st.truncated,
	    .frames = frames,
	};
done:
	pthread_mutex_unlock(&p->hint_lock);
}

void det_probe_release(det_probe *p, uint32_t addr)
{
	struct block *b;

	if (p->algo == DET_SHARED)
		return;
	pthread_mutex_lock(&p->hint_lock);
	if (p->bcap &&
	    (b = &p->blocks[block_slot(p, addr)])->state == SLOT_LIVE) {
		/* A thread's stack lives in a block its creator frees. */
		for (uint32_t i = 0; i < p->nthreads; i++) {
			struct thread_info *ti = &p->threads[i];
			if (ti->has_stack && ti->lo >= b->base &&
			    ti->lo - b->base < b->size)
				ti->has_stack = false;
		}
		wasm_free(b->frames);
		*b = (struct block){.state = SLOT_FREED};
		p->bcount--;
		p->btombs++;
	}
	pthread_mutex_unlock(&p->hint_lock);
}

/* The probe (by serial) whose thread on this OS thread is inside a
 * nosync region, or 0: an OS thread runs one guest thread at a time, and
 * a run that ends inside a region leaves nothing for the next run. */
static _Thread_local uint64_t nosync_serial;

void det_probe_nosync(det_probe *p, bool on)
{
	nosync_serial = on ? p->serial : 0;
}

/* ---- annotations ----------------------------------------------------------
 */

/* The calling thread's ignore regions (det_probe_ignore), for the probe
 * of serial: depths of nested begins. */
struct ign_tls {
	uint64_t serial;
	uint32_t reads, writes;
};
static _Thread_local struct ign_tls ignoring;

/* ---- serial runs ---------------------------------------------------------
 */

/* A guest thread's thread-locals of this file, put aside while another
 * guest thread of a serial run uses its OS thread. */
struct det_tls {
	bool saved;
	const eng_thread *probe_thread;
	struct ctx_tls ctx;
	struct held_tls held;
	uint64_t nosync;
	struct ign_tls ign;
};

void det_probe_switch(det_probe *p, const eng_thread *t, bool resume)
{
	uint32_t id = eng_thread_id(t);
	struct det_tls *s, **v;

	if (!(v = grow_zeroed(p->tls, &p->ntls, id, 8, sizeof *v)))
		goto lost;
	p->tls = v;
	if (!p->tls[id] && !(p->tls[id] = wasm_calloc(1, sizeof *s)))
		goto lost;
	s = p->tls[id];
	if (!resume) {
		s->saved = true;
		s->probe_thread = probe_thread;
		s->ctx = cur_ctx;
		s->held = held;
		s->nosync = nosync_serial;
		s->ign = ignoring;
		return;
	}
	if (s->saved) {
		probe_thread = s->probe_thread;
		cur_ctx = s->ctx;
		held = s->held;
		nosync_serial = s->nosync;
		ignoring = s->ign;
		return;
	}
lost:
	/* A thread that never ran here starts clean; one whose state could
	 * not be kept (out of memory) too, which costs contexts and locks
	 * held in its reports, not correctness of the run. */
	probe_thread = resume ? t : NULL;
	memset(&cur_ctx, 0, sizeof cur_ctx);
	memset(&held, 0, sizeof held);
	nosync_serial = 0;
	memset(&ignoring, 0, sizeof ignoring);
}

void det_probe_ignore(det_probe *p, bool writes, bool begin)
{
	uint32_t *n;

	if (ignoring.serial != p->serial)
		memset(&ignoring, 0, sizeof ignoring);
	ignoring.serial = p->serial;
	n = writes ? &ignoring.writes : &ignoring.reads;
	if (begin)
		(*n)++;
	else if (*n)
		(*n)--;
}

/* Whether the calling thread ignores site's plain accesses now: a
 * thread-local load and compare on every probe, the site looked up only
 * inside a region. */
static inline bool ignored(const det_probe *p, uint32_t site)
{
	uint8_t kind;

	if (ignoring.serial != p->serial ||
	    !(ignoring.reads | ignoring.writes) || site >= p->nsites)
		return false;
	kind = p->site[site].kind;
	if (kind == RW_READ || kind == RW_RANGE_READ)
		return ignoring.reads != 0;
	return (kind == RW_WRITE || kind == RW_RANGE_WRITE) &&
	       ignoring.writes != 0;
}

/* A range races are left out on; silent ones are not counted. */
static void leave_out(det_probe *p, uint32_t addr, uint32_t size, bool silent)
{
	uint32_t n;

	if (p->algo == DET_SHARED || !size)
		return;
	pthread_mutex_lock(&p->hint_lock);
	n = p->nbenign;
	if (n < BENIGN_MAX) {
		p->benign[n].lo = addr;
		p->benign[n].hi = (uint64_t)addr + size > UINT32_MAX
				      ? UINT32_MAX
				      : addr + size;
		p->benign[n].silent = silent;
		__atomic_store_n(&p->nbenign, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&p->hint_lock);
}

void det_probe_benign(det_probe *p, uint32_t addr, uint32_t size)
{
	leave_out(p, addr, size, false);
}

void det_probe_thread_local(det_probe *p, uint32_t addr, uint32_t size)
{
	leave_out(p, addr, size, true);
}

/* The range left out that [addr, addr + width) meets, or NULL. */
static const struct benign_range *benign_at(const det_probe *p, uint32_t addr,
					    uint32_t width)
{
	uint32_t n = __atomic_load_n(&p->nbenign, __ATOMIC_ACQUIRE);
	uint64_t end = (uint64_t)addr + width;

	for (uint32_t i = 0; i < n; i++)
		if (addr < p->benign[i].hi && end > p->benign[i].lo)
			return &p->benign[i];
	return NULL;
}

/* Count the pair of key, a race left out as benign, once. */
static void benign_note(det_probe *p, uint64_t key)
{
	uint32_t j = (uint32_t)mix(key) % BENIGN_PAIRS;

	pthread_mutex_lock(&p->lock);
	for (uint32_t k = 0; k < BENIGN_PAIRS;
	     k++, j = (j + 1) % BENIGN_PAIRS) {
		if (p->bkeys[j] == key)
			goto done;
		if (!p->bkeys[j]) {
			p->bkeys[j] = key;
			break;
		}
	}
	p->benign_count++;
done:
	pthread_mutex_unlock(&p->lock);
}

uint32_t det_probe_benign_count(const det_probe *p)
{
	return __atomic_load_n(&p->benign_count, __ATOMIC_RELAXED);
}

void det_probe_hb_edge(det_probe *p, uint32_t tid, uint32_t addr, bool release)
{
	if (p->algo != DET_HB)
		return;
	if (release)
		det_hb_notify(p->hb, tid, addr);
	else
		det_hb_woken(p->hb, tid, addr);
}

void det_probe_thread_name(det_probe *p, const eng_thread *t, uint32_t tid,
			   uint32_t addr, uint32_t len)
{
	eng_instance *inst = t ? eng_thread_instance(t) : NULL;
	eng_memory *mem = inst ? eng_instance_memory(inst, 0) : NULL;
	struct thread_info *ti;
	char name[DET_NAME_MAX];

	if (p->algo == DET_SHARED || !mem ||
	    (uint64_t)addr + len > eng_memory_size(mem))
		return;
	if (len >= DET_NAME_MAX)
		len = DET_NAME_MAX - 1;
	copy_racy((uint8_t *)name, eng_memory_data(mem) + addr, len);
	name[len] = '\0';
	/* One line of text in every report. */
	for (uint32_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < ' ' || name[i] == 0x7f)
			name[i] = name[i] ? '?' : '\0';
	pthread_mutex_lock(&p->hint_lock);
	if ((ti = thread_info(p, tid)))
		memcpy(ti->name, name, sizeof name);
	pthread_mutex_unlock(&p->hint_lock);
}

void det_probe_new_memory(det_probe *p, uint32_t addr, uint32_t size)
{
	if (p->algo == DET_HB)
		det_hb_forget(p->hb, addr, size);
}

void det_probe_stack(det_probe *p, uint32_t tid, uint32_t lo, uint32_t hi)
{
	struct thread_info *ti;

	if (p->algo == DET_SHARED || lo >= hi)
		return;
	pthread_mutex_lock(&p->hint_lock);
	if ((ti = thread_info(p, tid))) {
		ti->has_stack = true;
		ti->lo = lo;
		ti->hi = hi;
	}
	pthread_mutex_unlock(&p->hint_lock);
}

/* The heap block or thread stack addr is in, from the hints so far.
 * A heap lookup walks the whole block table: it runs once per new bug
 * and per lock, and keeps malloc and free O(1). Under hint_lock. */
static void loc_of(const det_probe *p, uint32_t addr, det_loc *out)
{
	memset(out, 0, sizeof *out);
	for (uint32_t i = 0; i < p->nthreads; i++) {
		const struct thread_info *ti = &p->threads[i];
		if (ti->has_stack && addr >= ti->lo && addr < ti->hi) {
			*out = (det_loc){.kind = DET_LOC_STACK,
					 .base = ti->lo,
					 .size = ti->hi - ti->lo,
					 .tid = i};
			return;
		}
	}
	for (uint32_t i = 0; i < p->bcap; i++) {
		const struct block *b = &p->blocks[i];
		if (b->state != SLOT_LIVE || addr < b->base ||
		    addr - b->base >= (b->size ? b->size : 1))
			continue;
		*out = (det_loc){.kind = DET_LOC_HEAP,
				 .base = b->base,
				 .size = b->size,
				 .tid = b->tid};
		out->stack.n = b->n;
		out->stack.truncated = b->truncated;
		memcpy(out->stack.caller, b->frames, b->n * sizeof *b->frames);
		return;
	}
}

/* Where addr is, and each thread's creation, for violation v (its tids
 * set), from the hints so far: under hint_lock only, so that p->lock,
 * which every finder of a collision waits for, is not held meanwhile. */
static void where(det_probe *p, det_violation *v, uint32_t addr)
{
	pthread_mutex_lock(&p->hint_lock);
	for (int k = 0; k < 2; k++)
		if (v->tid[k] < p->nthreads) {
			v->spawn[k] = p->threads[v->tid[k]].spawn;
			memcpy(v->name[k], p->threads[v->tid[k]].name,
			       DET_NAME_MAX);
		}
	loc_of(p, addr, &v->loc);
	pthread_mutex_unlock(&p->hint_lock);
}

/* ---- locks held ---------------------------------------------------------- */

/* Locks whose first use a run records: a program that makes a lock per
 * element of a large array names the first LOCKS_MAX in its reports. */
#define LOCKS_MAX 4096u

/* The slot of the lock at addr, or the empty one where it goes. Under
 * hint_lock; lcap > 0. */
static uint32_t lock_slot(const det_probe *p, uint32_t addr)
{
	uint32_t j = (uint32_t)mix(addr) & (p->lcap - 1);

	while (p->lrec[j].used && p->lrec[j].addr != addr)
		j = (j + 1) & (p->lcap - 1);
	return j;
}

/* Record the first use of the lock at addr by thread tid (engine thread
 * t) unless it is known; false when it cannot be (the run has
 * LOCKS_MAX, or memory ran out). Under hint_lock. */
static bool lock_first_use(det_probe *p, const eng_thread *t, uint32_t tid,
			   uint32_t addr)
{
	struct lock_rec *r;

	if (p->lcap && p->lrec[lock_slot(p, addr)].used)
		return true;
	if (p->lcount >= LOCKS_MAX)
		return false;
	if ((p->lcount + 1) * 2 > p->lcap) {
		uint32_t cap = p->lcap ? p->lcap * 2 : 64, old = p->lcap;
		struct lock_rec *was = p->lrec;
		if (!(p->lrec = wasm_calloc(cap, sizeof *p->lrec))) {
			p->lrec = was;
			return false;
		}
		p->lcap = cap;
		for (uint32_t i = 0; i < old; i++)
			if (was[i].used)
				p->lrec[lock_slot(p, was[i].addr)] = was[i];
		wasm_free(was);
	}
	r = &p->lrec[lock_slot(p, addr)];
	memset(r, 0, sizeof *r);
	r->used = true;
	r->addr = addr;
	r->tid = tid;
	if (p->stacks)
		stack_of(t, 0, &r->first);
	loc_of(p, addr, &r->loc);
	p->lcount++;
	return true;
}

/* A rwlock's write beats its read: the strongest way a lock is held. */
static uint8_t lock_stronger(uint8_t a, uint8_t b)
{
	return a == DET_LOCK_READ ? b : a;
}

void det_probe_lock(det_probe *p, const eng_thread *t, uint32_t tid,
		    uint32_t addr, uint8_t kind)
{
	uint32_t i, k;

	if (p->algo == DET_SHARED || kind == DET_LOCK_NONE ||
	    kind >= DET_LOCK_KINDS)
		return;
	held_for(p);
	for (i = 0; i < held.n; i++)
		if (held.l[i].addr == addr) {
			held.l[i].depth++;
			held.l[i].kind = lock_stronger(held.l[i].kind, kind);
			held.gen++;
			return;
		}
	if (held.n < HELD_MAX) {
		held.l[held.n].addr = addr;
		held.l[held.n].depth = 1;
		held.l[held.n++].kind = kind;
	} else {
		held.over++;
	}
	held.gen++;
	k = (uint32_t)mix(addr) % HELD_SEEN;
	if (held.known[k] == addr + 1)
		return;
	pthread_mutex_lock(&p->hint_lock);
	if (lock_first_use(p, t, tid, addr))
		held.known[k] = addr + 1;
	pthread_mutex_unlock(&p->hint_lock);
}

void det_probe_unlock(det_probe *p, uint32_t addr)
{
	if (p->algo == DET_SHARED)
		return;
	held_for(p);
	for (uint32_t i = 0; i < held.n; i++) {
		if (held.l[i].addr != addr)
			continue;
		if (--held.l[i].depth == 0) {
			memmove(&held.l[i], &held.l[i + 1],
				(held.n - i - 1) * sizeof held.l[0]);
			held.n--;
		}
		held.gen++;
		return;
	}
	/* Not among those kept: one of the others (or a lock taken before
	 * the probe watched, which then counts nothing). */
	if (held.over) {
		held.over--;
		held.gen++;
	}
}

void det_probe_lock_details(const det_probe *p, det_violation *v, uint32_t n)
{
	det_probe *q = (det_probe *)p; /* hint_lock only */

	pthread_mutex_lock(&q->hint_lock);
	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			det_lockset *ls = &v[i].locks[k];
			for (uint32_t j = 0; j < ls->n && j < DET_MAX_LOCKS;
			     j++) {
				det_lock *l = &ls->lock[j];
				const struct lock_rec *r;
				if (!p->lcap)
					continue;
				r = &p->lrec[lock_slot(p, l->addr)];
				if (!r->used)
					continue;
				l->known = true;
				l->tid = r->tid;
				l->first = r->first;
				l->loc = r->loc;
			}
		}
	pthread_mutex_unlock(&q->hint_lock);
}

/* Two accesses as the one that found the other sees them: side 1 is the
 * finder. A det_violation is built only for a new bug, or to retry the
 * armed side's stack, so that a pair already seen costs no more than its
 * count. */
typedef struct pair {
	uint32_t site[2], tid[2], addr[2];
	uint8_t kind[2];
} pair;

/* Whether x, ordered with the finder on side cur, is v's collision. */
static bool same_collision(const det_violation *v, const pair *x, int cur)
{
	for (int k = 0; k < 2; k++) {
		int from = cur ? k : 1 - k;
		if (v->site[k] != x->site[from] || v->tid[k] != x->tid[from] ||
		    v->addr[k] != x->addr[from])
			return false;
	}
	return true;
}

/* Whether word s is the armed (or asked) state of generation gen. */
static bool armed_as(uint32_t s, uint32_t gen)
{
	return (s & ~ST_MASK) == gen && (s & ST_MASK) >= ST_ARMED;
}

/* Ask the access armed on e, whose word was s, for its stack, as soon as
 * the collision is seen: true when it is still armed, and its thread will
 * then wait for p->asking to drop (record drops it once the request is
 * in, or once the bug turns out not to want one) and answer. False when
 * the window has closed: nobody would answer. */
static bool ask(det_probe *p, race_cell *e, uint32_t s)
{
	uint32_t gen = s & ~ST_MASK, want = s;

	if (!p->stacks || !probe_thread)
		return false;
	__atomic_add_fetch(&p->asking, 1, __ATOMIC_SEQ_CST);
	if (__atomic_compare_exchange_n(&e->seq, &want, gen | ST_ASKED, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) ||
	    want == (gen | ST_ASKED))
		return true;
	__atomic_sub_fetch(&p->asking, 1, __ATOMIC_RELEASE);
	return false;
}

/* Whether bug b of p can take another collision as its example: it lacks
 * a stack, none is on its way, and this one can take both. The armed
 * thread's window may close before the finder asks it (ask); the pair
 * usually collides again in the same run. */
static bool wants_example(const det_probe *p, uint32_t b,
			  const armed_ref *armed)
{
	const det_violation *v = &p->bugs[b];

	if (!p->stacks || !armed || !probe_thread || p->nreqs >= MAX_REQS ||
	    (v->stack[0].n && v->stack[1].n))
		return false;
	for (uint32_t i = 0; i < p->nreqs; i++)
		if (p->req[i].bug == b)
			return false;
	return true;
}

/* Done with an ask (ask): the armed thread may look for its request. */
static void unask(det_probe *p, const armed_ref **armed)
{
	if (*armed)
		__atomic_sub_fetch(&p->asking, 1, __ATOMIC_RELEASE);
	*armed = NULL;
}

/* Record x; armed, when non-NULL, is side 0's access, already asked
 * (ask): the bug leaves it a request when it wants the example, and
 * record drops the ask as soon as that is decided (unask); hb, when non-NULL,
 * the happens-before race x is, whose earlier access (side 0) is looked up in
 * its thread's trace. */
static void record(det_probe *p, const pair *x, const armed_ref *armed,
		   const det_hb_race *hb)
{
	/* The violation's sides are ordered by site: the finder's is cur. */
	int cur = x->site[0] > x->site[1] ? 0 : 1;
	uint64_t key, count = 1;
	uint32_t j, b;
	det_violation *v;

	key = pair_key(x->site[0], x->site[1]);
	for (int k = 0; k < 2; k++) {
		const struct benign_range *out =
		    x->site[k] < p->nsites
			? benign_at(p, x->addr[k],
				    site_width(&p->site[x->site[k]]))
			: NULL;
		if (out) {
			unask(p, &armed);
			if (!out->silent)
				benign_note(p, key);
			return;
		}
	}
	pthread_mutex_lock(&p->lock);
	j = pair_slot(p, key);
	if (p->keys[j]) {
		b = p->vals[j];
		if (b == PAIR_DROPPED)
			goto done;
		count = ++p->bugs[b].count;
		if (!wants_example(p, b, armed))
			goto done;
	} else {
		if ((p->hcount + 1) * 2 > p->hcap && pairs_grow(p))
			j = pair_slot(p, key);
		if (p->hcount + 2 > p->hcap) {
			/* No room to remember another dropped pair (the table
			 * keeps one empty slot to end its probes): count it,
			 * even if it may have been counted before. */
			__atomic_store_n(&p->dropped, p->dropped + 1,
					 __ATOMIC_RELAXED);
			goto done;
		}
		p->keys[j] = key;
		p->hcount++;
		if (p->nbugs >= DET_MAX_BUGS) {
			p->vals[j] = PAIR_DROPPED;
			__atomic_store_n(&p->dropped, p->dropped + 1,
					 __ATOMIC_RELAXED);
			goto done;
		}
		b = p->nbugs;
	}
	/* A new bug's violation is not visible to det_probe_violations
	 * until nbugs moves. */
	v = &p->bugs[b];
	memset(v, 0, sizeof *v);
	for (int k = 0; k < 2; k++) {
		int from = cur ? k : 1 - k;
		v->site[k] = x->site[from];
		v->tid[k] = x->tid[from];
		v->addr[k] = x->addr[from];
		v->kind[k] = x->kind[from];
	}
	v->cur = (uint8_t)cur;
	v->count = count;
	if (p->stacks && armed && p->nreqs < MAX_REQS)
		p->req[p->nreqs++] = (struct stack_req){
		    .tid = armed->tid,
		    .seq = armed->seq,
		    .bug = b,
		    .side = (uint8_t)(1 - cur),
		    .cell = armed->cell,
		};
	/* The armed thread takes p->lock to read it. */
	unask(p, &armed);
	if (p->stacks) {
		take_stack(&v->stack[cur]);
		take_locks(p, &v->locks[cur]);
	}
	if (p->stacks && hb) {
		uint32_t c = det_hb_prev_context(p->hb, hb->tid[0], hb->clock,
						 hb->site[0]);
		if (c) {
			v->stack[1 - cur] = ctx_at(p, c)->stack;
			lockset_of(&ctx_at(p, c)->locks, &v->locks[1 - cur]);
		}
	}
	note_complete(p, v);
	if (b == p->nbugs) {
		p->vals[j] = b;
		/* Published last: det_probe_violations may run meanwhile. */
		__atomic_store_n(&p->nbugs, p->nbugs + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&p->lock);
	/* The location after p->lock: other finders must post their stack
	 * requests before their armed accesses' windows close. The armed
	 * side's stack arrives the same way, after publication. */
	if (p->stacks) {
		det_violation w;
		w.tid[0] = x->tid[0];
		w.tid[1] = x->tid[1];
		memset(&w.loc, 0, sizeof w.loc);
		memset(w.spawn, 0, sizeof w.spawn);
		memset(w.name, 0, sizeof w.name);
		where(p, &w, x->addr[1]);
		pthread_mutex_lock(&p->lock);
		/* Another collision may have become the example meanwhile. */
		if (same_collision(v, x, cur)) {
			v->loc = w.loc;
			for (int k = 0; k < 2; k++) {
				v->spawn[k] = w.spawn[cur ? k : 1 - k];
				memcpy(v->name[k], w.name[cur ? k : 1 - k],
				       DET_NAME_MAX);
			}
		}
		pthread_mutex_unlock(&p->lock);
	}
	return;
done:
	unask(p, &armed);
	pthread_mutex_unlock(&p->lock);
}

/* A race of the happens-before detector, as the violation of its pair. */
static void hb_found(void *ctx, const det_hb_race *r)
{
	det_probe *p = ctx;
	pair x = {
	    .site = {r->site[0], r->site[1]},
	    .tid = {r->tid[0], r->tid[1]},
	    .addr = {r->addr[0], r->addr[1]},
	    .kind = {r->kind[0], r->kind[1]},
	};

	record(p, &x, NULL, r);
}

/* A consistent copy of the access armed on e, whose word was s. False
 * when the cell is (or becomes) free, or stays locked. */
static bool snapshot(race_cell *e, uint32_t s, race_cell *out)
{
	for (int tries = 0; tries < LOCKED_SPINS; tries++) {
		uint32_t s2;
		if ((s & ST_MASK) == ST_FREE)
			return false;
		if ((s & ST_MASK) == ST_LOCKED) {
			cpu_relax();
			s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
			continue;
		}
		out->tid = __atomic_load_n(&e->tid, __ATOMIC_RELAXED);
		out->site = __atomic_load_n(&e->site, __ATOMIC_RELAXED);
		out->addr = __atomic_load_n(&e->addr, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
		if (s2 == s) {
			out->seq = s;
			return true;
		}
		s = s2;
	}
	return false;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin until *w is non-zero (set) or zero (!set), or the deadline
 * passes: tightly at first (the other thread is a few instructions away
 * on another core), then yielding so that one on the same core can run.
 * Waits on a breakpoint's flags (set), and on p->asking (zero) for an
 * armed thread whose cell was asked; an asker preempted before leaving
 * its request is given up at the deadline (the request is dropped
 * unanswered). */
static void spin_until(const uint32_t *w, bool set, uint64_t deadline)
{
	for (uint32_t n = 0; (__atomic_load_n(w, __ATOMIC_ACQUIRE) != 0) != set;
	     n++) {
		if (n < 4096) {
			cpu_relax();
			continue;
		}
		if (mono_ns() >= deadline)
			return;
		sched_yield();
	}
}

/* Thread tid, whose access covered the cells armed[0..narmed) with the
 * generations armed_seq[], has disarmed them, one or more of them asked: answer
 * the stack requests made of it, and drop those whose access has gone by. mb:
 * its width bytes in linear memory, which it copied to `before` ahead of its
 * window (NULL: no value evidence). */
static void serve_requests(det_probe *p, uint32_t tid, const uint64_t *armed,
			   const uint32_t *armed_seq, int narmed,
			   const uint8_t *mb, const uint8_t *before,
			   uint32_t width)
{
	race_cell *t = p->table;

	pthread_mutex_lock(&p->lock);
	for (uint32_t i = 0; i < p->nreqs;) {
		struct stack_req *q = &p->req[i];
		bool mine = false;
		for (int k = 0; k < narmed && !mine; k++)
			mine = q->tid == tid && q->cell == armed[k] &&
			       q->seq == armed_seq[k];
		if (mine) {
			det_violation *v = &p->bugs[q->bug];
			take_stack(&v->stack[q->side]);
			take_locks(p, &v->locks[q->side]);
			note_complete(p, v);
			if (mb) {
				v->vwidth = (uint8_t)width;
				v->vside = q->side;
				memcpy(v->before, before, width);
				copy_racy(v->after, mb, width);
			}
		} else if (armed_as(__atomic_load_n(&t[q->cell].seq,
						    __ATOMIC_ACQUIRE),
				    q->seq)) {
			i++;
			continue;
		}
		*q = p->req[--p->nreqs];
	}
	pthread_mutex_unlock(&p->lock);
}

/* The window an armed access stays armed. A serial run (core/engine.h)
 * has one thread running at a time, so spinning would only stall it:
 * the thread sleeps `delay` points of virtual time instead, while the
 * scheduler runs the others, whose accesses can collide with it. */
static void delay(const det_probe *p)
{
	eng_thread *t = (eng_thread *)probe_thread;

	if (t && eng_proc_serial(eng_thread_proc(t))) {
		eng_proc *proc = eng_thread_proc(t);
		eng_sched_sleep(t, eng_proc_vclock(proc) +
				       (uint64_t)p->delay * ENG_POINT_NS);
		return;
	}
	for (uint32_t i = 0; i < p->delay; i++)
		cpu_relax();
}

/* hold: when non-NULL, the armed cells stay armed past the delay until
 * *hold is set (a breakpoint's follower probed) or TRIGGER_FOLLOW_NS. */
static void race_access(det_probe *p, uint32_t tid, uint32_t addr,
			uint32_t site, uint32_t width, uint64_t c0, uint64_t c1,
			const uint32_t *hold)
{
	race_cell *t = p->table;
	uint64_t armed[MAX_CELLS];
	uint32_t armed_seq[MAX_CELLS];
	int narmed = 0;
	race_cell last = {.seq = 0};
	bool have_last = false;
	uint8_t kind = p->site[site].kind;

	for (uint64_t c = c0; c <= c1; c++) {
		race_cell *e = &t[c], o;
		uint32_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

		if ((s & ST_MASK) == ST_FREE && narmed < MAX_CELLS &&
		    __atomic_compare_exchange_n(&e->seq, &s, s | ST_LOCKED,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE)) {
			/* Keep the access stores after the lock for a
			 * checker that sees them. */
			__atomic_thread_fence(__ATOMIC_RELEASE);
			__atomic_store_n(&e->tid, tid, __ATOMIC_RELAXED);
			__atomic_store_n(&e->site, site, __ATOMIC_RELAXED);
			__atomic_store_n(&e->addr, addr, __ATOMIC_RELAXED);
			__atomic_store_n(&e->seq, s | ST_ARMED,
					 __ATOMIC_RELEASE);
			armed[narmed] = c;
			armed_seq[narmed++] = s;
			continue;
		}
		if (!snapshot(e, s, &o) || o.tid == tid || o.site >= p->nsites)
			continue;
		/* A wide access armed on several cells is one collision. */
		if (have_last && o.tid == last.tid && o.site == last.site &&
		    o.addr == last.addr)
			continue;
		const rw_site *os = &p->site[o.site];
		uint64_t oend = (uint64_t)o.addr + site_width(os);
		if (o.addr >= (uint64_t)addr + width || addr >= oend)
			continue;
		if (!plain_write(kind) && !plain_write(os->kind))
			continue;
		last = o;
		have_last = true;
		pair x = {
		    .site = {o.site, site},
		    .tid = {o.tid, tid},
		    .addr = {o.addr, addr},
		    .kind = {os->kind, kind},
		};
		armed_ref ref = {o.tid, o.seq & ~ST_MASK, c};
		uint64_t key = pair_key(o.site, site);
		bool done =
		    __atomic_load_n(&p->complete[mix(key) % COMPLETE_SLOTS],
				    __ATOMIC_RELAXED) == key;
		record(p, &x, !done && ask(p, e, o.seq) ? &ref : NULL, NULL);
	}
	if (!narmed)
		return;
	/* The value evidence's first half, while nobody can have been
	 * told to look at these cells yet. */
	uint8_t before[DET_VALUE_BYTES];
	const uint8_t *mb = NULL;
	if (p->stacks && width <= DET_VALUE_BYTES &&
	    (mb = probe_bytes(p, site, addr, width)))
		copy_racy(before, mb, width);
	delay(p);
	if (hold)
		spin_until(hold, true, mono_ns() + TRIGGER_FOLLOW_NS);
	bool asked = false;
	for (int i = 0; i < narmed; i++)
		asked |= (__atomic_exchange_n(&t[armed[i]].seq,
					      armed_seq[i] + (ST_MASK + 1),
					      __ATOMIC_ACQ_REL) &
			  ST_MASK) == ST_ASKED;
	if (asked) {
		spin_until(&p->asking, false, mono_ns() + TRIGGER_FOLLOW_NS);
		serve_requests(p, tid, armed, armed_seq, narmed, mb, before,
			       width);
	}
}

/* ---- concurrent breakpoint ------------------------------------------------
 */

void det_probe_set_stacks(det_probe *p, bool on) { p->stacks = on; }

wasm_status det_probe_set_mask(det_probe *p, const uint8_t *mask, wasm_err *err)
{
	wasm_free(p->cover);
	p->cover = NULL;
	if (p->algo != DET_HB)
		return WASM_OK;
	for (uint32_t i = 0; i < p->nsites; i++) {
		const rw_site *r = &p->site[i];
		if (!r->covered || mask[i] || r->covered_by >= p->nsites ||
		    !mask[r->covered_by])
			continue;
		if (!p->cover &&
		    !(p->cover = wasm_calloc(p->nsites, sizeof *p->cover)))
			return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory for the probe "
					    "state");
		p->cover[r->covered_by] = i + 1;
	}
	return WASM_OK;
}

void det_probe_set_trigger(det_probe *p, const det_trigger *t)
{
	p->trig = *t;
	if (!p->trig.max_holds)
		p->trig.max_holds = DET_TRIGGER_HOLDS;
	p->has_trig = true;
}

void det_probe_trigger_stats(const det_probe *p, uint64_t *holds, bool *met)
{
	*holds = __atomic_load_n(&p->holds, __ATOMIC_RELAXED);
	*met = __atomic_load_n(&p->met, __ATOMIC_ACQUIRE) != 0;
}

/* Thread tid is about to access [addr, addr + width) at a breakpoint
 * site: meet a waiting partner, or wait for one. How two meet: the
 * arriving thread leads: it goes on at once and keeps its cells armed
 * (race_access's hold) until the waiting thread has probed; the waiting
 * thread follows: it waits for those cells to be armed, probes (and so
 * records the collision), then sets `probed`. Returns the thread's part
 * and, for both parts, the flag they share. */
typedef enum trig_part { TRIG_NONE, TRIG_LEAD, TRIG_FOLLOW } trig_part;

/* Whether [addr, addr + width) covers the logged address of its site
 * (either one, for a race of a site with itself). */
static bool covers(const det_trigger *t, int role, bool same, uint32_t addr,
		   uint32_t width)
{
	for (int i = same ? 0 : role; i <= (same ? 1 : role); i++)
		if (t->addr[i] >= addr && t->addr[i] - addr < width)
			return true;
	return false;
}

static trig_part trigger_access(det_probe *p, uint32_t tid, uint32_t addr,
				uint32_t site, uint32_t width,
				uint32_t **probed)
{
	const det_trigger *t = &p->trig;
	bool same = t->site[0] == t->site[1];
	int role = site == t->site[0] ? 0 : 1;
	struct trig_wait *o = &p->wait[same ? 0 : 1 - role], *me;
	trig_part part = TRIG_NONE;
	uint64_t deadline;

	pthread_mutex_lock(&p->lock);
	if (p->met)
		goto out;
	if (o->busy && o->tid != tid && o->addr < addr + width &&
	    addr < o->addr + o->width) {
		o->lead_tid = tid;
		o->lead_addr = addr;
		*probed = &o->probed;
		__atomic_store_n(&p->met, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&o->released, 1, __ATOMIC_RELEASE);
		part = TRIG_LEAD;
		goto out;
	}
	/* A partner waits on other bytes: go on rather than wait too, so
	 * that this thread can reach the partner's bytes later (a loop whose
	 * two threads meet at one index only). */
	me = &p->wait[role];
	if (me->busy || o->busy || p->held[tid % NSHARDS] >= t->max_holds ||
	    (t->by_addr && !covers(t, role, same, addr, width)))
		goto out;
	p->held[tid % NSHARDS]++;
	p->holds++;
	*me = (struct trig_wait){
	    .busy = true, .tid = tid, .addr = addr, .width = width};
	pthread_mutex_unlock(&p->lock);
	/* Spinning, not a condition variable: a wake-up takes longer than
	 * the delay window the two accesses share. */
	deadline = mono_ns() + t->hold_ns;
	spin_until(&me->released, true, deadline);
	pthread_mutex_lock(&p->lock);
	me->busy = false;
	if (__atomic_load_n(&me->released, __ATOMIC_ACQUIRE)) {
		race_cell *e = &((race_cell *)p->table)[me->lead_addr >> 2];
		uint32_t lead = me->lead_tid;
		pthread_mutex_unlock(&p->lock);
		*probed = &me->probed;
		deadline = mono_ns() + TRIGGER_FOLLOW_NS;
		for (uint32_t n = 0;; n++) {
			uint32_t sq =
			    __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
			if ((sq & ST_MASK) >= ST_ARMED &&
			    __atomic_load_n(&e->tid, __ATOMIC_RELAXED) == lead)
				break;
			if (n < 4096) {
				cpu_relax();
			} else if (mono_ns() >= deadline) {
				break;
			} else {
				sched_yield();
			}
		}
		return TRIG_FOLLOW;
	}
out:
	pthread_mutex_unlock(&p->lock);
	return part;
}

/* ---- Algorithm 2 -------------------------------------------------------- */

static inline void mark(det_probe *p, uint32_t site)
{
	__atomic_store_n(&p->shared[site], 1, __ATOMIC_RELAXED);
}

static uint32_t *hist_sites(shared_cell *e)
{
	return e->n > HIST_INLINE ? e->h.more : e->h.inl;
}

static void hist_flush(shared_cell *e, det_probe *p)
{
	uint32_t *h = hist_sites(e);

	for (uint32_t i = 0; i < e->n; i++)
		mark(p, h[i]);
	if (e->n > HIST_INLINE)
		wasm_free(e->h.more);
	e->n = 0;
}

static bool hist_register(det_probe *p, uint64_t cell)
{
	bool ok = true;

	pthread_mutex_lock(&p->lock);
	if (p->nhist == p->caphist) {
		size_t cap = p->caphist ? 2 * p->caphist : 256;
		uint64_t *v = wasm_realloc(p->hist_cells, cap * sizeof *v);
		if (v) {
			p->hist_cells = v;
			p->caphist = cap;
		}
		ok = v != NULL;
	}
	if (ok)
		p->hist_cells[p->nhist++] = cell;
	pthread_mutex_unlock(&p->lock);
	return ok;
}

/* Add site to the cell's history; false when it cannot be kept (memory,
 * HIST_CAP), and the caller then treats the cell as shared. */
static bool hist_add(det_probe *p, shared_cell *e, uint64_t cell, uint32_t site)
{
	uint32_t *h = hist_sites(e), *more;

	for (uint32_t i = 0; i < e->n; i++)
		if (h[i] == site)
			return true;
	if (e->n < HIST_INLINE) {
		e->h.inl[e->n++] = site;
		return true;
	}
	if (e->n == HIST_CAP)
		return false;
	if (e->n == HIST_INLINE) {
		more = wasm_malloc(2 * HIST_INLINE * sizeof *more);
		if (!more || !hist_register(p, cell)) {
			wasm_free(more);
			return false;
		}
		memcpy(more, e->h.inl, sizeof e->h.inl);
		e->h.more = more;
	} else if ((e->n & (e->n - 1)) == 0) {
		/* n is a power of two: the array is full. */
		more = wasm_realloc(e->h.more, 2 * (size_t)e->n * sizeof *more);
		if (!more)
			return false;
		e->h.more = more;
	}
	e->h.more[e->n++] = site;
	return true;
}

static void shared_access(det_probe *p, uint32_t tid, uint32_t site,
			  uint64_t c0, uint64_t c1)
{
	shared_cell *t = p->table;

	for (uint64_t c = c0; c <= c1; c++) {
		shared_cell *e = &t[c];

		while (__atomic_exchange_n(&e->lock, 1, __ATOMIC_ACQUIRE))
			while (__atomic_load_n(&e->lock, __ATOMIC_RELAXED))
				cpu_relax();
		if (e->shared) {
			mark(p, site);
		} else if (!e->owned || e->owner == tid) {
			/* Exclusive: a site already in P needs no history. */
			e->owned = 1;
			e->owner = tid;
			if (!__atomic_load_n(&p->shared[site],
					     __ATOMIC_RELAXED) &&
			    !hist_add(p, e, c, site)) {
				hist_flush(e, p);
				mark(p, site);
				e->shared = 1;
			}
		} else {
			/* Transition: a second thread. */
			hist_flush(e, p);
			mark(p, site);
			e->shared = 1;
		}
		__atomic_store_n(&e->lock, 0, __ATOMIC_RELEASE);
	}
}

/* ---- entry points ------------------------------------------------------- */

/* One more probe call of thread tid: thread ids are unique within a
 * run, so below NSHARDS a shard has one writer and needs no locked add (a
 * locked add was a third of the probe's cost here); beyond, threads share
 * shards. */
static void count_call(det_probe *p, uint32_t tid)
{
	if (tid < NSHARDS)
		__atomic_store_n(
		    &p->calls[tid].n,
		    __atomic_load_n(&p->calls[tid].n, __ATOMIC_RELAXED) + 1,
		    __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&p->calls[tid % NSHARDS].n, 1,
				   __ATOMIC_RELAXED);
}

/* Set by the filter when it found the call no repeat: the probe call
 * that follows at once on this thread need not test it again. */
static _Thread_local bool repeat_tested;

static bool hb_repeat(void *ctx, uint32_t tid, const eng_val *args)
{
	det_probe *p = ctx;
	uint32_t addr = (uint32_t)args[0], site = (uint32_t)args[1];

	if (site & (RW_PROBE_SRC | RW_PROBE_LEN))
		return false;
	if (!det_hb_repeat(p->hb, tid, addr, site)) {
		repeat_tested = true;
		return false;
	}
	count_call(p, tid);
	return true;
}

eng_host_filter det_probe_filter(const det_probe *p)
{
	return p->algo == DET_HB && p->hb ? hb_repeat : NULL;
}

const eng_shadow_test *det_probe_shadow_test(det_probe *p)
{
	return p->algo == DET_HB && p->hb ? det_hb_shadow_test(p->hb) : NULL;
}

void det_probe_access(det_probe *p, const eng_thread *t, uint32_t tid,
		      uint32_t addr, uint32_t site)
{
	uint64_t end;
	uint32_t width;

	probe_thread = t;
	if (site & (RW_PROBE_SRC | RW_PROBE_LEN)) {
		/* A range's source and length: only happens-before reads
		 * them; collisions arm the range's first byte. */
		if (p->algo == DET_HB)
			det_hb_range(p->hb, tid, addr, site);
		return;
	}
	count_call(p, tid);
	if (p->algo == DET_HB) {
		/* Most accesses of a loop repeat one of the same epoch: no
		 * caller context to note, no cell to lock. */
		bool tested = repeat_tested | det_hb_tested(p->hb, tid);
		bool self = !ignored(p, site);
		uint32_t r = p->cover && site < p->nsites ? p->cover[site] : 0;
		uint64_t raddr =
		    r ? (uint64_t)addr + p->site[r - 1].cover_at : 0;

		repeat_tested = false;
		if (r && (ignored(p, r - 1) || raddr > UINT32_MAX))
			r = 0;
		if ((!self && !r) ||
		    (!tested && det_hb_repeat(p->hb, tid, addr, site)) ||
		    nosync_serial == p->serial)
			return;
		if (p->stacks && t)
			note_context(p, t, tid);
		if (r && !det_hb_repeat(p->hb, tid, (uint32_t)raddr, r - 1))
			det_hb_access(p->hb, tid, (uint32_t)raddr, r - 1);
		if (self)
			det_hb_access(p->hb, tid, addr, site);
		return;
	}
	if (ignored(p, site))
		return;
	if (site >= p->nsites || addr >= p->mem_bytes)
		return;
	width = site_width(&p->site[site]);
	end = (uint64_t)addr + width;
	if (end > p->mem_bytes)
		end = p->mem_bytes;
	if (p->algo == DET_SHARED) {
		shared_access(p, tid, site, addr >> 2, (end - 1) >> 2);
		return;
	}
	trig_part part = TRIG_NONE;
	uint32_t *probed = NULL;
	if (p->has_trig &&
	    (site == p->trig.site[0] || site == p->trig.site[1]) &&
	    !__atomic_load_n(&p->met, __ATOMIC_ACQUIRE))
		part = trigger_access(p, tid, addr, site,
				      (uint32_t)(end - addr), &probed);
	race_access(p, tid, addr, site, width, addr >> 2, (end - 1) >> 2,
		    part == TRIG_LEAD ? probed : NULL);
	if (part == TRIG_FOLLOW)
		__atomic_store_n(probed, 1, __ATOMIC_RELEASE);
}

/* What a spawn hands its child: the parent's clock (DET_HB) and who
 * created it. */
typedef struct spawn_token {
	void *hb;
	det_spawn spawn;
} spawn_token;

void *det_probe_spawn(det_probe *p, const eng_thread *t, uint32_t parent)
{
	spawn_token *tok;
	void *hb = p->algo == DET_HB ? det_hb_spawn(p->hb, parent) : NULL;

	if (p->algo == DET_SHARED)
		return NULL;
	if (!(tok = wasm_calloc(1, sizeof *tok))) {
		/* As an out-of-memory clock copy: the child is not ordered. */
		det_hb_drop(hb);
		return NULL;
	}
	tok->hb = hb;
	tok->spawn.known = true;
	tok->spawn.parent = parent;
	if (p->stacks)
		stack_of(t, 0, &tok->spawn.stack);
	return tok;
}

void det_probe_start(det_probe *p, const uint32_t *child, void *token)
{
	spawn_token *tok = token;
	struct thread_info *ti;

	if (!tok)
		return;
	if (p->algo == DET_HB) {
		if (child)
			det_hb_start(p->hb, *child, tok->hb);
		else
			det_hb_drop(tok->hb);
	}
	if (child) {
		pthread_mutex_lock(&p->hint_lock);
		if ((ti = thread_info(p, *child)))
			ti->spawn = tok->spawn;
		pthread_mutex_unlock(&p->hint_lock);
	}
	wasm_free(tok);
}

void det_probe_end(det_probe *p, uint32_t tid)
{
	if (p->algo == DET_HB)
		det_hb_end(p->hb, tid);
}

void det_probe_sync(det_probe *p, uint32_t tid, eng_sync_event ev,
		    uint64_t addr)
{
	if (p->algo != DET_HB || nosync_serial == p->serial)
		return;
	if (ev == ENG_SYNC_NOTIFY)
		det_hb_notify(p->hb, tid, addr);
	else
		det_hb_woken(p->hb, tid, addr);
}

const det_violation *det_probe_violations(const det_probe *p, uint32_t *n,
					  uint32_t *dropped)
{
	*n = __atomic_load_n(&p->nbugs, __ATOMIC_ACQUIRE);
	*dropped = __atomic_load_n(&p->dropped, __ATOMIC_RELAXED);
	return p->bugs;
}

const uint8_t *det_probe_shared(const det_probe *p) { return p->shared; }

void det_probe_hb_bytes(const det_probe *p, uint64_t *shadow, uint64_t *touched)
{
	*shadow = p->hb ? det_hb_shadow_bytes(p->hb) : 0;
	*touched = p->hb ? det_hb_touched_bytes(p->hb) : 0;
}

uint64_t det_probe_calls(const det_probe *p)
{
	uint64_t n = 0;

	for (int i = 0; i < NSHARDS; i++)
		n += __atomic_load_n(&p->calls[i].n, __ATOMIC_RELAXED);
	return n + (p->hb ? det_hb_skipped(p->hb) : 0);
}
