/*
 * tsan.c - reading data race reports as text (tsan.h).
 *
 * How it works: one pass over the lines. Each line is copied, without a
 * terminal's colour codes and leading blanks, into a bounded buffer; a
 * data race WARNING line opens a block, and inside the block asked for,
 * an access line opens a section whose "#N" lines are its frames, any
 * other line closes it, and the SUMMARY line ends the block. A second
 * WARNING or a separator line before that SUMMARY means the block was cut.
 */
#include "replay/tsan.h"

#include "core/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_COPY 1024

static const char *const headers[2] = {"WARNING: ThreadSanitizer: data race",
				       "WARNING: heisen: data race"};

const char *rep_tsan_base(const char *file)
{
	const char *s = strrchr(file, '/');
	return s ? s + 1 : file;
}

/* src[0..n) into dst (cap bytes), NUL-terminated, cut if it must. */
static void copy(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* The line p[0..n) without leading blanks and colour codes (ESC [ ...
 * letter), trailing blanks and '\r', into out (LINE_MAX_COPY bytes). */
static void clean(const char *p, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o < LINE_MAX_COPY - 1; i++) {
		if (p[i] == 0x1b) {
			if (i + 1 < n && p[i + 1] == '[') {
				i += 2;
				while (i < n &&
				       !((p[i] >= 'a' && p[i] <= 'z') ||
					 (p[i] >= 'A' && p[i] <= 'Z')))
					i++;
			}
			continue;
		}
		if (!o && (p[i] == ' ' || p[i] == '\t'))
			continue;
		out[o++] = p[i];
	}
	while (o &&
	       (out[o - 1] == ' ' || out[o - 1] == '\r' || out[o - 1] == '\t'))
		o--;
	out[o] = 0;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Digits at *s into *v (at most 2^32-1); advances *s. */
static bool u32_at(const char **s, uint32_t *v)
{
	uint64_t x = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		x = x * 10 + (uint64_t)(*p++ - '0');
		if (x > UINT32_MAX)
			return false;
	}
	*v = (uint32_t)x;
	*s = p;
	return true;
}

/* "[Previous |Unordered ][atomic ]read|write of size N at ADDR by WHO:" */
static bool parse_access(const char *l, rep_tsan_access *a)
{
	const char *p = l, *who, *end;
	char *e;

	memset(a, 0, sizeof *a);
	if (starts(p, "Previous "))
		p += 9;
	else if (starts(p, "Unordered "))
		p += 10;
	if (starts(p, "atomic ") || starts(p, "Atomic ")) {
		a->atomic = true;
		p += 7;
	}
	if (starts(p, "read") || starts(p, "Read"))
		p += 4;
	else if (starts(p, "write") || starts(p, "Write")) {
		a->write = true;
		p += 5;
	} else {
		return false;
	}
	if (!starts(p, " of size "))
		return false;
	p += 9;
	if (!u32_at(&p, &a->size) || !starts(p, " at "))
		return false;
	p += 4;
	errno = 0;
	a->addr = strtoull(p, &e, 16);
	if (errno || e == p || *e != ' ')
		return false;
	p = e;
	if (!starts(p, " by "))
		return false;
	who = p + 4;
	end = l + strlen(l);
	if (end == who || end[-1] != ':')
		return false;
	if (starts(who, "main thread"))
		copy(a->thread, sizeof a->thread, who, 11);
	else if (starts(who, "thread ")) {
		const char *t = who + 7, *te = t;
		while (*te && *te != ' ' && *te != ':')
			te++;
		if (te == t)
			return false;
		copy(a->thread, sizeof a->thread, t, (size_t)(te - t));
	} else {
		return false;
	}
	return true;
}

static bool all_digits(const char *s, const char *end)
{
	if (s == end)
		return false;
	for (; s < end; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A number of at most 9 digits in [s, end). */
static uint32_t small_num(const char *s, const char *end)
{
	uint32_t v = 0;

	for (; s < end && end - s <= 9; s++)
		v = v * 10 + (uint32_t)(*s - '0');
	return v;
}

/* FILE:LINE or FILE:LINE:COL at loc[0..n) into f; false when it is not
 * one. */
static bool parse_loc(const char *loc, size_t n, rep_tsan_frame *f)
{
	const char *end = loc + n, *c1 = NULL, *c2 = NULL;

	for (const char *p = end; p > loc; p--)
		if (p[-1] == ':') {
			c1 = p - 1;
			break;
		}
	if (!c1 || !all_digits(c1 + 1, end) || end - (c1 + 1) > 9)
		return false;
	for (const char *p = c1; p > loc; p--)
		if (p[-1] == ':') {
			c2 = p - 1;
			break;
		}
	if (c2 && all_digits(c2 + 1, c1) && c1 - (c2 + 1) <= 9) {
		f->line = small_num(c2 + 1, c1);
		f->col = small_num(c1 + 1, end);
		end = c2;
	} else {
		f->line = small_num(c1 + 1, end);
		end = c1;
	}
	if (end == loc)
		return false;
	copy(f->file, sizeof f->file, loc, (size_t)(end - loc));
	return true;
}

/* "#N FUNC [LOCATION] [(MODULE+0xOFF)|(site N)|(offset 0xN)]" */
static bool parse_frame(const char *l, rep_tsan_frame *f)
{
	const char *p = l + 1, *end, *sp;

	memset(f, 0, sizeof *f);
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p != ' ')
		return false;
	while (*p == ' ')
		p++;
	end = p + strlen(p);
	/* The module and offset in parentheses, and clang's build id after
	 * them: not places in the source. */
	while (end > p && end[-1] == ')') {
		const char *o = end - 1;
		while (o > p && !(o[0] == '(' && o[-1] == ' '))
			o--;
		if (o == p)
			break;
		end = o - 1;
		while (end > p && end[-1] == ' ')
			end--;
	}
	while (end > p && end[-1] == ' ')
		end--;
	if (end == p)
		return false;
	sp = end;
	while (sp > p && sp[-1] != ' ')
		sp--;
	if (sp > p) {
		const char *fe = sp;
		if (!(end - sp == 6 && !memcmp(sp, "<null>", 6)) &&
		    !parse_loc(sp, (size_t)(end - sp), f))
			fe = end; /* a name with spaces and no location */
		while (fe > p && fe[-1] == ' ')
			fe--;
		end = fe;
	}
	if (!(end - p == 6 && !memcmp(p, "<null>", 6)))
		copy(f->func, sizeof f->func, p, (size_t)(end - p));
	return true;
}

static wasm_status cut(wasm_err *e, const char *name, uint32_t index,
		       uint32_t line, const char *why)
{
	return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
			    "%s:%u: race report %u is cut short (%s): give "
			    "the whole report as the sanitizer printed it",
			    name, line, index, why);
}

wasm_status rep_tsan_parse(const char *text, size_t len, const char *name,
			   uint32_t index, rep_tsan_race *out, wasm_err *e)
{
	enum { NONE = -1 };
	char l[LINE_MAX_COPY];
	rep_tsan_access acc;
	const char *p = text, *end = text + len;
	uint32_t line = 0, blocks = 0;
	int sec = NONE;
	bool in = false, done = false;

	memset(out, 0, sizeof *out);
	if (!index)
		index = 1;
	if (len > REP_TSAN_MAX)
		return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: larger than %u MiB: not a race "
				    "report",
				    name, REP_TSAN_MAX >> 20);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' &&
		    c != 0x1b && c != '\f')
			return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
					    "%s: binary (byte 0x%02x at offset "
					    "%zu): not a race report as text",
					    name, c, i);
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		bool header = false;
		line++;
		clean(p, (size_t)(le - p), l);
		p = nl ? nl + 1 : end;
		for (int h = 0; h < 2; h++)
			if (strstr(l, headers[h])) {
				header = true;
				if (in && !done)
					return cut(e, name, index, line,
						   "another report begins "
						   "before its SUMMARY line");
				if (++blocks == index) {
					in = true;
					out->heisen = h == 1;
					out->line = line;
				}
			}
		if (header || !in || done)
			continue;
		if (starts(l, "SUMMARY:")) {
			const char *s = l + 8;
			while (*s == ' ')
				s++;
			copy(out->summary, sizeof out->summary, s, strlen(s));
			done = true;
		} else if (starts(l, "==================")) {
			return cut(e, name, index, line,
				   "a separator line before its SUMMARY "
				   "line");
		} else if (l[0] == '#' && sec != NONE) {
			rep_tsan_access *a = &out->acc[sec];
			rep_tsan_frame f;
			if (!parse_frame(l, &f))
				return wasm_err_set(
				    e, WASM_INVALID, WASM_NO_OFFSET,
				    "%s:%u: not a stack frame: '%.60s' (a "
				    "frame is '#N FUNCTION FILE:LINE')",
				    name, line, l);
			if (a->nframes < REP_TSAN_FRAMES)
				a->frame[a->nframes++] = f;
			else
				a->dropped++;
		} else if (!out->acc[1].report_line && parse_access(l, &acc)) {
			sec = out->acc[0].report_line ? 1 : 0;
			acc.report_line = line;
			out->acc[sec] = acc;
		} else {
			if (starts(l, "Location is "))
				copy(out->location, sizeof out->location,
				     l + 12, strlen(l + 12));
			if (l[0])
				sec = NONE;
		}
	}
	out->nblocks = blocks;
	out->index = index;
	if (!blocks)
		return wasm_err_set(
		    e, WASM_INVALID, WASM_NO_OFFSET,
		    "%s: not a race report: no 'WARNING: ThreadSanitizer: "
		    "data race' (or 'WARNING: heisen: data race') line",
		    name);
	if (blocks < index)
		return wasm_err_set(e, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: --index %u, but the report holds %u "
				    "race%s",
				    name, index, blocks,
				    blocks == 1 ? "" : "s");
	for (int k = 0; k < 2; k++) {
		if (!out->acc[k].report_line)
			return cut(e, name, index, line,
				   k ? "it has one access, no 'Previous' one"
				     : "it has no access line");
		if (!out->acc[k].nframes)
			return wasm_err_set(
			    e, WASM_INVALID, WASM_NO_OFFSET,
			    "%s:%u: race report %u: its %s access has no "
			    "stack frames (build with -g, and keep the "
			    "'#N' lines)",
			    name, out->acc[k].report_line, index,
			    k ? "second" : "first");
	}
	if (!done)
		return cut(e, name, index, line,
			   "the file ends before its "
			   "SUMMARY line");
	return WASM_OK;
}

