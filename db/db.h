/*
 * db.h - the workspace database: one SQLite file (default ./heisen.db,
 * or $HEISEN_DB, or --db FILE) holding every program, campaign, run and
 * bug. All of heisen's SQL lives in db/; callers see structs.
 *
 * Schema (db/schema.c; DESIGN "Storage"): nodes, programs, campaigns,
 * runs, bugs, run_bugs, remotes. WAL journal, foreign keys on, the schema
 * version in PRAGMA user_version; db_open applies the forward migrations a
 * file lacks, each in its own transaction, and refuses a file from a newer
 * heisen. db/sync.h moves records between workspaces (schema 5: an
 * imported campaign's origin); db/nodes.h keeps the remote nodes (schema
 * 6: remotes). Schema 7: call stacks (stacks; run_bugs.stack_a/stack_b),
 * each distinct stack stored once. Schema 8: a collision's value evidence
 * (run_bugs.value) and each bug site's width (bugs.width_a/width_b).
 * Schema 9: bug signatures (bugs.sig) and triage decisions (triage).
 * Schema 10: a race's location (run_bugs.location, loc_stack) and who
 * created its threads (run_bugs.parents, spawn_a/spawn_b). Schema 11: a
 * campaign's stdin. Schema 12: serial runs' schedules (campaigns.schedule
 * and failure; schedules, one row per serial run).
 * Schema 13: the locks each access of a race held (run_bugs.locks,
 * db_locks_format's text) and the names of its threads (run_bugs.names,
 * db_names_format's).
 *
 * Writes: db_run_add inserts one run with its bugs. Callers batch many
 * runs in one transaction with db_begin/db_commit (a campaign commits
 * every few hundred milliseconds), which is what makes tens of thousands
 * of runs per second possible; outside a batch each call is its own
 * transaction. A crash between batches loses only the open batch.
 *
 * Errors: every function returns a wasm_status and fills a wasm_err:
 *   WASM_IO        the file cannot be opened or written (permissions,
 *                  missing directory, disk full, locked for too long);
 *   WASM_MALFORMED the file is not a heisen database (not SQLite, corrupt,
 *                  or written by a newer heisen: the message says which
 *                  and what to do);
 *   WASM_INVALID   a lookup found nothing ("no campaign 12 in heisen.db");
 *   WASM_NOMEM.
 * Messages name the database file.
 *
 * Ownership: a db is used by one thread at a time. Strings in the
 * structs that list functions pass to callbacks are valid only during
 * the callback; *_get functions fill caller structs whose strings are
 * owned by the struct and released with the matching *_clear.
 */
#ifndef HEISEN_DB_DB_H
#define HEISEN_DB_DB_H

#include "core/util.h"
#include "core/wasi.h"

typedef struct db db;

#define DB_SCHEMA_VERSION 15

/* The database a command uses: path if non-NULL, else $HEISEN_DB if set
 * and non-empty, else "heisen.db". */
const char *db_path_choose(const char *path);

/* path, or when path names a directory its heisen.db (into buf[cap]):
 * `--db DIR` and a node URL naming a directory mean DIR/heisen.db. */
const char *db_path_resolve(const char *path, char *buf, size_t cap);

/* Open (creating it and its schema if missing) and migrate; a directory
 * means its heisen.db (db_path_resolve). */
wasm_status db_open(const char *path, db **out, wasm_err *err);
void db_close(db *d);
/* The file d has open (a directory's heisen.db resolved); owned by d. */
const char *db_file(db *d);
/* PRAGMA integrity_check: WASM_OK when it answers "ok". */
wasm_status db_check(db *d, wasm_err *err);

wasm_status db_begin(db *d, wasm_err *err);
/* db_begin for a writer that takes every row id it stores from a row it
 * found or made itself (db_import_mem): foreign keys are not checked
 * until the batch ends, which spares a lookup per reference (a sixth of
 * a Slurm fetch). Inside an open batch, as db_begin. */
