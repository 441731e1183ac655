/*
 * trace.h - one serial execution recorded event by event, for the
 * debugger: `heisen timeline`, the Timeline screen and `heisen bisect`.
 *
 * rep_trace_run replays a schedule spec (mode schedule: its decisions
 * when kept, else its strategy and seed) once, in this process, under the
 * happens-before detector, with a note on every scheduling point
 * (core/engine.h's eng_sched.note). Each point becomes a row, numbered as
 * the run numbers its points (row i is point i): the thread that reached
 * it and what it was about to do there: a probed access (its site, kind,
 * width, address, and the bytes at the address just before it), another
 * host call (a WASI call or a hint, by name), a wait, a notify, a spawn,
 * a thread's end. Rows are 40 bytes: a long execution is kept whole up
 * to opts.max_events rows (past them the run goes on, rows not kept:
 * truncated). Since the run is deterministic, any question about a
 * point (its call stack, a value at an address) is answered by running
 * it again with the question asked in advance (opts.stacks, opts.watch):
 * a deterministic replay, not a guess.
 *
 * The races the detector reports are tied to rows: for each, the row of
 * the access that found it and the latest earlier row of the other
 * thread's access at the other site and address.
 *
 * Ownership: a rep_trace owns its rows, names, races, stacks and run
 * result (rep_trace_clear). Errors: WASM_INVALID for a spec that is not
 * a schedule; det_run's; WASM_NOMEM. A schedule that does not fit the
 * program, or left its decisions, is not an error: fits and diverged
 * say so and the rows show what ran.
 */
#ifndef HEISEN_REPLAY_TRACE_H
#define HEISEN_REPLAY_TRACE_H

#include "replay/replay.h"

typedef enum rep_ev_kind {
	REP_EV_ACCESS, /* a probed access: site, rw, width, addr, value */
	REP_EV_CALL,   /* another host call: name */
	REP_EV_WAIT,   /* memory.atomic.wait (or a sleep): addr */
	REP_EV_NOTIFY, /* memory.atomic.notify: addr */
	REP_EV_SPAWN,  /* spawned thread addr */
	REP_EV_END,    /* the thread ended */
} rep_ev_kind;

/* "access", "call", "wait", "notify", "spawn", "end". */
const char *rep_ev_kind_name(rep_ev_kind k);

typedef struct rep_event {
	uint64_t addr;	/* see rep_ev_kind */
	uint64_t value; /* ACCESS: the first bytes at addr just before the
			   access happens (width up to 8, little-endian; 0
			   for a range or an address out of memory): when
			   the thread is switched out at its point, that is
			   when it gets the turn back */
	uint64_t watch; /* the watched bytes at this point (opts.watch) */
	uint32_t thread;
	uint32_t site; /* ACCESS: site id; CALL: index into names */
	uint8_t kind;  /* rep_ev_kind */
	uint8_t rw;    /* ACCESS: rw_kind */
	uint8_t width; /* ACCESS: bytes (0: a range) */
	uint8_t mark;  /* REP_MARK_* */
	/* ACCESS of a range site (memory.copy, fill, init): its probe
	 * passes the destination, then (a copy within one memory) the
	 * source, then the length, each a point: REP_PART_* says which
	 * this row is, addr holding that operand. */
	uint8_t part;
} rep_event;

enum { REP_PART_ADDR, REP_PART_SRC, REP_PART_LEN };

enum {
	REP_MARK_RACE = 1,  /* one of a race's two accesses */
	REP_MARK_SWITCH = 2 /* the next row is another thread's */
};

typedef struct rep_trace_opts {
	uint64_t max_events; /* rows kept at most (0: REP_TRACE_MAX) */
	/* Bytes [watch_addr, watch_addr + watch_width) of memory 0, read
	 * at every point into rep_event.watch (width 1..8; 0: none). */
	uint32_t watch_addr;
	uint8_t watch_width;
	/* Rows whose call stacks to take (ascending), at most 64. */
	const uint64_t *stacks;
	size_t nstacks;
	int out_fd; /* the program's stdout and stderr (-1: discarded) */
} rep_trace_opts;

#define REP_TRACE_MAX 4000000u

typedef struct rep_trace_race {
	uint64_t ev[2]; /* rows: the earlier access, the one that found it */
	uint32_t bug;	/* index into res.bugs */
} rep_trace_race;

typedef struct rep_trace_stack {
	uint64_t event;
	db_stack st; /* named, frame 0 the row's own place */
} rep_trace_stack;

typedef struct rep_trace {
	rep_event *ev;
	uint64_t n;	 /* rows kept */
	uint64_t points; /* points the run passed */
	bool truncated;	 /* points > n */
	char **names;	 /* host call names (REP_EV_CALL's site) */
	uint32_t nnames;
	det_run_result res; /* how the run ended, its races (res.bugs) */
	rep_trace_race *race;
	uint32_t nrace;
	rep_trace_stack *stack;
	size_t nstack;
	/* A followed schedule: the first point where a decision could not
	 * be followed (UINT64_MAX: none); fits false (why) when the
	 * decisions name a thread the run never had or a point past its
	 * end. */
	uint64_t diverged;
	bool fits;
	char why[160];
} rep_trace;

wasm_status rep_trace_run(const rep_spec *s, det_prog *p,
			  const rep_trace_opts *o, rep_trace *out,
			  wasm_err *err);
void rep_trace_clear(rep_trace *t);

/* The stack taken for row ev, or NULL. */
const db_stack *rep_trace_stack_at(const rep_trace *t, uint64_t ev);

/* Which rows a search stops at: a thread (UINT32_MAX: any), and sites
 * (set: nsites bytes, non-zero for a site to stop at; NULL: any row). */
typedef struct rep_trace_filter {
	uint32_t thread;
	const uint8_t *sites;
} rep_trace_filter;

/* Whether row i (< t->n) is one f stops at. */
bool rep_trace_matches(const rep_trace *t, uint64_t i,
		       const rep_trace_filter *f);
/* The first row after `from` (dir +1) or before it (dir -1) that f
 * matches, or -1 when none. */
int64_t rep_trace_seek(const rep_trace *t, uint64_t from, int dir,
		       const rep_trace_filter *f);

/* The sites a place names, into set[0..nsites): "FILE:LINE" (the file
 * by its base name), "FUNCTION", or "site N". *count is how many;
 * WASM_INVALID, naming the place, when it is none of these forms or
 * names no site of the program. */
wasm_status rep_trace_place(const det_prog *p, const char *place, uint8_t *set,
			    uint32_t *count, wasm_err *err);

#endif
