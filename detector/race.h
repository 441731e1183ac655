/*
 * race.h - the detector's run-time half: probe masks, the two probe
 * algorithms of the Beanstalk paper, execution profiles, and one run of an
 * instrumented program under one mask (det_run).
 *
 * Masks (DESIGN "Masks"). A density is given in basis points (10000 =
 * 100 %) so that it is exact in the database and in a repro file. A mask
 * of density d over a pool of n candidate sites arms exactly
 * det_mask_count(d, n) = floor((d * n + 5000) / 10000) of them, chosen
 * uniformly: a partial Fisher-Yates shuffle of the pool driven by
 * xoshiro256** seeded through splitmix64 (det_rng_*), with Lemire's
 * unbiased bounded draw. (seed, density, pool, DET_MASK_VERSION) gives
 * the same mask bit for bit on every machine; a change to any step of the
 * generator must bump DET_MASK_VERSION.
 *
 * Probes. A det_probe is one run's probe state: the access table and what
 * the run found. det_probe_access is `logaccess(tid, addr, site)`:
 *   DET_RACE   (Algorithm 1) the access table has one entry per 4-byte
 *              cell of linear memory, reserved for the whole address
 *              range and touched lazily (demand-paged). An access arms
 *              every free cell it covers, spins `delay` units with no lock
 *              held, then disarms them. An access that finds a cell armed
 *              by another thread, whose armed bytes overlap its own bytes,
 *              where at least one of the two is a non-atomic write
 *              (RW_WRITE, RW_RANGE_WRITE), records a violation. Atomic vs
 *              atomic never counts, nor does a thread against itself.
 *              Entries are read and written under a per-entry sequence
 *              word (no mutex on the hot path), so a reported pair was
 *              really armed and probed at the same moment on the same
 *              bytes. A range access (memory.copy/fill/init: width 0 in
 *              the site table) covers one byte at its start address.
 *   DET_SHARED (Algorithm 2) marks the sites whose accesses touched a
 *              cell that more than one thread accessed during the run.
 * Violations are deduplicated per run by unordered site pair (a bug);
 * each keeps one occurrence (threads, addresses, kinds), its example, and
 * a count. The example is the first occurrence unless that one lacks a
 * stack (below).
 *
 * Stacks and values at a collision. A new bug's finder takes its own call
 * stack. The armed access's thread is still inside its probe, spinning:
 * the finder first marks the cell "asked" (one CAS on its word, which
 * fails once the window has closed), unless its pair already has both
 * stacks (a small table of such pairs, read without the lock), then
 * leaves a request (thread, cell, the word's generation) if the bug
 * still wants one. The armed thread disarms with an exchange, so it sees
 * the mark; only then does it wait for the askers to be done (a counter
 * on its own cache line) and answer: it takes its own stack and reads
 * its bytes again; it read them just before its window, which is what a
 * "value changed" line compares. An access that collides with nobody
 * pays nothing more. A request its thread never answered (it was given
 * up after 2 ms) is dropped by the next thread that answers.
 * The pair's next collision in the run, while no request of its bug is
 * outstanding, then replaces the example (threads, addresses, stacks,
 * value, location) and asks again, until one has both stacks; a bug
 * whose pair never collides again keeps one.
 *
 * One delay unit is one iteration of a spin loop around the CPU's pause
 * hint (x86 `pause`, aarch64 `yield`), the no-op loop of the paper.
 *
 * Ownership: det_probe and det_run_result own their memory (free with
 * det_probe_free / det_run_result_free). Thread safety: det_probe_access
 * may be called from any number of threads at once.
 */
#ifndef HEISEN_DETECTOR_RACE_H
#define HEISEN_DETECTOR_RACE_H

#include <regex.h>

#include "core/engine.h"
#include "core/wasi.h"
#include "rewriter/instrument.h"

/* ---- random numbers and masks ---------------------------------------- */

typedef struct det_rng {
	uint64_t s[4];
} det_rng;

/* Seed the four state words with successive splitmix64 outputs of seed. */
void det_rng_seed(det_rng *r, uint64_t seed);
/* The next xoshiro256** output. Inline: the statistics draw hundreds of
 * millions of them. */
