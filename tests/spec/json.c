/*
 * json.c - the strict JSON reader of json.h.
 *
 * How it works: a recursive-descent parser over [text, text + len) that
 * checks every index against len before reading, so the input needs no
 * terminator. Everything the tree owns lives in one arena per document
 * (a list of large chunks), so json_free is a walk over the chunks and no
 * error path can leak a half-built subtree. Arrays and objects do not
 * know their size until they close, so their children are collected on a
 * scratch stack in the parser and copied into the arena in one piece at
 * the closing bracket; nested containers use the same stack above their
 * parent's children, which the parent does not touch until they are done.
 *
 * Limitations: duplicate keys are found by comparing each new key with
 * the earlier ones of its object, O(n^2) in the members of one object;
 * fine for wast2json's handful of keys, slow for objects with 100 000.
 */
#include "tests/spec/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char data[];
} chunk;

struct json_doc {
	chunk *chunks;
	json_value root;
};

typedef struct parser {
	const unsigned char *s;
	size_t len, pos;
	json_doc *doc;
	json_error *err;
	bool failed;
	/* Children of the open arrays/objects; key is NULL for array items. */
	json_member *stack;
	size_t top, stack_cap;
} parser;

/* Arena chunk size: large enough that a spec file's ~100 000 values need
 * only a few hundred allocations. */
#define CHUNK_SIZE ((size_t)64 * 1024)

