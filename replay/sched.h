/*
 * sched.h - schedules for serial execution (core/engine.h's eng_sched):
 * the strategies that choose which thread runs at each scheduling point,
 * the record of what they chose, and schedule files that replay it.
 *
 * Strategies (rep_sched_parse reads their names):
 *   random[:P]  Miri's: at each point, with probability P (default 0.05)
 *               the turn goes to another runnable thread, uniformly.
 *   pct:D[:K]   PCT (Burckhardt et al., ASPLOS 2010): each thread gets a
 *               random priority when it first appears, the highest
 *               runnable one runs, and at D-1 change points drawn
 *               uniformly from the first K points (default 100000) the
 *               running thread drops below every other. A bug of depth D
 *               among n threads and k points is hit with probability at
 *               least 1/(n k^(D-1)) per run.
 *   chaos       rr's chaos mode: now and then (1 point in 2 000) a
 *               runnable thread is starved, not run while another can,
 *               for a span of points drawn log-uniformly from 1 to
 *               50 000, starved spans capped at half the run; otherwise
 *               the running thread goes on, switching with probability
 *               0.01. Starving finds bugs that need one thread to fall
 *               far behind (rr found some that uniform random priorities
 *               missed in thousands of runs).
 *   fixed       follow a recorded decision list (a schedule file).
 * random, pct and chaos never let a thread run more than 1 000 points
 * in a row while another could run (pct then lowers it below every
 * other), so a spin-wait on a lower-priority thread ends.
 * Every strategy records a decision whenever the thread that runs next is
 * not the one that reached the point (a switch, or the successor of a
 * thread that blocked or ended). fixed makes exactly those choices and
 * otherwise lets the current thread go on, or, when it cannot, the
 * lowest runnable id: so replaying the decisions of any run makes the
 * same choices at every point, and the run's digest proves it.
 *
 * Schedule files are text: a first line "heisen-schedule 1", then
 * `key = value` lines: strategy, seed, points, switches, digest (16 hex
 * digits) and decisions (EVENT:THREAD pairs separated by spaces, events
 * ascending). rep_sched_read refuses, naming the line, a file that is
 * truncated, edited into nonsense or of a future version.
 *
 * Ownership: a rep_sched owns its decisions; a rep_sched_file owns its
 * arrays (rep_sched_file_clear). Errors: WASM_INVALID for a bad strategy
 * or file (the message says which word or line and why), WASM_IO,
 * WASM_NOMEM.
 */
#ifndef HEISEN_REPLAY_SCHED_H
#define HEISEN_REPLAY_SCHED_H

#include "core/engine.h"
#include "detector/race.h"

#include <stddef.h>
#include <stdint.h>

typedef enum rep_strategy {
	REP_SCHED_RANDOM,
	REP_SCHED_PCT,
	REP_SCHED_FIXED,
	REP_SCHED_CHAOS,
} rep_strategy;

typedef struct rep_sched_spec {
	rep_strategy strategy;
	double p;	/* random: the chance of a switch per point */
	uint32_t depth; /* pct: D */
	uint64_t k;	/* pct: the points change points are drawn from */
	uint64_t seed;
} rep_sched_spec;

/* "random", "random:0.1", "pct:3", "pct:3:50000", "chaos", "fixed" into *out
 * (seed left as it was). */
wasm_status rep_sched_parse(const char *s, rep_sched_spec *out, wasm_err *e);
/* The spec's name as rep_sched_parse reads it, into buf. */
void rep_sched_name(const rep_sched_spec *s, char *buf, size_t cap);

/* One decision: from point `event` on, thread `thread` runs. */
typedef struct rep_decision {
	uint64_t event;
	uint32_t thread;
} rep_decision;

typedef struct rep_sched rep_sched;
/* A scheduler for one run. With strategy fixed, it follows d[0..n)
 * (copied; events ascending, checked by the caller: rep_sched_read). */
rep_sched *rep_sched_new(const rep_sched_spec *s, const rep_decision *d,
			 size_t n);
void rep_sched_free(rep_sched *s);
/* The hook to hand to eng_proc_set_sched (through det_run_opts). */
eng_sched rep_sched_hook(rep_sched *s);
/* The decisions made so far (owned by s). */
const rep_decision *rep_sched_decisions(const rep_sched *s, size_t *n);
/* fixed: the first point where the recorded decision could not be
 * followed (its thread could not run), or UINT64_MAX when none; the run
 * then went on by the default rule and is not the recorded one. */
uint64_t rep_sched_diverged(const rep_sched *s);
/* fixed, after the run (st its stats): whether the followed list made
 * sense for this run. False, with why (cap bytes), for a decision that
 * names a thread the run never had or lies past its last point: a
 * schedule edited or made for another program, not a divergence. */
bool rep_sched_fits(const rep_sched *s, const eng_sched_stats *st, char *why,
		    size_t cap);
/* The same for a decision list d[0..n) and a run's stats. */
bool rep_sched_list_fits(const rep_decision *d, size_t n,
			 const eng_sched_stats *st, char *why, size_t cap);
/* Out of memory while recording: the decision list is incomplete. */
bool rep_sched_nomem(const rep_sched *s);

/* Decisions as the workspace keeps them (db_sched.decisions): for each,
 * its event's distance from the previous decision's (the first's from
 * 0), then its thread, both unsigned LEB128. decode refuses (WASM_INVALID,
 * naming the byte) bytes that are truncated, overlong, or whose events do
 * not ascend; *d is wasm_malloc'd (NULL when n is 0). */
void rep_sched_encode(const rep_decision *d, size_t n, wasm_buf *out);
wasm_status rep_sched_decode(const uint8_t *p, size_t len, rep_decision **d,
			     size_t *n, wasm_err *e);

/* What campaigns and batches make their runs' schedulers with
 * (det_sched_maker): spec's strategy seeded with each run's seed, or for
 * fixed, following d[0..n) (not copied: they must outlive the maker's
 * use). The maker's decisions are rep_sched_encode's. */
typedef struct rep_sched_factory {
	rep_sched_spec spec;
	const rep_decision *d;
	size_t n;
	det_sched_maker maker;
} rep_sched_factory;
void rep_sched_factory_init(rep_sched_factory *f, const rep_sched_spec *spec,
			    const rep_decision *d, size_t n);
/* A det_sched_maker's finish for a scheduler that is a rep_sched (the
 * factory's, and any maker whose make returns rep_sched_new's): its
 * decisions encoded into out, its divergence, then freed. */
bool rep_sched_maker_finish(void *state, wasm_buf *out, uint64_t *diverged);

/* A schedule file's content. */
typedef struct rep_sched_file {
	rep_sched_spec spec; /* as recorded (strategy is what made it) */
	uint64_t points, digest;
	uint32_t switches;
	rep_decision *d;
	size_t n;
} rep_sched_file;
wasm_status rep_sched_write(const char *path, const rep_sched_file *f,
			    wasm_err *e);
/* The decision list as files write it: " EVENT:THREAD" each, appended
 * to out; and back (a NUL-terminated list into f->d, f->n; the other
 * fields zero). */
void rep_sched_format(const rep_decision *d, size_t n, wasm_buf *out);
wasm_status rep_sched_decisions_parse(const char *text, rep_sched_file *f,
				      wasm_err *e);
/* Parse text[0..len) (named `name` in messages). */
wasm_status rep_sched_parse_file(const char *text, size_t len, const char *name,
				 rep_sched_file *f, wasm_err *e);
wasm_status rep_sched_read(const char *path, rep_sched_file *f, wasm_err *e);
void rep_sched_file_clear(rep_sched_file *f);

#endif