wasm_status rep_tsan_read(const char *path, uint32_t index, rep_tsan_race *out,
			  wasm_err *e)
{
	FILE *in = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	wasm_status st;

	memset(out, 0, sizeof *out);
	if (!in)
		return wasm_err_set(e, WASM_IO, WASM_NO_OFFSET,
				    "%s: cannot read: %s", path,
				    strerror(errno));
	for (;;) {
		size_t got;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			char *nb;
			if (cap > REP_TSAN_MAX) {
				fclose(in);
				wasm_free(buf);
				return wasm_err_set(
				    e, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: larger than %u MiB: not a race "
				    "report",
				    path, REP_TSAN_MAX >> 20);
			}
			if (!(nb = wasm_realloc(buf, nc))) {
				fclose(in);
				wasm_free(buf);
				return wasm_err_set(e, WASM_NOMEM,
						    WASM_NO_OFFSET,
						    "out of memory");
			}
			buf = nb;
			cap = nc;
		}
		got = fread(buf + n, 1, cap - n, in);
		n += got;
		if (!got)
			break;
	}
	if (ferror(in)) {
		fclose(in);
		wasm_free(buf);
		return wasm_err_set(e, WASM_IO, WASM_NO_OFFSET,
				    "%s: cannot read: not a regular file",
				    path);
	}
	fclose(in);
	st = rep_tsan_parse(buf ? buf : "", n, path, index, out, e);
	wasm_free(buf);
	return st;
}
