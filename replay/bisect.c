/*
 * bisect.c - the deciding switch between a failing and a passing
 * schedule (bisect.h).
 */
#include "replay/bisect.h"

#include "replay/shrink.h"
#include "rewriter/instrument.h"

#include <stdlib.h>
#include <string.h>

static bool has_pair(const rep_decision *d, size_t n, rep_decision x)
{
	for (size_t i = 0; i < n && d[i].event <= x.event; i++)
		if (d[i].event == x.event && d[i].thread == x.thread)
			return true;
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* H with cut c: f's decisions before c, p's from c on, into out (room
 * for nf + np); returns how many. */
static size_t hybrid(const rep_decision *f, size_t nf, const rep_decision *p,
		     size_t np, uint64_t c, rep_decision *out)
{
	size_t n = 0;

	for (size_t i = 0; i < nf && f[i].event < c; i++)
		out[n++] = f[i];
	for (size_t i = 0; i < np; i++)
		if (p[i].event >= c)
			out[n++] = p[i];
	return n;
}

static wasm_status run(const rep_spec *s, det_prog *p, const rep_decision *d,
		       size_t n, bool *fails, rep_bisect_result *r,
		       wasm_err *err)
{
	rep_trial t = {0};
	wasm_status st = rep_sched_try(s, p, d, n, &t, err);

	wasm_free(t.dec);
	r->runs++;
	*fails = t.reproduced;
	return st;
}

wasm_status rep_bisect(const rep_spec *fail, const rep_decision *pass,
		       size_t npass, det_prog *p, rep_bisect_result *r,
		       wasm_err *err)
{
	const rep_decision *f = fail->dec;
	size_t nf = fail->ndec, m = 0, lo, hi;
	uint64_t *cut = NULL, c;
	rep_decision *h = NULL;
	wasm_status st = WASM_OK;
	bool fails;

	memset(r, 0, sizeof *r);
	if (fail->mode != REP_SCHEDULE || !fail->has_dec)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "bisect needs the failing run's recorded "
				    "decisions");
	cut = wasm_malloc((nf + npass + 1) * sizeof *cut);
	h = wasm_malloc((nf + npass + 1) * sizeof *h);
	r->failing = wasm_malloc((nf + npass + 1) * sizeof *h);
	r->passing = wasm_malloc((nf + npass + 1) * sizeof *h);
	if (!cut || !h || !r->failing || !r->passing) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nf; i++)
		if (!has_pair(pass, npass, f[i]))
			cut[m++] = f[i].event;
	for (size_t i = 0; i < npass; i++)
		if (!has_pair(f, nf, pass[i]))
			cut[m++] = pass[i].event;
	qsort(cut, m, sizeof *cut, cmp_u64);
	{
		size_t k = 0;
		for (size_t i = 0; i < m; i++)
			if (!k || cut[k - 1] != cut[i])
				cut[k++] = cut[i];
		m = k;
	}
	r->differ = m;
	if (!m) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "the two schedules make the same decisions: "
				  "give a passing run of another schedule");
		goto out;
	}
	/* H_k's cut is cut[k] (k < m), H_m's none. */
	if ((st = run(fail, p, f, nf, &fails, r, err)))
		goto out;
	if (!fails) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "the failing schedule does not fail when "
				  "replayed (%s)",
				  fail->failure ? fail->failure
				  : fail->whole_run
				      ? "its ending differs"
				      : "its race is not detected");
		goto out;
	}
	if ((st = run(fail, p, pass, npass, &fails, r, err)))
		goto out;
	if (fails) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "the passing schedule fails too: give one "
				  "whose run does not fail");
		goto out;
	}
	for (lo = 0, hi = m; hi - lo > 1;) {
		size_t mid = lo + (hi - lo) / 2, n;
		n = hybrid(f, nf, pass, npass, cut[mid], h);
		if ((st = run(fail, p, h, n, &fails, r, err)))
			goto out;
		if (fails)
			hi = mid;
		else
			lo = mid;
	}
	c = cut[lo];
	r->point = c;
	r->nfailing = hybrid(f, nf, pass, npass, hi < m ? cut[hi] : UINT64_MAX,
			     r->failing);
	r->npassing = hybrid(f, nf, pass, npass, c, r->passing);
	for (size_t i = 0; i < nf; i++)
		if (f[i].event == c) {
			r->fail_has = true;
			r->fail_dec = f[i];
		}
	for (size_t i = 0; i < npass; i++)
		if (pass[i].event == c) {
			r->pass_has = true;
			r->pass_dec = pass[i];
		}
out:
	wasm_free(cut);
	wasm_free(h);
	if (st)
		rep_bisect_clear(r);
	return st;
}

void rep_bisect_clear(rep_bisect_result *r)
{
	wasm_free(r->failing);
	wasm_free(r->passing);
	r->failing = r->passing = NULL;
	r->nfailing = r->npassing = 0;
}

