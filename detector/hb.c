/*
 * hb.c - happens-before race detection (hb.h).
 */
#include "detector/hb.h"

#include "core/util.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- epochs ----------------------------------------------------------------
 *
 * A shadow record in one 64-bit word: the clock in bits 0-23 (a thread's
 * clock past 2^24-1 is recorded as 2^24-1: later accesses of that thread
 * then look ordered, which can hide a race, never invent one), the thread
 * in 24-39, the bytes of the cell it covered in 40-43, atomic, valid, the
 * site's slot in 46-62 (below), and bit 63: the lock in a write record,
 * R_SET in a read record, whose bits 0-31 are then a read set's index.
 *
 * Slots: a site id is recorded as site + 1 when the program has fewer
 * sites than E_MULTI; else each site gets a slot when a run first
 * executes it, and a site past the E_MULTI - 1st executed is recorded
 * without one (a race against its record is then not reported). Slot
 * E_MULTI is a read record of several lines of one thread's epoch
 * (two fields of a cell read by two lines): the line of each byte is
 * then in the cell's entry of det_hb.lines. Two words of 8 bytes a
 * cell: the shadow is 4 times the memory it covers (and lines, 16 bytes
 * a cell, is touched only where such records are). */
#define E_CLOCK_MAX  0xffffffu
#define E_TID_SHIFT  24
#define E_MASK_SHIFT 40
#define E_ATOMIC     ((uint64_t)1 << 44)
#define E_VALID	     ((uint64_t)1 << 45)
#define E_SLOT_SHIFT 46
#define E_SLOTS	     ((uint32_t)1 << 17)
#define E_MULTI	     (E_SLOTS - 1)
/* The fields of a record, in place. */
#define E_TID_BITS   ((uint64_t)0xffff << E_TID_SHIFT)
#define E_MASK_BITS  ((uint64_t)0xf << E_MASK_SHIFT)
#define E_SLOT_BITS  ((uint64_t)(E_SLOTS - 1) << E_SLOT_SHIFT)
#define R_SET	     ((uint64_t)1 << 63)
#define W_LOCK	     ((uint64_t)1 << 63)

static inline uint32_t e_clock(uint64_t e) { return (uint32_t)e & E_CLOCK_MAX; }
static inline uint32_t e_tid(uint64_t e)
{
	return (uint32_t)(e >> E_TID_SHIFT) & 0xffff;
}
static inline uint32_t e_mask(uint64_t e)
{
	return (uint32_t)(e >> E_MASK_SHIFT) & 0xf;
}
static inline uint32_t e_slot(uint64_t e)
{
	return (uint32_t)(e >> E_SLOT_SHIFT) & (E_SLOTS - 1);
}
static inline uint64_t e_make(uint32_t tid, uint32_t clock, uint32_t mask,
			      bool atomic, uint32_t slot)
{
	return E_VALID | (uint64_t)(clock < E_CLOCK_MAX ? clock : E_CLOCK_MAX) |
	       (uint64_t)tid << E_TID_SHIFT | (uint64_t)mask << E_MASK_SHIFT |
	       (atomic ? E_ATOMIC : 0) | (uint64_t)slot << E_SLOT_SHIFT;
}
/* The read set of a read record with R_SET: its index + 1. */
static inline uint32_t r_set(uint64_t r) { return (uint32_t)r; }

typedef struct cell {
	uint64_t w; /* last write; W_LOCK while a thread works on it */
	uint64_t r; /* last read, or R_SET and a read set's index + 1 */
} cell;

/* Concurrent readers of one cell. */
typedef struct rset {
	uint64_t e[HB_READERS];
	uint32_t site[HB_READERS];
	uint32_t next; /* the slot a full set forgets next; free list link */
} rset;

#define RSET_CHUNK  256u
#define RSET_CHUNKS 65536u

/* ---- clocks ----------------------------------------------------------------
 */

typedef struct vclock {
	uint32_t *c;
	uint32_t len, cap;
} vclock;

static bool vc_grow(vclock *v, uint32_t len)
{
	if (len > v->cap) {
		uint32_t cap = v->cap ? v->cap : 8;
		uint32_t *c;
		while (cap < len)
			cap *= 2;
		if (!(c = wasm_realloc(v->c, (size_t)cap * sizeof *c)))
			return false;
		memset(c + v->cap, 0, (size_t)(cap - v->cap) * sizeof *c);
		v->c = c;
		v->cap = cap;
	}
	if (len > v->len)
		v->len = len;
	return true;
}

/* v = max(v, o), entry by entry. */
static bool vc_join(vclock *v, const vclock *o)
{
	if (!vc_grow(v, o->len))
		return false;
	for (uint32_t i = 0; i < o->len; i++)
		if (o->c[i] > v->c[i])
			v->c[i] = o->c[i];
	return true;
}

typedef struct thr {
	vclock vc;
	uint32_t pending; /* cell + 1 of an atomic load to acquire, or 0 */
	/* The range access being announced (rewriter/instrument.h: a range
	 * site's probe calls): its site + 1 (0: none), destination and
	 * memory.copy's source. */
	uint32_t range_site, range_dst, range_src;
	bool range_has_src;
	uint32_t ctx; /* det_hb_context's, 0: none */
	eng_shadow_thread *fast; /* its record in the inline test, or NULL */
} thr;

/* Sync clocks of atomic cells: NSTRIPES tables of open addressing, each
 * under its own lock, so that threads using different locks do not wait
 * for each other. */
#define NSTRIPES 256u

typedef struct sync_var {
	uint32_t key; /* cell + 1; 0: empty */
	vclock vc;
} sync_var;

typedef struct stripe {
	pthread_mutex_t lock;
	sync_var *v;
	uint32_t cap, n;
} stripe;

/* ---- traces ----------------------------------------------------------------
 *
 * A thread's trace says in which caller context it ran each site during
 * each epoch, so that a race found against one of its records can name
 * the earlier access's callers (det_hb_prev_context). An entry is
 * appended before the access's records are written, and only when the
 * site, context or clock differs from what the site's cache slot last
 * saw, so a loop costs one entry per epoch. The trace doubles from
 * TRACE_MIN entries up to TRACE_MAX, then wraps: the oldest entries go,
 * and a race against an access that old has no earlier stack. A grown
 * trace's old buffer stays until det_hb_free, for a reader still in it.
 * Only the owning thread writes; any thread reads, under no lock: it
 * checks after its scan that the writer did not wrap over what it found.
 * Traces outlive their threads (a race is often found after the earlier
 * access's thread has ended). */