static inline uint64_t det_rng_next(det_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}
/* Uniform in [0, n) (n > 0), Lemire's multiply-shift with rejection. */
uint64_t det_rng_below(det_rng *r, uint64_t n);
/* One splitmix64 step of x: to derive a run's seed from a campaign seed
 * and the run's plan index (det_seed_mix(seed ^ index)). */
uint64_t det_seed_mix(uint64_t x);

#define DET_MASK_VERSION 1
#define DET_DENSITY_FULL 10000u /* 100 % in basis points */

/* Sites armed by a mask of density_bp over npool candidates. */
uint32_t det_mask_count(uint32_t density_bp, uint32_t npool);

/* Fill mask[0..nsites) with 0/1: arm det_mask_count(density_bp, npool)
 * sites of pool (ids < nsites, no duplicates; NULL pool = every site,
 * npool = nsites). WASM_NOMEM, or WASM_INVALID for a pool id out of range
 * or a density above 100 %. */
wasm_status det_mask_make(uint64_t seed, uint32_t density_bp,
			  const uint32_t *pool, uint32_t npool, uint8_t *mask,
			  uint32_t nsites, wasm_err *err);

/* Parse a mask file into mask[0..nsites): site ids and ranges ("3 5-9,
 * 12"), separated by spaces, commas or newlines, `#` to end of line.
 * Errors (WASM_IO, WASM_INVALID) name the line: "line 4: site id 9000
 * out of range (the module has 1232 sites)". */
wasm_status det_mask_read(const char *path, uint8_t *mask, uint32_t nsites,
			  wasm_err *err);

/* ---- probes ------------------------------------------------------------ */

typedef enum det_algo {
	DET_RACE,   /* Algorithm 1: data races by delay injection */
	DET_SHARED, /* Algorithm 2: sites touching memory shared by threads */
	DET_HB,	    /* happens-before (detector/hb.h): every race of a run,
		       with every site armed and no delay */
} det_algo;

#define DET_DEFAULT_DELAY 50u /* units; see README "Choosing the delay" */

/* Callers kept per stack; a deeper stack keeps its innermost ones. */
#define DET_MAX_CALLERS 32u

/* One access's callers at the moment it was probed, innermost first, as
 * eng_thread_backtrace gives them in the instrumented module
 * (det_prog_frame names them); the site itself is the frame below them.
 * n = 0: no stack was taken. */
typedef struct det_stack {
	uint8_t n;
	bool truncated; /* the stack had more than DET_MAX_CALLERS callers */
	eng_where caller[DET_MAX_CALLERS];
} det_stack;

/* Where the racing bytes are, when only the run can tell (the program's
 * hints: heap blocks its allocator reported, stacks of its threads; the
 * module's globals and main stack are rewriter/symbols.h's). Taken when
 * a new bug is recorded, at the finder's address. */
typedef enum det_loc_kind {
	DET_LOC_NONE,  /* no hint covers the address */
	DET_LOC_HEAP,  /* a live heap block */
	DET_LOC_STACK, /* a spawned thread's stack */
} det_loc_kind;

typedef struct det_loc {
	uint8_t kind;	     /* det_loc_kind */
	uint32_t base, size; /* the block or the stack */
	uint32_t tid;	     /* HEAP: the allocating thread; STACK: its owner */
	/* HEAP: the allocating thread's stack at the allocation, innermost
	 * first, frame 0 the allocator's call to its hint (det_prog_frames
	 * names them). */
	det_stack stack;
} det_loc;

/* Who created a thread: its parent and the parent's stack in the
 * thread-spawn call, innermost first (frame 0 the call). known false:
 * the main thread, or a thread started before the probe watched. */
typedef struct det_spawn {
	bool known;
	uint32_t parent;
	det_stack stack;
} det_spawn;

/* A lock a thread held (the guest library's heisen.hint lock/unlock,
 * core/wasi.h): how, as ThreadSanitizer names it ("mutexes: write M1,
 * read M2"), and what it is. */
