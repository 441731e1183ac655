/*
 * replay.c - reproduction of a logged race: specs from the workspace or
 * a repro file, the mask of each mode, replays in worker processes, and
 * the repro file format.
 */
#include "replay/replay.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const mode_names[] = {"pinned", "minimal", "trigger",
					 "failure", "schedule"};
#define NMODES (sizeof mode_names / sizeof *mode_names)

const char *rep_mode_name(rep_mode m)
{
	return (unsigned)m < NMODES ? mode_names[m] : "?";
}

bool rep_mode_parse(const char *s, rep_mode *out)
{
	for (unsigned i = 0; i < NMODES; i++)
		if (!strcmp(s, mode_names[i])) {
			*out = (rep_mode)i;
			return true;
		}
	return false;
}

static char *dup_or_null(const char *s)
{
	char *d;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	if ((d = wasm_malloc(n)))
		memcpy(d, s, n);
	return d;
}

void rep_spec_clear(rep_spec *s)
{
	wasm_free(s->program);
	wasm_free(s->program_path);
	for (int i = 0; i < 2; i++) {
		wasm_free(s->site[i].func);
		wasm_free(s->site[i].file);
	}
	wasm_free(s->pool);
	wasm_free(s->profile);
	wasm_free(s->args);
	wasm_free(s->input);
	wasi_world_clear(&s->world);
	wasm_free(s->failure);
	wasm_free(s->delay_sites);
	wasm_free(s->dec);
	memset(s, 0, sizeof *s);
}

static wasm_status nomem(wasm_err *err)
{
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
}

uint64_t rep_default_hold(uint64_t run_ns)
{
	uint64_t h = run_ns / 10;

	if (h < 1000000)
		h = 1000000;
	if (h > 1000000000)
		h = 1000000000;
	return h;
}

/* ---- from the workspace ---------------------------------------------- */

typedef struct bug_ids {
	int64_t v[8];
	uint32_t n;
	bool has; /* the wanted bug is among them */
	int64_t want;
} bug_ids;

static bool collect_run_bug(void *ctx, const db_run_bug *rb)
{
	bug_ids *b = ctx;

	if (rb->bug_id == b->want)
		b->has = true;
	if (b->n < 8)
		b->v[b->n] = rb->bug_id;
	b->n++;
	return true;
}

/* The addresses of the spec's bug in its run (s->bug_id set). */
static bool find_addr(void *ctx, const db_run_bug *rb)
{
	rep_spec *s = ctx;

	if (rb->bug_id != s->bug_id)
		return true;
	s->has_addr = true;
	s->addr[0] = rb->addr[0];
	s->addr[1] = rb->addr[1];
	return false;
}

static wasm_status copy_bug(const db_bug *b, rep_spec *s, wasm_err *err)
{
	for (int i = 0; i < 2; i++) {
		s->site[i].id = b->site[i].id;
		s->site[i].kind = b->site[i].kind;
		s->site[i].line = b->site[i].line;
		if ((b->site[i].func &&
		     !(s->site[i].func = dup_or_null(b->site[i].func))) ||
		    (b->site[i].file &&
		     !(s->site[i].file = dup_or_null(b->site[i].file))))
			return nomem(err);
	}
	return WASM_OK;
}

/* run_id's schedule into s, when it was serial. */
static wasm_status run_sched(db *d, int64_t run_id, rep_spec *s, wasm_err *err)
{
	db_sched sc;
	bool has;
	wasm_status st;

	wasm_free(s->dec);
	s->dec = NULL;
	s->ndec = 0;
	s->has_sched = s->has_dec = false;
	if ((st = db_run_sched(d, run_id, &sc, &has, err)) || !has)
		return st;
	s->has_sched = true;
	s->points = sc.points;
	s->digest = sc.digest;
	s->switches = sc.switches;
	s->has_dec = sc.kept;
	if (sc.kept && (st = rep_sched_decode(sc.decisions, sc.ndecisions,
					      &s->dec, &s->ndec, err))) {
		char msg[sizeof err->msg];
		snprintf(msg, sizeof msg, "%s", err->msg);
		st = wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
				  "run %" PRId64 ": %s", run_id, msg);
	}
	db_sched_clear(&sc);
	return st;
}

