/*
 * race.h - one text for a data race, the report developers already read
 * from ThreadSanitizer and KCSAN: a WARNING header, each access with its
 * call stack, the value-changed line when the access that waited saw its
 * bytes change, and a SUMMARY line. `heisen check`, `heisen run`, `heisen
 * show` and the TUI's bug screen all print races through it, so a race
 * reads the same wherever it is met.
 *
 *   ==================
 *   WARNING: heisen: data race (bug 4, in 12 of 400 runs)
 *     Write of size 4 at 0x00000e08 by thread 2 (mutexes: write M1):
 *       #0 step demos/fibonacci.c:41 (site 119)
 *       #1 __heisen_thread_entry demos/guest/pthread.c:168
 *     Concurrent write of size 4 at 0x00000e08 by thread 1:
 *       #0 step demos/fibonacci.c:41 (site 119)
 *     Value changed while thread 1 waited: 0x000001fc -> 0x000003e8
 *     Location is heap block + 8 (size 24) allocated by thread 0 at:
 *       #0 __wrap_calloc demos/guest/malloc.c:61
 *       #1 main demos/fibonacci.c:60
 *     Mutex M1 is a mutex at 0x00001010, global 'big' + 4 (size 28)
 *     Mutex M1 first taken by thread 2 at:
 *       #0 pthread_mutex_lock demos/guest/pthread.c:530
 *       #1 step demos/fibonacci.c:40
 *     Thread 2 created by thread 0 at:
 *       #0 pthread_create demos/guest/pthread.c:214
 *       #1 main demos/fibonacci.c:64
 *   SUMMARY: heisen: data race demos/fibonacci.c:41 in step
 *   ==================
 *
 * Nothing here owns memory: a tui_race borrows every string and stack.
 */
#ifndef HEISEN_TUI_RACE_H
#define HEISEN_TUI_RACE_H

#include <stdio.h>

#include "db/db.h"
#include "tui/report/jsonw.h"

/* One of the two accesses. */
typedef struct tui_access {
	uint8_t kind;	/* rw_kind */
	uint32_t width; /* bytes; 0 when unknown (a range) */
	uint32_t addr, tid;
	uint32_t site;
	/* Its stack (frame 0 the access), or NULL / n = 0: then frame 0 is
	 * printed from func, file and line (NULL, NULL, 0 when unknown). */
	const db_stack *stack;
	const char *func, *file;
	uint32_t line;
	const db_spawn *spawn; /* who created its thread, or NULL */
	const db_locks *locks; /* the locks its thread held, or NULL */
	const char *name;      /* its thread's name, or NULL / "" */
} tui_access;

typedef struct tui_race {
	const char *title; /* in the WARNING line's parentheses, or NULL */
	tui_access acc[2]; /* printed in this order */
	/* How the second access relates to the first: true for a collision
	 * (both were in flight at once: "Concurrent"), false for a
	 * happens-before race (neither ordered before the other:
	 * "Unordered"). */
	bool concurrent;
	const db_value *value; /* NULL or width 0: none; side indexes acc */
	const db_loc *loc;     /* NULL or DB_LOC_NONE: no Location line */
} tui_race;

/* The report, from the ===== line to the closing one. */
void tui_race_print(FILE *out, const tui_race *r);

/* "Read", "Atomic write", ... (cap: capitalised, for a line's start). */
const char *tui_access_name(uint8_t kind, bool cap);

/* "OLD -> NEW" of v into buf (cap bytes, 80 enough for any width): a
 * number for widths 1, 2, 4 and 8 (the engine's memory is
 * little-endian), bytes in memory order otherwise. False, and buf empty,
 * when v has no value or its bytes did not change. */
bool tui_value_change(const db_value *v, char *buf, size_t cap);

/* What follows "Location is " for l into buf (cap bytes, 300 enough):
 * "global 'ledger' + 4 (size 8)", "heap block + 16 (size 20) allocated
 * by thread 0", ... False, and buf empty, when l has no location. */
bool tui_loc_text(const db_loc *l, char *buf, size_t cap);

/* The location as JSON under key: {"kind", "offset", "size", and
 * "name" (global, segment), "thread" (heap, stack), "stack" (heap: the
 * allocation's frames)}, or null when none is known. */
void tui_json_loc(tui_json *j, const char *key, const db_loc *l);

/* Who created a thread as JSON under key: {"thread" (the parent),
 * "stack"}, or null when not known. */
void tui_json_spawn(tui_json *j, const char *key, const db_spawn *s);

/* Locks as ThreadSanitizer names them: "write" or "read" (how it was
 * held) and "mutex", "rwlock" or "spinlock" (what it is). */
const char *tui_lock_mode(uint8_t kind);
const char *tui_lock_type(uint8_t kind);
/* The number N of lock i of access side's locks in a report's "MN":
 * locks are numbered from 1 in the order of acc[0]'s, then acc[1]'s
 * not held by the first (acc entries may be NULL). */
uint32_t tui_lock_number(const db_locks *const acc[2], int side, uint32_t i);
/* Access side's locks as JSON under key: an array of {"id": "M1",
 * "type", "mode", "address", "location" (as tui_json_loc), "first"
 * ({"thread", "stack"}, null when not recorded)}, and under key_held
 * how many the thread held in all (more than listed when it held more
 * than heisen keeps). */
void tui_json_locks(tui_json *j, const char *key, const char *key_held,
		    const db_locks *const acc[2], int side);

/* Value evidence as JSON under key: {"access": 0 or 1, "before",
 * "after" (hex bytes in memory order), "changed"}, or null. */
void tui_json_value(tui_json *j, const char *key, const db_value *v);

/* A call stack as race reports print it, a frame a line ("    #0 func
 * file:line", an unknown line said so, "(inlined)", a last line when
 * deeper callers were not kept): also `timeline --stack` and `bisect`. */
void tui_print_stack(FILE *out, const db_stack *s);

#endif
