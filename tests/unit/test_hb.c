/*
 * test_hb.c - happens-before detection (detector/hb.h) on scripted
 * accesses: what orders two threads, and what is a race.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "detector/hb.h"

/* Sites of the script: their kind and width. */
enum {
	S_READ,
	S_WRITE,
	S_READ1,  /* a byte */
	S_WRITE1, /* a byte */
	S_WRITE8,
	S_READ16,  /* v128.load */
	S_WRITE16, /* v128.store */
	S_ALOAD,
	S_ASTORE,
	S_RMW,
	S_RANGE,  /* memory.copy/fill/init */
	S_READ2B, /* two bytes, another line */
	NSITES
};
static rw_site site_table[NSITES] = {
    [S_READ] = {0, 0, 0, 4, RW_READ, 0},
    [S_WRITE] = {0, 0, 0, 4, RW_WRITE, 0},
    [S_READ1] = {0, 0, 0, 1, RW_READ, 0},
    [S_WRITE1] = {0, 0, 0, 1, RW_WRITE, 0},
    [S_RANGE] = {0, 0, 0, 0, RW_RANGE_WRITE, 0},
    [S_WRITE8] = {0, 0, 0, 8, RW_WRITE, 0},
    [S_READ16] = {0, 0, 0, 16, RW_READ, 0},
    [S_WRITE16] = {0, 0, 0, 16, RW_WRITE, 0},
    [S_ALOAD] = {0, 0, 0, 4, RW_ATOMIC_READ, 0},
    [S_ASTORE] = {0, 0, 0, 4, RW_ATOMIC_WRITE, 0},
    [S_RMW] = {0, 0, 0, 4, RW_ATOMIC_RMW, 0},
    [S_READ2B] = {0, 0, 0, 2, RW_READ, 0},
};
static const rw_sites sites = {
    .version = RW_SITES_VERSION, .nsites = NSITES, .sites = site_table};

typedef struct seen {
	det_hb_race r[16];
	int n;
} seen;

static void on_race(void *ctx, const det_hb_race *r)
{
	seen *s = ctx;
	if (s->n < 16)
		s->r[s->n] = *r;
	s->n++;
}

static det_hb *fresh(seen *s)
{
	det_hb *h;
	wasm_err e;

	s->n = 0;
	assert_int_equal(det_hb_new(&sites, 65536, on_race, s, &h, &e),
			 WASM_OK);
	return h;
}

/* Thread 1 spawned by thread 0, which then spawns 2, at the start. */
static void spawn_two(det_hb *h)
{
	det_hb_start(h, 1, det_hb_spawn(h, 0));
	det_hb_start(h, 2, det_hb_spawn(h, 0));
}

/* The same-epoch fast path: an access that repeats one of its thread's
 * epoch at the same site, to no more bytes, may be skipped; anything
 * else goes to det_hb_access, and the races it finds are still found. */
/* det_hb_repeat, and the table compiled code tests inline
 * (det_hb_shadow_test) giving the same answer: both cover the same
 * aligned plain accesses here. */
static bool repeat(det_hb *h, uint32_t tid, uint32_t addr, uint32_t site)
{
	const eng_shadow_test *t = det_hb_shadow_test(h);
	eng_val args[2] = {addr, site};
	bool r = det_hb_repeat(h, tid, addr, site);
	uint64_t skipped = det_hb_skipped(h);
	eng_shadow_answer a;

	assert_non_null(t);
	a = eng_shadow_test_run(t, tid, args);
	assert_int_equal(a == ENG_SHADOW_SKIP, r);
	assert_int_equal(det_hb_skipped(h), skipped + r);
	assert_int_equal(det_hb_tested(h, tid), a == ENG_SHADOW_CALL);
	assert_false(det_hb_tested(h, tid));
	return r;
}