static wasm_status spec_from_db(db *d, int64_t bug_id, int64_t run_id,
				bool whole, rep_spec *out, wasm_err *err)
{
	db_bug bug = {0};
	db_run run = {0};
	db_campaign c = {0};
	db_program prog = {0};
	bug_ids ids = {.want = bug_id};
	wasm_status st;
	struct stat sb;

	memset(out, 0, sizeof *out);
	if (run_id && (st = db_run_get(d, run_id, &run, err)))
		goto out;
	if (run_id && (st = db_run_bugs(d, run_id, collect_run_bug, &ids, err)))
		goto out;
	if (run_id && (st = run_sched(d, run_id, out, err)))
		goto out;
	if (whole && !out->has_sched) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "run %" PRId64 " was not serial: it has no "
				  "schedule to replay",
				  run_id);
		goto out;
	}
	if (!bug_id && (whole || !ids.n) && out->has_sched) {
		out->whole_run = true;
	} else if (!bug_id) {
		if (ids.n != 1) {
			char list[160] = "";
			for (uint32_t i = 0; i < ids.n && i < 8; i++)
				snprintf(list + strlen(list),
					 sizeof list - strlen(list),
					 "%s%" PRId64, i ? ", " : "", ids.v[i]);
			if (!ids.n)
				st = wasm_err_set(
				    err, WASM_INVALID, WASM_NO_OFFSET,
				    "run %" PRId64 " detected no bug: replay "
				    "a bug, or a run that detected one",
				    run_id);
			else
				st = wasm_err_set(
				    err, WASM_INVALID, WASM_NO_OFFSET,
				    "run %" PRId64 " detected %u bugs (%s%s): "
				    "name one, 'heisen replay BUG --run "
				    "%" PRId64 "'",
				    run_id, ids.n, list,
				    ids.n > 8 ? ", ..." : "", run_id);
			goto out;
		}
		bug_id = ids.v[0];
		ids.has = true;
	}
	if (!out->whole_run && (st = db_bug_get(d, bug_id, &bug, err)))
		goto out;
	if (!run_id) {
		run_id = (int64_t)bug.first_run;
		if (!run_id) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "bug %" PRId64 " has no detecting "
					  "run in the workspace",
					  bug_id);
			goto out;
		}
		if ((st = db_run_get(d, run_id, &run, err)) ||
		    (st = run_sched(d, run_id, out, err)))
			goto out;
	} else if (!ids.has && !out->whole_run) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "run %" PRId64 " did not detect bug %" PRId64
				  " ('heisen runs CAMPAIGN --bug %" PRId64
				  "' lists the runs that did)",
				  run_id, bug_id, bug_id);
		goto out;
	}
	if ((st = db_campaign_get(d, run.campaign_id, &c, err)) ||
	    (st = db_program_get(d, c.program_id, &prog, err)))
		goto out;
	if (c.mask_version != DET_MASK_VERSION) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "campaign %" PRId64 " drew its masks with "
				  "mask generator version %u, this heisen with "
				  "version %u: replay it with the heisen that "
				  "ran it",
				  c.id, c.mask_version, DET_MASK_VERSION);
		goto out;
	}
	if (out->has_sched) {
		wasm_err pe;
		out->sched_collide = c.kind == DB_KIND_SWEEP;
		if (!c.schedule ||
		    rep_sched_parse(c.schedule, &out->sched, &pe)) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "campaign %" PRId64 " has a schedule "
					  "strategy this heisen does not know "
					  "('%s'): replay it with the heisen "
					  "that ran it",
					  c.id, c.schedule ? c.schedule : "");
			goto out;
		}
		out->sched.seed = run.seed;
		if (c.failure && !(out->failure = dup_or_null(c.failure))) {
			st = nomem(err);
			goto out;
		}
	}
	det_status_parse(run.status, &out->status);
	out->exit_code = run.exit_code;
	out->program = dup_or_null(prog.name);
	out->program_path = dup_or_null(prog.path);
	out->profile = dup_or_null(run.profile);
	if (!out->program || (prog.path && !out->program_path) ||
	    !out->profile ||
	    (!out->whole_run && (st = copy_bug(&bug, out, err)))) {
		st = st ? st : nomem(err);
		goto out;
	}
	out->program_hash = prog.hash;
	if (prog.path && stat(prog.path, &sb) == 0)
		out->program_size = (uint64_t)sb.st_size;
	out->nsites = prog.nsites;
	out->mode = REP_PINNED;
	out->seed = run.seed;
	out->density_bp = run.density_bp;
	out->mask_version = c.mask_version;
	if (c.prune) {
		out->npool = c.npruned;
		out->pool = wasm_malloc((c.npruned ? c.npruned : 1) *
					sizeof *out->pool);
		if (!out->pool) {
			st = nomem(err);
			goto out;
		}
		memcpy(out->pool, c.pruned, c.npruned * sizeof *out->pool);
	}
	{
		size_t alen = 0;
		for (uint32_t i = 0; i < c.nargs; i++)
			alen += strlen(c.args + alen) + 1;
		if (!(out->args = wasm_malloc(alen + 1))) {
			st = nomem(err);
			goto out;
		}
		memcpy(out->args, c.args, alen);
		out->args[alen] = '\0';
		out->nargs = c.nargs;
	}
	if (c.input_hash) {
		if (!(out->input = wasm_malloc(c.ninput ? c.ninput : 1))) {
			st = nomem(err);
			goto out;
		}
		memcpy(out->input, c.input, c.ninput);
		out->ninput = c.ninput;
	}
	if ((st = wasi_world_copy(&out->world, &c.world, err)))
		goto out;
	out->delay = c.delay;
	out->timeout_s = c.timeout_s;
	out->hold_ns = rep_default_hold(run.duration_us * 1000);
	out->bug_id = out->whole_run ? 0 : bug_id;
	out->run_id = run_id;
	if (!out->whole_run)
		st = db_run_bugs(d, run_id, find_addr, out, err);
out:
	if (st)
		rep_spec_clear(out);
	db_bug_clear(&bug);
	db_run_clear(&run);
	db_campaign_clear(&c);
	db_program_clear(&prog);
	return st;
}

wasm_status rep_spec_from_db(db *d, int64_t bug_id, int64_t run_id,
			     rep_spec *out, wasm_err *err)
{
	return spec_from_db(d, bug_id, run_id, false, out, err);
}

wasm_status rep_spec_from_run(db *d, int64_t run_id, rep_spec *out,
			      wasm_err *err)
{
	return spec_from_db(d, 0, run_id, true, out, err);
}

typedef struct cell_sum {
	const rep_spec *s;
	uint64_t k, n;
} cell_sum;

static bool add_cell(void *ctx, const db_cell *c)
{
	cell_sum *cs = ctx;

	if (c->density_bp == cs->s->density_bp && c->profile &&
	    cs->s->profile && !strcmp(c->profile, cs->s->profile)) {
		cs->k += c->k;
		cs->n += c->n;
	}
	return true;
}

wasm_status rep_cell(db *d, const rep_spec *s, uint64_t *k, uint64_t *n,
		     wasm_err *err)
{
	cell_sum cs = {s, 0, 0};
	wasm_status st = db_bug_cells(d, s->bug_id, add_cell, &cs, err);

	*k = cs.k;
	*n = cs.n;
	return st;
}

/* ---- the program and the mask ----------------------------------------- */

wasm_status rep_load_program(const rep_spec *s, const char *path, bool force,
			     det_prog **out, wasm_err *err)
{
	wasm_status st = det_prog_load(path, out, err);
	det_prog *p = *out;

	if (st)
		return st;
	if (p->sites.hash != s->program_hash && !force) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "not the program of this race: its hash is "
				  "%016" PRIx64 ", the race was found in %s "
				  "with hash %016" PRIx64
				  "; give that build, or --force to try this "
				  "one anyway (site ids may mean other code)",
				  p->sites.hash, s->program ? s->program : "?",
				  s->program_hash);
	} else if (s->mode == REP_FAILURE) {
		for (uint32_t i = 0; i < s->ndelay && !st; i++)
			if (s->delay_sites[i] >= p->sites.nsites)
				st = wasm_err_set(
				    err, WASM_INVALID, WASM_NO_OFFSET,
				    "it has %u sites; delay site %u does not "
				    "exist in it",
				    p->sites.nsites, s->delay_sites[i]);
	} else if (s->site[1].id >= p->sites.nsites) {
		st =
		    wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				 "it has %u sites; the race's sites %u and "
				 "%u do not all exist in it",
				 p->sites.nsites, s->site[0].id, s->site[1].id);
	}
	if (st) {
		det_prog_free(p);
		*out = NULL;
	}
	return st;
}