typedef enum det_lock_kind {
	DET_LOCK_NONE,
	DET_LOCK_MUTEX, /* a mutex (held for writing) */
	DET_LOCK_READ,	/* a rwlock held for reading */
	DET_LOCK_WRITE, /* a rwlock held for writing */
	DET_LOCK_SPIN,	/* a spin lock (held for writing) */
	DET_LOCK_KINDS
} det_lock_kind;

/* Locks kept per access; a thread holding more keeps the first it took
 * (held counts them all). */
#define DET_MAX_LOCKS 4u

typedef struct det_lock {
	uint32_t addr;
	uint8_t kind; /* det_lock_kind */
	/* Filled by det_probe_lock_details (det_run does): where the lock
	 * was first taken in the run (known false: not recorded, the run
	 * saw too many locks), by which thread, its stack (frame 0 the
	 * library's call to its hint) and the heap block or thread stack
	 * it lies in then (DET_LOC_NONE: neither; a global is named from
	 * the module's symbols). */
	bool known;
	uint32_t tid;
	det_stack first;
	det_loc loc;
} det_lock;

/* The locks one access's thread held at the access. */
typedef struct det_lockset {
	uint8_t n;    /* kept in lock[] */
	uint8_t held; /* held in all (>= n; 255: at least) */
	det_lock lock[DET_MAX_LOCKS];
} det_lockset;

/* Bytes of a thread's name (AnnotateThreadName) kept, with its NUL. */
#define DET_NAME_MAX 32u

/* Bytes of value evidence kept per violation (the widest access). */
#define DET_VALUE_BYTES 16u

/* A bug seen in one run: sites ordered so that site[0] <= site[1]; the
 * other fields follow the same order. */
typedef struct det_violation {
	uint32_t site[2];
	uint32_t tid[2];
	uint32_t addr[2];
	uint8_t kind[2]; /* rw_kind */
	uint64_t count;	 /* times this pair collided in the run */
	/* Which side found the pair: the later access (DET_RACE: the one
	 * that found the other armed; DET_HB: the one that found the
	 * other's record unordered). */
	uint8_t cur;
	/* Both accesses' stacks. The finder's is taken when it finds the
	 * pair; under DET_RACE the armed access's thread, still inside its
	 * probe, takes its own when its delay window closes (asked again on
	 * a later collision when it was asked too late). A happens-before
	 * race takes the other's from its thread's trace (hb.h "Caller
	 * contexts"), when the trace still holds it. */
	det_stack stack[2];
	/* Value evidence (DET_RACE, KCSAN's "value changed"): the vwidth
	 * bytes at addr[vside] as the armed access's thread read them just
	 * before its delay window and just after it. vwidth 0: none. */
	uint8_t vwidth, vside;
	uint8_t before[DET_VALUE_BYTES], after[DET_VALUE_BYTES];
	/* The heap block or thread stack the finder's address is in, and
	 * who created each side's thread (DET_RACE and DET_HB). */
	det_loc loc;
	det_spawn spawn[2];
	/* The locks each side's thread held: at the collision (DET_RACE,
	 * taken with the stacks, so an access whose stack came too late
	 * has none), or at each access (DET_HB: the earlier one's as its
	 * caller context recorded them). */
	det_lockset locks[2];
	/* Each side's thread's name as the program gave it (det_probe_
	 * thread_name), "" for none. */
	char name[2][DET_NAME_MAX];
} det_violation;

typedef struct det_probe det_probe;

/* Probe state for one run of a program whose site table is `sites`
 * (borrowed; must outlive the probe) and whose linear memory spans at
 * most mem_bytes (addresses at or beyond it are ignored). Errors:
 * WASM_NOMEM when the table cannot be reserved. */
wasm_status det_probe_new(det_algo algo, const rw_sites *sites,
			  uint64_t mem_bytes, uint32_t delay, det_probe **out,
			  wasm_err *err);
void det_probe_free(det_probe *p);

/* logaccess: thread tid accessed addr at site (site < nsites, else
 * ignored). t is the engine thread inside whose probe call this runs, for
 * the call stack of a new bug (NULL: no stack). */
void det_probe_access(det_probe *p, const eng_thread *t, uint32_t tid,
		      uint32_t addr, uint32_t site);

