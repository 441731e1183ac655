/*
 * report.c - a bug's report read from the workspace in one go (its
 * example runs, the run whose stacks and value the race text shows, its
 * detections grid, its triage note) and the source lines around a site.
 * `heisen show` prints it; the TUI's bug screen draws it.
 */
#include "tui/report/report.h"
#include "tui/report/race.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- a bug's report ------------------------------------------------------ */

static bool example_row(void *vctx, const db_run *r)
{
	tui_report *s = vctx;
	tui_example *x = &s->ex[s->nex++];

	x->run = r->id;
	x->campaign = r->campaign_id;
	snprintf(x->profile, sizeof x->profile, "%s",
		 tui_or_unknown(r->profile));
	x->density_bp = r->density_bp;
	x->seed = r->seed;
	return s->nex < TUI_REPORT_EXAMPLES;
}

/* The first runs may have kept only the finder's stack (the armed
 * access's thread answers when its delay window closes, if it was asked
 * in time): a run that kept both, when there is one, is an example too,
 * in the last place. */
static wasm_status pair_example(struct db *d, tui_report *s, wasm_err *e)
{
	int64_t run;
	db_run r;
	wasm_status st;

	if ((st = db_bug_pair_run(d, s->bug.id, &run, e)) || !run)
		return st;
	for (int i = 0; i < s->nex; i++)
		if (s->ex[i].run == run)
			return WASM_OK;
	if ((st = db_run_get(d, run, &r, e)))
		return st;
	if (s->nex == TUI_REPORT_EXAMPLES)
		s->nex--;
	example_row(s, &r);
	db_run_clear(&r);
	return WASM_OK;
}

static bool example_bug(void *vctx, const db_run_bug *rb)
{
	tui_report *s = vctx;
	tui_example *x = &s->ex[s->cur];

	if (rb->bug_id != s->bug.id)
		return true;
	x->found = true;
	memcpy(x->tid, rb->tid, sizeof rb->tid);
	memcpy(x->addr, rb->addr, sizeof rb->addr);
	x->count = rb->count;
	x->value = rb->value;
	return false;
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	char *p = wasm_malloc(n);

	if (p)
		memcpy(p, s ? s : "", n);
	return p;
}

