/*
 * synth.c - execution synthesis (synth.h): the target, the breakpoint
 * strategy and the search.
 */
#include "replay/synth.h"

#include "core/util.h"
#include "rewriter/instrument.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Targeted runs before the search falls back to PCT and chaos, in each
 * round of the two; enough for every reach of the lines up to the 8th,
 * both sides, with and without background switches. */
#define TARGETED 24u
/* Points a thread is held at a line at most: long enough for another
 * thread to get to the other line through a loop of some length, short
 * enough that a hold with no partner costs little. */
#define HOLD_POINTS 4000u
/* Holds a run makes at most: a run is one try at one reach of the lines
 * (a hold that meets no partner at its address leaves room for a few
 * more), and a thread held at every turn of a spin loop would crawl. */
#define MAX_HOLDS 4u
/* As in sched.c: points a thread may run in a row while another could. */
#define STARVE		  1000u
#define NONE		  UINT32_MAX
#define DEFAULT_TIMEOUT_S 10.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the target ------------------------------------------------------ */

void rep_synth_target_fini(rep_synth_target *t)
{
	for (int k = 0; k < 2; k++)
		wasm_free(t->side[k].on);
	memset(t, 0, sizeof *t);
}

static const char *base(const char *f) { return rep_tsan_base(f); }

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%.*s", (int)cap - 1, src ? src : "");
}

/* Sites of p on base:line (func NULL), or of function func (line 0). */
static uint32_t collect(const det_prog *p, const char *file, uint32_t line,
			const char *func, uint8_t *on)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->sites.nsites; i++) {
		char f[128];
		rw_srcpos pos;
		det_prog_site(p, i, f, sizeof f, &pos);
		if (func ? !strcmp(f, func)
			 : pos.file && pos.line == line &&
			       !strcmp(base(pos.file), file)) {
			on[i] = 1;
			n++;
		}
	}
	return n;
}

static wasm_status alloc_sides(rep_synth_target *t, const det_prog *p,
			       wasm_err *e)
{
	memset(t, 0, sizeof *t);
	t->nsites = p->sites.nsites;
	for (int k = 0; k < 2; k++) {
		t->side[k].frame = -1;
		if (!(t->side[k].on =
			  wasm_calloc(t->nsites ? t->nsites : 1, 1))) {
			rep_synth_target_fini(t);
			return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory");
		}
	}
	return WASM_OK;
}

/* The frames of access a as "FILE:LINE (FUNC), ..." into out. */
static void list_frames(const rep_tsan_access *a, char *out, size_t cap)
{
	size_t o = 0;

	out[0] = 0;
	for (uint32_t i = 0; i < a->nframes && o < cap; i++) {
		const rep_tsan_frame *f = &a->frame[i];
		int k;
		if (!f->file[0] && !f->func[0])
			continue;
		k = snprintf(out + o, cap - o, "%s%s:%u (%s)", o ? ", " : "",
			     f->file[0] ? base(f->file) : "?", f->line,
			     f->func[0] ? f->func : "?");
		if (k < 0)
			break;
		o += (size_t)k;
	}
}

wasm_status rep_synth_target_race(rep_synth_target *t, const det_prog *p,
				  const rep_tsan_race *r, wasm_err *e)
{
	wasm_status st;

	if ((st = alloc_sides(t, p, e)))
		return st;
	for (int k = 0; k < 2; k++) {
		const rep_tsan_access *a = &r->acc[k];
		rep_synth_side *s = &t->side[k];
		for (uint32_t i = 0; i < a->nframes && !s->count; i++) {
			const rep_tsan_frame *f = &a->frame[i];
			if (!f->file[0] || !f->line)
				continue;
			s->count =
			    collect(p, base(f->file), f->line, NULL, s->on);
			if (s->count) {
				s->frame = (int32_t)i;
				s->line = f->line;
				copy(s->file, sizeof s->file, base(f->file));
				copy(s->func, sizeof s->func, f->func);
			}
		}
		for (uint32_t i = 0; i < a->nframes && !s->count; i++) {
			const rep_tsan_frame *f = &a->frame[i];
			if (!f->func[0])
				continue;
			s->count = collect(p, NULL, 0, f->func, s->on);
			if (s->count) {
				s->frame = (int32_t)i;
				copy(s->file, sizeof s->file,
				     f->file[0] ? base(f->file) : "");
				copy(s->func, sizeof s->func, f->func);
			}
		}
		if (!s->count) {
			char frames[400];
			list_frames(a, frames, sizeof frames);
			rep_synth_target_fini(t);
			return wasm_err_set(
			    e, WASM_INVALID, WASM_NO_OFFSET,
			    "the report's %s access is not in this program: "
			    "no probed access at %s, nor in those functions "
			    "(is the report of another program, or of other "
			    "source?)",
			    k ? "second" : "first",
			    frames[0] ? frames : "(no named frame)");
		}
	}
	return WASM_OK;
}

