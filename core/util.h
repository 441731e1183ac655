/*
 * util.h - small shared utilities of core/: errors, allocation, growable
 * byte buffers and file reading.
 *
 * Errors: every fallible function in core/ returns a wasm_status and fills
 * a wasm_err the caller owns. The message says what went wrong and where
 * (byte offset, section, function) so that a person can act on it; the
 * caller adds the file name when it prints it (wasm_err_format).
 *
 * Allocation: everything core/ allocates goes through wasm_malloc/
 * wasm_realloc/wasm_free, so that tests can fail the Nth allocation
 * (wasm_alloc_fail_after) and prove that no path crashes or leaks.
 */
#ifndef HEISEN_CORE_UTIL_H
#define HEISEN_CORE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum wasm_status {
	WASM_OK = 0,
	WASM_MALFORMED, /* the bytes are not a well-formed binary module */
	WASM_INVALID,	/* well formed, but fails validation (type rules) */
	WASM_IO,	/* the file could not be read or written (errno) */
	WASM_NOMEM,	/* an allocation failed */
	WASM_LIMIT,	/* an implementation limit was exceeded */
} wasm_status;

/* No function: the error is not inside a function body. */
#define WASM_NO_FUNC UINT32_MAX
/* No offset: the error has no position in the binary (I/O, memory). */
#define WASM_NO_OFFSET SIZE_MAX

typedef struct wasm_err {
	wasm_status status;
	size_t offset;	     /* byte offset in the binary or WASM_NO_OFFSET */
	const char *section; /* section name ("code", "type"…) or NULL */
	uint32_t func;	     /* function index or WASM_NO_FUNC */
	char msg[256];	     /* the reason, without position */
} wasm_err;

/* Clear an error to "no error". */
void wasm_err_clear(wasm_err *e);

/* Record an error and return its status. printf-style reason. The
 * position fields are set by the caller beforehand or left as they are. */
wasm_status wasm_err_set(wasm_err *e, wasm_status st, size_t offset,
			 const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Write "FILE: offset 0x1a3f (code, func 12): REASON" into buf (always
 * NUL-terminated, truncated to cap). file may be NULL. */
void wasm_err_format(const wasm_err *e, const char *file, char *buf,
		     size_t cap);

/* A human word for a status ("malformed", "invalid"…). */
const char *wasm_status_name(wasm_status st);

/* Allocation hooks. wasm_malloc(0) returns a unique non-NULL pointer.
 * All return NULL on failure and never abort. */
void *wasm_malloc(size_t n);
void *wasm_calloc(size_t n, size_t size);
void *wasm_realloc(void *p, size_t n);
void wasm_free(void *p);
/* A copy of the first n bytes of p as a string, or of all of s; NULL when
 * out of memory (and wasm_strdup(NULL) is NULL). */
char *wasm_strndup(const char *p, size_t n);
char *wasm_strdup(const char *s);

/* Test hook: after n more successful allocations, every allocation fails
 * until reset with a negative n. Not thread-safe; tests only. */
void wasm_alloc_fail_after(long n);

/* heisen's version: `heisen version`, the manual, repro files. */
#define HEISEN_VERSION "0.1.0"

/* A growable byte buffer. Zero-initialise, append, then either take the
 * bytes (wasm_buf_take) or release them (wasm_buf_fini). Once an append
 * fails the buffer stays failed (oom set) and further appends do nothing,
 * so a writer can check once at the end. */
typedef struct wasm_buf {
	uint8_t *data;
	size_t len, cap;
	bool oom;
} wasm_buf;

void wasm_buf_fini(wasm_buf *b);
bool wasm_buf_reserve(wasm_buf *b, size_t extra);
void wasm_buf_put(wasm_buf *b, const void *p, size_t n);
void wasm_buf_byte(wasm_buf *b, uint8_t v);
void wasm_buf_u32(wasm_buf *b, uint32_t v); /* unsigned LEB128 */
void wasm_buf_s32(wasm_buf *b, int32_t v);  /* signed LEB128 */
void wasm_buf_s64(wasm_buf *b, int64_t v);  /* signed LEB128 */
void wasm_buf_u64(wasm_buf *b, uint64_t v); /* unsigned LEB128 */
/* Detach the bytes: the caller frees them with wasm_free. */
uint8_t *wasm_buf_take(wasm_buf *b, size_t *len);

/* Read a whole regular file. On success *data (caller frees with
 * wasm_free) and *len are set. Errors: WASM_IO with the path and
 * strerror, including "is a directory". */
wasm_status wasm_read_file(const char *path, uint8_t **data, size_t *len,
			   wasm_err *err);

/* Write bytes to path atomically (temp file + rename). */
wasm_status wasm_write_file(const char *path, const uint8_t *data, size_t len,
			    wasm_err *err);

#endif
