/*
 * jsonw.c - streaming JSON writer.
 */
#include "tui/report/jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void tui_json_init(tui_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

static void put_escaped(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Separator and key before a value. */
static void member(tui_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		put_escaped(j->f, key, strlen(key));
		fputc(':', j->f);
	}
}

static void json_open(tui_json *j, const char *key, char c)
{
	if (j->depth + 1 >= TUI_JSON_DEPTH)
		return;
	member(j, key);
	fputc(c, j->f);
	j->first[++j->depth] = true;
}

void tui_json_obj(tui_json *j, const char *key) { json_open(j, key, '{'); }
void tui_json_arr(tui_json *j, const char *key) { json_open(j, key, '['); }

void tui_json_end(tui_json *j, char close)
{
	if (j->depth == 0)
		return;
	j->depth--;
	fputc(close, j->f);
}

void tui_json_strn(tui_json *j, const char *key, const char *s, size_t n)
{
	member(j, key);
	put_escaped(j->f, s, n);
}

void tui_json_str(tui_json *j, const char *key, const char *s)
{
	if (!s) {
		tui_json_null(j, key);
		return;
	}
	tui_json_strn(j, key, s, strlen(s));
}

void tui_json_str_or_null(tui_json *j, const char *key, const char *s)
{
	if (s && *s)
		tui_json_str(j, key, s);
	else
		tui_json_null(j, key);
}

void tui_json_u64(tui_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void tui_json_i64(tui_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void tui_json_hex64(tui_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "\"%016" PRIx64 "\"", v);
}

void tui_json_f64(tui_json *j, const char *key, double v)
{
	member(j, key);
	/* JSON has no NaN or infinity. */
	if (isfinite(v))
		fprintf(j->f, "%.17g", v);
	else
		fputs("null", j->f);
}

void tui_json_bool(tui_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void tui_json_null(tui_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void tui_json_done(tui_json *j) { fputc('\n', j->f); }
