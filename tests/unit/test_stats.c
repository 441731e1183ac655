/*
 * test_stats.c - the variates and the heisen factor (detector/stats.h)
 * against known answers: the Beta sampler's moments, F of constant
 * observability, of two levels of observability against their exact
 * coefficient of variation, the same F bit for bit from the same seed (and on
 * every build: a fixed value), and refused input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "detector/stats.h"

#include <math.h>
#include <string.h>

/* Mean and variance of 10^6 draws within 1 % of Beta(a, b)'s. */
static void beta_moments(double a, double b)
{
	const uint32_t n = 1000000;
	double mean = a / (a + b),
	       var = a * b / ((a + b) * (a + b) * (a + b + 1));
	double sum = 0, sq = 0, m, v;
	det_rng r;

	det_rng_seed(&r, 42);
	for (uint32_t i = 0; i < n; i++) {
		double x = det_rng_beta(&r, a, b);
		assert_true(x >= 0 && x <= 1);
		sum += x;
		sq += x * x;
	}
	m = sum / n;
	v = sq / n - m * m;
	printf(
	    "  Beta(%g, %g): mean %.6f (exact %.6f), var %.3g (exact %.3g)\n",
	    a, b, m, mean, v, var);
	assert_true(fabs(m - mean) <= 0.01 * mean);
	assert_true(fabs(v - var) <= 0.01 * var);
}

static void beta_sampler_moments(void **state)
{
	beta_moments(0.3, 1);
	beta_moments(1, 1);
	beta_moments(5, 200);
	beta_moments(200, 5);
}

static void gamma_below_one_has_its_mean(void **state)
{
	det_rng r;
	double sum = 0;

	det_rng_seed(&r, 7);
	for (int i = 0; i < 1000000; i++)
		sum += det_rng_gamma(&r, 0.2);
	assert_true(fabs(sum / 1e6 - 0.2) < 0.002);
}

/* Cells of observability x (per cell) at the given densities: K is the
 * expected count N x Phi, rounded, for a bug of two distinct sites. */
static void fill(det_kn *c, uint32_t n, const uint32_t *dens_bp,
		 const double *x, uint64_t runs)
{
	for (uint32_t i = 0; i < n; i++) {
		double d = dens_bp[i] / 10000.0;
		c[i].density_bp = dens_bp[i];
		c[i].n = runs;
		c[i].k = (uint64_t)llround((double)runs * x[i] * d * d);
		c[i].row = 0;
	}
}

/* (a) Constant observability over 20 cells, N = 2000 each: F < 0.1. The
 * densities are those of two profiles from 55 % up: at 5 %, Phi of a
 * two-site bug is 0.0025 and a cell's 2000 runs hold 2 or 3 detections,
 * whose posterior alone spreads X by half. */
static void constant_observability_is_not_heisen(void **state)
{
	uint32_t dens[20];
	double x[20];
	det_kn c[20];
	det_factor f;
	wasm_err e;

	for (int i = 0; i < 20; i++) {
		dens[i] = 5500u + 500u * (uint32_t)(i % 10); /* 55 ... 100 % */
		x[i] = 0.5;
	}
	fill(c, 20, dens, x, 2000);
	assert_int_equal(det_factor_estimate(c, 20, false, &(det_factor_opts){0, 1, 0}, &f, &e),
			 WASM_OK);
	printf("  constant: F %.4f [%.4f, %.4f], naive %.4f\n", f.map, f.lo,
	       f.hi, f.naive);
	assert_true(f.map < 0.1);
	assert_false(f.few);
}

/* (b) Observability 0.8 in half the cells, 0.1 in the other half: F
 * within 10 % of the exact coefficient of variation, 0.35 / 0.45. */
static void two_levels_give_their_coefficient_of_variation(void **state)
{
	uint32_t dens[20];
	double x[20], exact = 0.35 / 0.45;
	det_kn c[20];
	det_factor f;
	wasm_err e;

	for (int i = 0; i < 20; i++) {
		dens[i] = 5500u + 500u * (uint32_t)(i % 10); /* 55 ... 100 % */
		x[i] = i < 10 ? 0.8 : 0.1;
	}
	fill(c, 20, dens, x, 2000);
	assert_int_equal(det_factor_estimate(c, 20, false, &(det_factor_opts){0, 2, 0}, &f, &e),
			 WASM_OK);
	printf("  two levels: F %.4f [%.4f, %.4f], exact %.4f\n", f.map, f.lo,
	       f.hi, exact);
	assert_true(fabs(f.map - exact) <= 0.1 * exact);
	assert_true(f.lo <= f.map && f.map <= f.hi);
}

/* (c) A rare bug of constant observability 0.004 over 20 cells of 400
 * runs: a cell holds 0 to 3 detections, and the naive F is large from
 * that alone (footnote 5). The pooled prior's F is at least 3 times
 * smaller, for each of four draws of the counts; the paper's prior is
 * printed beside it, as docs/analysis.md reports it. */