static void repeats_of_an_epoch(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	(void)state;
	spawn_two(h);
	assert_false(repeat(h, 1, 64, S_WRITE));
	det_hb_access(h, 1, 64, S_WRITE);
	assert_true(repeat(h, 1, 64, S_WRITE));
	/* Another cell, the same site. */
	det_hb_access(h, 1, 128, S_WRITE);
	assert_true(repeat(h, 1, 128, S_WRITE));
	/* A write of another line, another thread, a read, more bytes:
	 * not. */
	assert_false(repeat(h, 1, 65, S_WRITE1));
	assert_false(repeat(h, 2, 64, S_WRITE));
	assert_false(repeat(h, 1, 64, S_READ));
	det_hb_access(h, 1, 200, S_WRITE1);
	assert_true(repeat(h, 1, 200, S_WRITE1));
	assert_false(repeat(h, 1, 201, S_WRITE1));
	/* Eight bytes: both cells must be this epoch's. */
	det_hb_access(h, 1, 256, S_WRITE8);
	assert_true(repeat(h, 1, 256, S_WRITE8));
	assert_false(repeat(h, 1, 252, S_WRITE8));
	/* Atomics never take the fast path. */
	det_hb_access(h, 1, 512, S_ASTORE);
	assert_false(repeat(h, 1, 512, S_ASTORE));
	/* The release advanced thread 1's clock: a new epoch. */
	assert_false(repeat(h, 1, 64, S_WRITE));
	/* Thread 2's unordered write still races with the record. */
	det_hb_access(h, 2, 128, S_WRITE);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].tid[0], 1);
	assert_int_equal(s.r[0].tid[1], 2);
	assert_false(repeat(h, 1, 1 << 20, S_WRITE));
	det_hb_free(h);
}

/* A read of another line of the thread's epoch is skipped only when the
 * cell has no other thread's write: each line still meets another
 * thread's write and reports its own pair. A write of another line is
 * never skipped. A thread's read record outlives its own write. A line
 * that reads a cell's bytes one at a time keeps them all in its
 * record. */
static void other_lines_of_an_epoch(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	(void)state;
	spawn_two(h);
	det_hb_access(h, 1, 64, S_READ);
	assert_true(repeat(h, 1, 66, S_READ1));
	det_hb_access(h, 2, 64, S_WRITE1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_READ);
	/* Thread 2's write beside thread 1's read record: not skipped. */
	assert_false(repeat(h, 1, 64, S_READ1));
	det_hb_access(h, 1, 64, S_READ1);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[1].site[0], S_WRITE1);
	assert_int_equal(s.r[1].site[1], S_READ1);
	/* Writes of two lines: the record keeps the last, the one a
	 * racing read then names. */
	det_hb_access(h, 1, 128, S_WRITE);
	assert_false(repeat(h, 1, 128, S_WRITE1));
	det_hb_access(h, 1, 128, S_WRITE1);
	det_hb_access(h, 2, 128, S_READ);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.r[2].site[0], S_WRITE1);
	assert_int_equal(s.r[2].site[1], S_READ);
	/* The thread's own read outlives its write: the next read of
	 * another line is skipped, and another thread's racing write is
	 * reported against both. */
	det_hb_access(h, 1, 300, S_READ);
	det_hb_access(h, 1, 300, S_WRITE);
	assert_true(repeat(h, 1, 300, S_READ1));
	det_hb_access(h, 2, 300, S_WRITE1);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.r[3].site[0], S_WRITE);
	assert_int_equal(s.r[4].site[0], S_READ);
	assert_int_equal(s.r[4].site[1], S_WRITE1);
	/* One line, one byte at a time: the record grows to all four. */
	for (uint32_t a = 200; a < 204; a++)
		det_hb_access(h, 1, a, S_READ1);
	for (uint32_t a = 200; a < 204; a++)
		assert_true(repeat(h, 1, a, S_READ1));
	det_hb_access(h, 2, 200, S_WRITE1);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.r[5].site[0], S_READ1);
	assert_int_equal(s.r[5].addr[0], 200);
	det_hb_free(h);
}

/* Two fields of a cell read by two lines in turn: the record keeps
 * both, with the line of each byte, so that the inline test skips
 * either line's next reads, and another thread's write of each field is
 * reported against the line that read it (before, each line replaced
 * the other's record, and a write of the field not in it raced with
 * nothing). */
