/*
 * minimize.c - iterative group sampling over delay sites (minimize.h).
 */
#include "replay/minimize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* z of a one-sided p < 1e-6: the paper's conservative threshold. */
#define SIGNIFICANT_Z 4.753

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Failures per mask of one batch. */
typedef struct tally {
	uint32_t nmasks;
	uint32_t *fails;
	uint32_t runs;
} tally;

static bool count_run(void *ctx, const det_batch_run_info *r)
{
	tally *t = ctx;

	t->runs++;
	if (r->failed)
		t->fails[r->index % t->nmasks]++;
	return true;
}

/* Run each of nmasks masks `each` times; failures per mask into fails.
 * Serial runs take their schedules from sched_seed. */
static wasm_status run_masks(det_prog *p, const rep_min_opts *o,
			     const uint8_t *masks, uint32_t nmasks,
			     uint32_t each, uint64_t sched_seed,
			     uint32_t *fails, uint64_t *runs, wasm_err *err)
{
	tally t = {nmasks, fails, 0};
	det_batch b = {0};
	wasm_status st;

	memset(fails, 0, nmasks * sizeof *fails);
	b.prog = p;
	b.mask = masks;
	b.nmasks = nmasks;
	b.failure = o->failure;
	b.profile = o->profile;
	b.delay = o->delay;
	b.timeout_s = o->timeout_s;
	b.argv = o->argv;
	b.argc = o->argc;
	b.in = o->in;
	b.nin = o->nin;
	b.world = o->world;
	b.runs = nmasks * each;
	b.jobs = o->jobs;
	b.sched = o->sched;
	b.sched_seed = sched_seed;
	b.collide = b.vary_seed = o->sched != NULL;
	b.on_run = count_run;
	b.ctx = &t;
	st = det_batch_run(&b, err);
	*runs += t.runs;
	return st;
}

/* A batch's schedule seed: drawn only for serial runs, so that a sampled
 * search partitions as it did before schedules. */
