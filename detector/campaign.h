/*
 * campaign.h - the detector's campaign half: a program ready to run under
 * masks (det_prog), and a sweep of densities x profiles x runs executed in
 * worker processes and recorded in the workspace database (det_sweep).
 *
 * Programs. det_prog_load takes a WASI command module, instrumented or
 * not. An uninstrumented one is instrumented on the fly and the result
 * cached under $XDG_CACHE_HOME/heisen (else ~/.cache/heisen) by the hash
 * of the original bytes; a cached file is used only when its site table
 * names the same hash. Sites map to `func file:line` through the DWARF
 * the rewriter carries over.
 *
 * Sweeps. A campaign's plan is an ordered list of runs: plan index i
 * belongs to round i / ncells and to one (profile, density) cell of that
 * round; every round visits every cell once, in an order shuffled per
 * round from the campaign seed, so a campaign stopped at any point has
 * covered its cells evenly. Run i's mask seed is
 * det_seed_mix(seed ^ det_seed_mix(i)). With a time budget the plan is
 * open-ended: rounds continue until the budget is spent.
 *
 * Each run executes in a forked worker process (at most `jobs` at once)
 * with the campaign's stdin (db_campaign.input; empty without) and world
 * (db_campaign.world: directories, environment, limits):
 * a program that traps, exits non-zero, deadlocks (ends by the timeout)
 * or kills its worker is recorded with that status, its message and the
 * last lines of its stderr, and the sweep goes on.
 * Only the parent writes the database, in batches committed every
 * DET_COMMIT_MS. det_sweep_stop (async-signal-safe, e.g. from a SIGINT
 * handler) ends the sweep: running workers are killed, their unfinished
 * runs are not recorded, everything finished is committed, and the
 * campaign is marked "stopped" so that det_sweep_resume can finish its
 * plan.
 *
 * Ownership: det_prog owns its module, site table and source map.
 */
#ifndef HEISEN_DETECTOR_CAMPAIGN_H
#define HEISEN_DETECTOR_CAMPAIGN_H

#include "db/db.h"
#include "race.h"
#include "rewriter/inline.h"
#include "rewriter/srcmap.h"
#include "rewriter/symbols.h"

typedef struct det_prog {
	char *path;	  /* as given */
	const char *name; /* base name, points into path */
	eng_module *cm;	  /* compiled instrumented module */
	rw_sites sites;
	rw_srcmap *srcmap; /* NULL when the DWARF could not be read */
	rw_symbols *symbols; /* NULL when .debug_info could not be read */
	rw_inline *inl;	     /* NULL when .debug_info could not be read */
	uint64_t mem_span; /* det_mem_span of the module */
	bool cached;	   /* the instrumented binary came from the cache */
	uint64_t *sig;	   /* per site: det_prog_sig's answers */
} det_prog;

/* Load, instrument (or reuse the cache), validate, compile. Errors as
 * wasi_load's, plus rw_instrument's ("no shared memory: nothing to
 * instrument"). */
wasm_status det_prog_load(const char *path, det_prog **out, wasm_err *err);
void det_prog_free(det_prog *p);

/* Whether a source file (as det_prog_site gives it; NULL: none) is the C
 * runtime a guest links rather than the user's code: wasi-libc's WASI
 * call wrappers (libc-bottom-half/, as its DWARF names them) or heisen's
 * guest library (guest/pthread.c, semaphore.c, malloc.c, stdio.c, crt1.c,
 * thread_start.s). A race both of whose sites are in runtime sources is
 * the runtime's, not the program's (Debian's wasi-libc keeps one errno
 * for every thread, and every failing call writes it): campaigns do not
 * record it. A site without a source file is never the runtime's; nor is
 * the rest of libc (memcpy, stdio): a race there is the caller's. */
bool det_runtime_source(const char *file);

/* Whether a source file is of the C library a guest links at all:
 * wasi-libc (its build records "././libc-top-half/..." and
 * "././libc-bottom-half/...") or any file of heisen's guest library (a
 * file directly in a folder named guest). A race report names the first
 * frame outside these as where the race is (the user's call of sprintf,
 * fputs or pthread_join), since a race in the library's code on the
 * caller's memory is the caller's. NULL: false. */
bool det_library_source(const char *file);

/* Where site lives: its function name into func (cap bytes; "func[N]"
 * when the module has no name), its source position into pos (file NULL
 * when unknown). */
void det_prog_site(const det_prog *p, uint32_t site, char *func, size_t cap,
		   rw_srcpos *pos);

/* What identifies site across rebuilds of the program, hashed (never
 * 0): its kind, function name, source file's base name, its line
 * counted from its function's first line, its column, and its ordinal
 * among the sites of its function that share all of these. Adding code
 * above the function, or in other functions, leaves it as it was; a
 * change inside the function may not. Without DWARF: kind, function
 * name and the ordinal among the function's sites of that kind.
 * db_sig_pair makes a bug's signature of two. 0 for a site out of
 * range. */