static void rare_constant_bug_is_not_made_heisen(void **state)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		det_kn c[20];
		det_factor f, paper;
		det_factor_opts o = {0, seed, DET_PRIOR_POOLED};
		det_rng r;
		wasm_err e;

		det_rng_seed(&r, seed);
		for (int i = 0; i < 20; i++) {
			double d = (5500 + 500 * (i % 10)) / 10000.0;
			c[i] = (det_kn){5500u + 500u * (uint32_t)(i % 10), 0,
					400, 0};
			for (int t = 0; t < 400; t++)
				c[i].k += det_rng_double(&r) < 0.004 * d * d;
		}
		assert_int_equal(det_factor_estimate(c, 20, false, &o, &f, &e),
				 WASM_OK);
		o.prior = DET_PRIOR_PAPER;
		assert_int_equal(
		    det_factor_estimate(c, 20, false, &o, &paper, &e),
		    WASM_OK);
		printf("  rare, %llu detections: F %.3f [%.3f, %.3f], naive "
		       "%.3f, paper's prior %.3f\n",
		       (unsigned long long)f.k, f.map, f.lo, f.hi, f.naive,
		       paper.map);
		assert_true(f.naive_ok);
		assert_true(f.map * 3 <= f.naive);
		assert_int_equal(paper.prior, DET_PRIOR_PAPER);
	}
}

/* A bug seen once in 20 cells: nothing tells a constant bug from a
 * heisenbug, and the interval must say so, from near 0 to past 0.5. */
static void one_detection_gets_a_wide_interval(void **state)
{
	det_kn c[20];
	det_factor f;
	wasm_err e;

	for (int i = 0; i < 20; i++)
		c[i] = (det_kn){10000, i == 7, 50, 0};
	assert_int_equal(det_factor_estimate(c, 20, false, NULL, &f, &e),
			 WASM_OK);
	printf("  once: F %.3f [%.3f, %.3f], naive %.3f\n", f.map, f.lo,
	       f.hi, f.naive);
	assert_true(f.few);
	assert_true(f.lo < 0.1 && f.hi > 0.5);
}

/* The same cells and seed give the same F, bit for bit; this value is
 * what every build (plain, ASan, the switch interpreter's) computes. */
static void same_seed_same_bits(void **state)
{
	uint32_t dens[6] = {1000, 2500, 5000, 7500, 9000, 10000};
	double x[6] = {0.9, 0.2, 0.5, 0.05, 0.7, 0.3};
	det_kn c[6];
	det_factor f1, f2;
	det_factor_opts o99 = {5000, 99, DET_PRIOR_POOLED};
	det_factor_opts o100 = {5000, 100, DET_PRIOR_POOLED};
	wasm_err e;
	uint64_t bits;

	fill(c, 6, dens, x, 300);
	assert_int_equal(det_factor_estimate(c, 6, true, &o99, &f1, &e),
			 WASM_OK);
	assert_int_equal(det_factor_estimate(c, 6, true, &o99, &f2, &e),
			 WASM_OK);
	assert_memory_equal(&f1.map, &f2.map, sizeof f1.map);
	assert_memory_equal(&f1.lo, &f2.lo, sizeof f1.lo);
	assert_memory_equal(&f1.hi, &f2.hi, sizeof f1.hi);
	memcpy(&bits, &f1.map, sizeof bits);
	printf("  F %.17g = 0x%016llx\n", f1.map, (unsigned long long)bits);
	assert_true(bits == 0x3fead4ea89d2392cull);
	assert_int_equal(det_factor_estimate(c, 6, true, &o100, &f2, &e),
			 WASM_OK);
	assert_true(memcmp(&f1.map, &f2.map, sizeof f1.map) != 0);
}

/* Cells of two rows (profiles) x 10 densities, 400 runs each, K the
 * expected count for observability x(row, density index). */
static void grid(det_kn *c, double (*x)(int row, int di))
{
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 10; i++) {
			det_kn *k = &c[r * 10 + i];
			double d = (10 + 10 * i) / 100.0; /* 10 ... 100 % */
			k->density_bp = (uint32_t)(d * 10000 + 0.5);
			k->n = 400;
			k->k = (uint64_t)llround(400 * x(r, i) * d * d);
			k->row = (uint32_t)r;
		}
}

static double x_flat(int r, int i) { return 0.4; }
static double x_profile(int r, int i) { return r ? 0.05 : 0.6; }
static double x_density(int r, int i) { return i < 3 ? 0.9 : 0.1; }
static double x_random(int r, int i)
{
	static const double v[20] = {0.9,  0.1, 0.7,  0.05, 0.6, 0.02, 0.8,
				     0.1,  0.5, 0.03, 0.04, 0.9, 0.1,  0.6,
				     0.05, 0.7, 0.02, 0.8,  0.1, 0.5};
	return v[r * 10 + i];
}
static double x_rare(int r, int i) { return i == 9 && r == 0 ? 0.02 : 0; }