static void two_lines_of_one_cell(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	(void)state;
	spawn_two(h);
	det_hb_access(h, 1, 400, S_READ1);
	det_hb_access(h, 1, 402, S_READ2B);
	assert_true(repeat(h, 1, 400, S_READ1));
	assert_true(repeat(h, 1, 402, S_READ2B));
	assert_true(repeat(h, 1, 403, S_READ1));
	assert_false(repeat(h, 1, 401, S_READ1));
	det_hb_access(h, 1, 400, S_READ1);
	det_hb_access(h, 1, 402, S_READ2B);
	assert_int_equal(s.n, 0);
	det_hb_access(h, 2, 400, S_WRITE1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_READ1);
	assert_int_equal(s.r[0].addr[0], 400);
	det_hb_access(h, 2, 403, S_WRITE1);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[1].site[0], S_READ2B);
	assert_int_equal(s.r[1].addr[0], 403);
	/* A third thread's read joins them in a read set: still each
	 * byte's line. */
	det_hb_start(h, 3, det_hb_spawn(h, 0));
	det_hb_access(h, 1, 500, S_READ1);
	det_hb_access(h, 1, 502, S_READ2B);
	det_hb_access(h, 3, 501, S_READ1);
	det_hb_access(h, 2, 502, S_WRITE1);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.r[2].site[0], S_READ2B);
	assert_int_equal(s.r[2].tid[0], 1);
	det_hb_free(h);
}

/* A read at another line of a cell whose read record is the thread's
 * own takes no lock (hb.c's reread) and still meets what races: another
 * thread's later write finds the latest read, and the thread's next read
 * finds that write. */
static void rereads_of_a_cell_still_race(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	(void)state;
	spawn_two(h);
	det_hb_access(h, 1, 100, S_READ);
	det_hb_access(h, 1, 100, S_READ1);
	det_hb_access(h, 1, 100, S_READ1);
	assert_int_equal(s.n, 0);
	det_hb_access(h, 2, 100, S_WRITE1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_READ1);
	assert_int_equal(s.r[0].site[1], S_WRITE1);
	det_hb_access(h, 1, 100, S_READ);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[1].site[0], S_WRITE1);
	assert_int_equal(s.r[1].site[1], S_READ);
	assert_int_equal(s.r[1].tid[1], 1);
	/* Thread 2's own reads after its write: nothing new. */
	det_hb_access(h, 2, 100, S_READ);
	det_hb_access(h, 2, 100, S_READ1);
	assert_int_equal(s.n, 2);
	det_hb_free(h);
}

static void unordered_writes_race(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 100, S_WRITE);
	det_hb_access(h, 2, 100, S_WRITE);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_WRITE);
	assert_int_equal(s.r[0].tid[0], 1);
	assert_int_equal(s.r[0].tid[1], 2);
	assert_int_equal(s.r[0].addr[1], 100);
	/* A read of thread 2 after its own write: no new race. */
	det_hb_access(h, 2, 100, S_READ);
	assert_int_equal(s.n, 1);
	/* Thread 1 has ended: its clock goes, its records stay. */
	det_hb_end(h, 1);
	det_hb_end(h, 1);
	det_hb_access(h, 2, 104, S_READ);
	det_hb_access(h, 0, 100, S_WRITE);
	assert_int_equal(s.n, 3);
	det_hb_free(h);
}

/* The earlier access's context: the one its thread named for that site
 * in that epoch; none when the site ran under two contexts in the epoch,
 * when no context was named, or once the trace has wrapped past it; a
 * later epoch's context is its own. Traces outlive their threads. */
static void earlier_access_context_from_the_trace(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_context(h, 1, 7);
	det_hb_access(h, 1, 100, S_WRITE);
	det_hb_context(h, 1, 8);
	det_hb_access(h, 1, 200, S_READ);
	det_hb_end(h, 1);
	det_hb_access(h, 2, 100, S_READ);
	det_hb_access(h, 2, 200, S_WRITE);
	assert_int_equal(s.n, 2);
	assert_int_equal(det_hb_prev_context(h, 1, s.r[0].clock, S_WRITE), 7);
	assert_int_equal(det_hb_prev_context(h, 1, s.r[1].clock, S_READ), 8);
	assert_int_equal(det_hb_prev_context(h, 1, s.r[0].clock + 1, S_WRITE),
			 0);
	assert_int_equal(det_hb_prev_context(h, 1, s.r[0].clock, S_READ1), 0);
	assert_int_equal(det_hb_prev_context(h, 3, 1, S_WRITE), 0);
	assert_int_equal(det_hb_prev_context(h, HB_MAX_THREADS, 1, S_WRITE),
			 0);

	/* Thread 2 writes S_WRITE1 under two contexts in one epoch: the
	 * trace cannot tell which of them raced. An atomic store (a
	 * release) starts another epoch, with one context. */
	det_hb_context(h, 2, 9);
	det_hb_access(h, 2, 300, S_WRITE1);
	det_hb_context(h, 2, 10);
	det_hb_access(h, 2, 304, S_WRITE1);
	det_hb_access(h, 2, 400, S_ASTORE);
	det_hb_access(h, 2, 308, S_WRITE1);
	det_hb_access(h, 0, 300, S_WRITE1);
	det_hb_access(h, 0, 308, S_WRITE1);
	assert_int_equal(s.n, 4);
	assert_int_equal(det_hb_prev_context(h, 2, s.r[2].clock, S_WRITE1), 0);
	assert_int_equal(det_hb_prev_context(h, 2, s.r[3].clock, S_WRITE1), 10);

	/* Many epochs later the first entries are gone. */
	for (uint32_t i = 0; i < 20000; i++) {
		det_hb_context(h, 2, 11 + i % 2);
		det_hb_access(h, 2, 500, S_ASTORE);
		det_hb_access(h, 2, 504, S_WRITE);
	}
	assert_int_equal(det_hb_prev_context(h, 2, s.r[3].clock, S_WRITE1), 0);

	/* A thread that never named a context has no trace. */
	det_hb_access(h, 0, 600, S_WRITE);
	det_hb_access(h, 2, 600, S_WRITE);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.r[4].tid[0], 0);
	assert_int_equal(det_hb_prev_context(h, 0, s.r[4].clock, S_WRITE), 0);
	det_hb_free(h);
}