/* Side s as the sites on site's line (or site alone). */
static void side_of_site(rep_synth_side *s, const det_prog *p, uint32_t site)
{
	char f[128];
	rw_srcpos pos;

	det_prog_site(p, site, f, sizeof f, &pos);
	copy(s->func, sizeof s->func, f);
	if (pos.file && pos.line) {
		copy(s->file, sizeof s->file, base(pos.file));
		s->line = pos.line;
		s->count = collect(p, s->file, s->line, NULL, s->on);
	}
	if (!s->on[site]) {
		s->on[site] = 1;
		s->count++;
	}
}

wasm_status rep_synth_target_sites(rep_synth_target *t, const det_prog *p,
				   uint32_t s0, uint32_t s1, wasm_err *e)
{
	wasm_status st;

	if (s0 >= p->sites.nsites || s1 >= p->sites.nsites)
		return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
				    "sites %u and %u: the program has %u "
				    "sites (is the bug of another program?)",
				    s0, s1, p->sites.nsites);
	if ((st = alloc_sides(t, p, e)))
		return st;
	side_of_site(&t->side[0], p, s0);
	side_of_site(&t->side[1], p, s1);
	return WASM_OK;
}

wasm_status rep_synth_target_at(rep_synth_target *t, const det_prog *p,
				const char *at, wasm_err *e)
{
	const char *colon = strrchr(at, ':');
	rep_synth_side *s;
	wasm_status st;
	char *end;

	if ((st = alloc_sides(t, p, e)))
		return st;
	s = &t->side[0];
	if (colon && colon[1]) {
		unsigned long line = strtoul(colon + 1, &end, 10);
		if (*end || !line || line > UINT32_MAX) {
			rep_synth_target_fini(t);
			return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
					    "--at expects FUNCTION or "
					    "FILE:LINE, got '%s'",
					    at);
		}
		char path[256];
		snprintf(path, sizeof path, "%.*s", (int)(colon - at), at);
		copy(s->file, sizeof s->file, base(path));
		s->line = (uint32_t)line;
		s->count = collect(p, s->file, s->line, NULL, s->on);
	} else {
		copy(s->func, sizeof s->func, at);
		s->count = collect(p, NULL, 0, at, s->on);
	}
	if (!s->count) {
		rep_synth_target_fini(t);
		return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
				    "--at %s: the program has no probed "
				    "access there",
				    at);
	}
	/* A line names no function; a trap names one: the function of
	 * the line's first site. */
	if (!s->func[0])
		for (uint32_t i = 0; i < t->nsites; i++)
			if (s->on[i]) {
				rw_srcpos pos;
				det_prog_site(p, i, s->func, sizeof s->func,
					      &pos);
				break;
			}
	memcpy(t->side[1].on, s->on, t->nsites);
	t->side[1].count = s->count;
	t->side[1].line = s->line;
	memcpy(t->side[1].file, s->file, sizeof s->file);
	memcpy(t->side[1].func, s->func, sizeof s->func);
	return WASM_OK;
}

/* ---- the breakpoint strategy ----------------------------------------- */

/* What one targeted run varies. */
typedef struct knobs {
	const rep_synth_target *t;
	uint64_t seed;
	uint32_t skip; /* reaches of the lines to let pass before a hold */
	int side;      /* -1: hold at either line; 0 or 1: at that one */
	double p;      /* chance of a switch elsewhere per point */
} knobs;

typedef struct bp_sched {
	knobs k;
	uint64_t rng;
	/* The probe the thread at the point is about to make. */
	uint32_t pend_thread, pend_site, pend_addr;
	uint32_t held, held_side, held_addr;
	uint64_t held_at;
	uint32_t give_to; /* after a meeting: who runs next */
	uint32_t reached; /* reaches of the lines so far */
	uint32_t holds;	  /* holds so far */
	uint32_t run_len;
	rep_decision *d;
	size_t n, cap;
	bool nomem;
} bp_sched;

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
	return (double)(next_rand(s) >> 11) / 9007199254740992.0;
}

/* What the thread at this point is about to do: a probed access's site
 * and address (heisen.probe's arguments: the address, then the site),
 * for bp_pick to hold it or let it meet the held one. */
