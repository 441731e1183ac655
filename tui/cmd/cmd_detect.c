/*
 * cmd_detect.c - the detector's commands: `heisen run` under a mask
 * (--density / --mask), `heisen sweep` and `heisen shared`. The work is
 * in detector/; this file turns options into a campaign and prints.
 */
#include "tui/cli.h"
#include "tui/jsonw.h"
#include "tui/race.h"
#include "tui/report_fmt.h"

#include "db/db.h"
#include "detector/campaign.h"
#include "detector/suppress.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Exit status of a sweep stopped by Ctrl-C: what a shell reports for a
 * job ended by SIGINT. */
enum { SWEEP_EXIT_INTERRUPTED = 130 };

bool tui_parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long k;

	if (!v || !*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	k = strtoull(v, &end, 0);
	if (errno || *end || k < lo || k > hi)
		return false;
	*out = (uint32_t)k;
	return true;
}

bool tui_parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!v || !*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return !errno && !*end;
}

/* "90", "90s", "10m", "2h", "1.5h": seconds. */
bool tui_parse_duration(const char *v, double *out)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(v, &end);
	if (end == v || errno || !isfinite(s) || s <= 0)
		return false;
	if (*end == 'm')
		s *= 60, end++;
	else if (*end == 'h')
		s *= 3600, end++;
	else if (*end == 's')
		end++;
	*out = s;
	return !*end;
}

static uint64_t random_seed(void)
{
	uint64_t s = 0;

	if (getrandom(&s, sizeof s, 0) != sizeof s)
		s = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^
		    (uint64_t)time(NULL);
	return s;
}

/* `func file:line` of a site of p. */
void tui_prog_site_text(const det_prog *p, uint32_t site, char *buf, size_t cap)
{
	char fn[128];
	rw_srcpos pos;

	det_prog_site(p, site, fn, sizeof fn, &pos);
	if (pos.file)
		snprintf(buf, cap, "%s %s:%u", fn, pos.file, pos.line);
	else
		snprintf(buf, cap, "%s ?", fn);
}

void tui_json_prog_site(tui_json *j, const det_prog *p, uint32_t site)
{
	tui_json_prog_access(j, p, site,
			     site < p->sites.nsites ? p->sites.sites[site].kind
						    : UINT8_MAX);
}

void tui_json_prog_access(tui_json *j, const det_prog *p, uint32_t site,
			  uint8_t kind)
{
	char fn[128];
	rw_srcpos pos;

	det_prog_site(p, site, fn, sizeof fn, &pos);
	tui_json_u64(j, "site", site);
	tui_json_str(j, "kind", rw_kind_name((rw_kind)kind));
	tui_json_str(j, "function", fn);
	if (pos.file) {
		tui_json_str(j, "file", pos.file);
		tui_json_u64(j, "line", pos.line);
	} else {
		tui_json_null(j, "file");
		tui_json_null(j, "line");
	}
}