wasm_status db_begin_trusted(db *d, wasm_err *err);
wasm_status db_commit(db *d, wasm_err *err);
/* Discard the open batch (on an error inside it). */
void db_rollback(db *d);
/* A part of the open batch kept or undone as a whole (a savepoint): a
 * fetch imports each task file as a part, so a refused file leaves
 * nothing behind while the batch commits the others at once. end keeps
 * the part's writes in the batch; undo discards them. */
wasm_status db_part_begin(db *d, wasm_err *err);
wasm_status db_part_end(db *d, wasm_err *err);
void db_part_undo(db *d);

/* ---- nodes and programs ------------------------------------------------ */

/* This machine's node row: created on first use from the host name and a
 * stable node id (/etc/machine-id when readable, else a random id kept in
 * the database). $HEISEN_NODE, when set to a node name (letters, digits,
 * '.', '_', '-'), is both instead: several nodes on one machine. */
wasm_status db_node_self(db *d, int64_t *id, wasm_err *err);

typedef struct db_program {
	int64_t id;
	uint64_t hash;    /* rw_sites.hash: FNV-1a 64 of the original */
	char *name;       /* file name without directory */
	char *path;       /* where it was last run from */
	uint32_t nsites;
} db_program;

/* Insert the program, or find it by hash (updating its path). */
wasm_status db_program_put(db *d, uint64_t hash, const char *name,
			   const char *path, uint32_t nsites, int64_t *id,
			   wasm_err *err);
wasm_status db_program_get(db *d, int64_t id, db_program *out,
			   wasm_err *err);
/* Find by id ("3"), hash (hex) or name; WASM_INVALID if none or if a
 * name matches several programs (the message lists them). */
wasm_status db_program_find(db *d, const char *key, db_program *out,
			    wasm_err *err);
/* The builds of a program: how many programs are named name (*n), the
 * first of them into *out when there is one (db_program_clear). */
wasm_status db_program_named(db *d, const char *name, db_program *out,
			     uint32_t *n, wasm_err *err);
void db_program_clear(db_program *p);

/* ---- campaigns ------------------------------------------------------------ */

/* What ran a campaign: collision sweeps (heisen sweep), happens-before
 * checks (heisen check) or schedule searches (heisen explore: a check
 * whose every run is serial under its own schedule). Only sweeps' runs
 * make detectability grids and simulations: the others arm every site
 * with no delay. */
typedef enum db_kind { DB_KIND_SWEEP, DB_KIND_CHECK, DB_KIND_EXPLORE } db_kind;
/* "sweep", "check", "explore"; parse maps anything else to sweep. */
const char *db_kind_name(db_kind k);
db_kind db_kind_parse(const char *s);

/* The most bytes a campaign's stdin may have (DET_STDIN_MAX). */
#define DB_STDIN_MAX (1u << 20)
/* The most of a failed run's stderr kept: its last lines within this
 * many bytes (NUL included). */
#define DB_TAIL_MAX 1024u

