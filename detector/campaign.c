/*
 * campaign.c - programs ready for masked runs, the worker pool, sweeps
 * and Algorithm 2 over several runs. See campaign.h for the contract.
 *
 * Workers are processes forked from the parent, each serving up to
 * WORKER_RUNS runs and then replaced: a run's engine state (threads,
 * 8 GiB reservations, the access table) goes with its instance, a
 * program that corrupts or kills its worker costs only the runs of that
 * worker, and the machine code a worker compiles on its runs' first
 * calls (core/jit.h) serves its later runs. A worker writes one result
 * record per run to a pipe; the parent multiplexes the pipes with
 * poll(2).
 */
#include "campaign.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/wasi.h"
#include "detector/hb.h"

static volatile sig_atomic_t stop_requested;

void det_sweep_stop(void) { stop_requested = 1; }

bool det_sweep_stopped(void) { return stop_requested != 0; }

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- programs ------------------------------------------------------------ */

/* $XDG_CACHE_HOME/heisen/HASH.wasm, or under ~/.cache; false when
 * neither is known. */
static bool cache_path(uint64_t hash, char *buf, size_t cap, bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char dir[4096];
	int n;

	if (xdg && *xdg)
		n = snprintf(dir, sizeof dir, "%s/heisen", xdg);
	else if (home && *home)
		n = snprintf(dir, sizeof dir, "%s/.cache/heisen", home);
	else
		return false;
	if (n < 0 || (size_t)n >= sizeof dir)
		return false;
	if (create) {
		char *slash = strrchr(dir, '/');
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return false;
	}
	n = snprintf(buf, cap, "%s/%016" PRIx64 ".wasm", dir, hash);
	return n > 0 && (size_t)n < cap;
}

/* Decode and validate bytes of an instrumented module; its site table
 * into *sites. */
static wasm_status load_instrumented(const uint8_t *bytes, size_t len,
				     wasm_module **m, rw_sites *sites,
				     wasm_err *err)
{
	wasm_status st = wasm_decode(bytes, len, m, err);

	if (!st)
		st = wasm_validate(*m, err);
	if (!st)
		st = rw_sites_read(*m, sites, err);
	if (st) {
		wasm_module_free(*m);
		*m = NULL;
	}
	return st;
}

/* The cached instrumentation of an original with this hash, if any and
 * sound. */
static bool from_cache(uint64_t hash, wasm_module **m, rw_sites *sites)
{
	char path[4200];
	uint8_t *bytes;
	size_t len;
	wasm_err e;
	bool ok = false;

	if (!cache_path(hash, path, sizeof path, false) ||
	    wasm_read_file(path, &bytes, &len, &e))
		return false;
	if (!load_instrumented(bytes, len, m, sites, &e)) {
		/* An older heisen's table (no offset map) is made again. */
		ok = sites->hash == hash && sites->version == RW_SITES_VERSION;
		if (!ok) {
			rw_sites_free(sites);
			wasm_module_free(*m);
			*m = NULL;
		}
	}
	wasm_free(bytes);
	return ok;
}

static wasm_status prog_sigs(det_prog *p, wasm_err *err);