uint64_t det_prog_sig(const det_prog *p, uint32_t site);

/* The same for a frame of a violation's call stack (det_stack.caller):
 * returns the call's offset in the original binary, 0 when the
 * instrumented module has no offset map (instrumented by an older heisen:
 * the frame then has its function's name only). */
uint32_t det_prog_frame(const det_prog *p, const eng_where *w, char *func,
			size_t cap, rw_srcpos *pos);

/* The call stack v kept for its access `side` (0 or 1) as the workspace
 * stores it: the site as frame 0, then the callers, named. Each of these
 * physical frames whose code the compiler inlined (DWARF says so)
 * becomes the inlined functions, innermost first and marked inlined,
 * then the function it lives in at the line of the outermost inlined
 * call. out->n = 0 when v has none for that side. Strings are out's
 * (db_stack_clear). WASM_NOMEM. */
wasm_status det_prog_stack(const det_prog *p, const det_violation *v, int side,
			   db_stack *out, wasm_err *err);

/* v as the workspace keeps a hit: both sites with their positions (the
 * function names written into func[k], cap bytes each, which h points
 * to), threads, addresses, count, both stacks, the value evidence, the
 * location (the run's heap block or thread stack, else what the module's
 * symbols say of the finder's address) and who created both threads.
 * Release with db_hit_clear. WASM_NOMEM. */
wasm_status det_prog_hit(const det_prog *p, const det_violation *v, db_hit *h,
			 char (*func)[128], wasm_err *err);

/* argv for a run of p: its name, then the nargs NUL-separated strings at
 * args (a campaign's or a repro's arguments; pointers into args).
 * wasm_malloc'd (nargs + 1 entries, wasm_free); NULL when out of memory. */
const char **det_prog_argv(const det_prog *p, const char *args, uint32_t nargs);

/* Parse a density list: "5:100:5" (first:last:step, in percent) or
 * "10,25.5,100". Percentages have at most two decimals, each in (0, 100].
 * *out (wasm_malloc'd, ascending, no duplicates) in basis points. */
wasm_status det_parse_densities(const char *s, uint32_t **out, uint32_t *n,
				wasm_err *err);
/* Parse "default,one-core": *out (wasm_malloc'd) points into
 * det_profiles. Unknown names are WASM_INVALID naming them and the
 * valid ones. */
wasm_status det_parse_profiles(const char *s, const det_profile ***out,
			       uint32_t *n, wasm_err *err);

/* Algorithm 2 over `runs` runs at density 100 %: the union of the sites
 * found shared into shared[0..nsites) (caller-allocated). Runs execute
 * in worker processes like a sweep's, each reading the nin bytes of in
 * as its stdin, in world (NULL: none). */
wasm_status det_shared_sites(det_prog *p, const char *const *argv,
			     uint32_t argc, const uint8_t *in, uint32_t nin,
			     const wasi_world *world, uint32_t runs,
			     uint32_t jobs, double timeout_s, uint8_t *shared,
			     wasm_err *err);

#define DET_COMMIT_MS 250

/* Of a run that did not end ok, the last DET_STDERR_LINES lines its
 * program wrote to stderr, within DET_TAIL_MAX bytes with the NUL, go
 * with its outcome (db_run.stderr_tail, det_batch_run_info). */
#define DET_TAIL_MAX	 1024u
#define DET_STDERR_LINES 5

/* Progress, reported to the caller about every 100 ms and at the end. */
typedef struct det_progress {
	uint64_t done, planned; /* planned 0: budget */
	uint64_t bugs;		/* distinct bugs of the campaign so far */
	uint64_t failures;	/* runs judged failures (c->failure) */
	/* Serial runs: the most threads and scheduling points of a run. */
	uint32_t max_threads;
	uint64_t max_points;
	double elapsed_s, budget_s;
	double runs_per_s;
	uint64_t by_status[DET_ERROR + 1];
	/* Races left out as annotated benign (docs/annotations.md): each
	 * run's distinct site pairs, summed, and the runs that left any
	 * out. */
	uint64_t benign, benign_runs;
} det_progress;

typedef struct det_sweep_hooks {
	void (*progress)(void *ctx, const det_progress *pr);
	/* A new bug appeared (first detection in this campaign). */
	void (*bug)(void *ctx, const db_hit *hit);
	/* A run was recorded (r->id set), with the hits stored for it: its
	 * insert is in the open batch, which d's connection already sees.
	 * Called before bug for the run's new bugs. NULL: not wanted. */
	void (*run)(void *ctx, const db_run *r, const db_hit *hits,
		    uint32_t nhits);
	void *ctx;
	/* Required for a campaign with a schedule (c->schedule): what makes
	 * each run's scheduler, seeded with the run's seed. */
	const det_sched_maker *sched;
} det_sweep_hooks;

