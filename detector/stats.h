/*
 * stats.h - statistics of detections (DESIGN "Statistics", the paper's
 * sections 5.2 and 5.4): random variates, the heisen factor and class of
 * a bug from its K-of-N detections per cell (stats.c), and the budget
 * simulation over recorded runs (simulate.c).
 *
 * Variates are our own, not libgsl's: heisen already has a seeded
 * xoshiro256** generator (det_rng) whose streams are reproducible on
 * every machine, and an F must come out the same, bit for bit, for the
 * same data and seed on every build; one extra Debian package for four
 * functions was not worth it. Uniforms take the top 53 bits of a draw;
 * normals come from the Marsaglia polar method; Gamma(shape, 1) from
 * Marsaglia and Tsang's squeeze method (2000), with shape < 1 drawn as
 * Gamma(shape + 1) * U^(1 / shape); Beta(a, b) as X / (X + Y) of two
 * gammas.
 *
 * The heisen factor. A cell is one (node, profile, density) with K of N
 * runs detecting the bug; Phi = delta^2 for a bug of two distinct sites,
 * delta for a site racing with itself (the chance the mask arms the
 * bug's probes), detectability Y = K/N and observability X = Y/Phi.
 * F = sd(X)/mean(X) over the cells (population sd: the cells are the
 * environments compared, not a sample of them). Estimate (paper eq. 6-7
 * and footnote 6): per cell a posterior Beta(a + K, b + N - K) on Y,
 * truncated to Y <= Phi (drawn by inverting a table of its distribution
 * function over its bulk, 256 quantiles, see stats.c); X = Y/Phi; F of
 * the draws; `samples` times, shared by two threads with streams of
 * their own (the same F on every machine). The estimate is the maximum
 * of a Gaussian kernel density over the F draws (bandwidth by
 * Silverman's rule, 0.9 min(sd, IQR/1.34) n^(-1/5), the density read on
 * a 1024-point grid by binning), with the draws' 5th and 95th
 * percentiles as a 90 % interval. The naive F = sd/mean of K/(N Phi) is
 * kept for comparison. A bug with fewer than DET_FACTOR_FEW detections
 * is flagged `few`: its interval, not its MAP, is the message.
 *
 * The prior (a, b) is one of two:
 *   DET_PRIOR_PAPER   the paper's Beta(alpha, 1), alpha = p/(1-p) with p
 *                     the bug's detecting fraction over all its runs.
 *                     Measured, it does not do what footnote 5 asks of
 *                     it: for a rare bug of constant observability its F
 *                     came out larger than the naive one (1.11-1.69
 *                     against 0.86-1.42, docs/analysis.md), since a
 *                     prior that weak leaves each cell's few detections
 *                     to speak alone, and its draws add their own spread.
 *   DET_PRIOR_POOLED  the default: Beta with mean mu Phi, mu the bug's
 *                     pooled observability sum(K)/sum(N Phi), and a
 *                     coefficient of variation tau that the data weigh
 *                     (an exponential prior on tau with P(tau > 1) =
 *                     5 %, times the beta-binomial likelihood of every
 *                     cell; the draws split into 16 strata of tau;
 *                     stats.c). Cells that agree within their noise pull
 *                     tau, and so F, towards 0; cells that differ keep
 *                     it where they put it; a bug with few detections
 *                     keeps every tau it cannot rule out, and its
 *                     interval says so. Measured on that rare bug: F
 *                     0.04-0.08 against the naive 0.83-1.28.
 *
 * Errors: WASM_INVALID for no cell with runs, a cell with K > N or a
 * density of 0; WASM_NOMEM. Nothing is allocated that outlives a call.
 */
#ifndef HEISEN_DETECTOR_STATS_H
#define HEISEN_DETECTOR_STATS_H

#include "race.h"

double det_rng_double(det_rng *r);		     /* uniform in [0, 1) */
double det_rng_normal(det_rng *r);		     /* standard normal */
double det_rng_gamma(det_rng *r, double shape);	     /* shape > 0, scale 1 */
double det_rng_beta(det_rng *r, double a, double b); /* a, b > 0 */

/* Phi of a cell at density_bp: the chance a mask arms a bug's probes,
 * density for a site racing with itself, density squared for two. */
double det_phi(uint32_t density_bp, bool same_site);

typedef enum det_prior { DET_PRIOR_POOLED, DET_PRIOR_PAPER } det_prior;
/* "pooled", "paper" and back. */
const char *det_prior_name(det_prior p);
bool det_prior_parse(const char *name, det_prior *out);

#define DET_FACTOR_SAMPLES 10000u
#define DET_FACTOR_FEW	   10u

/* The detections of one cell; row numbers its (node, profile), for
 * det_classify (cells of one row share it). */
typedef struct det_kn {
	uint32_t density_bp;
	uint64_t k, n;
	uint32_t row;
} det_kn;

