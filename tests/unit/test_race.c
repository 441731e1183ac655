/*
 * test_race.c - the probes driven directly from threads with a synthetic
 * site table (which pairs are violations, deduplication, the bug cap,
 * Algorithm 2's three cases), and det_run on an instrumented wasi-threads
 * program.
 *
 * Collisions depend on scheduling, so the race tests run two threads
 * until the pairs they expect have been found (with a generous cap on
 * calls in case they never are), and every test that expects no
 * violation for some pair also expects one for a control pair in the
 * same threads: the threads did overlap, and the pair under test still
 * never counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "core/wasi.h"
#include "detector/race.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	S_W0,	 /* write 4 */
	S_W1,	 /* write 4 */
	S_R0,	 /* read 4 */
	S_R1,	 /* read 4 */
	S_AW,	 /* atomic write 4 */
	S_ARMW,	 /* atomic rmw 4 */
	S_B0,	 /* write 1 */
	S_B1,	 /* write 1 */
	S_W8,	 /* write 8 */
	S_W16,	 /* write 16 (v128.store) */
	S_RANGE, /* memory.fill: range write, width 0 */
	S_CTL0,	 /* write 4 (control pair) */
	S_CTL1,	 /* write 4 (control pair) */
	S_MANY,	 /* S_MANY + i: NMANY more writes of 4 */
};
#define NMANY  1101
#define NSITES (S_MANY + NMANY)
#define DELAY  2000u /* ~40 us a call here: windows long enough to meet */

static rw_site site_tab[NSITES];
static rw_sites sites = {.nsites = NSITES, .sites = site_tab};

static int setup(void **state)
{
	static const struct {
		uint8_t width, kind;
	} k[S_MANY] = {
	    [S_W0] = {4, RW_WRITE},	     [S_W1] = {4, RW_WRITE},
	    [S_R0] = {4, RW_READ},	     [S_R1] = {4, RW_READ},
	    [S_AW] = {4, RW_ATOMIC_WRITE},   [S_ARMW] = {4, RW_ATOMIC_RMW},
	    [S_B0] = {1, RW_WRITE},	     [S_B1] = {1, RW_WRITE},
	    [S_W8] = {8, RW_WRITE},	     [S_W16] = {16, RW_WRITE},
	    [S_RANGE] = {0, RW_RANGE_WRITE}, [S_CTL0] = {4, RW_WRITE},
	    [S_CTL1] = {4, RW_WRITE},
	};
	for (uint32_t i = 0; i < NSITES; i++) {
		site_tab[i].width = i < S_MANY ? k[i].width : 4;
		site_tab[i].kind = i < S_MANY ? k[i].kind : RW_WRITE;
	}
	return 0;
}

/* ---- two threads ----------------------------------------------------- */

typedef struct access {
	uint32_t addr, site;
} access;

typedef struct actor {
	det_probe *p;
	uint32_t tid;
	const access *acc;
	uint32_t nacc;
	atomic_bool *stop;
	atomic_ulong calls;
	pthread_t th;
} actor;

static void *actor_main(void *arg)
{
	actor *a = arg;

	while (!atomic_load(a->stop))
		for (uint32_t i = 0; i < a->nacc; i++) {
			det_probe_access(a->p, NULL, a->tid, a->acc[i].addr,
					 a->acc[i].site);
			atomic_fetch_add(&a->calls, 1);
		}
	return NULL;
}

/* Run thread a (tid ta) and b (tid tb) until want_bugs bugs (and, with
 * want_drop, a dropped pair) have been recorded and each made at least
 * min_calls calls, or until a cap on calls that only a broken probe
 * reaches. */
static void duel(det_probe *p, uint32_t ta, const access *a, uint32_t na,
		 uint32_t tb, const access *b, uint32_t nb, uint32_t want_bugs,
		 bool want_drop, unsigned long min_calls)
{
	atomic_bool stop = false;
	actor x = {p, ta, a, na, &stop, 0, 0}, y = {p, tb, b, nb, &stop, 0, 0};
	const struct timespec nap = {0, 100000};

	assert_int_equal(pthread_create(&x.th, NULL, actor_main, &x), 0);
	assert_int_equal(pthread_create(&y.th, NULL, actor_main, &y), 0);
	for (;;) {
		uint32_t n, dropped;
		det_probe_violations(p, &n, &dropped);
		unsigned long cx = atomic_load(&x.calls);
		unsigned long cy = atomic_load(&y.calls);
		if (n >= want_bugs && (!want_drop || dropped) &&
		    cx >= min_calls && cy >= min_calls)
			break;
		if (cx + cy > 20000000)
			break;
		nanosleep(&nap, NULL);
	}
	atomic_store(&stop, true);
	pthread_join(x.th, NULL);
	pthread_join(y.th, NULL);
}