wasm_status det_prog_load(const char *path, det_prog **out, wasm_err *err)
{
	det_prog *p = wasm_calloc(1, sizeof *p);
	wasm_module *m = NULL;
	uint8_t *bytes = NULL, *ibytes = NULL;
	size_t len, ilen;
	wasm_status st;
	const char *slash;

	wasm_err_clear(err);
	if (!p || !(p->path = strdup(path))) {
		wasm_free(p);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	slash = strrchr(p->path, '/');
	p->name = slash ? slash + 1 : p->path;
	if ((st = wasm_read_file(path, &bytes, &len, err)) ||
	    (st = wasm_decode(bytes, len, &m, err)) ||
	    (st = wasm_validate(m, err)))
		goto fail;
	st = rw_sites_read(m, &p->sites, err);
	if (st == WASM_INVALID) {
		/* Not instrumented: from the cache, or instrument now. */
		uint64_t hash = rw_hash(bytes, len);
		wasm_module *im = NULL;
		if (from_cache(hash, &im, &p->sites)) {
			p->cached = true;
		} else {
			rw_options opt = {.cover = true};
			char cpath[4200];
			wasm_err_clear(err);
			if ((st = rw_instrument(m, &opt, &ibytes, &ilen,
						&p->sites, err))) {
				/* rw_instrument's hint names an option of
				 * `heisen instrument`, not ours. */
				if (strstr(err->msg, "no shared memory"))
					wasm_err_set(
					    err, st, WASM_NO_OFFSET,
					    "no shared memory: threads "
					    "of this program share "
					    "nothing to race on (to "
					    "probe it anyway: 'heisen "
					    "instrument --all-memories "
					    "IN -o OUT', then use OUT)");
				goto fail;
			}
			rw_sites_free(&p->sites);
			if ((st = load_instrumented(ibytes, ilen, &im,
						    &p->sites, err)))
				goto fail;
			/* A cache that cannot be written only costs time. */
			if (cache_path(hash, cpath, sizeof cpath, true)) {
				wasm_err ce;
				wasm_write_file(cpath, ibytes, ilen, &ce);
			}
		}
		wasm_module_free(m);
		m = im;
	} else if (st) {
		goto fail;
	}
	if ((st = wasi_check_command(m, err)))
		goto fail;
	p->mem_span = det_mem_span(m);
	if (rw_srcmap_new(m, &p->srcmap, err))
		p->srcmap = NULL;
	/* Without it a stack has its physical frames only. */
	if (rw_inline_new(m, p->srcmap, &p->inl, err))
		p->inl = NULL;
	/* Without symbols a report only has no "Location" line. */
	if (rw_symbols_new(m, &p->symbols, err))
		p->symbols = NULL;
	wasm_err_clear(err);
	/* eng_compile owns m from here, also on failure. */
	st = eng_compile(m, &p->cm, err);
	m = NULL;
	if (st || (st = prog_sigs(p, err)))
		goto fail;
	wasm_free(bytes);
	wasm_free(ibytes);
	*out = p;
	return WASM_OK;
fail:
	wasm_free(bytes);
	wasm_free(ibytes);
	wasm_module_free(m);
	det_prog_free(p);
	return st;
}

void det_prog_free(det_prog *p)
{
	if (!p)
		return;
	rw_inline_free(p->inl); /* points into srcmap */
	rw_srcmap_free(p->srcmap);
	rw_symbols_free(p->symbols);
	if (p->cm)
		eng_module_free(p->cm);
	rw_sites_free(&p->sites);
	wasm_free(p->sig);
	free(p->path);
	wasm_free(p);
}

/* The runtime's source files, as their DWARF names them: wasi-libc's
 * WASI call wrappers by their directory in its tree (its build records
 * "././libc-bottom-half/..."), heisen's guest library by its directory
 * and file names. Not the rest of libc: two threads in memcpy or memset
 * on one buffer are the program's race, whatever file the accesses are
 * in. */
bool det_library_source(const char *file)
{
	static const char *const libc_dirs[] = {"libc-top-half/",
						"libc-bottom-half/"};
	const char *slash;

	if (!file)
		return false;
	while (!strncmp(file, "./", 2))
		file += 2;
	for (size_t i = 0; i < sizeof libc_dirs / sizeof *libc_dirs; i++)
		if (!strncmp(file, libc_dirs[i], strlen(libc_dirs[i])))
			return true;
	/* ".../guest/NAME": the parent folder's name is guest. */
	if (!(slash = strrchr(file, '/')) || slash - file < 5)
		return false;
	return !strncmp(slash - 5, "guest", 5) &&
	       (slash - 5 == file || slash[-6] == '/');
}

bool det_runtime_source(const char *file)
{
	static const char *const libc_dirs[] = {"libc-bottom-half/"};
	static const char *const guest[] = {
	    "guest/pthread.c", "guest/semaphore.c", "guest/malloc.c",
	    "guest/stdio.c",   "guest/crt1.c",	    "guest/thread_start.s"};
	size_t n;

	if (!file)
		return false;
	n = strlen(file);
	while (!strncmp(file, "./", 2))
		file += 2, n -= 2;
	for (size_t i = 0; i < sizeof libc_dirs / sizeof *libc_dirs; i++)
		if (!strncmp(file, libc_dirs[i], strlen(libc_dirs[i])))
			return true;
	for (size_t i = 0; i < sizeof guest / sizeof *guest; i++) {
		size_t g = strlen(guest[i]);
		if (n >= g && !strcmp(file + n - g, guest[i]) &&
		    (n == g || file[n - g - 1] == '/'))
			return true;
	}
	return false;
}

/* orig, a file offset in the original, as the DWARF tables of the
 * instrumented module take it: the DWARF counts from the original code
 * section, which moved. */
static size_t dwarf_off(const det_prog *p, uint32_t orig)
{
	const wasm_module *m = eng_module_wasm(p->cm);
	int64_t shift =
	    (int64_t)m->section_start[10] - (int64_t)p->sites.code_start;

	return (size_t)((int64_t)orig + shift);
}

/* The name of function f of the instrumented module (func[N] with its
 * index in the original when it has none) and the source position of
 * orig, a file offset in the original (0: unknown). */
static void prog_where(const det_prog *p, uint32_t f, uint32_t orig, char *func,
		       size_t cap, rw_srcpos *pos)
{
	const wasm_module *m = eng_module_wasm(p->cm);
	const wasm_str *nm = wasm_func_name(m, f);

	memset(pos, 0, sizeof *pos);
	if (nm)
		snprintf(func, cap, "%.*s", (int)nm->len, nm->p);
	else
		snprintf(func, cap, "func[%u]",
			 f > p->sites.probe_func ? f - 1 : f);
	if (p->srcmap && orig)
		rw_srcmap_lookup_near(p->srcmap, dwarf_off(p, orig), pos);
}

void det_prog_site(const det_prog *p, uint32_t site, char *func, size_t cap,
		   rw_srcpos *pos)
{
	const rw_site *s;

	if (site >= p->sites.nsites) {
		memset(pos, 0, sizeof *pos);
		snprintf(func, cap, "?");
		return;
	}
	s = &p->sites.sites[site];
	/* The probe import sits in front of the original's own functions. */
	prog_where(p, s->func >= p->sites.probe_func ? s->func + 1 : s->func,
		   s->offset, func, cap, pos);
}

/* ---- site signatures ------------------------------------------------ */

/* A site's signature before its ordinal, and where it sits in the
 * table, for sorting sites that share a key. */
typedef struct sig_key {
	uint64_t key;
	uint32_t site;
} sig_key;

static int cmp_sig_key(const void *a, const void *b)
{
	const sig_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/* The line of the first instruction of original function f: what a
 * site's line counts from, so that code added above the function leaves
 * its sites' signatures alone. 0 when unknown. */
static uint32_t func_first_line(const det_prog *p, uint32_t fi)
{
	const wasm_module *m = eng_module_wasm(p->cm);
	uint32_t orig, def = fi - m->nfunc_imports;
	char fn[8];
	rw_srcpos pos;

	if (fi < m->nfunc_imports || !rw_sites_orig(&p->sites, def, 0, &orig))
		return 0;
	prog_where(p, fi, orig, fn, sizeof fn, &pos);
	return pos.line;
}

static wasm_status prog_sigs(det_prog *p, wasm_err *err)
{
	uint32_t n = p->sites.nsites, first_of = UINT32_MAX, first_line = 0;
	sig_key *k;

	if (!n)
		return WASM_OK;
	p->sig = wasm_calloc(n, sizeof *p->sig);
	k = wasm_calloc(n, sizeof *k);
	if (!p->sig || !k) {
		wasm_free(k);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		const rw_site *s = &p->sites.sites[i];
		uint32_t fi = s->func >= p->sites.probe_func ? s->func + 1
							     : s->func;
		char buf[512], fn[200];
		const char *base;
		rw_srcpos pos;
		int len;

		det_prog_site(p, i, fn, sizeof fn, &pos);
		if (fi != first_of) {
			first_of = fi;
			first_line = func_first_line(p, fi);
		}
		base = pos.file ? strrchr(pos.file, '/') : NULL;
		base = base ? base + 1 : pos.file ? pos.file : "";
		len = snprintf(buf, sizeof buf, "%u|%s|%s|%d|%u", s->kind, fn,
			       base,
			       pos.line && first_line
				   ? (int)pos.line - (int)first_line
				   : (int)pos.line,
			       pos.column);
		k[i].key = rw_hash((const uint8_t *)buf,
				   len < 0 ? 0
				   : (size_t)len < sizeof buf ? (size_t)len
							      : sizeof buf - 1);
		k[i].site = i;
	}
	qsort(k, n, sizeof *k, cmp_sig_key);
	for (uint32_t i = 0, ord = 0; i < n; i++) {
		uint8_t b[12];
		uint64_t h;
		ord = i && k[i].key == k[i - 1].key ? ord + 1 : 0;
		memcpy(b, &k[i].key, 8);
		memcpy(b + 8, &ord, 4);
		h = rw_hash(b, sizeof b);
		p->sig[k[i].site] = h ? h : 1;
	}
	wasm_free(k);
	return WASM_OK;
}

uint64_t det_prog_sig(const det_prog *p, uint32_t site)
{
	return site < p->sites.nsites && p->sig ? p->sig[site] : 0;
}

uint32_t det_prog_frame(const det_prog *p, const eng_where *w, char *func,
			size_t cap, rw_srcpos *pos)
{
	const wasm_module *m = eng_module_wasm(p->cm);
	uint32_t orig = 0, def = w->func - m->nfunc_imports;

	if (w->func >= m->nfunc_imports && def < m->nfuncs &&
	    w->offset >= m->funcs[def].code_start &&
	    !rw_sites_orig(&p->sites, def,
			   (uint32_t)(w->offset - m->funcs[def].code_start),
			   &orig))
		orig = 0;
	prog_where(p, w->func, orig, func, cap, pos);
	return orig;
}

/* A stack being built: room for cap frames. */
typedef struct stack_build {
	db_stack *out;
	uint32_t cap;
} stack_build;

/* One frame more, its strings copied. False when out of memory. */
static bool put_frame(stack_build *b, const char *func, const char *file,
		      uint32_t line, uint32_t offset, bool inlined)
{
	db_frame *f;

	if (b->out->n == b->cap) {
		uint32_t cap = b->cap ? 2 * b->cap : 8;
		db_frame *v =
		    wasm_realloc(b->out->frame, cap * sizeof *b->out->frame);
		if (!v)
			return false;
		b->out->frame = v;
		b->cap = cap;
	}
	f = &b->out->frame[b->out->n++];
	memset(f, 0, sizeof *f);
	f->func = wasm_strdup(func);
	f->file = wasm_strdup(file);
	f->line = line;
	f->offset = offset;
	f->inlined = inlined;
	return f->func && (!file || f->file);
}

/* The physical frame (func, pos) at orig, a file offset in the original
 * (0: unknown), as frames: the functions inlined there, innermost first,
 * each at the line where the one before it was inlined (the first at
 * pos), then func at the line of the outermost inlined call. A chain the
 * DWARF places in a function of another name is dropped: it is what
 * wasm-ld --wrap leaves of the wrapped function (inline.h); so a module
 * without a name section ("func[N]") gets no inlined frames. Costs a
 * table lookup per frame, paid when a report is built, not when the
 * stack is taken. */
static bool put_frames(const det_prog *p, stack_build *b, const char *func,
		       const rw_srcpos *pos, uint32_t orig)
{
	rw_inframe in[RW_INLINE_MAX];
	const char *home = NULL;
	uint32_t k = orig ? rw_inline_lookup(p->inl, dwarf_off(p, orig), in,
					     RW_INLINE_MAX, &home)
			  : 0;

	if (k && home && strcmp(home, func))
		k = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!put_frame(b, in[i].name ? in[i].name : "?",
			       i ? in[i - 1].call_file : pos->file,
			       i ? in[i - 1].call_line : pos->line, orig, true))
			return false;
	return put_frame(b, func, k ? in[k - 1].call_file : pos->file,
			 k ? in[k - 1].call_line : pos->line, orig, false);
}

/* Name frames w[0..n) into b. False when out of memory. */
static bool name_frames(const det_prog *p, const eng_where *w, uint32_t n,
			stack_build *b)
{
	char fn[256];
	rw_srcpos pos;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = det_prog_frame(p, &w[i], fn, sizeof fn, &pos);
		if (!put_frames(p, b, fn, &pos, off))
			return false;
	}
	return true;
}

/* A stack of whole frames (an allocation's, a spawn's) as the workspace
 * keeps it. */
