/*
 * hb.h - happens-before race detection (`heisen check`, DESIGN
 * "Happens-before"): every race of a run, whether or not its two accesses
 * ever meet in time.
 *
 * Each thread keeps a vector clock; synchronisation comes from WebAssembly
 * semantics only, so any program built on its atomics is ordered, whatever
 * library it uses:
 *   - every atomic is sequentially consistent: an atomic store or RMW
 *     releases the thread's clock into the sync clock of its address (the
 *     4-byte cell it starts in) and then advances the thread's own entry;
 *     an atomic load or RMW acquires that sync clock;
 *   - wasi thread-spawn: the new thread starts from the parent's clock at
 *     the spawn (det_hb_spawn, det_hb_start), and the parent advances.
 * The guest library's mutexes, condition variables, barriers, once, rwlocks
 * and join are built on atomics and futex wait/notify, and a woken waiter
 * reads the futex word again with an atomic load, so they are ordered by the
 * rules above; memory.atomic.notify also releases at its address, and the
 * wait it wakes acquires there (det_hb_notify, det_hb_woken), for code that
 * relies on the wake itself.
 *
 * The probe runs before the access it guards, so an acquire cannot be done
 * there: the load has not yet read whose store it sees. It is deferred to
 * the thread's next probe (or spawn), by which time the load has happened;
 * the sync clock read then may include releases made after the load, which
 * can only hide a race, never invent one.
 *
 * Shadow state (FastTrack, Flanagan and Freund 2009): per 4-byte cell of
 * linear memory, 16 bytes (two 64-bit records: 4 times the memory it
 * covers) reserved for the whole address range and touched lazily: the
 * last write (epoch = thread and its clock, the bytes of the
 * cell it covered, atomic or not, its site) and the last read, widened to a
 * read set of up to HB_READERS readers when reads of different threads are
 * concurrent (a line reading a cell's bytes one at a time in an epoch
 * leaves one record of them all; lines of one thread's epoch reading
 * different bytes of a cell leave one record with the line of each
 * byte beside it, 16 bytes a cell more where there are such records). An access
 * checks the cell's records that overlap its bytes: a record of another thread
 * whose epoch does not happen before the current thread's clock is a race,
 * unless both accesses are atomic or both are reads. A race is reported as a
 * det_violation (the previous access's site, thread and first byte, and the
 * current one's), deduplicated by unordered site pair like a collision, so both
 * detectors meet on one bug.
 *
 * Limits, each losing races rather than inventing them: a read set full of
 * concurrent readers forgets its oldest; a write that covers part of a cell
 * replaces the record of a write to its other bytes; threads with ids of
 * HB_MAX_THREADS and above are not checked; a record keeps a clock up to
 * 2^24-1 (a thread past it looks ordered after its 2^24-1st release); in a
 * program of 2^17 - 1 sites and more, a record names only the first 2^17 - 2
 * sites a run executes. A range access (memory.copy/fill/init) covers
 * every byte of its destination, and a copy's source is read under the
 * same site.
 *
 * Ownership: det_hb owns everything it allocates (det_hb_free). Thread
 * safety: every function may be called from any thread of the run at once,
 * each thread passing its own tid.
 */
#ifndef HEISEN_DETECTOR_HB_H
#define HEISEN_DETECTOR_HB_H

#include "core/engine.h"
#include "core/wasm.h"
#include "rewriter/instrument.h"

#define HB_MAX_THREADS 65536u
#define HB_READERS     4u

typedef struct det_hb det_hb;

/* A race found: filled by det_hb and handed to the report callback. The
 * first access (index 0) is the earlier one. */
typedef struct det_hb_race {
	uint32_t site[2], tid[2], addr[2];
	uint8_t kind[2]; /* rw_kind; RW_RANGE_READ: a memory.copy's source */
	uint32_t clock;	 /* the earlier access's, for det_hb_prev_context */
} det_hb_race;
typedef void (*det_hb_report)(void *ctx, const det_hb_race *r);

/* State for one run of a program with site table `sites` (borrowed) and
 * memory spanning at most mem_bytes. Errors: WASM_NOMEM (the shadow cannot
 * be reserved: the message says how much). */
wasm_status det_hb_new(const rw_sites *sites, uint64_t mem_bytes,
		       det_hb_report report, void *ctx, det_hb **out,
		       wasm_err *err);
void det_hb_free(det_hb *h);