typedef struct db_campaign {
	int64_t id, program_id, node_id;
	db_kind kind;
	double created;       /* Unix time, seconds */
	char *program;        /* program name (filled by get/list) */
	char *densities;      /* as given: "5:100:5" or "10,50,100" */
	uint32_t ndensity;    /* expanded, in basis points */
	uint32_t *density_bp;
	char *profiles;       /* comma-separated names */
	uint32_t runs;        /* runs per cell, 0 with a budget */
	double budget_s;      /* 0 without */
	uint32_t jobs;
	uint64_t seed;
	uint32_t delay;
	double timeout_s;
	bool prune;
	uint32_t npruned;     /* pruned pool (sites), when prune */
	uint32_t *pruned;
	char *args;           /* program arguments, NUL-separated */
	uint32_t nargs;
	/* Every run's standard input (`--stdin FILE`), kept whole so that
	 * --resume, rerun and replay read the same bytes wherever the file
	 * went: ninput bytes, and input_hash their rw_hash in hex. Without
	 * --stdin input_hash is NULL (stdin empty). */
	uint8_t *input;
	uint32_t ninput;
	char *input_hash;
	/* Serial runs (schema 12): the schedule strategy every run follows
	 * with its own seed (the run's), as rep_sched_parse reads it; NULL
	 * when the runs were not serial. failure: what an explore counted as
	 * a failure (det_failure_parse's text), or NULL. */
	char *schedule;
	char *failure;
	/* The program's world (schema 14): the directories granted (host
	 * paths absolute), environment and limits every run had; empty for
	 * the campaigns before it. */
	wasi_world world;
	/* "running", "stopped", "done", or "interrupted": marked running
	 * but its sweep process on this machine is gone (killed, power
	 * loss), found when the row is read. */
	char *status;
	uint64_t planned;     /* runs in the plan (0: open-ended budget) */
	uint32_t mask_version; /* the mask generator that drew its masks */
	/* filled by get/list: */
	uint64_t done;        /* runs recorded */
	uint64_t bugs;        /* distinct bugs among its runs */
	uint64_t cells;       /* (profile, density) cells with >= 1 run */
	int owner_pid;        /* running/interrupted: its sweep process */
	bool owner_remote;    /* running on another machine: not checked */
	char *node;           /* host name of the node that ran it, or NULL */
} db_campaign;

/* Insert c (id, created and the counters are ignored) and set c->id. A
 * status of "running" (or NULL) records this process as its sweep. */
wasm_status db_campaign_new(db *d, db_campaign *c, wasm_err *err);
wasm_status db_campaign_get(db *d, int64_t id, db_campaign *out,
			    wasm_err *err);
void db_campaign_clear(db_campaign *c);
/* "running" also records this process as the campaign's sweep (see
 * status); any other status clears it. */
wasm_status db_campaign_set_status(db *d, int64_t id, const char *status,
				   wasm_err *err);
/* Status "done" for campaign id once a run of every plan index is
 * recorded (a fetch that brought the last of them home); nothing
 * otherwise. */
wasm_status db_campaign_complete(db *d, int64_t id, wasm_err *err);
/* Every campaign, newest first. cb returns false to stop early. */
wasm_status db_campaign_list(db *d,
			     bool (*cb)(void *ctx, const db_campaign *c),
			     void *ctx, wasm_err *err);
/* The plan indices of c's recorded runs, ascending (for --resume). */
wasm_status db_campaign_done(db *d, int64_t id,
			     bool (*cb)(void *ctx, uint64_t idx), void *ctx,
			     wasm_err *err);

/* ---- runs and bugs -------------------------------------------------------- */

/* Triage states of a bug, in the order a bug usually goes through them.
 * The state belongs to the bug's signature within programs of its name,
 * so a rebuilt program's bug keeps it. */
typedef enum db_state {
	DB_STATE_NEW,
	DB_STATE_CONFIRMED,
	DB_STATE_FIXED,
	DB_STATE_NOT_A_BUG,
	DB_NSTATES
} db_state;
/* "new", "confirmed", "fixed", "not-a-bug"; parse: false (and *out
 * DB_STATE_NEW) for anything else. */
const char *db_state_name(db_state s);
bool db_state_parse(const char *text, db_state *out);

/* Where a site is, resolved by the caller when a bug is first stored. */
typedef struct db_site {
	uint32_t id;
	uint8_t kind;      /* rw_kind */
	const char *func;  /* function name, or NULL */
	const char *file;  /* source file, or NULL */
	uint32_t line;     /* 0 if unknown */
	uint8_t width;     /* bytes accessed; 0 for a range or unknown */
	uint64_t sig;      /* det_prog_sig; 0: unknown (the bug gets none) */
} db_site;

