/*
 * modbuild.h - assembling small binary modules byte by byte for unit
 * tests, so each test states exactly the bytes it feeds the decoder.
 */
#ifndef HEISEN_TESTS_MODBUILD_H
#define HEISEN_TESTS_MODBUILD_H

#include "core/wasm.h"

#include <string.h>

/* Start a module: magic and version. */
static inline void mb_begin(wasm_buf *b)
{
	memset(b, 0, sizeof *b);
	wasm_buf_put(b, "\0asm\1\0\0\0", 8);
}

/* Append a section with the given payload. */
static inline void mb_section(wasm_buf *b, uint8_t id, const void *payload,
			      size_t n)
{
	wasm_buf_byte(b, id);
	wasm_buf_u32(b, (uint32_t)n);
	wasm_buf_put(b, payload, n);
}

/* Little-endian fixed-width integers and NUL-terminated strings, as
 * DWARF sections hold them. */
static inline void mb_u16(wasm_buf *b, uint16_t v)
{
	wasm_buf_byte(b, (uint8_t)v);
	wasm_buf_byte(b, (uint8_t)(v >> 8));
}

static inline void mb_u32(wasm_buf *b, uint32_t v)
{
	mb_u16(b, (uint16_t)v);
	mb_u16(b, (uint16_t)(v >> 16));
}

static inline void mb_cstr(wasm_buf *b, const char *s)
{
	wasm_buf_put(b, s, strlen(s) + 1);
}

/* Decode and validate bytes into a module (free with wasm_module_free);
 * NULL with *e filled when either fails. */
static inline wasm_module *mb_load(const uint8_t *bytes, size_t len,
				   wasm_err *e)
{
	wasm_module *m = NULL;

	if (wasm_decode(bytes, len, &m, e) || wasm_validate(m, e)) {
		wasm_module_free(m);
		return NULL;
	}
	return m;
}

/* Decode and validate; returns the first failing status. */
static inline wasm_status mb_check(const wasm_buf *b, wasm_err *e)
{
	wasm_module *m = NULL;
	wasm_status st = wasm_decode(b->data, b->len, &m, e);
	if (!st)
		st = wasm_validate(m, e);
	wasm_module_free(m);
	return st;
}

#endif