/* A range access covers every byte of its destination and, for a copy,
 * of its source (read): announced by the site's first probe call and done
 * by its length call. */
static void ranges_cover_every_byte(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	/* Thread 1 copies [1000, 1200) to [100, 300). */
	det_hb_access(h, 1, 100, S_RANGE);
	det_hb_range(h, 1, 1000, S_RANGE | RW_PROBE_SRC);
	assert_int_equal(s.n, 0);
	det_hb_range(h, 1, 200, S_RANGE | RW_PROBE_LEN);
	/* A length call without its announcement is ignored. */
	det_hb_range(h, 1, 200, S_RANGE | RW_PROBE_LEN);
	det_hb_access(h, 2, 250, S_READ1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_RANGE);
	assert_int_equal(s.r[0].kind[0], RW_RANGE_WRITE);
	assert_int_equal(s.r[0].kind[1], RW_READ);
	assert_int_equal(s.r[0].addr[0], 250);
	/* The source was read: a read does not race, a write does. */
	det_hb_access(h, 2, 1150, S_READ1);
	assert_int_equal(s.n, 1);
	det_hb_access(h, 2, 1151, S_WRITE1);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[1].kind[0], RW_RANGE_READ);
	assert_int_equal(s.r[1].addr[0], 1151);
	/* Past the end of either range: nothing. */
	det_hb_access(h, 2, 300, S_WRITE);
	det_hb_access(h, 2, 1200, S_WRITE);
	assert_int_equal(s.n, 2);
	/* Thread 2 fills [2000, 2100); thread 1 then writes byte 2099. */
	det_hb_access(h, 2, 2000, S_RANGE);
	det_hb_range(h, 2, 100, S_RANGE | RW_PROBE_LEN);
	det_hb_access(h, 1, 2099, S_WRITE1);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.r[2].kind[0], RW_RANGE_WRITE);
	assert_int_equal(s.r[2].addr[1], 2099);
	det_hb_free(h);
}

/* A notify releases at its address and the wait it wakes acquires there;
 * a wake elsewhere orders nothing. */
static void notify_orders_the_woken_wait(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 400, S_WRITE);
	det_hb_notify(h, 1, 800);
	det_hb_woken(h, 2, 804);
	det_hb_access(h, 2, 400, S_READ);
	assert_int_equal(s.n, 1);
	det_hb_access(h, 1, 500, S_WRITE);
	det_hb_notify(h, 1, 800);
	det_hb_woken(h, 2, 800);
	det_hb_access(h, 2, 500, S_READ);
	assert_int_equal(s.n, 1);
	/* Out of range: ignored. */
	det_hb_notify(h, 1, UINT64_MAX);
	det_hb_woken(h, 2, UINT64_MAX);
	det_hb_free(h);
}

/* A program with more sites than a record's slot holds: sites get slots
 * as a run first executes them, and races name the right sites; a site
 * executed after every slot is taken is not recorded with one, and a race
 * against its record goes unreported (a miss, never a wrong site). */
