/*
 * shrink.h - a serial run's schedule shrunk to the fewest decisions that
 * still reproduce it, so that a schedule repro is short to read.
 *
 * Delta debugging over the decision list (Zeller and Hildebrandt's
 * ddmin, complement removal): drop a chunk of decisions, run the rest
 * once with the fixed strategy (a serial run is deterministic: one run
 * answers), keep the drop when the spec still reproduces (its race is
 * detected; for a run without a race, its failure or its ending happens
 * again), and halve the chunk when no drop of that size works. Where the
 * candidate has no decision the running thread goes on, so every dropped
 * decision is a context switch fewer.
 *
 * Each candidate runs in a worker process (rep_replay with one run). The
 * result is what the last reproducing candidate's run did: its decisions
 * as made (switches forced by a blocked or ended thread included), its
 * points, switches and digest, so that it replays exactly.
 *
 * Ownership: rep_shrink replaces s->dec (and points, switches, digest)
 * on success and leaves s as it was on error. Errors: WASM_INVALID when
 * s is not a schedule or its own decisions do not reproduce; those of
 * rep_replay; WASM_NOMEM.
 */
#ifndef HEISEN_REPLAY_SHRINK_H
#define HEISEN_REPLAY_SHRINK_H

#include "replay/replay.h"

typedef struct rep_shrink_opts {
	uint32_t max_tests; /* candidate runs at most (0: 500) */
	double budget_s;    /* and seconds at most (0: 60) */
} rep_shrink_opts;

typedef struct rep_shrink_result {
	size_t before, after; /* decisions */
	uint32_t switches_before, switches_after;
	uint32_t tests; /* candidate runs */
	bool complete;	/* ddmin ended, not the budget: 1-minimal */
} rep_shrink_result;

/* One run of schedule spec s (a worker process, as the shrinking's
 * candidates and bisect's hybrids run): following the decisions
 * d[0..n), or with d NULL as s says (its decisions, or without them its
 * strategy and seed). *t says whether it reproduced s's race or ending
 * (any path: the digest is not required), how it ended and its own
 * decisions, encoded (t->dec, wasm_free). */
typedef struct rep_trial {
	bool reproduced;
	eng_sched_stats st;
	det_status status;
	int exit_code;
	uint8_t *dec;
	size_t ndec;
	bool nomem;
} rep_trial;
wasm_status rep_sched_try(const rep_spec *s, det_prog *p, const rep_decision *d,
			  size_t n, rep_trial *t, wasm_err *err);

wasm_status rep_shrink(rep_spec *s, det_prog *p, const rep_shrink_opts *o,
		       rep_shrink_result *r, wasm_err *err);

#endif