static det_probe *race_probe(void)
{
	det_probe *p;
	wasm_err e;

	assert_int_equal(
	    det_probe_new(DET_RACE, &sites, 1 << 16, DELAY, &p, &e), WASM_OK);
	return p;
}

static const det_violation *find(const det_violation *v, uint32_t n,
				 uint32_t s0, uint32_t s1)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i].site[0] == s0 && v[i].site[1] == s1)
			return &v[i];
	return NULL;
}

static void writes_collide(void **state)
{
	det_probe *p = race_probe();
	static const access a[] = {{64, S_W1}, {200, S_ARMW}};
	static const access b[] = {{64, S_W0}, {200, S_W0}};
	const det_violation *v, *w;
	uint32_t n, dropped;

	duel(p, 1, a, 2, 2, b, 2, 2, false, 100);
	v = det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, 2);
	assert_int_equal(dropped, 0);
	/* Ordered by site: the thread-2 access comes first. */
	w = find(v, n, S_W0, S_W1);
	assert_non_null(w);
	assert_int_equal(w->tid[0], 2);
	assert_int_equal(w->tid[1], 1);
	assert_int_equal(w->addr[0], 64);
	assert_int_equal(w->addr[1], 64);
	assert_int_equal(w->kind[0], RW_WRITE);
	assert_int_equal(w->kind[1], RW_WRITE);
	assert_true(w->count >= 1);
	/* An atomic against a plain write is a race. */
	w = find(v, n, S_W0, S_ARMW);
	assert_non_null(w);
	assert_int_equal(w->tid[0], 2);
	assert_int_equal(w->addr[1], 200);
	assert_int_equal(w->kind[1], RW_ATOMIC_RMW);
	assert_true(v[0].count + v[1].count <= det_probe_calls(p));
	det_probe_free(p);
}

static void atomics_and_reads_never_collide(void **state)
{
	det_probe *p = race_probe();
	/* atomic/atomic, read/read, plain read/atomic write, and the
	 * control pair. */
	static const access a[] = {
	    {0, S_AW}, {16, S_R0}, {32, S_AW}, {128, S_CTL0}};
	static const access b[] = {
	    {0, S_ARMW}, {16, S_R1}, {32, S_R1}, {128, S_CTL1}};
	const det_violation *v;
	uint32_t n, dropped;

	duel(p, 1, a, 4, 2, b, 4, 1, false, 400);
	v = det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].site[0], S_CTL0);
	assert_int_equal(v[0].site[1], S_CTL1);
	det_probe_free(p);
}

static void a_thread_never_races_itself(void **state)
{
	det_probe *p = race_probe();
	static const access a[] = {{64, S_W0}};
	static const access b[] = {{64, S_W1}};
	uint32_t n, dropped;

	/* Two OS threads calling with one tid are one guest thread. */
	duel(p, 5, a, 1, 5, b, 1, 0, false, 2000);
	det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, 0);
	det_probe_free(p);
	/* The control: the same calls under two tids do collide. */
	p = race_probe();
	duel(p, 5, a, 1, 6, b, 1, 1, false, 0);
	det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, 1);
	det_probe_free(p);
}

static void overlap_is_by_bytes(void **state)
{
	det_probe *p = race_probe();
	/* One cell, different bytes: 0 vs 1, 303 (fill) vs 302. Overlap
	 * across widths: 8 bytes at 256 vs 1 byte at 260, a fill at 300
	 * vs a 4-byte read of 300..303. */
	static const access a[] = {
	    {0, S_B0}, {256, S_W8}, {300, S_RANGE}, {303, S_RANGE}};
	static const access b[] = {
	    {1, S_B1}, {260, S_B1}, {300, S_R0}, {302, S_B1}};
	const det_violation *v, *w;
	uint32_t n, dropped;

	duel(p, 1, a, 4, 2, b, 4, 2, false, 400);
	v = det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, 2);
	w = find(v, n, S_B1, S_W8);
	assert_non_null(w);
	assert_int_equal(w->addr[0], 260);
	assert_int_equal(w->addr[1], 256);
	w = find(v, n, S_R0, S_RANGE);
	assert_non_null(w);
	assert_int_equal(w->kind[1], RW_RANGE_WRITE);
	assert_int_equal(w->addr[0], 300);
	assert_true(w->addr[1] == 300 || w->addr[1] == 303);
	det_probe_free(p);
}