wasm_status rep_mask(const rep_spec *s, const det_prog *p, uint8_t *mask,
		     uint32_t *armed, wasm_err *err)
{
	uint32_t n = p->sites.nsites;
	wasm_status st;

	*armed = 0;
	memset(mask, 0, n);
	if (s->mode == REP_PINNED ||
	    (s->mode == REP_SCHEDULE && s->sched_collide)) {
		if (s->mask_version != DET_MASK_VERSION)
			return wasm_err_set(
			    err, WASM_INVALID, WASM_NO_OFFSET,
			    "the pinned mask was drawn by mask generator "
			    "version %u, this heisen has version %u: replay "
			    "with --mode minimal or trigger, or with the "
			    "heisen that found it",
			    s->mask_version, DET_MASK_VERSION);
		if ((st = det_mask_make(s->seed, s->density_bp, s->pool,
					s->pool ? s->npool : n, mask, n, err)))
			return st;
	}
	if (s->mode == REP_SCHEDULE) {
		/* Every site is a scheduling point of the recorded run, or a
		 * serial sweep's: the sites its mask armed. */
		if (!s->sched_collide)
			memset(mask, 1, n);
	} else if (s->mode == REP_FAILURE) {
		for (uint32_t i = 0; i < s->ndelay; i++)
			if (s->delay_sites[i] < n)
				mask[s->delay_sites[i]] = 1;
	} else {
		/* The bug's own sites are armed in every race mode: a pinned
		 * mask that detected the bug armed them already. */
		mask[s->site[0].id] = mask[s->site[1].id] = 1;
	}
	for (uint32_t i = 0; i < n; i++)
		*armed += mask[i] != 0;
	return WASM_OK;
}

/* ---- replays ------------------------------------------------------------ */

void rep_wilson(uint32_t k, uint32_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	double p = (double)k / n, z2n = z * z / n;
	double mid = (p + z2n / 2) / (1 + z2n);
	double half = z * sqrt(p * (1 - p) / n + z2n / (4.0 * n)) / (1 + z2n);

	*lo = k == 0 ? 0 : mid - half;
	*hi = k == n ? 1 : mid + half;
}

typedef struct replay_ctx {
	const rep_spec *s;
	const rep_opts *o;
	rep_result *res;
	char misfit[160]; /* why the decisions cannot be this program's */
} replay_ctx;

static bool on_batch_run(void *ctx, const det_batch_run_info *r)
{
	replay_ctx *c = ctx;
	rep_result *res = c->res;
	rep_run rr = {.info = r};

	bool race = c->s->mode != REP_FAILURE && !c->s->whole_run;
	bool diverged = c->s->mode == REP_SCHEDULE && !c->o->any_path &&
			(r->sched.digest != c->s->digest ||
			 r->sched.events != c->s->points);

	/* Decisions naming a thread the run never had, or a point past its
	 * end, were made for another program or edited: bad input. */
	if (c->s->mode == REP_SCHEDULE && c->s->has_dec && !c->o->any_path &&
	    r->status != DET_ERROR && r->status != DET_CRASH &&
	    !rep_sched_list_fits(c->s->dec, c->s->ndec, &r->sched, c->misfit,
				 sizeof c->misfit))
		return false;
	if (diverged && !res->diverged++) {
		res->div_digest = r->sched.digest;
		res->div_points = r->sched.events;
		res->div_at = r->diverged;
	}
	if (!race && !diverged &&
	    (c->s->failure ? r->failed
			   : r->status == c->s->status &&
				 r->exit_code == c->s->exit_code)) {
		rr.reproduced = true;
		if (res->first_index < 0)
			res->first_index = r->index;
	}
	for (uint32_t i = 0; race && !diverged && i < r->nbugs; i++)
		if (r->bugs[i].site[0] == c->s->site[0].id &&
		    r->bugs[i].site[1] == c->s->site[1].id) {
			rr.reproduced = true;
			if (res->first_index < 0) {
				res->first_index = r->index;
				memcpy(res->first_tid, r->bugs[i].tid,
				       sizeof res->first_tid);
				memcpy(res->first_addr, r->bugs[i].addr,
				       sizeof res->first_addr);
			}
		}
	res->runs++;
	res->reproduced += rr.reproduced;
	res->holds += r->holds;
	res->met += r->met;
	res->total_ns += r->duration_ns;
	if ((unsigned)r->status <= DET_ERROR)
		res->by_status[r->status]++;
	if (c->o->on_run && !c->o->on_run(c->o->ctx, &rr))
		return false;
	return !(rr.reproduced && c->o->until_first);
}

wasm_status rep_replay(const rep_spec *s, det_prog *p, const rep_opts *o,
		       rep_result *res, wasm_err *err)
{
	const char **argv = NULL;
	uint8_t *mask = wasm_calloc(p->sites.nsites ? p->sites.nsites : 1, 1);
	det_trigger trig = {{s->site[0].id, s->site[1].id},
			    s->hold_ns,
			    0,
			    s->has_addr && !o->any_address,
			    {s->addr[0], s->addr[1]}};
	replay_ctx c = {s, o, res, ""};
	det_batch b = {0};
	det_failure fail;
	rep_sched_factory fac;
	rep_sched_spec fixed;
	wasm_status st;

	memset(res, 0, sizeof *res);
	res->div_at = UINT64_MAX;
	if (s->mode == REP_SCHEDULE && !s->has_sched)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "mode schedule replays a serial run's "
				    "schedule, and this %s has none: find "
				    "the race with 'heisen explore' or "
				    "'heisen check --schedule'",
				    s->run_id ? "run" : "spec");
	res->first_index = -1;
	argv = det_prog_argv(p, s->args, s->nargs);
	if (!mask || !argv) {
		st = nomem(err);
		goto out;
	}
	if ((st = rep_mask(s, p, mask, &res->armed, err)))
		goto out;
	b.prog = p;
	b.mask = mask;
	b.trigger = s->mode == REP_TRIGGER ? &trig : NULL;
	if (s->mode == REP_FAILURE || (s->mode == REP_SCHEDULE && s->failure)) {
		if ((st = det_failure_parse(s->failure ? s->failure : "", &fail,
					    err)))
			goto out;
		b.failure = &fail;
	}
	if (s->mode == REP_SCHEDULE) {
		/* The decisions when kept; else the strategy makes them
		 * again from the run's seed. */
		fixed = s->sched;
		if (s->has_dec)
			fixed.strategy = REP_SCHED_FIXED;
		rep_sched_factory_init(&fac, &fixed, s->dec, s->ndec);
		b.sched = &fac.maker;
		b.sched_seed = s->sched.seed;
		b.collide = s->sched_collide;
	} else if (s->mode == REP_FAILURE && s->has_sched) {
		/* Run i draws the schedule minimize's check run i drew. */
		rep_sched_factory_init(&fac, &s->sched, NULL, 0);
		b.sched = &fac.maker;
		b.sched_seed = s->sched.seed;
		b.collide = b.vary_seed = true;
	}
	b.profile = det_profile_find(s->profile ? s->profile : "default");
	if (!b.profile) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "unknown profile '%s' (see 'heisen "
				  "profiles')",
				  s->profile);
		goto out;
	}
	b.delay = s->delay;
	b.timeout_s = s->timeout_s;
	b.argv = argv;
	b.argc = s->nargs + 1;
	b.in = s->input;
	b.nin = s->ninput;
	b.world = &s->world;
	b.runs = o->runs;
	b.jobs = o->jobs;
	b.on_run = on_batch_run;
	b.ctx = &c;
	st = det_batch_run(&b, err);
	if (!st && c.misfit[0])
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "the schedule does not fit this program: "
				  "%s (was it recorded for another program, "
				  "or edited?)",
				  c.misfit);
	res->stopped = det_sweep_stopped();
	if (res->runs)
		rep_wilson(res->reproduced, res->runs, &res->lo, &res->hi);
	res->rate = res->runs ? (double)res->reproduced / res->runs : 0;
