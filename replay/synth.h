/*
 * synth.h - execution synthesis (after ESD, Zamfir and Candea, EuroSys
 * 2010): from a bug report, a serial execution that makes the bug
 * happen, as a schedule that replays exactly (replay/sched.h).
 *
 * ESD searches inputs and schedules with symbolic execution; heisen
 * searches schedules only, since its reports come from the same program
 * run on the same inputs: a data race from ThreadSanitizer or heisen
 * (replay/tsan.h), a bug of the workspace, or a failure (a trap, an exit
 * code, an output pattern) optionally at a named function or line.
 *
 * How it works:
 *   1. The target. Each access of the report maps to the module's probe
 *      sites through DWARF: the sites on its first frame whose file base
 *      name and line the program has (frame #0 when it is the program's
 *      own code; deeper frames when #0 is in a library the Wasm build
 *      does not share), else the sites of the first frame's function
 *      whose name the program has. A report whose frames the program
 *      has none of is refused, naming them.
 *   2. The search, run after run (each serial, under the happens-before
 *      detector, in a worker process). First the targeted strategy: a
 *      thread about to make a probed access on either of the report's
 *      lines is held (not run while another can: a concurrent
 *      breakpoint, deterministic here) until another thread is about to
 *      make an access on the other line at the same address; that
 *      thread goes first and the held one at once after it, so nothing
 *      either does can order the two. A hold ends after `bound` points
 *      or when the held thread is the only one that can run, so it
 *      never deadlocks. Runs differ in which reach of the lines they
 *      hold at (the first, the second, ...), which side they may hold
 *      and how often they switch elsewhere. Then PCT (depth 2 and 3)
 *      and chaos with new seeds, for bugs the breakpoint cannot set up.
 *   3. A run matches when the detector reports a race between a site of
 *      each line (for a failure: the run fails, at the named function
 *      when --at names one and the failure is a trap). The first match
 *      is the result, as a REP_SCHEDULE spec ready to shrink
 *      (replay/shrink.h) and write (rep_write).
 *
 * Limitations: the call stacks of a report beyond the frame that maps
 * are not used to choose threads (a thread's Wasm stack is not known at
 * a scheduling point without unwinding it); a line that the native and
 * the Wasm compilers attribute differently maps by function only, and
 * then the match asks for a race between those functions; a race that
 * needs a particular input is not found (inputs are the run's own).
 *
 * Ownership: a rep_synth_target owns its site sets
 * (rep_synth_target_fini); a rep_synth_result owns its spec
 * (rep_synth_result_fini). Errors: WASM_INVALID for a report that does
 * not fit the program (the message names the frames), WASM_NOMEM, and
 * those of det_batch_run.
 */
#ifndef HEISEN_REPLAY_SYNTH_H
#define HEISEN_REPLAY_SYNTH_H

#include "replay/replay.h"
#include "replay/tsan.h"

/* One access of the target: the program's sites it maps to. */
typedef struct rep_synth_side {
	uint8_t *on;	/* nsites bytes: 1 for the access's sites */
	uint32_t count; /* sites set in on */
	char file[128]; /* the mapped frame's file, base name ("" none) */
	uint32_t line;	/* its line; 0 when mapped by function */
	char func[128]; /* its function */
	int32_t frame;	/* the report's frame that mapped (-1: sites) */
} rep_synth_side;

typedef struct rep_synth_target {
	uint32_t nsites;
	rep_synth_side side[2];
} rep_synth_target;

/* The target of race r (replay/tsan.h) in program p. WASM_INVALID when an
 * access maps to nothing: the message lists its frames as FILE:LINE
 * (FUNCTION). */
wasm_status rep_synth_target_race(rep_synth_target *t, const det_prog *p,
				  const rep_tsan_race *r, wasm_err *e);
/* The target of a known pair of sites (a bug of the workspace): each side
 * every site on the same source line as s0 (s1), or the site alone when
 * it has no line. */
wasm_status rep_synth_target_sites(rep_synth_target *t, const det_prog *p,
				   uint32_t s0, uint32_t s1, wasm_err *e);
/* The target of --at: FUNCTION, or FILE:LINE (FILE matched by base
 * name), both sides the same sites. WASM_INVALID when p has none. */
wasm_status rep_synth_target_at(rep_synth_target *t, const det_prog *p,
				const char *at, wasm_err *e);
void rep_synth_target_fini(rep_synth_target *t);

/* Progress, after each run. */
typedef struct rep_synth_progress {
	uint32_t runs;
	double elapsed_s, budget_s;
	const char *strategy; /* of the last run: "breakpoint", "pct:2", ... */
	uint32_t best;	      /* the best match so far: 2 both lines, 1 one */
} rep_synth_progress;

typedef struct rep_synth_opts {
	double budget_s;     /* > 0 */
	uint64_t seed;	     /* of the search's own choices */
	uint64_t run_seed;   /* every run's random_get stream */
	const char *failure; /* NULL: the target's race; else a failure */
	const char *at_func; /* failure: a trap must name this function */
	const char *args;    /* program arguments, NUL-separated */
	uint32_t nargs;
	const uint8_t *input; /* every run's stdin */
	uint32_t ninput;
	double timeout_s; /* a run's (0: 10 s) */
	void (*progress)(void *ctx, const rep_synth_progress *pr);
	void *ctx;
} rep_synth_opts;

typedef struct rep_synth_result {
	bool found;
	uint32_t runs; /* runs tried */
	double elapsed_s;
	char strategy[32]; /* of the matching run (or the last one) */
	uint32_t best;	   /* 2: found; 1: a race on one of the lines */
	/* The closest race seen when not found (has_closest): its sites. */
	bool has_closest;
	uint32_t closest[2];
	uint32_t failures; /* failure mode: runs that failed elsewhere */
	uint64_t run_ns;   /* found: the matching run's wall time */
	/* found: the matching run as a schedule spec (mode REP_SCHEDULE,
	 * strategy fixed, its decisions, points, switches and digest; the
	 * race's sites, or whole_run with the failure). The program fields
	 * are left to the caller. */
	rep_spec spec;
} rep_synth_result;

/* Search for an execution of p that makes t's race (or o->failure, then
 * t may be NULL or the --at target that directs the holds) happen, until
 * one is found or o->budget_s passes. */
wasm_status rep_synthesize(det_prog *p, const rep_synth_target *t,
			   const rep_synth_opts *o, rep_synth_result *r,
			   wasm_err *e);
void rep_synth_result_fini(rep_synth_result *r);

#endif