/* A 16-byte access (v128.store) arms and checks every cell it covers,
 * five when unaligned: its first, middle and last bytes collide, the
 * bytes just outside it do not. */
static void sixteen_bytes_collide_on_every_cell(void **state)
{
	det_probe *p = race_probe();
	static const access a[] = {{402, S_W16}}; /* 402..417 */
	static const access b[] = {
	    {401, S_B0}, {418, S_B0}, {408, S_W0}, {417, S_B1}};
	const det_violation *v, *w;
	uint32_t n, dropped;

	duel(p, 1, a, 1, 2, b, 4, 2, false, 400);
	v = det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, 2);
	w = find(v, n, S_W0, S_W16);
	assert_non_null(w);
	assert_int_equal(w->addr[0], 408);
	assert_int_equal(w->addr[1], 402);
	w = find(v, n, S_B1, S_W16);
	assert_non_null(w);
	assert_int_equal(w->addr[0], 417);
	det_probe_free(p);
}

/* Thread 2 cycles through NMANY - 1 sites against thread 1's one site:
 * more distinct pairs than DET_MAX_BUGS. */
static void bugs_beyond_the_cap_are_counted_once(void **state)
{
	det_probe *p = race_probe();
	static const access a[] = {{64, S_MANY + NMANY - 1}};
	access *b = malloc((NMANY - 1) * sizeof *b);
	const det_violation *v;
	uint32_t n, dropped;
	uint8_t *seen = calloc(NSITES, 1);

	for (uint32_t i = 0; i < NMANY - 1; i++)
		b[i] = (access){64, S_MANY + i};
	duel(p, 1, a, 1, 2, b, NMANY - 1, DET_MAX_BUGS, true, 0);
	v = det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, DET_MAX_BUGS);
	assert_in_range(dropped, 1, NMANY - 1 - DET_MAX_BUGS);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(v[i].site[1], S_MANY + NMANY - 1);
		assert_in_range(v[i].site[0], S_MANY, S_MANY + NMANY - 2);
		assert_int_equal(seen[v[i].site[0]], 0);
		seen[v[i].site[0]] = 1;
		assert_int_equal(v[i].tid[0], 2);
		assert_int_equal(v[i].tid[1], 1);
	}
	free(seen);
	free(b);
	det_probe_free(p);
}

static void out_of_range_is_ignored(void **state)
{
	det_probe *p;
	uint32_t n, dropped;
	wasm_err e;

	assert_int_equal(det_probe_new(DET_RACE, &sites, 64, 0, &p, &e),
			 WASM_OK);
	det_probe_access(p, NULL, 1, 64, S_W0);
	det_probe_access(p, NULL, 1, UINT32_MAX, S_W8);
	det_probe_access(p, NULL, 1, 60, NSITES);
	det_probe_access(p, NULL, 1, 60, S_W8); /* clamped to the table */
	assert_int_equal(det_probe_calls(p), 4);
	det_probe_violations(p, &n, &dropped);
	assert_int_equal(n, 0);
	det_probe_free(p);
	/* No memory at all: nothing to reserve, every access ignored. */
	assert_int_equal(det_probe_new(DET_RACE, &sites, 0, 0, &p, &e),
			 WASM_OK);
	det_probe_access(p, NULL, 1, 0, S_W0);
	assert_int_equal(det_probe_calls(p), 1);
	det_probe_free(p);
}

/* ---- Algorithm 2 ------------------------------------------------------ */