/* The filter of the probe's host function (eng_host_func_set_filter,
 * its ctx p, its arguments addr and site), or NULL: for DET_HB, the
 * same-epoch repeats det_probe_access would return at once for
 * (det_hb_repeat), counted as it counts them; compiled code then makes
 * no host call for them. */
eng_host_filter det_probe_filter(const det_probe *p);
/* The filter's common case as a table compiled code tests inline
 * (eng_host_func_set_shadow_test, det_hb_shadow_test), or NULL; owned
 * by p. The calls it skips count in det_probe_calls. */
const eng_shadow_test *det_probe_shadow_test(det_probe *p);

/* Whether new bugs take call stacks and values (default true). Off
 * only for benchmarks: what capture costs a run. */
void det_probe_set_stacks(det_probe *p, bool on);

/* The run's mask (nsites bytes, not kept), for DET_HB: a write whose
 * covered read (rw_site.covered_by) is left unarmed checks that read
 * first, at its bytes, as the read's own probe would have (nothing
 * happens between them: rewriter/cover.h). WASM_NOMEM when out of
 * memory. */
wasm_status det_probe_set_mask(det_probe *p, const uint8_t *mask,
			       wasm_err *err);

/* A concurrent breakpoint (papers/concurrent-breakpoints.txt, BTrigger)
 * on DET_RACE: a thread whose access at site[0] or site[1] finds no
 * partner waits up to hold_ns (spinning and yielding, so that it wakes at
 * once) for another thread to reach the other site (the same site when
 * both are equal) on overlapping bytes. When one comes, the waiting thread
 * goes first: it arms its access table cells as the delay probe does, and
 * the arriving one follows a few delay units later, so the pair collides
 * and is recorded as a violation. One meeting per run is enough: after it
 * nobody waits. Each thread waits at most max_holds times in a run and a
 * wait ends by the deadline, so a breakpoint never deadlocks a program.
 * The mask must arm both sites. */
typedef struct det_trigger {
	uint32_t site[2];
	uint64_t hold_ns;
	uint32_t max_holds; /* per thread; 0: DET_TRIGGER_HOLDS */
	/* With by_addr, a thread waits only when its access at site[i]
	 * covers addr[i] (the logged race's addresses): in a loop whose two
	 * threads collide at one index, waits elsewhere are in vain. A
	 * thread meets a waiting partner at any overlapping address. */
	bool by_addr;
	uint32_t addr[2];
} det_trigger;
#define DET_TRIGGER_HOLDS 16u
/* Give a DET_RACE probe a breakpoint (t is copied). */
void det_probe_set_trigger(det_probe *p, const det_trigger *t);
/* Times a thread waited at the breakpoint, and whether two met. */
void det_probe_trigger_stats(const det_probe *p, uint64_t *holds, bool *met);

/* Thread parent (engine thread t, in its thread-spawn call) spawns a
 * thread; the token goes to the new thread's det_probe_start (child
 * NULL: the spawn failed). DET_RACE and DET_HB keep who created each
 * thread for its reports; DET_HB also orders the child after its
 * parent. NULL and a no-op under DET_SHARED. */
void *det_probe_spawn(det_probe *p, const eng_thread *t, uint32_t parent);
void det_probe_start(det_probe *p, const uint32_t *child, void *token);
/* The program's hints (core/wasi.h; DET_RACE and DET_HB, no-ops under
 * DET_SHARED): thread tid (engine thread t, whose stack is taken)
 * allocated [addr, addr + size); the block at addr is freed; thread
 * tid's stack is [lo, hi). A block or stack that cannot be kept (out of
 * memory) is left out of reports, never an error. */
void det_probe_alloc(det_probe *p, const eng_thread *t, uint32_t tid,
		     uint32_t addr, uint32_t size);
void det_probe_release(det_probe *p, uint32_t addr);
void det_probe_stack(det_probe *p, uint32_t tid, uint32_t lo, uint32_t hi);
/* DET_HB: the calling thread's next accesses are the guest library's
 * own bookkeeping (a live-thread count), not synchronisation POSIX
 * promises (on), until it says otherwise (off): happens-before neither
 * orders threads through them nor checks them. Without it, a thread
 * that ended before another was created would be ordered before it
 * through the count, hiding their races. */
