/*
 * cover.h - the reads a happens-before check may leave unprobed: a plain
 * load that the same function then follows, in one straight stretch of
 * code, with a plain store to bytes that include the load's
 * (ThreadSanitizer's read-before-write: its instrumentation leaves such a
 * read out by default).
 *
 * Why nothing is lost: between the two accesses there is no call, no
 * atomic instruction and no branch or block boundary, so they run in that
 * order, in one thread, with the same vector clock, and the store's probe
 * checks the read first, at its bytes, in the read's name
 * (det_probe_set_mask): the same records, the same reports, one probe
 * fewer. Delay injection (sweeps) and schedule points keep every site:
 * a mark here only matters to happens-before runs that leave the read
 * unarmed.
 *
 * Same bytes, statically: an address is tracked as a value on an
 * abstract operand stack (a local's value since its last set, a constant,
 * or either plus an i32 constant), so `local.get $p  f64.load` and a
 * later `local.get $p  ... f64.store` with $p unchanged match, as do two
 * accesses of one global's constant address. The load's bytes must lie
 * within the store's (memarg offsets and widths), in the same memory.
 * Anything the stack model does not follow ends the stretch.
 *
 * Ownership: rw_cover holds scratch space reused across functions; it
 * does not keep the module or the sites it is given.
 */
#ifndef HEISEN_REWRITER_COVER_H
#define HEISEN_REWRITER_COVER_H

#include "rewriter/instrument.h"

typedef struct rw_cover rw_cover;

/* NULL when out of memory (then nothing is marked: every read stays). */
rw_cover *rw_cover_new(void);
void rw_cover_free(rw_cover *c);

/* Mark the covered reads of defined function `defined` of m (an
 * original, uninstrumented module that passed wasm_validate: the walk
 * trusts the encoding, scan.h): sites[0..nsites) are that
 * function's sites in code order (rw_site.offset), sites[0] is site
 * `first` of the table, and each covered plain load among them gets
 * covered, covered_by and cover_at set. */
void rw_cover_func(rw_cover *c, const wasm_module *m, uint32_t defined,
		   rw_site *sites, uint32_t first, uint32_t nsites);

#endif