void tui_json_stack(tui_json *j, const char *key, const db_stack *s)
{
	if (!s->n) {
		tui_json_null(j, key);
		tui_json_bool(j, "stack_truncated", false);
		return;
	}
	tui_json_arr(j, key);
	for (uint32_t i = 0; i < s->n; i++) {
		const db_frame *f = &s->frame[i];
		tui_json_obj(j, NULL);
		tui_json_str(j, "function", f->func);
		if (f->file) {
			tui_json_str(j, "file", f->file);
			tui_json_u64(j, "line", f->line);
		} else {
			tui_json_null(j, "file");
			tui_json_null(j, "line");
		}
		tui_json_u64(j, "offset", f->offset);
		tui_json_bool(j, "inlined", f->inlined);
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_bool(j, "stack_truncated", s->truncated);
}

int tui_opt_workers(const tui_cmd *cmd, const tui_args *a, uint32_t *jobs,
		    double *timeout_s, FILE *err)
{
	const char *v;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	*jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	*timeout_s = 10;
	if ((v = tui_opt_value(cmd, a, "--jobs")) &&
	    !tui_parse_u32(v, 1, 256, jobs)) {
		fprintf(err, "heisen %s: --jobs expects 1 to 256, got '%s'\n",
			cmd->name, v);
		return TUI_EXIT_USAGE;
	}
	if ((v = tui_opt_value(cmd, a, "--timeout")) &&
	    !tui_parse_duration(v, timeout_s)) {
		fprintf(err,
			"heisen %s: --timeout expects a duration such as "
			"5 or 30s, got '%s'\n",
			cmd->name, v);
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

bool tui_campaign_args(const tui_args *a, db_campaign *c)
{
	size_t alen = 0;

	c->nargs = (uint32_t)(a->noperands - 1);
	for (int i = 1; i < a->noperands; i++)
		alen += strlen(a->operands[i]) + 1;
	if (!(c->args = malloc(alen ? alen : 1)))
		return false;
	for (int i = 1, at = 0; i < a->noperands; i++) {
		size_t l = strlen(a->operands[i]) + 1;
		memcpy(c->args + at, a->operands[i], l);
		at += (int)l;
	}
	return true;
}

wasm_status tui_campaign_add(db *d, const det_prog *p, db_campaign *c,
			     wasm_err *e)
{
	char *abs = realpath(p->path, NULL);
	wasm_status st =
	    db_program_put(d, p->sites.hash, p->name, abs ? abs : p->path,
			   p->sites.nsites, &c->program_id, e);

	free(abs);
	if (!st)
		st = db_node_self(d, &c->node_id, e);
	if (!st)
		st = db_campaign_new(d, c, e);
	return st;
}

static int load_prog(const char *path, det_prog **p, FILE *err)
{
	wasm_err e;
	wasm_status st = det_prog_load(path, p, &e);

	if (st) {
		tui_print_err(err, path, &e);
		return tui_exit_for(st);
	}
	return TUI_EXIT_OK;
}

/* ---- one masked run's report: run --density / --mask, rerun -------------- */

/* What a masked run was and what it found. */
typedef struct run_report {
	const char *file;      /* the program, as given or as recorded */
	const char *mask_file; /* --mask; NULL: density_bp and seed */
	uint32_t density_bp;
	uint64_t seed;
	uint32_t npool; /* sites the mask chose from */
	uint32_t armed, delay;
	const det_profile *prof;
	const det_run_result *res;
	/* res's violations as the workspace keeps hits (sites named, both
	 * stacks, the value), named once for the judging and the report;
	 * their function names in func. Owned: run_report_clear. */
	db_hit *hit;
	uint32_t nhit;
	char (*func)[2][128];
	/* Suppressions (NULL: none): suppressed[i] says violation i is left
	 * out, nsuppressed of them. */
	const det_supp *supp;
	bool *suppressed;
	uint32_t nsuppressed;
} run_report;

/* Name r->res's violations into r->hit; false when out of memory. */
static bool run_report_name(run_report *r, const det_prog *p)
{
	uint32_t n = r->res->nbugs;
	wasm_err e;

	r->hit = wasm_calloc(n + 1, sizeof *r->hit);
	r->func = wasm_calloc(n + 1, sizeof *r->func);
	r->suppressed = wasm_calloc(n + 1, sizeof *r->suppressed);
	if (!r->hit || !r->func || !r->suppressed)
		return false;
	for (; r->nhit < n; r->nhit++)
		if (det_prog_hit(p, &r->res->bugs[r->nhit], &r->hit[r->nhit],
				 r->func[r->nhit], &e))
			return false;
	return true;
}

static void run_report_clear(run_report *r)
{
	for (uint32_t i = 0; i < r->nhit; i++)
		db_hit_clear(&r->hit[i]);
	wasm_free(r->hit);
	wasm_free(r->func);
	wasm_free(r->suppressed);
	r->hit = NULL;
	r->nhit = 0;
	r->func = NULL;
	r->suppressed = NULL;
}

/* Which of r's violations the suppressions leave out, into
 * r->suppressed, each counted as its rule's hit. */
static void judge_violations(run_report *r, det_supp *supp)
{
	r->supp = supp;
	for (uint32_t i = 0; supp && i < r->res->nbugs; i++) {
		const det_supp_rule *rule =
		    det_supp_match_hit(supp, &r->hit[i]);
		det_supp_hit(supp, rule);
		r->suppressed[i] = rule != NULL;
		r->nsuppressed += r->suppressed[i];
	}
}

static bool left_out(const run_report *r, uint32_t i)
{
	return r->suppressed && r->suppressed[i];
}

/* One violation of a masked run, v named as h, in the one text of a race
 * (tui/race.h): the access that found the other armed first. */
static void print_violation(FILE *out, const det_violation *v, const db_hit *h,
			    uint32_t i, uint32_t n)
{
	char title[96];
	int first = v->cur < 2 ? v->cur : 1;
	db_value value = h->value;
	tui_race r = {.title = title, .concurrent = true, .value = &value};

	snprintf(title, sizeof title,
		 "violation %u of %u, %" PRIu64 " time%s in the run", i + 1, n,
		 v->count, v->count == 1 ? "" : "s");
	for (int k = 0; k < 2; k++) {
		int x = k ? 1 - first : first;
		r.acc[k] = (tui_access){
		    .kind = h->site[x].kind,
		    .width = h->site[x].width,
		    .addr = h->addr[x],
		    .tid = h->tid[x],
		    .site = h->site[x].id,
		    .stack = &h->stack[x],
		    .func = h->site[x].func,
		    .file = h->site[x].file,
		    .line = h->site[x].line,
		    .spawn = &h->spawn[x],
		};
	}
	r.loc = &h->loc;
	if (value.width)
		value.side = value.side == first ? 0 : 1;
	tui_race_print(out, &r);
}

/* The report of heisen.run/1: its members into j's open object, or with
 * j NULL as text on out. */
static void print_run(FILE *out, tui_json *j, const det_prog *p,
		      const run_report *r)
{
	const det_run_result *res = r->res;
	uint32_t nsites = p->sites.nsites;
	uint32_t shown = res->nbugs - r->nsuppressed;

	if (j) {
		char hex[20];
		tui_json_str(j, "schema", "heisen.run/1");
		tui_json_str(j, "file", r->file);
		if (r->mask_file) {
			tui_json_str(j, "mask_file", r->mask_file);
		} else {
			tui_json_u64(j, "density_bp", r->density_bp);
			snprintf(hex, sizeof hex, "%016" PRIx64, r->seed);
			tui_json_str(j, "seed", hex);
			tui_json_u64(j, "mask_version", DET_MASK_VERSION);
			tui_json_u64(j, "pool", r->npool);
		}
		tui_json_u64(j, "sites", nsites);
		tui_json_u64(j, "armed", r->armed);
		tui_json_u64(j, "delay", r->delay);
		tui_json_str(j, "profile", r->prof->name);
		tui_json_str(j, "status", det_status_name(res->status));
		tui_json_i64(j, "exit_code", res->exit_code);
		tui_json_str(j, "message", res->msg);
		tui_json_f64(j, "duration_ms", (double)res->duration_ns / 1e6);
		tui_json_u64(j, "probes", res->probes);
		tui_json_u64(j, "dropped", res->dropped);
		tui_json_arr(j, "violations");
		for (uint32_t i = 0; i < res->nbugs; i++) {
			const det_violation *v = &res->bugs[i];
			if (left_out(r, i))
				continue;
			tui_json_obj(j, NULL);
			tui_json_u64(j, "count", v->count);
			tui_json_arr(j, "sites");
			for (int k = 0; k < 2; k++) {
				tui_json_obj(j, NULL);
				tui_json_prog_access(j, p, v->site[k],
						     v->kind[k]);
				tui_json_u64(j, "thread", v->tid[k]);
				tui_json_u64(j, "address", v->addr[k]);
				tui_json_stack(j, "stack", &r->hit[i].stack[k]);
				tui_json_spawn(j, "created_by",
					       &r->hit[i].spawn[k]);
				tui_json_end(j, '}');
			}
			tui_json_end(j, ']');
			tui_json_value(j, "value", &r->hit[i].value);
			tui_json_loc(j, "location", &r->hit[i].loc);
			tui_json_end(j, '}');
		}
		tui_json_end(j, ']');
		tui_supp_json(j, r->supp, r->nsuppressed);
		return;
	}
	if (r->mask_file)
		fprintf(out, "heisen: mask %s: %u of %u sites armed; ",
			r->mask_file, r->armed, nsites);
	else if (r->npool != nsites)
		fprintf(out,
			"heisen: density %.2f%% seed 0x%016" PRIx64
			": %u of %u sites armed (pool of %u shared sites); ",
			r->density_bp / 100.0, r->seed, r->armed, nsites,
			r->npool);
	else
		fprintf(out,
			"heisen: density %.2f%% seed 0x%016" PRIx64
			": %u of %u sites armed; ",
			r->density_bp / 100.0, r->seed, r->armed, nsites);
	fprintf(out, "%s", det_status_name(res->status));
	if (res->status == DET_OK || res->status == DET_EXIT)
		fprintf(out, " %d", res->exit_code);
	else if (res->msg[0])
		fprintf(out, " (%s)", res->msg);
	fprintf(out, " in %.1f ms, %" PRIu64 " probe calls, %u violation%s\n",
		(double)res->duration_ns / 1e6, res->probes, shown,
		shown == 1 ? "" : "s");
	for (uint32_t i = 0, k = 0; i < res->nbugs; i++)
		if (!left_out(r, i))
			print_violation(out, &res->bugs[i], &r->hit[i], k++,
					shown);
	if (res->dropped)
		fprintf(out, "  (%u more distinct pairs not kept)\n",
			res->dropped);
	tui_supp_print(out, r->supp, r->nsuppressed, "violation", NULL);
}

/* `heisen run`'s exit status for a masked run that reports nbugs
 * violations. */
static int run_exit(const det_run_result *res, uint32_t nbugs, bool fail)
{
	int rc;

	switch (res->status) {
	case DET_OK:
	case DET_EXIT: rc = res->exit_code & 0xff; break;
	case DET_TIMEOUT: rc = 124; break;
	case DET_ERROR: rc = TUI_EXIT_USAGE; break;
	default: rc = 134;
	}
	if (fail && nbugs && rc == 0)
		rc = TUI_EXIT_FINDINGS;
	return rc;
}

static uint32_t count_armed(const uint8_t *mask, uint32_t n)
{
	uint32_t armed = 0;

	for (uint32_t i = 0; i < n; i++)
		armed += mask[i] != 0;
	return armed;
}

/* ---- heisen run --density / --mask --------------------------------------- */

int tui_run_masked(const tui_cmd *cmd, const tui_args *a,
		   const wasi_config *base, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	const char *dv = tui_opt_value(cmd, a, "--density");
	const char *mv = tui_opt_value(cmd, a, "--mask");
	const char *sv = tui_opt_value(cmd, a, "--seed");
	const char *pv = tui_opt_value(cmd, a, "--profile");
	const char *delv = tui_opt_value(cmd, a, "--delay");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_gate gate;
	uint32_t failing;
	det_prog *p = NULL;
	uint8_t *mask = NULL;
	uint32_t *dens = NULL, ndens = 0, delay = DET_DEFAULT_DELAY;
	uint64_t seed = 0;
	const det_profile *prof = det_profile_find("default");
	det_run_opts o = {0};
	det_run_result res = {0};
	run_report r = {0};
	det_supp *supp = NULL;
	wasm_err e;
	int rc;

	if (dv && mv) {
		fprintf(err,
			"heisen run: give --density or --mask, not both\n");
		return TUI_EXIT_USAGE;
	}
	if (sv && !tui_parse_u64(sv, &seed)) {
		fprintf(err,
			"heisen run: --seed expects a 64-bit number "
			"(decimal or 0x hex), got '%s'\n",
			sv);
		return TUI_EXIT_USAGE;
	}
	if (delv && !tui_parse_u32(delv, 0, 100000000, &delay)) {
		fprintf(err,
			"heisen run: --delay expects a number of spin "
			"units from 0 to 100000000, got '%s'\n",
			delv);
		return TUI_EXIT_USAGE;
	}
	if (pv && !(prof = det_profile_find(pv))) {
		fprintf(err,
			"heisen run: unknown profile '%s' (see 'heisen "
			"profiles')\n",
			pv);
		return TUI_EXIT_USAGE;
	}
	if (dv && (det_parse_densities(dv, &dens, &ndens, &e) || ndens != 1)) {
		fprintf(err,
			"heisen run: --density expects one percentage in "
			"(0, 100], e.g. 50 or 12.5, got '%s'\n",
			dv);
		wasm_free(dens);
		return TUI_EXIT_USAGE;
	}
	if (dv && !sv)
		seed = random_seed();
	/* A bad gate or rules file is bad input: refused before anything
	 * runs. */
	if ((rc = tui_gate_parse(cmd, a, &gate, err)) ||
	    (rc = tui_supp_open(cmd, a, &supp, err)))
		goto done;
	if ((rc = load_prog(path, &p, err)))
		goto done;
	mask = wasm_calloc(p->sites.nsites ? p->sites.nsites : 1, 1);
	if (!mask) {
		fprintf(err, "heisen run: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	if (mv ? det_mask_read(mv, mask, p->sites.nsites, &e)
	       : det_mask_make(seed, dens[0], NULL, p->sites.nsites, mask,
			       p->sites.nsites, &e)) {
		tui_print_err(err, mv, &e);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	o.algo = DET_RACE;
	o.mask = mask;
	o.delay = delay;
	o.profile = prof;
	o.wasi = base;
	/* With --json, stdout carries the report: the program's output goes
	 * to stderr. */
	fflush(out);
	fflush(err);
	if (det_run(p->cm, &p->sites, &o, &res, &e)) {
		tui_print_err(err, path, &e);
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	r.file = path;
	r.mask_file = mv;
	r.density_bp = mv ? 0 : dens[0];
	r.seed = seed;
	r.npool = p->sites.nsites;
	r.armed = count_armed(mask, p->sites.nsites);
	r.delay = delay;
	r.prof = prof;
	r.res = &res;
	if (!run_report_name(&r, p)) {
		fprintf(err, "heisen run: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	judge_violations(&r, supp);
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		print_run(out, &j, p, &r);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		print_run(out, NULL, p, &r);
	}
	if (!(rc = tui_gate_hits(cmd, gate, tui_opt_value(cmd, a, "--db"),
				 p->name, r.hit, r.suppressed, r.nhit, &failing,
				 err)))
		rc = run_exit(&res, failing, gate != TUI_GATE_OFF);
done:
	det_run_result_free(&res);
	wasm_free(mask);
	wasm_free(dens);
	run_report_clear(&r);
	det_supp_free(supp);
	det_prog_free(p);
	return rc;
}

/* ---- heisen rerun -------------------------------------------------------- */

/* A list of bug ids. */
typedef struct id_list {
	int64_t *v;
	size_t n, cap;
	bool nomem;
} id_list;

static bool id_add(id_list *l, int64_t id)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		int64_t *v = wasm_realloc(l->v, nc * sizeof *v);
		if (!v) {
			l->nomem = true;
			return false;
		}
		l->v = v;
		l->cap = nc;
	}
	l->v[l->n++] = id;
	return true;
}

static bool id_has(const id_list *l, int64_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return true;
	return false;
}

static bool collect_run_bug(void *ctx, const db_run_bug *rb)
{
	return id_add(ctx, rb->bug_id);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* A rerun against its recording: the recorded bugs caught again, those
 * missed, and the violations the recording did not have (bug id 0 when
 * the workspace has no bug for the pair). */
typedef struct rerun_cmp {
	const id_list *recorded;
	id_list again, missed;
	id_list new_ids; /* per new violation, index into res->bugs */
	int64_t *new_bug;
} rerun_cmp;

/* bug[i]: the workspace's bug of violation i of res, 0 when it has none.
 * False when out of memory. */
static bool rerun_compare(rerun_cmp *rc, const id_list *recorded,
			  const int64_t *bug, const det_run_result *res)
{
	rc->recorded = recorded;
	rc->new_bug =
	    wasm_calloc(res->nbugs ? res->nbugs : 1, sizeof *rc->new_bug);
	if (!rc->new_bug)
		return false;
	for (uint32_t i = 0; i < res->nbugs; i++) {
		int64_t id = bug[i];
		if (id && id_has(recorded, id)) {
			if (!id_has(&rc->again, id) && !id_add(&rc->again, id))
				return false;
		} else {
			rc->new_bug[rc->new_ids.n] = id;
			if (!id_add(&rc->new_ids, i))
				return false;
		}
	}
	if (rc->again.n > 1)
		qsort(rc->again.v, rc->again.n, sizeof *rc->again.v, cmp_i64);
	for (size_t i = 0; i < recorded->n; i++)
		if (!id_has(&rc->again, recorded->v[i]) &&
		    !id_add(&rc->missed, recorded->v[i]))
			return false;
	return true;
}

static void rerun_cmp_free(rerun_cmp *rc)
{
	wasm_free(rc->again.v);
	wasm_free(rc->missed.v);
	wasm_free(rc->new_ids.v);
	wasm_free(rc->new_bug);
}

static void print_ids(FILE *out, const id_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fprintf(out, "%s%" PRId64, i ? " " : "", l->v[i]);
}

static void json_ids(tui_json *j, const char *key, const id_list *l)
{
	tui_json_arr(j, key);
	for (size_t i = 0; i < l->n; i++)
		tui_json_i64(j, NULL, l->v[i]);
	tui_json_end(j, ']');
}

/* The line after the run's report: what the recording had and how the
 * rerun compares. */
static void print_rerun_text(FILE *out, const db_run *run, const rerun_cmp *rc,
			     const det_run_result *res)
{
	fprintf(out, "rerun of run %" PRId64 " (recorded: %s", run->id,
		run->status);
	if (!strcmp(run->status, "ok") || !strcmp(run->status, "exit"))
		fprintf(out, " %d", run->exit_code);
	if (rc->recorded->n) {
		fprintf(out, ", bug%s ", rc->recorded->n == 1 ? "" : "s");
		print_ids(out, rc->recorded);
	} else {
		fprintf(out, ", no bugs");
	}
	fprintf(out, "): caught again %zu of %zu", rc->again.n,
		rc->recorded->n);
	if (rc->again.n) {
		fprintf(out, " (");
		print_ids(out, &rc->again);
		fprintf(out, ")");
	}
	if (rc->missed.n) {
		fprintf(out, ", missed ");
		print_ids(out, &rc->missed);
	}
	fprintf(out, "; new %zu", rc->new_ids.n);
	for (size_t i = 0; i < rc->new_ids.n; i++) {
		const det_violation *v = &res->bugs[rc->new_ids.v[i]];
		fprintf(out, i ? ", " : ": ");
		if (rc->new_bug[i])
			fprintf(out, "bug %" PRId64, rc->new_bug[i]);
		else
			fprintf(out, "sites %u/%u (no bug yet)", v->site[0],
				v->site[1]);
	}
	fprintf(out, "\n");
}

static void print_rerun_json(tui_json *j, const db_run *run,
			     const rerun_cmp *rc, const det_run_result *res,
			     const uint8_t *mask, uint32_t nsites)
{
	tui_json_obj(j, "rerun");
	tui_json_i64(j, "run", run->id);
	tui_json_i64(j, "campaign", run->campaign_id);
	tui_json_u64(j, "idx", run->idx);
	tui_json_str(j, "recorded_status", run->status);
	if (!strcmp(run->status, "ok") || !strcmp(run->status, "exit"))
		tui_json_i64(j, "recorded_exit_code", run->exit_code);
	else
		tui_json_null(j, "recorded_exit_code");
	json_ids(j, "recorded_bugs", rc->recorded);
	json_ids(j, "caught_again", &rc->again);
	json_ids(j, "missed", &rc->missed);
	tui_json_u64(j, "new", rc->new_ids.n);
	tui_json_arr(j, "new_bugs");
	for (size_t i = 0; i < rc->new_ids.n; i++) {
		const det_violation *v = &res->bugs[rc->new_ids.v[i]];
		tui_json_obj(j, NULL);
		if (rc->new_bug[i])
			tui_json_i64(j, "bug", rc->new_bug[i]);
		else
			tui_json_null(j, "bug");
		tui_json_arr(j, "sites");
		tui_json_u64(j, NULL, v->site[0]);
		tui_json_u64(j, NULL, v->site[1]);
		tui_json_end(j, ']');
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_arr(j, "armed_sites");
	for (uint32_t i = 0; i < nsites; i++)
		if (mask[i])
			tui_json_u64(j, NULL, i);
	tui_json_end(j, ']');
	tui_json_end(j, '}');
}

/* Load the program a campaign ran, from its recorded path, for a resume
 * or a rerun: exit 2 when the file is gone or is no longer the binary
 * the campaign ran (its hash), since masks and sites are the binary's,
 * or when this heisen draws masks differently from the one that ran it. */
static int load_recorded(const tui_cmd *cmd, const db_program *prog,
			 const db_campaign *c, det_prog **p, FILE *err)
{
	int64_t campaign = c->id;
	int rc;

	if (c->mask_version != DET_MASK_VERSION) {
		fprintf(err,
			"heisen %s: campaign %" PRId64 " drew its masks "
			"with mask generator version %u, this heisen "
			"with version %u: the same seeds would arm other "
			"sites; use the heisen that ran it, or start a "
			"new sweep\n",
			cmd->name, campaign, c->mask_version, DET_MASK_VERSION);
		return TUI_EXIT_USAGE;
	}

	if (access(prog->path, R_OK)) {
		fprintf(err,
			"heisen %s: the program of campaign %" PRId64
			" is gone: %s: %s; put the binary it ran back "
			"at that path, or sweep the current build "
			"('heisen sweep FILE.wasm')\n",
			cmd->name, campaign, prog->path, strerror(errno));
		return TUI_EXIT_USAGE;
	}
	if ((rc = load_prog(prog->path, p, err)))
		return rc;
	if ((*p)->sites.hash != prog->hash) {
		fprintf(err,
			"heisen %s: %s has changed since campaign %" PRId64
			" ran it (hash %016" PRIx64 ", now %016" PRIx64
			"): rebuild that version at this path, or sweep "
			"the new one ('heisen sweep %s')\n",
			cmd->name, prog->path, campaign, prog->hash,
			(*p)->sites.hash, prog->path);
		det_prog_free(*p);
		*p = NULL;
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

int tui_cmd_rerun(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	/* A --prune campaign whose pool came out empty arms nothing; a NULL
	 * pool would mean every site. */
	static const uint32_t empty_pool[1];
	const char *rv = a->operands[0];
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool fail = tui_opt_value(cmd, a, "--fail-on-bugs") != NULL;
	uint64_t id;
	db *d = NULL;
	const char *dbpath;
	db_run run = {0};
	db_campaign c = {0};
	db_program prog = {0};
	id_list recorded = {0};
	int64_t *vbug = NULL;
	rerun_cmp cmp = {0};
	det_prog *p = NULL;
	const det_profile *prof;
	const uint32_t *pool;
	uint32_t npool;
	uint8_t *mask = NULL;
	const char **argv = NULL;
	int devnull = -1;
	det_run_opts o = {0};
	det_run_result res = {0};
	run_report r = {0};
	wasm_err e;
	wasm_status st;
	int rc;

	if (!tui_parse_u64(rv, &id) || !id || id > INT64_MAX) {
		fprintf(err,
			"heisen rerun: '%s' is not a run id (a positive "
			"number; 'heisen runs CAMPAIGN' lists them)\n",
			rv);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d,
				       &dbpath, err)))
		return rc;
	if ((st = db_run_get(d, (int64_t)id, &run, &e)) ||
	    (st = db_campaign_get(d, run.campaign_id, &c, &e)) ||
	    (st = db_program_get(d, c.program_id, &prog, &e)) ||
	    (st = db_run_bugs(d, run.id, collect_run_bug, &recorded, &e))) {
		fprintf(err, "heisen rerun: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	if (recorded.nomem)
		goto oom;
	if (!(prof = det_profile_find(run.profile))) {
		fprintf(err,
			"heisen rerun: run %" PRId64 " ran under profile "
			"'%s', which this heisen does not have (see "
			"'heisen profiles')\n",
			run.id, run.profile);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	if ((rc = load_recorded(cmd, &prog, &c, &p, err)))
		goto done;
	/* The mask of detector/campaign.c's worker_job: the run's seed and
	 * density over the campaign's pool. */
	pool = c.prune ? (c.pruned ? c.pruned : empty_pool) : NULL;
	npool = c.prune ? c.npruned : p->sites.nsites;
	mask = wasm_calloc(p->sites.nsites ? p->sites.nsites : 1, 1);
	argv = wasm_malloc((c.nargs + 1) * sizeof *argv);
	if (!mask || !argv)
		goto oom;
	if ((st = det_mask_make(run.seed, run.density_bp, pool, npool, mask,
				p->sites.nsites, &e))) {
		fprintf(err, "heisen rerun: campaign %" PRId64 ": %s\n", c.id,
			e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	/* As the sweep ran it: argv[0] the recorded name, the campaign's
	 * arguments, no environment or directories, stdin empty. */
	argv[0] = prog.name;
	for (uint32_t i = 0, at = 0; i < c.nargs; i++) {
		argv[i + 1] = c.args + at;
		at += (uint32_t)strlen(c.args + at) + 1;
	}
	if ((devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(err, "heisen rerun: /dev/null: %s\n", strerror(errno));
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	o.algo = DET_RACE;
	o.mask = mask;
	o.delay = c.delay;
	o.profile = prof;
	o.argv = argv;
	o.argc = c.nargs + 1;
	o.stdio[0] = devnull;
	/* With --json, stdout carries the report, as with `heisen run`. */
	o.stdio[1] = fileno(json ? err : out);
	o.stdio[2] = fileno(err);
	o.timeout_s = c.timeout_s;
	fflush(out);
	fflush(err);
	if (det_run(p->cm, &p->sites, &o, &res, &e)) {
		tui_print_err(err, prog.path, &e);
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	/* Each violation's bug in the workspace, if it has one. */
	if (!(vbug = wasm_calloc(res.nbugs ? res.nbugs : 1, sizeof *vbug)))
		goto oom;
	for (uint32_t i = 0; i < res.nbugs; i++)
		if ((st = db_bug_find(d, prog.id, res.bugs[i].site[0],
				      res.bugs[i].site[1], &vbug[i], &e))) {
			fprintf(err, "heisen rerun: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
	if (!rerun_compare(&cmp, &recorded, vbug, &res))
		goto oom;
	r.file = prog.path;
	r.density_bp = run.density_bp;
	r.seed = run.seed;
	r.npool = npool;
	r.armed = count_armed(mask, p->sites.nsites);
	r.delay = c.delay;
	r.prof = prof;
	r.res = &res;
	if (!run_report_name(&r, p))
		goto oom;
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		print_run(out, &j, p, &r);
		print_rerun_json(&j, &run, &cmp, &res, mask, p->sites.nsites);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		print_run(out, NULL, p, &r);
		print_rerun_text(out, &run, &cmp, &res);
	}
	rc = run_exit(&res, res.nbugs, fail);
	goto done;
oom:
	fprintf(err, "heisen rerun: out of memory\n");
	rc = TUI_EXIT_INTERNAL;
done:
	if (devnull >= 0)
		close(devnull);
	run_report_clear(&r);
	rerun_cmp_free(&cmp);
	det_run_result_free(&res);
	wasm_free(argv);
	wasm_free(mask);
	det_prog_free(p);
	wasm_free(recorded.v);
	wasm_free(vbug);
	db_program_clear(&prog);
	db_campaign_clear(&c);
	db_run_clear(&run);
	if (d)
		db_close(d);
	return rc;
}

/* ---- heisen sweep -------------------------------------------------------- */

/* ---- sweep --progress-fd: heisen.progress/1 lines ----------------------
 *
 * JSON lines to a descriptor the caller opened (the TUI's pipe). Nothing
 * here may hold up the sweep: a write happens only when poll says the
 * descriptor takes data, at most PIPE_BUF bytes at a time (what a pipe
 * with room takes whole, without blocking); while older lines wait, a
 * progress line is dropped (the next one supersedes it) and other lines
 * queue, up to PROGRESS_QUEUE_MAX bytes, past which the reader is taken
 * to be stuck. When the reader is gone (EPIPE, SIGPIPE being ignored) or
 * stuck, writing stops silently and the sweep goes on. The end line gets
 * up to PROGRESS_END_WAIT_MS to go out. */
enum { PROGRESS_QUEUE_MAX = 1 << 20, PROGRESS_END_WAIT_MS = 2000 };

typedef struct progress_out {
	int fd;	     /* -1: not asked for, or given up */
	wasm_buf q;  /* bytes of whole lines not written yet */
	size_t qpos; /* q.data[qpos..q.len) are still to write */
	FILE *mem;   /* the line being built */
	char *line;
	size_t len;
} progress_out;

/* --progress-fd's value: an open descriptor we may write to. */
static int progress_open(const char *v, progress_out *po, FILE *err)
{
	uint32_t fd;
	int fl;

	po->fd = -1;
	if (!v)
		return TUI_EXIT_OK;
	if (!tui_parse_u32(v, 0, INT32_MAX, &fd)) {
		fprintf(err,
			"heisen sweep: --progress-fd expects a file "
			"descriptor number, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if ((fl = fcntl((int)fd, F_GETFL)) < 0) {
		fprintf(err,
			"heisen sweep: --progress-fd %u: not an open file "
			"descriptor (open it when starting heisen, e.g. "
			"'3>progress.jsonl', or pass a pipe's write "
			"end)\n",
			fd);
		return TUI_EXIT_USAGE;
	}
	if ((fl & O_ACCMODE) == O_RDONLY) {
		fprintf(err,
			"heisen sweep: --progress-fd %u is open for "
			"reading only\n",
			fd);
		return TUI_EXIT_USAGE;
	}
	po->fd = (int)fd;
	return TUI_EXIT_OK;
}

/* Write what fd takes now of b[0..n); how much that was. */
static size_t progress_write(progress_out *po, const void *b, size_t n,
			     int wait_ms)
{
	size_t done = 0;

	while (po->fd >= 0 && done < n) {
		struct pollfd pf = {po->fd, POLLOUT, 0};
		int k = poll(&pf, 1, wait_ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k > 0 && (pf.revents & (POLLERR | POLLHUP | POLLNVAL))) {
			po->fd = -1; /* the reader is gone */
			break;
		}
		if (k <= 0 || !(pf.revents & POLLOUT))
			break;
		size_t chunk = n - done < PIPE_BUF ? n - done : PIPE_BUF;
		ssize_t w = write(po->fd, (const char *)b + done, chunk);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				po->fd = -1;
			break;
		}
		done += (size_t)w;
	}
	return done;
}

/* Write queued bytes; wait_ms bounds each wait for room. */
static void progress_flush(progress_out *po, int wait_ms)
{
	size_t n = po->q.len - po->qpos;

	if (n)
		po->qpos +=
		    progress_write(po, po->q.data + po->qpos, n, wait_ms);
	if (po->qpos == po->q.len)
		po->qpos = po->q.len = 0;
}

/* Begin a line in j: false when progress lines are not wanted. */
static bool progress_begin(progress_out *po, tui_json *j, const char *event)
{
	if (po->fd < 0)
		return false;
	po->line = NULL;
	po->len = 0;
	if (!(po->mem = open_memstream(&po->line, &po->len)))
		return false;
	tui_json_init(j, po->mem);
	tui_json_obj(j, NULL);
	tui_json_str(j, "schema", "heisen.progress/1");
	tui_json_str(j, "event", event);
	return true;
}

/* End the line and send it (droppable: a progress line). */
static void progress_send(progress_out *po, tui_json *j, bool droppable)
{
	size_t sent = 0;

	tui_json_end(j, '}');
	tui_json_done(j);
	if (fclose(po->mem) || !po->line) {
		free(po->line);
		return;
	}
	progress_flush(po, 0);
	if (po->q.len == 0)
		sent = progress_write(po, po->line, po->len, 0);
	/* Once begun, a line is finished, or the reader would see half of
	 * it joined to the next. */
	if (po->fd >= 0 && sent < po->len && (sent || !droppable)) {
		wasm_buf_put(&po->q, po->line + sent, po->len - sent);
		if (po->q.oom || po->q.len - po->qpos > PROGRESS_QUEUE_MAX)
			po->fd = -1;
	}
	free(po->line);
}

/* The last line, given time to go out; the queue is released. */
static void progress_finish(progress_out *po)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t = t0;
	while (po->fd >= 0 && po->q.len &&
	       (t.tv_sec - t0.tv_sec) * 1000 +
		       (t.tv_nsec - t0.tv_nsec) / 1000000 <
		   PROGRESS_END_WAIT_MS) {
		progress_flush(po, 100);
		clock_gettime(CLOCK_MONOTONIC, &t);
	}
	wasm_buf_fini(&po->q);
	po->fd = -1;
}

/* Seconds until the plan or budget ends, or -1 before it is known. */
static double sweep_eta(const det_progress *pr)
{
	double eta = -1;

	if (pr->planned && pr->runs_per_s > 0)
		eta = pr->done < pr->planned
			  ? (double)(pr->planned - pr->done) / pr->runs_per_s
			  : 0;
	if (pr->budget_s > 0) {
		double left = pr->budget_s > pr->elapsed_s
				  ? pr->budget_s - pr->elapsed_s
				  : 0;
		if (eta < 0 || left < eta)
			eta = left;
	}
	return eta;
}

static void json_statuses(tui_json *j, const det_progress *pr)
{
	tui_json_obj(j, "statuses");
	for (int s = DET_OK; s <= DET_ERROR; s++)
		tui_json_u64(j, det_status_name((det_status)s),
			     pr->by_status[s]);
	tui_json_end(j, '}');
}

typedef struct sweep_ui {
	FILE *out, *err;
	bool tty;
	bool line_shown;
	const det_prog *prog;
	det_progress last; /* of this invocation */
	progress_out po;
	db *d; /* to name new bugs in progress lines */
	int64_t program_id;
	const det_supp *supp; /* new bugs it suppresses are not shown */
	tui_emit em;	      /* --format's report; its run lines stream */
} sweep_ui;

static void fmt_hms(double s, char *buf, size_t cap)
{
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, cap, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, cap, "%lu:%02lu", t / 60, t % 60);
}

static void progress_line(sweep_ui *u, const det_progress *pr)
{
	tui_json j;
	double eta = sweep_eta(pr);

	if (!progress_begin(&u->po, &j, "progress"))
		return;
	tui_json_u64(&j, "done", pr->done);
	if (pr->planned)
		tui_json_u64(&j, "planned", pr->planned);
	else
		tui_json_null(&j, "planned");
	tui_json_u64(&j, "bugs", pr->bugs);
	tui_json_f64(&j, "runs_per_s", pr->runs_per_s);
	tui_json_f64(&j, "elapsed_s", pr->elapsed_s);
	if (eta >= 0)
		tui_json_f64(&j, "eta_s", eta);
	else
		tui_json_null(&j, "eta_s");
	json_statuses(&j, pr);
	progress_send(&u->po, &j, true);
}

static void on_progress(void *ctx, const det_progress *pr)
{
	sweep_ui *u = ctx;
	char eta[32] = "-", el[32];
	double left = sweep_eta(pr);

	u->last = *pr;
	progress_line(u, pr);
	if (!u->tty)
		return;
	fmt_hms(pr->elapsed_s, el, sizeof el);
	if (left >= 0)
		fmt_hms(left, eta, sizeof eta);
	const char *bugs = pr->bugs == 1 ? "bug" : "bugs";
	if (pr->planned)
		fprintf(u->err,
			"\r\033[Ksweep: %" PRIu64 "/%" PRIu64
			" runs  %.0f runs/s  %" PRIu64
			" %s  %s elapsed  ETA %s",
			pr->done, pr->planned, pr->runs_per_s, pr->bugs, bugs,
			el, eta);
	else
		fprintf(u->err,
			"\r\033[Ksweep: %" PRIu64 " runs  %.0f runs/s  %" PRIu64
			" %s  %s elapsed  %s left",
			pr->done, pr->runs_per_s, pr->bugs, bugs, el, eta);
	fflush(u->err);
	u->line_shown = true;
}

static void bug_line(sweep_ui *u, const db_hit *h)
{
	tui_json j;
	char kinds[4];
	wasm_err e;
	/* The hook runs after the run's insert: the bug is in the open
	 * batch, which this connection sees. */
	int64_t id = 0;

	if (u->po.fd < 0)
		return;
	if (db_bug_find(u->d, u->program_id, h->site[0].id, h->site[1].id, &id,
			&e))
		id = 0;
	if (!progress_begin(&u->po, &j, "bug"))
		return;
	if (id)
		tui_json_i64(&j, "bug", id);
	else
		tui_json_null(&j, "bug");
	snprintf(kinds, sizeof kinds, "%c/%c", tui_kind_letter(h->site[0].kind),
		 tui_kind_letter(h->site[1].kind));
	tui_json_str(&j, "kinds", kinds);
	tui_json_arr(&j, "sites");
	for (int k = 0; k < 2; k++) {
		const db_site *s = &h->site[k];
		tui_json_obj(&j, NULL);
		tui_json_u64(&j, "site", s->id);
		tui_json_str(&j, "kind", rw_kind_name((rw_kind)s->kind));
		if (s->func)
			tui_json_str(&j, "function", s->func);
		else
			tui_json_null(&j, "function");
		if (s->file)
			tui_json_str(&j, "file", s->file);
		else
			tui_json_null(&j, "file");
		if (s->line)
			tui_json_u64(&j, "line", s->line);
		else
			tui_json_null(&j, "line");
		tui_json_u64(&j, "thread", h->tid[k]);
		tui_json_u64(&j, "address", h->addr[k]);
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	progress_send(&u->po, &j, false);
}

static void on_bug(void *ctx, const db_hit *h)
{
	sweep_ui *u = ctx;
	char s0[300], s1[300];

	bug_line(u, h);
	if (!u->tty || det_supp_match_hit(u->supp, h))
		return;
	tui_prog_site_text(u->prog, h->site[0].id, s0, sizeof s0);
	tui_prog_site_text(u->prog, h->site[1].id, s1, sizeof s1);
	fprintf(u->err, "\r\033[Knew bug: %c/%c %s <-> %s\n",
		tui_kind_letter(h->site[0].kind),
		tui_kind_letter(h->site[1].kind), s0, s1);
}

static void on_run(void *ctx, const db_run *r, const db_hit *hits,
		   uint32_t nhits)
{
	tui_emit_run(&((sweep_ui *)ctx)->em, r, hits, nhits);
}

static void start_line(sweep_ui *u, const db_campaign *c, bool resumed,
		       const char *dbpath)
{
	tui_json j;
	char hex[20];

	if (!progress_begin(&u->po, &j, "start"))
		return;
	tui_json_i64(&j, "campaign", c->id);
	tui_json_str(&j, "program", u->prog->name);
	tui_json_str(&j, "path", u->prog->path);
	tui_json_str(&j, "db", dbpath);
	tui_json_bool(&j, "resumed", resumed);
	if (c->planned)
		tui_json_u64(&j, "planned", c->planned);
	else
		tui_json_null(&j, "planned");
	if (c->budget_s > 0)
		tui_json_f64(&j, "budget_s", c->budget_s);
	else
		tui_json_null(&j, "budget_s");
	tui_json_u64(&j, "done", resumed ? c->done : 0);
	tui_json_u64(&j, "jobs", c->jobs);
	snprintf(hex, sizeof hex, "%016" PRIx64, c->seed);
	tui_json_str(&j, "seed", hex);
	progress_send(&u->po, &j, false);
}

static void end_line(sweep_ui *u, const char *status, uint64_t done,
		     uint64_t bugs, const char *msg)
{
	tui_json j;

	if (progress_begin(&u->po, &j, "end")) {
		tui_json_str(&j, "status", status);
		tui_json_u64(&j, "done", done);
		tui_json_u64(&j, "bugs", bugs);
		if (msg)
			tui_json_str(&j, "message", msg);
		json_statuses(&j, &u->last);
		progress_send(&u->po, &j, false);
	}
	progress_finish(&u->po);
}

static void on_sigint(int sig) { det_sweep_stop(); }

/* Fill a new campaign from the options; returns an exit code. */
static int plan_campaign(const tui_cmd *cmd, const tui_args *a, det_prog *p,
			 db_campaign *c, FILE *err)
{
	const char *v;
	wasm_err e;
	const det_profile **profs = NULL;
	uint32_t nprofs = 0;
	char every[256];
	int rc;

	/* Every profile by default: at an equal budget, runs spread over
	 * the profiles found at least as many bugs as one profile in the
	 * simulation over the demos (docs/analysis.md). */
	det_profile_names(every, sizeof every, ",");
	c->densities =
	    strdup((v = tui_opt_value(cmd, a, "--densities")) ? v : "5:100:5");
	c->profiles =
	    strdup((v = tui_opt_value(cmd, a, "--profiles")) ? v : every);
	if (!c->densities || !c->profiles)
		goto oom;
	if (det_parse_densities(c->densities, &c->density_bp, &c->ndensity,
				&e) ||
	    det_parse_profiles(c->profiles, &profs, &nprofs, &e)) {
		fprintf(err, "heisen sweep: %s\n", e.msg);
		return TUI_EXIT_USAGE;
	}
	wasm_free(profs);
	c->runs = 0;
	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !tui_parse_u32(v, 1, 100000000, &c->runs)) {
		fprintf(err,
			"heisen sweep: --runs expects a number of runs "
			"per cell from 1 to 100000000, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if ((v = tui_opt_value(cmd, a, "--budget")) &&
	    !tui_parse_duration(v, &c->budget_s)) {
		fprintf(err,
			"heisen sweep: --budget expects a duration such "
			"as 90s, 10m or 2h, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	/* 5 a cell over the four profiles: the 400 runs one profile had at
	 * 20 a cell. */
	if (!c->runs && c->budget_s <= 0)
		c->runs = 5;
	c->planned = c->runs ? (uint64_t)c->runs * c->ndensity * nprofs : 0;
	c->mask_version = DET_MASK_VERSION;
	if ((rc = tui_opt_workers(cmd, a, &c->jobs, &c->timeout_s, err)))
		return rc;
	c->seed = random_seed();
	if ((v = tui_opt_value(cmd, a, "--seed")) &&
	    !tui_parse_u64(v, &c->seed)) {
		fprintf(err,
			"heisen sweep: --seed expects a 64-bit number "
			"(decimal or 0x hex), got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	c->delay = DET_DEFAULT_DELAY;
	if ((v = tui_opt_value(cmd, a, "--delay")) &&
	    !tui_parse_u32(v, 0, 100000000, &c->delay)) {
		fprintf(err,
			"heisen sweep: --delay expects a number of spin "
			"units from 0 to 100000000, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if (!tui_campaign_args(a, c))
		goto oom;
	c->prune = tui_opt_value(cmd, a, "--prune") != NULL;
	if (c->prune) {
		uint8_t *shared = wasm_calloc(p->sites.nsites + 1, 1);
		const char **argv = malloc((size_t)a->noperands * sizeof *argv);
		uint32_t runs = 3;
		if (!shared || !argv) {
			wasm_free(shared);
			free(argv);
			goto oom;
		}
		argv[0] = p->name;
		for (int i = 1; i < a->noperands; i++)
			argv[i] = a->operands[i];
		if (det_shared_sites(p, argv, (uint32_t)a->noperands, runs,
				     c->jobs, c->timeout_s, shared, &e)) {
			fprintf(err, "heisen sweep: --prune: %s\n", e.msg);
			wasm_free(shared);
			free(argv);
			return det_sweep_stopped() ? SWEEP_EXIT_INTERRUPTED
						   : TUI_EXIT_USAGE;
		}
		free(argv);
		c->pruned =
		    wasm_malloc((p->sites.nsites + 1) * sizeof *c->pruned);
		if (!c->pruned) {
			wasm_free(shared);
			goto oom;
		}
		for (uint32_t i = 0; i < p->sites.nsites; i++)
			if (shared[i])
				c->pruned[c->npruned++] = i;
		wasm_free(shared);
	}
	return TUI_EXIT_OK;
oom:
	fprintf(err, "heisen sweep: out of memory\n");
	return TUI_EXIT_INTERNAL;
}

int tui_cmd_sweep(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *resume = tui_opt_value(cmd, a, "--resume");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_gate gate;
	db *d = NULL;
	det_prog *p = NULL;
	db_campaign c = {0};
	db_program prog = {0};
	wasm_err e;
	int rc;
	struct sigaction sa = {0}, old, pipe_old;
	bool pipe_set = false;
	sweep_ui ui = {.out = out, .err = err};
	det_sweep_hooks hooks = {
	    .progress = on_progress, .bug = on_bug, .run = on_run, .ctx = &ui};
	det_supp *supp = NULL;
	wasm_status st;

	if (!resume && a->noperands < 1) {
		fprintf(err,
			"heisen sweep: missing FILE.wasm (or --resume "
			"CAMPAIGN); usage: heisen sweep %s\n",
			cmd->usage);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_gate_parse(cmd, a, &gate, err)) ||
	    (rc = progress_open(tui_opt_value(cmd, a, "--progress-fd"), &ui.po,
				err)))
		return rc;
	if (resume) {
		static const char *const plan_opts[] = {
		    "--densities", "--runs",  "--budget", "--profiles",
		    "--seed",	   "--delay", "--prune",  "--timeout"};
		for (size_t i = 0; i < sizeof plan_opts / sizeof *plan_opts;
		     i++)
			if (tui_opt_value(cmd, a, plan_opts[i])) {
				fprintf(err,
					"heisen sweep: %s cannot change a "
					"campaign being resumed\n",
					plan_opts[i]);
				return TUI_EXIT_USAGE;
			}
		if (a->noperands) {
			fprintf(err, "heisen sweep: --resume takes the program "
				     "and its arguments from the campaign\n");
			return TUI_EXIT_USAGE;
		}
	}
	/* A bad format or rules file is bad input: refused before anything
	 * runs. */
	tui_emit_init(&ui.em, TUI_FORMAT_TEXT, cmd->name, out, NULL, gate,
		      NULL);
	if ((rc = tui_format_parse(cmd, a, &ui.em.fmt, &ui.em.root, err)))
		return rc;
	if ((rc = tui_supp_open(cmd, a, &supp, err))) {
		tui_emit_fini(&ui.em);
		return rc;
	}
	if (resume) {
		uint64_t id;
		if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
			return rc;
		const char *jv = tui_opt_value(cmd, a, "--jobs");
		if (!tui_parse_u64(resume, &id) || id > INT64_MAX) {
			fprintf(err,
				"heisen sweep: --resume expects a campaign "
				"id, got '%s'\n",
				resume);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if ((st = db_campaign_get(d, (int64_t)id, &c, &e)) ||
		    (st = db_program_get(d, c.program_id, &prog, &e))) {
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		if (!strcmp(c.status, "done")) {
			fprintf(err,
				"heisen sweep: campaign %" PRId64
				" is already complete (%" PRIu64 " runs)\n",
				c.id, c.done);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if (!strcmp(c.status, "running")) {
			if (c.owner_remote)
				fprintf(err,
					"heisen sweep: campaign %" PRId64
					" is marked running by a sweep on "
					"another machine (process %d there); "
					"heisen cannot tell from here whether "
					"it still runs: resume it there\n",
					c.id, c.owner_pid);
			else
				fprintf(err,
					"heisen sweep: campaign %" PRId64
					" is being run by process %d; stop "
					"that sweep first (Ctrl-C where it "
					"runs, S in the TUI) or let it "
					"finish\n",
					c.id, c.owner_pid);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if (!strcmp(c.status, "interrupted")) {
			char who[32] = "";
			if (c.owner_pid > 0)
				snprintf(who, sizeof who, " (process %d)",
					 c.owner_pid);
			fprintf(err,
				"heisen sweep: campaign %" PRId64
				" was interrupted: its sweep%s ended without "
				"stopping it (killed, or the machine went "
				"down); resuming with %" PRIu64 " runs "
				"recorded\n",
				c.id, who, c.done);
		}
		if (jv && !tui_parse_u32(jv, 1, 256, &c.jobs)) {
			fprintf(err,
				"heisen sweep: --jobs expects 1 to 256, "
				"got '%s'\n",
				jv);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if ((rc = load_recorded(cmd, &prog, &c, &p, err)))
			goto done;
	} else {
		if ((rc = load_prog(a->operands[0], &p, err)))
			goto done;
		if ((rc = plan_campaign(cmd, a, p, &c, err)))
			goto done;
		/* Only now: bad input must not leave an empty workspace. */
		if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
			goto done;
		if ((st = tui_campaign_add(d, p, &c, &e))) {
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
	}
	ui.prog = p;
	ui.tty = !json && !ui.em.fmt && isatty(fileno(err));
	ui.d = d;
	ui.program_id = c.program_id;
	ui.em.d = d;
	ui.em.program_id = c.program_id;
	ui.supp = supp;
	if (ui.po.fd >= 0) {
		/* A progress reader that goes away must cost its lines, not
		 * the sweep: EPIPE instead of SIGPIPE. */
		struct sigaction ign = {0};
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGPIPE, &ign, &pipe_old);
		pipe_set = true;
	}
	start_line(&ui, &c, resume != NULL,
		   db_path_choose(tui_opt_value(cmd, a, "--db")));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	st = det_sweep(d, p, &c, &hooks, &e);
	sigaction(SIGINT, &old, NULL);
	if (ui.line_shown)
		fprintf(err, "\r\033[K");
	if (st) {
		end_line(&ui, "error", ui.last.done, ui.last.bugs, e.msg);
		fprintf(err, "heisen sweep: campaign %" PRId64 ": %s\n", c.id,
			e.msg);
		rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
		goto done;
	}
	{
		db_campaign now = {0};
		tui_list l = {.out = out};
		tui_supp_list sl = {
		    .list = &l, .supp = supp, .d = d, .err = &e};
		if ((st = db_campaign_get(d, c.id, &now, &e))) {
			end_line(&ui, "error", ui.last.done, ui.last.bugs,
				 e.msg);
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		end_line(&ui, now.status, now.done, now.bugs, NULL);
		if (ui.em.fmt) {
			/* The campaign's bugs: those the gate judges. */
			tui_emit_end end = {.campaign = now.id,
					    .status = now.status,
					    .ran = true};
			l.em = &ui.em;
			tui_emit_program(&ui.em, p->name);
			if (!(st = db_bug_list_campaign(
				  d, now.id, tui_supp_bug_row, &sl, &e)) &&
			    !(st = sl.st)) {
				end.suppressed = sl.suppressed;
				st = tui_emit_close(&ui.em, &end, &e);
			}
			sl.st = st;
		} else if (json) {
			tui_json j;
			char hex[20];
			tui_json_init(&j, out);
			tui_json_obj(&j, NULL);
			tui_json_str(&j, "schema", "heisen.sweep/1");
			tui_json_i64(&j, "campaign", now.id);
			tui_json_str(&j, "program", p->name);
			tui_json_str(&j, "status", now.status);
			tui_json_u64(&j, "planned", now.planned);
			tui_json_u64(&j, "done", now.done);
			tui_json_u64(&j, "cells", now.cells);
			tui_json_u64(&j, "campaign_bugs", now.bugs);
			snprintf(hex, sizeof hex, "%016" PRIx64, now.seed);
			tui_json_str(&j, "seed", hex);
			/* Only what this invocation ran (not earlier, resumed
			 * parts). */
			tui_json_obj(&j, "statuses");
			for (int s = DET_OK; s <= DET_ERROR; s++)
				tui_json_u64(&j, det_status_name((det_status)s),
					     ui.last.by_status[s]);
			tui_json_end(&j, '}');
			tui_json_arr(&j, "program_bugs");
			l.j = &j;
			db_bug_list(d, now.program_id, tui_supp_bug_row, &sl,
				    &e);
			tui_json_end(&j, ']');
			tui_supp_json(&j, supp, sl.suppressed);
			tui_json_end(&j, '}');
			tui_json_done(&j);
		} else {
			fprintf(out,
				"campaign %" PRId64 " (%s): %" PRIu64
				" runs%s, %" PRIu64 " cells, %" PRIu64
				" bugs; seed 0x%016" PRIx64 "\n",
				now.id, now.status, now.done,
				!strcmp(now.status, "done") ? "" : " so far",
				now.cells, now.bugs, now.seed);
			if (strcmp(now.status, "done"))
				fprintf(out,
					"resume with: heisen sweep "
					"--resume %" PRId64 "\n",
					now.id);
			fprintf(out, "bugs of %s (all campaigns):\n", p->name);
			db_bug_list(d, now.program_id, tui_supp_bug_row, &sl,
				    &e);
			if (!l.n)
				fprintf(out, "  none\n");
			tui_supp_print(out, supp, sl.suppressed, "bug",
				       "'heisen bugs --show-suppressed' lists "
				       "them");
		}
		/* Only the campaign's bugs count, suppressed ones aside. */
		uint64_t failing = 0;
		if (!sl.st)
			sl.st = tui_gate_campaign(d, c.id, supp, gate, &failing,
						  &e);
		if (sl.st)
			fprintf(err, "heisen sweep: %s\n", e.msg);
		rc = sl.st		   ? tui_exit_for(sl.st)
		     : det_sweep_stopped() ? SWEEP_EXIT_INTERRUPTED
		     : failing		   ? TUI_EXIT_FINDINGS
					   : TUI_EXIT_OK;
		db_campaign_clear(&now);
	}
done:
	tui_emit_fini(&ui.em);
	progress_finish(&ui.po);
	if (pipe_set)
		sigaction(SIGPIPE, &pipe_old, NULL);
	db_program_clear(&prog);
	db_campaign_clear(&c);
	det_prog_free(p);
	det_supp_free(supp);
	if (d)
		db_close(d);
	return rc;
}

/* ---- heisen shared
 * ------------------------------------------------------------- */

int tui_cmd_shared(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *v;
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	uint32_t runs = 5, jobs, n = 0;
	det_prog *p = NULL;
	uint8_t *shared = NULL;
	const char **argv = NULL;
	double timeout;
	wasm_err e;
	int rc;

	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !tui_parse_u32(v, 1, 1000000, &runs)) {
		fprintf(err,
			"heisen shared: --runs expects 1 to 1000000, got "
			"'%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_opt_workers(cmd, a, &jobs, &timeout, err)))
		return rc;
	if ((rc = load_prog(a->operands[0], &p, err)))
		return rc;
	shared = wasm_calloc(p->sites.nsites + 1, 1);
	argv = malloc((size_t)a->noperands * sizeof *argv);
	if (!shared || !argv) {
		fprintf(err, "heisen shared: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	argv[0] = p->name;
	for (int i = 1; i < a->noperands; i++)
		argv[i] = a->operands[i];
	if (det_shared_sites(p, argv, (uint32_t)a->noperands, runs, jobs,
			     timeout, shared, &e)) {
		fprintf(err, "heisen shared: %s: %s\n", a->operands[0], e.msg);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	for (uint32_t i = 0; i < p->sites.nsites; i++)
		n += shared[i] != 0;
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.shared/1");
		tui_json_str(&j, "file", a->operands[0]);
		tui_json_u64(&j, "runs", runs);
		tui_json_u64(&j, "sites", p->sites.nsites);
		tui_json_arr(&j, "shared");
		for (uint32_t i = 0; i < p->sites.nsites; i++) {
			if (!shared[i])
				continue;
			tui_json_obj(&j, NULL);
			tui_json_prog_site(&j, p, i);
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out,
			"%u of %u sites touched memory shared between "
			"threads in %u runs:\n",
			n, p->sites.nsites, runs);
		for (uint32_t i = 0; i < p->sites.nsites; i++) {
			char s[300];
			if (!shared[i])
				continue;
			tui_prog_site_text(p, i, s, sizeof s);
			fprintf(out, "  %-6u %-12s %s\n", i,
				rw_kind_name(p->sites.sites[i].kind), s);
		}
	}
	rc = TUI_EXIT_OK;
done:
	free(argv);
	wasm_free(shared);
	det_prog_free(p);
	return rc;
}
