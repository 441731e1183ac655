/*
 * symbols.h - what a linear-memory address of a module holds, as far as
 * the module itself can tell: a global variable (DWARF .debug_info), a
 * data segment (the name section's data segment names), the main
 * thread's stack, or the heap. A race report's "Location is ..." line
 * starts here; heap blocks and the stacks of spawned threads are only
 * known while the program runs (detector/race.h).
 *
 * Where each answer comes from:
 *   - Globals: every DW_TAG_variable whose DW_AT_location is DW_OP_addr
 *     ADDR, or pieces of it (DW_OP_addr ADDR DW_OP_piece N ...: clang
 *     -O1 splits a struct into its fields), so file-scope and
 *     function-static variables, named
 *     by DW_AT_name (through DW_AT_specification when it has none), sized
 *     by its type's DW_AT_byte_size through typedefs, qualifiers and
 *     arrays (element size times each subrange's count).
 *   - Segments: active data segments by their offset expression; passive
 *     ones (what wasm-ld emits for a shared memory) by the constant
 *     destinations of the memory.init calls in the start function, and
 *     the memory.fill there that zeroes wasm-ld's .bss. This reads an
 *     instrumented start function too: constants are followed through
 *     the locals a probe stashes them in.
 *   - The main stack: from the end of the static data up to the initial
 *     value of __stack_pointer (the global of that name in the name
 *     section, else wasm-ld's global 0), or from 0 when the stack comes
 *     first (--stack-first). The heap is what lies above both.
 *
 * Limitations: DW_OP_addrx (split DWARF) and location lists are not
 * read, so such variables are unknown; a type unit's types (DW_FORM_
 * ref_sig8) have no size; a variable whose size is unknown covers one
 * byte.
 *
 * Ownership: an rw_symbols owns copies of every name; it does not keep
 * the module. Free with rw_symbols_free (NULL is fine).
 */
#ifndef HEISEN_REWRITER_SYMBOLS_H
#define HEISEN_REWRITER_SYMBOLS_H

#include "core/wasm.h"

typedef struct rw_symbols rw_symbols;

typedef enum rw_region {
	RW_REGION_UNKNOWN,
	RW_REGION_GLOBAL,  /* a variable */
	RW_REGION_SEGMENT, /* a data segment */
	RW_REGION_STACK,   /* the main thread's stack */
	RW_REGION_HEAP,	   /* above the static data and the main stack
			      (offset from where that starts, size 0) */
} rw_region;

/* What holds an address: the address is `offset` bytes into an object
 * of `size` bytes (0: unknown). For a variable the optimiser split into
 * pieces (DW_OP_piece), offset and size are the variable's, though its
 * pieces need not be adjacent in memory. */
typedef struct rw_symbol {
	rw_region region;
	const char *name; /* GLOBAL, SEGMENT; valid until rw_symbols_free */
	uint32_t offset, size;
} rw_symbol;

/* Build the table of m. A module without DWARF or names gives a table
 * with what the rest tells. Errors: WASM_MALFORMED for a .debug_info or
 * .debug_abbrev that cannot be read (the message has the offset inside
 * .debug_info): callers go on without symbols; WASM_NOMEM. */
wasm_status rw_symbols_new(const wasm_module *m, rw_symbols **out,
			   wasm_err *err);
void rw_symbols_free(rw_symbols *s);

/* What holds addr: the innermost variable whose bytes cover it, else
 * its data segment, else the main stack or the heap. False (region
 * UNKNOWN) when none does (s may be NULL). O(log n). */
bool rw_symbols_lookup(const rw_symbols *s, uint32_t addr, rw_symbol *out);

/* Variables found in the DWARF. */
uint32_t rw_symbols_count(const rw_symbols *s);

#endif