/* Thread tid is about to access addr at site (the probe). */
void det_hb_access(det_hb *h, uint32_t tid, uint32_t addr, uint32_t site);
/* Whether that access repeats, to no more bytes of each cell, a plain
 * read or write thread tid made at the same site since its clock last
 * advanced (FastTrack's same epoch), or is a plain read of bytes that
 * another site's read of the epoch covers in cells that hold no other
 * thread's write: det_hb_access would then report nothing (and record
 * nothing but which of the thread's lines read last), and the caller
 * may skip it and what it does before (the caller's context). False for
 * atomics, ranges and anything not yet recorded. It changes nothing: a
 * thread's deferred acquire waits for its next det_hb_access, which a
 * release always is. */
bool det_hb_repeat(const det_hb *h, uint32_t tid, uint32_t addr, uint32_t site);
/* The same test as a table that compiled code tests inline
 * (eng_host_func_set_shadow_test), for threads below 64 and sites of
 * plain reads and writes of 1, 2, 4 or 8 aligned bytes; NULL when out of
 * memory or when the program has 2^17 - 1 sites or more (their slots are
 * given out as they run). Owned by h. det_hb_skipped: the calls it
 * skipped. det_hb_tested: whether it found thread tid's latest access
 * no repeat (det_hb_repeat would say false), which it then forgets. */
const eng_shadow_test *det_hb_shadow_test(det_hb *h);
uint64_t det_hb_skipped(const det_hb *h);
bool det_hb_tested(det_hb *h, uint32_t tid);
/* The extra probe calls of a range site (rewriter/instrument.h): call is
 * the site with RW_PROBE_SRC (value: memory.copy's source) or
 * RW_PROBE_LEN (value: the length, which completes the access: the
 * destination is written, the source read, every byte of both). Only
 * for a site table of version 3 or later; an older one's range access
 * counts as its first byte. */
void det_hb_range(det_hb *h, uint32_t tid, uint32_t value, uint32_t call);

/* Caller contexts, for the earlier access's call stack (TSan keeps a
 * trace per thread for the same end). ctx is the caller's name for where
 * thread tid's next accesses run from (its callers; 0: unknown), given
 * when it changes. det_hb_prev_context gives back the context in which
 * thread tid last accessed site while its clock was `clock` (a race's
 * earlier access: det_hb_race.tid[0], .clock, .site[0]), or 0 when its
 * trace no longer holds that access (TRACE_MAX entries per thread) or the
 * site ran from two contexts in that epoch, so that it cannot tell which
 * one raced. Callable from any thread. */
void det_hb_context(det_hb *h, uint32_t tid, uint32_t ctx);
uint32_t det_hb_prev_context(const det_hb *h, uint32_t tid, uint32_t clock,
			     uint32_t site);

/* memory.atomic.notify → the wait it wakes: thread tid is about to
 * notify the waiters of addr (its clock is released there, as by an
 * atomic store), or was woken at addr (it acquires what was released
 * there). From the engine's sync hook (eng_proc_set_sync_hook). */
void det_hb_notify(det_hb *h, uint32_t tid, uint64_t addr);
void det_hb_woken(det_hb *h, uint32_t tid, uint64_t addr);

/* The bytes [addr, addr + size) are new memory (an allocator's block
 * reused, AnnotateNewMemory): the records of the whole 4-byte cells in
 * it are forgotten, so that nothing races with what the memory was
 * before. */
void det_hb_forget(det_hb *h, uint32_t addr, uint32_t size);
/* Thread parent is spawning a thread: the returned token carries its clock
 * to the child's det_hb_start (NULL when out of memory: the child then
 * starts unordered, which can only add reports). */
void *det_hb_spawn(det_hb *h, uint32_t parent);
/* Thread child starts with the clock of token, which it consumes. */
void det_hb_start(det_hb *h, uint32_t child, void *token);
/* The token of a spawn that failed. */
void det_hb_drop(void *token);
/* Thread tid has returned: its clock goes (the other threads and the sync
 * clocks keep what they learnt of it). A program with 10 000 threads over
 * its life then holds the clocks of those alive, not of all. */
void det_hb_end(det_hb *h, uint32_t tid);

/* The sites a happens-before run needs probed, into ids (room for
 * sites->nsites), in order; returns how many: every site but the reads a
 * later store of the same stretch covers (rw_site.covered,
 * rewriter/cover.h), which the store's probe checks in their place
 * (det_probe_set_mask). */
uint32_t det_hb_sites(const rw_sites *sites, uint32_t *ids);

/* For `make bench`: bytes of shadow and clocks in memory (resident pages
 * of the shadow, by mincore), and bytes of the program's memory its
 * probed accesses touched (in 4 KiB pages). */
uint64_t det_hb_shadow_bytes(const det_hb *h);
uint64_t det_hb_touched_bytes(const det_hb *h);

#endif
