/*
 * simulate.c - budget simulation over recorded runs (stats.h).
 */
#include "detector/stats.h"

#include <stdlib.h>
#include <string.h>

static const char *const strategy_names[DET_SIM_COUNT] = {
    "homogeneous", "density", "profile", "both"};

const char *det_strategy_name(det_strategy s)
{
	return (unsigned)s < DET_SIM_COUNT ? strategy_names[s] : "?";
}

bool det_strategy_parse(const char *name, det_strategy *out)
{
	for (int i = 0; i < DET_SIM_COUNT; i++)
		if (!strcmp(name, strategy_names[i])) {
			*out = (det_strategy)i;
			return true;
		}
	return false;
}

static bool in_strategy(const det_sim_input *in, det_strategy s,
			const det_sim_run *r)
{
	bool home = r->row == in->home_row;
	bool full = r->density_bp == DET_DENSITY_FULL;

	switch (s) {
	case DET_SIM_HOMOGENEOUS: return home && full;
	case DET_SIM_DENSITY: return home;
	case DET_SIM_PROFILE: return full;
	case DET_SIM_BOTH:
	case DET_SIM_COUNT: break;
	}
	return true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Runs of the strategy grouped by cell: order[] holds run indices, cell
 * c's runs are order[start[c] .. start[c + 1]). */
typedef struct cells {
	uint32_t *order, *start, n;
} cells;

static int by_cell(const void *a, const void *b, void *ctx)
{
	const det_sim_run *runs = ctx;
	const det_sim_run *x = &runs[*(const uint32_t *)a];
	const det_sim_run *y = &runs[*(const uint32_t *)b];

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return (x->density_bp > y->density_bp) -
	       (x->density_bp < y->density_bp);
}

wasm_status det_simulate(const det_sim_input *in, det_strategy s,
			 double budget_s, uint32_t trials, uint64_t seed,
			 det_sim_result *out, wasm_err *err)
{
	uint32_t words = (in->nbugs + 63) / 64, nsel = 0, *count = NULL;
	uint64_t *found = NULL, budget_us = (uint64_t)(budget_s * 1e6);
	cells c = {0};
	double runs = 0;
	det_rng rng;
	wasm_status st = WASM_OK;

	memset(out, 0, sizeof *out);
	if (!trials || !(budget_s > 0))
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "a simulation needs trials and a budget");
	c.order = wasm_malloc((in->nruns ? in->nruns : 1) * sizeof *c.order);
	c.start = wasm_malloc((in->nruns + 1) * sizeof *c.start);
	count = wasm_malloc((trials ? trials : 1) * sizeof *count);
	found = wasm_malloc((words ? words : 1) * sizeof *found);
	out->found = wasm_calloc(in->nbugs ? in->nbugs : 1, sizeof *out->found);
	if (!c.order || !c.start || !count || !found || !out->found) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < in->nruns; i++)
		if (in_strategy(in, s, &in->runs[i]))
			c.order[nsel++] = i;
	if (!nsel) {
		out->empty = true;
		goto out;
	}
	qsort_r(c.order, nsel, sizeof *c.order, by_cell, (void *)in->runs);
	for (uint32_t i = 0; i < nsel; i++)
		if (!i ||
		    by_cell(&c.order[i - 1], &c.order[i], (void *)in->runs))
			c.start[c.n++] = i;
	c.start[c.n] = nsel;
	out->cells = c.n;
	det_rng_seed(&rng, seed);
	for (uint32_t t = 0; t < trials; t++) {
		uint64_t spent = 0;
		uint32_t got = 0;
		memset(found, 0, words * sizeof *found);
		for (;;) {
			uint32_t cell = (uint32_t)det_rng_below(&rng, c.n);
			uint32_t k = c.start[cell + 1] - c.start[cell];
			const det_sim_run *r =
			    &in->runs[c.order[c.start[cell] +
					      det_rng_below(&rng, k)]];
			/* A run that took no measurable time still costs a
			 * microsecond: a budget always ends. */
			spent += r->duration_us ? r->duration_us : 1;
			if (spent > budget_us)
				break;
			runs++;
			for (uint32_t b = 0; b < r->n; b++) {
				uint32_t bug = in->bugs[r->first + b];
				found[bug / 64] |= 1ull << (bug % 64);
			}
		}
		for (uint32_t b = 0; b < in->nbugs; b++)
			if (found[b / 64] >> (b % 64) & 1) {
				got++;
				out->found[b] += 1;
			}
		count[t] = got;
	}
	for (uint32_t b = 0; b < in->nbugs; b++)
		out->found[b] /= trials;
	{
		double sum = 0;
		for (uint32_t t = 0; t < trials; t++)
			sum += count[t];
		out->mean = sum / trials;
	}
	qsort(count, trials, sizeof *count, cmp_u32);
	out->p5 = count[(uint32_t)(0.05 * (trials - 1))];
	out->p95 = count[(uint32_t)(0.95 * (trials - 1))];
	out->runs_per_trial = runs / trials;
out:
	if (st)
		det_sim_free(out);
	wasm_free(c.order);
	wasm_free(c.start);
	wasm_free(count);
	wasm_free(found);
	return st;
}

void det_sim_free(det_sim_result *r)
{
	wasm_free(r->found);
	r->found = NULL;
}
