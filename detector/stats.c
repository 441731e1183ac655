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

typedef struct cell {
	double a, b, phi;
	uint32_t j; /* its index; after share_tables, its table's */
	bool exact; /* no table: draw Beta variates (draw_run) */
} cell;

static int cmp_posterior(const void *x, const void *y)
{
	const cell *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->phi != q->phi)
		return p->phi < q->phi ? -1 : 1;
	return (p->j > q->j) - (p->j < q->j);
}

/* Cells with the same posterior and Phi (the same K, N and density on
 * other profiles: common at low densities, where K is 0) share one
 * table, the first's: c[j].j becomes the index of the cell whose table
 * j draws from. The tables are the same either way; only less work. */
static bool share_tables(cell *c, uint32_t m)
{
	cell *by = wasm_malloc(m * sizeof *by);

	if (!by)
		return false;
	memcpy(by, c, m * sizeof *by);
	qsort(by, m, sizeof *by, cmp_posterior);
	for (uint32_t i = 0, first = 0; i < m; i++) {
		if (i && (by[i].a != by[i - 1].a || by[i].b != by[i - 1].b ||
			  by[i].phi != by[i - 1].phi))
			first = i;
		c[by[i].j].j = by[first].j;
	}
	wasm_free(by);
	return true;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
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

/* The draw at quantile q of sorted[0..n). */
static double quantile(const double *sorted, uint32_t n, double q)
{
	double pos = q * (n - 1);
	uint32_t i = (uint32_t)pos;

	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

/* The truncated posterior of a cell as a table of its quantile function:
 * a draw is a uniform looked up in it, a few nanoseconds against the two
 * gammas and a rejection of a direct Beta draw. The density is tabulated
 * on DENS_GRID points of s = y^min(a, 1), in which it stays finite at 0
 * even for a < 1, over the posterior's bulk (12 standard deviations each
 * side, clipped to [0, Phi]), integrated by trapezoids and inverted at
 * QTAB + 1 probabilities; between them a draw interpolates linearly. */
#define DENS_GRID	256
#define DET_TRUNC_TRIES 64
#define QTAB_BITS	9
#define QTAB		(1u << QTAB_BITS)

static void quantile_table(cell *c, double *t)
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
	for (uint32_t i = 0; i <= QTAB; i++) {
		double want = cdf[DENS_GRID] * i / QTAB, sv;
		while (k + 1 < DENS_GRID && cdf[k + 1] < want)
			k++;
		sv = cdf[k + 1] > cdf[k]
			 ? slo + step * (k + (want - cdf[k]) /
						 (cdf[k + 1] - cdf[k]))
			 : slo + step * k;
		sv = fmax(sv, 0);
		q[i] = fmin(e == 1 ? sv : exp(log(sv) * inv_e), phi);
	}
	/* As a draw reads it: X = Y/Phi at the step's start and its rise,
	 * side by side in one cache line. */
	for (uint32_t i = 0; i < QTAB; i++) {
		t[2 * i] = q[i] / phi;
		t[2 * i + 1] = (q[i + 1] - q[i]) / phi;
	}
}

/* One thread's share of the draws: F of draw s into f[s], NaN when the
 * draw's mean observability is 0. Cell by cell, so that a cell's table
 * stays in the cache while all the share's draws of it are made; each
 * draw keeps a sum and a sum of squares of its X. */
#define DRAW_THREADS 2
typedef struct draw_part {
	cell *c;
	const double *qt;
	uint32_t m;
	double *f;
	uint32_t from, to;
	uint64_t seed;
	double *acc; /* per draw its sum and sum of squares of X, side by
		      * side: one stream of stores, not two */
} draw_part;

/* Tables of cells [from, to): the first phase, split like the draws. */
typedef struct table_part {
	cell *c;
	double *qt;
	uint32_t from, to;
} table_part;

static void *table_run(void *arg)
{
	table_part *p = arg;

	for (uint32_t j = p->from; j < p->to; j++)
		if (p->c[j].j == j)
			quantile_table(&p->c[j], p->qt + (size_t)j * 2 * QTAB);
	return NULL;
}

/* Run fn on each of n parts (of size sz) on a thread of its own, or
 * here when a thread cannot be made; return when all are done. */
static void run_parts(void *(*fn)(void *), void *parts, size_t sz, int n)
{
	pthread_t th[DRAW_THREADS];
	bool started[DRAW_THREADS] = {false};

	for (int t = 0; t < n; t++) {
		void *part = (char *)parts + (size_t)t * sz;
		started[t] = !pthread_create(&th[t], NULL, fn, part);
		if (!started[t])
			fn(part);
	}
	for (int t = 0; t < n; t++)
		if (started[t])
			pthread_join(th[t], NULL);
}

#define DRAW_FRAC_BITS (32 - QTAB_BITS)

/* Add one draw of a cell's X, from 32 random bits u, to a sum and a sum
 * of squares a[0], a[1]. */
static inline void acc_draw(double *a, const double *q, uint32_t u)
{
	const double *st = q + 2 * (u >> DRAW_FRAC_BITS);
	double w = (double)(u & ((1u << DRAW_FRAC_BITS) - 1)) *
		   (1.0 / (1u << DRAW_FRAC_BITS));
	double x = st[0] + w * st[1];

	a[0] += x;
	a[1] += x * x;
}

static void *draw_run(void *arg)
{
	draw_part *p = arg;
	uint32_t n = p->to - p->from;
	double *acc = p->acc;
	det_rng rng;

	det_rng_seed(&rng, p->seed);
	memset(acc, 0, (size_t)n * 2 * sizeof *acc);
	for (uint32_t j = 0; j < p->m; j++) {
		const double *q = p->qt + (size_t)p->c[j].j * 2 * QTAB;
		const cell *c = &p->c[j];
		double inv = 1 / c->phi;
		for (uint32_t s = 0; c->exact && s < n; s++) {
			/* Rejection against Phi; past DET_TRUNC_TRIES, when
			 * nearly all the mass lies above Phi, Y = Phi. */
			double y = c->phi;
			for (uint32_t t = 0; t < DET_TRUNC_TRIES; t++) {
				double v = det_rng_beta(&rng, c->a, c->b);
				if (v <= c->phi) {
					y = v;
					break;
				}
			}
			acc[2 * s] += y * inv;
			acc[2 * s + 1] += y * inv * y * inv;
		}
		/* A uniform of 32 bits a draw, two from each generator
		 * output: QTAB_BITS pick the step, DRAW_FRAC_BITS where in
		 * it (2^-32 of probability is finer than any table). */
		for (uint32_t s = 0; !c->exact && s < n; s += 2) {
			uint64_t r = det_rng_next(&rng);
			acc_draw(acc + 2 * s, q, (uint32_t)(r >> 32));
			if (s + 1 < n)
				acc_draw(acc + 2 * s + 2, q, (uint32_t)r);
		}
	}
	for (uint32_t s = 0; s < n; s++) {
		double mean = acc[2 * s] / p->m;
		double var = acc[2 * s + 1] / p->m - mean * mean;
		p->f[p->from + s] =
		    mean > 0 ? sqrt(var > 0 ? var : 0) / mean : NAN;
	}
	return NULL;
}

#define KDE_GRID 1024

/* The mode of a Gaussian kernel density over sorted[0..n): the draws are
 * binned on a grid over their range (padded by 3 bandwidths), and the
 * bins convolved with the kernel out to 4 bandwidths. */
static double kde_mode(const double *sorted, uint32_t n, double *bw)
{
	double mean = 0, sq = 0, sd, iqr, h, lo, hi, step, best = -1;
	double bins[KDE_GRID] = {0}, kern[KDE_GRID];
	int reach, arg = 0;

	for (uint32_t i = 0; i < n; i++)
		mean += sorted[i];
	mean /= n;
	for (uint32_t i = 0; i < n; i++)
		sq += (sorted[i] - mean) * (sorted[i] - mean);
	sd = n > 1 ? sqrt(sq / (n - 1)) : 0;
	iqr = quantile(sorted, n, 0.75) - quantile(sorted, n, 0.25);
	h = 0.9 * (iqr > 0 && iqr / 1.34 < sd ? iqr / 1.34 : sd) *
	    pow((double)n, -0.2);
	*bw = h;
	if (!(h > 0))
		return sorted[n / 2];
	lo = sorted[0] - 3 * h;
	hi = sorted[n - 1] + 3 * h;
	step = (hi - lo) / (KDE_GRID - 1);
	for (uint32_t i = 0; i < n; i++) {
		int k = (int)lround((sorted[i] - lo) / step);
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

wasm_status det_factor_estimate(const det_kn *cells, uint32_t ncells,
				bool same_site, uint32_t samples, uint64_t seed,
				det_factor *out, wasm_err *err)
{
	cell *c = NULL;
	double *x = NULL, *f = NULL, *acc = NULL, *qt = NULL, alpha, p;
	uint32_t m = 0, nf = 0;
	wasm_status st = WASM_OK;

	memset(out, 0, sizeof *out);
	if (!samples)
		samples = DET_FACTOR_SAMPLES;
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
		m += cells[i].n > 0;
	}
	if (!m)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "no cell with runs: nothing to estimate");
	out->ncells = m;
	out->few = out->k < DET_FACTOR_FEW;
	c = wasm_malloc(m * sizeof *c);
	x = wasm_malloc(m * sizeof *x);
	f = wasm_malloc(samples * sizeof *f);
	acc = wasm_malloc((size_t)samples * 2 * sizeof *acc);
	qt = wasm_malloc((size_t)m * 2 * QTAB * sizeof *qt);
	if (!c || !x || !f || !acc || !qt) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	/* The prior's mean is the bug's detecting fraction; a bug never
	 * detected gets the weakest prior that is still a Beta. */
	p = (double)out->k / (double)out->n;
	alpha = out->k ? (out->k < out->n ? p / (1 - p) : (double)out->n)
		       : 1.0 / (double)(out->n + 1);
	for (uint32_t i = 0, j = 0; i < ncells; i++) {
		if (!cells[i].n)
			continue;
		c[j].a = alpha + (double)cells[i].k;
		c[j].b = 1 + (double)(cells[i].n - cells[i].k);
		c[j].phi = det_phi(cells[i].density_bp, same_site);
		c[j].exact = false;
		c[j].j = j;
		x[j] = (double)cells[i].k / (double)cells[i].n / c[j].phi;
		j++;
	}
	out->naive_ok = coef_var(x, m, &out->naive);
	if (!share_tables(c, m)) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	{
		/* A fixed number of threads, each with its own stream and
		 * share of the draws: the same F on every machine. */
		table_part tp[DRAW_THREADS];
		draw_part part[DRAW_THREADS];
		for (int t = 0; t < DRAW_THREADS; t++) {
			uint32_t from =
			    (uint32_t)((uint64_t)samples * t / DRAW_THREADS);
			uint32_t to = (uint32_t)((uint64_t)samples * (t + 1) /
						 DRAW_THREADS);
			tp[t] = (table_part){
			    c, qt, (uint32_t)((uint64_t)m * t / DRAW_THREADS),
			    (uint32_t)((uint64_t)m * (t + 1) / DRAW_THREADS)};
			part[t] = (draw_part){c,
					      qt,
					      m,
					      f,
					      from,
					      to,
					      det_seed_mix(seed ^ (uint64_t)t),
					      acc + 2 * (size_t)from};
		}
		run_parts(table_run, tp, sizeof *tp, DRAW_THREADS);
		for (uint32_t j = 0; j < m; j++)
			c[j].exact = c[c[j].j].exact;
		run_parts(draw_run, part, sizeof *part, DRAW_THREADS);
	}
	for (uint32_t s = 0; s < samples; s++)
		if (f[s] == f[s]) /* not NaN: a draw with a mean */
			f[nf++] = f[s];
	if (!nf) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "every draw had observability 0");
		goto out;
	}
	qsort(f, nf, sizeof *f, cmp_double);
	out->lo = quantile(f, nf, 0.05);
	out->hi = quantile(f, nf, 0.95);
	out->map = kde_mode(f, nf, &out->bandwidth);
out:
	wasm_free(c);
	wasm_free(x);
	wasm_free(f);
	wasm_free(acc);
	wasm_free(qt);
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
