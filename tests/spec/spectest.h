/*
 * spectest.h - the "spectest" host module that the WebAssembly spec suite
 * imports from (see the reference interpreter's spectest.ml).
 *
 *   func   print, print_i32, print_i64, print_f32, print_f64,
 *          print_i32_f32, print_f64_f64   (no results; they log or not)
 *   global global_i32 = 666, global_i64 = 666          (immutable)
 *          global_f32 = 666.6, global_f64 = 666.6
 *   table  table: funcref, 10 entries, at most 20
 *   memory memory: 1 page, at most 2
 *          shared_memory: 1 page, at most 2, shared (threads suite)
 *
 * Each object is created in the proc on first lookup and then reused, so
 * every module of one .wast file that imports spectest.memory sees the
 * same memory, as the suite expects.
 */
#ifndef HEISEN_TESTS_SPEC_SPECTEST_H
#define HEISEN_TESTS_SPEC_SPECTEST_H

#include <stdio.h>

#include "core/engine.h"

typedef struct spectest spectest;

/* A spectest module for proc p. Print functions write one line per call
 * to log ("print_i32: 42"), or nothing when log is NULL. The runtime
 * objects belong to the proc; the print functions point into s, so free
 * s only once nothing runs in the proc any more. */
spectest *spectest_new(eng_proc *p, FILE *log);
void spectest_free(spectest *s);

/* Export `name` (len bytes; names with a NUL match nothing). Returns
 * false for an unknown name, or when creating the object failed (then
 * err says why, if given). */
bool spectest_lookup(spectest *s, const char *name, size_t len, eng_extern *out,
		     wasm_err *err);

#endif
