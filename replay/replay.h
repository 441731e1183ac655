/*
 * replay.h - reproduction of a logged race (DESIGN "Reproduction").
 *
 * A rep_spec says everything needed to make a race happen again, with or
 * without the workspace it was found in: the program (hash, name, size,
 * site count), the bug's two sites, the mode, the mask, the profile,
 * arguments, stdin, directories, environment and limits, delay,
 * breakpoint hold and timeout. It comes from the
 * workspace (rep_spec_from_db: a bug, or a run that detected it) or from
 * a repro file (rep_read), and goes to one (rep_write).
 *
 * Modes:
 *   REP_PINNED   the exact mask of the detecting run, regenerated from
 *                its seed, density and site pool (det_mask_make), on its
 *                profile with its arguments and delay;
 *   REP_MINIMAL  only the bug's two sites armed;
 *   REP_TRIGGER  the two sites armed with a concurrent breakpoint on them
 *                (det_trigger): a thread at one site waits up to `hold`
 *                for another thread at the other site on the same bytes;
 *   REP_FAILURE  not a race but a failure (det_failure: a trap, an exit
 *                code, an output pattern) and the delay sites that elicit
 *                it (`heisen minimize`); the race's sites are unset.
 *                With a schedule (has_sched: minimize --schedule)
 *                every run is serial under the collision detector, run
 *                i's schedule drawn from sched.seed as det_batch's
 *                vary_seed draws it.
 *   REP_SCHEDULE the serial run's schedule (replay/sched.h) followed
 *                exactly, every site armed, under the happens-before
 *                detector: the race (or, for a run without one, its
 *                failure) happens by construction, and the execution
 *                digest proves the run took the recorded path. A digest
 *                that differs is a divergence (the program or its inputs
 *                changed), counted apart from "not reproduced".
 * rep_replay runs the program `runs` times in worker processes
 * (det_batch_run) and counts the runs that detected the bug's site pair
 * (REP_FAILURE: that failed): the reproduction rate, with a 95 % Wilson
 * score interval.
 *
 * Repro files are text, one `key = value` a line after a first line
 * "heisen-repro 2" (version 1, without schedules, is still read); '#'
 * starts a comment line; docs/replay.md lists the keys. A schedule repro
 * is self-contained: program hash, arguments, stdin bytes, strategy,
 * seed, decisions, digest and the heisen version that wrote it.
 * rep_read refuses, naming the line, a file that is truncated (a
 * required key missing), edited into nonsense (a bad value, an unknown
 * key) or of a future version.
 *
 * Ownership: a rep_spec owns its strings and arrays (rep_spec_clear).
 * Errors: WASM_INVALID for input that cannot be used (unknown id, bad
 * file, changed program: the message says what and what to do), WASM_IO
 * for unreadable or unwritable files, WASM_NOMEM.
 */
#ifndef HEISEN_REPLAY_REPLAY_H
#define HEISEN_REPLAY_REPLAY_H

#include "db/db.h"
#include "detector/campaign.h"
#include "replay/sched.h"

#define REP_FILE_VERSION 2

typedef enum rep_mode {
	REP_PINNED,
	REP_MINIMAL,
	REP_TRIGGER,
	REP_FAILURE,  /* a failure, from `heisen minimize`: delays at sites */
	REP_SCHEDULE, /* a serial run's schedule, followed exactly */
} rep_mode;

/* "pinned", "minimal", "trigger", "failure", "schedule" and back. */
const char *rep_mode_name(rep_mode m);
bool rep_mode_parse(const char *s, rep_mode *out);

/* A site as the workspace keeps it: id, rw_kind, function, file (NULL
 * when unknown) and line (0). */
typedef struct db_bug_site rep_site;

typedef struct rep_spec {
	char *program;	       /* file name, for messages */
	char *program_path;    /* where the workspace ran it (NULL: unknown) */
	uint64_t program_hash; /* rw_sites.hash of the original module */
	uint64_t program_size; /* bytes of that file (0: unknown) */
	uint32_t nsites;
	rep_site site[2]; /* site[0].id <= site[1].id */
	rep_mode mode;
	/* The pinned mask: seed and density over pool (NULL: every site). */
	uint64_t seed;
	uint32_t density_bp;
	uint32_t mask_version;
	uint32_t *pool;
	uint32_t npool;
	char *profile;
	char *args; /* program arguments, each NUL-terminated */
	uint32_t nargs;
	/* Every run's stdin: ninput bytes (input NULL: empty, as without
	 * --stdin). A repro file carries the bytes themselves, so that it
	 * replays where the input file is not. */
	uint8_t *input;
	uint32_t ninput;
	uint64_t input_hash; /* rep_read: the file's stdin_hash, checked */
	/* The directories, environment and limits of every run (the
	 * campaign's, `--dir` and the like; empty for specs before them). */
	wasi_world world;
	uint32_t delay;
	uint64_t hold_ns; /* REP_TRIGGER */
	/* The race's addresses in the detecting run, site[0]'s and
	 * site[1]'s (has_addr false: unknown): where the breakpoint waits. */
	bool has_addr;
	uint32_t addr[2];
	double timeout_s;
	/* REP_FAILURE: the failure ("trap", "exit:N", "stdout:REGEX") and
	 * the delay sites, ascending. */
	char *failure;
	uint32_t *delay_sites;
	uint32_t ndelay;
	/* Where it came from (0: unknown), and the rate measured when a
	 * file was saved (runs 0: none). */
	int64_t bug_id, run_id;
	uint32_t runs, reproduced;
	/* A serial run's schedule (has_sched; REP_SCHEDULE needs it): the
	 * strategy that drew it (sched.seed the run's seed, which also
	 * seeds random_get), its decisions (dec, ndec; has_dec false when
	 * the workspace did not keep them: the strategy and seed make them
	 * again), and what the run did: points, switches, digest. For a run
	 * without a race, failure says what it did instead (its campaign's
	 * --failure; NULL: its exit status alone). */
	bool has_sched, has_dec;
	rep_sched_spec sched;
	rep_decision *dec;
	size_t ndec;
	uint64_t points, digest;
	uint32_t switches;
	/* REP_SCHEDULE of a run as a whole (rep_spec_from_run, or one
	 * that found no race): its sites are unset, and it reproduces when
	 * it fails again (failure), or without a failure when it ends as
	 * recorded: status and exit_code. */
	bool whole_run;
	det_status status;
	int exit_code;
	/* A schedule of a serial sweep (sweep --schedule): its points are
	 * the probes its pinned mask armed, and their delays, under the
	 * collision detector; it replays only so. */
	bool sched_collide;
} rep_spec;