#define TRACE_MIN   64u
#define TRACE_MAX   8192u
#define TRACE_CACHE 64u

typedef struct tentry {
	uint64_t clock_site; /* clock << 32 | site */
	uint64_t ctx;
} tentry;

typedef struct tbuf {
	struct tbuf *older; /* retired buffers, freed with the trace */
	uint32_t cap;	    /* a power of two */
	tentry e[];
} tbuf;

typedef struct trace {
	tbuf *buf;     /* published with release */
	uint64_t head; /* entries ever appended; published with release */
	struct {
		uint32_t site, ctx, clock;
		uint64_t at; /* head when appended */
	} seen[TRACE_CACHE]; /* the owner's */
} trace;

#define HB_FAST_THREADS 64u

typedef struct fast_thr {
	eng_shadow_thread r;
	uint8_t pad[64 - sizeof(eng_shadow_thread)];
} fast_thr;

struct det_hb {
	const rw_site *site;
	uint32_t nsites;
	/* Slots (see "epochs"): direct, site + 1; else slot_of[site] (0:
	 * none yet; E_SLOTS: none to be had) and site_of[slot], given out
	 * under rlock. */
	bool direct;
	uint32_t *slot_of, *site_of, nslots;
	bool ranges; /* range sites announce their length (table version 3) */
	uint64_t mem_bytes, ncells;
	cell *shadow;
	size_t shadow_bytes;
	/* The line of each byte of a cell whose read record is E_MULTI,
	 * written and read under the cell's lock; reserved like shadow. */
	struct lines {
		uint32_t site[4];
	} * lines;
	size_t lines_bytes;
	det_hb_report report;
	void *ctx;
	thr **thr;     /* HB_MAX_THREADS slots, each owned by its thread */
	trace **trace; /* HB_MAX_THREADS slots, each written by its thread */
	stripe stripes[NSTRIPES];
	pthread_mutex_t rlock; /* the read sets' chunks and free list */
	rset *rchunk[RSET_CHUNKS];
	uint32_t nrsets, rfree; /* rfree: index + 1 of a free set, or 0 */
	uint64_t *touched;	/* a bit per 4 KiB page of memory accessed */
	/* The same-epoch test compiled code makes inline
	 * (det_hb_shadow_test): a cache line per thread for the first
	 * HB_FAST_THREADS, an entry per site; test.sites is NULL until it
	 * is asked for. */
	fast_thr *fast;
	eng_shadow_site *fast_site;
	eng_shadow_test test;
};

/* bytes of zeroes reserved, touched lazily; NULL when they cannot be. */
static void *reserve(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

wasm_status det_hb_new(const rw_sites *sites, uint64_t mem_bytes,
		       det_hb_report report, void *ctx, det_hb **out,
		       wasm_err *err)
{
	det_hb *h = wasm_calloc(1, sizeof *h);

	*out = NULL;
	if (!h)
		goto nomem;
	if (mem_bytes > (uint64_t)1 << 32)
		mem_bytes = (uint64_t)1 << 32;
	h->site = sites->sites;
	h->nsites = sites->nsites;
	h->ranges = sites->version >= 3;
	h->direct = sites->nsites < E_MULTI;
	h->mem_bytes = mem_bytes;
	h->ncells = (mem_bytes + 3) / 4;
	h->report = report;
	h->ctx = ctx;
	pthread_mutex_init(&h->rlock, NULL);
	for (uint32_t i = 0; i < NSTRIPES; i++)
		pthread_mutex_init(&h->stripes[i].lock, NULL);
	if (!h->direct &&
	    (!(h->slot_of = wasm_calloc(h->nsites, sizeof *h->slot_of)) ||
	     !(h->site_of = wasm_calloc(E_SLOTS, sizeof *h->site_of))))
		goto nomem;
	if (!(h->thr = wasm_calloc(HB_MAX_THREADS, sizeof *h->thr)) ||
	    !(h->fast = wasm_calloc(HB_FAST_THREADS, sizeof *h->fast)) ||
	    !(h->trace = wasm_calloc(HB_MAX_THREADS, sizeof *h->trace)) ||
	    !(h->touched =
		  wasm_calloc((mem_bytes >> 12) / 64 + 1, sizeof *h->touched)))
		goto nomem;
	if (h->ncells) {
		h->shadow_bytes = (size_t)h->ncells * sizeof(cell);
		h->lines_bytes = (size_t)h->ncells * sizeof *h->lines;
		h->shadow = reserve(h->shadow_bytes);
		h->lines = reserve(h->lines_bytes);
		if (!h->shadow || !h->lines) {
			size_t mib = (h->shadow_bytes + h->lines_bytes) >> 20;
			det_hb_free(h);
			return wasm_err_set(
			    err, WASM_NOMEM, WASM_NO_OFFSET,
			    "cannot reserve %zu MiB of address space for the "
			    "happens-before shadow of a %llu-byte memory "
			    "(give the program's memory a smaller maximum)",
			    mib, (unsigned long long)mem_bytes);
		}
	}
	*out = h;
	return WASM_OK;
nomem:
	det_hb_free(h);
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
			    "out of memory for the happens-before state");
}

void det_hb_free(det_hb *h)
{
	if (!h)
		return;
	if (h->shadow)
		munmap(h->shadow, h->shadow_bytes);
	if (h->lines)
		munmap(h->lines, h->lines_bytes);
	for (uint32_t i = 0; h->thr && i < HB_MAX_THREADS; i++)
		if (h->thr[i]) {
			wasm_free(h->thr[i]->vc.c);
			wasm_free(h->thr[i]);
		}
	wasm_free(h->thr);
	wasm_free(h->fast);
	wasm_free(h->fast_site);
	for (uint32_t i = 0; h->trace && i < HB_MAX_THREADS; i++)
		if (h->trace[i]) {
			for (tbuf *b = h->trace[i]->buf, *o; b; b = o) {
				o = b->older;
				wasm_free(b);
			}
			wasm_free(h->trace[i]);
		}
	wasm_free(h->trace);
	wasm_free(h->touched);
	wasm_free(h->slot_of);
	wasm_free(h->site_of);
	for (uint32_t i = 0; i < NSTRIPES; i++) {
		stripe *s = &h->stripes[i];
		for (uint32_t j = 0; j < s->cap; j++)
			wasm_free(s->v[j].vc.c);
		wasm_free(s->v);
		pthread_mutex_destroy(&s->lock);
	}
	for (uint32_t i = 0; i < RSET_CHUNKS && h->rchunk[i]; i++)
		wasm_free(h->rchunk[i]);
	pthread_mutex_destroy(&h->rlock);
	wasm_free(h);
}

