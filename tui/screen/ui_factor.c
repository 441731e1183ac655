/*
 * ui_factor.c - heisen factors and classes for the TUI, computed off the
 * drawing path (ui.h, tui_factors): the cells are read from the database
 * on the loop's thread (a few indexed queries), the Monte-Carlo runs on a
 * thread of its own, and screens pick the results up when a tick says
 * they are ready.
 */
#include "tui/screen/ui.h"

#include "detector/stats.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A bug's result, valid for the detections count it was computed at. */
typedef struct entry {
	int64_t bug;
	uint64_t runs;
	det_factor f;
	det_class cls;
	bool ok;
} entry;

/* One computation: its bugs' cells in, results out. */
typedef struct job {
	size_t n;
	struct job_bug {
		int64_t bug;
		uint64_t runs;
		bool same;
		det_kn *cells;
		uint32_t ncells;
		entry out;
	} * v;
} job;

struct tui_factors {
	entry *cache;
	size_t n, cap;
	pthread_t th;
	bool running; /* a thread exists (joined when done) */
	int done;     /* atomic: the thread finished */
	unsigned gen; /* results merged so far */
	job *j;
};

tui_factors *tui_factors_new(void) { return calloc(1, sizeof(tui_factors)); }

static entry *find(tui_factors *f, int64_t bug)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->cache[i].bug == bug)
			return &f->cache[i];
	return NULL;
}

bool tui_factors_get(tui_factors *f, int64_t bug, uint64_t runs,
		     det_factor *out, det_class *cls)
{
	entry *e = f ? find(f, bug) : NULL;

	if (!e || e->runs != runs || !e->ok)
		return false;
	*out = e->f;
	*cls = e->cls;
	return true;
}

static void job_free(job *j)
{
	for (size_t i = 0; j && i < j->n; i++)
		free(j->v[i].cells);
	if (j)
		free(j->v);
	free(j);
}

static void *work(void *arg)
{
	tui_factors *f = arg;
	job *j = f->j;

	for (size_t i = 0; i < j->n; i++) {
		struct job_bug *b = &j->v[i];
		wasm_err e;
		b->out.bug = b->bug;
		b->out.runs = b->runs;
		/* The same stream per bug as `heisen factor` (seed 0), so
		 * the screen and the command agree. */
		det_factor_opts o = {0, det_seed_mix((uint64_t)b->bug),
				     DET_PRIOR_POOLED};
		b->out.ok = !det_factor_estimate(b->cells, b->ncells, b->same,
						 &o, &b->out.f, &e);
		b->out.cls = det_classify(b->cells, b->ncells, b->same);
	}
	__atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Cells of one bug, with their rows numbered as heisen factor does. */
typedef struct cell_acc {
	struct job_bug *b;
	size_t cap;
	struct {
		int64_t node;
		char profile[64];
	} rows[64];
	uint32_t nrows;
	bool nomem;
} cell_acc;

static bool add_cell(void *ctx, const db_cell *c)
{
	cell_acc *a = ctx;
	struct job_bug *b = a->b;
	uint32_t r;

	if (b->ncells == a->cap) {
		size_t nc = a->cap ? 2 * a->cap : 64;
		det_kn *nv = realloc(b->cells, nc * sizeof *nv);
		if (!nv) {
			a->nomem = true;
			return false;
		}
		b->cells = nv;
		a->cap = nc;
	}
	for (r = 0; r < a->nrows; r++)
		if (a->rows[r].node == c->node_id &&
		    !strncmp(a->rows[r].profile, c->profile,
			     sizeof a->rows[r].profile - 1))
			break;
	/* Past 64 rows the rest share the last number: the class then
	 * lumps them together, F does not use rows. */
	if (r == 64)
		r = 63;
	else if (r == a->nrows) {
		a->rows[r].node = c->node_id;
		snprintf(a->rows[r].profile, sizeof a->rows[r].profile, "%s",
			 c->profile);
		a->nrows++;
	}
	b->cells[b->ncells++] = (det_kn){c->density_bp, c->k, c->n, r};
	return true;
}

void tui_factors_want(tui_factors *f, db *d, const int64_t *bugs,
		      const uint64_t *runs, const int64_t *same, size_t n)
{
	job *j;
	size_t k = 0;

	if (!f || f->running)
		return;
	for (size_t i = 0; i < n; i++) {
		entry *e = find(f, bugs[i]);
		if (!e || e->runs != runs[i])
			k++;
	}
	if (!k || !(j = calloc(1, sizeof *j)) ||
	    !(j->v = calloc(k, sizeof *j->v))) {
		if (k)
			free(j);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		entry *e = find(f, bugs[i]);
		cell_acc a = {0};
		wasm_err err;
		if (e && e->runs == runs[i])
			continue;
		a.b = &j->v[j->n];
		a.b->bug = bugs[i];
		a.b->runs = runs[i];
		a.b->same = same[i] != 0;
		if (db_bug_cells(d, bugs[i], add_cell, &a, &err) || a.nomem) {
			free(a.b->cells);
			a.b->cells = NULL;
			continue;
		}
		j->n++;
	}
	f->j = j;
	f->done = 0;
	if (pthread_create(&f->th, NULL, work, f)) {
		job_free(j);
		f->j = NULL;
		return;
	}
	f->running = true;
}

unsigned tui_factors_poll(tui_factors *f)
{
	if (f && f->running && __atomic_load_n(&f->done, __ATOMIC_ACQUIRE)) {
		pthread_join(f->th, NULL);
		f->running = false;
		for (size_t i = 0; i < f->j->n; i++) {
			entry *e = find(f, f->j->v[i].bug);
			if (!e) {
				if (f->n == f->cap) {
					size_t nc = f->cap ? 2 * f->cap : 64;
					entry *nv =
					    realloc(f->cache, nc * sizeof *nv);
					if (!nv)
						break;
					f->cache = nv;
					f->cap = nc;
				}
				e = &f->cache[f->n++];
			}
			*e = f->j->v[i].out;
		}
		job_free(f->j);
		f->j = NULL;
		f->gen++;
	}
	return f ? f->gen : 0;
}

void tui_factors_free(tui_factors *f)
{
	if (!f)
		return;
	if (f->running)
		pthread_join(f->th, NULL);
	job_free(f->j);
	free(f->cache);
	free(f);
}
