/*
 * stats.c - random variates and the heisen factor (stats.h).
 */
#include "detector/stats.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

double det_rng_double(det_rng *r)
{
	return (double)(det_rng_next(r) >> 11) * 0x1.0p-53;
}

double det_rng_normal(det_rng *r)
{
	double u, v, s;

	do {
		u = 2 * det_rng_double(r) - 1;
		v = 2 * det_rng_double(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	/* The polar method makes two normals; one is enough here, and
	 * keeping no state keeps a stream a pure function of the seed. */
	return u * sqrt(-2 * log(s) / s);
}

double det_rng_gamma(det_rng *r, double shape)
{
	double d, c, x, v, u;

	if (shape < 1) {
		/* Gamma(a) = Gamma(a + 1) * U^(1/a); U in (0, 1]. */
		double g = det_rng_gamma(r, shape + 1);
		return g * pow(1 - det_rng_double(r), 1 / shape);
	}
	d = shape - 1.0 / 3;
	c = 1 / sqrt(9 * d);
	for (;;) {
		do {
			x = det_rng_normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = 1 - det_rng_double(r); /* (0, 1] */
		if (u < 1 - 0.0331 * x * x * x * x ||
		    log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

double det_rng_beta(det_rng *r, double a, double b)
{
	double x = det_rng_gamma(r, a), y = det_rng_gamma(r, b);

	/* Both underflow only for tiny shapes; call it the mean then. */
	return x + y > 0 ? x / (x + y) : a / (a + b);
}

/* ---- the heisen factor ------------------------------------------------- */

double det_phi(uint32_t density_bp, bool same_site)
{
	double d = density_bp / (double)DET_DENSITY_FULL;
	return same_site ? d : d * d;
}

/* sd/mean of x[0..n) with the population sd; false when the mean is 0. */
static bool coef_var(const double *x, uint32_t n, double *out)
{
	double sum = 0, sq = 0, mean;

	for (uint32_t i = 0; i < n; i++)
		sum += x[i];
	mean = sum / n;
	if (!(mean > 0))
		return false;
	for (uint32_t i = 0; i < n; i++)
		sq += (x[i] - mean) * (x[i] - mean);
	*out = sqrt(sq / n) / mean;
	return true;
}

/* The k-th smallest of x[0..n), moving x's values about so that those
 * before k are no larger and those after no smaller (Hoare's selection,
 * a median of three for pivot): the draws' quantiles without sorting
 * them all. */
static double select_kth(double *x, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double a = x[lo], b = x[mid], c = x[hi];
		double p = a < b ? (b < c   ? b
				    : a < c ? c
					    : a)
				 : (a < c   ? a
				    : b < c ? c
					    : b);
		while (i <= j) {
			while (x[i] < p)
				i++;
			while (x[j] > p)
				j--;
			if (i <= j) {
				double t = x[i];
				x[i] = x[j];
				x[j] = t;
				i++;
				if (!j--)
					break;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return x[k];
}

/* The value at quantile q of x[0..n), interpolated as R's type 7. */
static double quantile(double *x, uint32_t n, double q)
{
	double pos = q * (n - 1), v, next;
	uint32_t i = (uint32_t)pos;

	v = select_kth(x, n, i);
	if (i + 1 >= n)
		return v;
	next = x[i + 1];
	for (uint32_t j = i + 2; j < n; j++)
		next = x[j] < next ? x[j] : next;
	return v + (pos - i) * (next - v);
}

/* One posterior to draw from: Beta(a, b) truncated to Y <= phi. */
typedef struct post {
	double a, b, phi;
	bool exact; /* no table: draw Beta variates (draw_exact) */
} post;

/* The truncated posterior as a table of its quantile function: a draw
 * is a uniform looked up in it, a few nanoseconds against the two gammas
 * and a rejection of a direct Beta draw. The density is tabulated on
 * DENS_GRID steps of s = y^min(a, 1), in which it stays finite at 0 even
 * for a < 1, over the posterior's bulk (12 standard deviations each
 * side, clipped to [0, Phi]), integrated by trapezoids and inverted at
 * QTAB + 1 probabilities; between them a draw interpolates linearly. 64
 * steps and 256 quantiles gave the unit tests' F within 0.2 % of 256 and
 * 512, at a quarter of the cost. */
#define DENS_GRID	64
#define DET_TRUNC_TRIES 64
#define QTAB_BITS	8
#define QTAB		(1u << QTAB_BITS)

static void quantile_table(post *c, float *t)
{
	double q[QTAB + 1];
	double a = c->a, b = c->b, phi = c->phi;
	double m = a / (a + b);
	double sd = sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)));
	double e = a < 1 ? a : 1;
	double ylo = a < 1 ? 0 : fmax(0, fmin(m, phi) - 12 * sd);
	double yhi = fmin(phi, m + 12 * sd);
	double slo = pow(ylo, e), shi = pow(yhi, e), step, inv_e = 1 / e;
	double lg[DENS_GRID + 1], cdf[DENS_GRID + 1], top = -INFINITY;
	uint32_t k = 0;

	/* A posterior the grid cannot hold (numerically degenerate) is
	 * drawn directly instead. */
	if (!(yhi > ylo)) {
		c->exact = true;
		return;
	}
	step = (shi - slo) / DENS_GRID;
	/* y = s^(1/e) as exp(log(s)/e): the log is the density's term
	 * anyway, and one exp is half a pow. */
	for (uint32_t g = 0; g <= DENS_GRID; g++) {
		double sv = slo + step * g, ls = e == 1 && a == 1 ? 0 : log(sv);
		double y = e == 1 ? sv : exp(ls * inv_e);
		double t1 = a - e == 0 ? 0 : (a - e) * inv_e * ls;
		double t2 = b - 1 == 0 ? 0 : (b - 1) * log1p(-y);
		lg[g] = t1 + t2;
		if (!(lg[g] == lg[g])) /* NaN: 0 * log 0 at an end */
			lg[g] = -INFINITY;
		top = lg[g] > top ? lg[g] : top;
	}
	/* The trapezoids' heights, each exp once. */
	for (uint32_t g = 0; g <= DENS_GRID; g++)
		lg[g] = exp(lg[g] - top);
	cdf[0] = 0;
	for (uint32_t g = 1; g <= DENS_GRID; g++)
		cdf[g] = cdf[g - 1] + (lg[g - 1] + lg[g]) / 2;
	if (!(cdf[DENS_GRID] > 0) || !isfinite(cdf[DENS_GRID])) {
		c->exact = true;
		return;
	}
	/* Each step's share of s per unit of probability, once: the
	 * inversion below then multiplies instead of dividing. */
	for (uint32_t g = 0; g < DENS_GRID; g++)
		lg[g] = cdf[g + 1] > cdf[g] ? step / (cdf[g + 1] - cdf[g]) : 0;
	for (uint32_t i = 0; i <= QTAB; i++) {
		double want = cdf[DENS_GRID] * i / QTAB, sv, y;
		while (k + 1 < DENS_GRID && cdf[k + 1] < want)
			k++;
		sv = slo + step * k + (want - cdf[k]) * lg[k];
		sv = sv > 0 ? sv : 0;
		y = e == 1 ? sv : exp(log(sv) * inv_e);
		q[i] = y < phi ? y : phi;
	}
	/* As a draw reads it: X = Y/Phi at the step's start and its rise,
	 * side by side. */
	for (uint32_t i = 0; i < QTAB; i++) {
		t[2 * i] = (float)(q[i] / phi);
		t[2 * i + 1] = (float)((q[i + 1] - q[i]) / phi);
	}
}

/* Run fn on each of the DRAW_THREADS parts (of size sz) on a thread of
 * its own, or here when a thread cannot be made; return when all are
 * done. A fixed number of parts, each with its own work and stream,
 * gives the same F on every machine. */
#define DRAW_THREADS 2

static void run_parts(void *(*fn)(void *), void *parts, size_t sz)
{
	pthread_t th[DRAW_THREADS];
	bool started[DRAW_THREADS] = {false};

	for (int t = 0; t < DRAW_THREADS; t++) {
		void *p = (char *)parts + (size_t)t * sz;
		started[t] = !pthread_create(&th[t], NULL, fn, p);
		if (!started[t])
			fn(p);
	}
	for (int t = 0; t < DRAW_THREADS; t++)
		if (started[t])
			pthread_join(th[t], NULL);
}

/* Draws are split into STRATA strata of the pooled prior's tau (one for
 * the paper's prior), below. */
#define STRATA 16u

/* The work of an estimate. Cells with the same K, N and density are one
 * type (common at low densities, where K is 0 on every profile); strata
 * whose tau fell on one grid point share it; a table is one (tau, type)
 * pair, slot tau_ix * ntype + type. */
typedef struct work {
	const det_kn *cell; /* the cells with runs, m of them */
	uint32_t m;
	const uint32_t *type; /* per cell */
	const uint32_t *rep;  /* per type: a cell of it */
	uint32_t ntype;
	uint32_t tau_ix[STRATA]; /* per stratum: its tau */
	uint32_t strata, samples;
	post *post; /* per slot */
	float *qt;  /* per slot 2 * QTAB floats */
	uint32_t ntab;
} work;

/* One thread's share: the cells [jlo, jhi), the tables of their types
 * (built by the thread that draws them, so they are in its cache) and
 * every draw of them into acc, per draw the sum and the sum of squares
 * of the share's X side by side. The shares' sums make each draw's F. */
typedef struct share {
	work *w;
	uint32_t jlo, jhi;
	uint64_t seed;
	double *acc;
} share;

static void *table_run(void *arg)
{
	share *s = arg;
	work *w = s->w;

	for (uint32_t t = 0; t < w->ntab; t++) {
		uint32_t j = w->rep[t % w->ntype];
		if (j >= s->jlo && j < s->jhi)
			quantile_table(&w->post[t],
				       w->qt + (size_t)t * 2 * QTAB);
	}
	return NULL;
}

#define DRAW_FRAC_BITS (16 - QTAB_BITS)
#define DRAW_GROUP     8 /* tables drawn together: 16 KB, within L1 */

/* A cell's X from its table q and 16 random bits u: QTAB_BITS pick the
 * step, DRAW_FRAC_BITS where in it. 2^-16 of probability is finer than
 * anything an F over hundreds of cells can show, and a generator output
 * then serves a whole group. */
static inline double table_x(const float *q, uint32_t u)
{
	const float *st = q + 2 * (u >> DRAW_FRAC_BITS);
	float w = (float)(u & ((1u << DRAW_FRAC_BITS) - 1)) *
		  (1.0f / (1u << DRAW_FRAC_BITS));

	return st[0] + w * st[1];
}

/* n draws of nq (at most DRAW_GROUP) cells' tables into acc: a draw's X
 * of the group are summed before acc is touched, once a group rather
 * than once a cell; one generator output gives the group's uniforms. */
static void draw_tables(det_rng *rng, const float *const *q, int nq,
			double *acc, uint32_t n)
{
	det_rng r = *rng; /* a local the loop keeps in registers */

	for (uint32_t s = 0; s < n; s++) {
		double sx = 0, sq = 0, x;
		for (int i = 0; i < nq; i += 4) {
			uint64_t u = det_rng_next(&r);
			for (int k = i; k < nq && k < i + 4; k++, u >>= 16) {
				x = table_x(q[k], (uint32_t)u & 0xffff);
				sx += x;
				sq += x * x;
			}
		}
		acc[2 * s] += sx;
		acc[2 * s + 1] += sq;
	}
	*rng = r;
}

/* n draws of a posterior without a table into acc: Beta variates
 * rejected against Phi; past DET_TRUNC_TRIES, when nearly all the mass
 * lies above Phi, Y = Phi. */
static void draw_exact(det_rng *rng, const post *c, double *acc, uint32_t n)
{
	double inv = 1 / c->phi;

	for (uint32_t s = 0; s < n; s++) {
		double y = c->phi;
		for (uint32_t t = 0; t < DET_TRUNC_TRIES; t++) {
			double v = det_rng_beta(rng, c->a, c->b);
			if (v <= c->phi) {
				y = v;
				break;
			}
		}
		acc[2 * s] += y * inv;
		acc[2 * s + 1] += y * inv * y * inv;
	}
}

static void *draw_run(void *arg)
{
	share *s = arg;
	work *w = s->w;
	det_rng rng;

	det_rng_seed(&rng, s->seed);
	memset(s->acc, 0, (size_t)w->samples * 2 * sizeof *s->acc);
	for (uint32_t g = 0; g < w->strata; g++) {
		/* Stratum g owns draws [lo, hi). */
		uint32_t lo = (uint32_t)((uint64_t)w->samples * g / w->strata);
		uint32_t hi =
		    (uint32_t)((uint64_t)w->samples * (g + 1) / w->strata);
		double *at = s->acc + 2 * (size_t)lo;
		const float *q[DRAW_GROUP];
		int nq = 0;
		for (uint32_t j = s->jlo; lo < hi && j < s->jhi; j++) {
			uint32_t t = w->tau_ix[g] * w->ntype + w->type[j];
			if (w->post[t].exact) {
				draw_exact(&rng, &w->post[t], at, hi - lo);
				continue;
			}
			q[nq++] = w->qt + (size_t)t * 2 * QTAB;
			if (nq == DRAW_GROUP) {
				draw_tables(&rng, q, nq, at, hi - lo);
				nq = 0;
			}
		}
		if (nq)
			draw_tables(&rng, q, nq, at, hi - lo);
	}
	return NULL;
}

/* ---- the pooled prior ------------------------------------------------------
 *
 * A cell's prior on Y is Beta with mean mu * Phi (mu the bug's pooled
 * observability) and coefficient of variation tau, the same as X's: tau
 * is how much the prior lets observability differ between cells, which
 * is what F measures. tau is not fixed but weighed by the data: on a
 * grid of TAU_GRID points spread geometrically over TAU_SPAN up to
 * tau_max, each point weighs its share of an exponential prior of rate
 * TAU_RATE (a penalised-complexity prior, Simpson et al. 2017: no spread
 * unless the data show one; P(tau > 1) = 5 %) times the beta-binomial
 * likelihood of every cell's K of N. The draws are split into strata of
 * equal weight, stratum g drawn at the grid point at the posterior's
 * quantile (g + 1/2) / strata. tau_max is sqrt(cells), the most a
 * population sd over that many cells can exceed its mean, and below the
 * largest CV a Beta of that mean can have. */
#define TAU_GRID 48
#define TAU_SPAN 1000.0
#define TAU_RATE 3.0

static void prior_ab(double mean, double tau, double *a, double *b)
{
	double s = (1 - mean) / (mean * tau * tau) - 1;

	*a = mean * s;
	*b = (1 - mean) * s;
}

/* log of the beta-binomial probability of k of n under Beta(a, b), less
 * log C(n, k), which no tau changes. */
static double log_bb(double a, double b, double k, double n)
{
	double r = lgamma(a + b) - lgamma(a + b + n);

	if (k > 0)
		r += lgamma(a + k) - lgamma(a);
	if (n > k)
		r += lgamma(b + n - k) - lgamma(b);
	return r;
}

/* Log-likelihoods of grid points [from, to), a type at a time times its
 * number of cells: the two halves of the grid on two threads. */
typedef struct tau_part {
	const work *w;
	const uint32_t *count; /* cells per type */
	double mu;
	bool same_site;
	const double *t;
	double *lp;
	int from, to;
} tau_part;

static void *tau_run(void *arg)
{
	tau_part *p = arg;
	const work *w = p->w;

	for (int i = p->from; i < p->to; i++) {
		double l = 0;
		for (uint32_t ty = 0; ty < w->ntype; ty++) {
			const det_kn *c = &w->cell[w->rep[ty]];
			double a, b;
			prior_ab(p->mu * det_phi(c->density_bp, p->same_site),
				 p->t[i], &a, &b);
			l += p->count[ty] *
			     log_bb(a, b, (double)c->k, (double)c->n);
		}
		p->lp[i] = l;
	}
	return NULL;
}

/* tau of each stratum, tau[g]. */
static void strata_tau(const work *w, const uint32_t *count, bool same_site,
		       double mu, double *tau)
{
	double t[TAU_GRID], lp[TAU_GRID], top = -INFINITY, sum = 0, acc = 0;
	double phimax = 0, tmax = sqrt((double)w->m);
	tau_part tp[DRAW_THREADS];

	for (uint32_t j = 0; j < w->m; j++)
		phimax =
		    fmax(phimax, det_phi(w->cell[j].density_bp, same_site));
	tmax = fmin(tmax, 0.99 * sqrt((1 - mu * phimax) / (mu * phimax)));
	for (int i = 0; i < TAU_GRID; i++)
		t[i] = tmax * pow(TAU_SPAN, (double)i / (TAU_GRID - 1) - 1);
	for (int k = 0; k < DRAW_THREADS; k++)
		tp[k] = (tau_part){w,
				   count,
				   mu,
				   same_site,
				   t,
				   lp,
				   TAU_GRID * k / DRAW_THREADS,
				   TAU_GRID * (k + 1) / DRAW_THREADS};
	run_parts(tau_run, tp, sizeof *tp);
	for (int i = 0; i < TAU_GRID; i++) {
		/* The prior's mass between the midpoints around t[i]. */
		double lo = i ? (t[i - 1] + t[i]) / 2 : 0;
		double hi = i + 1 < TAU_GRID ? (t[i] + t[i + 1]) / 2 : t[i];
		lp[i] += log(exp(-TAU_RATE * lo) - exp(-TAU_RATE * hi));
		top = fmax(top, lp[i]);
	}
	for (int i = 0; i < TAU_GRID; i++)
		sum += (lp[i] = exp(lp[i] - top));
	for (uint32_t g = 0, i = 0; g < w->strata; g++) {
		double want = sum * (g + 0.5) / w->strata;
		while (i + 1 < TAU_GRID && acc + lp[i] < want)
			acc += lp[i++];
		tau[g] = t[i];
	}
}

#define KDE_GRID 1024

/* The mode of a Gaussian kernel density over x[0..n) (reordered): the
 * draws are binned on a grid over their range (padded by 3 bandwidths),
 * and the bins convolved with the kernel out to 4 bandwidths. */
static double kde_mode(double *x, uint32_t n, double *bw)
{
	double mean = 0, sq = 0, sd, iqr, h, lo, hi, step, best = -1;
	double bins[KDE_GRID] = {0}, kern[KDE_GRID], min = x[0], max = x[0];
	int reach, arg = 0;

	for (uint32_t i = 0; i < n; i++) {
		mean += x[i];
		min = x[i] < min ? x[i] : min;
		max = x[i] > max ? x[i] : max;
	}
	mean /= n;
	for (uint32_t i = 0; i < n; i++)
		sq += (x[i] - mean) * (x[i] - mean);
	sd = n > 1 ? sqrt(sq / (n - 1)) : 0;
	iqr = quantile(x, n, 0.75) - quantile(x, n, 0.25);
	h = 0.9 * (iqr > 0 && iqr / 1.34 < sd ? iqr / 1.34 : sd) *
	    pow((double)n, -0.2);
	*bw = h;
	if (!(h > 0))
		return quantile(x, n, 0.5);
	lo = min - 3 * h;
	hi = max + 3 * h;
	step = (hi - lo) / (KDE_GRID - 1);
	for (uint32_t i = 0; i < n; i++) {
		int k = (int)lround((x[i] - lo) / step);
		bins[k < 0 ? 0 : k >= KDE_GRID ? KDE_GRID - 1 : k] += 1;
	}
	reach = (int)ceil(4 * h / step);
	if (reach >= KDE_GRID)
		reach = KDE_GRID - 1;
	/* The kernel's weight at each distance in bins, once. */
	for (int k = 0; k <= reach; k++) {
		double z = k * step / h;
		kern[k] = exp(-0.5 * z * z);
	}
	for (int g = 0; g < KDE_GRID; g++) {
		double dens = 0;
		for (int k = g - reach; k <= g + reach; k++)
			if (k >= 0 && k < KDE_GRID && bins[k])
				dens += bins[k] * kern[k < g ? g - k : k - g];
		if (dens > best) {
			best = dens;
			arg = g;
		}
	}
	return lo + arg * step;
}

const char *det_prior_name(det_prior p)
{
	return p == DET_PRIOR_PAPER ? "paper" : "pooled";
}

bool det_prior_parse(const char *name, det_prior *out)
{
	for (det_prior p = DET_PRIOR_POOLED; p <= DET_PRIOR_PAPER; p++)
		if (!strcmp(name, det_prior_name(p))) {
			*out = p;
			return true;
		}
	return false;
}

static int cmp_kn(const void *x, const void *y)
{
	const det_kn *p = *(const det_kn *const *)x;
	const det_kn *q = *(const det_kn *const *)y;

	if (p->k != q->k)
		return p->k < q->k ? -1 : 1;
	if (p->n != q->n)
		return p->n < q->n ? -1 : 1;
	if (p->density_bp != q->density_bp)
		return p->density_bp < q->density_bp ? -1 : 1;
	return (p > q) - (p < q);
}

/* Types of the m cells: type[j] and, per type, rep (its first cell) and
 * count; returns the number of types, 0 when out of memory. */
static uint32_t cell_types(const det_kn *cell, uint32_t m, uint32_t *type,
			   uint32_t *rep, uint32_t *count)
{
	const det_kn **by = wasm_malloc(m * sizeof *by);
	uint32_t nt = 0;

	if (!by)
		return 0;
	for (uint32_t j = 0; j < m; j++)
		by[j] = &cell[j];
	qsort(by, m, sizeof *by, cmp_kn);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t j = (uint32_t)(by[i] - cell);
		if (!i || by[i - 1]->k != by[i]->k ||
		    by[i - 1]->n != by[i]->n ||
		    by[i - 1]->density_bp != by[i]->density_bp) {
			rep[nt] = j;
			count[nt++] = 0;
		}
		type[j] = nt - 1;
		count[nt - 1]++;
	}
	wasm_free(by);
	return nt;
}

wasm_status det_factor_estimate(const det_kn *cells, uint32_t ncells,
				bool same_site, const det_factor_opts *o,
				det_factor *out, wasm_err *err)
{
	uint32_t samples = o && o->samples ? o->samples : DET_FACTOR_SAMPLES;
	uint64_t seed = o ? o->seed : 0;
	det_prior prior = o ? o->prior : DET_PRIOR_POOLED;
	det_kn *cc = NULL;
	uint32_t *type = NULL, *rep = NULL, *count = NULL, m = 0, nf = 0;
	double *x = NULL, *f = NULL, *acc = NULL, e = 0, mu, alpha, p;
	double tau[STRATA], utau[STRATA];
	uint32_t ntau = 1;
	work w = {0};
	share sh[DRAW_THREADS];
	wasm_status st = WASM_OK;

	memset(out, 0, sizeof *out);
	for (uint32_t i = 0; i < ncells; i++) {
		if (cells[i].k > cells[i].n || !cells[i].density_bp ||
		    cells[i].density_bp > DET_DENSITY_FULL)
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "cell %u: %llu detections in %llu "
					    "runs at density %u bp",
					    i, (unsigned long long)cells[i].k,
					    (unsigned long long)cells[i].n,
					    cells[i].density_bp);
		out->k += cells[i].k;
		out->n += cells[i].n;
		e += (double)cells[i].n *
		     det_phi(cells[i].density_bp, same_site);
		m += cells[i].n > 0;
	}
	if (!m)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "no cell with runs: nothing to estimate");
	out->ncells = m;
	out->few = out->k < DET_FACTOR_FEW;
	out->prior = prior;
	cc = wasm_malloc(m * sizeof *cc);
	type = wasm_malloc(m * sizeof *type);
	rep = wasm_malloc(m * sizeof *rep);
	count = wasm_malloc(m * sizeof *count);
	x = wasm_malloc(m * sizeof *x);
	f = wasm_malloc(samples * sizeof *f);
	acc = wasm_malloc((size_t)DRAW_THREADS * samples * 2 * sizeof *acc);
	if (!cc || !type || !rep || !count || !x || !f || !acc)
		goto nomem;
	for (uint32_t i = 0, j = 0; i < ncells; i++)
		if (cells[i].n) {
			cc[j] = cells[i];
			x[j] = (double)cc[j].k / (double)cc[j].n /
			       det_phi(cc[j].density_bp, same_site);
			j++;
		}
	out->naive_ok = coef_var(x, m, &out->naive);
	w = (work){
	    .cell = cc, .m = m, .type = type, .rep = rep, .samples = samples};
	if (!(w.ntype = cell_types(cc, m, type, rep, count)))
		goto nomem;
	/* A bug never detected in these cells is taken as half a detection
	 * away from one, rather than impossible. */
	mu = fmin((out->k ? (double)out->k : 0.5) / e, 0.99);
	/* The paper's prior mean is the bug's detecting fraction; a bug
	 * never detected gets the weakest prior that is still a Beta. */
	p = (double)out->k / (double)out->n;
	alpha = out->k ? (out->k < out->n ? p / (1 - p) : (double)out->n)
		       : 1.0 / (double)(out->n + 1);
	w.strata = prior == DET_PRIOR_PAPER ? 1 : STRATA;
	if (prior == DET_PRIOR_POOLED) {
		strata_tau(&w, count, same_site, mu, tau);
		/* Strata's taus rise with g: equal ones are neighbours. */
		utau[0] = tau[0];
		for (uint32_t g = 0; g < STRATA; g++) {
			if (tau[g] != utau[ntau - 1])
				utau[ntau++] = tau[g];
			w.tau_ix[g] = ntau - 1;
		}
	}
	w.ntab = ntau * w.ntype;
	w.post = wasm_malloc((size_t)w.ntab * sizeof *w.post);
	w.qt = wasm_malloc((size_t)w.ntab * 2 * QTAB * sizeof *w.qt);
	if (!w.post || !w.qt)
		goto nomem;
	for (uint32_t t = 0; t < w.ntab; t++) {
		const det_kn *c = &cc[rep[t % w.ntype]];
		post *q = &w.post[t];
		q->phi = det_phi(c->density_bp, same_site);
		if (prior == DET_PRIOR_PAPER) {
			q->a = alpha;
			q->b = 1;
		} else {
			prior_ab(mu * q->phi, utau[t / w.ntype], &q->a, &q->b);
		}
		q->a += (double)c->k;
		q->b += (double)(c->n - c->k);
		q->exact = false;
	}
	for (int t = 0; t < DRAW_THREADS; t++)
		sh[t] =
		    (share){&w, (uint32_t)((uint64_t)m * t / DRAW_THREADS),
			    (uint32_t)((uint64_t)m * (t + 1) / DRAW_THREADS),
			    det_seed_mix(seed ^ (uint64_t)t),
			    acc + (size_t)t * 2 * samples};
	run_parts(table_run, sh, sizeof *sh);
	run_parts(draw_run, sh, sizeof *sh);
	for (uint32_t s = 0; s < samples; s++) {
		double sum = 0, sq = 0, mean, var;
		for (int t = 0; t < DRAW_THREADS; t++) {
			sum += sh[t].acc[2 * s];
			sq += sh[t].acc[2 * s + 1];
		}
		mean = sum / m;
		var = sq / m - mean * mean;
		/* A draw whose mean observability is 0 has no F. */
		if (mean > 0)
			f[nf++] = sqrt(var > 0 ? var : 0) / mean;
	}
	if (!nf) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "every draw had observability 0");
		goto out;
	}
	out->lo = quantile(f, nf, 0.05);
	out->hi = quantile(f, nf, 0.95);
	out->map = kde_mode(f, nf, &out->bandwidth);
	goto out;
nomem:
	st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
out:
	wasm_free(cc);
	wasm_free(type);
	wasm_free(rep);
	wasm_free(count);
	wasm_free(x);
	wasm_free(f);
	wasm_free(acc);
	wasm_free(w.post);
	wasm_free(w.qt);
	return st;
}