static void many_sites_get_slots(void **state)
{
	const uint32_t n = (1u << 17) + 8;
	rw_site *tab = calloc(n, sizeof *tab);
	rw_sites big = {.version = RW_SITES_VERSION, .nsites = n, .sites = tab};
	seen s = {0};
	det_hb *h;
	wasm_err e;

	assert_non_null(tab);
	for (uint32_t i = 0; i < n; i++)
		tab[i] = (rw_site){.width = 4, .kind = RW_WRITE};
	assert_int_equal(det_hb_new(&big, 1u << 20, on_race, &s, &h, &e),
			 WASM_OK);
	spawn_two(h);
	det_hb_access(h, 1, 100, n - 1);
	det_hb_access(h, 2, 100, n - 2);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], n - 1);
	assert_int_equal(s.r[0].site[1], n - 2);
	/* Every other slot taken, by thread 2 on memory of its own. */
	for (uint32_t i = 0; i < (1u << 17); i++)
		det_hb_access(h, 2, 4096 + 4 * (i % 1024), i);
	det_hb_access(h, 1, 200, n - 3); /* no slot left */
	det_hb_access(h, 2, 200, 5);
	assert_int_equal(s.n, 1);
	det_hb_free(h);
	free(tab);
}

/* Far apart in time is still a race: nothing but the order matters. */
static void a_read_long_before_the_write_races(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 200, S_READ);
	for (uint32_t i = 0; i < 1000; i++)
		det_hb_access(h, 2, 4096 + 4 * i, S_WRITE);
	det_hb_access(h, 2, 200, S_WRITE);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_READ);
	det_hb_free(h);
}

/* An atomic store releases, an atomic load acquires: the flag orders the
 * data, once the load has been followed by another access (the acquire
 * is deferred to the thread's next probe). */
static void release_acquire_orders(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 300, S_WRITE);  /* data */
	det_hb_access(h, 1, 400, S_ASTORE); /* flag = 1 */
	det_hb_access(h, 2, 400, S_ALOAD);  /* sees 1 */
	det_hb_access(h, 2, 300, S_READ);   /* data: ordered */
	assert_int_equal(s.n, 0);
	/* Thread 1 writes again after its release: unordered. */
	det_hb_access(h, 1, 300, S_WRITE);
	assert_int_equal(s.n, 1);
	det_hb_free(h);
}

/* A lock made of RMWs orders the critical sections. */
static void rmw_lock_orders(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	for (int round = 0; round < 3; round++)
		for (uint32_t t = 1; t <= 2; t++) {
			det_hb_access(h, t, 500, S_RMW);  /* lock */
			det_hb_access(h, t, 600, S_READ); /* counter */
			det_hb_access(h, t, 600, S_WRITE);
			det_hb_access(h, t, 500, S_ASTORE); /* unlock */
		}
	assert_int_equal(s.n, 0);
	det_hb_free(h);
}

/* The child starts from the parent's clock at the spawn: what the parent
 * did before is ordered, what it does after is not. */
static void spawn_orders_what_came_before(void **state)
{
	seen s;
	det_hb *h = fresh(&s);
	void *tok;

	det_hb_access(h, 0, 700, S_WRITE);
	tok = det_hb_spawn(h, 0);
	det_hb_access(h, 0, 800, S_WRITE);
	det_hb_start(h, 1, tok);
	det_hb_access(h, 1, 700, S_READ);
	assert_int_equal(s.n, 0);
	det_hb_access(h, 1, 800, S_READ);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].tid[0], 0);
	det_hb_free(h);
}

static void atomics_never_race_with_atomics(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 900, S_ASTORE);
	det_hb_access(h, 2, 900, S_RMW);
	det_hb_access(h, 1, 900, S_ALOAD);
	assert_int_equal(s.n, 0);
	/* A plain read of a thread that never acquired the store. */
	det_hb_start(h, 3, det_hb_spawn(h, 0));
	det_hb_access(h, 3, 900, S_READ);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_RMW);
	det_hb_free(h);
}

/* Bytes, not cells: neighbours in one 4-byte cell do not race; an 8-byte
 * write covers two cells. */
static void bytes_of_a_cell_are_apart(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 1000, S_WRITE1);
	det_hb_access(h, 2, 1001, S_WRITE1);
	det_hb_access(h, 2, 1002, S_READ1);
	assert_int_equal(s.n, 0);
	det_hb_access(h, 1, 1006, S_WRITE1);
	det_hb_access(h, 2, 1006, S_READ1);
	assert_int_equal(s.n, 1);
	det_hb_access(h, 2, 1004, S_WRITE8); /* covers 1004..1011 */
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[1].addr[0], 1006);
	det_hb_free(h);
}

