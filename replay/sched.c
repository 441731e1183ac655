/*
 * sched.c - the strategies of serial execution and schedule files
 * (replay/sched.h).
 */
#include "replay/sched.h"

#include "core/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_P 0.05
#define DEFAULT_K 100000u
#define MAX_DEPTH 64
/* Points one thread may run in a row while another could: past them, a
 * strategy moves on, or a thread spinning on a flag that only a thread
 * of lower priority sets would spin for ever (PCT starves by design;
 * random:0 never switches). */
#define STARVE 1000u
/* chaos: the chance per point that a thread starts to starve, the
 * longest span, the chance of a plain switch, and how much of the run
 * (beyond its first CHAOS_SLACK points) starved spans may take. */
#define CHAOS_START    (1.0 / 2000)
#define CHAOS_MAX_SPAN 50000.0
#define CHAOS_SWITCH   0.01
#define CHAOS_SHARE    0.5
#define CHAOS_SLACK    1000u
/* A schedule file is read whole: a run with more decisions than this
 * fits in it is not a schedule anyone would step through. */
#define FILE_MAX (64u << 20)

struct rep_sched {
	rep_sched_spec spec;
	uint64_t rng;
	/* pct: priorities by thread id (0: not seen yet), the next
	 * priority a change point gives (below every initial one), the
	 * change points ascending and the next one due. */
	uint64_t *prio;
	uint32_t nprio;
	uint64_t low;
	uint64_t change[MAX_DEPTH];
	uint32_t nchange, next_change;
	uint32_t run_len; /* points the current thread ran in a row */
	/* chaos: the thread starved (UINT32_MAX: none) until point
	 * starve_end, and the points starved spans took so far. */
	uint32_t starved;
	uint64_t starve_end, starve_total;
	/* fixed: what to follow */
	rep_decision *follow;
	size_t nfollow, at;
	uint64_t diverged;
	/* what was chosen */
	rep_decision *d;
	size_t n, cap;
	bool nomem;
};

static uint64_t next_rand(rep_sched *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static uint64_t below(rep_sched *s, uint64_t n) { return next_rand(s) % n; }

wasm_status rep_sched_parse(const char *s, rep_sched_spec *out, wasm_err *e)
{
	rep_sched_spec r = {.seed = out->seed};
	const char *arg = strchr(s, ':');
	size_t nlen = arg ? (size_t)(arg - s) : strlen(s);
	char *end;

	if (nlen == 6 && !strncmp(s, "random", 6)) {
		r.strategy = REP_SCHED_RANDOM;
		r.p = DEFAULT_P;
		if (arg) {
			errno = 0;
			r.p = strtod(arg + 1, &end);
			if (errno || end == arg + 1 || *end || !(r.p >= 0) ||
			    r.p > 1)
				goto bad_p;
		}
	} else if (nlen == 3 && !strncmp(s, "pct", 3)) {
		unsigned long long d, k = DEFAULT_K;
		r.strategy = REP_SCHED_PCT;
		if (!arg)
			goto bad_d;
		errno = 0;
		d = strtoull(arg + 1, &end, 10);
		if (errno || end == arg + 1 || arg[1] == '-' || d < 1 ||
		    d > MAX_DEPTH || (*end && *end != ':'))
			goto bad_d;
		if (*end == ':') {
			const char *ks = end + 1;
			errno = 0;
			k = strtoull(ks, &end, 10);
			if (errno || end == ks || *ks == '-' || *end || !k)
				return wasm_err_set(
				    e, WASM_INVALID, WASM_NO_OFFSET,
				    "pct:D:K expects K, the points its change "
				    "points are drawn from, as a positive "
				    "number, got '%s'",
				    ks);
		}
		r.depth = (uint32_t)d;
		r.k = k;
	} else if (!strcmp(s, "fixed")) {
		r.strategy = REP_SCHED_FIXED;
	} else if (!strcmp(s, "chaos")) {
		r.strategy = REP_SCHED_CHAOS;
	} else {
		return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
				    "unknown schedule strategy '%s': use "
				    "random[:P], pct:D[:K], chaos or fixed",
				    s);
	}
	*out = r;
	return WASM_OK;
bad_p:
	return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
			    "random:P expects P, the chance of a switch per "
			    "point, from 0 to 1, got '%s'",
			    arg + 1);
bad_d:
	return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
			    "pct:D expects D, the bug depth, from 1 to %d, "
			    "got '%s'",
			    MAX_DEPTH, arg ? arg + 1 : "");
}

