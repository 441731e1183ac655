/*
 * tsan.h - data race reports as text: ThreadSanitizer's (as a native
 * build with -fsanitize=thread prints them) and heisen's own (`heisen
 * check`, `heisen report`), read into the two accesses of one race, each
 * with its call stack, so that `heisen synthesize` can look for an
 * execution that makes the same race happen.
 *
 * What is read. A report holds blocks, each opened by a line with
 * "WARNING: ThreadSanitizer: data race" or "WARNING: heisen: data race"
 * (anywhere in the line: logs prefix lines with times or process ids).
 * In a block:
 *   an access line:   "Write of size 4 at 0x7b04 by thread T1:"
 *                     ("Atomic read", "by main thread", "(mutexes: ...)")
 *   the other one:    "Previous read of size 4 at ... by thread T2:"
 *                     (heisen: "Unordered read of size 4 at ... by thread 2:")
 *   their frames:     "#0 deposit /src/lost-update.c:35:7 (prog+0x1235)"
 *                     ("#0 deposit /src/lost-update.c:35 (site 164)",
 *                     "#1 <null> <null> (libc.so.6+0x9ca94)")
 *   and the rest:     "Location is global 'balance' ...", the threads'
 *                     creation stacks, mutexes (skipped), and the block's
 *                     "SUMMARY: ..." line, which ends it.
 * Only data races are read: other warnings (a lock-order inversion, a
 * signal-unsafe call) are not blocks.
 *
 * Limits: at most REP_TSAN_FRAMES frames an access (deeper ones are
 * counted, not kept); a function name, path or line longer than its
 * field is cut; a report larger than REP_TSAN_MAX bytes is refused.
 *
 * Ownership: everything is copied into the caller's rep_tsan_race (no
 * heap). Errors: WASM_INVALID for input that is not a race report (binary
 * bytes, no block, a block cut short, an access without frames, --index
 * past the last block) with a message naming the file, the line and
 * what is missing; WASM_IO for an unreadable file.
 */
#ifndef HEISEN_REPLAY_TSAN_H
#define HEISEN_REPLAY_TSAN_H

#include "core/wasm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REP_TSAN_FRAMES 32
#define REP_TSAN_MAX	(16u << 20)

typedef struct rep_tsan_frame {
	char func[128];	    /* "" when the report says <null> */
	char file[256];	    /* as written, directory included; "" unknown */
	uint32_t line, col; /* 0: unknown */
} rep_tsan_frame;

typedef struct rep_tsan_access {
	bool write, atomic;
	uint32_t size;	      /* bytes (0: not given) */
	uint64_t addr;	      /* as the report printed it */
	char thread[32];      /* "T1", "main thread", "1" */
	uint32_t report_line; /* the access line's number in the file */
	rep_tsan_frame frame[REP_TSAN_FRAMES];
	uint32_t nframes; /* kept */
	uint32_t dropped; /* frames past REP_TSAN_FRAMES */
} rep_tsan_access;

typedef struct rep_tsan_race {
	bool heisen;	  /* heisen's own report, not ThreadSanitizer's */
	uint32_t index;	  /* 1-based: which block of the file */
	uint32_t nblocks; /* data race blocks in the file */
	uint32_t line;	  /* the block's WARNING line */
	/* acc[0] the access TSan reports first (the current one), acc[1]
	 * the previous (heisen: the unordered one). */
	rep_tsan_access acc[2];
	char location[192]; /* "Location is ..." without its prefix, or "" */
	char summary[256];  /* the SUMMARY line without "SUMMARY: " */
} rep_tsan_race;

/* Read block `index` (1-based; 0 means 1) of the report text[0..len),
 * called `name` in messages, into *out. */
wasm_status rep_tsan_parse(const char *text, size_t len, const char *name,
			   uint32_t index, rep_tsan_race *out, wasm_err *e);
/* The same from the file at path. */
wasm_status rep_tsan_read(const char *path, uint32_t index, rep_tsan_race *out,
			  wasm_err *e);
/* The base name of a frame's file (after its last '/'). */
const char *rep_tsan_base(const char *file);

#endif