static bool writes(uint8_t rw)
{
	return rw != RW_READ && rw != RW_ATOMIC_READ && rw != RW_RANGE_READ;
}

static bool is_access(const rep_event *e)
{
	return e->kind == REP_EV_ACCESS && e->part == REP_PART_ADDR;
}

/* An access's identity across runs and when it happens. */
typedef struct acc {
	uint64_t row, when;
	uint32_t thread, rank;
} acc;

static int by_when(const void *a, const void *b)
{
	uint64_t x = ((const acc *)a)->when, y = ((const acc *)b)->when;

	return x < y ? -1 : x > y;
}

/* t's accesses, each with its thread's rank and the position it
 * happens at (its thread's next row: the access happens before it),
 * sorted by that position. *threads: the highest thread id + 1. */
static acc *accesses(const rep_trace *t, size_t *n, uint32_t *threads)
{
	uint64_t *next = NULL;
	uint32_t *rank = NULL, nt = 0;
	acc *v = NULL;
	size_t k = 0;

	for (uint64_t i = 0; i < t->n; i++)
		if (t->ev[i].thread + 1 > nt)
			nt = t->ev[i].thread + 1;
	next = wasm_malloc((nt ? nt : 1) * sizeof *next);
	rank = wasm_calloc(nt ? nt : 1, sizeof *rank);
	v = wasm_malloc((t->n ? t->n : 1) * sizeof *v);
	if (!next || !rank || !v) {
		wasm_free(v);
		v = NULL;
		goto out;
	}
	for (uint32_t i = 0; i < nt; i++)
		next[i] = t->n;
	for (uint64_t i = t->n; i-- > 0;) {
		const rep_event *e = &t->ev[i];
		if (is_access(e))
			v[k++] = (acc){i, next[e->thread], e->thread, 0};
		next[e->thread] = i;
	}
	/* Ranks in row order: the list was built backwards. */
	for (size_t i = k; i-- > 0;)
		v[i].rank = rank[v[i].thread]++;
	qsort(v, k, sizeof *v, by_when);
	*threads = nt;
out:
	*n = v ? k : 0;
	wasm_free(next);
	wasm_free(rank);
	return v;
}

bool rep_bisect_flip(const rep_trace *fail, const rep_trace *pass, uint64_t *x,
		     uint64_t *y, bool *nomem)
{
	size_t nf, np;
	uint32_t tf = 0, tp = 0;
	acc *f = accesses(fail, &nf, &tf), *p = accesses(pass, &np, &tp);
	uint64_t **pos = NULL; /* pass: per thread, rank -> when */
	uint32_t *cnt = NULL;
	bool found = false;

	*x = *y = UINT64_MAX;
	*nomem = false;
	if ((fail->n && !f) || (pass->n && !p) ||
	    !(pos = wasm_calloc(tp ? tp : 1, sizeof *pos)) ||
	    !(cnt = wasm_calloc(tp ? tp : 1, sizeof *cnt))) {
		*nomem = true;
		goto out;
	}
	for (size_t i = 0; i < np; i++)
		cnt[p[i].thread]++;
	for (uint32_t th = 0; th < tp; th++)
		if (cnt[th] &&
		    !(pos[th] = wasm_malloc(cnt[th] * sizeof **pos))) {
			*nomem = true;
			goto out;
		}
	for (size_t i = 0; i < np; i++)
		pos[p[i].thread][p[i].rank] = p[i].when;
	/* For each access in the failing order, the latest earlier one of
	 * another thread to the same address that conflicts with it; the
	 * first pair the passing run has the other way round wins. A scan
	 * back is bounded: races are between near neighbours. */
	for (size_t j = 1; j < nf && !found; j++) {
		const rep_event *ej = &fail->ev[f[j].row];
		for (size_t i = j, seen = 0; i-- > 0 && seen < 4096; seen++) {
			const rep_event *ei = &fail->ev[f[i].row];
			uint64_t wi, wj;
			if (ei->addr != ej->addr || ei->thread == ej->thread ||
			    (!writes(ei->rw) && !writes(ej->rw)))
				continue;
			if (f[i].thread >= tp || f[j].thread >= tp ||
			    f[i].rank >= cnt[f[i].thread] ||
			    f[j].rank >= cnt[f[j].thread])
				break;
			wi = pos[f[i].thread][f[i].rank];
			wj = pos[f[j].thread][f[j].rank];
			if (wj < wi) {
				*x = f[i].row;
				*y = f[j].row;
				found = true;
			}
			break;
		}
	}
out:
	for (uint32_t th = 0; pos && th < tp; th++)
		wasm_free(pos[th]);
	wasm_free(pos);
	wasm_free(cnt);
	wasm_free(f);
	wasm_free(p);
	return found;
}