void det_probe_nosync(det_probe *p, bool on);

/* Thread tid (engine thread t, whose stack a lock's first use keeps)
 * took the lock at addr (kind: det_lock_kind), or let it go; a thread
 * that takes a lock it holds (a read lock twice) keeps one entry, the
 * strongest kind. DET_RACE and DET_HB; no-ops under DET_SHARED. A lock
 * the probe cannot keep (a thread holding very many) is left out of
 * reports. */
void det_probe_lock(det_probe *p, const eng_thread *t, uint32_t tid,
		    uint32_t addr, uint8_t kind);
void det_probe_unlock(det_probe *p, uint32_t addr);
/* Fill the first use and location of every lock of v[0..n) (violations
 * of p, as det_probe_violations gave them) from what p recorded. */
void det_probe_lock_details(const det_probe *p, det_violation *v, uint32_t n);

/* Annotations (docs/annotations.md; the guest library's Annotate*
 * functions through heisen.hint imports). DET_RACE and DET_HB:
 *   det_probe_benign      races on [addr, addr + size) are benign: a
 *                         race either of whose accesses touches them is
 *                         not recorded, only counted (det_probe_benign_
 *                         count: the distinct site pairs left out);
 *   det_probe_ignore      the calling thread's plain reads (writes true:
 *                         writes) are not probed from a begin to its end
 *                         (nested regions count); atomics still are.
 * DET_HB only (no-ops otherwise):
 *   det_probe_hb_edge     thread tid releases its clock at addr (release
 *                         true: AnnotateHappensBefore, __tsan_release),
 *                         or acquires what was released there;
 *   det_probe_new_memory  [addr, addr + size) is new: what earlier
 *                         accesses to it recorded is forgotten. */
void det_probe_benign(det_probe *p, uint32_t addr, uint32_t size);
uint32_t det_probe_benign_count(const det_probe *p);
/* [addr, addr + size) is what every thread has its own copy of natively
 * but this libc keeps once (errno: Debian's wasi-libc was built without
 * threads): a race either of whose accesses touches it is not recorded
 * nor counted, as a native race detector never sees one there. The guest
 * library names it at start (heisen.hint.thread_local). DET_RACE and
 * DET_HB. */
void det_probe_thread_local(det_probe *p, uint32_t addr, uint32_t size);
void det_probe_ignore(det_probe *p, bool writes, bool begin);
void det_probe_hb_edge(det_probe *p, uint32_t tid, uint32_t addr, bool release);
void det_probe_new_memory(det_probe *p, uint32_t addr, uint32_t size);
/* Thread tid (engine thread t) is named by the len bytes at addr of its
 * memory 0 (AnnotateThreadName): kept for its races' reports, cut to
 * DET_NAME_MAX - 1 bytes, control characters as '?'. DET_RACE and
 * DET_HB. */
void det_probe_thread_name(det_probe *p, const eng_thread *t, uint32_t tid,
			   uint32_t addr, uint32_t len);

/* A serial run switches guest thread t off its OS thread (resume false)
 * or back on (true): what this module keeps per OS thread (the locks t
 * holds, its caller context, its ignore and nosync regions) follows t
 * (the engine's switch hook, eng_proc_set_switch_hook). Calls come from
 * the one OS thread of the run. */
void det_probe_switch(det_probe *p, const eng_thread *t, bool resume);

/* DET_HB: thread tid has returned. */
void det_probe_end(det_probe *p, uint32_t tid);
/* DET_HB: a notify or a wake by thread tid at addr (the engine's sync
 * hook, eng_proc_set_sync_hook). */
void det_probe_sync(det_probe *p, uint32_t tid, eng_sync_event ev,
		    uint64_t addr);

/* DET_RACE, DET_HB: the run's bugs so far, in order of first detection. The
 * array belongs to p; at most DET_MAX_BUGS are kept, *dropped counts the
 * further distinct pairs. */