/* One frame of a call stack: a function, its source position and the
 * code offset in the original binary (0: unknown). An inlined frame is a
 * function the compiler inlined into the next frame: it has the same
 * offset as that frame, which is where the code physically is. */
typedef struct db_frame {
	char *func;     /* never NULL */
	char *file;     /* NULL when unknown */
	uint32_t line;  /* 0 when unknown */
	uint32_t offset;
	bool inlined;
} db_frame;

/* A call stack, innermost frame first: frame 0 is the access itself, the
 * rest its callers. n = 0: none was taken. truncated: the stack had more
 * callers than were kept. */
typedef struct db_stack {
	db_frame *frame;
	uint32_t n;
	bool truncated;
} db_stack;

/* Release a stack db_* filled (its frames and strings). */
void db_stack_clear(db_stack *s);

/* The text form of a stack, as the workspace and export streams keep it:
 * a line per frame, "FUNC\tFILE\tLINE\tOFFSET" (FILE empty when unknown;
 * tabs and line breaks in names become spaces), "\tinlined" before the
 * line break of an inlined frame, then "...\n" when truncated. db_stack_format returns a malloc'd string (NULL: out of
 * memory); db_stack_parse fills *out (free with db_stack_clear) and gives
 * WASM_MALFORMED with the line for text that is not of this form. */
char *db_stack_format(const db_stack *s);
wasm_status db_stack_parse(const char *text, db_stack *out, wasm_err *err);

/* Value evidence of a collision: the width bytes at the address of
 * access `side` as its thread read them just before and just after its
 * delay window (KCSAN's "value changed"). width 0: none was kept. */
#define DB_VALUE_BYTES 16u
typedef struct db_value {
	uint8_t width, side;
	uint8_t before[DB_VALUE_BYTES], after[DB_VALUE_BYTES];
} db_value;

/* The text form the workspace and export streams keep: "SIDE OLD NEW",
 * SIDE 0 or 1, OLD and NEW width bytes in hex, in memory order.
 * db_value_format writes it into buf (cap >= 72 bytes); db_value_parse
 * gives WASM_MALFORMED for text that is not of this form. */
void db_value_format(const db_value *v, char *buf, size_t cap);
wasm_status db_value_parse(const char *text, db_value *out, wasm_err *err);
/* Whether v was kept and another thread changed its bytes meanwhile. */
bool db_value_changed(const db_value *v);

/* Where the racing bytes are (ThreadSanitizer's "Location is"). */
typedef enum db_loc_kind {
	DB_LOC_NONE,	/* not known */
	DB_LOC_GLOBAL,	/* a variable (DWARF): name, offset, size */
	DB_LOC_SEGMENT, /* a data segment (name section): name, offset, size */
	DB_LOC_HEAP,	/* heap memory; with size > 0 a block the program's
			   allocator reported: offset, size, tid and stack
			   of the allocation; size 0: the block is unknown */
	DB_LOC_STACK,	/* a thread's stack: tid, offset, size */
} db_loc_kind;

typedef struct db_loc {
	uint8_t kind;	 /* db_loc_kind */
	uint32_t offset; /* of the racing address into the object */
	uint32_t size;	 /* of the object; 0 when unknown */
	uint32_t tid;	 /* HEAP: the allocating thread; STACK: whose */
	char *name;	 /* GLOBAL, SEGMENT; NULL otherwise */
	db_stack stack;	 /* HEAP: the allocation's stack (n = 0: none) */
} db_loc;

/* "global", "segment", "heap", "stack", or "" for none. */
const char *db_loc_kind_name(uint8_t kind);
/* The text form the workspace and export streams keep: "KIND OFFSET
 * SIZE TID NAME" (TID "-" for none, NAME last and may hold spaces;
 * absent for none). The stack is kept apart, as every stack is.
 * db_loc_format returns a malloc'd string, NULL for DB_LOC_NONE or out
 * of memory; db_loc_parse fills out (db_loc_clear) and gives
 * WASM_MALFORMED for text not of this form. */