void rep_spec_clear(rep_spec *s);

/* The spec of bug_id (or, with bug_id 0, of the bug run_id detected:
 * then the run must have detected exactly one, else WASM_INVALID listing
 * them; a serial run that detected none is its own spec, with no sites)
 * from the workspace: the run is run_id, or without it the bug's first
 * detecting run. mode and hold_ns are left to the caller (mode
 * REP_PINNED, hold_ns from the run's duration: rep_default_hold). The
 * run's schedule, when it was serial, is read too (has_sched). */
wasm_status rep_spec_from_db(db *d, int64_t bug_id, int64_t run_id,
			     rep_spec *out, wasm_err *err);
/* The spec of serial run run_id as a whole (whole_run): its schedule,
 * judged by how the run ended. WASM_INVALID for a run that was not
 * serial. */
wasm_status rep_spec_from_run(db *d, int64_t run_id, rep_spec *out,
			      wasm_err *err);

/* The detections of the spec's bug in the cell of its run (its profile
 * and density, over every node): k of n runs. */
wasm_status rep_cell(db *d, const rep_spec *s, uint64_t *k, uint64_t *n,
		     wasm_err *err);

/* A breakpoint hold for a program whose run took run_ns: a tenth of it,
 * at least 1 ms and at most 1 s. */
uint64_t rep_default_hold(uint64_t run_ns);

/* Load the spec's program from path and check it is the same code: a
 * different hash is WASM_INVALID saying so unless force; a site table
 * that lacks the bug's sites is WASM_INVALID even with force. Messages
 * are about the file without naming it (print them after path). */
wasm_status rep_load_program(const rep_spec *s, const char *path, bool force,
			     det_prog **out, wasm_err *err);

/* The mask the mode arms into mask[0..p's nsites); *armed its count. */
wasm_status rep_mask(const rep_spec *s, const det_prog *p, uint8_t *mask,
		     uint32_t *armed, wasm_err *err);

/* One replayed run, for the caller's progress (on_run below). */
typedef struct rep_run {
	const det_batch_run_info *info;
	bool reproduced;
} rep_run;

typedef struct rep_opts {
	uint32_t runs, jobs;
	bool until_first; /* stop at the first reproduction */
	bool any_address; /* trigger: wait at any address, not the race's */
	/* REP_SCHEDULE: a run reproduces without the recorded digest (a
	 * schedule being shrunk takes another path on purpose). */
	bool any_path;
	/* Called per finished run; false stops the replay. May be NULL. */
	bool (*on_run)(void *ctx, const rep_run *r);
	void *ctx;
} rep_opts;

typedef struct rep_result {
	uint32_t runs, reproduced;
	double rate, lo, hi; /* 95 % Wilson interval */
	uint32_t armed;	     /* sites the mask armed */
	uint64_t holds;	     /* REP_TRIGGER: waits at the breakpoint */
	uint32_t met;	     /* REP_TRIGGER: runs where two threads met */
	/* The first reproducing run (first_index -1: none). */
	int64_t first_index;
	uint32_t first_tid[2], first_addr[2];
	uint64_t total_ns; /* run time summed over the runs */
	uint32_t by_status[DET_ERROR + 1];
	bool stopped; /* det_sweep_stop (Ctrl-C) ended it */
	/* REP_SCHEDULE: runs whose digest differed from the recorded one
	 * (diverged), the first such run's digest and points, and the first
	 * point where a decision could not be followed (UINT64_MAX: every
	 * decision was; the path changed between decisions). */
	uint32_t diverged;
	uint64_t div_digest, div_points, div_at;
} rep_result;

/* Replay s on p (rep_load_program) under o. */
wasm_status rep_replay(const rep_spec *s, det_prog *p, const rep_opts *o,
		       rep_result *res, wasm_err *err);

/* The 95 % Wilson score interval of k successes in n trials (n > 0). */
void rep_wilson(uint32_t k, uint32_t n, double *lo, double *hi);

/* Write mask[0..nsites) as a mask file (`heisen run --mask`, `heisen
 * instrument --static`): the armed ids as ranges after `comment` lines
 * (each starts with "# "; may be NULL). */
wasm_status rep_write_mask(const char *path, const uint8_t *mask,
			   uint32_t nsites, const char *comment, wasm_err *err);

/* Write s as a repro file at path (replaced atomically), and read one. */
wasm_status rep_write(const char *path, const rep_spec *s, wasm_err *err);
wasm_status rep_read(const char *path, rep_spec *out, wasm_err *err);

#endif