static void bp_note(void *ctx, const eng_point *pt)
{
	bp_sched *s = ctx;
	uint32_t site;

	if (pt->resumed)
		return;
	s->pend_thread = NONE;
	if (pt->kind != ENG_POINT_HOST || !pt->host || pt->nargs < 2 ||
	    strcmp(pt->host, "heisen.probe"))
		return;
	site = (uint32_t)pt->args[1];
	/* A range's source and length are not its access. */
	if (site & (RW_PROBE_SRC | RW_PROBE_LEN))
		return;
	s->pend_thread = eng_thread_id(pt->thread);
	s->pend_site = site;
	s->pend_addr = (uint32_t)pt->args[0];
}

static uint32_t index_of(const uint32_t *ids, uint32_t n, uint32_t id)
{
	uint32_t i = 0;

	while (i < n && ids[i] != id)
		i++;
	return i;
}

/* Another runnable thread than cur and the held one, uniformly; n when
 * there is none. */
static uint32_t other(bp_sched *s, uint32_t at, const uint32_t *ids, uint32_t n)
{
	uint32_t c = 0, k;

	for (uint32_t i = 0; i < n; i++)
		c += i != at && ids[i] != s->held;
	if (!c)
		return n;
	k = (uint32_t)(next_rand(&s->rng) % c);
	for (uint32_t i = 0; i < n; i++)
		if (i != at && ids[i] != s->held && !k--)
			return i;
	return n;
}

static uint32_t bp_pick(void *ctx, uint64_t event, uint32_t cur,
			eng_point_kind kind, const uint32_t *ids, uint32_t n)
{
	bp_sched *s = ctx;
	const rep_synth_target *t = s->k.t;
	uint32_t at = index_of(ids, n, cur), choice = at < n ? at : 0;
	uint32_t site = NONE, addr = 0;

	if (kind == ENG_POINT_HOST && s->pend_thread == cur &&
	    s->pend_site < t->nsites) {
		site = s->pend_site;
		addr = s->pend_addr;
	}
	s->pend_thread = NONE;
	if (s->held != NONE &&
	    (event - s->held_at > HOLD_POINTS ||
	     (s->run_len >= STARVE && other(s, at, ids, n) == n))) {
		/* No partner in time, or the one other thread spins,
		 * likely on what the held one would do: let it go on. */
		uint32_t h = index_of(ids, n, s->held);
		s->held = NONE;
		if (h < n) {
			choice = h;
			goto done;
		}
	}
	if (s->give_to != NONE) {
		uint32_t g = index_of(ids, n, s->give_to);
		s->give_to = NONE;
		if (g < n && g != at) {
			choice = g;
			goto done;
		}
	}
	if (site != NONE && s->held != NONE && cur != s->held) {
		bool partner = s->held_side == 0 ? t->side[1].on[site]
						 : t->side[0].on[site];
		if (partner && addr == s->held_addr) {
			/* The meeting: cur makes its access now, the held
			 * thread its own right after. */
			s->give_to = s->held;
			s->held = NONE;
			goto done;
		}
	}
	if (site != NONE && s->held == NONE && at < n && s->holds < MAX_HOLDS &&
	    (t->side[0].on[site] || t->side[1].on[site]) &&
	    (s->k.side < 0 || t->side[s->k.side].on[site]) &&
	    s->reached++ >= s->k.skip && other(s, at, ids, n) < n) {
		s->held = cur;
		s->held_side = s->k.side >= 0	     ? (uint32_t)s->k.side
			       : t->side[0].on[site] ? 0
						     : 1;
		s->held_addr = addr;
		s->held_at = event;
		s->holds++;
	}
	if (at == n || ids[at] == s->held || s->run_len >= STARVE ||
	    (n > 1 && unit(&s->rng) < s->k.p)) {
		uint32_t o = other(s, at, ids, n);
		if (o < n)
			choice = o;
		else if (at == n || ids[at] == s->held) {
			/* Only the held thread can run: let it. */
			choice = at < n ? at : index_of(ids, n, s->held);
			if (choice >= n)
				choice = 0;
			s->held = NONE;
		}
	}
done:
	if (at == n || choice != at) {
		if (s->n == s->cap) {
			size_t nc = s->cap ? s->cap * 2 : 64;
			rep_decision *v = wasm_realloc(s->d, nc * sizeof *v);
			if (!v) {
				s->nomem = true;
				return choice;
			}
			s->d = v;
			s->cap = nc;
		}
		s->d[s->n].event = event;
		s->d[s->n++].thread = ids[choice];
		s->run_len = 0;
	} else {
		s->run_len++;
	}
	return choice;
}

