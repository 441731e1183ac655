/*
 * srcmap.h - map code offsets of a module to source positions:
 * file:line:column from the DWARF line table (.debug_line, versions 2 to
 * 5, DWARF32 and DWARF64, as clang 14..19 emit them; the comp dir comes
 * from .debug_info). Function names are wasm_func_name's (core/wasm.h).
 *
 * Wasm DWARF addresses are offsets from the start of the code section's
 * payload; rw_srcmap converts them, so callers pass file offsets (as in
 * the site table's `offset`).
 *
 * Ownership: an rw_srcmap is built from a module and keeps pointers into
 * it (file names point into the module's .debug_line/.debug_line_str
 * bytes or into the srcmap's own storage): the module must outlive it.
 * Free with rw_srcmap_free.
 */
#ifndef HEISEN_REWRITER_SRCMAP_H
#define HEISEN_REWRITER_SRCMAP_H

#include "core/wasm.h"

typedef struct rw_srcmap rw_srcmap;

typedef struct rw_srcpos {
	const char *file; /* NUL-terminated path as the compiler recorded it
			     (directory joined), or NULL if unknown */
	uint32_t line;	  /* 0 if unknown, or a DWARF line 0 row:
			     compiler-generated code with no line */
	uint32_t column;  /* 0 if unknown */
} rw_srcpos;

/* Build the map for m. A module without DWARF gives an empty map (every
 * lookup unknown), not an error; a broken .debug_line gives WASM_MALFORMED
 * with the offset inside that section, so callers can warn and go on
 * without line information. */
wasm_status rw_srcmap_new(const wasm_module *m, rw_srcmap **out, wasm_err *err);
void rw_srcmap_free(rw_srcmap *s);

/* Whether the module had a usable line table. */
bool rw_srcmap_has_lines(const rw_srcmap *s);

/* Source position of the instruction at file offset `offset`: the row of
 * the line table with the greatest address <= the offset inside the same
 * sequence (the last such row when several share an address, as
 * llvm-symbolizer does). Returns false (and an unknown pos) if none. A
 * row whose file index names no file gives true with file NULL. Sequences
 * that cannot describe the module's code (wasm-ld tombstones, --wrap
 * leftovers: see srcmap.c) are not used. O(log rows). */
bool rw_srcmap_lookup(const rw_srcmap *s, size_t offset, rw_srcpos *pos);
/* The same, but a row of line 0 (code the compiler made up: a spill, a
 * landing pad) takes the line and column of the nearest row with a line
 * in its sequence (the code of one function, as wasm-ld links them),
 * the one before on a tie, and its file; line stays 0 when the sequence
 * has none. For reports, which must never say `file:0`. */
bool rw_srcmap_lookup_near(const rw_srcmap *s, size_t offset, rw_srcpos *pos);

/* File `index` of the line table at offset stmt_list of .debug_line (a
 * compile unit's DW_AT_stmt_list; DW_AT_call_file and DW_AT_decl_file
 * number its files, from 1 before DWARF 5, from 0 in 5), joined as
 * rw_srcpos.file is; NULL when there is no such file (s may be NULL).
 * Valid until rw_srcmap_free. O(log units). */
const char *rw_srcmap_file(const rw_srcmap *s, uint64_t stmt_list,
			   uint64_t index);

#endif