/* ---- threads ------------------------------------------------------------- */

/* Thread tid's own epoch in its inline test record: what e_make puts
 * there for it, so that the test compares the rest. */
static void fast_word(thr *t, uint32_t tid)
{
	uint32_t c = t->vc.c[tid];

	if (t->fast) {
		__atomic_store_n(&t->fast->own,
				 E_VALID | (uint64_t)tid << E_TID_SHIFT,
				 __ATOMIC_RELAXED);
		__atomic_store_n(
		    &t->fast->word,
		    E_VALID | (uint64_t)(c < E_CLOCK_MAX ? c : E_CLOCK_MAX) |
			(uint64_t)tid << E_TID_SHIFT,
		    __ATOMIC_RELAXED);
	}
}

static void fast_attach(det_hb *h, thr *t, uint32_t tid)
{
	t->fast = tid < HB_FAST_THREADS ? &h->fast[tid].r : NULL;
	fast_word(t, tid);
}

/* The state of thread tid, made at its first use when it has none (the
 * first thread, or one whose spawn token could not be made). */
static inline thr *thread(det_hb *h, uint32_t tid)
{
	thr *t = h->thr[tid];

	if (t)
		return t;
	if (!(t = wasm_calloc(1, sizeof *t)))
		return NULL;
	if (!vc_grow(&t->vc, tid + 1)) {
		wasm_free(t);
		return NULL;
	}
	t->vc.c[tid] = 1;
	fast_attach(h, t, tid);
	h->thr[tid] = t;
	return t;
}

static void tick(thr *t, uint32_t tid)
{
	if (t->vc.c[tid] != UINT32_MAX)
		t->vc.c[tid]++;
	fast_word(t, tid);
}

/* The sync clock of an atomic cell; NULL when absent and !create or out of
 * memory. Called with its stripe locked. */