char *db_loc_format(const db_loc *l);
wasm_status db_loc_parse(const char *text, db_loc *out, wasm_err *err);
void db_loc_clear(db_loc *l);

/* Who created a thread: the parent thread and its stack at the spawn
 * (frame 0 the spawn call). known false: not known (the main thread). */
typedef struct db_spawn {
	bool known;
	uint32_t parent;
	db_stack stack;
} db_spawn;

/* The workspace's and export streams' text of both threads' parents,
 * "PARENT_A PARENT_B", each a thread id or '-' when not known: into
 * spawn[i].parent and .known (the stacks untouched). False for text not
 * of this form. */
bool db_parents_parse(const char *text, db_spawn spawn[2]);

/* A lock an access's thread held (ThreadSanitizer's "mutexes: write
 * M1"): how it was held, where it is and where the run first took it. */
typedef enum db_lock_kind {
	DB_LOCK_NONE,
	DB_LOCK_MUTEX, /* a mutex */
	DB_LOCK_READ,  /* a rwlock held for reading */
	DB_LOCK_WRITE, /* a rwlock held for writing */
	DB_LOCK_SPIN,  /* a spin lock */
	DB_LOCK_KINDS
} db_lock_kind;

typedef struct db_lock {
	uint8_t kind; /* db_lock_kind */
	uint32_t addr;
	db_loc loc;	/* where it lies (DB_LOC_NONE: not known) */
	bool known;	/* its first use was recorded: */
	uint32_t tid;	/* by this thread, */
	db_stack first; /* here (frame 0 the library's lock call) */
} db_lock;

/* The locks one access's thread held, in the order it took them: n of
 * held (more were held than kept when held > n). */
typedef struct db_locks {
	uint32_t n, held;
	db_lock *lock;
} db_locks;

/* "mutex", "rwlock-read", "rwlock-write", "spinlock" (the stored
 * names), or "" for none. */
const char *db_lock_kind_name(uint8_t kind);
/* The text form the workspace (run_bugs.locks) and export streams keep
 * for both accesses' locks: per side held, a line "H SIDE HELD"; per
 * lock "L SIDE KIND ADDR TID" (TID '-' when its first use is not known),
 * then "W " and its location (db_loc_format's text) when known, then
 * "F " before each line of its first use's stack and "A " before each of
 * its location's allocation stack (db_stack_format's lines). sides[0]
 * is written as side 0. db_locks_format returns a malloc'd string, NULL
 * when neither side held a lock (*nomem then says whether memory ran
 * out instead); db_locks_parse fills out[2] (db_locks_clear each) and
 * gives WASM_MALFORMED for text not of this form. */
char *db_locks_format(const db_locks *sides[2], bool *nomem);
wasm_status db_locks_parse(const char *text, db_locks out[2], wasm_err *err);
void db_locks_clear(db_locks *l);

/* A thread's name (AnnotateThreadName), with its NUL. */
#define DB_NAME_MAX 32u

/* The text form the workspace (run_bugs.names) and export streams keep
 * for both threads' names: a line "SIDE NAME" per named side (sides[0]
 * as side 0). db_names_format returns a malloc'd string, NULL when
 * neither is named (*nomem: or out of memory); db_names_parse fills
 * out[2] ("" for a side without a line) and gives WASM_MALFORMED for
 * text not of this form. */
char *db_names_format(const char *sides[2], bool *nomem);
wasm_status db_names_parse(const char *text, char out[2][DB_NAME_MAX],
			   wasm_err *err);