/* Run campaign c (already in the database: c->id set; its parameters
 * are c's fields) of program p to the end of its plan or budget, or
 * until det_sweep_stop. A campaign with a schedule runs every run serial
 * (hooks->sched) with the happens-before detector, records each run's
 * schedule (db_sched; the decisions of those that found a bug, failed
 * or did not end ok) and, with c->failure, judges each run by it. Runs
 * already recorded for c are skipped (the resume case). On return
 * c->status is "done" or "stopped" in the database. Errors: database
 * failures (the sweep stops; what was committed stays), WASM_NOMEM,
 * fork/pipe failures (WASM_IO). */
wasm_status det_sweep(db *d, det_prog *p, db_campaign *c,
		      const det_sweep_hooks *hooks, wasm_err *err);
/* The same for the plan indices [lo, hi) only (`sweep --plan-slice`):
 * each run keeps its plan index and seed, so slices swept apart and
 * imported into one workspace are the campaign swept whole. The campaign
 * ends "done" when every index of the slice is recorded. A budget
 * campaign has no plan to slice: WASM_INVALID. */
wasm_status det_sweep_slice(db *d, det_prog *p, db_campaign *c, uint64_t lo,
			    uint64_t hi, const det_sweep_hooks *hooks,
			    wasm_err *err);

/* A batch: `runs` runs of prog, run i under mask i % nmasks of `mask`
 * (nmasks masks of nsites bytes, one after the other; nmasks 0 means 1),
 * optionally with a concurrent breakpoint and judged by a failure, in
 * worker processes like a sweep's, nothing recorded: what reproduction
 * and minimisation measure. A stdout failure captures each run's
 * standard output (its first MiB) in the worker. on_run hears of each finished
 * run in the parent, in the order runs finish; its info (bugs included)
 * is valid during the call only. When on_run returns false no further
 * run starts; runs already out finish unreported. det_sweep_stop ends a
 * batch too (det_sweep_stopped then tells). Errors: WASM_NOMEM, and
 * fork/pipe failures (WASM_IO). */
typedef struct det_batch_run_info {
	uint32_t index; /* 0-based, in start order */
	det_status status;
	int exit_code;
	const char *msg;
	const char *stderr_tail; /* a run not ok: DET_TAIL_MAX bytes at most */
	uint64_t duration_ns;
	const det_violation *bugs;
	uint32_t nbugs;
	uint64_t holds; /* waits at the breakpoint */
	bool met;	/* two threads met at the breakpoint */
	bool failed;	/* with a failure: the run was one */
	/* A serial batch: what the run's schedule did (sched.events 0
	 * otherwise), the followed schedule's divergence (UINT64_MAX:
	 * none), its decisions (dec, ndec bytes, encoded as the maker
	 * does). */
	eng_sched_stats sched;
	uint64_t diverged;
	const uint8_t *dec;
	uint32_t ndec;
} det_batch_run_info;

typedef struct det_batch {
	det_prog *prog;
	const uint8_t *mask; /* nmasks x prog->sites.nsites bytes */
	uint32_t nmasks;
	const det_trigger *trigger; /* NULL: none */
	const det_failure *failure; /* NULL: none */
	const det_profile *profile; /* NULL: default */
	uint32_t delay;
	double timeout_s;
	const char *const *argv; /* argv[0] = program name */
	uint32_t argc;
	const uint8_t *in; /* every run's stdin (nin bytes); empty: nin 0 */
	uint32_t nin;
	const wasi_world *world; /* directories, environment, limits; NULL */
	uint32_t runs, jobs;
	/* Not NULL: every run is serial, its scheduler made with seed
	 * sched_seed (with the happens-before detector when the batch has
	 * no trigger). */
	const det_sched_maker *sched;
	uint64_t sched_seed;
	/* Serial runs under the collision detector (a serial sweep's):
	 * the mask's probes delay, letting others run. */
	bool collide;
	/* Serial runs: run i's scheduler seeded with
	 * det_seed_mix(sched_seed ^ det_seed_mix(i)), not sched_seed, so
	 * that repeated runs of a mask draw other schedules (minimize). */
	bool vary_seed;
	bool (*on_run)(void *ctx, const det_batch_run_info *r);
	void *ctx;
} det_batch;
wasm_status det_batch_run(const det_batch *b, wasm_err *err);

/* Ask the running det_sweep (or det_shared_sites) to stop. Safe in a
 * signal handler. */
void det_sweep_stop(void);
bool det_sweep_stopped(void);

#endif