out:
	wasm_free(mask);
	wasm_free(argv);
	return st;
}

/* ---- repro files ------------------------------------------------------- */

/* Values are written on one line: a backslash, a newline or a carriage
 * return in a string becomes \\, \n or \r. */
static void put_escaped(wasm_buf *b, const char *v)
{
	for (const char *p = v; *p; p++) {
		const char *esc = *p == '\\'   ? "\\\\"
				  : *p == '\n' ? "\\n"
				  : *p == '\r' ? "\\r"
					       : NULL;
		if (esc)
			wasm_buf_put(b, esc, 2);
		else
			wasm_buf_byte(b, (uint8_t)*p);
	}
}

static void put_str(wasm_buf *b, const char *key, const char *v)
{
	wasm_buf_put(b, key, strlen(key));
	wasm_buf_put(b, " = ", 3);
	put_escaped(b, v);
	wasm_buf_byte(b, '\n');
}

static void put_fmt(wasm_buf *b, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put_fmt(wasm_buf *b, const char *key, const char *fmt, ...)
{
	char v[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof v, fmt, ap);
	va_end(ap);
	put_str(b, key, v);
}

/* "3 5-9 12": ids ascending, runs as ranges, separated by spaces. */
static void put_id_list(wasm_buf *b, const uint32_t *v, uint32_t n)
{
	char item[32];

	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j > i)
			snprintf(item, sizeof item, "%s%u-%u", i ? " " : "",
				 v[i], v[j]);
		else
			snprintf(item, sizeof item, "%s%u", i ? " " : "", v[i]);
		wasm_buf_put(b, item, strlen(item));
		i = j + 1;
	}
}

/* The text built in b to path (atomically); b is released. */
static wasm_status write_buf(const char *path, wasm_buf *b, wasm_err *err)
{
	wasm_status st;
	uint8_t *data;
	size_t len;

	if (b->oom) {
		wasm_buf_fini(b);
		return nomem(err);
	}
	data = wasm_buf_take(b, &len);
	st = wasm_write_file(path, data, len, err);
	wasm_free(data);
	return st;
}