/* One bug seen in a run (det_violation plus source positions). */
typedef struct db_hit {
	db_site site[2];   /* site[0].id <= site[1].id */
	uint32_t tid[2], addr[2];
	uint64_t count;
	/* Each access's call stack (borrowed; n = 0 for none: a
	 * happens-before race whose earlier access its thread's trace
	 * no longer held keeps only its finder's). */
	db_stack stack[2];
	db_value value;
	db_loc loc;	   /* at the finder's address */
	db_spawn spawn[2]; /* who created each side's thread */
	db_locks locks[2]; /* the locks each side's thread held */
	char name[2][DB_NAME_MAX]; /* each side's thread's name, "" none */
} db_hit;

/* Release what a hit owns: its stacks, location, spawns and locks. */
void db_hit_clear(db_hit *h);

typedef struct db_run {
	int64_t id, campaign_id, node_id;
	uint64_t idx;        /* plan index within the campaign */
	char *profile;
	uint32_t density_bp;
	uint64_t seed;       /* mask seed */
	double started;      /* Unix time */
	uint64_t duration_us;
	char *status;        /* det_status_name */
	int exit_code;
	char *msg;
	uint32_t nbugs;
	/* A run that did not end ok: the last lines its program wrote to
	 * stderr, at most DB_TAIL_MAX bytes (schema 14); NULL or "" when
	 * none or for the runs before it. */
	char *stderr_tail;
	/* A serial run's schedule (schema 12): given to db_run_add, NULL for
	 * a run that was not serial; list and get leave it NULL (read it
	 * with db_run_sched). */
	const struct db_sched *sched;
} db_run;

/* What a serial run's schedule did: its scheduling points, switches and
 * execution digest, whether the run was a failure its explore looked
 * for, and the decisions (rep_sched_encode's bytes, opaque here) that
 * replay it. Campaigns keep the decisions of the runs that found a bug,
 * failed or did not end ok; for the others ndecisions is 0 and the
 * strategy and seed make them again (the run is deterministic). */
typedef struct db_sched {
	uint64_t points, digest;
	uint32_t switches;
	bool failed;
	uint8_t *decisions; /* owned when filled by db_run_sched */
	uint32_t ndecisions;
	bool kept; /* decisions stored (ndecisions may be 0: no switch) */
} db_sched;
/* The most bytes of decisions a run keeps. */
#define DB_SCHED_MAX (64u << 20)
/* run_id's schedule into *out (db_sched_clear); *has false (and out
 * zeroed) for a run that was not serial. */
wasm_status db_run_sched(db *d, int64_t run_id, db_sched *out, bool *has,
			 wasm_err *err);
void db_sched_clear(db_sched *s);
/* The first run of bug_id that was serial and kept its decisions (a run
 * of explore or check --schedule) into *run_id; 0 when none was. */
wasm_status db_bug_sched_run(db *d, int64_t bug_id, int64_t *run_id,
			     wasm_err *err);

/* Insert one run (r->id is set) and its hits: each hit's bug is created
 * on first sight for the campaign's program (with both sites' positions)
 * and linked to the run. */
wasm_status db_run_add(db *d, db_run *r, const db_hit *hits, uint32_t nhits,
		       wasm_err *err);
/* The runs of a campaign in plan order (bug_id 0), or the runs that
 * detected bug_id (campaign_id 0: in every campaign). */
wasm_status db_run_list(db *d, int64_t campaign_id, int64_t bug_id,
			bool (*cb)(void *ctx, const db_run *r), void *ctx,
			wasm_err *err);
wasm_status db_run_get(db *d, int64_t id, db_run *out, wasm_err *err);
void db_run_clear(db_run *r);

