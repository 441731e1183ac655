/*
 * json.h - a small, strict JSON reader for the spec-suite runners.
 *
 * It reads what wabt's wast2json writes (and RFC 8259 JSON in general)
 * into a read-only tree. It is strict on purpose: a runner that guessed
 * at a damaged command file would report results for tests it never ran.
 * Rejected: trailing commas, leading zeros, a leading '+', NaN/Infinity,
 * comments, a byte order mark, control characters inside strings, bad
 * escapes, unpaired UTF-16 surrogates, invalid UTF-8, duplicate keys in
 * one object, nesting deeper than JSON_MAX_DEPTH, and anything but
 * whitespace after the top-level value.
 *
 * Values are kept exactly: a string is the decoded bytes (it may contain
 * NUL, so use len), a number is the literal text as written (wast2json
 * writes 64-bit integers and float bit patterns, which a double would
 * round). Convert numbers with json_int / json_double when you need to.
 *
 * Ownership: json_parse returns a json_doc that owns every value, key and
 * string of the tree; all pointers into it stay valid until json_free.
 * The input text is not referenced after json_parse returns.
 */
#ifndef HEISEN_TESTS_SPEC_JSON_H
#define HEISEN_TESTS_SPEC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most arrays/objects open at once; deeper input is rejected rather than
 * risking the C stack. */
#define JSON_MAX_DEPTH 512

typedef enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
} json_type;

typedef struct json_value json_value;
typedef struct json_member json_member;

struct json_value {
	json_type type;
	size_t offset; /* byte offset of the value's first byte in the input */
	size_t len;    /* STRING/NUMBER: bytes; ARRAY: items; OBJECT: members */
	union {
		const char *str;      /* STRING: decoded; NUMBER: literal text;
					 NUL-terminated either way */
		json_value *items;    /* ARRAY: len items in input order */
		json_member *members; /* OBJECT: len members in input order */
	} u;
};

struct json_member {
	const char *key; /* decoded, NUL-terminated (may contain NUL) */
	size_t key_len;
	json_value value;
};

typedef struct json_doc json_doc;

typedef struct json_error {
	size_t offset;    /* byte offset of the problem in the input */
	size_t line, col; /* 1-based, col counted in bytes */
	char msg[160];    /* the reason, without position */
} json_error;

/* Parse len bytes of text (need not be NUL-terminated). Returns a new
 * document (free with json_free), or NULL with *err filled: a syntax
 * error with its position, or "out of memory". err may be NULL. */
json_doc *json_parse(const char *text, size_t len, json_error *err);

/* Read and parse a whole file. On an I/O error *err says so with the path
 * and strerror, and offset/line/col are 0. */
json_doc *json_parse_file(const char *path, json_error *err);

/* Free a document and the whole tree. Accepts NULL. */
void json_free(json_doc *doc);

/* The top-level value of a document; never NULL for a parsed document. */
const json_value *json_root(const json_doc *doc);

/* "null", "false", "true", "number", "string", "array", "object". */
const char *json_type_name(json_type t);

/* Lookups. All accept NULL and values of the wrong type, and then return
 * NULL / false, so that chains like json_get_str(json_at(a, 3), "text")
 * need one check at the end. */

/* Member `key` of an object, or NULL. */
const json_value *json_get(const json_value *obj, const char *key);
/* Item i of an array, or NULL when out of range. */
const json_value *json_at(const json_value *arr, size_t i);
/* Items of an array or members of an object; 0 for anything else. */
size_t json_len(const json_value *v);
/* The bytes of a string value, or NULL. */
const char *json_str(const json_value *v);
/* Whether v is a string equal to the C string s (no embedded NUL). */
bool json_str_eq(const json_value *v, const char *s);
/* json_str(json_get(obj, key)). */
const char *json_get_str(const json_value *obj, const char *key);

/* A number that is an integer without fraction or exponent and fits in
 * int64_t / uint64_t; otherwise false and *out unchanged. */
bool json_int(const json_value *v, int64_t *out);
bool json_uint(const json_value *v, uint64_t *out);
/* json_int(json_get(obj, key), out). */
bool json_get_int(const json_value *obj, const char *key, int64_t *out);
/* Any number as the nearest double (strtod in the C locale). */
bool json_double(const json_value *v, double *out);

#endif