wasm_status rep_write_mask(const char *path, const uint8_t *mask,
			   uint32_t nsites, const char *comment, wasm_err *err)
{
	wasm_buf b = {0};
	uint32_t *ids = wasm_malloc((nsites ? nsites : 1) * sizeof *ids);
	uint32_t n = 0;

	if (!ids)
		return nomem(err);
	for (uint32_t i = 0; i < nsites; i++)
		if (mask[i])
			ids[n++] = i;
	for (const char *c = comment; c && *c;) {
		size_t k = strcspn(c, "\n");
		wasm_buf_put(&b, "# ", 2);
		wasm_buf_put(&b, c, k);
		wasm_buf_byte(&b, '\n');
		c += k + (c[k] == '\n');
	}
	put_id_list(&b, ids, n);
	wasm_buf_byte(&b, '\n');
	wasm_free(ids);
	return write_buf(path, &b, err);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

wasm_status rep_write(const char *path, const rep_spec *s, wasm_err *err)
{
	wasm_buf b = {0};
	uint32_t *pool = NULL;

	{
		static const char head[] =
		    "heisen-repro 2\n"
		    "# Found by heisen. Reproduce it with\n"
		    "#   heisen replay --file THIS_FILE PROGRAM.wasm\n";
		wasm_buf_put(&b, head, sizeof head - 1);
	}
	put_str(&b, "heisen", HEISEN_VERSION);
	put_str(&b, "program", s->program ? s->program : "?");
	put_fmt(&b, "program_hash", "%016" PRIx64, s->program_hash);
	put_fmt(&b, "program_size", "%" PRIu64, s->program_size);
	put_fmt(&b, "sites", "%u", s->nsites);
	if (s->mode == REP_SCHEDULE && !s->has_dec) {
		wasm_buf_fini(&b);
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "a schedule repro needs the run's "
				    "decisions; replay it once to record "
				    "them");
	}
	for (int i = 0; i < 2 && s->mode != REP_FAILURE && !s->whole_run; i++) {
		char key[32];
		const rep_site *x = &s->site[i];
		snprintf(key, sizeof key, "site_%c", 'a' + i);
		put_fmt(&b, key, "%u", x->id);
		snprintf(key, sizeof key, "site_%c_kind", 'a' + i);
		put_str(&b, key, rw_kind_name((rw_kind)x->kind));
		snprintf(key, sizeof key, "site_%c_func", 'a' + i);
		if (x->func)
			put_str(&b, key, x->func);
		snprintf(key, sizeof key, "site_%c_file", 'a' + i);
		if (x->file)
			put_str(&b, key, x->file);
		snprintf(key, sizeof key, "site_%c_line", 'a' + i);
		if (x->line)
			put_fmt(&b, key, "%u", x->line);
	}
	if (s->has_addr) {
		put_fmt(&b, "site_a_addr", "0x%x", s->addr[0]);
		put_fmt(&b, "site_b_addr", "0x%x", s->addr[1]);
	}
	put_str(&b, "mode", rep_mode_name(s->mode));
	if (s->mode == REP_FAILURE) {
		put_str(&b, "failure", s->failure ? s->failure : "");
		wasm_buf_put(&b, "delay_sites = ", 14);
		put_id_list(&b, s->delay_sites, s->ndelay);
		wasm_buf_byte(&b, '\n');
		if (s->has_sched) {
			char name[64];
			rep_sched_name(&s->sched, name, sizeof name);
			put_str(&b, "sched_strategy", name);
			put_fmt(&b, "sched_seed", "0x%016" PRIx64,
				s->sched.seed);
			put_str(&b, "sched_detector", "collision");
		}
	}
	if (s->mode == REP_SCHEDULE) {
		char name[64];
		if (s->failure)
			put_str(&b, "failure", s->failure);
		rep_sched_name(&s->sched, name, sizeof name);
		put_str(&b, "sched_strategy", name);
		put_fmt(&b, "sched_seed", "0x%016" PRIx64, s->sched.seed);
		put_fmt(&b, "sched_points", "%" PRIu64, s->points);
		put_fmt(&b, "sched_switches", "%u", s->switches);
		put_fmt(&b, "sched_digest", "%016" PRIx64, s->digest);
		wasm_buf_put(&b, "sched_decisions =", 17);
		if (!s->ndec)
			wasm_buf_byte(&b, ' ');
		rep_sched_format(s->dec, s->ndec, &b);
		wasm_buf_byte(&b, '\n');
		put_str(&b, "run_status", det_status_name(s->status));
		put_fmt(&b, "run_exit", "%d", s->exit_code);
		put_str(&b, "sched_detector",
			s->sched_collide ? "collision" : "happens-before");
	}
	put_fmt(&b, "mask_seed", "0x%016" PRIx64, s->seed);
	put_fmt(&b, "mask_density_bp", "%u", s->density_bp);
	put_fmt(&b, "mask_version", "%u", s->mask_version);
	if (s->pool) {
		pool = wasm_malloc((s->npool ? s->npool : 1) * sizeof *pool);
		if (!pool) {
			wasm_buf_fini(&b);
			return nomem(err);
		}
		memcpy(pool, s->pool, s->npool * sizeof *pool);
		qsort(pool, s->npool, sizeof *pool, cmp_u32);
		wasm_buf_put(&b, "mask_pool = ", 12);
		put_id_list(&b, pool, s->npool);
		wasm_buf_byte(&b, '\n');
		wasm_free(pool);
	} else {
		put_str(&b, "mask_pool", "all");
	}
	put_str(&b, "profile", s->profile ? s->profile : "default");
	for (uint32_t i = 0, off = 0; i < s->nargs; i++) {
		put_str(&b, "arg", s->args + off);
		off += (uint32_t)strlen(s->args + off) + 1;
	}
	if (s->input) {
		/* Hex: the bytes may be anything, a repro file is text. */
		static const char hex[] = "0123456789abcdef";
		put_fmt(&b, "stdin_hash", "%016" PRIx64,
			rw_hash(s->input, s->ninput));
		wasm_buf_put(&b, "stdin = ", 8);
		for (uint32_t i = 0; i < s->ninput; i++) {
			wasm_buf_byte(&b, (uint8_t)hex[s->input[i] >> 4]);
			wasm_buf_byte(&b, (uint8_t)hex[s->input[i] & 15]);
		}
		wasm_buf_byte(&b, '\n');
	}
	for (uint32_t i = 0, off = 0; i < s->world.ndirs; i++) {
		const char *host = s->world.dirs + off;
		const char *guest = host + strlen(host) + 1;
		wasm_buf_put(&b, "dir = ", 6);
		put_escaped(&b, host);
		wasm_buf_put(&b, "::", 2);
		put_escaped(&b, guest);
		wasm_buf_byte(&b, '\n');
		off = (uint32_t)(guest + strlen(guest) + 1 - s->world.dirs);
	}
	for (uint32_t i = 0, off = 0; i < s->world.nenv; i++) {
		put_str(&b, "env", s->world.env + off);
		off += (uint32_t)strlen(s->world.env + off) + 1;
	}
	if (s->world.max_threads)
		put_fmt(&b, "max_threads", "%u", s->world.max_threads);
	if (s->world.max_memory_pages)
		put_fmt(&b, "max_memory_pages", "%u",
			s->world.max_memory_pages);
	put_fmt(&b, "delay", "%u", s->delay);
	put_fmt(&b, "hold_us", "%" PRIu64, s->hold_ns / 1000);
	put_fmt(&b, "timeout_s", "%.17g", s->timeout_s);
	if (s->bug_id)
		put_fmt(&b, "bug", "%" PRId64, s->bug_id);
	if (s->run_id)
		put_fmt(&b, "run", "%" PRId64, s->run_id);
	if (s->runs) {
		put_fmt(&b, "runs", "%u", s->runs);
		put_fmt(&b, "reproduced", "%u", s->reproduced);
	}
	return write_buf(path, &b, err);
}

/* The keys of a repro file, in the order rep_write writes them, and when
 * a file must have them: always, in a race's modes, in failure mode. */
enum key_id {
	K_HEISEN,
	K_PROGRAM,
	K_HASH,
	K_SIZE,
	K_SITES,
	K_SITE_A,
	K_SITE_A_KIND,
	K_SITE_A_FUNC,
	K_SITE_A_FILE,
	K_SITE_A_LINE,
	K_SITE_B,
	K_SITE_B_KIND,
	K_SITE_B_FUNC,
	K_SITE_B_FILE,
	K_SITE_B_LINE,
	K_SITE_A_ADDR,
	K_SITE_B_ADDR,
	K_MODE,
	K_FAILURE,
	K_DELAY_SITES,
	K_SEED,
	K_DENSITY,
	K_VERSION,
	K_POOL,
	K_PROFILE,
	K_ARG,
	K_STDIN_HASH,
	K_STDIN,
	K_DIR,
	K_ENV,
	K_MAX_THREADS,
	K_MAX_MEMORY,
	K_DELAY,
	K_HOLD,
	K_TIMEOUT,
	K_BUG,
	K_RUN,
	K_RUNS,
	K_REPRODUCED,
	K_SCHED_STRATEGY,
	K_SCHED_SEED,
	K_SCHED_POINTS,
	K_SCHED_SWITCHES,
	K_SCHED_DIGEST,
	K_SCHED_DECISIONS,
	K_RUN_STATUS,
	K_RUN_EXIT,
	K_SCHED_DETECTOR,
	K_COUNT
};