static void shared_follows_the_three_cases(void **state)
{
	det_probe *p;
	const uint8_t *sh;
	wasm_err e;

	assert_int_equal(det_probe_new(DET_SHARED, &sites, 1 << 16, 0, &p, &e),
			 WASM_OK);
	sh = det_probe_shared(p);
	/* Exclusive: thread 1 alone on cells 0 and 25. */
	det_probe_access(p, NULL, 1, 0, S_W0);
	det_probe_access(p, NULL, 1, 0, S_R0);
	det_probe_access(p, NULL, 1, 100, S_R1);
	for (uint32_t i = 0; i < 40; i++)
		det_probe_access(p, NULL, 1, 400, S_MANY + i);
	for (uint32_t i = 0; i < NSITES; i++)
		assert_int_equal(sh[i], 0);
	/* Transition: thread 2 on byte 2 of cell 0 flushes its history. */
	det_probe_access(p, NULL, 2, 2, S_B1);
	assert_int_equal(sh[S_W0], 1);
	assert_int_equal(sh[S_R0], 1);
	assert_int_equal(sh[S_B1], 1);
	assert_int_equal(sh[S_R1], 0);
	/* Shared: any later access to the cell, thread 1's too. */
	det_probe_access(p, NULL, 1, 1, S_B0);
	assert_int_equal(sh[S_B0], 1);
	/* A history longer than the inline one is flushed whole. */
	assert_int_equal(sh[S_MANY], 0);
	det_probe_access(p, NULL, 3, 401, S_B0);
	for (uint32_t i = 0; i < 40; i++)
		assert_int_equal(sh[S_MANY + i], 1);
	assert_int_equal(sh[S_MANY + 40], 0);
	/* An 8-byte access covers two cells: sharing the second is enough. */
	det_probe_access(p, NULL, 1, 1000, S_W8);
	det_probe_access(p, NULL, 2, 1004, S_AW);
	assert_int_equal(sh[S_W8], 1);
	assert_int_equal(sh[S_AW], 1);
	assert_int_equal(sh[S_R1], 0);
	assert_int_equal(det_probe_calls(p), 3 + 40 + 1 + 1 + 1 + 2);
	det_probe_free(p);
}

typedef struct sharer {
	det_probe *p;
	uint32_t tid, common_site, private_site, private_addr;
} sharer;

static void *sharer_main(void *arg)
{
	sharer *s = arg;

	for (int i = 0; i < 2000; i++) {
		det_probe_access(s->p, NULL, s->tid, 400 + 4 * (i % 8),
				 s->common_site);
		det_probe_access(s->p, NULL, s->tid, s->private_addr + 4 * (i % 8),
				 s->private_site);
	}
	return NULL;
}

