/*
 * trace.c - a serial execution recorded point by point (trace.h).
 *
 * The recorder wraps the schedule's own scheduler: pick is the
 * schedule's, note appends a row. Notes come one at a time (the engine
 * holds its scheduling lock), on the thread that reached the point, so
 * the rows need no lock and memory reads see what that thread sees.
 */
#include "replay/trace.h"

#include "replay/sched.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_STACKS 64

_Static_assert(sizeof(rep_event) == 40,
	       "trace.h and docs/debugger.md say 40 bytes a row");

typedef struct recorder {
	eng_sched inner;
	const det_prog *p;
	const rep_trace_opts *o;
	rep_trace *t;
	uint64_t cap, max;
	size_t next_stack;
	bool nomem;
	/* Stacks as taken: the row's kind and site, and the frames. */
	struct taken {
		uint64_t event;
		bool access;
		uint32_t site;
		uint32_t n;
		eng_where w[DET_MAX_CALLERS + 1];
	} taken[MAX_STACKS];
	size_t ntaken;
} recorder;

const char *rep_ev_kind_name(rep_ev_kind k)
{
	static const char *const names[] = {"access", "call",  "wait",
					    "notify", "spawn", "end"};
	return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

/* Bytes [addr, addr + width) of the original module's memory mem, as t
 * sees them, little-endian into *v; false when they are not all there. */
static bool read_mem(const recorder *r, eng_thread *t, uint32_t mem,
		     uint64_t addr, uint32_t width, uint64_t *v)
{
	eng_instance *inst = eng_thread_instance(t);
	eng_memory *m;
	uint8_t b[8] = {0};

	if (width > 8)
		width = 8;
	/* The mask import sits after the original's imported memories. */
	if (r->p->sites.mask_mem != UINT32_MAX && mem >= r->p->sites.mask_mem)
		mem++;
	if (!inst || !(m = eng_instance_memory(inst, mem)) || !width ||
	    addr + width > eng_memory_size(m))
		return false;
	for (uint32_t i = 0; i < width; i++)
		b[i] = __atomic_load_n(eng_memory_data(m) + addr + i,
				       __ATOMIC_RELAXED);
	*v = 0;
	for (uint32_t i = width; i-- > 0;)
		*v = *v << 8 | b[i];
	return true;
}

static uint32_t intern(recorder *r, const char *name)
{
	rep_trace *t = r->t;
	char **v, *copy;

	for (uint32_t i = 0; i < t->nnames; i++)
		if (!strcmp(t->names[i], name ? name : "?"))
			return i;
	v = wasm_realloc(t->names, (t->nnames + 1) * sizeof *v);
	copy = wasm_strdup(name ? name : "?");
	if (!v || !copy) {
		wasm_free(copy);
		if (v)
			t->names = v;
		r->nomem = true;
		return UINT32_MAX;
	}
	t->names = v;
	t->names[t->nnames] = copy;
	return t->nnames++;
}

static void take_stack(recorder *r, const eng_point *pt, const rep_event *e)
{
	struct taken *k;

	while (r->next_stack < r->o->nstacks &&
	       r->o->stacks[r->next_stack] < pt->event)
		r->next_stack++;
	if (r->next_stack >= r->o->nstacks ||
	    r->o->stacks[r->next_stack] != pt->event || r->ntaken >= MAX_STACKS)
		return;
	k = &r->taken[r->ntaken++];
	k->event = pt->event;
	k->access = e->kind == REP_EV_ACCESS;
	k->site = e->site;
	k->n = eng_thread_backtrace(pt->thread, k->w, DET_MAX_CALLERS + 1);
}

static void note(void *ctx, const eng_point *pt)
{
	recorder *r = ctx;
	rep_trace *t = r->t;
	rep_event e = {.thread = eng_thread_id(pt->thread)};
	uint32_t id, part;

	if (pt->resumed) {
		/* The access happens now: the bytes it sees are now's. */
		rep_event *x = pt->event < t->n ? &t->ev[pt->event] : NULL;
		if (x && x->kind == REP_EV_ACCESS && x->part == REP_PART_ADDR)
			read_mem(r, pt->thread, r->p->sites.sites[x->site].mem,
				 x->addr, x->width, &x->value);
		return;
	}
	t->points = pt->event + 1;
	switch (pt->kind) {
	case ENG_POINT_HOST:
		id = pt->nargs == 2 ? (uint32_t)pt->args[1] : UINT32_MAX;
		part = id & RW_PROBE_SRC   ? REP_PART_SRC
		       : id & RW_PROBE_LEN ? REP_PART_LEN
					   : REP_PART_ADDR;
		id &= ~(RW_PROBE_SRC | RW_PROBE_LEN);
		if (pt->host && !strcmp(pt->host, "heisen.probe") &&
		    id < r->p->sites.nsites) {
			const rw_site *s = &r->p->sites.sites[id];
			e.kind = REP_EV_ACCESS;
			e.addr = (uint32_t)pt->args[0];
			e.site = id;
			e.part = (uint8_t)part;
			e.rw = s->kind;
			e.width = s->width;
			if (part == REP_PART_ADDR)
				read_mem(r, pt->thread, s->mem, e.addr,
					 s->width, &e.value);
		} else {
			e.kind = REP_EV_CALL;
			e.site = intern(r, pt->host);
		}
		break;
	case ENG_POINT_WAIT:
		e.kind = REP_EV_WAIT;
		e.addr = pt->addr;
		break;
	case ENG_POINT_NOTIFY:
		e.kind = REP_EV_NOTIFY;
		e.addr = pt->addr;
		break;
	case ENG_POINT_SPAWN:
		e.kind = REP_EV_SPAWN;
		e.addr = pt->addr;
		break;
	case ENG_POINT_END: e.kind = REP_EV_END; break;
	}
	if (r->o->watch_width)
		read_mem(r, pt->thread, 0, r->o->watch_addr, r->o->watch_width,
			 &e.watch);
	take_stack(r, pt, &e);
	/* Rows are the run's points in order: a gap would misnumber every
	 * row after it, so the record stops there. */
	if (pt->event != t->n || t->n >= r->max || r->nomem) {
		t->truncated = true;
		return;
	}
	if (t->n == r->cap) {
		uint64_t nc = r->cap ? r->cap * 2 : 4096;
		rep_event *v;
		if (nc > r->max)
			nc = r->max;
		if (!(v = wasm_realloc(t->ev, nc * sizeof *v))) {
			r->nomem = true;
			t->truncated = true;
			return;
		}
		t->ev = v;
		r->cap = nc;
	}
	t->ev[t->n++] = e;
}

static uint32_t pick(void *ctx, uint64_t event, uint32_t cur, eng_point_kind k,
		     const uint32_t *runnable, uint32_t n)
{
	recorder *r = ctx;

	return r->inner.pick(r->inner.ctx, event, cur, k, runnable, n);
}

/* Ties each race of the run to its two rows (trace.h). */
static wasm_status tie_races(rep_trace *t, wasm_err *err)
{
	if (!t->res.nbugs)
		return WASM_OK;
	if (!(t->race = wasm_calloc(t->res.nbugs, sizeof *t->race)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for the trace's races");
	for (uint32_t b = 0; b < t->res.nbugs; b++) {
		const det_violation *v = &t->res.bugs[b];
		int c = v->cur ? 1 : 0, o = 1 - c;
		int64_t last = -1;

		for (uint64_t i = 0; i < t->n; i++) {
			const rep_event *e = &t->ev[i];
			if (e->kind != REP_EV_ACCESS ||
			    e->part != REP_PART_ADDR)
				continue;
			if (e->thread == v->tid[o] && e->site == v->site[o] &&
			    e->addr == v->addr[o])
				last = (int64_t)i;
			else if (last >= 0 && e->thread == v->tid[c] &&
				 e->site == v->site[c] &&
				 e->addr == v->addr[c]) {
				rep_trace_race *x = &t->race[t->nrace++];
				x->ev[0] = (uint64_t)last;
				x->ev[1] = i;
				x->bug = b;
				t->ev[last].mark |= REP_MARK_RACE;
				t->ev[i].mark |= REP_MARK_RACE;
				break;
			}
		}
	}
	return WASM_OK;
}

/* Names the stacks taken: an access's through the detector's naming
 * (its site as frame 0, inlined frames expanded), another point's frame
 * by frame. */
static wasm_status name_stacks(recorder *r, det_prog *p, wasm_err *err)
{
	rep_trace *t = r->t;

	if (!r->ntaken)
		return WASM_OK;
	if (!(t->stack = wasm_calloc(r->ntaken, sizeof *t->stack)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory naming stacks");
	for (size_t i = 0; i < r->ntaken; i++) {
		const struct taken *k = &r->taken[i];
		rep_trace_stack *s = &t->stack[t->nstack++];
		wasm_status st;

		s->event = k->event;
		if (k->access) {
			det_violation v = {.site = {k->site, k->site}};
			uint32_t n = k->n ? k->n - 1 : 0;
			if (n > DET_MAX_CALLERS)
				n = DET_MAX_CALLERS;
			v.stack[0].n = (uint8_t)n;
			memcpy(v.stack[0].caller, k->w + 1, n * sizeof *k->w);
			if ((st = det_prog_stack(p, &v, 0, &s->st, err)))
				return st;
			continue;
		}
		if (k->n &&
		    !(s->st.frame = wasm_calloc(k->n, sizeof(db_frame))))
			return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory naming stacks");
		for (uint32_t j = 0; j < k->n; j++) {
			char func[128];
			rw_srcpos pos = {0};
			db_frame *f = &s->st.frame[s->st.n++];
			f->offset = det_prog_frame(p, &k->w[j], func,
						   sizeof func, &pos);
			f->func = wasm_strdup(func);
			f->file = pos.file ? wasm_strdup(pos.file) : NULL;
			f->line = pos.line;
			if (!f->func || (pos.file && !f->file))
				return wasm_err_set(err, WASM_NOMEM,
						    WASM_NO_OFFSET,
						    "out of memory naming "
						    "stacks");
		}
	}
	return WASM_OK;
}

wasm_status rep_trace_run(const rep_spec *s, det_prog *p,
			  const rep_trace_opts *o, rep_trace *out,
			  wasm_err *err)
{
	recorder r = {0};
	rep_sched_spec spec;
	rep_sched *sched = NULL;
	uint8_t *mask = NULL;
	const char **argv = NULL;
	det_run_opts ro = {0};
	eng_sched hook;
	int in = -1, null = -1;
	uint32_t armed;
	wasm_status st = WASM_OK;

	memset(out, 0, sizeof *out);
	out->diverged = UINT64_MAX;
	out->fits = true;
	if (s->mode != REP_SCHEDULE || !s->has_sched)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "only a serial run's schedule can be "
				    "traced: find the race with 'heisen "
				    "explore' or 'heisen check --schedule'");
	for (size_t i = 1; i < o->nstacks; i++)
		if (o->stacks[i] <= o->stacks[i - 1])
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "stack rows must ascend");
	spec = s->sched;
	if (s->has_dec)
		spec.strategy = REP_SCHED_FIXED;
	sched = rep_sched_new(&spec, s->dec, s->ndec);
	mask = wasm_malloc(p->sites.nsites ? p->sites.nsites : 1);
	argv = det_prog_argv(p, s->args, s->nargs);
	if (!sched || !mask || !argv) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory for the trace");
		goto out;
	}
	if ((st = rep_mask(s, p, mask, &armed, err)))
		goto out;
	r.inner = rep_sched_hook(sched);
	r.p = p;
	r.o = o;
	r.t = out;
	r.max = o->max_events ? o->max_events : REP_TRACE_MAX;
	hook = (eng_sched){.pick = pick, .ctx = &r, .note = note};
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (s->ninput && (in = det_stdin_fd(s->input, s->ninput)) < 0) {
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot hold the run's standard input");
		goto out;
	}
	ro.algo = s->sched_collide ? DET_RACE : DET_HB;
	ro.delay = s->delay;
	ro.mask = mask;
	ro.profile = det_profile_find(s->profile ? s->profile : "default");
	ro.argv = argv;
	ro.argc = s->nargs + 1;
	ro.stdio[0] = in >= 0 ? in : null;
	ro.stdio[1] = o->out_fd >= 0 ? o->out_fd : null;
	ro.stdio[2] = o->out_fd >= 0 ? o->out_fd : null;
	ro.timeout_s = s->timeout_s;
	ro.world = &s->world;
	ro.sched = &hook;
	ro.sched_seed = s->sched.seed;
	if ((st = det_run(p->cm, &p->sites, &ro, &out->res, err)))
		goto out;
	if (r.nomem) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory recording the trace");
		goto out;
	}
	out->diverged = rep_sched_diverged(sched);
	if (spec.strategy == REP_SCHED_FIXED)
		out->fits = rep_sched_fits(sched, &out->res.sched, out->why,
					   sizeof out->why);
	for (uint64_t i = 0; i + 1 < out->n; i++)
		if (out->ev[i].thread != out->ev[i + 1].thread)
			out->ev[i].mark |= REP_MARK_SWITCH;
	if (!(st = tie_races(out, err)))
		st = name_stacks(&r, p, err);
out:
	if (in >= 0)
		close(in);
	if (null >= 0)
		close(null);
	rep_sched_free(sched);
	wasm_free(mask);
	wasm_free(argv);
	if (st)
		rep_trace_clear(out);
	return st;
}

void rep_trace_clear(rep_trace *t)
{
	wasm_free(t->ev);
	for (uint32_t i = 0; i < t->nnames; i++)
		wasm_free(t->names[i]);
	wasm_free(t->names);
	det_run_result_free(&t->res);
	wasm_free(t->race);
	for (size_t i = 0; i < t->nstack; i++)
		db_stack_clear(&t->stack[i].st);
	wasm_free(t->stack);
	memset(t, 0, sizeof *t);
}

const db_stack *rep_trace_stack_at(const rep_trace *t, uint64_t ev)
{
	for (size_t i = 0; i < t->nstack; i++)
		if (t->stack[i].event == ev)
			return &t->stack[i].st;
	return NULL;
}

bool rep_trace_matches(const rep_trace *t, uint64_t i,
		       const rep_trace_filter *f)
{
	const rep_event *e = &t->ev[i];

	if (f->thread != UINT32_MAX && e->thread != f->thread)
		return false;
	return !f->sites || (e->kind == REP_EV_ACCESS && f->sites[e->site]);
}

int64_t rep_trace_seek(const rep_trace *t, uint64_t from, int dir,
		       const rep_trace_filter *f)
{
	if (dir > 0) {
		for (uint64_t i = from + 1; i < t->n; i++)
			if (rep_trace_matches(t, i, f))
				return (int64_t)i;
	} else {
		for (uint64_t i = from < t->n ? from : t->n; i-- > 0;)
			if (rep_trace_matches(t, i, f))
				return (int64_t)i;
	}
	return -1;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

wasm_status rep_trace_place(const det_prog *p, const char *place, uint8_t *set,
			    uint32_t *count, wasm_err *err)
{
	const char *colon = strrchr(place, ':');
	char file[256] = "";
	unsigned long line = 0, id;
	char *end;

	*count = 0;
	memset(set, 0, p->sites.nsites);
	if (!strncmp(place, "site ", 5)) {
		id = strtoul(place + 5, &end, 10);
		if (end == place + 5 || *end || id >= p->sites.nsites)
			return wasm_err_set(
			    err, WASM_INVALID, WASM_NO_OFFSET,
			    "'%s': the program has sites 0 "
			    "to %u",
			    place, p->sites.nsites ? p->sites.nsites - 1 : 0);
		set[id] = 1;
		*count = 1;
		return WASM_OK;
	}
	if (colon && colon != place) {
		line = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end || !line ||
		    (size_t)(colon - place) >= sizeof file)
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "'%s' is not FILE:LINE, FUNCTION "
					    "or 'site N'",
					    place);
		memcpy(file, place, (size_t)(colon - place));
		file[colon - place] = '\0';
	}
	for (uint32_t i = 0; i < p->sites.nsites; i++) {
		char func[128];
		rw_srcpos pos = {0};
		det_prog_site(p, i, func, sizeof func, &pos);
		if (line ? pos.file && pos.line == line &&
			       !strcmp(base_name(pos.file), base_name(file))
			 : !strcmp(func, place)) {
			set[i] = 1;
			++*count;
		}
	}
	if (!*count)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "no access of the program is at '%s' "
				    "(give FILE:LINE of a line that reads or "
				    "writes shared memory, a function name, "
				    "or 'site N')",
				    place);
	return WASM_OK;
}
