/*
 * jsonw.h - a streaming JSON writer for `--json` output.
 *
 * Every object member takes its key; array elements pass key NULL. Strings
 * are escaped per RFC 8259 (control characters as \u00XX); bytes are
 * written as given, so callers pass UTF-8. Nesting is limited to
 * TUI_JSON_DEPTH; deeper calls are ignored (a programming error, caught by
 * the tests, never by input).
 */
#ifndef HEISEN_TUI_JSONW_H
#define HEISEN_TUI_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TUI_JSON_DEPTH 32

typedef struct tui_json {
	FILE *f;
	int depth;
	bool first[TUI_JSON_DEPTH];
} tui_json;

void tui_json_init(tui_json *j, FILE *f);
void tui_json_obj(tui_json *j, const char *key); /* { */
void tui_json_arr(tui_json *j, const char *key); /* [ */
void tui_json_end(tui_json *j, char close);	 /* } or ] */
void tui_json_str(tui_json *j, const char *key, const char *s);
void tui_json_strn(tui_json *j, const char *key, const char *s, size_t n);
/* s, or null when s is NULL or empty. */
void tui_json_str_or_null(tui_json *j, const char *key, const char *s);
void tui_json_u64(tui_json *j, const char *key, uint64_t v);
void tui_json_i64(tui_json *j, const char *key, int64_t v);
/* v as a string of 16 hex digits: seeds and digests, which JSON's
 * numbers cannot hold exactly. */
void tui_json_hex64(tui_json *j, const char *key, uint64_t v);
void tui_json_f64(tui_json *j, const char *key,
		  double v); /* null if not finite */
void tui_json_bool(tui_json *j, const char *key, bool v);
void tui_json_null(tui_json *j, const char *key);
/* Finish the document with a newline. */
void tui_json_done(tui_json *j);

#endif