static sync_var *sync_find(stripe *s, uint32_t key, bool create)
{
	uint32_t j, cap;
	sync_var *v;

	if (s->cap) {
		for (j = key * 2654435761u & (s->cap - 1); s->v[j].key;
		     j = (j + 1) & (s->cap - 1))
			if (s->v[j].key == key)
				return &s->v[j];
		if (!create)
			return NULL;
		if ((s->n + 1) * 2 <= s->cap) {
			s->v[j].key = key;
			s->n++;
			return &s->v[j];
		}
	} else if (!create) {
		return NULL;
	}
	cap = s->cap ? s->cap * 2 : 16;
	if (!(v = wasm_calloc(cap, sizeof *v)))
		return NULL;
	for (uint32_t i = 0; i < s->cap; i++) {
		if (!s->v[i].key)
			continue;
		for (j = s->v[i].key * 2654435761u & (cap - 1); v[j].key;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = s->v[i];
	}
	wasm_free(s->v);
	s->v = v;
	s->cap = cap;
	return sync_find(s, key, true);
}

static void release(det_hb *h, thr *t, uint32_t tid, uint32_t cellno)
{
	stripe *s = &h->stripes[cellno % NSTRIPES];
	sync_var *v;

	pthread_mutex_lock(&s->lock);
	if ((v = sync_find(s, cellno + 1, true)))
		vc_join(&v->vc, &t->vc);
	pthread_mutex_unlock(&s->lock);
	tick(t, tid);
}

static void acquire(det_hb *h, thr *t, uint32_t cellno)
{
	stripe *s = &h->stripes[cellno % NSTRIPES];
	sync_var *v;

	pthread_mutex_lock(&s->lock);
	if ((v = sync_find(s, cellno + 1, false)))
		vc_join(&t->vc, &v->vc);
	pthread_mutex_unlock(&s->lock);
}

static void settle(det_hb *h, thr *t)
{
	if (t->pending) {
		acquire(h, t, t->pending - 1);
		t->pending = 0;
	}
}

/* A notify (release) or a wake (acquire) of thread tid at addr. */
static void wake_edge(det_hb *h, uint32_t tid, uint64_t addr, bool notify)
{
	thr *t;

	if (tid >= HB_MAX_THREADS || addr >= h->mem_bytes ||
	    !(t = thread(h, tid)))
		return;
	settle(h, t);
	if (notify)
		release(h, t, tid, (uint32_t)(addr >> 2));
	else
		acquire(h, t, (uint32_t)(addr >> 2));
}

void det_hb_notify(det_hb *h, uint32_t tid, uint64_t addr)
{
	wake_edge(h, tid, addr, true);
}

void det_hb_woken(det_hb *h, uint32_t tid, uint64_t addr)
{
	wake_edge(h, tid, addr, false);
}

void *det_hb_spawn(det_hb *h, uint32_t parent)
{
	thr *t;
	vclock *copy;

	if (parent >= HB_MAX_THREADS || !(t = thread(h, parent)))
		return NULL;
	settle(h, t);
	if (!(copy = wasm_calloc(1, sizeof *copy)) || !vc_join(copy, &t->vc)) {
		det_hb_drop(copy);
		return NULL;
	}
	tick(t, parent);
	return copy;
}

void det_hb_start(det_hb *h, uint32_t child, void *token)
{
	vclock *from = token;
	thr *t;

	if (child >= HB_MAX_THREADS || h->thr[child] || !from) {
		det_hb_drop(from);
		return;
	}
	if (!(t = wasm_calloc(1, sizeof *t))) {
		det_hb_drop(from);
		return;
	}
	t->vc = *from;
	wasm_free(from);
	if (!vc_grow(&t->vc, child + 1)) {
		wasm_free(t->vc.c);
		wasm_free(t);
		return;
	}
	if (!t->vc.c[child])
		t->vc.c[child] = 1;
	fast_attach(h, t, child);
	h->thr[child] = t;
}

void det_hb_end(det_hb *h, uint32_t tid)
{
	thr *t = tid < HB_MAX_THREADS ? h->thr[tid] : NULL;

	if (!t)
		return;
	if (t->fast)
		__atomic_store_n(&t->fast->word, 0, __ATOMIC_RELAXED);
	h->thr[tid] = NULL;
	wasm_free(t->vc.c);
	wasm_free(t);
}

void det_hb_drop(void *token)
{
	vclock *v = token;

	if (v) {
		wasm_free(v->c);
		wasm_free(v);
	}
}

/* ---- read sets -------------------------------------------------------------
 */

static rset *rset_at(det_hb *h, uint32_t i)
{
	return &h->rchunk[i / RSET_CHUNK][i % RSET_CHUNK];
}

/* A new empty read set's index + 1, or 0 when none can be had. */
static uint32_t rset_new(det_hb *h)
{
	uint32_t i = 0;
	rset *r;

	pthread_mutex_lock(&h->rlock);
	if (h->rfree) {
		i = h->rfree;
		h->rfree = rset_at(h, i - 1)->next;
	} else if (h->nrsets / RSET_CHUNK < RSET_CHUNKS) {
		uint32_t c = h->nrsets / RSET_CHUNK;
		if (!h->rchunk[c])
			h->rchunk[c] = wasm_malloc(RSET_CHUNK * sizeof(rset));
		if (h->rchunk[c])
			i = ++h->nrsets;
	}
	pthread_mutex_unlock(&h->rlock);
	if (i) {
		r = rset_at(h, i - 1);
		memset(r, 0, sizeof *r);
	}
	return i;
}

static void rset_free(det_hb *h, uint32_t i)
{
	pthread_mutex_lock(&h->rlock);
	rset_at(h, i - 1)->next = h->rfree;
	h->rfree = i;
	pthread_mutex_unlock(&h->rlock);
}

/* Whether trace r can take one more entry: a new buffer twice the size
 * while it has not wrapped and is under TRACE_MAX. False when out of
 * memory (the entry is then not kept). */
static bool trace_room(trace *r)
{
	tbuf *b = r->buf, *n;
	uint32_t cap;

	if (b && (r->head < b->cap || b->cap >= TRACE_MAX))
		return true;
	cap = b ? b->cap * 2 : TRACE_MIN;
	if (!(n = wasm_malloc(sizeof *n + (size_t)cap * sizeof(tentry))))
		return false;
	n->older = b;
	n->cap = cap;
	if (b)
		memcpy(n->e, b->e, (size_t)b->cap * sizeof(tentry));
	__atomic_store_n(&r->buf, n, __ATOMIC_RELEASE);
	return true;
}

/* Thread tid (state t) is about to access site at clock (its record's). */
static void trace_note(det_hb *h, thr *t, uint32_t tid, uint32_t site,
		       uint32_t clock)
{
	trace *r = h->trace[tid];
	uint32_t k = site % TRACE_CACHE;
	tentry *e;

	if (!t->ctx)
		return;
	if (!r) {
		if (!(r = wasm_calloc(1, sizeof *r)))
			return;
		__atomic_store_n(&h->trace[tid], r, __ATOMIC_RELEASE);
	}
	if (r->seen[k].site == site && r->seen[k].ctx == t->ctx &&
	    r->seen[k].clock == clock && r->buf &&
	    r->head - r->seen[k].at < r->buf->cap / 2)
		return;
	if (!trace_room(r))
		return;
	e = &r->buf->e[r->head & (r->buf->cap - 1)];
	__atomic_store_n(&e->clock_site, (uint64_t)clock << 32 | site,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&e->ctx, t->ctx, __ATOMIC_RELAXED);
	r->seen[k].site = site;
	r->seen[k].ctx = t->ctx;
	r->seen[k].clock = clock;
	r->seen[k].at = r->head;
	__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
}

void det_hb_context(det_hb *h, uint32_t tid, uint32_t ctx)
{
	thr *t;

	if (tid < HB_MAX_THREADS && (t = thread(h, tid)))
		t->ctx = ctx;
}

uint32_t det_hb_prev_context(const det_hb *h, uint32_t tid, uint32_t clock,
			     uint32_t site)
{
	const trace *r = tid < HB_MAX_THREADS
			     ? __atomic_load_n(&h->trace[tid], __ATOMIC_ACQUIRE)
			     : NULL;
	const tbuf *b;
	uint64_t head, low, at = 0;
	uint32_t ctx = 0;

	if (!r || !(b = __atomic_load_n(&r->buf, __ATOMIC_ACQUIRE)))
		return 0;
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	/* A buffer read before the owner grew it holds its first cap. */
	if (head > b->cap && b->cap < TRACE_MAX)
		head = b->cap;
	low = head > b->cap ? head - b->cap : 0;
	for (uint64_t i = head; i-- > low;) {
		const tentry *e = &b->e[i & (b->cap - 1)];
		uint64_t cs = __atomic_load_n(&e->clock_site, __ATOMIC_RELAXED);
		uint32_t c = (uint32_t)(cs >> 32), x;
		if (c < clock)
			break;
		if (c != clock || (uint32_t)cs != site)
			continue;
		x = (uint32_t)__atomic_load_n(&e->ctx, __ATOMIC_RELAXED);
		if (ctx && x != ctx)
			return 0; /* two callers in one epoch: which one? */
		ctx = x;
		at = i;
	}
	/* The writer may have wrapped over the entry while it was read. */
	if (ctx && b->cap >= TRACE_MAX &&
	    __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - at >= b->cap)
		return 0;
	return ctx;
}

/* ---- site slots --------------------------------------------------------- */

static uint32_t slot_new(det_hb *h, uint32_t site)
{
	uint32_t s;

	pthread_mutex_lock(&h->rlock);
	if (!(s = h->slot_of[site])) {
		s = h->nslots + 1 < E_MULTI ? ++h->nslots : E_SLOTS;
		if (s < E_MULTI)
			h->site_of[s] = site;
		__atomic_store_n(&h->slot_of[site], s, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&h->rlock);
	return s < E_MULTI ? s : 0;
}

/* The slot site is recorded with (0: none). */
static inline uint32_t site_slot(det_hb *h, uint32_t site)
{
	uint32_t s;

	if (h->direct)
		return site + 1;
	s = __atomic_load_n(&h->slot_of[site], __ATOMIC_ACQUIRE);
	if (!s)
		return slot_new(h, site);
	return s < E_MULTI ? s : 0;
}

/* The site a record names, or UINT32_MAX when it names none (or
 * several: read_site). */
static inline uint32_t record_site(const det_hb *h, uint64_t e)
{
	uint32_t s = e_slot(e);

	if (!s || s == E_MULTI)
		return UINT32_MAX;
	return h->direct ? s - 1 : h->site_of[s];
}

/* A read set's site for an entry of several lines (E_MULTI). */
#define RS_MULTI UINT32_MAX

/* The site of read record e of cell cellno (a read set's entry: its
 * site there, RS_MULTI for several lines) for the first byte of `mask`
 * it covers, as found reports it. Called with the cell locked. */
static uint32_t read_site(const det_hb *h, uint64_t e, uint32_t site,
			  uint32_t cellno, uint32_t mask)
{
	uint32_t m = e_mask(e) & mask, off = 0;

	if (e_slot(e) != E_MULTI)
		return site;
	while (off < 3 && !(m & 1u << off))
		off++;
	return h->lines[cellno].site[off];
}

/* ---- the check --------------------------------------------------------------
 */

static inline bool before(const thr *t, uint64_t e)
{
	uint32_t tid = e_tid(e);
	return e_clock(e) <= (tid < t->vc.len ? t->vc.c[tid] : 0);
}

/* Whether record e (at site) races with the current access of thread tid,
 * covering mask, atomic or not; a write when `write`. */
static inline bool conflicts(const thr *t, uint32_t tid, uint64_t e,
			     uint32_t mask, bool atomic)
{
	return (e & E_VALID) && e_tid(e) != tid && (e_mask(e) & mask) &&
	       !(atomic && (e & E_ATOMIC)) && !before(t, e);
}

/* The kind of an access at site made as a read or a write: the site's,
 * but for the source of a memory.copy, which reads under the copy's site
 * (a range write). */
static uint8_t role_kind(const det_hb *h, uint32_t site, bool write)
{
	uint8_t k = h->site[site].kind;

	return k == RW_RANGE_WRITE && !write ? RW_RANGE_READ : k;
}

/* prev (a write when pwrite) at psite races with the current access,
 * which covers the bytes `mask` of the cell. Each is reported at the first
 * byte both cover, but a current access of fixed width at its start. */
static void found(det_hb *h, uint64_t prev, uint32_t psite, bool pwrite,
		  uint32_t cellno, uint32_t mask, uint32_t tid, uint32_t addr,
		  uint32_t site, bool write)
{
	uint32_t m = e_mask(prev) & mask, off = 0;
	det_hb_race r;

	if (psite >= h->nsites)
		return;
	while (off < 3 && !(m & 1u << off))
		off++;
	if (!h->site[site].width)
		addr = cellno * 4 + off;
	r = (det_hb_race){
	    {psite, site},
	    {e_tid(prev), tid},
	    {cellno * 4 + off, addr},
	    {role_kind(h, psite, pwrite), role_kind(h, site, write)},
	    e_clock(prev)};
	h->report(h->ctx, &r);
}

/* A record's bits that name its access: all but the bytes it covered
 * (same_epoch, and the inline test's care mask). */
#define E_ID                                                                   \
	(E_VALID | E_ATOMIC | R_SET | W_LOCK | E_TID_BITS | E_CLOCK_MAX |      \
	 E_SLOT_BITS)

/* Whether record x is this very access again: the same thread, clock,
 * atomicity and site, covering its bytes (FastTrack's same-epoch case;
 * the site too, so that each line of the epoch is checked once). It was
 * checked when it was recorded, and a racing access of another thread
 * meets it in the cell; nothing to do, not even to lock the cell. */
static inline bool same_epoch(uint64_t x, uint64_t e)
{
	uint32_t m = e_mask(e);

	return (x & E_ID) == (e & E_ID) && (e_mask(x) & m) == m;
}

/* E_ID but the site: another line of the thread's epoch. */
#define E_EPOCH (E_ID & ~E_SLOT_BITS)
/* Whose a record is, and whether a writer holds the cell. */
#define E_OWNER (E_VALID | W_LOCK | E_TID_BITS)

/* Whether access e (a plain read or write) may be skipped in a cell
 * whose record of its kind is x and whose other record is o: x is this
 * access again (same_epoch), or, for a read, another line of the
 * thread's epoch read the bytes while no other thread's write is in the
 * cell (o empty or the thread's own, unlocked). A read races only with
 * another thread's write, so there is nothing to report; what is not
 * recorded is that this line read the bytes too: a later write races
 * with both lines and is reported against the one in the record (TSan
 * keeps no line in its shadow either). Each line is still checked
 * whenever the cell has another thread's write. A write of another line
 * is not skipped: the record keeps the last one, the one a racing read
 * saw (the first is often a store the next overwrites). */
static inline bool skippable(uint64_t x, uint64_t o, uint64_t e, bool write)
{
	uint32_t m = e_mask(e);

	if (same_epoch(x, e))
		return true;
	o &= E_OWNER;
	return !write && (x & E_EPOCH) == (e & E_EPOCH) &&
	       (e_mask(x) & m) == m &&
	       (!o || o == (E_VALID | (e & E_TID_BITS)));
}

/* The record that replaces x for access e: e, with x's bytes when x is
 * the same line of the same epoch (a loop over a cell's bytes, one at a
 * time, then finds them all there). */
static inline uint64_t merged(uint64_t x, uint64_t e)
{
	return (x & E_ID) == (e & E_ID) ? e | (x & E_MASK_BITS) : e;
}

static void lock_cell(cell *c)
{
	uint64_t w = __atomic_load_n(&c->w, __ATOMIC_RELAXED);

	for (;;) {
		if (!(w & W_LOCK) && __atomic_compare_exchange_n(
					 &c->w, &w, w | W_LOCK, true,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		if (w & W_LOCK) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
			w = __atomic_load_n(&c->w, __ATOMIC_RELAXED);
		}
	}
}

static void unlock_cell(cell *c, uint64_t w)
{
	__atomic_store_n(&c->w, w & ~W_LOCK, __ATOMIC_RELEASE);
}

/* The read record that replaces r, empty, the thread's own or another
 * thread's read that this one follows, for the read e at site of cell
 * cellno: e, but for a plain read of r's epoch and thread, which keeps
 * the bytes r has that e does not, with their lines: r's own line's
 * (merged), or, when r is another line's (or several), the line of each
 * byte in lines (the record's slot E_MULTI). Two fields of a cell read
 * by two lines in turn then leave a record of both, which the inline
 * test finds, where each used to replace the other's. Called with the
 * cell locked. */
static uint64_t own_read(det_hb *h, uint32_t cellno, uint64_t r, uint64_t e,
			 uint32_t site)
{
	uint32_t rm = e_mask(r), em = e_mask(e);
	struct lines *l = &h->lines[cellno];

	if ((r & E_EPOCH) != (e & E_EPOCH) || (e & E_ATOMIC))
		return e;
	if (e_slot(r) == e_slot(e))
		return merged(r, e);
	if (!(rm & ~em))
		return e;
	if (e_slot(r) != E_MULTI)
		for (uint32_t b = 0; b < 4; b++)
			if (rm & 1u << b)
				l->site[b] = record_site(h, r);
	for (uint32_t b = 0; b < 4; b++)
		if (em & 1u << b)
			l->site[b] = site;
	return (r & ~(E_SLOT_BITS | E_MASK_BITS)) |
	       (uint64_t)E_MULTI << E_SLOT_SHIFT |
	       (uint64_t)(rm | em) << E_MASK_SHIFT;
}

/* A read of cell c by thread t (epoch e): check it against the last
 * write, then keep it among the cell's readers. */
static void read_cell(det_hb *h, cell *c, thr *t, uint32_t tid, uint64_t e,
		      uint32_t site, uint32_t cellno, uint32_t addr)
{
	uint32_t mask = e_mask(e);
	bool atomic = e & E_ATOMIC;
	uint64_t w = c->w & ~W_LOCK, r = c->r;

	if (conflicts(t, tid, w, mask, atomic))
		found(h, w, record_site(h, w), true, cellno, mask, tid, addr,
		      site, false);
	if (r & R_SET) {
		/* Readers this one follows are dropped; it takes a free slot,
		 * or the oldest's when all are concurrent with it. */
		rset *rs = rset_at(h, r_set(r) - 1);
		for (uint32_t i = 0; i < HB_READERS; i++)
			if ((rs->e[i] & E_VALID) &&
			    (e_tid(rs->e[i]) == tid || before(t, rs->e[i])))
				rs->e[i] = 0;
		for (uint32_t i = 0; i < HB_READERS; i++)
			if (!(rs->e[i] & E_VALID)) {
				rs->e[i] = e;
				rs->site[i] = site;
				return;
			}
		rs->e[rs->next] = e;
		rs->site[rs->next] = site;
		rs->next = (rs->next + 1) % HB_READERS;
		return;
	}
	if (!(r & E_VALID) || e_tid(r) == tid || before(t, r)) {
		c->r = own_read(h, cellno, r, e, site);
		return;
	}
	/* Another thread's read, concurrent with this one: both are kept. */
	{
		uint32_t i = rset_new(h);
		rset *s;
		if (!i) {
			c->r = e;
			return;
		}
		s = rset_at(h, i - 1);
		s->e[0] = r;
		s->site[0] =
		    e_slot(r) == E_MULTI ? RS_MULTI : record_site(h, r);
		s->e[1] = e;
		s->site[1] = site;
		c->r = R_SET | E_VALID | i;
	}
}

static void write_cell(det_hb *h, cell *c, thr *t, uint32_t tid, uint64_t e,
		       uint32_t site, uint32_t cellno, uint32_t addr)
{
	uint32_t mask = e_mask(e);
	bool atomic = e & E_ATOMIC;
	uint64_t w = c->w & ~W_LOCK, r = c->r;

	if (conflicts(t, tid, w, mask, atomic))
		found(h, w, record_site(h, w), true, cellno, mask, tid, addr,
		      site, true);
	/* Other threads' reads this write follows are done with; a read it
	 * races with is kept, so that the thread's next writes of the cell
	 * (another line of the same epoch) are reported against it too, and
	 * so is the thread's own read: its next reads of the cell find it
	 * (a read, a write, a read of one element: one call, not two), and
	 * another thread's write that races with it is reported against it
	 * as well as against this write. */
	if (r & R_SET) {
		rset *s = rset_at(h, r_set(r) - 1);
		bool left = false;
		for (uint32_t i = 0; i < HB_READERS; i++) {
			if (conflicts(t, tid, s->e[i], mask, atomic)) {
				found(h, s->e[i],
				      read_site(h, s->e[i], s->site[i], cellno,
						mask),
				      false, cellno, mask, tid, addr, site,
				      true);
				left = true;
			} else {
				s->e[i] = 0;
			}
		}
		if (!left) {
			rset_free(h, r_set(r));
			c->r = 0;
		}
	} else if (conflicts(t, tid, r, mask, atomic)) {
		found(h, r, read_site(h, r, record_site(h, r), cellno, mask),
		      false, cellno, mask, tid, addr, site, true);
	} else if (!(r & E_VALID) || e_tid(r) != tid) {
		c->r = 0;
	}
	c->w = merged(w, e) | W_LOCK; /* unlock_cell clears the lock */
}

/* The bytes [b, min(end, *cend)) of b's cell as bits, *cend the cell's
 * end. */
static inline uint32_t cell_bytes(uint64_t b, uint64_t end, uint64_t *cend)
{
	uint32_t lo = (uint32_t)(b & 3), hi;

	*cend = (b | 3) + 1;
	hi = (uint32_t)((end < *cend ? end : *cend) - (b & ~3ull));
	return ((1u << hi) - 1) & ~((1u << lo) - 1);
}

/* A plain read of cell c whose read record is this thread's own (an
 * earlier line of this epoch, most of the time, or of an older one):
 * read_cell would check the write record and put this read in place of
 * the record, nothing else. Done without the cell's lock when the write
 * record is unlocked and does not race: a writer that locks the cell
 * between the two loads and the store reports against the record it
 * found (this thread's earlier read) instead of this one, a window of a
 * few instructions. False: take the lock. */
static inline bool reread(cell *c, const thr *t, uint32_t tid, uint64_t e)
{
	uint64_t r = __atomic_load_n(&c->r, __ATOMIC_RELAXED);
	uint64_t w = __atomic_load_n(&c->w, __ATOMIC_ACQUIRE);

	if ((r & (E_VALID | R_SET)) != E_VALID || e_tid(r) != tid ||
	    (w & W_LOCK) || conflicts(t, tid, w, e_mask(e), false))
		return false;
	/* Another line's bytes this read does not cover: own_read keeps
	 * both, under the lock. */
	if ((r & E_EPOCH) == (e & E_EPOCH) && e_slot(r) != e_slot(e) &&
	    (e_mask(r) & ~e_mask(e)))
		return false;
	__atomic_store_n(&c->r, merged(r, e), __ATOMIC_RELAXED);
	return true;
}

/* Thread t (tid) accesses bytes [addr, end) at site: each cell's check
 * and record. */
static void access_bytes(det_hb *h, thr *t, uint32_t tid, uint32_t addr,
			 uint64_t end, uint32_t site, bool write, bool atomic)
{
	uint32_t clock = t->vc.c[tid], slot = site_slot(h, site);

	trace_note(h, t, tid, site, clock < E_CLOCK_MAX ? clock : E_CLOCK_MAX);
	if (end > h->mem_bytes)
		end = h->mem_bytes;
	for (uint64_t b = addr, cend; b < end; b = cend) {
		uint32_t cellno = (uint32_t)(b >> 2),
			 mask = cell_bytes(b, end, &cend);
		cell *c = &h->shadow[cellno];
		uint64_t e, w;
		e = e_make(tid, clock, mask, atomic, slot);
		if (same_epoch(__atomic_load_n(write ? &c->w : &c->r,
					       __ATOMIC_RELAXED),
			       e))
			continue;
		if (!write && !atomic && reread(c, t, tid, e))
			continue;
		lock_cell(c);
		if (!(c->w & ~W_LOCK) && !c->r) {
			/* The cell's first access: its page is touched. */
			uint64_t page = (uint64_t)cellno >> 10;
			__atomic_fetch_or(&h->touched[page / 64],
					  (uint64_t)1 << (page % 64),
					  __ATOMIC_RELAXED);
		}
		if (write)
			write_cell(h, c, t, tid, e, site, cellno, addr);
		else
			read_cell(h, c, t, tid, e, site, cellno, addr);
		w = c->w;
		unlock_cell(c, w);
	}
}

bool det_hb_repeat(const det_hb *h, uint32_t tid, uint32_t addr, uint32_t site)
{
	const rw_site *s;
	const thr *t;
	uint32_t clock, slot;
	uint64_t end;
	bool write;

	if (site >= h->nsites || addr >= h->mem_bytes ||
	    tid >= HB_MAX_THREADS || !(t = h->thr[tid]))
		return false;
	s = &h->site[site];
	if (s->kind != RW_READ && s->kind != RW_WRITE)
		return false;
	slot = h->direct ? site + 1
			 : __atomic_load_n(&h->slot_of[site], __ATOMIC_ACQUIRE);
	if (!slot || slot >= E_SLOTS)
		return false;
	write = s->kind == RW_WRITE;
	clock = t->vc.c[tid];
	end = (uint64_t)addr + (s->width ? s->width : 1);
	if (end > h->mem_bytes)
		return false;
	/* Each cell the access covers, as access_bytes checks it. */
	for (uint64_t b = addr, cend; b < end; b = cend) {
		const cell *c = &h->shadow[b >> 2];
		uint32_t mask = cell_bytes(b, end, &cend);
		uint64_t e = e_make(tid, clock, mask, false, slot);

		if (!skippable(__atomic_load_n(write ? &c->w : &c->r,
					       __ATOMIC_RELAXED),
			       __atomic_load_n(&c->w, __ATOMIC_RELAXED), e,
			       write))
			return false;
	}
	return true;
}

const eng_shadow_test *det_hb_shadow_test(det_hb *h)
{
	if (h->test.sites)
		return &h->test;
	if (!h->direct || !h->shadow ||
	    !(h->fast_site = wasm_calloc(h->nsites, sizeof *h->fast_site)))
		return NULL;
	for (uint32_t i = 0; i < h->nsites; i++) {
		const rw_site *s = &h->site[i];
		eng_shadow_site *e = &h->fast_site[i];
		uint32_t w = s->width ? s->width : 1, inner = w < 4 ? w : 4;

		/* What det_hb_repeat tests, for the accesses of one aligned
		 * cell or two. */
		if ((s->kind != RW_READ && s->kind != RW_WRITE) ||
		    (w != 1 && w != 2 && w != 4 && w != 8))
			continue;
		e->width = (uint8_t)w;
		e->align = (uint8_t)(inner - 1);
		e->bits = (uint64_t)(i + 1) << E_SLOT_SHIFT;
		e->mask = (uint64_t)((1u << inner) - 1) << E_MASK_SHIFT;
		e->off =
		    s->kind == RW_WRITE ? offsetof(cell, w) : offsetof(cell, r);
		e->other = s->kind == RW_READ ? (int32_t)offsetof(cell, w) -
						    (int32_t)offsetof(cell, r)
					      : 0;
		e->next = w == 8 ? sizeof(cell) : 0;
	}
	h->test = (eng_shadow_test){.threads = &h->fast[0].r,
				    .nthreads = HB_FAST_THREADS,
				    .stride = sizeof *h->fast,
				    .sites = h->fast_site,
				    .nsites = h->nsites,
				    .shadow = h->shadow,
				    .limit = h->mem_bytes,
				    .care = E_ID,
				    .same = E_EPOCH,
				    .ocare = E_OWNER};
	return &h->test;
}

bool det_hb_tested(det_hb *h, uint32_t tid)
{
	eng_shadow_thread *r = tid < HB_FAST_THREADS ? &h->fast[tid].r : NULL;

	if (!r || !__atomic_load_n(&r->tested, __ATOMIC_RELAXED))
		return false;
	__atomic_store_n(&r->tested, 0, __ATOMIC_RELAXED);
	return true;
}

uint64_t det_hb_skipped(const det_hb *h)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < HB_FAST_THREADS; i++)
		n += __atomic_load_n(&h->fast[i].r.skipped, __ATOMIC_RELAXED);
	return n;
}

void det_hb_access(det_hb *h, uint32_t tid, uint32_t addr, uint32_t site)
{
	const rw_site *s;
	uint32_t kind;
	bool atomic;
	thr *t;

	if (site >= h->nsites || addr >= h->mem_bytes ||
	    tid >= HB_MAX_THREADS || !(t = thread(h, tid)))
		return;
	settle(h, t);
	s = &h->site[site];
	kind = s->kind;
	if (kind == RW_RANGE_WRITE && h->ranges) {
		/* Checked when its length comes (det_hb_range). */
		t->range_site = site + 1;
		t->range_dst = addr;
		t->range_has_src = false;
		return;
	}
	atomic = kind == RW_ATOMIC_READ || kind == RW_ATOMIC_WRITE ||
		 kind == RW_ATOMIC_RMW;
	access_bytes(
	    h, t, tid, addr, (uint64_t)addr + (s->width ? s->width : 1), site,
	    kind != RW_READ && kind != RW_ATOMIC_READ && kind != RW_RANGE_READ,
	    atomic);
	if (kind == RW_ATOMIC_WRITE || kind == RW_ATOMIC_RMW)
		release(h, t, tid, addr >> 2);
	if (kind == RW_ATOMIC_READ || kind == RW_ATOMIC_RMW)
		t->pending = (addr >> 2) + 1;
}

void det_hb_range(det_hb *h, uint32_t tid, uint32_t value, uint32_t call)
{
	uint32_t site = call & ~(RW_PROBE_SRC | RW_PROBE_LEN);
	thr *t;

	if (tid >= HB_MAX_THREADS || !(t = thread(h, tid)) ||
	    t->range_site != site + 1)
		return;
	if (call & RW_PROBE_SRC) {
		t->range_src = value;
		t->range_has_src = true;
		return;
	}
	t->range_site = 0;
	/* A copy onto itself changes no byte: it is the write alone (the
	 * guest library's free, demos/guest/malloc.c). */
	if (t->range_has_src && t->range_src < h->mem_bytes &&
	    t->range_src != t->range_dst)
		access_bytes(h, t, tid, t->range_src,
			     (uint64_t)t->range_src + value, site, false,
			     false);
	access_bytes(h, t, tid, t->range_dst, (uint64_t)t->range_dst + value,
		     site, true, false);
}

void det_hb_forget(det_hb *h, uint32_t addr, uint32_t size)
{
	uint64_t end = (uint64_t)addr + size;

	if (end > h->mem_bytes)
		end = h->mem_bytes;
	/* Whole cells only: a cell shared with bytes outside the range
	 * keeps its records, which can only report, never hide. */
	for (uint64_t c = ((uint64_t)addr + 3) >> 2; (c + 1) * 4 <= end; c++) {
		cell *x = &h->shadow[c];
		uint64_t r, page = c >> 10;
		/* A page no access touched has no records (a new thread's
		 * stack, mostly): skipped whole, not read cell by cell. */
		if (!(__atomic_load_n(&h->touched[page / 64],
				      __ATOMIC_RELAXED) >>
			  (page % 64) &
		      1)) {
			c = ((page + 1) << 10) - 1;
			continue;
		}
		/* An untouched cell stays untouched. */
		if (!__atomic_load_n(&x->w, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&x->r, __ATOMIC_RELAXED))
			continue;
		lock_cell(x);
		r = x->r;
		x->r = 0;
		if (r & R_SET)
			rset_free(h, r_set(r));
		unlock_cell(x, 0);
	}
}

uint64_t det_hb_touched_bytes(const det_hb *h)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i <= (h->mem_bytes >> 12) / 64; i++)
		n += (uint64_t)__builtin_popcountll(
		    __atomic_load_n(&h->touched[i], __ATOMIC_RELAXED));
	return n << 12;
}