void rep_sched_name(const rep_sched_spec *s, char *buf, size_t cap)
{
	switch (s->strategy) {
	case REP_SCHED_RANDOM:
		/* The fewest digits that read back as the same P (a schedule
		 * file records it, and a replay must switch as often). */
		for (int prec = 6; prec <= 17; prec++) {
			snprintf(buf, cap, "random:%.*g", prec, s->p);
			if (strtod(buf + 7, NULL) == s->p)
				break;
		}
		break;
	case REP_SCHED_PCT:
		snprintf(buf, cap, "pct:%u:%" PRIu64, s->depth, s->k);
		break;
	case REP_SCHED_FIXED: snprintf(buf, cap, "fixed"); break;
	case REP_SCHED_CHAOS: snprintf(buf, cap, "chaos"); break;
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

rep_sched *rep_sched_new(const rep_sched_spec *spec, const rep_decision *d,
			 size_t n)
{
	rep_sched *s = wasm_calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->spec = *spec;
	s->rng = spec->seed;
	s->diverged = UINT64_MAX;
	s->starved = UINT32_MAX;
	if (spec->strategy == REP_SCHED_PCT) {
		/* Change points lower the running thread to d-1, d-2, ...,
		 * never below 1 (0 marks a thread not seen yet): below the
		 * initial priorities, which start above MAX_DEPTH. */
		s->nchange = spec->depth - 1;
		for (uint32_t i = 0; i < s->nchange; i++)
			s->change[i] = below(s, spec->k);
		qsort(s->change, s->nchange, sizeof *s->change, cmp_u64);
		s->low = s->nchange ? s->nchange : 1;
	}
	if (spec->strategy == REP_SCHED_FIXED && n) {
		if (!(s->follow = wasm_malloc(n * sizeof *d))) {
			wasm_free(s);
			return NULL;
		}
		memcpy(s->follow, d, n * sizeof *d);
		s->nfollow = n;
	}
	return s;
}

void rep_sched_free(rep_sched *s)
{
	if (!s)
		return;
	wasm_free(s->prio);
	wasm_free(s->follow);
	wasm_free(s->d);
	wasm_free(s);
}

static void record(rep_sched *s, uint64_t event, uint32_t thread)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		rep_decision *v = wasm_realloc(s->d, nc * sizeof *v);
		if (!v) {
			s->nomem = true;
			return;
		}
		s->d = v;
		s->cap = nc;
	}
	s->d[s->n].event = event;
	s->d[s->n++].thread = thread;
}

/* The index of thread id in ids[0..n), or n. */
static uint32_t index_of(const uint32_t *ids, uint32_t n, uint32_t id)
{
	uint32_t i = 0;

	while (i < n && ids[i] != id)
		i++;
	return i;
}

/* pct: thread id's priority, drawn the first time it is asked for. */
static uint64_t prio_of(rep_sched *s, uint32_t id)
{
	if (id >= s->nprio) {
		uint32_t nc = s->nprio ? s->nprio : 16;
		uint64_t *v;
		while (nc <= id)
			nc *= 2;
		if (!(v = wasm_realloc(s->prio, nc * sizeof *v))) {
			s->nomem = true;
			return 1;
		}
		memset(v + s->nprio, 0, (nc - s->nprio) * sizeof *v);
		s->prio = v;
		s->nprio = nc;
	}
	/* Random and distinct enough: 40 random bits above MAX_DEPTH. */
	if (!s->prio[id])
		s->prio[id] = MAX_DEPTH + 1 + (next_rand(s) >> 24);
	return s->prio[id];
}

/* Uniform in [0, 1). */
static double unit(rep_sched *s)
{
	return (double)(next_rand(s) >> 11) / 9007199254740992.0;
}

/* chaos: maybe start starving a runnable thread; then a thread that is
 * not starved, the current one unless a switch is drawn. */