#define DET_MAX_BUGS 1024u
const det_violation *det_probe_violations(const det_probe *p, uint32_t *n,
					  uint32_t *dropped);
/* DET_SHARED: shared[site] != 0 for every site found shared (nsites
 * bytes, owned by p). */
const uint8_t *det_probe_shared(const det_probe *p);
/* Probe calls so far. */
uint64_t det_probe_calls(const det_probe *p);
/* DET_HB: its shadow and the memory touched, as det_run_result has them
 * (0 for the other algorithms). */
void det_probe_hb_bytes(const det_probe *p, uint64_t *shadow,
			uint64_t *touched);

/* ---- profiles ---------------------------------------------------------- */

/* An execution regime on one machine (DESIGN "profiles"). */
typedef struct det_profile {
	const char *name;
	const char *help;  /* one line: what it does */
	bool one_core;	   /* pin every thread of the run to one CPU */
	uint32_t throttle; /* engine yields every N polls (0: never) */
	bool noisy;	   /* a background thread loads the CPUs */
} det_profile;

/* The table of profiles, terminated by a row with name NULL. */
extern const det_profile det_profiles[];
const det_profile *det_profile_find(const char *name);
/* Every profile's name, in table order, with sep between them, into buf
 * (cap > 0 bytes, cut short if it must). */
void det_profile_names(char *buf, size_t cap, const char *sep);

/* ---- one run ------------------------------------------------------------ */

/* DET_HB runs: how long a program whose main thread has ended (returned
 * from _start or called proc_exit) waits for the spawned threads still
 * alive to end (wasi_config.exit_grace_s), so that a thread main never
 * joins runs what it would natively have run by then; bounded, for a
 * thread that never ends. docs/check.md, "Threads main never joins". */
#define DET_HB_EXIT_GRACE_S 0.5

/* Standard input for runs (`--stdin FILE`): every run reads the same
 * bytes, at most DET_STDIN_MAX of them, read once by the parent. */
#define DET_STDIN_MAX (1u << 20)

/* A host fd that reads as n bytes b from offset 0, for a run's
 * det_run_opts.stdio[0]: a sealed memfd (the guest cannot change it, and
 * each worker has its own, so no run consumes another's input). The
 * caller rewinds it (lseek) before each run and closes it. -1 with errno
 * set when the system refuses. */
int det_stdin_fd(const uint8_t *b, uint32_t n);

/* How a campaign's worker makes the scheduler of each serial run: the
 * strategies live above the detector (replay/sched.h's
 * rep_sched_maker). */
typedef struct det_sched_maker {
	/* A scheduler for the run of this seed, its hook into *hook; NULL
	 * when out of memory. */
	void *(*make)(const void *ctx, uint64_t seed, eng_sched *hook);
	/* After the run: append its decisions, encoded, to out, set
	 * *diverged (a followed schedule's first point it could not follow,
	 * UINT64_MAX: none) and free s. False: the decisions are incomplete
	 * (out of memory). */
	bool (*finish)(void *s, wasm_buf *out, uint64_t *diverged);
	const void *ctx;
} det_sched_maker;

typedef struct det_run_opts {
	det_algo algo;
	const uint8_t *mask; /* nsites bytes, copied into heisen.mask */
	uint32_t delay;
	const det_profile *profile; /* NULL: default */
	const char *const *argv;    /* argv[0] = program name */
	uint32_t argc;
	int stdio[3];		    /* as wasi_config.stdio */
	const det_trigger *trigger; /* DET_RACE: a breakpoint, or NULL */
	/* DET_HB: fill shadow_bytes and touched_bytes of the result, which
	 * costs a walk of the clocks and a mincore per touched page: for
	 * benchmarks, not for every run of a check. */
	bool hb_bytes;
	double timeout_s;	    /* 0: none */
	/* Directories, environment and limits of the program (NULL: none,
	 * the defaults); ignored with wasi below. */
	const wasi_world *world;
	/* Take no call stacks and values (det_probe_set_stacks): for
	 * benchmarks only. */
	bool no_stacks;
	/* When non-NULL, the WASI set-up to start from (environment,
	 * directories, limits, stdio, argv: `heisen run`'s options); argv,
	 * argc, stdio and timeout_s above are then ignored. Its resolver
	 * on_proc, on_spawn, on_start and on_end hooks must be NULL: det_run
	 * provides them. */
	const wasi_config *wasi;
	/* Not NULL: the run is serial (core/engine.h's serial execution):
	 * one thread at a time, this scheduler choosing at every point,
	 * random_get seeded with sched_seed. The profile's timing (throttle,
	 * noise, one core) means nothing there and is not applied. */
	const eng_sched *sched;
	uint64_t sched_seed;
} det_run_opts;