static bool cell_row(void *vctx, const db_cell *c)
{
	tui_report *s = vctx;
	tui_cell *x;

	if (s->ncells == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		void *p = wasm_realloc(s->cells, cap * sizeof *s->cells);
		if (!p) {
			s->nomem = true;
			return false;
		}
		s->cells = p;
		s->cap = cap;
	}
	x = &s->cells[s->ncells];
	x->node = dup_str(c->node);
	x->profile = dup_str(c->profile);
	if (!x->node || !x->profile) {
		wasm_free(x->node);
		wasm_free(x->profile);
		s->nomem = true;
		return false;
	}
	x->node_id = c->node_id;
	x->density_bp = c->density_bp;
	x->k = c->k;
	x->n = c->n;
	s->ncells++;
	return true;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* The grid over the cells: a row per (node, profile) in the order the
 * database gives them, a column per density ascending. */
static bool build_grid(tui_report *s)
{
	size_t nd = 0;

	s->dens = wasm_malloc((s->ncells + 1) * sizeof *s->dens);
	s->row_of = wasm_malloc((s->ncells + 1) * sizeof *s->row_of);
	if (!s->dens || !s->row_of)
		return false;
	for (size_t i = 0; i < s->ncells; i++) {
		const tui_cell *c = &s->cells[i];
		size_t r = 0;
		s->dens[i] = c->density_bp;
		s->multi_node |= c->node_id != s->cells[0].node_id;
		while (r < s->nrows &&
		       (s->cells[s->row_of[r]].node_id != c->node_id ||
			strcmp(s->cells[s->row_of[r]].profile, c->profile)))
			r++;
		if (r == s->nrows)
			s->row_of[s->nrows++] = i;
	}
	qsort(s->dens, s->ncells, sizeof *s->dens, cmp_u32);
	for (size_t i = 0; i < s->ncells; i++)
		if (!nd || s->dens[nd - 1] != s->dens[i])
			s->dens[nd++] = s->dens[i];
	s->ndens = nd;
	return true;
}

const tui_cell *tui_report_cell(const tui_report *r, size_t row, size_t col)
{
	const tui_cell *first;

	if (row >= r->nrows || col >= r->ndens)
		return NULL;
	first = &r->cells[r->row_of[row]];
	for (size_t i = r->row_of[row]; i < r->ncells; i++) {
		const tui_cell *c = &r->cells[i];
		if (c->node_id == first->node_id &&
		    c->density_bp == r->dens[col] &&
		    !strcmp(c->profile, first->profile))
			return c;
	}
	return NULL;
}

/* The stacks of s's examples: a run that kept both (one collision's pair,
 * with its value), the first whose value changed, else the first; with
 * none, per site the first run that kept one. */
static wasm_status pick_stacks(struct db *d, tui_report *s, wasm_err *e)
{
	wasm_status st;
	bool paired = false;

	s->evidence = -1;
	for (int i = 0; i < s->nex; i++)
		if (s->ex[i].found) {
			s->evidence = i;
			break;
		}
	for (int i = 0; i < s->nex; i++) {
		db_stack got[2];
		bool both, better;
		if ((st =
			 db_run_bug_stacks(d, s->ex[i].run, s->bug.id, got, e)))
			return st;
		both = got[0].n && got[1].n;
		better =
		    both &&
		    (!paired || (!db_value_changed(&s->ex[s->evidence].value) &&
				 db_value_changed(&s->ex[i].value)));
		for (int k = 0; k < 2; k++) {
			if (better || (!paired && !both && got[k].n &&
				       !s->stack_run[k])) {
				db_stack_clear(&s->stack[k]);
				s->stack[k] = got[k];
				s->stack_run[k] = s->ex[i].run;
			} else {
				db_stack_clear(&got[k]);
			}
		}
		if (better) {
			s->evidence = i;
			paired = true;
		}
	}
	return WASM_OK;
}

void tui_report_race(FILE *out, const tui_report *s)
{
	const db_bug *b = &s->bug;
	const tui_example *x = s->evidence >= 0 ? &s->ex[s->evidence] : NULL;
	char title[96];
	tui_race r = {.title = title};

	if (x)
		snprintf(title, sizeof title, "bug %" PRId64 ", run %" PRId64,
			 b->id, x->run);
	else
		snprintf(title, sizeof title, "bug %" PRId64, b->id);
	for (int i = 0; i < 2; i++)
		r.acc[i] = (tui_access){
		    .kind = b->site[i].kind,
		    .width = b->site[i].width,
		    .addr = x ? x->addr[i] : 0,
		    .tid = x ? x->tid[i] : 0,
		    .site = b->site[i].id,
		    .stack = &s->stack[i],
		    .func = b->site[i].func,
		    .file = b->site[i].file,
		    .line = b->site[i].line,
		    .spawn = &s->spawn[i],
		    .locks = &s->locks[i],
		    .name = s->name[i],
		};
	r.loc = &s->loc;
	/* A pair of stacks or a value is a collision's; so is a bug that only
	 * sweeps saw. */
	r.concurrent =
	    (s->stack_run[0] && s->stack_run[0] == s->stack_run[1]) ||
	    (x && x->value.width) || !(b->found_by & DB_FOUND_HB);
	r.value = x ? &x->value : NULL;
	tui_race_print(out, &r);
}

/* Keep the newest decision's note (decisions come oldest first). */
static bool last_note(void *vctx, const db_triage *t)
{
	tui_report *s = vctx;

	wasm_free(s->note);
	s->note = t->note ? dup_str(t->note) : NULL;
	s->nomem |= t->note && !s->note;
	return true;
}

/* The bug's first serial run with its schedule, when it has one. */
static wasm_status load_sched(db *d, tui_report *s, wasm_err *e)
{
	db_run run = {0};
	db_campaign c = {0};
	bool has;
	wasm_status st;

	if ((st = db_bug_sched_run(d, s->bug.id, &s->sched_run, e)) ||
	    !s->sched_run)
		return st;
	if (!(st = db_run_sched(d, s->sched_run, &s->sched, &has, e)) &&
	    !(st = db_run_get(d, s->sched_run, &run, e)) &&
	    !(st = db_campaign_get(d, run.campaign_id, &c, e))) {
		s->sched_campaign = c.id;
		s->sched_strategy = c.schedule;
		c.schedule = NULL;
	}
	db_run_clear(&run);
	db_campaign_clear(&c);
	return st;
}

wasm_status tui_report_load(struct db *d, int64_t bug, tui_report *s,
			    wasm_err *e)
{
	wasm_status st;

	memset(s, 0, sizeof *s);
	if ((st = db_bug_get(d, bug, &s->bug, e)) ||
	    (st = db_program_get(d, s->bug.program_id, &s->prog, e)) ||
	    (st = db_triage_list(d, bug, last_note, s, e)) ||
	    (st = db_run_list(d, 0, bug, example_row, s, e)) ||
	    (st = pair_example(d, s, e)))
		return st;
	/* One run's bugs at a time, after the run list is done with. */
	for (s->cur = 0; s->cur < s->nex; s->cur++)
		if ((st = db_run_bugs(d, s->ex[s->cur].run, example_bug, s, e)))
			return st;
	if ((st = pick_stacks(d, s, e)))
		return st;
	if (s->evidence >= 0 &&
	    ((st = db_run_bug_where(d, s->ex[s->evidence].run, bug, &s->loc,
				    s->spawn, e)) ||
	     (st = db_run_bug_locks(d, s->ex[s->evidence].run, bug, s->locks,
				    e)) ||
	     (st = db_run_bug_names(d, s->ex[s->evidence].run, bug, s->name,
				    e))))
		return st;
	if ((st = db_bug_cells(d, bug, cell_row, s, e)) ||
	    (st = load_sched(d, s, e)))
		return st;
	if (s->nomem || !build_grid(s))
		return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	return WASM_OK;
}

void tui_report_free(tui_report *s)
{
	for (size_t i = 0; i < s->ncells; i++) {
		wasm_free(s->cells[i].node);
		wasm_free(s->cells[i].profile);
	}
	wasm_free(s->cells);
	wasm_free(s->dens);
	wasm_free(s->row_of);
	db_program_clear(&s->prog);
	db_bug_clear(&s->bug);
	db_stack_clear(&s->stack[0]);
	db_stack_clear(&s->stack[1]);
	wasm_free(s->note);
	db_loc_clear(&s->loc);
	db_stack_clear(&s->spawn[0].stack);
	db_stack_clear(&s->spawn[1].stack);
	db_sched_clear(&s->sched);
	wasm_free(s->sched_strategy);
	db_locks_clear(&s->locks[0]);
	db_locks_clear(&s->locks[1]);
	memset(s, 0, sizeof *s);
}

FILE *tui_find_source(const char *file, const char *progpath, char *path,
		      size_t cap)
{
	const char *base = strrchr(file, '/');
	const char *slash = progpath ? strrchr(progpath, '/') : NULL;
	int dirlen = slash ? (int)(slash - progpath) : 1;
	const char *dir = slash ? progpath : ".";
	FILE *f;

	base = base ? base + 1 : file;
	snprintf(path, cap, "%s", file);
	if ((f = fopen(path, "r")))
		return f;
	snprintf(path, cap, "%s", base);
	if (base != file && (f = fopen(path, "r")))
		return f;
	if (file[0] != '/') {
		snprintf(path, cap, "%.*s/%s", dirlen, dir, file);
		if ((f = fopen(path, "r")))
			return f;
	}
	snprintf(path, cap, "%.*s/%s", dirlen, dir, base);
	return fopen(path, "r");
}

bool tui_read_context(const struct db_bug_site *site, const char *progpath,
		      tui_context *cx)
{
	char buf[TUI_CONTEXT_COLS + 2];
	uint32_t lo, hi, no = 1;
	bool at_start = true;
	FILE *f;

	cx->n = 0;
	if (!site->file || !*site->file || !site->line)
		return false;
	if (!(f = tui_find_source(site->file, progpath, cx->path,
				  sizeof cx->path)))
		return false;
	lo =
	    site->line > TUI_CONTEXT_LINES ? site->line - TUI_CONTEXT_LINES : 1;
	hi = site->line + TUI_CONTEXT_LINES;
	cx->first = lo;
	/* fgets in pieces: a long line is cut at TUI_CONTEXT_COLS and the rest
	 * skipped. */
	while (no <= hi && fgets(buf, sizeof buf, f)) {
		size_t len = strlen(buf);
		bool eol = len && buf[len - 1] == '\n';
		if (at_start && no >= lo) {
			char *t = cx->text[cx->n++];
			size_t k = 0;
			for (size_t i = 0; i < len && k < TUI_CONTEXT_COLS;
			     i++) {
				unsigned char ch = (unsigned char)buf[i];
				if (ch == '\n' || ch == '\r')
					continue;
				/* The terminal gets no control bytes. */
				t[k++] =
				    ch == '\t' || ch >= 0x20 ? (char)ch : '?';
			}
			t[k] = '\0';
		}
		at_start = eol;
		no += eol;
	}
	fclose(f);
	return site->line - lo < cx->n;
}
