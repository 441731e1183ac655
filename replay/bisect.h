/*
 * bisect.h - the one scheduling decision that decides between a failing
 * and a passing serial run of the same program (after Hermit's analyze).
 *
 * Two schedules F (its run fails: the spec's race is detected, or its
 * failure or ending happens) and P (it does not) differ in some of
 * their decisions (rep_decision: from point e on, thread t runs). Sort
 * the points where they differ, c_1 < ... < c_m, and let hybrid H_k
 * follow F's decisions before c_(k+1) and P's from there: H_0 is P,
 * H_m is F. A binary search over k, one run per probe (a serial run is
 * deterministic: one run answers), finds adjacent H_k passing and
 * H_(k+1) failing, which differ only at point c_(k+1): the deciding
 * switch. That takes 2 + ceil(log2 m) runs (both ends are run first, to
 * check that F fails and P passes).
 *
 * rep_bisect_flip then compares the two hybrids' events (trace.h) for
 * what the switch reordered: the first two accesses of two threads to
 * the same bytes, one a write, that happen in one order in the failing
 * run and in the other order in the passing one. An access is known
 * across the two runs by its thread and its rank among that thread's
 * accesses; it happens when its thread next runs after its point (at
 * once, unless the thread was switched out there).
 *
 * Ownership: a rep_bisect_result owns its two hybrids
 * (rep_bisect_clear). Errors: WASM_INVALID when F does not fail, P does
 * not pass, or they do not differ; rep_replay's; WASM_NOMEM.
 */
#ifndef HEISEN_REPLAY_BISECT_H
#define HEISEN_REPLAY_BISECT_H

#include "replay/sched.h"
#include "replay/trace.h"

typedef struct rep_bisect_result {
	uint32_t runs;	/* schedules run */
	size_t differ;	/* m: the points where F and P decide apart */
	uint64_t point; /* the deciding point, c_(k+1) */
	bool fail_has;	/* F decides at it: fail_dec */
	bool pass_has;	/* P decides at it: pass_dec */
	rep_decision fail_dec, pass_dec;
	/* H_(k+1), which fails, and H_k, which passes. */
	rep_decision *failing, *passing;
	size_t nfailing, npassing;
} rep_bisect_result;

/* fail's spec says what failing is; its decisions are F (it must have
 * them: has_dec); pass[0..npass) is P. */
wasm_status rep_bisect(const rep_spec *fail, const rep_decision *pass,
		       size_t npass, det_prog *p, rep_bisect_result *r,
		       wasm_err *err);
void rep_bisect_clear(rep_bisect_result *r);

/* In fail and pass (the two hybrids' events), the first pair of
 * accesses whose order the switch reversed: *x the one that happens
 * first in the failing run, *y the one after it (rows of fail). False
 * when no such pair is there (a failure that is not two accesses in
 * the other order; both then UINT64_MAX). WASM_NOMEM as false with
 * *nomem set. */
bool rep_bisect_flip(const rep_trace *fail, const rep_trace *pass, uint64_t *x,
		     uint64_t *y, bool *nomem);

#endif