typedef enum det_status {
	DET_OK,	     /* exited 0 (or _start returned) */
	DET_EXIT,    /* exited non-zero */
	DET_TRAP,    /* trapped (message says which) */
	DET_TIMEOUT, /* the timeout passed (a deadlock ends here too) */
	DET_LIMIT,   /* a resource limit */
	DET_CRASH,   /* the worker died (campaigns only: a signal) */
	DET_ERROR,   /* could not start (bad import, I/O) */
} det_status;

/* "ok", "exit", "trap", "timeout", "limit", "crash", "error" and back. */
const char *det_status_name(det_status s);
bool det_status_parse(const char *s, det_status *out);

typedef struct det_run_result {
	det_status status;
	int exit_code;	      /* DET_OK/DET_EXIT; -1 otherwise */
	char msg[256];	      /* trap/limit/error message, or "" */
	uint64_t duration_ns; /* wall clock of the run */
	uint64_t probes;      /* probe calls */
	det_violation *bugs;  /* DET_RACE: owned */
	uint32_t nbugs, dropped;
	uint8_t *shared; /* DET_SHARED: nsites bytes, owned */
	/* Distinct site pairs whose races were left out as annotated
	 * benign (det_probe_benign_count). */
	uint32_t benign;
	uint64_t holds;	 /* with a trigger: waits at the breakpoint */
	bool met;	 /* with a trigger: two threads met there */
	/* DET_HB with opts.hb_bytes: happens-before state in memory, and the
	 * program memory its probed accesses touched (det_hb_shadow_bytes
	 * and det_hb_touched_bytes); 0 otherwise */
	uint64_t shadow_bytes, touched_bytes;
	/* A serial run's points, switches and digest (zero otherwise). */
	eng_sched_stats sched;
} det_run_result;

/* What counts as a run's failure (heisen minimize): a trap, exit code
 * `code`, or standard output matching `pattern` (a POSIX extended
 * regular expression). det_failure_parse reads "trap", "exit:N" and
 * "stdout:REGEX" (pattern then points into s); WASM_INVALID with a
 * message for anything else or a regex that does not compile. */
typedef enum det_fail_kind {
	DET_FAIL_TRAP,
	DET_FAIL_EXIT,
	DET_FAIL_STDOUT,
} det_fail_kind;
typedef struct det_failure {
	det_fail_kind kind;
	int code;
	const char *pattern;
} det_failure;
wasm_status det_failure_parse(const char *s, det_failure *out, wasm_err *err);
/* Whether a run that ended with status and exit code (and, for
 * DET_FAIL_STDOUT, printed out[0..len)) is a failure. re is the compiled
 * pattern (DET_FAIL_STDOUT only). */
bool det_failure_match(const det_failure *f, const regex_t *re,
		       det_status status, int exit_code, const char *out);

/* Run the instrumented module cm (whose site table is sites) once under
 * opts, with heisen.mask and heisen.probe provided to every instance and
 * the profile applied to the calling process for the run's duration.
 * Returns WASM_OK when the run happened (its outcome is in res->status,
 * DET_ERROR included); a host error otherwise (WASM_NOMEM). */
wasm_status det_run(eng_module *cm, const rw_sites *sites,
		    const det_run_opts *opts, det_run_result *res,
		    wasm_err *err);
void det_run_result_free(det_run_result *res);

/* The largest address range any memory of m can reach (its declared
 * maximum, or 4 GiB): the span det_run gives the access table. */
uint64_t det_mem_span(const wasm_module *m);

#endif