/* RACE: in every mode but failure, unless a schedule's run found none;
 * SCHEDULE: in mode schedule (version 2 on). */
enum need { OPTIONAL, ALWAYS, RACE, FAILURE, SCHEDULE };

static const struct {
	const char *name;
	enum need need;
} keys[K_COUNT] = {
    [K_HEISEN] = {"heisen", ALWAYS},
    [K_PROGRAM] = {"program", ALWAYS},
    [K_HASH] = {"program_hash", ALWAYS},
    [K_SIZE] = {"program_size", ALWAYS},
    [K_SITES] = {"sites", ALWAYS},
    [K_SITE_A] = {"site_a", RACE},
    [K_SITE_A_KIND] = {"site_a_kind", RACE},
    [K_SITE_A_FUNC] = {"site_a_func", OPTIONAL},
    [K_SITE_A_FILE] = {"site_a_file", OPTIONAL},
    [K_SITE_A_LINE] = {"site_a_line", OPTIONAL},
    [K_SITE_B] = {"site_b", RACE},
    [K_SITE_B_KIND] = {"site_b_kind", RACE},
    [K_SITE_B_FUNC] = {"site_b_func", OPTIONAL},
    [K_SITE_B_FILE] = {"site_b_file", OPTIONAL},
    [K_SITE_B_LINE] = {"site_b_line", OPTIONAL},
    [K_SITE_A_ADDR] = {"site_a_addr", OPTIONAL},
    [K_SITE_B_ADDR] = {"site_b_addr", OPTIONAL},
    [K_MODE] = {"mode", ALWAYS},
    [K_FAILURE] = {"failure", FAILURE},
    [K_DELAY_SITES] = {"delay_sites", FAILURE},
    [K_SEED] = {"mask_seed", ALWAYS},
    [K_DENSITY] = {"mask_density_bp", ALWAYS},
    [K_VERSION] = {"mask_version", ALWAYS},
    [K_POOL] = {"mask_pool", ALWAYS},
    [K_PROFILE] = {"profile", ALWAYS},
    [K_ARG] = {"arg", OPTIONAL},
    [K_STDIN_HASH] = {"stdin_hash", OPTIONAL},
    [K_STDIN] = {"stdin", OPTIONAL},
    [K_DIR] = {"dir", OPTIONAL},
    [K_ENV] = {"env", OPTIONAL},
    [K_MAX_THREADS] = {"max_threads", OPTIONAL},
    [K_MAX_MEMORY] = {"max_memory_pages", OPTIONAL},
    [K_DELAY] = {"delay", ALWAYS},
    [K_HOLD] = {"hold_us", ALWAYS},
    [K_TIMEOUT] = {"timeout_s", ALWAYS},
    [K_BUG] = {"bug", OPTIONAL},
    [K_RUN] = {"run", OPTIONAL},
    [K_RUNS] = {"runs", OPTIONAL},
    [K_REPRODUCED] = {"reproduced", OPTIONAL},
    [K_SCHED_STRATEGY] = {"sched_strategy", SCHEDULE},
    [K_SCHED_SEED] = {"sched_seed", SCHEDULE},
    [K_SCHED_POINTS] = {"sched_points", SCHEDULE},
    [K_SCHED_SWITCHES] = {"sched_switches", SCHEDULE},
    [K_SCHED_DIGEST] = {"sched_digest", SCHEDULE},
    [K_SCHED_DECISIONS] = {"sched_decisions", SCHEDULE},
    [K_RUN_STATUS] = {"run_status", SCHEDULE},
    [K_RUN_EXIT] = {"run_exit", SCHEDULE},
    [K_SCHED_DETECTOR] = {"sched_detector", OPTIONAL},
};

/* Decimal, or hex after "0x" (never octal: a hand-edited "0100" is 100). */
static bool parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	char *end;
	unsigned long long x;

	if (hex)
		v += 2;
	if (!*v ||
	    !(hex ? isxdigit((unsigned char)*v) : isdigit((unsigned char)*v)))
		return false;
	errno = 0;
	x = strtoull(v, &end, hex ? 16 : 10);
	if (errno || *end || x > max)
		return false;
	*out = x;
	return true;
}

/* Undo put_str's escapes in place; false on a stray backslash. */
static bool unescape(char *v)
{
	char *w = v;

	for (char *r = v; *r; r++) {
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		r++;
		if (*r == '\\')
			*w++ = '\\';
		else if (*r == 'n')
			*w++ = '\n';
		else if (*r == 'r')
			*w++ = '\r';
		else
			return false;
	}
	*w = '\0';
	return true;
}

/* "3 5-9 12" into a fresh array; false for a bad list or (*oom) no
 * memory. */
static bool parse_ids(const char *v, uint32_t max, uint32_t **out, uint32_t *n,
		      bool *oom)
{
	uint32_t cap = 16, k = 0;
	uint32_t *a = wasm_malloc(cap * sizeof *a);
	const char *p = v;

	if (!a)
		return !(*oom = true);
	while (*p) {
		char *end;
		unsigned long x, y;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p < '0' || *p > '9')
			goto bad;
		x = strtoul(p, &end, 10);
		y = x;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			y = strtoul(end + 1, &end, 10);
		}
		if (x > y || y >= max || (*end && *end != ' '))
			goto bad;
		for (unsigned long i = x; i <= y; i++) {
			if (k == cap) {
				uint32_t *na;
				cap *= 2;
				if (!(na = wasm_realloc(a, cap * sizeof *a))) {
					*oom = true;
					goto bad;
				}
				a = na;
			}
			a[k++] = (uint32_t)i;
		}
		p = end;
	}
	*out = a;
	*n = k;
	return true;
bad:
	wasm_free(a);
	return false;
}

static bool parse_kind(const char *v, uint8_t *out)
{
	for (int k = RW_READ; k <= RW_RANGE_WRITE; k++)
		if (!strcmp(v, rw_kind_name((rw_kind)k))) {
			*out = (uint8_t)k;
			return true;
		}
	return false;
}

/* Store one key's value into s; false when it is not a valid value or
 * (*oom set) memory ran out. */
