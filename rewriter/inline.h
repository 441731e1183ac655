/*
 * inline.h - the functions the compiler inlined at a code offset, from
 * .debug_info's DW_TAG_inlined_subroutine DIEs, so that a call stack can
 * show them as llvm-symbolizer --inlines and ThreadSanitizer do: one
 * physical frame becomes the innermost inlined function, its inlined
 * callers, then the function the code physically lives in.
 *
 * What is read: each inlined subroutine's code ranges (DW_AT_low_pc with
 * DW_AT_high_pc as an address or an offset, or DW_AT_ranges: DWARF 2..4
 * .debug_ranges, DWARF 5 .debug_rnglists), its name through
 * DW_AT_abstract_origin and DW_AT_specification (DW_AT_linkage_name
 * first, as the name section names functions, else DW_AT_name), and
 * where it was inlined (DW_AT_call_file, through the unit's line-table
 * file names, DW_AT_call_line, DW_AT_call_column). DWARF 5's strx and
 * addrx forms are resolved through the unit's bases.
 *
 * Offsets are file offsets of the module the table was built from, as
 * rw_srcmap_lookup takes them (DWARF addresses count from the code
 * section's payload).
 *
 * Limitations: ranges at address 0 or at wasm-ld's tombstones (>=
 * 0xfffffff0) are dropped, as discarded code; a function renamed by
 * wasm-ld --wrap (the guest library wraps dlmalloc's calloc) leaves its
 * DWARF at the wrapper's address, where its inlined subroutines claim the
 * wrapper's code: only the caller can tell, by the function's name; a
 * subroutine nested deeper than 64 DIEs loses its inlined parent (its chain
 * stops there); a lookup gives at most RW_INLINE_MAX frames.
 *
 * Ownership: an rw_inline keeps pointers into m's bytes (names) and into
 * files (call files): both must outlive it. Free with rw_inline_free
 * (NULL is fine).
 */
#ifndef HEISEN_REWRITER_INLINE_H
#define HEISEN_REWRITER_INLINE_H

#include "core/wasm.h"
#include "rewriter/srcmap.h"

typedef struct rw_inline rw_inline;

/* One inlined function at an offset and where its caller inlined it. */
typedef struct rw_inframe {
	const char *name;      /* NULL when the DWARF does not say */
	const char *call_file; /* the caller's file; NULL when unknown */
	uint32_t call_line;    /* the caller's line; 0 when unknown */
	uint32_t call_column;  /* 0 when unknown */
} rw_inframe;

/* Inlined frames a lookup gives at most. */
#define RW_INLINE_MAX 16

/* Build the table of m; files names the call files (NULL: none are
 * named). A module without .debug_info gives an empty table. Errors:
 * WASM_MALFORMED with the offset inside .debug_info (callers go on
 * without inlined frames), WASM_LIMIT for more than a million inlined
 * code ranges, WASM_NOMEM. */
wasm_status rw_inline_new(const wasm_module *m, const rw_srcmap *files,
			  rw_inline **out, wasm_err *err);
void rw_inline_free(rw_inline *t);

/* The inlined frames at file offset `offset` into out[0..cap), innermost
 * first; returns how many (0: the code there is no inlined function's).
 * out[i].call_* say where out[i] was inlined: in out[i + 1], or for the
 * last one in the physical function. *func (func may be NULL) gets the
 * name the DWARF gives that physical function (as out[].name is chosen;
 * NULL when unknown or none is found): a caller that knows the function
 * from elsewhere (the name section) should drop a chain whose *func
 * differs, as it describes other code (see Limitations). t may be NULL. */
uint32_t rw_inline_lookup(const rw_inline *t, size_t offset, rw_inframe *out,
			  uint32_t cap, const char **func);

#endif
