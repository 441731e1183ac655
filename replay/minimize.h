/*
 * minimize.h - the smallest set of delay sites that elicits a failure
 * (a trap, an exit code, an output pattern): iterative group sampling,
 * papers/igs-active-sampling.txt, Algorithm 1 with the significance test
 * of its section 5.
 *
 * Delays are the race probe's (det_probe at the armed sites), so a site
 * "instrumented" in the paper's sense is a site armed in the mask. Each
 * iteration partitions the candidate set S at random into L groups, runs
 * every configuration of the groups but none and all (2^L - 2 masks,
 * `repeat` runs each, one worker batch), and scores a group by the
 * failures of the configurations that armed it. Groups whose failure
 * count is significantly below another's (normal approximation of the
 * binomial, p < 1e-6: z > 4.753) are discarded; without such a gap, the
 * groups with the fewest failures are (none when all tie, nor in an
 * iteration without a failure: S is partitioned again). When S has
 * fewer than L sites, every non-empty subset of it runs 8 x repeat times
 * and the smallest whose failures are within two standard deviations of
 * the most any subset had wins; it is then run `check` times for its
 * failure rate.
 *
 * With a scheduler (sched) every run is serial under the collision
 * detector, as a serial sweep's: only armed sites switch threads (a
 * delay sleeps while the others run), so a failure that needs an
 * interleaving shows only when its sites are armed, whatever the load of
 * the machine. Each batch of the search draws its runs' schedule seeds
 * from the partition seed; the result's check runs with sched_seed
 * (run i: det_batch's vary_seed), as a replay of the saved set does.
 *
 * Ownership: rep_min_result owns sites (rep_min_result_free).
 * Errors: as det_batch_run's; the search itself never fails: a failure
 * that never shows ends it with found false.
 */
#ifndef HEISEN_REPLAY_MINIMIZE_H
#define HEISEN_REPLAY_MINIMIZE_H

#include "detector/campaign.h"

#define REP_MIN_GROUPS 4u
#define REP_MIN_REPEAT 4u
#define REP_MIN_CHECK  20u
/* Iterations in a row without a single failure before the search gives
 * up (S is repartitioned each time). */
#define REP_MIN_DRY 3u

/* One iteration, for progress. */
typedef struct rep_min_iter {
	uint32_t iteration;
	uint32_t before, after;	 /* |S| */
	uint32_t failures, runs; /* in this iteration */
	uint64_t total_runs;
	bool significant; /* the section 5 test decided */
} rep_min_iter;

typedef struct rep_min_opts {
	const det_failure *failure;
	uint32_t groups; /* L (2 to 8); 0: REP_MIN_GROUPS */
	uint32_t repeat; /* runs per configuration; 0: REP_MIN_REPEAT */
	uint32_t check;	 /* runs of the result; 0: REP_MIN_CHECK */
	double budget_s; /* stop after this long (0: no limit) */
	uint64_t seed;	 /* of the partitions */
	uint32_t delay;
	const det_profile *profile;
	/* Not NULL: serial runs, schedules of this maker (see above). */
	const det_sched_maker *sched;
	uint64_t sched_seed;
	double timeout_s;
	const char *const *argv;
	uint32_t argc;
	const uint8_t *in; /* every run's stdin (nin bytes; 0: empty) */
	uint32_t nin;
	const wasi_world *world; /* directories, environment, limits; NULL */
	uint32_t jobs;
	const uint32_t *pool; /* candidate sites; NULL: every site */
	uint32_t npool;
	/* Runs of random subsets of the result's size from the pool, to
	 * compare with (0: none). */
	uint32_t baseline;
	void (*on_iter)(void *ctx, const rep_min_iter *it);
	void *ctx;
} rep_min_opts;

typedef struct rep_min_result {
	uint32_t *sites; /* the set found, ascending */
	uint32_t nsites;
	bool found;   /* the failure appeared at all */
	bool stopped; /* Ctrl-C (det_sweep_stop) */
	bool out_of_time;
	uint32_t iterations;
	uint64_t runs; /* runs of the search, the check excluded */
	uint32_t check_runs, check_failures;
	uint32_t base_runs, base_failures;
	uint32_t candidates; /* |S| at the start */
} rep_min_result;

wasm_status rep_minimize(det_prog *p, const rep_min_opts *o,
			 rep_min_result *res, wasm_err *err);
void rep_min_result_free(rep_min_result *res);

#endif
