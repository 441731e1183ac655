/*
 * instrument.h - the rewriter: instrument every shared-memory access of a
 * module behind a probe mask (DESIGN.md "Probe ABI"), and read back the
 * site table of an instrumented module.
 *
 * The probe ABI, exactly (the detector and the engine rely on it):
 *   - imports appended after the module's own imports:
 *       (import "heisen" "mask"  (memory N N shared))  one byte per site,
 *           N = max(1, ceil(n_sites / 65536)) pages; mask[site] != 0 arms it
 *           (min = max = N, so that every site's byte exists)
 *       (import "heisen" "probe" (func (param i32 i32)))  (address, site)
 *     Both shift index spaces: every function index (call, ref.func,
 *     element segments, exports, start, name section) and every memory
 *     index (memargs, memory.size/grow/copy/fill/init, data segments,
 *     exports) of the module's defined items is renumbered.
 *   - before each site, using scratch locals added to the function:
 *       (stash the operands above the address; local.tee $addr)
 *       i32.const SITE  i32.load8_u (memory MASK)
 *       if  local.get $addr  i32.const OFFSET  i32.add  i32.const SITE
 *           call $probe  end
 *       (restore the operands) <the original access>
 *     A range site (memory.copy/fill/init) calls the probe again inside
 *     the same `if`, after the first call: memory.copy within one memory
 *     with (source, SITE | RW_PROBE_SRC), then every range site with
 *     (length, SITE | RW_PROBE_LEN). A probe sees the whole range with
 *     that last call; site ids stay below RW_MAX_SITES so the two flags
 *     never name a site.
 *     In static mode (a fixed set of sites, DESIGN "deployment mode") the
 *     mask check and the mask import are left out: armed sites call the
 *     probe unconditionally, the others are not touched.
 *   - a custom section "heisen.sites" (format below), placed after the
 *     code section.
 *
 * Sites: every load and store of every width including SIMD (v128.load*,
 * v128.store*, lane, splat and zero forms), every atomic load, store, RMW
 * and cmpxchg, and memory.copy / memory.fill / memory.init (range accesses:
 * the probe gets the start address), on shared memories only unless
 * all_memories is set. memory.atomic.wait/notify and atomic.fence are
 * synchronisation, not sites. memory.copy is one site, a range-write of
 * its destination (its source read is recorded in the site's kind).
 *
 * Site ids are assigned in code order: function by function (defined
 * functions in index order), instruction by instruction.
 *
 * Ownership: rw_instrument returns a new byte buffer (free with
 * wasm_free) and a site table (free with rw_sites_free); the input module
 * is not modified.
 */
#ifndef HEISEN_REWRITER_INSTRUMENT_H
#define HEISEN_REWRITER_INSTRUMENT_H

#include "core/wasm.h"

/* Access kinds, as stored in the site table. */
typedef enum rw_kind {
	RW_READ = 0,
	RW_WRITE = 1,
	RW_ATOMIC_READ = 2,
	RW_ATOMIC_WRITE = 3,
	RW_ATOMIC_RMW = 4,
	RW_RANGE_READ = 5,  /* (reserved: memory.copy's source) */
	RW_RANGE_WRITE = 6, /* memory.copy/fill/init destination */
} rw_kind;

/* "read", "write", "atomic-read", "atomic-write", "atomic-rmw",
 * "range-read", "range-write". */
const char *rw_kind_name(rw_kind k);

typedef struct rw_site {
	uint32_t func;   /* function index in the ORIGINAL module */
	uint32_t offset; /* file offset of the access in the ORIGINAL binary */
	uint16_t op;     /* wasm_op of the access */
	uint8_t width;   /* bytes accessed; 0 for range accesses */
	uint8_t kind;    /* rw_kind */
	uint32_t mem;    /* memory index in the ORIGINAL module */
	/* A plain read a later store of the same stretch covers, which a
	 * happens-before check may leave unprobed (rewriter/cover.h): the
	 * store's site, which checks this read first, at cover_at bytes
	 * past its own address. Version 4 tables and later; false in
	 * older ones. A store covers at most one read. */
	bool covered;
	uint8_t cover_at;
	uint32_t covered_by;
} rw_site;

/* The site table of an instrumented module. `hash` is the FNV-1a 64 hash
 * of the original binary's bytes, so a report can check that a site table
 * belongs to the binary whose DWARF maps it to source lines. */