static uint32_t chaos_pick(rep_sched *s, uint64_t event, uint32_t at,
			   const uint32_t *ids, uint32_t n)
{
	uint32_t choice = at < n ? at : 0, fed = 0;

	if (s->starved != UINT32_MAX && event >= s->starve_end)
		s->starved = UINT32_MAX;
	if (s->starved == UINT32_MAX && n > 1 && unit(s) < CHAOS_START) {
		uint64_t room =
		    (uint64_t)((double)event * CHAOS_SHARE) + CHAOS_SLACK;
		uint64_t span =
		    (uint64_t)exp(unit(s) * log(CHAOS_MAX_SPAN)) + 1;
		if (s->starve_total + span > room)
			span =
			    room > s->starve_total ? room - s->starve_total : 0;
		if (span) {
			s->starved = ids[below(s, n)];
			s->starve_end = event + span;
			s->starve_total += span;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		fed += ids[i] != s->starved;
	if (!fed)
		return choice;
	if (at == n || ids[at] == s->starved || s->run_len >= STARVE ||
	    unit(s) < CHAOS_SWITCH) {
		/* Uniformly among the others that are not starved. */
		uint32_t others = fed - (at < n && ids[at] != s->starved);
		uint32_t k;
		if (!others)
			return choice;
		k = (uint32_t)below(s, others);
		for (uint32_t i = 0; i < n; i++)
			if (i != at && ids[i] != s->starved && !k--)
				return i;
	}
	return choice;
}

static uint32_t pick(void *ctx, uint64_t event, uint32_t cur, eng_point_kind k,
		     const uint32_t *ids, uint32_t n)
{
	rep_sched *s = ctx;
	uint32_t at = index_of(ids, n, cur), choice = at < n ? at : 0;

	switch (s->spec.strategy) {
	case REP_SCHED_RANDOM:
		if (at == n)
			choice = (uint32_t)below(s, n);
		else if (n > 1 && (unit(s) < s->spec.p || s->run_len >= STARVE))
			choice = (at + 1 + (uint32_t)below(s, n - 1)) % n;
		break;
	case REP_SCHED_PCT:
		while (s->next_change < s->nchange &&
		       s->change[s->next_change] <= event) {
			if (at < n)
				prio_of(s, cur);
			if (at < n && cur < s->nprio)
				s->prio[cur] = s->low;
			s->low = s->low > 1 ? s->low - 1 : 1;
			s->next_change++;
		}
		if (at < n && n > 1 && s->run_len >= STARVE) {
			/* Below every other runnable thread. */
			uint64_t low = UINT64_MAX;
			for (uint32_t i = 0; i < n; i++)
				if (i != at && prio_of(s, ids[i]) < low)
					low = prio_of(s, ids[i]);
			if (cur < s->nprio)
				s->prio[cur] = low > 1 ? low - 1 : 1;
			choice = (at + 1) % n;
		}
		for (uint32_t i = 0; i < n; i++)
			if (prio_of(s, ids[i]) > prio_of(s, ids[choice]))
				choice = i;
		break;
	case REP_SCHED_CHAOS: choice = chaos_pick(s, event, at, ids, n); break;
	case REP_SCHED_FIXED:
		if (s->at < s->nfollow && s->follow[s->at].event == event) {
			uint32_t want =
			    index_of(ids, n, s->follow[s->at].thread);
			if (want < n)
				choice = want;
			else if (s->diverged == UINT64_MAX)
				s->diverged = event;
			s->at++;
		} else if (s->at < s->nfollow &&
			   s->follow[s->at].event < event &&
			   s->diverged == UINT64_MAX) {
			s->diverged = event;
		}
		break;
	}
	if (at == n || choice != at) {
		record(s, event, ids[choice]);
		s->run_len = 0;
	} else {
		s->run_len++;
	}
	(void)k;
	return choice;
}

eng_sched rep_sched_hook(rep_sched *s)
{
	eng_sched h = {.pick = pick, .ctx = s};
	return h;
}

const rep_decision *rep_sched_decisions(const rep_sched *s, size_t *n)
{
	*n = s->n;
	return s->d;
}

uint64_t rep_sched_diverged(const rep_sched *s) { return s->diverged; }

bool rep_sched_nomem(const rep_sched *s) { return s->nomem; }

void rep_sched_encode(const rep_decision *d, size_t n, wasm_buf *out)
{
	uint64_t prev = 0;

	for (size_t i = 0; i < n; i++) {
		wasm_buf_u64(out, d[i].event - prev);
		wasm_buf_u32(out, d[i].thread);
		prev = d[i].event;
	}
}

/* One unsigned LEB128 of at most `bits` bits at p[*at..len). */
static bool leb(const uint8_t *p, size_t len, size_t *at, unsigned bits,
		uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *at < len && shift < bits; shift += 7) {
		uint8_t b = p[(*at)++];
		if (shift + 7 > bits && (b & 0x7f) >> (bits - shift))
			return false;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

wasm_status rep_sched_decode(const uint8_t *p, size_t len, rep_decision **d,
			     size_t *n, wasm_err *e)
{
	size_t at = 0, cap = 0;
	uint64_t ev = 0;

	*d = NULL;
	*n = 0;
	while (at < len) {
		size_t start = at;
		uint64_t delta, th;
		if (!leb(p, len, &at, 64, &delta) ||
		    !leb(p, len, &at, 32, &th) || (*n && !delta) ||
		    delta > UINT64_MAX - ev) {
			wasm_free(*d);
			*d = NULL;
			*n = 0;
			return wasm_err_set(e, WASM_INVALID, start,
					    "stored schedule: byte %zu: a "
					    "damaged decision (the workspace "
					    "or stream is corrupt)",
					    start);
		}
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			rep_decision *nd = wasm_realloc(*d, nc * sizeof *nd);
			if (!nd) {
				wasm_free(*d);
				*d = NULL;
				*n = 0;
				return wasm_err_set(e, WASM_NOMEM,
						    WASM_NO_OFFSET,
						    "out of memory");
			}
			*d = nd;
			cap = nc;
		}
		ev += delta;
		(*d)[*n].event = ev;
		(*d)[(*n)++].thread = (uint32_t)th;
	}
	return WASM_OK;
}

static void *factory_make(const void *ctx, uint64_t seed, eng_sched *hook)
{
	const rep_sched_factory *f = ctx;
	rep_sched_spec spec = f->spec;
	rep_sched *s;

	spec.seed = seed;
	if (!(s = rep_sched_new(&spec, f->d, f->n)))
		return NULL;
	*hook = rep_sched_hook(s);
	return s;
}

bool rep_sched_maker_finish(void *state, wasm_buf *out, uint64_t *diverged)
{
	rep_sched *s = state;
	size_t n;
	const rep_decision *d = rep_sched_decisions(s, &n);
	bool ok;

	rep_sched_encode(d, n, out);
	*diverged = rep_sched_diverged(s);
	ok = !rep_sched_nomem(s) && !out->oom;
	rep_sched_free(s);
	return ok;
}

void rep_sched_factory_init(rep_sched_factory *f, const rep_sched_spec *spec,
			    const rep_decision *d, size_t n)
{
	f->spec = *spec;
	f->d = d;
	f->n = n;
	f->maker.make = factory_make;
	f->maker.finish = rep_sched_maker_finish;
	f->maker.ctx = f;
}

bool rep_sched_fits(const rep_sched *s, const eng_sched_stats *st, char *why,
		    size_t cap)
{
	return rep_sched_list_fits(s->follow, s->nfollow, st, why, cap);
}

bool rep_sched_list_fits(const rep_decision *list, size_t n,
			 const eng_sched_stats *st, char *why, size_t cap)
{
	for (size_t i = 0; i < n; i++) {
		const rep_decision *d = &list[i];
		if (d->thread >= st->threads) {
			snprintf(why, cap,
				 "decision %" PRIu64 ":%u names thread %u; "
				 "the run had %u thread%s",
				 d->event, d->thread, d->thread, st->threads,
				 st->threads == 1 ? "" : "s");
			return false;
		}
		if (d->event >= st->events) {
			snprintf(why, cap,
				 "decision %" PRIu64 ":%u lies past the run's "
				 "last point (%" PRIu64 " points)",
				 d->event, d->thread, st->events);
			return false;
		}
	}
	return true;
}

/* ---- schedule files -------------------------------------------------- */

void rep_sched_format(const rep_decision *d, size_t n, wasm_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		char w[40];
		int k = snprintf(w, sizeof w, " %" PRIu64 ":%u", d[i].event,
				 d[i].thread);
		wasm_buf_put(out, w, (size_t)k);
	}
}

wasm_status rep_sched_write(const char *path, const rep_sched_file *f,
			    wasm_err *e)
{
	char name[64];
	FILE *o = fopen(path, "w");

	if (!o)
		return wasm_err_set(e, WASM_IO, WASM_NO_OFFSET,
				    "%s: cannot write: %s", path,
				    strerror(errno));
	rep_sched_name(&f->spec, name, sizeof name);
	fprintf(o,
		"heisen-schedule 1\n"
		"# heisen run PROGRAM --schedule fixed --schedule-file "
		"THIS-FILE replays it\n"
		"strategy = %s\nseed = %" PRIu64 "\npoints = %" PRIu64
		"\nswitches = %u\ndigest = %016" PRIx64 "\ndecisions =",
		name, f->spec.seed, f->points, f->switches, f->digest);
	{
		wasm_buf b = {0};
		rep_sched_format(f->d, f->n, &b);
		if (b.oom) {
			fclose(o);
			return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory");
		}
		if (b.len)
			fwrite(b.data, 1, b.len, o);
		wasm_buf_fini(&b);
	}
	fputc('\n', o);
	if (ferror(o) | fclose(o))
		return wasm_err_set(e, WASM_IO, WASM_NO_OFFSET,
				    "%s: cannot write: %s", path,
				    strerror(errno));
	return WASM_OK;
}

void rep_sched_file_clear(rep_sched_file *f)
{
	wasm_free(f->d);
	memset(f, 0, sizeof *f);
}

/* A whole unsigned decimal (or 0x hex when hex) in [s, end). */
static bool num(const char *s, const char *end, bool hex, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (p == end)
		return false;
	for (; p < end; p++) {
		unsigned dgt;
		if (*p >= '0' && *p <= '9')
			dgt = (unsigned)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			dgt = (unsigned)(*p - 'a' + 10);
		else
			return false;
		if (v > (UINT64_MAX - dgt) / (hex ? 16 : 10))
			return false;
		v = v * (hex ? 16 : 10) + dgt;
	}
	*out = v;
	return true;
}

static wasm_status decisions(const char *v, const char *end, rep_sched_file *f,
			     const char *name, unsigned line, wasm_err *e)
{
	size_t cap = 0;

	while (v < end) {
		const char *w = v, *colon;
		uint64_t ev, th;
		while (w < end && *w != ' ')
			w++;
		colon = memchr(v, ':', (size_t)(w - v));
		if (!colon || !num(v, colon, false, &ev) ||
		    !num(colon + 1, w, false, &th) || th > UINT32_MAX)
			return wasm_err_set(
			    e, WASM_INVALID, WASM_NO_OFFSET,
			    "%s:%u: a decision is EVENT:THREAD, got '%.*s'",
			    name, line, (int)(w - v > 40 ? 40 : w - v), v);
		if (f->n && ev <= f->d[f->n - 1].event)
			return wasm_err_set(
			    e, WASM_INVALID, WASM_NO_OFFSET,
			    "%s:%u: decision events must "
			    "ascend, %" PRIu64 " after %" PRIu64,
			    name, line, ev, f->d[f->n - 1].event);
		if (f->n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			rep_decision *nd = wasm_realloc(f->d, nc * sizeof *nd);
			if (!nd)
				return wasm_err_set(e, WASM_NOMEM,
						    WASM_NO_OFFSET,
						    "out of memory");
			f->d = nd;
			cap = nc;
		}
		f->d[f->n].event = ev;
		f->d[f->n++].thread = (uint32_t)th;
		v = w;
		while (v < end && *v == ' ')
			v++;
	}
	return WASM_OK;
}

wasm_status rep_sched_decisions_parse(const char *text, rep_sched_file *f,
				      wasm_err *e)
{
	wasm_status st;

	memset(f, 0, sizeof *f);
	if ((st = decisions(text, text + strlen(text), f, "decisions", 1, e)))
		rep_sched_file_clear(f);
	return st;
}

wasm_status rep_sched_parse_file(const char *text, size_t len, const char *name,
				 rep_sched_file *f, wasm_err *e)
{
	enum {
		K_STRATEGY = 1,
		K_SEED = 2,
		K_POINTS = 4,
		K_SWITCHES = 8,
		K_DIGEST = 16,
		K_DECISIONS = 32,
		K_ALL = 63
	};
	const char *p = text, *end = text + len, *le = text;
	unsigned line = 0, seen = 0;
	wasm_status st;

	memset(f, 0, sizeof *f);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq, *k, *ke, *v;
		uint64_t x;
		le = nl ? nl : end;
		line++;
		if (line == 1) {
			if ((size_t)(le - p) != 17 ||
			    memcmp(p, "heisen-schedule ", 16))
				goto not_ours;
			if (p[16] != '1')
				return wasm_err_set(e, WASM_INVALID,
						    WASM_NO_OFFSET,
						    "%s: schedule version %c "
						    "is newer than this "
						    "heisen reads (1): use the "
						    "heisen that wrote "
						    "it",
						    name, p[16]);
			goto next;
		}
		if (p == le || *p == '#')
			goto next;
		if (!(eq = memchr(p, '=', (size_t)(le - p))))
			goto bad_line;
		for (k = p; k < eq && *k == ' '; k++)
			;
		for (ke = eq; ke > k && ke[-1] == ' '; ke--)
			;
		for (v = eq + 1; v < le && *v == ' '; v++)
			;
#define KEY(s) ((size_t)(ke - k) == strlen(s) && !memcmp(k, s, strlen(s)))
		/* A key given twice is an edit gone wrong (and a second
		 * decisions line would grow a list sized for the first). */
		if (seen & (KEY("strategy")    ? K_STRATEGY
			    : KEY("seed")      ? K_SEED
			    : KEY("points")    ? K_POINTS
			    : KEY("switches")  ? K_SWITCHES
			    : KEY("digest")    ? K_DIGEST
			    : KEY("decisions") ? K_DECISIONS
					       : 0))
			return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
					    "%s:%u: a second '%.*s' line", name,
					    line, (int)(ke - k), k);
		if (KEY("strategy")) {
			char buf[64];
			uint64_t seed = f->spec.seed;
			if ((size_t)(le - v) >= sizeof buf)
				goto bad_line;
			memcpy(buf, v, (size_t)(le - v));
			buf[le - v] = 0;
			if ((st = rep_sched_parse(buf, &f->spec, e))) {
				char msg[sizeof e->msg];
				snprintf(msg, sizeof msg, "%s", e->msg);
				return wasm_err_set(e, st, WASM_NO_OFFSET,
						    "%s:%u: %s", name, line,
						    msg);
			}
			f->spec.seed = seed;
			seen |= K_STRATEGY;
		} else if (KEY("seed") && num(v, le, false, &x)) {
			f->spec.seed = x;
			seen |= K_SEED;
		} else if (KEY("points") && num(v, le, false, &x)) {
			f->points = x;
			seen |= K_POINTS;
		} else if (KEY("switches") && num(v, le, false, &x) &&
			   x <= UINT32_MAX) {
			f->switches = (uint32_t)x;
			seen |= K_SWITCHES;
		} else if (KEY("digest") && le - v == 16 &&
			   num(v, le, true, &x)) {
			f->digest = x;
			seen |= K_DIGEST;
		} else if (KEY("decisions")) {
			if ((st = decisions(v, le, f, name, line, e)))
				return st;
			seen |= K_DECISIONS;
		} else {
			goto bad_line;
		}
#undef KEY
	next:
		p = nl ? nl + 1 : end;
	}
	if (line == 0)
		goto not_ours;
	if (seen != K_ALL)
		return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: truncated: no %s line", name,
				    !(seen & K_STRATEGY)   ? "strategy"
				    : !(seen & K_SEED)	   ? "seed"
				    : !(seen & K_POINTS)   ? "points"
				    : !(seen & K_SWITCHES) ? "switches"
				    : !(seen & K_DIGEST)   ? "digest"
							   : "decisions");
	return WASM_OK;