static void classes_follow_the_grid(void **state)
{
	det_kn c[20];

	grid(c, x_flat);
	assert_int_equal(det_classify(c, 20, false), DET_CLASS_ORDINARY);
	grid(c, x_profile);
	assert_int_equal(det_classify(c, 20, false), DET_CLASS_PROFILE);
	grid(c, x_density);
	assert_int_equal(det_classify(c, 20, false), DET_CLASS_DENSITY);
	grid(c, x_random);
	assert_int_equal(det_classify(c, 20, false), DET_CLASS_RANDOM);
	grid(c, x_rare);
	assert_int_equal(det_classify(c, 20, false), DET_CLASS_FEW);
	assert_string_equal(det_class_name(DET_CLASS_PROFILE),
			    "profile-specific");
}

/* Known answers: a bug seen only on the other profile, one only at 50 %;
 * 1 ms runs at 100 %, 0.5 ms at 50 %, a budget of 2.5 ms. */
static void simulation_counts_what_each_strategy_can_reach(void **state)
{
	det_sim_run runs[30];
	uint32_t bugs[20];
	uint32_t nb = 0;
	det_sim_input in = {runs, 30, bugs, 2, 0};
	det_sim_result r;
	wasm_err e;

	for (uint32_t i = 0; i < 30; i++) {
		uint32_t row = i < 10 ? 0 : i < 20 ? 1 : 0;
		uint32_t dens = i < 20 ? 10000 : 5000;
		runs[i] = (det_sim_run){row, dens, i < 20 ? 1000 : 500, nb, 0};
		if (i >= 10) {
			bugs[nb++] = i < 20 ? 0 : 1;
			runs[i].n = 1;
		}
	}
	assert_int_equal(
	    det_simulate(&in, DET_SIM_HOMOGENEOUS, 0.0025, 20000, 1, &r, &e),
	    WASM_OK);
	assert_true(r.mean == 0 && r.runs_per_trial == 2 && r.cells == 1);
	det_sim_free(&r);
	/* Two cells at 100 %: two runs a trial, bug 0 in 1 - 1/4 of them. */
	assert_int_equal(
	    det_simulate(&in, DET_SIM_PROFILE, 0.0025, 20000, 2, &r, &e),
	    WASM_OK);
	assert_true(r.cells == 2 && r.runs_per_trial == 2);
	assert_true(fabs(r.found[0] - 0.75) < 0.02 && r.found[1] == 0);
	det_sim_free(&r);
	/* Home row, both densities: bug 1 only; more runs, as 50 % ones
	 * are cheaper. */
	assert_int_equal(
	    det_simulate(&in, DET_SIM_DENSITY, 0.0025, 20000, 3, &r, &e),
	    WASM_OK);
	assert_true(r.cells == 2 && r.runs_per_trial > 2);
	assert_true(r.found[0] == 0 && r.found[1] > 0.5);
	det_sim_free(&r);
	assert_int_equal(
	    det_simulate(&in, DET_SIM_BOTH, 0.0025, 20000, 4, &r, &e), WASM_OK);
	assert_true(r.cells == 3 && r.found[0] > 0 && r.found[1] > 0);
	assert_true(r.p5 <= r.p95 && r.mean <= 2);
	det_sim_free(&r);
	in.home_row = 7; /* no such row: nothing to draw from */
	assert_int_equal(
	    det_simulate(&in, DET_SIM_HOMOGENEOUS, 0.0025, 10, 1, &r, &e),
	    WASM_OK);
	assert_true(r.empty);
	det_sim_free(&r);
	assert_int_equal(det_simulate(&in, DET_SIM_BOTH, 0.0025, 0, 1, &r, &e),
			 WASM_INVALID);
}

static void bad_cells_are_refused(void **state)
{
	det_kn c[2] = {{5000, 3, 2, 0}, {5000, 0, 0, 0}};
	det_factor_opts o = {10, 1, DET_PRIOR_POOLED};
	det_factor f;
	wasm_err e;

	assert_int_equal(det_factor_estimate(c, 1, false, &o, &f, &e),
			 WASM_INVALID);
	assert_int_equal(det_factor_estimate(c + 1, 1, false, &o, &f, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "no cell with runs"));
	c[0] = (det_kn){0, 1, 2, 0};
	assert_int_equal(det_factor_estimate(c, 1, false, &o, &f, &e),
			 WASM_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(beta_sampler_moments),
	    cmocka_unit_test(gamma_below_one_has_its_mean),
	    cmocka_unit_test(constant_observability_is_not_heisen),
	    cmocka_unit_test(two_levels_give_their_coefficient_of_variation),
	    cmocka_unit_test(rare_constant_bug_is_not_made_heisen),
	    cmocka_unit_test(one_detection_gets_a_wide_interval),
	    cmocka_unit_test(same_seed_same_bits),
	    cmocka_unit_test(classes_follow_the_grid),
	    cmocka_unit_test(simulation_counts_what_each_strategy_can_reach),
	    cmocka_unit_test(bad_cells_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