typedef struct db_bug {
	int64_t id, program_id;
	char *program;
	struct db_bug_site {
		uint32_t id;
		uint8_t kind;
		char *func, *file;
		uint32_t line;
		uint8_t width; /* 0: a range, or recorded before schema 8 */
	} site[2];
	uint64_t runs;        /* runs that detected it */
	uint64_t first_run;   /* id of the first detecting run */
	double first_seen;    /* Unix time */
	/* DB_FOUND_COLLISION | DB_FOUND_HB: which detectors' runs saw it */
	uint8_t found_by;
	/* The bug's signature (16 hex digits, db_sig_pair), the same in
	 * every build of the program; "#ID" for a bug recorded before
	 * schema 9, which has none. */
	char *sig;
	db_state state; /* the newest triage decision; DB_STATE_NEW: none */
	double triaged; /* when it was taken (Unix time), 0: never */
	/* Builds (programs of the same name) that had the bug: 1, but for
	 * db_bug_list_builds, where runs and first_seen cover them all. */
	uint64_t builds;
} db_bug;
#define DB_FOUND_COLLISION 1u
#define DB_FOUND_HB	   2u
/* "collision", "hb", "both", or "-" for none. */
const char *db_found_name(uint8_t found_by);

/* Bugs, of one program (program_id > 0) or all, most detected first. */
wasm_status db_bug_list(db *d, int64_t program_id,
			bool (*cb)(void *ctx, const db_bug *b), void *ctx,
			wasm_err *err);
wasm_status db_bug_get(db *d, int64_t id, db_bug *out, wasm_err *err);
/* The id of program_id's bug on sites (site_a, site_b), site_a <= site_b,
 * or 0 in *id when there is none. One indexed lookup: for callers that
 * ask while a campaign grows. */
wasm_status db_bug_find(db *d, int64_t program_id, uint32_t site_a,
			uint32_t site_b, int64_t *id, wasm_err *err);
void db_bug_clear(db_bug *b);
/* A deep copy of src into dst (free with db_bug_clear): for keeping a
 * bug a list callback passed. false (dst empty) when out of memory. */
bool db_bug_copy(const db_bug *src, db_bug *dst);
/* The bugs that runs of campaign campaign_id detected, most detected
 * first. */
wasm_status db_bug_list_campaign(db *d, int64_t campaign_id,
				 bool (*cb)(void *ctx, const db_bug *b),
				 void *ctx, wasm_err *err);
/* The bugs of every build of the programs named name (db_program.name),
 * one row per signature: the newest build's bug, with runs, first_seen
 * and builds counted over all of them. */
wasm_status db_bug_list_builds(db *d, const char *name,
			       bool (*cb)(void *ctx, const db_bug *b),
			       void *ctx, wasm_err *err);

/* A bug's signature from its two sites' (det_prog_sig): the same
 * whichever site is a; its text form is 16 lower-case hex digits. */
#define DB_SIG_LEN 16
uint64_t db_sig_pair(uint64_t a, uint64_t b);
void db_sig_format(uint64_t sig, char out[DB_SIG_LEN + 1]);

/* Record a triage decision on bug_id now (note may be NULL): it becomes
 * the state of every bug with its signature in programs of its name.
 * WASM_INVALID when there is no such bug. */
wasm_status db_triage_set(db *d, int64_t bug_id, db_state state,
			  const char *note, wasm_err *err);
/* The state of signature sig (db_sig_format's text) in programs named
 * program: the newest decision's, DB_STATE_NEW when there is none. For
 * a race not (yet) recorded as a bug. */
wasm_status db_triage_state(db *d, const char *program, const char *sig,
			    db_state *out, wasm_err *err);
/* Every decision on bug_id's signature, oldest first (strings valid
 * during the call). */
typedef struct db_triage {
	db_state state;
	const char *note; /* NULL: none */
	double time;
} db_triage;
wasm_status db_triage_list(db *d, int64_t bug_id,
			   bool (*cb)(void *ctx, const db_triage *t),
			   void *ctx, wasm_err *err);

/* The bugs a run detected, with the run's threads and addresses. */
typedef struct db_run_bug {
	int64_t bug_id;
	uint32_t tid[2], addr[2];
	uint64_t count;
	db_value value; /* side as the bug's sites */
} db_run_bug;
wasm_status db_run_bugs(db *d, int64_t run_id,
			bool (*cb)(void *ctx, const db_run_bug *rb),
			void *ctx, wasm_err *err);