typedef struct det_factor {
	double map;	  /* the estimate */
	double lo, hi;	  /* 90 % interval */
	double naive;	  /* sd/mean of K/(N Phi); valid when naive_ok */
	bool naive_ok;	  /* false when no cell detected the bug */
	double bandwidth; /* of the kernel density */
	uint64_t k, n;	  /* detections and runs over all cells */
	uint32_t ncells;  /* cells with runs */
	bool few;	  /* k < DET_FACTOR_FEW */
	det_prior prior;  /* the one used */
} det_factor;

/* F of a bug from its cells (cells with N = 0 are skipped); same_site:
 * its two sites are one. o may be NULL: the defaults below. */
typedef struct det_factor_opts {
	uint32_t samples; /* draws; 0: DET_FACTOR_SAMPLES */
	uint64_t seed;	  /* of the draws' generator */
	det_prior prior;  /* DET_PRIOR_POOLED unless asked */
} det_factor_opts;

wasm_status det_factor_estimate(const det_kn *cells, uint32_t ncells,
				bool same_site, const det_factor_opts *o,
				det_factor *out, wasm_err *err);

/* A bug's class, from its grid. The observability of groups of cells is
 * compared with a likelihood-ratio (G) test against one common
 * observability, K of a group being Poisson with mean X * sum(N Phi);
 * a test is significant at p < 0.001 (chi-square quantile by the
 * Wilson-Hilferty approximation) when the groups also differ at least
 * twofold. In order:
 *   DET_CLASS_FEW       fewer than DET_FACTOR_FEW detections: too few to
 *                       tell anything but that it is rare;
 *   DET_CLASS_PROFILE   the rows (node, profile) differ: it depends on
 *                       where it runs;
 *   DET_CLASS_DENSITY   the densities differ once Phi is divided out: the
 *                       probes themselves change how often it shows;
 *   DET_CLASS_RANDOM    the cells differ with no row or density pattern;
 *   DET_CLASS_ORDINARY  none of these: detectability rises with the
 *                       density as Phi does, alike everywhere. */
typedef enum det_class {
	DET_CLASS_ORDINARY,
	DET_CLASS_DENSITY,
	DET_CLASS_PROFILE,
	DET_CLASS_RANDOM,
	DET_CLASS_FEW,
} det_class;

/* "ordinary", "density-specific", "profile-specific", "random", "few". */
const char *det_class_name(det_class c);
det_class det_classify(const det_kn *cells, uint32_t ncells, bool same_site);

/* ---- budget simulation (the paper's section 5.4) -------------------------
 *
 * From recorded runs, how many bugs a campaign of a given compute budget
 * would find under a strategy: a trial draws runs at random, a cell of
 * the strategy uniformly then one of the cell's recorded runs uniformly,
 * until their recorded durations add up past the budget (the run that
 * would pass it does not count), and counts the distinct bugs they
 * detected. Strategies:
 *   DET_SIM_HOMOGENEOUS  density 100 % on one row (node, profile);
 *   DET_SIM_DENSITY      every density on that row;
 *   DET_SIM_PROFILE      density 100 % on every row;
 *   DET_SIM_BOTH         every cell.
 * A strategy whose cells have no recorded run is `empty`. */
typedef enum det_strategy {
	DET_SIM_HOMOGENEOUS,
	DET_SIM_DENSITY,
	DET_SIM_PROFILE,
	DET_SIM_BOTH,
	DET_SIM_COUNT
} det_strategy;
/* "homogeneous", "density", "profile", "both" and back. */
const char *det_strategy_name(det_strategy s);
bool det_strategy_parse(const char *name, det_strategy *out);

/* A recorded run: its cell (row, density), duration and the bugs (indices
 * below nbugs) it detected, bugs[first .. first + n). */
typedef struct det_sim_run {
	uint32_t row, density_bp;
	uint64_t duration_us;
	uint32_t first, n;
} det_sim_run;

typedef struct det_sim_input {
	const det_sim_run *runs;
	uint32_t nruns;
	const uint32_t *bugs; /* bug indices of the runs */
	uint32_t nbugs;	      /* distinct bugs */
	uint32_t home_row;    /* the row of the one-profile strategies */
} det_sim_input;

typedef struct det_sim_result {
	bool empty;
	uint32_t cells;	       /* cells the strategy draws from */
	double mean, p5, p95;  /* bugs found per trial */
	double runs_per_trial; /* mean */
	double *found;	       /* per bug: share of trials that found it;
				  nbugs entries, owned: det_sim_free */
} det_sim_result;

wasm_status det_simulate(const det_sim_input *in, det_strategy s,
			 double budget_s, uint32_t trials, uint64_t seed,
			 det_sim_result *out, wasm_err *err);
void det_sim_free(det_sim_result *r);

#endif
