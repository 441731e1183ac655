/*
 * dwarf.h - bounds-checked reading of a module's DWARF sections, for the
 * line table (srcmap.c) and the symbol table (symbols.c). Internal to
 * rewriter/: other folders use srcmap.h and symbols.h.
 *
 * A cursor (rw_dcur) reads one section between pos and end. `bad` is
 * sticky: after the first overrun every read returns 0 (NULL for
 * strings) and pos sits at end, so callers check once after a group of
 * reads; `at` and `why` say where and what went wrong first. Nothing
 * here allocates; strings and blocks point into the module's bytes.
 */
#ifndef HEISEN_REWRITER_DWARF_H
#define HEISEN_REWRITER_DWARF_H

#include "core/wasm.h"

typedef struct rw_dcur {
	const uint8_t *p; /* section start */
	size_t pos, end;  /* end: the current limit (unit or section) */
	bool bad;
	size_t at;
	const char *why;
} rw_dcur;

void rw_dc_fail(rw_dcur *c, size_t at, const char *why);
/* Whether n more bytes are there (fails the cursor if not). */
bool rw_dc_need(rw_dcur *c, size_t n);
uint64_t rw_dc_uint(rw_dcur *c, size_t n); /* little-endian, n <= 8 */
uint8_t rw_dc_u8(rw_dcur *c);
/* LEB128 of up to 10 bytes; bits beyond 64 are dropped. */
uint64_t rw_dc_uleb(rw_dcur *c);
int64_t rw_dc_sleb(rw_dcur *c);
void rw_dc_skip(rw_dcur *c, uint64_t n);
/* A NUL-terminated string inside the cursor's range. */
const char *rw_dc_str(rw_dcur *c);

/* The DWARF sections of a module (NULL and 0 when absent). */
typedef struct rw_dsecs {
	const uint8_t *line, *line_str, *str, *info, *abbrev;
	size_t line_len, line_str_len, str_len, info_len, abbrev_len;
} rw_dsecs;

/* The payload of custom section `name` (its first one), or NULL. */
const uint8_t *rw_custom_bytes(const wasm_module *m, const char *name,
			       size_t *len);
void rw_dw_sections(const wasm_module *m, rw_dsecs *out);

/* Attribute forms the callers name (DWARF 5 table 7.6; v2..v4 use the
 * same numbers). */
enum {
	RW_DW_FORM_INDIRECT = 0x16,
	RW_DW_FORM_IMPLICIT_CONST = 0x21,
};

/* One attribute value: an integer (a block's length for block forms),
 * a string (NULL when it lives where we cannot reach it: strx), or a
 * block's bytes. */
typedef struct rw_dw_val {
	uint64_t u;
	const char *str;
	const uint8_t *block;
} rw_dw_val;

/* Read one attribute value of `form`. offsz is 4 or 8 (DWARF32/64),
 * addrsz the unit's address size, version the unit's DWARF version
 * (DW_FORM_ref_addr changed size in v3). Unknown forms fail the cursor:
 * their size cannot be known. */
void rw_dw_form(rw_dcur *c, uint64_t form, unsigned offsz, unsigned addrsz,
		unsigned version, const rw_dsecs *s, rw_dw_val *v);

/* A unit's initial length: sets *offsz to 4 or 8; returns the length, or
 * fails the cursor for the reserved values 0xfffffff0..0xfffffffe. */
uint64_t rw_dw_unit_length(rw_dcur *c, unsigned *offsz);

/* A unit's header fields after its initial length (offsz: 4 or 8, from
 * rw_dw_unit_length). type is DW_UT_compile (1) before DWARF 5. */
typedef struct rw_dw_unit {
	unsigned offsz, version, type, addrsz;
	uint64_t abbrev_off;
} rw_dw_unit;
void rw_dw_unit_header(rw_dcur *c, rw_dw_unit *u);

/* The next attribute of a DIE: its name and form from the abbreviation's
 * specs at a, its value from the DIE at c (an implicit constant's from
 * a; an indirect form resolved). False at the end of the specs, or when
 * either cursor has failed. */
bool rw_dw_attr(rw_dcur *a, rw_dcur *c, const rw_dw_unit *u, const rw_dsecs *s,
		uint64_t *attr, uint64_t *form, rw_dw_val *v);

/* Find abbreviation `code` in the table at `off` of .debug_abbrev: leaves
 * *a positioned at its attribute specs, with its tag and children flag
 * in *tag and *children (either may be NULL). */
bool rw_dw_abbrev_find(const rw_dsecs *s, uint64_t off, uint64_t code,
		       rw_dcur *a, uint64_t *tag, bool *children);

#endif