/* A run that kept both call stacks of bug_id (a collision's pair): the
 * first whose value changed, else the first; 0 in *run_id when none did. */
wasm_status db_bug_pair_run(db *d, int64_t bug_id, int64_t *run_id,
			   wasm_err *err);
/* The call stacks run_id kept for bug_id, side by side as the bug's sites
 * (out[i].n = 0 where it kept none, and for a run that did not see the
 * bug). Free each with db_stack_clear. WASM_MALFORMED for a stored stack
 * that does not parse. */
wasm_status db_run_bug_stacks(db *d, int64_t run_id, int64_t bug_id,
			      db_stack out[2], wasm_err *err);

/* Where run_id's race of bug_id was (loc, db_loc_clear) and who created
 * its two threads (spawn[i] as the bug's site i; db_stack_clear each
 * stack), as far as the run knew: kind DB_LOC_NONE and spawns not known
 * for a run recorded before schema 10. WASM_MALFORMED for stored text
 * that does not parse. */
wasm_status db_run_bug_where(db *d, int64_t run_id, int64_t bug_id, db_loc *loc,
			     db_spawn spawn[2], wasm_err *err);

/* The locks each access of run_id's race of bug_id held (out[i] as the
 * bug's site i; db_locks_clear each): none for a run recorded before
 * schema 13 or whose threads held none. WASM_MALFORMED for stored text
 * that does not parse. */
wasm_status db_run_bug_locks(db *d, int64_t run_id, int64_t bug_id,
			     db_locks out[2], wasm_err *err);
/* The names of run_id's race of bug_id's two threads (names[i] as the
 * bug's site i, "" for a thread the program did not name). */
wasm_status db_run_bug_names(db *d, int64_t run_id, int64_t bug_id,
			     char names[2][DB_NAME_MAX], wasm_err *err);

/* Detections of a bug per cell: for each (node, profile, density) where
 * the bug's program ran, K runs that detected it out of N. */
typedef struct db_cell {
	int64_t node_id;
	const char *node;     /* host name */
	const char *profile;
	uint32_t density_bp;
	uint64_t k, n;
} db_cell;
wasm_status db_bug_cells(db *d, int64_t bug_id,
			 bool (*cb)(void *ctx, const db_cell *c), void *ctx,
			 wasm_err *err);

/* Every run of program_id, with the bugs it detected (for the budget
 * simulation): one callback per run, in id order; the struct and its
 * arrays are valid during the call. cb returns false to stop. */
typedef struct db_sim_run {
	int64_t id, node_id;
	const char *profile;
	uint32_t density_bp;
	uint64_t duration_us;
	const int64_t *bugs; /* bug ids */
	size_t nbugs;
} db_sim_run;
wasm_status db_program_runs(db *d, int64_t program_id,
			    bool (*cb)(void *ctx, const db_sim_run *r),
			    void *ctx, wasm_err *err);

/* ---- for the other files of db/ only (db/sync.c) --------------------- */

/* The connection and the file's name, for SQL that lives in db/ but not
 * in db.c. */
struct sqlite3 *db_sqlite(db *d);
/* Fill err from SQLite result code rc the way db.c does; what says what
 * was being done ("importing a run"). Returns err->status. */
wasm_status db_sql_fail(db *d, wasm_err *err, int rc, const char *what);
/* The statement of sql, prepared on its first use and kept until db_close,
 * so that a fetch importing 64 task streams prepares its statements once,
 * not 64 times. The cache keys on sql's address: pass strings that live as
 * long as the program (literals). The caller resets what it steps. NULL
 * with err set when SQLite refuses sql or more than DB_KEPT_MAX are asked
 * for. */
#define DB_KEPT_MAX 24
struct sqlite3_stmt *db_stmt_keep(db *d, const char *sql, wasm_err *err);

#endif