static wasm_status prog_frames(const det_prog *p, const det_stack *st,
			       db_stack *out, wasm_err *err)
{
	/* A record from a worker: never trust a count past the array. */
	uint32_t n = st->n < DET_MAX_CALLERS ? st->n : DET_MAX_CALLERS;
	stack_build b = {out, 0};

	memset(out, 0, sizeof *out);
	if (!n)
		return WASM_OK;
	if (!name_frames(p, st->caller, n, &b)) {
		db_stack_clear(out);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	out->truncated = st->truncated;
	return WASM_OK;
}

wasm_status det_prog_stack(const det_prog *p, const det_violation *v, int side,
			   db_stack *out, wasm_err *err)
{
	char fn[256];
	rw_srcpos pos;
	uint32_t site = v->site[side];
	/* A record from a worker: never trust a count past the array. */
	uint32_t n = v->stack[side].n < DET_MAX_CALLERS ? v->stack[side].n
							: DET_MAX_CALLERS;
	stack_build b = {out, 0};

	memset(out, 0, sizeof *out);
	if (!n)
		return WASM_OK;
	det_prog_site(p, site, fn, sizeof fn, &pos);
	if (!put_frames(p, &b, fn, &pos,
			site < p->sites.nsites ? p->sites.sites[site].offset
					       : 0) ||
	    !name_frames(p, v->stack[side].caller, n, &b)) {
		db_stack_clear(out);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	out->truncated = v->stack[side].truncated;
	return WASM_OK;
}

/* Where addr is: the run's hints first (l: a heap block, a thread's
 * stack), then the module's symbols. */
static wasm_status addr_loc(const det_prog *p, uint32_t addr, const det_loc *l,
			    db_loc *out, wasm_err *err)
{
	rw_symbol sym;

	memset(out, 0, sizeof *out);
	if ((l->kind == DET_LOC_HEAP || l->kind == DET_LOC_STACK) &&
	    addr - l->base < (l->size ? l->size : 1)) {
		out->kind =
		    l->kind == DET_LOC_HEAP ? DB_LOC_HEAP : DB_LOC_STACK;
		out->offset = addr - l->base;
		out->size = l->size;
		out->tid = l->tid;
		return l->kind == DET_LOC_HEAP
			   ? prog_frames(p, &l->stack, &out->stack, err)
			   : WASM_OK;
	}
	if (!rw_symbols_lookup(p->symbols, addr, &sym))
		return WASM_OK;
	out->offset = sym.offset;
	out->size = sym.size;
	switch (sym.region) {
	case RW_REGION_GLOBAL: out->kind = DB_LOC_GLOBAL; break;
	case RW_REGION_SEGMENT: out->kind = DB_LOC_SEGMENT; break;
	case RW_REGION_STACK: out->kind = DB_LOC_STACK; break; /* thread 0 */
	case RW_REGION_HEAP:
		out->kind = DB_LOC_HEAP;
		out->size = 0; /* which block is not known */
		break;
	default: return WASM_OK;
	}
	if (sym.name && !(out->name = wasm_strdup(sym.name))) {
		memset(out, 0, sizeof *out);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	return WASM_OK;
}

/* Where v's finder's address is. */
static wasm_status prog_loc(const det_prog *p, const det_violation *v,
			    db_loc *out, wasm_err *err)
{
	return addr_loc(p, v->addr[v->cur < 2 ? v->cur : 1], &v->loc, out, err);
}

/* The locks of one side of a violation as the workspace keeps them. */
static wasm_status prog_locks(const det_prog *p, const det_lockset *ls,
			      db_locks *out, wasm_err *err)
{
	/* A record from a worker: never trust a count past the array. */
	uint32_t n = ls->n < DET_MAX_LOCKS ? ls->n : DET_MAX_LOCKS;

	memset(out, 0, sizeof *out);
	if (!n)
		return WASM_OK;
	if (!(out->lock = wasm_calloc(n, sizeof *out->lock)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	out->held = ls->held > n ? ls->held : n;
	for (uint32_t i = 0; i < n; i++) {
		const det_lock *l = &ls->lock[i];
		db_lock *o = &out->lock[out->n++];
		o->kind = l->kind < DB_LOCK_KINDS ? l->kind : DB_LOCK_MUTEX;
		o->addr = l->addr;
		o->known = l->known;
		o->tid = l->tid;
		if (addr_loc(p, l->addr, &l->loc, &o->loc, err) ||
		    prog_frames(p, &l->first, &o->first, err))
			return err->status;
	}
	return WASM_OK;
}

wasm_status det_prog_hit(const det_prog *p, const det_violation *v, db_hit *h,
			 char (*func)[128], wasm_err *err)
{
	memset(h, 0, sizeof *h);
	for (int k = 0; k < 2; k++) {
		rw_srcpos pos;
		det_prog_site(p, v->site[k], func[k], 128, &pos);
		h->site[k].id = v->site[k];
		h->site[k].kind = v->kind[k];
		h->site[k].width = v->site[k] < p->sites.nsites
				       ? p->sites.sites[v->site[k]].width
				       : 0;
		h->site[k].func = func[k];
		h->site[k].file = pos.file;
		h->site[k].line = pos.line;
		h->site[k].sig = det_prog_sig(p, v->site[k]);
		h->tid[k] = v->tid[k];
		h->addr[k] = v->addr[k];
	}
	h->count = v->count;
	if (v->vwidth && v->vwidth <= DET_VALUE_BYTES && v->vside < 2) {
		h->value.width = v->vwidth;
		h->value.side = v->vside;
		memcpy(h->value.before, v->before, v->vwidth);
		memcpy(h->value.after, v->after, v->vwidth);
	}
	for (int k = 0; k < 2; k++) {
		h->spawn[k].known = v->spawn[k].known;
		h->spawn[k].parent = v->spawn[k].parent;
		if (det_prog_stack(p, v, k, &h->stack[k], err) ||
		    prog_frames(p, &v->spawn[k].stack, &h->spawn[k].stack,
				err) ||
		    prog_locks(p, &v->locks[k], &h->locks[k], err))
			goto fail;
		/* A record from a worker: never trust its NUL. */
		memcpy(h->name[k], v->name[k], DB_NAME_MAX - 1);
		h->name[k][DB_NAME_MAX - 1] = '\0';
	}
	if (prog_loc(p, v, &h->loc, err))
		goto fail;
	return WASM_OK;
fail:
	db_hit_clear(h);
	return err->status;
}

/* ---- option parsing --------------------------------------------------------
 */

/* "12.5" -> 1250 basis points; at most two decimals, in (0, 100]. */
static bool parse_percent(const char *s, size_t n, uint32_t *bp)
{
	uint32_t whole = 0, frac = 0, digits = 0, fd = 0;
	size_t i = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		whole = whole * 10 + (uint32_t)(s[i] - '0');
		if (whole > 100)
			return false;
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++) {
			if (fd == 2)
				return false;
			frac = frac * 10 + (uint32_t)(s[i] - '0');
		}
		if (fd == 0)
			return false;
		if (fd == 1)
			frac *= 10;
	}
	if (i != n || (digits == 0 && fd == 0))
		return false;
	*bp = whole * 100 + frac;
	return *bp > 0 && *bp <= DET_DENSITY_FULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

wasm_status det_parse_densities(const char *s, uint32_t **out, uint32_t *n,
				wasm_err *err)
{
	const char *colon = strchr(s, ':');
	uint32_t *v = NULL, k = 0;

	wasm_err_clear(err);
	if (colon) {
		const char *c2 = strchr(colon + 1, ':');
		uint32_t lo, hi, step;
		if (!c2 || strchr(c2 + 1, ':') ||
		    !parse_percent(s, (size_t)(colon - s), &lo) ||
		    !parse_percent(colon + 1, (size_t)(c2 - colon - 1), &hi) ||
		    !parse_percent(c2 + 1, strlen(c2 + 1), &step) || hi < lo)
			goto bad;
		v = wasm_malloc(((hi - lo) / step + 1) * sizeof *v);
		if (!v)
			goto oom;
		for (uint32_t d = lo; d <= hi; d += step)
			v[k++] = d;
	} else {
		size_t cap = 1;
		for (const char *c = s; *c; c++)
			cap += *c == ',';
		if (!(v = wasm_malloc(cap * sizeof *v)))
			goto oom;
		for (const char *c = s;;) {
			const char *e = strchr(c, ',');
			size_t len = e ? (size_t)(e - c) : strlen(c);
			if (!parse_percent(c, len, &v[k++]))
				goto bad;
			if (!e)
				break;
			c = e + 1;
		}
		qsort(v, k, sizeof *v, cmp_u32);
		uint32_t w = 0;
		for (uint32_t i = 0; i < k; i++)
			if (!w || v[w - 1] != v[i])
				v[w++] = v[i];
		k = w;
	}
	*out = v;
	*n = k;
	return WASM_OK;
bad:
	wasm_free(v);
	return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
			    "bad density list '%s': expected FIRST:LAST:STEP "
			    "(e.g. 5:100:5) or a comma list (e.g. 10,50,100) "
			    "of percentages in (0, 100] with at most two "
			    "decimals",
			    s);
oom:
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
}

wasm_status det_parse_profiles(const char *s, const det_profile ***out,
			       uint32_t *n, wasm_err *err)
{
	size_t cap = 1;
	uint32_t k = 0;
	const det_profile **v;

	wasm_err_clear(err);
	for (const char *c = s; *c; c++)
		cap += *c == ',';
	if (!(v = wasm_malloc(cap * sizeof *v)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	for (const char *c = s;;) {
		const char *e = strchr(c, ',');
		size_t len = e ? (size_t)(e - c) : strlen(c);
		const det_profile *pr = NULL;
		for (const det_profile *q = det_profiles; q->name; q++)
			if (strlen(q->name) == len && !memcmp(q->name, c, len))
				pr = q;
		if (!pr) {
			char names[256];
			det_profile_names(names, sizeof names, ", ");
			wasm_free(v);
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "unknown profile '%.*s' (profiles: "
					    "%s; see 'heisen profiles')",
					    (int)(len > 64 ? 64 : len), c,
					    names);
		}
		bool dup = false;
		for (uint32_t i = 0; i < k; i++)
			dup |= v[i] == pr;
		if (!dup)
			v[k++] = pr;
		if (!e)
			break;
		c = e + 1;
	}
	*out = v;
	*n = k;
	return WASM_OK;
}

/* ---- workers
 * ----------------------------------------------------------------- */

/* What a worker is asked to do. */
typedef struct job {
	uint64_t idx; /* plan index */
	det_algo algo;
	uint32_t density_bp;
	uint64_t seed;
	const det_profile *profile; /* valid in the worker: forked image */
} job;

/* What a worker sends back per job, followed by nbugs det_violation
 * records (DET_RACE) or nshared site ids (DET_SHARED), then a serial
 * run's ndec bytes of decisions. */
typedef struct wire_head {
	uint32_t magic;
	uint32_t status;
	int32_t exit_code;
	uint32_t nbugs, dropped, nshared;
	uint32_t benign; /* det_run_result's */
	uint64_t duration_ns, probes;
	uint64_t holds; /* with a trigger: det_run_result's */
	uint32_t met;
	uint32_t failed; /* with a failure: the run is one */
	uint32_t ndec;	 /* a serial run's decisions, encoded */
	eng_sched_stats sched;
	uint64_t diverged;
	char msg[256];
	char tail[DET_TAIL_MAX]; /* a run not ok: its stderr's last lines */
} wire_head;

#define WIRE_MAGIC 0x6865697aU
/* A worker process serves this many runs, then a fresh one takes over:
 * a run that leaks or corrupts host state cannot reach far. */
#define WORKER_RUNS 500
/* How long past the run's own timeout the parent waits before it kills a
 * worker that does not answer. */
#define WORKER_GRACE_S 10.0

typedef struct worker {
	pid_t pid;  /* 0: no process */
	int job_fd; /* parent -> worker */
	int res_fd; /* worker -> parent */
	bool busy;  /* a job is out */
	job j;
	uint64_t started_ns;
	double started_wall;
	uint32_t served;
	wasm_buf in;
	bool killed_late; /* killed by the parent's watchdog */
} worker;

/* Everything the workers of one batch share. */
typedef struct pool {
	det_prog *prog;
	const char *const *argv;
	uint32_t argc;
	const uint8_t *in; /* every run's stdin; nin 0: empty */
	uint32_t nin;
	const wasi_world *world; /* NULL: none */
	uint32_t delay;
	double timeout_s;
	const uint32_t *pool_sites; /* pruned set, or NULL */
	uint32_t npool;
	/* A batch (det_batch_run): job i runs under mask i % nmasks of
	 * masks instead of one drawn from its seed, with this breakpoint,
	 * and is judged by this failure. */
	const uint8_t *masks;
	uint32_t nmasks;
	const det_trigger *trigger;
	const det_failure *failure;
	/* Serial runs: every job's scheduler, seeded with sched_seed when
	 * fixed_seed (a batch), else with the job's seed. */
	const det_sched_maker *sched;
	uint64_t sched_seed;
	bool fixed_seed;
	uint32_t jobs;
	worker *w;
} pool;

/* The whole of n bytes through read(2) or write(2), across short
 * transfers and EINTR; false at EOF or on an error. */
static bool xfer_all(int fd, void *p, size_t n, bool out)
{
	uint8_t *b = p;
	while (n) {
		ssize_t k = out ? write(fd, b, n) : read(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

static bool write_all(int fd, const void *p, size_t n)
{
	return xfer_all(fd, (void *)p, n, true);
}

_Static_assert(DET_STDIN_MAX == DB_STDIN_MAX, "one limit for --stdin");
_Static_assert(DET_NAME_MAX == DB_NAME_MAX, "one limit for thread names");
_Static_assert(DET_TAIL_MAX == DB_TAIL_MAX, "one limit for stderr tails");

/* What a worker keeps across its jobs: the mask buffer, /dev/null, the
 * runs' stdin and for a stdout failure the file the program's output
 * goes to and the compiled pattern. */
typedef struct worker_io {
	uint8_t *mask;
	int devnull;
	int in_fd;  /* the pool's stdin (det_stdin_fd), or -1: devnull */
	int out_fd; /* -1: output to devnull */
	int err_fd; /* the run's stderr, for the tail of a run not ok */
	regex_t re;
	char *out; /* WORKER_OUT_MAX + 1 bytes */
	wasm_buf dec; /* a serial run's decisions */
} worker_io;

/* The output of a run that a stdout failure pattern sees: the first
 * WORKER_OUT_MAX bytes. */
#define WORKER_OUT_MAX (1u << 20)

/* Whether the run just done failed, per pl->failure. */
static bool judge(const pool *pl, worker_io *io, const det_run_result *res)
{
	ssize_t n = 0;

	if (!pl->failure)
		return false;
	if (io->out_fd >= 0) {
		n = pread(io->out_fd, io->out, WORKER_OUT_MAX, 0);
		io->out[n > 0 ? n : 0] = '\0';
	}
	return det_failure_match(pl->failure, io->out_fd >= 0 ? &io->re : NULL,
				 res->status, res->exit_code, io->out);
}

/* The last lines (at most DET_STDERR_LINES, within DET_TAIL_MAX - 1
 * bytes) of what the run wrote to fd into tail, NUL-terminated; control
 * characters but newlines and tabs become '?'. Empty when it wrote
 * nothing or fd cannot be read.
 *
 * Limitations: the worker keeps a run's whole stderr in a memory file
 * until the run ends; a program that writes gigabytes to stderr per run
 * costs that much memory. */
static void stderr_tail(int fd, char *tail)
{
	struct stat sb;
	off_t from;
	ssize_t n;
	char *p;
	int lines = 0;

	tail[0] = '\0';
	if (fd < 0 || fstat(fd, &sb) || sb.st_size <= 0)
		return;
	from =
	    sb.st_size > DET_TAIL_MAX - 1 ? sb.st_size - (DET_TAIL_MAX - 1) : 0;
	if ((n = pread(fd, tail, (size_t)(sb.st_size - from), from)) <= 0) {
		tail[0] = '\0';
		return;
	}
	while (n > 0 && tail[n - 1] == '\n')
		n--;
	tail[n] = '\0';
	/* From the end back to the start of the last lines; a line the
	 * window cut at its start is left out. */
	for (p = tail + n; p > tail; p--)
		if (p[-1] == '\n' && ++lines == DET_STDERR_LINES)
			break;
	if (p == tail && from > 0) {
		char *nl = strchr(tail, '\n');
		p = nl ? nl + 1 : tail;
	}
	memmove(tail, p, strlen(p) + 1);
	for (p = tail; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') ||
		    *p == 0x7f)
			*p = '?';
}

/* One job in the worker: run, report. False when the parent is gone. */
static bool worker_job(const pool *pl, const job *j, worker_io *io, int fd)
{
	uint8_t *mask = io->mask;
	det_prog *p = pl->prog;
	uint32_t n = p->sites.nsites;
	det_run_result res;
	det_run_opts o = {0};
	wire_head h;
	wasm_err e;
	bool ok;
	void *sched = NULL;
	eng_sched hook;

	memset(&h, 0, sizeof h);
	memset(&res, 0, sizeof res);
	h.magic = WIRE_MAGIC;
	o.algo = j->algo;
	o.mask = mask;
	o.delay = pl->delay;
	o.profile = j->profile;
	o.argv = pl->argv;
	o.argc = pl->argc;
	o.stdio[0] = o.stdio[1] = o.stdio[2] = io->devnull;
	if (io->in_fd >= 0) {
		/* The previous run read it to its end. */
		if (lseek(io->in_fd, 0, SEEK_SET) != 0) {
			h.status = DET_ERROR;
			h.exit_code = -1;
			snprintf(h.msg, sizeof h.msg, "rewinding stdin: %s",
				 strerror(errno));
			return write_all(fd, &h, sizeof h);
		}
		o.stdio[0] = io->in_fd;
	}
	if (io->out_fd >= 0) {
		if (ftruncate(io->out_fd, 0) || lseek(io->out_fd, 0, SEEK_SET))
			io->out[0] = '\0';
		o.stdio[1] = io->out_fd;
	}
	if (io->err_fd >= 0 && !ftruncate(io->err_fd, 0) &&
	    !lseek(io->err_fd, 0, SEEK_SET))
		o.stdio[2] = io->err_fd;
	o.timeout_s = pl->timeout_s;
	o.world = pl->world;
	o.trigger = pl->trigger;
	h.diverged = UINT64_MAX;
	if (pl->sched) {
		uint64_t seed = pl->fixed_seed ? pl->sched_seed : j->seed;
		if (!(sched = pl->sched->make(pl->sched->ctx, seed, &hook))) {
			h.status = DET_ERROR;
			h.exit_code = -1;
			snprintf(h.msg, sizeof h.msg,
				 "out of memory for the scheduler");
			return write_all(fd, &h, sizeof h);
		}
		o.sched = &hook;
		o.sched_seed = seed;
	}
	if (pl->masks)
		memcpy(mask, pl->masks + (size_t)(j->idx % pl->nmasks) * n, n);
	if ((!pl->masks && det_mask_make(j->seed, j->density_bp, pl->pool_sites,
					 pl->npool, mask, n, &e)) ||
	    det_run(p->cm, &p->sites, &o, &res, &e)) {
		if (sched)
			pl->sched->finish(sched, &io->dec, &h.diverged);
		io->dec.len = 0;
		h.status = DET_ERROR;
		h.exit_code = -1;
		snprintf(h.msg, sizeof h.msg, "%s", e.msg);
		return write_all(fd, &h, sizeof h);
	}
	io->dec.len = 0;
	if (sched && !pl->sched->finish(sched, &io->dec, &h.diverged)) {
		io->dec.len = 0;
		res.status = DET_ERROR;
		snprintf(res.msg, sizeof res.msg,
			 "out of memory recording the schedule");
	}
	h.ndec = (uint32_t)io->dec.len;
	h.sched = res.sched;
	h.status = res.status;
	h.exit_code = res.exit_code;
	h.duration_ns = res.duration_ns;
	h.probes = res.probes;
	h.holds = res.holds;
	h.met = res.met;
	h.failed = judge(pl, io, &res);
	memcpy(h.msg, res.msg, sizeof h.msg);
	if (res.status != DET_OK && o.stdio[2] == io->err_fd)
		stderr_tail(io->err_fd, h.tail);
	h.nbugs = res.nbugs;
	h.dropped = res.dropped;
	h.benign = res.benign;
	if (res.shared)
		for (uint32_t i = 0; i < n; i++)
			h.nshared += res.shared[i] != 0;
	ok = write_all(fd, &h, sizeof h) &&
	     (!res.nbugs ||
	      write_all(fd, res.bugs, res.nbugs * sizeof *res.bugs));
	for (uint32_t i = 0; ok && res.shared && i < n; i++)
		if (res.shared[i])
			ok = write_all(fd, &i, sizeof i);
	if (ok && h.ndec)
		ok = write_all(fd, io->dec.data, h.ndec);
	det_run_result_free(&res);
	return ok;
}

/* The worker process: jobs until the parent closes the job pipe. Never
 * returns. */
static void worker_main(const pool *pl, int job_fd, int res_fd)
{
	uint32_t n = pl->prog->sites.nsites;
	worker_io io = {.mask = wasm_calloc(n ? n : 1, 1),
			.devnull = open("/dev/null", O_RDWR),
			.in_fd = -1,
			.out_fd = -1,
			.err_fd = memfd_create("heisen-stderr", MFD_CLOEXEC)};
	job j;

	/* Ctrl-C reaches the whole process group: the parent decides. */
	signal(SIGINT, SIG_IGN);
	if (!io.mask || io.devnull < 0 ||
	    (pl->nin && (io.in_fd = det_stdin_fd(pl->in, pl->nin)) < 0))
		_exit(3);
	if (pl->failure && pl->failure->kind == DET_FAIL_STDOUT &&
	    ((io.out_fd = memfd_create("heisen-stdout", MFD_CLOEXEC)) < 0 ||
	     !(io.out = wasm_malloc(WORKER_OUT_MAX + 1)) ||
	     regcomp(&io.re, pl->failure->pattern,
		     REG_EXTENDED | REG_NOSUB | REG_NEWLINE)))
		_exit(3);
	while (xfer_all(job_fd, &j, sizeof j, false))
		if (!worker_job(pl, &j, &io, res_fd))
			break;
	_exit(0);
}

static wasm_status worker_spawn(pool *pl, worker *w, wasm_err *err)
{
	int jp[2], rp[2];
	pid_t pid;

	if (pipe2(jp, O_CLOEXEC) != 0)
		goto pipe_fail;
	if (pipe2(rp, O_CLOEXEC) != 0) {
		close(jp[0]);
		close(jp[1]);
		goto pipe_fail;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(jp[0]);
		close(jp[1]);
		close(rp[0]);
		close(rp[1]);
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot start a worker process: %s",
				    strerror(errno));
	}
	if (pid == 0) {
		close(jp[1]);
		close(rp[0]);
		/* The other workers' pipes are not ours to hold open. */
		for (uint32_t i = 0; i < pl->jobs; i++)
			if (pl->w[i].pid) {
				close(pl->w[i].job_fd);
				close(pl->w[i].res_fd);
			}
		worker_main(pl, jp[0], rp[1]);
	}
	close(jp[0]);
	close(rp[1]);
	memset(w, 0, sizeof *w);
	w->pid = pid;
	w->job_fd = jp[1];
	w->res_fd = rp[0];
	return WASM_OK;
pipe_fail:
	return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
			    "cannot create a pipe for a worker: %s",
			    strerror(errno));
}

/* A finished job's outcome, parsed from its record (or made up from how
 * its worker died). bugs/shared point into the worker's buffer. */
typedef struct outcome {
	wire_head h;
	const det_violation *bugs;
	const uint32_t *shared;
	const uint8_t *dec; /* h.ndec bytes */
} outcome;

/* Bytes of the complete record at the start of w->in, or 0 when it is
 * not complete yet; SIZE_MAX when it cannot be a record. */
static size_t record_size(const worker *w)
{
	wire_head h;

	if (w->in.len < sizeof h)
		return 0;
	memcpy(&h, w->in.data, sizeof h);
	if (h.magic != WIRE_MAGIC || h.status > DET_ERROR ||
	    h.nbugs > DET_MAX_BUGS || h.ndec > DB_SCHED_MAX)
		return SIZE_MAX;
	size_t need = sizeof h + h.nbugs * sizeof(det_violation) +
		      (size_t)h.nshared * sizeof(uint32_t) + h.ndec;
	return w->in.len >= need ? need : 0;
}

static void outcome_of_record(const worker *w, outcome *o)
{
	memcpy(&o->h, w->in.data, sizeof o->h);
	o->h.msg[sizeof o->h.msg - 1] = '\0';
	o->h.tail[sizeof o->h.tail - 1] = '\0';
	o->bugs = (const det_violation *)(w->in.data + sizeof o->h);
	o->shared = (const uint32_t *)(w->in.data + sizeof o->h +
				       o->h.nbugs * sizeof(det_violation));
	o->dec = (const uint8_t *)(o->shared + o->h.nshared);
}

/* The worker is gone or must go: kill it if asked, reap it, and if it
 * had a job, describe how that job ended in *o (returns true). */
static bool worker_reap(worker *w, bool kill_it, outcome *o)
{
	int ws = 0;
	bool had = w->busy;

	if (kill_it)
		kill(w->pid, SIGKILL);
	close(w->job_fd);
	close(w->res_fd);
	while (waitpid(w->pid, &ws, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	w->busy = false;
	wasm_buf_fini(&w->in);
	if (!had || !o)
		return false;
	memset(o, 0, sizeof *o);
	o->h.exit_code = -1;
	o->h.diverged = UINT64_MAX;
	o->h.duration_ns = now_ns() - w->started_ns;
	if (w->killed_late) {
		o->h.status = DET_TIMEOUT;
		snprintf(o->h.msg, sizeof o->h.msg,
			 "worker killed: no result %.0f s after the timeout",
			 WORKER_GRACE_S);
	} else if (WIFSIGNALED(ws)) {
		o->h.status = DET_CRASH;
		snprintf(o->h.msg, sizeof o->h.msg,
			 "worker killed by signal %d (%s)", WTERMSIG(ws),
			 strsignal(WTERMSIG(ws)));
	} else {
		o->h.status = DET_CRASH;
		snprintf(o->h.msg, sizeof o->h.msg,
			 "worker exited with status %d without a result",
			 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	}
	return true;
}

/* Callback for each finished job; returns false on a fatal error (err
 * set) to end the batch. */
typedef bool (*done_fn)(void *ctx, const job *j, double started,
			const outcome *o, wasm_err *err);
/* Produces the next job; false when there is none (now). */
typedef bool (*next_fn)(void *ctx, job *j);
typedef void (*tick_fn)(void *ctx);

/* Give idle worker w (spawned if needed) the next job. False when there
 * is no job left. */
static bool worker_assign(pool *pl, worker *w, next_fn next, void *ctx,
			  wasm_status *st, wasm_err *err)
{
	job j;

	if (!next(ctx, &j))
		return false;
	if (w->pid && w->served >= WORKER_RUNS)
		worker_reap(w, false, NULL);
	if (!w->pid && (*st = worker_spawn(pl, w, err)))
		return false;
	if (!write_all(w->job_fd, &j, sizeof j)) {
		/* Died between jobs: a fresh worker takes this one. */
		worker_reap(w, true, NULL);
		if ((*st = worker_spawn(pl, w, err)))
			return false;
		if (!write_all(w->job_fd, &j, sizeof j)) {
			*st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
					   "a new worker died at once");
			return false;
		}
	}
	w->busy = true;
	w->j = j;
	w->served++;
	w->killed_late = false;
	w->started_ns = now_ns();
	w->started_wall = wall_s();
	return true;
}

/* Run jobs from next() on up to pl->jobs workers until next() has no
 * more and every worker is done, or a stop is requested (workers are
 * then killed and their jobs dropped). */
static wasm_status pool_run(pool *pl, next_fn next, done_fn done, tick_fn tick,
			    void *ctx, wasm_err *err)
{
	struct pollfd *pfd = wasm_calloc(pl->jobs, sizeof *pfd);
	uint32_t *map = wasm_calloc(pl->jobs, sizeof *map);
	bool more = true;
	wasm_status st = WASM_OK;
	uint64_t last_tick = 0;

	if (!pfd || !map) {
		wasm_free(pfd);
		wasm_free(map);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	/* A worker that dies makes its pipe's reader see EOF; a write to a
	 * dead worker must fail, not kill the parent. */
	signal(SIGPIPE, SIG_IGN);
	while (!st && !stop_requested) {
		uint32_t np = 0;
		for (uint32_t i = 0; more && i < pl->jobs; i++)
			if (!pl->w[i].busy &&
			    !worker_assign(pl, &pl->w[i], next, ctx, &st, err))
				more = false;
		if (st)
			break;
		for (uint32_t i = 0; i < pl->jobs; i++)
			if (pl->w[i].busy) {
				pfd[np].fd = pl->w[i].res_fd;
				pfd[np].events = POLLIN;
				map[np++] = i;
			}
		if (!np)
			break;
		int r = poll(pfd, np, 100);
		if (r < 0 && errno != EINTR) {
			st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
					  "poll: %s", strerror(errno));
			break;
		}
		uint64_t t = now_ns();
		for (uint32_t k = 0; r > 0 && k < np && !st; k++) {
			worker *w = &pl->w[map[k]];
			uint8_t chunk[65536];
			outcome o;
			size_t rec;
			if (!pfd[k].revents)
				continue;
			ssize_t got = read(w->res_fd, chunk, sizeof chunk);
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				wasm_buf_put(&w->in, chunk, (size_t)got);
				if (w->in.oom) {
					st = wasm_err_set(err, WASM_NOMEM,
							  WASM_NO_OFFSET,
							  "out of memory");
					break;
				}
				rec = record_size(w);
				if (rec == 0)
					continue;
				if (rec == SIZE_MAX) {
					/* Not our protocol: a broken worker. */
					if (worker_reap(w, true, &o) &&
					    !done(ctx, &w->j, w->started_wall,
						  &o, err))
						st = err->status ? err->status
								 : WASM_IO;
					continue;
				}
				outcome_of_record(w, &o);
				w->busy = false;
				if (!done(ctx, &w->j, w->started_wall, &o, err))
					st =
					    err->status ? err->status : WASM_IO;
				w->in.len = 0;
				continue;
			}
			if (worker_reap(w, false, &o) &&
			    !done(ctx, &w->j, w->started_wall, &o, err))
				st = err->status ? err->status : WASM_IO;
		}
		/* A worker stuck past its run's timeout (the engine could not
		 * interrupt it) is killed; its run counts as a timeout. */
		for (uint32_t i = 0; pl->timeout_s > 0 && i < pl->jobs; i++) {
			worker *w = &pl->w[i];
			if (w->busy && !w->killed_late &&
			    (double)(t - w->started_ns) / 1e9 >
				pl->timeout_s + WORKER_GRACE_S) {
				kill(w->pid, SIGKILL);
				w->killed_late = true;
			}
		}
		if (tick && t - last_tick >= 100000000u) {
			last_tick = t;
			tick(ctx);
		}
	}
	for (uint32_t i = 0; i < pl->jobs; i++)
		if (pl->w[i].pid)
			worker_reap(&pl->w[i], st || stop_requested, NULL);
	wasm_free(pfd);
	wasm_free(map);
	return st;
}

/* ---- sweeps
 * ------------------------------------------------------------------- */

typedef struct pair_set {
	uint64_t *keys; /* (site_a + 1) << 32 | site_b, 0 = empty */
	size_t cap, n;
} pair_set;

/* Insert; true when the pair is new. */
static bool pair_add(pair_set *s, uint32_t a, uint32_t b)
{
	uint64_t key = ((uint64_t)a + 1) << 32 | b;

	if ((s->n + 1) * 2 > s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		uint64_t *nk = wasm_calloc(nc, sizeof *nk);
		if (!nk)
			return false;
		for (size_t i = 0; i < s->cap; i++)
			if (s->keys[i]) {
				size_t h = (size_t)(det_seed_mix(s->keys[i]) &
						    (nc - 1));
				while (nk[h])
					h = (h + 1) & (nc - 1);
				nk[h] = s->keys[i];
			}
		wasm_free(s->keys);
		s->keys = nk;
		s->cap = nc;
	}
	size_t h = (size_t)(det_seed_mix(key) & (s->cap - 1));
	while (s->keys[h]) {
		if (s->keys[h] == key)
			return false;
		h = (h + 1) & (s->cap - 1);
	}
	s->keys[h] = key;
	s->n++;
	return true;
}

typedef struct sweep {
	db *d;
	det_prog *prog;
	db_campaign *c;
	const det_profile **profiles;
	uint32_t nprofiles, ncells;
	int64_t node_id;
	const det_sweep_hooks *hooks;
	/* plan: the indices [next_idx, hi) */
	uint64_t next_idx, hi;
	uint64_t *done_idx; /* recorded before this call, ascending */
	size_t ndone, done_pos;
	uint32_t *perm; /* cell order of round perm_round */
	uint64_t perm_round;
	uint64_t t0;
	/* progress */
	det_progress pr;
	pair_set bugs;
	uint64_t last_commit;
	bool in_batch;
} sweep;

static bool collect_done(void *ctx, uint64_t idx)
{
	sweep *s = ctx;
	if ((s->ndone & (s->ndone - 1)) == 0 || s->ndone == 0) {
		size_t nc = s->ndone ? s->ndone * 2 : 16;
		uint64_t *v = wasm_realloc(s->done_idx, nc * sizeof *v);
		if (!v)
			return false;
		s->done_idx = v;
	}
	s->done_idx[s->ndone++] = idx;
	return true;
}

/* The cell of plan index idx. */
static uint32_t plan_cell(sweep *s, uint64_t idx)
{
	uint64_t round = idx / s->ncells;

	if (round != s->perm_round) {
		det_rng r;
		det_rng_seed(&r,
			     det_seed_mix(s->c->seed ^ det_seed_mix(round + 1) ^
					  0x636f6c6cULL));
		for (uint32_t i = 0; i < s->ncells; i++)
			s->perm[i] = i;
		for (uint32_t i = s->ncells; i > 1; i--) {
			uint32_t k = (uint32_t)det_rng_below(&r, i);
			uint32_t t = s->perm[i - 1];
			s->perm[i - 1] = s->perm[k];
			s->perm[k] = t;
		}
		s->perm_round = round;
	}
	return s->perm[idx % s->ncells];
}

static bool sweep_next(void *ctx, job *j)
{
	sweep *s = ctx;
	const db_campaign *c = s->c;

	for (;;) {
		uint64_t idx = s->next_idx;
		if ((c->planned && idx >= c->planned) || idx >= s->hi)
			return false;
		if (c->budget_s > 0 &&
		    (double)(now_ns() - s->t0) / 1e9 >= c->budget_s)
			return false;
		s->next_idx++;
		while (s->done_pos < s->ndone && s->done_idx[s->done_pos] < idx)
			s->done_pos++;
		if (s->done_pos < s->ndone && s->done_idx[s->done_pos] == idx)
			continue;
		uint32_t cell = plan_cell(s, idx);
		j->idx = idx;
		j->algo = c->kind == DB_KIND_SWEEP ? DET_RACE : DET_HB;
		j->profile = s->profiles[cell / c->ndensity];
		j->density_bp = c->density_bp[cell % c->ndensity];
		j->seed = det_seed_mix(c->seed ^ det_seed_mix(idx));
		return true;
	}
}

static void sweep_tick(void *ctx)
{
	sweep *s = ctx;
	s->pr.elapsed_s = (double)(now_ns() - s->t0) / 1e9;
	s->pr.runs_per_s =
	    s->pr.elapsed_s > 0
		? (double)(s->pr.done - s->ndone) / s->pr.elapsed_s
		: 0;
	if (s->hooks && s->hooks->progress)
		s->hooks->progress(s->hooks->ctx, &s->pr);
}

/* A hit with room for its two function names. */
typedef struct named_hit {
	db_hit h;
	char func[2][128];
} named_hit;

static bool sweep_done(void *ctx, const job *j, double started,
		       const outcome *o, wasm_err *err)
{
	sweep *s = ctx;
	named_hit local[16], *nv = local;
	db_hit *hv;
	uint32_t nh = o->h.nbugs;
	db_run r = {0};
	db_sched sc = {0};
	bool ok;

	if (nh > 16)
		nv = wasm_malloc(nh * sizeof *nv);
	hv = wasm_malloc((nh ? nh : 1) * sizeof *hv);
	if (!nv || !hv) {
		if (nv != local)
			wasm_free(nv);
		wasm_free(hv);
		wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
		return false;
	}
	nh = 0;
	for (uint32_t i = 0; i < o->h.nbugs; i++) {
		const det_violation *v = &o->bugs[i];
		db_hit *h = &nv[nh].h;
		if (det_prog_hit(s->prog, v, h, nv[nh].func, err))
			goto fail;
		if (det_runtime_source(h->site[0].file) &&
		    det_runtime_source(h->site[1].file)) {
			db_hit_clear(h);
			continue;
		}
		hv[nh++] = *h;
	}
	r.campaign_id = s->c->id;
	r.node_id = s->node_id;
	r.idx = j->idx;
	r.profile = (char *)j->profile->name;
	r.density_bp = j->density_bp;
	r.seed = j->seed;
	r.started = started;
	r.duration_us = o->h.duration_ns / 1000;
	r.status = (char *)det_status_name((det_status)o->h.status);
	r.exit_code = o->h.exit_code;
	r.msg = (char *)o->h.msg;
	r.stderr_tail = (char *)o->h.tail;
	r.nbugs = nh;
	if (s->c->schedule) {
		sc.points = o->h.sched.events;
		sc.digest = o->h.sched.digest;
		sc.switches = o->h.sched.switches;
		sc.failed = o->h.failed != 0;
		/* A run that found nothing replays from its seed alone. */
		sc.kept = nh || sc.failed || o->h.status != DET_OK;
		sc.decisions = sc.kept ? (uint8_t *)o->dec : NULL;
		sc.ndecisions = sc.kept ? o->h.ndec : 0;
		r.sched = &sc;
		s->pr.failures += sc.failed;
		if (o->h.sched.threads > s->pr.max_threads)
			s->pr.max_threads = o->h.sched.threads;
		if (sc.points > s->pr.max_points)
			s->pr.max_points = sc.points;
	}
	if (!s->in_batch) {
		if (db_begin(s->d, err))
			goto fail;
		s->in_batch = true;
	}
	if (db_run_add(s->d, &r, hv, nh, err))
		goto fail;
	if (s->hooks && s->hooks->run)
		s->hooks->run(s->hooks->ctx, &r, hv, nh);
	s->pr.done++;
	s->pr.by_status[o->h.status]++;
	s->pr.benign += o->h.benign;
	s->pr.benign_runs += o->h.benign != 0;
	for (uint32_t i = 0; i < nh; i++)
		if (pair_add(&s->bugs, hv[i].site[0].id, hv[i].site[1].id)) {
			s->pr.bugs++;
			if (s->hooks && s->hooks->bug)
				s->hooks->bug(s->hooks->ctx, &hv[i]);
		}
	uint64_t t = now_ns();
	if (t - s->last_commit >= DET_COMMIT_MS * 1000000ull) {
		s->in_batch = false;
		s->last_commit = t;
		if (db_commit(s->d, err))
			goto fail;
	}
	ok = true;
	goto out;
fail:
	ok = false;
out:
	for (uint32_t i = 0; i < nh; i++)
		db_hit_clear(&nv[i].h);
	if (nv != local)
		wasm_free(nv);
	wasm_free(hv);
	return ok;
}

const char **det_prog_argv(const det_prog *p, const char *args, uint32_t nargs)
{
	const char **v = wasm_malloc((nargs + 1) * sizeof *v);

	if (!v)
		return NULL;
	v[0] = p->name;
	for (uint32_t i = 0; i < nargs; i++) {
		v[i + 1] = args;
		args += strlen(args) + 1;
	}
	return v;
}

wasm_status det_sweep(db *d, det_prog *p, db_campaign *c,
		      const det_sweep_hooks *hooks, wasm_err *err)
{
	return det_sweep_slice(d, p, c, 0, UINT64_MAX, hooks, err);
}

wasm_status det_sweep_slice(db *d, det_prog *p, db_campaign *c, uint64_t lo,
			    uint64_t hi, const det_sweep_hooks *hooks,
			    wasm_err *err)
{
	sweep s = {0};
	uint64_t want, have = 0;
	pool pl = {0};
	const char **argv = NULL;
	uint32_t *hb_pool = NULL;
	det_failure failure;
	wasm_status st;

	stop_requested = 0;
	wasm_err_clear(err);
	s.d = d;
	s.prog = p;
	s.c = c;
	s.hooks = hooks;
	s.perm_round = UINT64_MAX;
	if (c->planned && hi > c->planned)
		hi = c->planned;
	if ((lo || hi != UINT64_MAX) && !c->planned)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "campaign %" PRId64 " runs to a time "
				    "budget: it has no plan to slice",
				    c->id);
	s.next_idx = lo;
	s.hi = hi;
	want = c->planned ? (hi > lo ? hi - lo : 0) : 0;
	if ((st = det_parse_profiles(c->profiles, &s.profiles, &s.nprofiles,
				     err)))
		return st;
	s.ncells = s.nprofiles * c->ndensity;
	if (!s.ncells) {
		wasm_free(s.profiles);
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "campaign %" PRId64 " has no cells to run",
				    c->id);
	}
	pl.jobs = c->jobs ? c->jobs : 1;
	s.perm = wasm_malloc(s.ncells * sizeof *s.perm);
	pl.w = wasm_calloc(pl.jobs, sizeof *pl.w);
	argv = det_prog_argv(p, c->args, c->nargs);
	if (!s.perm || !pl.w || !argv) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	if ((st = db_node_self(d, &s.node_id, err)) ||
	    (st = db_campaign_done(d, c->id, collect_done, &s, err)))
		goto out;
	pl.prog = p;
	pl.argv = argv;
	pl.argc = c->nargs + 1;
	pl.in = c->input;
	pl.nin = c->ninput;
	pl.world = &c->world;
	pl.delay = c->delay;
	pl.timeout_s = c->timeout_s;
	pl.pool_sites = c->prune ? c->pruned : NULL;
	pl.npool = c->prune ? c->npruned : p->sites.nsites;
	/* A check probes what happens-before needs (det_hb_sites). Under a
	 * schedule every site stays armed: each is a schedule point, and a
	 * recorded schedule counts them. */
	if (c->kind == DB_KIND_CHECK && !c->prune && !c->schedule) {
		if (!(hb_pool = wasm_malloc(((size_t)p->sites.nsites + 1) *
					    sizeof *hb_pool))) {
			st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
			goto out;
		}
		pl.npool = det_hb_sites(&p->sites, hb_pool);
		pl.pool_sites = hb_pool;
	}
	if (c->schedule) {
		if (!hooks || !hooks->sched) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "campaign %" PRId64 " runs under a "
					  "schedule but was given no "
					  "scheduler",
					  c->id);
			goto out;
		}
		pl.sched = hooks->sched;
	}
	if (c->failure) {
		if ((st = det_failure_parse(c->failure, &failure, err)))
			goto out;
		pl.failure = &failure;
	}
	for (size_t i = 0; i < s.ndone; i++)
		have += s.done_idx[i] >= lo && s.done_idx[i] < hi;
	s.pr.done = s.ndone;
	s.pr.planned = c->planned;
	s.pr.budget_s = c->budget_s;
	if ((st = db_campaign_set_status(d, c->id, "running", err)))
		goto out;
	s.t0 = s.last_commit = now_ns();
	st = pool_run(&pl, sweep_next, sweep_done, sweep_tick, &s, err);
	if (s.in_batch) {
		wasm_err cerr;
		if (st)
			db_rollback(d);
		else if ((st = db_commit(d, &cerr)))
			*err = cerr;
	}
	sweep_tick(&s);
	{
		/* The runs of the slice: those found, and those run now. */
		uint64_t slice_done = have + (s.pr.done - s.ndone);
		bool complete = !stop_requested && !st &&
				(!c->planned || slice_done >= want);
		wasm_err serr;
		const char *status = complete ? "done" : "stopped";
		wasm_status st2 =
		    db_campaign_set_status(d, c->id, status, &serr);
		free(c->status);
		c->status = strdup(status);
		if (!st && st2) {
			st = st2;
			*err = serr;
		}
	}
out:
	wasm_free(argv);
	wasm_free(hb_pool);
	wasm_free(pl.w);
	wasm_free(s.perm);
	wasm_free(s.profiles);
	wasm_free(s.done_idx);
	wasm_free(s.bugs.keys);
	return st;
}

typedef struct shared_ctx {
	uint32_t runs, next;
	uint8_t *shared;
	uint32_t nsites;
	uint32_t ok_runs;
	char first_error[300];
} shared_ctx;

static bool shared_next(void *ctx, job *j)
{
	shared_ctx *s = ctx;

	if (s->next >= s->runs)
		return false;
	memset(j, 0, sizeof *j);
	j->idx = s->next++;
	j->algo = DET_SHARED;
	j->density_bp = DET_DENSITY_FULL;
	j->profile = &det_profiles[0];
	return true;
}

static bool shared_done(void *ctx, const job *j, double started,
			const outcome *o, wasm_err *err)
{
	shared_ctx *s = ctx;

	if (o->h.status == DET_OK || o->h.status == DET_EXIT)
		s->ok_runs++;
	else if (!s->first_error[0])
		snprintf(s->first_error, sizeof s->first_error, "%s: %s",
			 det_status_name((det_status)o->h.status), o->h.msg);
	for (uint32_t i = 0; o->shared && i < o->h.nshared; i++)
		if (o->shared[i] < s->nsites)
			s->shared[o->shared[i]] = 1;
	return true;
}

wasm_status det_shared_sites(det_prog *p, const char *const *argv,
			     uint32_t argc, const uint8_t *in, uint32_t nin,
			     const wasi_world *world, uint32_t runs,
			     uint32_t jobs, double timeout_s, uint8_t *shared,
			     wasm_err *err)
{
	pool pl = {0};
	shared_ctx s = {0};
	wasm_status st;

	stop_requested = 0;
	wasm_err_clear(err);
	pl.prog = p;
	pl.argv = argv;
	pl.argc = argc;
	pl.in = in;
	pl.nin = nin;
	pl.world = world;
	pl.timeout_s = timeout_s;
	pl.npool = p->sites.nsites;
	pl.jobs = jobs ? jobs : 1;
	if (!(pl.w = wasm_calloc(pl.jobs, sizeof *pl.w)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	memset(shared, 0, p->sites.nsites);
	s.runs = runs;
	s.shared = shared;
	s.nsites = p->sites.nsites;
	st = pool_run(&pl, shared_next, shared_done, NULL, &s, err);
	wasm_free(pl.w);
	if (!st && stop_requested)
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "interrupted");
	if (!st && runs && !s.ok_runs)
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "no run finished normally (first: %s)",
				  s.first_error);
	return st;
}

/* ---- batches ---------------------------------------------------------- */

typedef struct batch_ctx {
	const det_batch *b;
	uint32_t next;
	bool stop; /* on_run asked to stop */
} batch_ctx;

static bool batch_next(void *ctx, job *j)
{
	batch_ctx *c = ctx;

	if (c->stop || c->next >= c->b->runs)
		return false;
	memset(j, 0, sizeof *j);
	j->idx = c->next++;
	j->algo =
	    c->b->sched && !c->b->trigger && !c->b->collide ? DET_HB : DET_RACE;
	if (c->b->vary_seed)
		j->seed = det_seed_mix(c->b->sched_seed ^ det_seed_mix(j->idx));
	j->profile = c->b->profile ? c->b->profile : &det_profiles[0];
	return true;
}

static bool batch_done(void *ctx, const job *j, double started,
		       const outcome *o, wasm_err *err)
{
	batch_ctx *c = ctx;
	det_batch_run_info r = {
	    .index = (uint32_t)j->idx,
	    .status = (det_status)o->h.status,
	    .exit_code = o->h.exit_code,
	    .msg = o->h.msg,
	    .stderr_tail = o->h.tail,
	    .duration_ns = o->h.duration_ns,
	    .bugs = o->bugs,
	    .nbugs = o->bugs ? o->h.nbugs : 0,
	    .holds = o->h.holds,
	    .met = o->h.met != 0,
	    .failed = o->h.failed != 0,
	    .sched = o->h.sched,
	    .diverged = o->h.diverged,
	    .dec = o->dec,
	    .ndec = o->dec ? o->h.ndec : 0,
	};

	if (!c->stop && !c->b->on_run(c->b->ctx, &r))
		c->stop = true;
	return true;
}

wasm_status det_batch_run(const det_batch *b, wasm_err *err)
{
	pool pl = {0};
	batch_ctx c = {.b = b};
	wasm_status st;

	stop_requested = 0;
	wasm_err_clear(err);
	pl.prog = b->prog;
	pl.argv = b->argv;
	pl.argc = b->argc;
	pl.in = b->in;
	pl.nin = b->nin;
	pl.world = b->world;
	pl.delay = b->delay;
	pl.timeout_s = b->timeout_s;
	pl.npool = b->prog->sites.nsites;
	pl.masks = b->mask;
	pl.nmasks = b->nmasks ? b->nmasks : 1;
	pl.trigger = b->trigger;
	pl.failure = b->failure;
	pl.sched = b->sched;
	pl.sched_seed = b->sched_seed;
	pl.fixed_seed = !b->vary_seed;
	pl.jobs = b->jobs ? b->jobs : 1;
	if (pl.jobs > b->runs && b->runs)
		pl.jobs = b->runs;
	if (!(pl.w = wasm_calloc(pl.jobs, sizeof *pl.w)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	st = pool_run(&pl, batch_next, batch_done, NULL, &c, err);
	wasm_free(pl.w);
	return st;
}