/* The clocks and read sets in memory now: the threads alive, the sync
 * clocks, the read sets' chunks. Called when the run is over. */
static uint64_t clock_bytes(const det_hb *h)
{
	uint64_t n =
	    (uint64_t)h->nrsets / RSET_CHUNK * RSET_CHUNK * sizeof(rset);

	if (h->nrsets % RSET_CHUNK)
		n += RSET_CHUNK * sizeof(rset);
	for (uint32_t i = 0; i < HB_MAX_THREADS; i++)
		if (h->thr[i])
			n += (uint64_t)h->thr[i]->vc.cap * 4;
	for (uint32_t i = 0; i < NSTRIPES; i++)
		for (uint32_t j = 0; j < h->stripes[i].cap; j++)
			n += (uint64_t)h->stripes[i].v[j].vc.cap * 4 +
			     sizeof(sync_var);
	return n;
}

uint64_t det_hb_shadow_bytes(const det_hb *h)
{
	uint64_t bytes = clock_bytes(h);
	long page = sysconf(_SC_PAGESIZE);
	/* The shadow and lines of one 4 KiB page of memory (1024 cells,
	 * as many bytes in each): asked of the kernel only for pages the
	 * program touched, not for the whole reservation. */
	size_t span = 1024 * sizeof(cell), npages;
	char *const base[2] = {(char *)h->shadow, (char *)h->lines};
	unsigned char vec[64];

	if (!h->shadow || page <= 0 || span % (size_t)page ||
	    span / (size_t)page > sizeof vec ||
	    sizeof(cell) != sizeof *h->lines)
		return bytes;
	npages = span / (size_t)page;
	for (uint64_t i = 0; i <= (h->mem_bytes >> 12) / 64; i++) {
		uint64_t w = __atomic_load_n(&h->touched[i], __ATOMIC_RELAXED);
		while (w) {
			uint64_t pg = i * 64 + (uint64_t)__builtin_ctzll(w);
			w &= w - 1;
			for (int b = 0; b < 2; b++) {
				if (mincore(base[b] + pg * span, span, vec))
					continue;
				for (size_t k = 0; k < npages; k++)
					bytes +=
					    (vec[k] & 1) ? (uint64_t)page : 0;
			}
		}
	}
	return bytes;
}

uint32_t det_hb_sites(const rw_sites *sites, uint32_t *ids)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sites->nsites; i++)
		if (!sites->sites[i].covered)
			ids[n++] = i;
	return n;
}