/* ---- classes ---------------------------------------------------------------
 */

const char *det_class_name(det_class c)
{
	static const char *const names[] = {"ordinary", "density-specific",
					    "profile-specific", "random",
					    "few"};
	return (unsigned)c < sizeof names / sizeof *names ? names[c] : "?";
}

/* The chi-square quantile at 0.999 for df degrees of freedom
 * (Wilson-Hilferty). */
static double chi2_999(uint32_t df)
{
	double k = df, t = 2 / (9 * k), z = 3.090232306;

	return k * pow(1 - t + z * sqrt(t), 3);
}

/* Whether groups (K, E = sum(N Phi)) differ: G test against a common
 * observability, and a twofold spread between the extreme groups. */
static bool groups_differ(const double *k, const double *e, uint32_t n)
{
	double sk = 0, se = 0, g = 0, lo = INFINITY, hi = 0;
	uint32_t used = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (e[i] <= 0)
			continue;
		sk += k[i];
		se += e[i];
		used++;
	}
	if (used < 2 || sk <= 0)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		double expect, x;
		if (e[i] <= 0)
			continue;
		expect = sk / se * e[i];
		if (k[i] > 0)
			g += 2 * k[i] * log(k[i] / expect);
		g -= 2 * (k[i] - expect);
		x = k[i] / e[i];
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	return g > chi2_999(used - 1) && hi >= 2 * lo;
}