static bool set_key(rep_spec *s, enum key_id k, char *v, wasm_buf *args,
		    bool *oom)
{
	uint64_t x;
	rep_site *site = &s->site[k >= K_SITE_B && k <= K_SITE_B_LINE];

	switch (k) {
	case K_HEISEN: return *v != '\0';
	case K_PROGRAM: return !(*oom = !(s->program = dup_or_null(v)));
	case K_HASH:
		return strlen(v) == 16 && strspn(v, "0123456789abcdef") == 16 &&
		       sscanf(v, "%" SCNx64, &s->program_hash) == 1;
	case K_SIZE: return parse_u64(v, UINT64_MAX, &s->program_size);
	case K_SITES:
		if (!parse_u64(v, UINT32_MAX, &x))
			return false;
		s->nsites = (uint32_t)x;
		return true;
	case K_SITE_A:
	case K_SITE_B:
		if (!parse_u64(v, UINT32_MAX, &x))
			return false;
		site->id = (uint32_t)x;
		return true;
	case K_SITE_A_KIND:
	case K_SITE_B_KIND: return parse_kind(v, &site->kind);
	case K_SITE_A_FUNC:
	case K_SITE_B_FUNC: return !(*oom = !(site->func = dup_or_null(v)));
	case K_SITE_A_FILE:
	case K_SITE_B_FILE: return !(*oom = !(site->file = dup_or_null(v)));
	case K_SITE_A_LINE:
	case K_SITE_B_LINE:
		if (!parse_u64(v, UINT32_MAX, &x))
			return false;
		site->line = (uint32_t)x;
		return true;
	case K_SITE_A_ADDR:
	case K_SITE_B_ADDR:
		if (!parse_u64(v, UINT32_MAX, &x))
			return false;
		s->addr[k == K_SITE_B_ADDR] = (uint32_t)x;
		s->has_addr = true;
		return true;
	case K_MODE: return rep_mode_parse(v, &s->mode);
	case K_FAILURE: {
		det_failure f;
		wasm_err e;
		return !det_failure_parse(v, &f, &e) &&
		       !(*oom = !(s->failure = dup_or_null(v)));
	}
	case K_DELAY_SITES:
		return s->nsites && parse_ids(v, s->nsites, &s->delay_sites,
					      &s->ndelay, oom);
	case K_SEED: return parse_u64(v, UINT64_MAX, &s->seed);
	case K_DENSITY:
		if (!parse_u64(v, DET_DENSITY_FULL, &x) || !x)
			return false;
		s->density_bp = (uint32_t)x;
		return true;
	case K_VERSION:
		if (!parse_u64(v, UINT32_MAX, &x) || !x)
			return false;
		s->mask_version = (uint32_t)x;
		return true;
	case K_POOL:
		if (!strcmp(v, "all"))
			return true;
		return s->nsites &&
		       parse_ids(v, s->nsites, &s->pool, &s->npool, oom);
	case K_PROFILE:
		return det_profile_find(v) &&
		       !(*oom = !(s->profile = dup_or_null(v)));
	case K_ARG:
		wasm_buf_put(args, v, strlen(v) + 1);
		s->nargs++;
		return !(*oom = args->oom);
	case K_STDIN_HASH:
		return strlen(v) == 16 && strspn(v, "0123456789abcdef") == 16 &&
		       sscanf(v, "%" SCNx64, &s->input_hash) == 1;
	case K_STDIN: {
		size_t n = strlen(v);
		if (n % 2 || n / 2 > DET_STDIN_MAX ||
		    strspn(v, "0123456789abcdef") != n)
			return false;
		if (!(s->input = wasm_malloc(n ? n / 2 : 1)))
			return !(*oom = true);
		for (size_t i = 0; i < n / 2; i++) {
			unsigned byte;
			sscanf(v + 2 * i, "%2x", &byte);
			s->input[i] = (uint8_t)byte;
		}
		s->ninput = (uint32_t)(n / 2);
		return true;
	}
	case K_DIR: {
		wasm_err e;
		wasm_status st;
		if (!strstr(v, "::"))
			return false;
		st = wasi_world_add_dir(&s->world, v, NULL, &e);
		*oom = st == WASM_NOMEM;
		return !st;
	}
	case K_ENV: {
		wasm_err e;
		wasm_status st = wasi_world_add_env(&s->world, v, &e);
		*oom = st == WASM_NOMEM;
		return !st;
	}
	case K_MAX_THREADS:
		if (!parse_u64(v, 1u << 20, &x) || !x)
			return false;
		s->world.max_threads = (uint32_t)x;
		return true;
	case K_MAX_MEMORY:
		if (!parse_u64(v, 65536, &x) || !x)
			return false;
		s->world.max_memory_pages = (uint32_t)x;
		return true;
	case K_DELAY:
		if (!parse_u64(v, 100000000, &x))
			return false;
		s->delay = (uint32_t)x;
		return true;
	case K_HOLD:
		if (!parse_u64(v, 3600000000ull, &x))
			return false;
		s->hold_ns = x * 1000;
		return true;
	case K_TIMEOUT: {
		char *end;
		double t = strtod(v, &end);
		if (end == v || *end || !(t >= 0) || t > 1e9)
			return false;
		s->timeout_s = t;
		return true;
	}
	case K_BUG:
	case K_RUN:
		if (!parse_u64(v, INT64_MAX, &x))
			return false;
		*(k == K_BUG ? &s->bug_id : &s->run_id) = (int64_t)x;
		return true;
	case K_RUNS:
	case K_REPRODUCED:
		if (!parse_u64(v, UINT32_MAX, &x))
			return false;
		*(k == K_RUNS ? &s->runs : &s->reproduced) = (uint32_t)x;
		return true;
	case K_SCHED_STRATEGY: {
		/* fixed too: a synthesized schedule (replay/synth.h) was
		 * made by no strategy a seed makes again; its decisions,
		 * required in this mode, are the whole of it. */
		wasm_err e;
		uint64_t seed = s->sched.seed;
		if (rep_sched_parse(v, &s->sched, &e))
			return false;
		s->sched.seed = seed;
		return true;
	}
	case K_SCHED_SEED: return parse_u64(v, UINT64_MAX, &s->sched.seed);
	case K_SCHED_POINTS: return parse_u64(v, UINT64_MAX, &s->points);
	case K_SCHED_SWITCHES:
		if (!parse_u64(v, UINT32_MAX, &x))
			return false;
		s->switches = (uint32_t)x;
		return true;
	case K_SCHED_DIGEST:
		return strlen(v) == 16 && strspn(v, "0123456789abcdef") == 16 &&
		       sscanf(v, "%" SCNx64, &s->digest) == 1;
	case K_SCHED_DECISIONS: {
		rep_sched_file f;
		wasm_err e;
		if (rep_sched_decisions_parse(v, &f, &e)) {
			*oom = e.status == WASM_NOMEM;
			return false;
		}
		s->dec = f.d;
		s->ndec = f.n;
		s->has_dec = true;
		return true;
	}
	case K_RUN_STATUS: return det_status_parse(v, &s->status);
	case K_RUN_EXIT: {
		char *end;
		long c;
		errno = 0;
		c = strtol(v, &end, 10);
		if (errno || end == v || *end || c < -1 || c > 255)
			return false;
		s->exit_code = (int)c;
		return true;
	}
	case K_SCHED_DETECTOR:
		if (strcmp(v, "collision") && strcmp(v, "happens-before"))
			return false;
		s->sched_collide = !strcmp(v, "collision");
		return true;
	case K_COUNT: break;
	}
	return false;
}