static void shared_from_threads(void **state)
{
	det_probe *p;
	sharer a, b;
	pthread_t ta, tb;
	wasm_err e;

	assert_int_equal(det_probe_new(DET_SHARED, &sites, 1 << 16, 0, &p, &e),
			 WASM_OK);
	a = (sharer){p, 1, S_W0, S_R0, 1000};
	b = (sharer){p, 2, S_W1, S_R1, 2000};
	pthread_create(&ta, NULL, sharer_main, &a);
	pthread_create(&tb, NULL, sharer_main, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	assert_int_equal(det_probe_shared(p)[S_W0], 1);
	assert_int_equal(det_probe_shared(p)[S_W1], 1);
	assert_int_equal(det_probe_shared(p)[S_R0], 0);
	assert_int_equal(det_probe_shared(p)[S_R1], 0);
	assert_int_equal(det_probe_calls(p), 8000);
	det_probe_free(p);
}

/* ---- det_run ------------------------------------------------------------ */

/* wat2wasm --enable-threads of:
 * (module
 *   (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
 *   (import "env" "memory" (memory 1 1 shared))
 *   (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
 *     (i32.store (i32.const 64) (local.get $arg))              ;; site 0
 *     (i32.store (i32.add (i32.const 256)                      ;; site 1
 *                         (i32.shl (local.get $tid) (i32.const 4)))
 *                (local.get $tid))
 *     (drop (i32.atomic.rmw.add (i32.const 0) (local.get $arg))) ;; site 2
 *     (drop (memory.atomic.notify (i32.const 0) (i32.const 1))))
 *   (func (export "_start")
 *     (local $v i32)
 *     (i32.store (i32.const 512) (i32.const 7))                ;; site 3
 *     (if (i32.le_s (call $spawn (i32.const 5)) (i32.const 0))
 *       (then unreachable))
 *     (if (i32.le_s (call $spawn (i32.const 5)) (i32.const 0))
 *       (then unreachable))
 *     (block $done
 *       (loop $w
 *         (local.set $v (i32.atomic.load (i32.const 0)))        ;; site 4
 *         (br_if $done (i32.eq (local.get $v) (i32.const 10)))
 *         (drop (memory.atomic.wait32 (i32.const 0) (local.get $v)
 *                                     (i64.const 100000000)))
 *         (br $w)))))
 * Two threads write one word (site 0), each its own word (site 1) and
 * add to a counter (site 2) that _start waits on (site 4); _start also
 * writes a word of its own (site 3). */
static const uint8_t threads_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0e, 0x03, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x00, 0x60, 0x00, 0x00,
    0x02, 0x24, 0x02, 0x04, 0x77, 0x61, 0x73, 0x69, 0x0c, 0x74, 0x68, 0x72,
    0x65, 0x61, 0x64, 0x2d, 0x73, 0x70, 0x61, 0x77, 0x6e, 0x00, 0x00, 0x03,
    0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03,
    0x01, 0x01, 0x03, 0x03, 0x02, 0x01, 0x02, 0x07, 0x1e, 0x02, 0x11, 0x77,
    0x61, 0x73, 0x69, 0x5f, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x5f, 0x73,
    0x74, 0x61, 0x72, 0x74, 0x00, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72,
    0x74, 0x00, 0x02, 0x0a, 0x74, 0x02, 0x2a, 0x00, 0x41, 0xc0, 0x00, 0x20,
    0x01, 0x36, 0x02, 0x00, 0x41, 0x80, 0x02, 0x20, 0x00, 0x41, 0x04, 0x74,
    0x6a, 0x20, 0x00, 0x36, 0x02, 0x00, 0x41, 0x00, 0x20, 0x01, 0xfe, 0x1e,
    0x02, 0x00, 0x1a, 0x41, 0x00, 0x41, 0x01, 0xfe, 0x00, 0x02, 0x00, 0x1a,
    0x0b, 0x47, 0x01, 0x01, 0x7f, 0x41, 0x80, 0x04, 0x41, 0x07, 0x36, 0x02,
    0x00, 0x41, 0x05, 0x10, 0x00, 0x41, 0x00, 0x4c, 0x04, 0x40, 0x00, 0x0b,
    0x41, 0x05, 0x10, 0x00, 0x41, 0x00, 0x4c, 0x04, 0x40, 0x00, 0x0b, 0x02,
    0x40, 0x03, 0x40, 0x41, 0x00, 0xfe, 0x10, 0x02, 0x00, 0x21, 0x00, 0x20,
    0x00, 0x41, 0x0a, 0x46, 0x0d, 0x01, 0x41, 0x00, 0x20, 0x00, 0x42, 0x80,
    0xc2, 0xd7, 0x2f, 0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b,
    0x0b};

typedef struct prog {
	eng_module *cm;
	rw_sites sites;
} prog;

static void load_prog(prog *g)
{
	wasm_module *m, *im;
	uint8_t *bytes;
	size_t len;
	rw_options opt = {0};
	wasm_err e;

	assert_int_equal(wasm_decode(threads_wasm, sizeof threads_wasm, &m, &e),
			 WASM_OK);
	assert_int_equal(wasm_validate(m, &e), WASM_OK);
	assert_int_equal(rw_instrument(m, &opt, &bytes, &len, &g->sites, &e),
			 WASM_OK);
	wasm_module_free(m);
	assert_int_equal(g->sites.nsites, 5);
	assert_int_equal(wasm_decode(bytes, len, &im, &e), WASM_OK);
	wasm_free(bytes);
	assert_int_equal(wasm_validate(im, &e), WASM_OK);
	assert_int_equal(wasi_check_command(im, &e), WASM_OK);
	assert_int_equal(det_mem_span(im), 65536);
	assert_int_equal(eng_compile(im, &g->cm, &e), WASM_OK);
}

static void free_prog(prog *g)
{
	eng_module_free(g->cm);
	rw_sites_free(&g->sites);
}

static det_run_opts run_opts(det_algo algo, const uint8_t *mask)
{
	static const char *const argv[] = {"threads"};
	det_run_opts o = {
	    .algo = algo,
	    .mask = mask,
	    .delay = 100,
	    .argv = argv,
	    .argc = 1,
	    .stdio = {-1, -1, -1},
	    .timeout_s = 30,
	};
	return o;
}