static void *arena_alloc(json_doc *doc, size_t n)
{
	const size_t align = _Alignof(max_align_t);
	chunk *c = doc->chunks;
	if (n > SIZE_MAX - align)
		return NULL;
	n = (n + align - 1) & ~(align - 1);
	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK_SIZE ? n : CHUNK_SIZE;
		c = malloc(sizeof(chunk) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		/* A big one-off block goes behind the current chunk so the
		 * current one keeps filling up. */
		if (doc->chunks && cap > CHUNK_SIZE) {
			c->next = doc->chunks->next;
			doc->chunks->next = c;
		} else {
			c->next = doc->chunks;
			doc->chunks = c;
		}
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

/* Record the first error only: later ones are consequences. */
__attribute__((format(printf, 3, 4))) static void fail(parser *p, size_t at,
						       const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	if (!p->err)
		return;
	size_t line = 1, col = 1;
	for (size_t i = 0; i < at && i < p->len; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	p->err->offset = at;
	p->err->line = line;
	p->err->col = col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
	va_end(ap);
}

static void oom(parser *p)
{
	fail(p, p->pos, "out of memory");
}

static void skip_ws(parser *p)
{
	while (p->pos < p->len) {
		unsigned char c = p->s[p->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

/* Describe the byte at pos for an error message. */
static const char *what_at(parser *p, size_t pos, char buf[16])
{
	if (pos >= p->len)
		return "end of input";
	unsigned char c = p->s[pos];
	if (c >= 0x21 && c < 0x7F)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02X", c);
	return buf;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits at pos; -1 if not. */
static long hex4(parser *p, size_t pos)
{
	if (p->len - pos < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p->s[pos + i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* Length of the well-formed UTF-8 sequence at pos (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* A string starting at the opening quote at p->pos. The decoded form is
 * never longer than the literal (an escape of n bytes decodes to at most
 * n bytes: \uXXXX is 6 for up to 3, a surrogate pair 12 for 4), so one
 * arena block of the literal's size holds it. */
static bool parse_string(parser *p, const char **out, size_t *out_len)
{
	size_t start = p->pos + 1, i = start;
	char buf[16];
	/* First pass: check everything and find the closing quote. */
	for (;;) {
		if (i >= p->len) {
			fail(p, p->pos, "unterminated string");
			return false;
		}
		unsigned char c = p->s[i];
		if (c == '"')
			break;
		if (c < 0x20) {
			fail(p, i, "control character 0x%02X in string (escape it)",
			     c);
			return false;
		}
		if (c == '\\') {
			if (i + 1 >= p->len) {
				fail(p, p->pos, "unterminated string");
				return false;
			}
			unsigned char e = p->s[i + 1];
			if (strchr("\"\\/bfnrt", e) && e) {
				i += 2;
				continue;
			}
			if (e != 'u') {
				fail(p, i, "invalid escape \\%s",
				     what_at(p, i + 1, buf));
				return false;
			}
			long u = hex4(p, i + 2);
			if (u < 0) {
				fail(p, i, "\\u needs four hex digits");
				return false;
			}
			if (u >= 0xDC00 && u <= 0xDFFF) {
				fail(p, i, "unpaired low surrogate \\u%04lX", u);
				return false;
			}
			if (u >= 0xD800 && u <= 0xDBFF) {
				long lo = -1;
				if (i + 7 < p->len && p->s[i + 6] == '\\' &&
				    p->s[i + 7] == 'u')
					lo = hex4(p, i + 8);
				if (lo < 0xDC00 || lo > 0xDFFF) {
					fail(p, i,
					     "high surrogate \\u%04lX not followed by a low surrogate",
					     u);
					return false;
				}
				i += 12;
			} else {
				i += 6;
			}
			continue;
		}
		size_t n = utf8_len(p->s + i, p->len - i);
		if (n == 0) {
			fail(p, i, "invalid UTF-8 in string");
			return false;
		}
		i += n;
	}
	size_t end = i;
	char *dst = arena_alloc(p->doc, end - start + 1);
	if (!dst) {
		oom(p);
		return false;
	}
	/* Second pass: decode; the first pass proved every step safe. */
	size_t n = 0;
	for (i = start; i < end;) {
		unsigned char c = p->s[i];
		if (c != '\\') {
			dst[n++] = (char)c;
			i++;
			continue;
		}
		unsigned char e = p->s[i + 1];
		uint32_t cp;
		switch (e) {
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u': cp = (uint32_t)hex4(p, i + 2); break;
		default: cp = e; break;
		}
		if (e != 'u') {
			i += 2;
		} else if (cp >= 0xD800 && cp <= 0xDBFF) {
			uint32_t lo = (uint32_t)hex4(p, i + 8);
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			i += 12;
		} else {
			i += 6;
		}
		n += put_utf8(dst + n, cp);
	}
	dst[n] = '\0';
	*out = dst;
	*out_len = n;
	p->pos = end + 1;
	return true;
}

static bool parse_number(parser *p, json_value *v)
{
	size_t i = p->pos;
	char buf[16];
	if (i < p->len && p->s[i] == '-')
		i++;
	if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') {
		fail(p, i, "expected a digit, got %s", what_at(p, i, buf));
		return false;
	}
	if (p->s[i] == '0') {
		i++;
		if (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') {
			fail(p, p->pos, "number with a leading zero");
			return false;
		}
	} else {
		while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
			i++;
	}
	if (i < p->len && p->s[i] == '.') {
		i++;
		if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') {
			fail(p, i, "expected a digit after '.', got %s",
			     what_at(p, i, buf));
			return false;
		}
		while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
			i++;
	}
	if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		i++;
		if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') {
			fail(p, i, "expected a digit in the exponent, got %s",
			     what_at(p, i, buf));
			return false;
		}
		while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
			i++;
	}
	size_t n = i - p->pos;
	char *t = arena_alloc(p->doc, n + 1);
	if (!t) {
		oom(p);
		return false;
	}
	memcpy(t, p->s + p->pos, n);
	t[n] = '\0';
	v->type = JSON_NUMBER;
	v->u.str = t;
	v->len = n;
	p->pos = i;
	return true;
}

static bool literal(parser *p, const char *word, json_type t, json_value *v)
{
	size_t n = strlen(word);
	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) {
		fail(p, p->pos, "invalid literal (expected %s)", word);
		return false;
	}
	p->pos += n;
	v->type = t;
	return true;
}

static bool push(parser *p, const json_member *m)
{
	if (p->top == p->stack_cap) {
		size_t cap = p->stack_cap ? p->stack_cap * 2 : 256;
		json_member *s = realloc(p->stack, cap * sizeof *s);
		if (!s) {
			oom(p);
			return false;
		}
		p->stack = s;
		p->stack_cap = cap;
	}
	p->stack[p->top++] = *m;
	return true;
}

static bool parse_value(parser *p, json_value *v, int depth);

static bool parse_array(parser *p, json_value *v, int depth)
{
	size_t base = p->top;
	p->pos++; /* '[' */
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == ']') {
		p->pos++;
	} else {
		for (;;) {
			json_member m = { 0 };
			if (!parse_value(p, &m.value, depth + 1) || !push(p, &m))
				return false;
			skip_ws(p);
			char buf[16];
			if (p->pos < p->len && p->s[p->pos] == ',') {
				p->pos++;
				skip_ws(p);
				if (p->pos < p->len && p->s[p->pos] == ']') {
					fail(p, p->pos, "trailing comma in array");
					return false;
				}
				continue;
			}
			if (p->pos < p->len && p->s[p->pos] == ']') {
				p->pos++;
				break;
			}
			fail(p, p->pos, "expected ',' or ']' in array, got %s",
			     what_at(p, p->pos, buf));
			return false;
		}
	}
	size_t n = p->top - base;
	v->type = JSON_ARRAY;
	v->len = n;
	v->u.items = NULL;
	if (n) {
		json_value *items = arena_alloc(p->doc, n * sizeof *items);
		if (!items) {
			oom(p);
			return false;
		}
		for (size_t i = 0; i < n; i++)
			items[i] = p->stack[base + i].value;
		v->u.items = items;
	}
	p->top = base;
	return true;
}

static bool parse_object(parser *p, json_value *v, int depth)
{
	size_t base = p->top;
	char buf[16];
	p->pos++; /* '{' */
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == '}') {
		p->pos++;
	} else {
		for (;;) {
			json_member m = { 0 };
			size_t key_at = p->pos;
			if (p->pos >= p->len || p->s[p->pos] != '"') {
				fail(p, p->pos,
				     "expected a string key in object, got %s",
				     what_at(p, p->pos, buf));
				return false;
			}
			if (!parse_string(p, &m.key, &m.key_len))
				return false;
			for (size_t i = base; i < p->top; i++) {
				const json_member *o = &p->stack[i];
				if (o->key_len == m.key_len &&
				    memcmp(o->key, m.key, m.key_len) == 0) {
					fail(p, key_at, "duplicate key \"%.40s\"",
					     m.key);
					return false;
				}
			}
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				fail(p, p->pos, "expected ':' after key, got %s",
				     what_at(p, p->pos, buf));
				return false;
			}
			p->pos++;
			if (!parse_value(p, &m.value, depth + 1) || !push(p, &m))
				return false;
			skip_ws(p);
			if (p->pos < p->len && p->s[p->pos] == ',') {
				p->pos++;
				skip_ws(p);
				if (p->pos < p->len && p->s[p->pos] == '}') {
					fail(p, p->pos, "trailing comma in object");
					return false;
				}
				continue;
			}
			if (p->pos < p->len && p->s[p->pos] == '}') {
				p->pos++;
				break;
			}
			fail(p, p->pos, "expected ',' or '}' in object, got %s",
			     what_at(p, p->pos, buf));
			return false;
		}
	}
	size_t n = p->top - base;
	v->type = JSON_OBJECT;
	v->len = n;
	v->u.members = NULL;
	if (n) {
		json_member *ms = arena_alloc(p->doc, n * sizeof *ms);
		if (!ms) {
			oom(p);
			return false;
		}
		memcpy(ms, p->stack + base, n * sizeof *ms);
		v->u.members = ms;
	}
	p->top = base;
	return true;
}

/* One value after optional whitespace. */
static bool parse_value(parser *p, json_value *v, int depth)
{
	char buf[16];
	skip_ws(p);
	memset(v, 0, sizeof *v);
	v->offset = p->pos;
	if (p->pos >= p->len) {
		fail(p, p->pos, "expected a value, got end of input");
		return false;
	}
	switch (p->s[p->pos]) {
	case '{':
	case '[':
		/* depth counts the containers around this one. */
		if (depth >= JSON_MAX_DEPTH) {
			fail(p, p->pos, "nesting deeper than %d", JSON_MAX_DEPTH);
			return false;
		}
		if (p->s[p->pos] == '{')
			return parse_object(p, v, depth);
		return parse_array(p, v, depth);
	case '"':
		v->type = JSON_STRING;
		return parse_string(p, &v->u.str, &v->len);
	case 't':
		return literal(p, "true", JSON_TRUE, v);
	case 'f':
		return literal(p, "false", JSON_FALSE, v);
	case 'n':
		return literal(p, "null", JSON_NULL, v);
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return parse_number(p, v);
	default:
		fail(p, p->pos, "expected a value, got %s",
		     what_at(p, p->pos, buf));
		return false;
	}
}

void json_free(json_doc *doc)
{
	if (!doc)
		return;
	chunk *c = doc->chunks;
	while (c) {
		chunk *next = c->next;
		free(c);
		c = next;
	}
	free(doc);
}

json_doc *json_parse(const char *text, size_t len, json_error *err)
{
	parser p = { .s = (const unsigned char *)text, .len = len, .err = err };
	if (err)
		memset(err, 0, sizeof *err);
	p.doc = calloc(1, sizeof *p.doc);
	if (!p.doc) {
		oom(&p);
		return NULL;
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		fail(&p, 0, "byte order mark before the value");
	else if (parse_value(&p, &p.doc->root, 0)) {
		skip_ws(&p);
		char buf[16];
		if (p.pos < p.len)
			fail(&p, p.pos, "unexpected %s after the value",
			     what_at(&p, p.pos, buf));
	}
	free(p.stack);
	if (p.failed) {
		json_free(p.doc);
		return NULL;
	}
	return p.doc;
}

json_doc *json_parse_file(const char *path, json_error *err)
{
	json_doc *doc = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "rb");
	if (err)
		memset(err, 0, sizeof *err);
	if (!f)
		goto io_error;
	if (fseek(f, 0, SEEK_END) != 0)
		goto io_error;
	long size = ftell(f);
	if (size < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto io_error;
	len = (size_t)size;
	text = malloc(len ? len : 1);
	if (!text) {
		errno = ENOMEM;
		goto io_error;
	}
	if (fread(text, 1, len, f) != len) {
		if (!ferror(f))
			errno = EIO; /* shrank while we read it */
		goto io_error;
	}
	doc = json_parse(text, len, err);
	goto done;
io_error:
	if (err)
		snprintf(err->msg, sizeof err->msg, "%s: %s", path,
			 strerror(errno));
done:
	if (f)
		fclose(f);
	free(text);
	return doc;
}

const json_value *json_root(const json_doc *doc)
{
	return doc ? &doc->root : NULL;
}

const char *json_type_name(json_type t)
{
	switch (t) {
	case JSON_NULL: return "null";
	case JSON_FALSE: return "false";
	case JSON_TRUE: return "true";
	case JSON_NUMBER: return "number";
	case JSON_STRING: return "string";
	case JSON_ARRAY: return "array";
	case JSON_OBJECT: return "object";
	}
	return "?";
}

const json_value *json_get(const json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT || !key)
		return NULL;
	size_t n = strlen(key);
	for (size_t i = 0; i < obj->len; i++) {
		const json_member *m = &obj->u.members[i];
		if (m->key_len == n && memcmp(m->key, key, n) == 0)
			return &m->value;
	}
	return NULL;
}

const json_value *json_at(const json_value *arr, size_t i)
{
	if (!arr || arr->type != JSON_ARRAY || i >= arr->len)
		return NULL;
	return &arr->u.items[i];
}

size_t json_len(const json_value *v)
{
	if (!v || (v->type != JSON_ARRAY && v->type != JSON_OBJECT))
		return 0;
	return v->len;
}

const char *json_str(const json_value *v)
{
	return v && v->type == JSON_STRING ? v->u.str : NULL;
}

bool json_str_eq(const json_value *v, const char *s)
{
	return v && v->type == JSON_STRING && s && strlen(s) == v->len &&
	       memcmp(v->u.str, s, v->len) == 0;
}

const char *json_get_str(const json_value *obj, const char *key)
{
	return json_str(json_get(obj, key));
}

/* The magnitude of an integer literal (digits only after an optional
 * '-'), or false on a fraction, an exponent or overflow. */
static bool int_magnitude(const json_value *v, bool *neg, uint64_t *mag)
{
	if (!v || v->type != JSON_NUMBER)
		return false;
	const char *s = v->u.str;
	size_t i = 0;
	*neg = s[0] == '-';
	if (*neg)
		i++;
	uint64_t m = 0;
	for (; i < v->len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (m > (UINT64_MAX - d) / 10)
			return false;
		m = m * 10 + d;
	}
	*mag = m;
	return true;
}

bool json_int(const json_value *v, int64_t *out)
{
	bool neg;
	uint64_t m;
	if (!int_magnitude(v, &neg, &m))
		return false;
	if (neg) {
		if (m > (uint64_t)INT64_MAX + 1)
			return false;
		/* -(m) without overflowing on INT64_MIN. */
		*out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
	} else {
		if (m > INT64_MAX)
			return false;
		*out = (int64_t)m;
	}
	return true;
}

bool json_uint(const json_value *v, uint64_t *out)
{
	bool neg;
	uint64_t m;
	if (!int_magnitude(v, &neg, &m) || (neg && m != 0))
		return false;
	*out = m;
	return true;
}

bool json_get_int(const json_value *obj, const char *key, int64_t *out)
{
	return json_int(json_get(obj, key), out);
}

bool json_double(const json_value *v, double *out)
{
	if (!v || v->type != JSON_NUMBER)
		return false;
	*out = strtod(v->u.str, NULL);
	return true;
}