/* Sum K and N Phi into the group each cell's key selects. */
static uint32_t group_by(const det_kn *c, uint32_t n, bool same_site,
			 bool by_row, double *k, double *e, uint32_t *key)
{
	uint32_t ng = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = by_row ? c[i].row : c[i].density_bp, g;
		if (!c[i].n)
			continue;
		for (g = 0; g < ng && key[g] != id; g++)
			;
		if (g == ng) {
			key[ng] = id;
			k[ng] = e[ng] = 0;
			ng++;
		}
		k[g] += (double)c[i].k;
		e[g] += (double)c[i].n * det_phi(c[i].density_bp, same_site);
	}
	return ng;
}

det_class det_classify(const det_kn *cells, uint32_t ncells, bool same_site)
{
	double *k = wasm_malloc((ncells ? ncells : 1) * sizeof *k);
	double *e = wasm_malloc((ncells ? ncells : 1) * sizeof *e);
	uint32_t *key = wasm_malloc((ncells ? ncells : 1) * sizeof *key);
	uint64_t total = 0;
	det_class cls = DET_CLASS_ORDINARY;
	uint32_t n;

	for (uint32_t i = 0; i < ncells; i++)
		total += cells[i].k;
	if (total < DET_FACTOR_FEW || !k || !e || !key) {
		cls = DET_CLASS_FEW;
		goto out;
	}
	n = group_by(cells, ncells, same_site, true, k, e, key);
	if (groups_differ(k, e, n)) {
		cls = DET_CLASS_PROFILE;
		goto out;
	}
	n = group_by(cells, ncells, same_site, false, k, e, key);
	if (groups_differ(k, e, n)) {
		cls = DET_CLASS_DENSITY;
		goto out;
	}
	n = 0;
	for (uint32_t i = 0; i < ncells; i++) {
		if (!cells[i].n)
			continue;
		k[n] = (double)cells[i].k;
		e[n++] = (double)cells[i].n *
			 det_phi(cells[i].density_bp, same_site);
	}
	if (groups_differ(k, e, n))
		cls = DET_CLASS_RANDOM;
out:
	wasm_free(k);
	wasm_free(e);
	wasm_free(key);
	return cls;
}