static void run_finds_the_shared_sites(void **state)
{
	static const uint8_t all[5] = {1, 1, 1, 1, 1};
	static const uint8_t want[5] = {1, 0, 1, 0, 1};
	prog g;
	det_run_result res;
	wasm_err e;

	load_prog(&g);
	/* Sharing does not depend on timing: every profile agrees. */
	for (const det_profile *pr = det_profiles; pr->name; pr++) {
		det_run_opts o = run_opts(DET_SHARED, all);
		o.profile = pr;
		assert_int_equal(det_run(g.cm, &g.sites, &o, &res, &e),
				 WASM_OK);
		if (res.status != DET_OK)
			fail_msg("profile %s: %s: %s", pr->name,
				 det_status_name(res.status), res.msg);
		assert_int_equal(res.exit_code, 0);
		assert_non_null(res.shared);
		assert_memory_equal(res.shared, want, 5);
		/* 3 sites per thread, 1 + at least one load in _start */
		assert_true(res.probes >= 8);
		assert_null(res.bugs);
		det_run_result_free(&res);
	}
	free_prog(&g);
}

static void run_probes_only_armed_sites(void **state)
{
	static const uint8_t none[5] = {0}, own[5] = {0, 1, 0, 1, 0};
	prog g;
	det_run_result res;
	det_run_opts o;
	wasm_err e;

	load_prog(&g);
	o = run_opts(DET_RACE, none);
	assert_int_equal(det_run(g.cm, &g.sites, &o, &res, &e), WASM_OK);
	assert_int_equal(res.status, DET_OK);
	assert_int_equal(res.probes, 0);
	assert_int_equal(res.nbugs, 0);
	det_run_result_free(&res);
	/* Sites 1 and 3 run once per thread and once in _start, on words
	 * no other thread touches: no bug. */
	o = run_opts(DET_RACE, own);
	assert_int_equal(det_run(g.cm, &g.sites, &o, &res, &e), WASM_OK);
	assert_int_equal(res.status, DET_OK);
	assert_int_equal(res.probes, 3);
	assert_int_equal(res.nbugs, 0);
	assert_int_equal(res.dropped, 0);
	det_run_result_free(&res);
	free_prog(&g);
}

/* A happens-before run whose read is left unarmed, covered by a write of
 * its stretch (rewriter/cover.h): the write's probe checks the read at
 * its bytes, so another thread's racing write pairs with the read's site
 * as well as the write's. Armed, the read is its own probe's business. */
static void a_covering_write_checks_its_read(void **state)
{
	rw_site tab[3] = {
	    {.width = 4,
	     .kind = RW_READ,
	     .covered = true,
	     .covered_by = 1,
	     .cover_at = 4},
	    {.width = 8, .kind = RW_WRITE},
	    {.width = 4, .kind = RW_WRITE},
	};
	rw_sites st = {.version = RW_SITES_VERSION, .nsites = 3, .sites = tab};
	for (int armed = 0; armed < 2; armed++) {
		uint8_t mask[3] = {(uint8_t)armed, 1, 1};
		uint32_t one = 1, two = 2, n, dropped, pairs = 0;
		const det_violation *v;
		det_probe *p;
		wasm_err e;

		assert_int_equal(det_probe_new(DET_HB, &st, 65536, 0, &p, &e),
				 WASM_OK);
		assert_int_equal(det_probe_set_mask(p, mask, &e), WASM_OK);
		det_probe_start(p, &one, det_probe_spawn(p, NULL, 0));
		det_probe_start(p, &two, det_probe_spawn(p, NULL, 0));
		det_probe_access(p, NULL, 1, 100, 1); /* writes 100..107 */
		det_probe_access(p, NULL, 2, 104, 2); /* writes 104..107 */
		v = det_probe_violations(p, &n, &dropped);
		for (uint32_t i = 0; i < n; i++) {
			assert_int_equal(v[i].site[1], 2);
			pairs |= 1u << v[i].site[0];
			if (v[i].site[0] == 0)
				assert_int_equal(v[i].addr[0], 104);
		}
		assert_int_equal(pairs, armed ? 2 : 3);
		det_probe_free(p);
	}
}

/* A collision asked while its access was armed gets the armed side's
 * answer (its stack and bytes): the armed thread sees the ask when it
 * disarms and waits for the request. Windows of ~20 ms make the two threads
 * meet at site 0 in nearly every run; the test looks at the first run that met.
 */