static void *bp_make(const void *ctx, uint64_t seed, eng_sched *hook)
{
	const knobs *k = ctx;
	bp_sched *s = wasm_calloc(1, sizeof *s);

	(void)seed; /* random_get's: the search's own choices are k's */
	if (!s)
		return NULL;
	s->k = *k;
	s->rng = k->seed;
	s->pend_thread = s->held = s->give_to = NONE;
	hook->pick = bp_pick;
	hook->note = bp_note;
	hook->ctx = s;
	return s;
}

static bool bp_finish(void *state, wasm_buf *out, uint64_t *diverged)
{
	bp_sched *s = state;
	bool ok;

	rep_sched_encode(s->d, s->n, out);
	*diverged = UINT64_MAX;
	ok = !s->nomem && !out->oom;
	wasm_free(s->d);
	wasm_free(s);
	return ok;
}

/* PCT and chaos seeded by the search (det_batch seeds every run alike:
 * that seed is random_get's). */
static void *fb_make(const void *ctx, uint64_t seed, eng_sched *hook)
{
	rep_sched *s = rep_sched_new(ctx, NULL, 0);

	(void)seed;
	if (s)
		*hook = rep_sched_hook(s);
	return s;
}

/* ---- the search ------------------------------------------------------ */

typedef struct search {
	const rep_synth_target *t;
	const rep_synth_opts *o;
	rep_synth_result *r;
	uint64_t max_points;
	wasm_status st;
	wasm_err *e;
} search;

/* How well violation v matches: 2 both lines, 1 one of them. */
static uint32_t score(const rep_synth_target *t, const det_violation *v)
{
	uint32_t a = v->site[0], b = v->site[1];

	if (a >= t->nsites || b >= t->nsites)
		return 0;
	if ((t->side[0].on[a] && t->side[1].on[b]) ||
	    (t->side[0].on[b] && t->side[1].on[a]))
		return 2;
	return t->side[0].on[a] || t->side[0].on[b] || t->side[1].on[a] ||
	       t->side[1].on[b];
}

static bool fails_here(const search *c, const det_batch_run_info *r)
{
	char quoted[140];

	if (!r->failed)
		return false;
	/* A trap names its function, quoted ("unreachable in function 39
	 * 'work' at offset 0x2081"); other failures have no place. */
	if (!c->o->at_func || r->status != DET_TRAP)
		return true;
	snprintf(quoted, sizeof quoted, "'%.128s'", c->o->at_func);
	return r->msg && strstr(r->msg, quoted);
}

static bool on_run(void *ctx, const det_batch_run_info *r)
{
	search *c = ctx;
	rep_synth_result *res = c->r;
	int32_t hit = -1;
	uint32_t best = 0;

	res->runs++;
	if (r->sched.events > c->max_points)
		c->max_points = r->sched.events;
	if (c->o->failure) {
		if (fails_here(c, r))
			best = 2;
		else if (r->failed)
			res->failures++;
	} else {
		for (uint32_t i = 0; i < r->nbugs; i++) {
			uint32_t sc = score(c->t, &r->bugs[i]);
			if (sc > best) {
				best = sc;
				hit = (int32_t)i;
			}
		}
	}
	if (best > res->best || (best && !res->has_closest && hit >= 0)) {
		res->best = best > res->best ? best : res->best;
		if (hit >= 0) {
			res->has_closest = true;
			res->closest[0] = r->bugs[hit].site[0];
			res->closest[1] = r->bugs[hit].site[1];
		}
	}
	if (best < 2)
		return true;
	res->found = true;
	res->run_ns = r->duration_ns;
	{
		rep_spec *s = &res->spec;
		wasm_status st;
		s->mode = REP_SCHEDULE;
		s->has_sched = s->has_dec = true;
		s->sched.strategy = REP_SCHED_FIXED;
		s->sched.seed = c->o->run_seed;
		s->points = r->sched.events;
		s->switches = r->sched.switches;
		s->digest = r->sched.digest;
		s->status = r->status;
		s->exit_code = r->exit_code;
		st = rep_sched_decode(r->dec, r->ndec, &s->dec, &s->ndec, c->e);
		if (st) {
			c->st = st;
			return false;
		}
		if (c->o->failure) {
			s->whole_run = true;
			if (!(s->failure =
				  wasm_malloc(strlen(c->o->failure) + 1))) {
				c->st = wasm_err_set(c->e, WASM_NOMEM,
						     WASM_NO_OFFSET,
						     "out of memory");
				return false;
			}
			strcpy(s->failure, c->o->failure);
		} else {
			const det_violation *v = &r->bugs[hit];
			int lo = v->site[0] <= v->site[1] ? 0 : 1;
			for (int k = 0; k < 2; k++) {
				s->site[k].id = v->site[k ^ lo];
				s->site[k].kind = v->kind[k ^ lo];
				s->addr[k] = v->addr[k ^ lo];
			}
			s->has_addr = true;
		}
	}
	return false;
}