static uint64_t batch_seed(const rep_min_opts *o, det_rng *rng)
{
	return o->sched ? det_rng_next(rng) : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Section 5's test between a group elicting the failure `a` times and one
 * eliciting it `c` <= a times, each in n runs. */
static bool significant(uint32_t a, uint32_t c, uint32_t n)
{
	double sum = (double)a + c, den = sum * (2.0 * n - sum) / (2.0 * n);

	return den > 0 && ((double)a - c) / sqrt(den) > SIGNIFICANT_Z;
}

typedef struct group_score {
	uint32_t group, fails;
} group_score;

static int cmp_score(const void *a, const void *b)
{
	const group_score *x = a, *y = b;
	return (x->fails > y->fails) - (x->fails < y->fails);
}

/* Which groups of one iteration stay: keep[g]. Returns whether the
 * significance test decided. */
static bool choose_groups(const uint32_t *fails, uint32_t L, uint32_t repeat,
			  bool *keep)
{
	uint32_t nconf = (1u << L) - 2;
	group_score sc[8];
	uint32_t cut = 0; /* groups sc[cut..] stay */
	bool sig = false;

	for (uint32_t g = 0; g < L; g++) {
		sc[g].group = g;
		sc[g].fails = 0;
		for (uint32_t c = 1; c <= nconf; c++)
			if (c >> g & 1)
				sc[g].fails += fails[c - 1];
	}
	qsort(sc, L, sizeof *sc, cmp_score);
	/* Each group is armed in 2^(L-1) - 1 configurations. */
	for (uint32_t k = 0; k + 1 < L; k++)
		if (significant(sc[k + 1].fails, sc[k].fails,
				((1u << (L - 1)) - 1) * repeat)) {
			cut = k + 1;
			sig = true;
		}
	if (!sig && sc[0].fails < sc[L - 1].fails)
		while (cut < L && sc[cut].fails == sc[0].fails)
			cut++;
	for (uint32_t g = 0; g < L; g++)
		keep[g] = true;
	for (uint32_t k = 0; k < cut; k++)
		keep[sc[k].group] = false;
	return sig;
}

wasm_status rep_minimize(det_prog *p, const rep_min_opts *o,
			 rep_min_result *res, wasm_err *err)
{
	uint32_t n = p->sites.nsites,
		 L = o->groups ? o->groups : REP_MIN_GROUPS;
	uint32_t repeat = o->repeat ? o->repeat : REP_MIN_REPEAT;
	uint32_t check = o->check ? o->check : REP_MIN_CHECK;
	uint32_t nconf = (1u << L) - 2, dry = 0, ns;
	uint32_t *S = NULL, *fails = NULL;
	uint8_t *masks = NULL, *group = NULL;
	double t0 = now_s();
	det_rng rng;
	wasm_status st = WASM_OK;

	memset(res, 0, sizeof *res);
	if (L < 2 || L > 8)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "groups must be 2 to 8, not %u", L);
	ns = o->pool ? o->npool : n;
	S = wasm_malloc((ns ? ns : 1) * sizeof *S);
	group = wasm_malloc(ns ? ns : 1);
	fails = wasm_malloc(((size_t)1 << L) * sizeof *fails);
	/* Enough masks for an iteration and for the final subsets. */
	masks = wasm_malloc(((size_t)1 << L) * (n ? n : 1));
	if (!S || !group || !fails || !masks) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < ns; i++)
		S[i] = o->pool ? o->pool[i] : i;
	res->candidates = ns;
	det_rng_seed(&rng, o->seed);
	while (ns >= L) {
		rep_min_iter it = {.iteration = res->iterations + 1,
				   .before = ns};
		bool keep[8];
		uint32_t total = 0, kept = 0;
		uint64_t before = res->runs;

		if (det_sweep_stopped()) {
			res->stopped = true;
			break;
		}
		if (o->budget_s > 0 && now_s() - t0 > o->budget_s) {
			res->out_of_time = true;
			break;
		}
		/* A random partition into L groups of (nearly) equal size. */
		for (uint32_t i = ns; i > 1; i--) {
			uint32_t j = (uint32_t)det_rng_below(&rng, i), t;
			t = S[i - 1];
			S[i - 1] = S[j];
			S[j] = t;
		}
		for (uint32_t i = 0; i < ns; i++)
			group[i] = (uint8_t)(i % L);
		memset(masks, 0, (size_t)nconf * n);
		for (uint32_t c = 1; c <= nconf; c++)
			for (uint32_t i = 0; i < ns; i++)
				if (c >> group[i] & 1)
					masks[(size_t)(c - 1) * n + S[i]] = 1;
		if ((st = run_masks(p, o, masks, nconf, repeat,
				    batch_seed(o, &rng), fails, &res->runs,
				    err)))
			goto out;
		res->iterations++;
		for (uint32_t c = 0; c < nconf; c++)
			total += fails[c];
		if (total) {
			res->found = true;
			dry = 0;
			it.significant = choose_groups(fails, L, repeat, keep);
			for (uint32_t i = 0; i < ns; i++)
				if (keep[group[i]])
					S[kept++] = S[i];
			ns = kept;
		} else if (++dry >= REP_MIN_DRY && !res->found) {
			it.after = ns;
			it.runs = (uint32_t)(res->runs - before);
			it.total_runs = res->runs;
			if (o->on_iter)
				o->on_iter(o->ctx, &it);
			goto out;
		}
		it.after = ns;
		it.failures = total;
		it.runs = (uint32_t)(res->runs - before);
		it.total_runs = res->runs;
		if (o->on_iter)
			o->on_iter(o->ctx, &it);
	}
	if (!res->found || res->stopped || !ns)
		goto out;
	if (ns >= L) {
		/* Out of time with L sites or more left (a failure that every
		 * group elicits alike): those are the set; 2^ns subsets are
		 * not to be tried. */
		if (!(res->sites = wasm_malloc(ns * sizeof *res->sites))) {
			st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
			goto out;
		}
		memcpy(res->sites, S, ns * sizeof *res->sites);
		res->nsites = ns;
		qsort(res->sites, res->nsites, sizeof *res->sites, cmp_u32);
	} else {
		/* Fewer than L left: every non-empty subset; the smallest
		 * whose failures are within two standard deviations
		 * (Poisson) of the most any subset had wins, so that a site
		 * along for the ride goes: a site the failure needs makes a
		 * gap far wider than that. */
		uint32_t nsub = (1u << ns) - 1, best = 0, top = 0;
		memset(masks, 0, (size_t)nsub * n);
		for (uint32_t c = 1; c <= nsub; c++)
			for (uint32_t i = 0; i < ns; i++)
				if (c >> i & 1)
					masks[(size_t)(c - 1) * n + S[i]] = 1;
		if ((st = run_masks(p, o, masks, nsub, 8 * repeat,
				    batch_seed(o, &rng), fails, &res->runs,
				    err)))
			goto out;
		for (uint32_t c = 1; c <= nsub; c++)
			top = fails[c - 1] > top ? fails[c - 1] : top;
		for (uint32_t c = 1; c <= nsub; c++)
			if (fails[c - 1] &&
			    fails[c - 1] >= top - 2 * sqrt(top) &&
			    (!best ||
			     __builtin_popcount(c) < __builtin_popcount(best) ||
			     (__builtin_popcount(c) ==
				  __builtin_popcount(best) &&
			      fails[c - 1] > fails[best - 1])))
				best = c;
		/* Nothing failed in the last round: keep all of S. */
		if (!best)
			best = nsub;
		res->sites = wasm_malloc(ns * sizeof *res->sites);
		if (!res->sites) {
			st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
			goto out;
		}
		for (uint32_t i = 0; i < ns; i++)
			if (best >> i & 1)
				res->sites[res->nsites++] = S[i];
		qsort(res->sites, res->nsites, sizeof *res->sites, cmp_u32);
	}
	/* The set's own failure rate. */
	{
		uint64_t ignored = 0;
		memset(masks, 0, n);
		for (uint32_t i = 0; i < res->nsites; i++)
			masks[res->sites[i]] = 1;
		if ((st = run_masks(p, o, masks, 1, check, o->sched_seed, fails,
				    &ignored, err)))
			goto out;
		res->check_runs = (uint32_t)ignored;
		res->check_failures = fails[0];
	}
	/* Random subsets of the same size, for comparison: one mask each. */
	for (uint32_t done = 0; done < o->baseline && !det_sweep_stopped();) {
		uint32_t chunk = o->baseline - done < (1u << L)
				     ? o->baseline - done
				     : (1u << L);
		uint64_t runs = 0;
		memset(masks, 0, (size_t)chunk * n);
		for (uint32_t m = 0; m < chunk; m++) {
			uint32_t *pool = S; /* reused as scratch */
			uint32_t np = o->pool ? o->npool : n;
			for (uint32_t i = 0; i < np; i++)
				pool[i] = o->pool ? o->pool[i] : i;
			for (uint32_t k = 0; k < res->nsites && k < np; k++) {
				uint32_t j = k + (uint32_t)det_rng_below(
						     &rng, np - k),
					 t = pool[k];
				pool[k] = pool[j];
				pool[j] = t;
				masks[(size_t)m * n + pool[k]] = 1;
			}
		}
		if ((st = run_masks(p, o, masks, chunk, 1, batch_seed(o, &rng),
				    fails, &runs, err)))
			goto out;
		for (uint32_t m = 0; m < chunk; m++)
			res->base_failures += fails[m];
		res->base_runs += (uint32_t)runs;
		done += chunk;
	}
	if (det_sweep_stopped())
		res->stopped = true;
out:
	wasm_free(S);
	wasm_free(group);
	wasm_free(fails);
	wasm_free(masks);
	return st;
}

void rep_min_result_free(rep_min_result *res)
{
	wasm_free(res->sites);
	memset(res, 0, sizeof *res);
}