typedef struct rw_sites {
	uint32_t version; /* RW_SITES_VERSION */
	uint64_t hash;
	uint32_t nsites;
	rw_site *sites;
	/* Index of the probe function and of the mask memory in the
	 * instrumented module (mask: UINT32_MAX in static mode). */
	uint32_t probe_func, mask_mem;
	/* File offset of the ORIGINAL code section's payload: DWARF
	 * addresses count from there, so a site's offset maps to source
	 * through the original's DWARF even in the instrumented binary. */
	uint32_t code_start;
	/* Where the instrumented code came from, so that a call stack taken
	 * in the instrumented module maps to the original's DWARF: for
	 * defined function i, entries map_at[i] to map_at[i + 1] - 1 of map,
	 * by increasing `at`. An instruction d bytes past an entry's `at`
	 * (and before the next entry's) came from `orig + d`. nmapfn is 0
	 * for a version 1 table, which has no map. */
	uint32_t nmapfn;
	uint32_t *map_at;
	struct rw_offmap {
		uint32_t at;   /* from the function's first instruction in
				  the instrumented module */
		uint32_t orig; /* file offset in the original */
	} *map;
} rw_sites;

#define RW_SITES_VERSION 4

/* Flags of the extra probe calls of a range site (version 3 and later;
 * see the ABI above), and the sites a module may have. */
#define RW_PROBE_SRC 0x80000000u
#define RW_PROBE_LEN 0x40000000u
#define RW_MAX_SITES 0x40000000u

/* "heisen.sites" payload, all integers LEB128 u32/u64:
 *   version, hash (u64), probe_func, mask_mem (u32; 0xffffffff if none),
 *   code_start, nsites, then per site: func, offset, op (wasm_op), width,
 *   kind, mem;
 *   version 2 and later then: nmapfn, and per defined function: n, then
 *   n entries (at, orig), each the difference from the previous entry of
 *   the function (the first: at from 0, orig from 0).
 * Version 3 is version 2 whose range sites make the extra probe calls.
 * Version 4 then adds: ncovered, and per covered site (rw_site.covered),
 * by increasing id: its id as the difference from the previous one (the
 * first from 0), covered_by - id, cover_at. Versions 1 (no map), 2 and 3
 * are still read. */

/* The original file offset of the instruction `at` bytes past the first
 * instruction of defined function `defined` (0 = the module's first
 * defined function) of the instrumented module; false without a map or
 * for a function the map does not have. The bytes the rewriter inserted
 * (probe sequences) have no original: for a probe call, take its site's
 * offset. */
bool rw_sites_orig(const rw_sites *s, uint32_t defined, uint32_t at,
		   uint32_t *orig);

typedef struct rw_options {
	bool all_memories; /* instrument unshared memories too */
	/* Static mode when non-NULL: static_mask[i] != 0 arms site i of the
	 * full site table (ids as a non-static instrumentation would give
	 * them); static_len bytes. */
	const uint8_t *static_mask;
	uint32_t static_len;
	/* Mark the reads a later store covers (rw_site.covered, cover.h):
	 * a second walk of every body, about twice the rewrite's time on
	 * genmod's module (make bench), for `heisen check`'s speed. */
	bool cover;
} rw_options;

/* Instrument a validated module whose original bytes are m->bytes.
 * Errors: WASM_INVALID "already instrumented (has a heisen.sites
 * section)"; WASM_INVALID "no shared memory: nothing to instrument (use
 * --all-memories to instrument unshared memories)"; WASM_LIMIT when a
 * function would exceed the format's limits; WASM_NOMEM. On success
 * *out and *len hold the new binary and *sites the table. */
wasm_status rw_instrument(const wasm_module *m, const rw_options *opt,
			  uint8_t **out, size_t *len, rw_sites *sites,
			  wasm_err *err);

/* Read the site table of an instrumented module. WASM_INVALID "not
 * instrumented" if the section is missing; WASM_MALFORMED if broken. */
wasm_status rw_sites_read(const wasm_module *m, rw_sites *sites,
			  wasm_err *err);

void rw_sites_free(rw_sites *s);

/* Whether the sites of a and b (a->nsites of them, which b must have)
 * are the same, field by field (rw_site has padding). */
bool rw_sites_same(const rw_sites *a, const rw_sites *b);

/* FNV-1a 64 of a byte range (the module hash above). */
uint64_t rw_hash(const uint8_t *p, size_t n);

#endif