static void an_asked_collision_is_answered(void **state)
{
	static const uint8_t site0[5] = {1, 0, 0, 0, 0};
	prog g;
	det_run_result res;
	det_run_opts o;
	wasm_err e;
	int met = 0;

	load_prog(&g);
	o = run_opts(DET_RACE, site0);
	o.delay = 1000000;
	for (int run = 0; run < 5 && !met; run++) {
		assert_int_equal(det_run(g.cm, &g.sites, &o, &res, &e),
				 WASM_OK);
		assert_int_equal(res.status, DET_OK);
		if (res.nbugs) {
			const det_violation *v = &res.bugs[0];
			met = 1;
			assert_int_equal(res.nbugs, 1);
			assert_int_equal(v->site[0], 0);
			assert_int_equal(v->site[1], 0);
			assert_int_not_equal(v->tid[0], v->tid[1]);
			/* Only the armed side's thread, answering, takes
			 * the value (its stack is empty here: site 0 is in
			 * the thread's first frame). */
			assert_int_equal(v->vwidth, 4);
			assert_int_equal(v->vside, 1 - v->cur);
		}
		det_run_result_free(&res);
	}
	assert_true(met);
	free_prog(&g);
}

static void run_reports_a_mask_that_does_not_fit(void **state)
{
	prog g;
	det_run_result res;
	det_run_opts o;
	rw_sites big;
	uint8_t *mask;
	wasm_err e;

	load_prog(&g);
	/* A site table with more sites than the module's one-page mask. */
	big = g.sites;
	big.nsites = 70000;
	big.sites = calloc(big.nsites, sizeof *big.sites);
	mask = calloc(big.nsites, 1);
	o = run_opts(DET_RACE, mask);
	assert_int_equal(det_run(g.cm, &big, &o, &res, &e), WASM_OK);
	assert_int_equal(res.status, DET_ERROR);
	assert_int_equal(res.exit_code, -1);
	assert_non_null(strstr(res.msg, "heisen.mask has 65536 bytes"));
	det_run_result_free(&res);
	free(big.sites);
	free(mask);
	free_prog(&g);
}

static void names_profiles_and_spans(void **state)
{
	det_status s;
	wasm_module m = {0};
	wasm_limits mems[2] = {{.min = 1, .max = 2, .has_max = true},
			       {.min = 1}};
	wasm_import imp = {
	    .module = {"heisen", 6},
	    .name = {"mask", 4},
	    .kind = WASM_EXTERN_MEMORY,
	};

	for (int i = DET_OK; i <= DET_ERROR; i++) {
		assert_true(det_status_parse(det_status_name(i), &s));
		assert_int_equal(s, i);
	}
	assert_string_equal(det_status_name(DET_TIMEOUT), "timeout");
	assert_false(det_status_parse("fine", &s));
	assert_non_null(det_profile_find("one-core"));
	assert_true(det_profile_find("one-core")->one_core);
	assert_int_equal(det_profile_find("throttled")->throttle, 64);
	assert_true(det_profile_find("noisy")->noisy);
	assert_null(det_profile_find("turbo"));
	for (const det_profile *pr = det_profiles; pr->name; pr++)
		assert_true(pr->help && pr->help[0]);

	/* The mask's own maximum never widens the table. */
	imp.u.memory = (wasm_limits){.min = 3, .max = 40000, .has_max = true};
	m.nimports = 1;
	m.imports = &imp;
	m.nmems = 1;
	m.mems = mems;
	assert_int_equal(det_mem_span(&m), 2 * 65536);
	m.nmems = 2;
	assert_int_equal(det_mem_span(&m), (uint64_t)1 << 32);
	m.nmems = 0;
	assert_int_equal(det_mem_span(&m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(writes_collide),
	    cmocka_unit_test(atomics_and_reads_never_collide),
	    cmocka_unit_test(a_thread_never_races_itself),
	    cmocka_unit_test(overlap_is_by_bytes),
	    cmocka_unit_test(sixteen_bytes_collide_on_every_cell),
	    cmocka_unit_test(bugs_beyond_the_cap_are_counted_once),
	    cmocka_unit_test(out_of_range_is_ignored),
	    cmocka_unit_test(shared_follows_the_three_cases),
	    cmocka_unit_test(shared_from_threads),
	    cmocka_unit_test(run_finds_the_shared_sites),
	    cmocka_unit_test(run_probes_only_armed_sites),
	    cmocka_unit_test(an_asked_collision_is_answered),
	    cmocka_unit_test(a_covering_write_checks_its_read),
	    cmocka_unit_test(run_reports_a_mask_that_does_not_fit),
	    cmocka_unit_test(names_profiles_and_spans),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