not_ours:
	return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
			    "%s: not a heisen schedule (its first line is not "
			    "'heisen-schedule 1')",
			    name);
bad_line:
	return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
			    "%s:%u: not a schedule line: '%.*s' (keys: "
			    "strategy, seed, points, switches, digest, "
			    "decisions)",
			    name, line, (int)(le - p > 40 ? 40 : le - p), p);
}

wasm_status rep_sched_read(const char *path, rep_sched_file *f, wasm_err *e)
{
	FILE *in = fopen(path, "rb");
	char *buf;
	long size;
	size_t n;
	wasm_status st;

	memset(f, 0, sizeof *f);
	if (!in)
		return wasm_err_set(e, WASM_IO, WASM_NO_OFFSET,
				    "%s: cannot read: %s", path,
				    strerror(errno));
	if (fseek(in, 0, SEEK_END) || (size = ftell(in)) < 0 ||
	    fseek(in, 0, SEEK_SET)) {
		fclose(in);
		return wasm_err_set(e, WASM_IO, WASM_NO_OFFSET,
				    "%s: cannot read: not a regular file",
				    path);
	}
	if (size > FILE_MAX) {
		fclose(in);
		return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: larger than %u MiB: not a schedule "
				    "heisen wrote",
				    path, FILE_MAX >> 20);
	}
	if (!(buf = wasm_malloc((size_t)size + 1))) {
		fclose(in);
		return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	n = fread(buf, 1, (size_t)size, in);
	fclose(in);
	st = rep_sched_parse_file(buf, n, path, f, e);
	wasm_free(buf);
	if (st)
		rep_sched_file_clear(f);
	return st;
}