wasm_status rep_read(const char *path, rep_spec *out, wasm_err *err)
{
	uint8_t *data = NULL;
	size_t len;
	wasm_buf args = {0};
	bool seen[K_COUNT] = {0};
	wasm_status st;
	char *line, *next;
	unsigned lineno = 0, file_ver = 0;
	bool oom = false;

	memset(out, 0, sizeof *out);
	if ((st = wasm_read_file(path, &data, &len, err)))
		return st;
	if (memchr(data, '\0', len)) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s: not a repro file (binary data)", path);
		goto out;
	}
	{
		uint8_t *t = wasm_realloc(data, len + 1);
		if (!t) {
			st = nomem(err);
			goto out;
		}
		data = t;
		data[len] = '\0';
	}
	for (line = (char *)data; line; line = next) {
		char *eq, *key, *v;
		int k;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else if (!*line)
			break;
		lineno++;
		if (lineno == 1) {
			unsigned ver;
			char extra;
			if (sscanf(line, "heisen-repro %u%c", &ver, &extra) !=
			    1) {
				st = wasm_err_set(
				    err, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: line 1: not a heisen repro file "
				    "(it starts with 'heisen-repro 1')",
				    path);
				goto out;
			}
			if (ver < 1 || ver > REP_FILE_VERSION) {
				st = wasm_err_set(
				    err, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: line 1: repro file version %u; this "
				    "heisen reads versions 1 to %u%s",
				    path, ver, REP_FILE_VERSION,
				    ver > REP_FILE_VERSION
					? " (it comes from a newer heisen: "
					  "upgrade to replay it)"
					: "");
				goto out;
			}
			file_ver = ver;
			continue;
		}
		if (!*line || line[0] == '#')
			continue;
		if (!(eq = strstr(line, " = "))) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "%s: line %u: expected 'key = "
					  "value'",
					  path, lineno);
			goto out;
		}
		*eq = '\0';
		key = line;
		v = eq + 3;
		for (k = 0; k < K_COUNT && strcmp(keys[k].name, key); k++)
			;
		if (k == K_COUNT ||
		    (keys[k].need == SCHEDULE && file_ver < 2)) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "%s: line %u: unknown key '%s'", path,
					  lineno, key);
			goto out;
		}
		if (seen[k] && k != K_ARG && k != K_DIR && k != K_ENV) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "%s: line %u: '%s' given twice", path,
					  lineno, key);
			goto out;
		}
		seen[k] = true;
		if (!unescape(v) ||
		    !set_key(out, (enum key_id)k, v, &args, &oom)) {
			st = oom ? nomem(err)
				 : wasm_err_set(err, WASM_INVALID,
						WASM_NO_OFFSET,
						"%s: line %u: bad value "
						"for %s: '%.80s'",
						path, lineno, key, v);
			goto out;
		}
	}
	if (!lineno) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s: empty file, not a repro file", path);
		goto out;
	}
	/* A schedule's run that found no race has no sites. */
	out->whole_run = out->mode == REP_SCHEDULE && !seen[K_SITE_A];
	/* A failure found by serial runs (minimize --schedule) replays
	 * serially: its strategy, and the seed its runs' schedules come
	 * from, under the collision detector. */
	out->has_sched = out->mode == REP_SCHEDULE ||
			 (out->mode == REP_FAILURE && seen[K_SCHED_STRATEGY]);
	if (out->mode == REP_FAILURE && out->has_sched &&
	    (!seen[K_SCHED_SEED] || out->sched.strategy == REP_SCHED_FIXED ||
	     (seen[K_SCHED_DETECTOR] && !out->sched_collide))) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s: a serial failure needs 'sched_seed', a "
				  "strategy that draws schedules (random, pct "
				  "or chaos) and the collision detector (the "
				  "file was edited)",
				  path);
		goto out;
	}
	if (out->mode == REP_FAILURE && out->has_sched)
		out->sched_collide = true;
	for (int k = 0; k < K_COUNT; k++)
		if (!seen[k] &&
		    (keys[k].need == ALWAYS ||
		     (keys[k].need == RACE && out->mode != REP_FAILURE &&
		      !out->whole_run) ||
		     (keys[k].need == FAILURE && out->mode == REP_FAILURE) ||
		     (keys[k].need == SCHEDULE && out->mode == REP_SCHEDULE))) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "%s: no '%s' (the file is truncated "
					  "or was edited)",
					  path, keys[k].name);
			goto out;
		}
	if (seen[K_STDIN] != seen[K_STDIN_HASH] ||
	    (out->input &&
	     rw_hash(out->input, out->ninput) != out->input_hash)) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s: 'stdin' does not match its 'stdin_hash' "
				  "(the file is truncated or was edited)",
				  path);
		goto out;
	}
	if ((out->mode != REP_FAILURE && !out->whole_run &&
	     (out->site[0].id > out->site[1].id ||
	      out->site[1].id >= out->nsites)) ||
	    (out->runs && out->reproduced > out->runs)) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s: inconsistent values (sites %u and %u of "
				  "%u; %u of %u runs reproduced)",
				  path, out->site[0].id, out->site[1].id,
				  out->nsites, out->reproduced, out->runs);
		goto out;
	}
	out->args = (char *)wasm_buf_take(&args, &len);
	if (!out->args && !(out->args = dup_or_null(""))) {
		st = nomem(err);
		goto out;
	}
	st = WASM_OK;
out:
	wasm_buf_fini(&args);
	wasm_free(data);
	if (st)
		rep_spec_clear(out);
	return st;
}