/* A 16-byte access (v128.load, v128.store) is checked and recorded on
 * every byte: four cells when aligned, five when not, up to its last
 * byte and not past it. */
static void sixteen_bytes_cover_every_cell(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 1302, S_WRITE16); /* 1302..1317, cells 325..329 */
	det_hb_access(h, 2, 1318, S_READ1);
	det_hb_access(h, 2, 1301, S_WRITE1);
	assert_int_equal(s.n, 0);
	det_hb_access(h, 2, 1317, S_READ1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].site[0], S_WRITE16);
	assert_int_equal(s.r[0].addr[0], 1317);
	assert_int_equal(s.r[0].kind[0], RW_WRITE);
	det_hb_access(h, 2, 1308, S_READ);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[1].addr[0], 1308);
	/* A 16-byte read meets thread 2's byte write in its second cell;
	 * it is reported at its own start. */
	det_hb_access(h, 1, 1296, S_READ16);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.r[2].site[0], S_WRITE1);
	assert_int_equal(s.r[2].site[1], S_READ16);
	assert_int_equal(s.r[2].addr[0], 1301);
	assert_int_equal(s.r[2].addr[1], 1296);
	det_hb_free(h);
}

/* Reads of two threads, unordered with each other, are both kept: a
 * write ordered after one of them still races with the other. */
static void concurrent_readers_are_both_kept(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 1100, S_READ);
	det_hb_access(h, 2, 1100, S_READ);
	assert_int_equal(s.n, 0);
	det_hb_access(h, 1, 1100, S_WRITE);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.r[0].tid[0], 2);
	det_hb_free(h);
}

/* Two lines writing what another thread read: each line's race is
 * reported, though the second write finds the first in the cell. */
static void each_racing_write_is_reported(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 1200, S_READ);
	det_hb_access(h, 2, 1200, S_WRITE1);
	det_hb_access(h, 2, 1200, S_WRITE);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[0].site[1], S_WRITE1);
	assert_int_equal(s.r[1].site[1], S_WRITE);
	/* The same line again in the same epoch: nothing new to check. */
	det_hb_access(h, 2, 1200, S_WRITE);
	assert_int_equal(s.n, 2);
	det_hb_free(h);
}

static void out_of_range_is_ignored(void **state)
{
	seen s;
	det_hb *h = fresh(&s);

	spawn_two(h);
	det_hb_access(h, 1, 65536, S_WRITE);
	det_hb_access(h, 2, 65536, S_WRITE);
	det_hb_access(h, 1, 65534, S_WRITE); /* clipped at the end */
	det_hb_access(h, 2, 65534, S_WRITE);
	det_hb_access(h, 1, 10, NSITES);
	det_hb_access(h, HB_MAX_THREADS, 10, S_WRITE);
	assert_int_equal(s.n, 1);
	det_hb_drop(det_hb_spawn(h, 1));
	assert_true(det_hb_shadow_bytes(h) > 0);
	det_hb_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rereads_of_a_cell_still_race),
	    cmocka_unit_test(unordered_writes_race),
	    cmocka_unit_test(repeats_of_an_epoch),
	    cmocka_unit_test(other_lines_of_an_epoch),
	    cmocka_unit_test(two_lines_of_one_cell),
	    cmocka_unit_test(ranges_cover_every_byte),
	    cmocka_unit_test(notify_orders_the_woken_wait),
	    cmocka_unit_test(many_sites_get_slots),
	    cmocka_unit_test(a_read_long_before_the_write_races),
	    cmocka_unit_test(release_acquire_orders),
	    cmocka_unit_test(rmw_lock_orders),
	    cmocka_unit_test(spawn_orders_what_came_before),
	    cmocka_unit_test(atomics_never_race_with_atomics),
	    cmocka_unit_test(bytes_of_a_cell_are_apart),
	    cmocka_unit_test(sixteen_bytes_cover_every_cell),
	    cmocka_unit_test(concurrent_readers_are_both_kept),
	    cmocka_unit_test(each_racing_write_is_reported),
	    cmocka_unit_test(out_of_range_is_ignored),
	    cmocka_unit_test(earlier_access_context_from_the_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