/* The breakpoint's knobs for targeted run i: runs 0-7 hold at either
 * line, at its first to eighth reach, never switching elsewhere; runs
 * 8-15 the same at the report's first access only, with a switch
 * elsewhere at 2 % of points; runs 16-23 at its second access, 10 %. */
static void plan(knobs *k, const rep_synth_target *t, uint32_t i, uint64_t seed)
{
	static const double ps[3] = {0, 0.02, 0.1};

	k->t = t;
	k->seed = det_seed_mix(seed ^ det_seed_mix(i));
	k->skip = i % 8;
	k->side = (int)((i / 8) % 3) - 1;
	k->p = ps[(i / 8) % 3];
}

wasm_status rep_synthesize(det_prog *p, const rep_synth_target *t,
			   const rep_synth_opts *o, rep_synth_result *r,
			   wasm_err *e)
{
	uint8_t *mask = wasm_malloc(p->sites.nsites ? p->sites.nsites : 1);
	const char **argv = det_prog_argv(p, o->args, o->nargs);
	search c = {t, o, r, 0, WASM_OK, e};
	det_failure fail;
	double start = now_s();
	wasm_status st = WASM_OK;

	memset(r, 0, sizeof *r);
	if (!mask || !argv) {
		st = wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	memset(mask, 1, p->sites.nsites);
	if (o->failure && (st = det_failure_parse(o->failure, &fail, e)))
		goto out;
	for (uint32_t i = 0; !r->found; i++) {
		uint32_t round = i % (TARGETED + 8), n = i / (TARGETED + 8);
		det_batch b = {0};
		det_sched_maker m;
		knobs k;
		rep_sched_spec fb = {0};
		rep_synth_progress pr;

		if (now_s() - start >= o->budget_s || det_sweep_stopped())
			break;
		if (t && round < TARGETED) {
			plan(&k, t, round + n * TARGETED, o->seed);
			m.make = bp_make;
			m.finish = bp_finish;
			m.ctx = &k;
			snprintf(r->strategy, sizeof r->strategy, "breakpoint");
		} else {
			/* PCT at depths 2 and 3 over the points runs have
			 * shown, and chaos. */
			uint32_t j = t ? round - TARGETED : i;
			fb.seed =
			    det_seed_mix(o->seed ^ det_seed_mix(~(uint64_t)i));
			if (j % 4 == 3) {
				fb.strategy = REP_SCHED_CHAOS;
			} else {
				fb.strategy = REP_SCHED_PCT;
				fb.depth = 2 + j % 4 / 2;
				fb.k = c.max_points ? c.max_points : 100000;
			}
			rep_sched_name(&fb, r->strategy, sizeof r->strategy);
			m.make = fb_make;
			m.finish = rep_sched_maker_finish;
			m.ctx = &fb;
		}
		b.prog = p;
		b.mask = mask;
		b.failure = o->failure ? &fail : NULL;
		b.timeout_s =
		    o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S;
		b.argv = argv;
		b.argc = o->nargs + 1;
		b.in = o->input;
		b.nin = o->ninput;
		b.runs = 1;
		b.jobs = 1;
		b.sched = &m;
		b.sched_seed = o->run_seed;
		b.on_run = on_run;
		b.ctx = &c;
		if ((st = det_batch_run(&b, e)) || (st = c.st))
			goto out;
		r->elapsed_s = now_s() - start;
		if (o->progress) {
			pr.runs = r->runs;
			pr.elapsed_s = r->elapsed_s;
			pr.budget_s = o->budget_s;
			pr.strategy = r->strategy;
			pr.best = r->best;
			o->progress(o->ctx, &pr);
		}
	}
	r->elapsed_s = now_s() - start;
out:
	wasm_free(mask);
	wasm_free(argv);
	return st;
}

void rep_synth_result_fini(rep_synth_result *r)
{
	rep_spec_clear(&r->spec);
	memset(r, 0, sizeof *r);
}
