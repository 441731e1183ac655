/*
 * suppress.c - suppressions files and their matching (suppress.h).
 */
#include "detector/suppress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* TSan's types that name something other than a race: heisen has no
 * thread leaks, mutex misuse, deadlocks, signal-unsafe calls or shared
 * libraries to report. */
static const char *const tsan_only[] = {
    "thread", "mutex", "deadlock", "signal", "called_from_lib",
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void det_supp_free(det_supp *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		wasm_free(s->rule[i].text);
		wasm_free(s->rule[i].file);
	}
	wasm_free(s->rule);
	wasm_free(s->path);
	wasm_free(s);
}

/* One line's error: "NAME:LINE: reason". */
static wasm_status bad_line(wasm_err *err, const char *name, uint32_t line,
			    const char *reason, const char *b, size_t n)
{
	/* A line quoted in a message is cut: the file is the user's to read. */
	int q = n > 60 ? 60 : (int)n;

	return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
			    "%s:%" PRIu32 ": %s: '%.*s%s'", name, line, reason,
			    q, b, n > 60 ? "..." : "");
}

/* Whether pattern p[0, n) is FILE:LINE (':' and digits after a
 * non-empty FILE): 1 with FILE's length and LINE filled, 0 for a name
 * pattern, -1 when LINE is out of range (0 or past UINT32_MAX). */
static int split_file_line(const char *p, size_t n, size_t *file_len,
			   uint32_t *line)
{
	size_t i = n;
	uint64_t v = 0;

	while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9')
		i--;
	if (i == n || i < 2 || p[i - 1] != ':')
		return 0;
	for (size_t k = i; k < n; k++) {
		v = v * 10 + (uint64_t)(p[k] - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	if (!v)
		return -1;
	*file_len = i - 1;
	*line = (uint32_t)v;
	return 1;
}

/* The rule on one trimmed, non-empty, comment-free line [b, b+n). */
static wasm_status add_rule(det_supp *s, uint32_t *cap, const char *name,
			    uint32_t line, const char *b, size_t n,
			    wasm_err *err)
{
	const char *colon = memchr(b, ':', n);
	size_t tlen, plen, flen = 0, core;
	const char *p;
	det_supp_type type;
	det_supp_rule *r;
	uint32_t fline = 0;
	int fl;

	if (memchr(b, '\0', n))
		return bad_line(err, name, line, "NUL byte in the rule", b, n);
	if (!colon)
		return bad_line(err, name, line,
				"expected TYPE:PATTERN (race:FUNCTION, "
				"race:FILE:LINE or called_from:FUNCTION)",
				b, n);
	tlen = (size_t)(colon - b);
	if (tlen == 4 && !memcmp(b, "race", 4))
		type = DET_SUPP_RACE;
	else if (tlen == 8 && !memcmp(b, "race_top", 8))
		type = DET_SUPP_RACE;
	else if (tlen == 11 && !memcmp(b, "called_from", 11))
		type = DET_SUPP_CALLED_FROM;
	else {
		for (size_t i = 0; i < sizeof tsan_only / sizeof *tsan_only;
		     i++)
			if (strlen(tsan_only[i]) == tlen &&
			    !memcmp(b, tsan_only[i], tlen))
				return bad_line(
				    err, name, line,
				    "this ThreadSanitizer rule type "
				    "has no meaning in heisen, "
				    "which suppresses races only "
				    "(race:, called_from:)",
				    b, n);
		return bad_line(err, name, line,
				"unknown rule type (heisen takes race:PATTERN, "
				"race:FILE:LINE and called_from:PATTERN)",
				b, n);
	}
	p = colon + 1;
	plen = n - (size_t)(p - b);
	while (plen && blank(*p))
		p++, plen--;
	/* An anchor alone is no pattern: it would match every name. */
	core = plen;
	if (core && p[0] == '^')
		core--;
	if (core && p[plen - 1] == '$')
		core--;
	if (!core)
		return bad_line(err, name, line, "empty pattern", b, n);
	fl = split_file_line(p, plen, &flen, &fline);
	if (fl < 0)
		return bad_line(err, name, line,
				"line number out of range (1 to 4294967295)", b,
				n);
	if (fl && type == DET_SUPP_CALLED_FROM)
		return bad_line(err, name, line,
				"called_from: matches callers by function "
				"name; FILE:LINE is for race:",
				b, n);
	if (fl && (memchr(p, '*', flen) || p[0] == '^'))
		return bad_line(err, name, line,
				"race:FILE:LINE takes a literal file path or "
				"its end, without '*' or '^'",
				b, n);
	if (s->n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 8;
		if (nc <= *cap)
			return bad_line(err, name, line, "too many rules", b,
					n);
		if (!(r = wasm_realloc(s->rule, nc * sizeof *s->rule)))
			goto oom;
		s->rule = r;
		*cap = nc;
	}
	r = &s->rule[s->n];
	memset(r, 0, sizeof *r);
	if (!(r->text = wasm_strndup(b, n)))
		goto oom;
	if (fl && !(r->file = wasm_strndup(p, flen))) {
		wasm_free(r->text);
		goto oom;
	}
	r->type = type;
	r->number = s->n + 1;
	r->line = line;
	r->pattern = r->text + (p - b);
	r->file_line = fline;
	s->callers |= type == DET_SUPP_CALLED_FROM;
	s->n++;
	return WASM_OK;
oom:
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
}

wasm_status det_supp_parse(const char *name, const char *text, size_t len,
			   det_supp **out, wasm_err *err)
{
	det_supp *s = wasm_calloc(1, sizeof *s);
	wasm_status st = WASM_OK;
	uint32_t line = 0, cap = 0;

	*out = NULL;
	if (!s || !(s->path = wasm_strdup(name))) {
		det_supp_free(s);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	for (size_t pos = 0; pos < len && !st;) {
		const char *b = text + pos, *nl = memchr(b, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - b) : len - pos;

		pos += n + 1;
		line++;
		/* A '#' after a blank starts a comment: no name has one. */
		for (size_t i = 1; i < n; i++)
			if (b[i] == '#' && blank(b[i - 1])) {
				n = i;
				break;
			}
		while (n && blank(*b))
			b++, n--;
		while (n && blank(b[n - 1]))
			n--;
		if (n && *b != '#')
			st = add_rule(s, &cap, name, line, b, n, err);
	}
	if (st) {
		det_supp_free(s);
		return st;
	}
	*out = s;
	return WASM_OK;
}

wasm_status det_supp_load(const char *path, det_supp **out, wasm_err *err)
{
	struct stat sb;
	char *data = NULL;
	size_t len = 0;
	uint64_t want;
	wasm_status st;
	FILE *f;

	*out = NULL;
	if (!path) {
		/* Only a missing default is no file: one that exists but
		 * cannot be read is an error like a named one. */
		if (stat(DET_SUPP_DEFAULT, &sb) && errno == ENOENT)
			return WASM_OK;
		path = DET_SUPP_DEFAULT;
	}
	if (!(f = fopen(path, "r")))
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET, "%s: %s",
				    path, strerror(errno));
	if (fstat(fileno(f), &sb)) {
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET, "%s: %s", path,
				  strerror(errno));
		goto done;
	}
	if (S_ISDIR(sb.st_mode)) {
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "%s: is a directory", path);
		goto done;
	}
	/* A device (/dev/null: no rules) has no size: read to the cap. */
	want = S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : DET_SUPP_MAX_BYTES;
	if (want > DET_SUPP_MAX_BYTES) {
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "%s: %" PRIu64 " bytes: a suppressions file "
				  "has at most %u",
				  path, want, DET_SUPP_MAX_BYTES);
		goto done;
	}
	/* One byte past the size: a file that grew since fstat shows it. */
	if (!(data = wasm_malloc((size_t)want + 1))) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto done;
	}
	len = fread(data, 1, (size_t)want + 1, f);
	if (ferror(f)) {
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET, "%s: %s", path,
				  strerror(errno));
		goto done;
	}
	if (len > want || (S_ISREG(sb.st_mode) && len != want)) {
		st =
		    wasm_err_set(err, WASM_IO, WASM_NO_OFFSET, "%s: %s", path,
				 S_ISREG(sb.st_mode)
				     ? "changed while it was read"
				     : "over the 1 MiB of a suppressions file");
		goto done;
	}
	st = det_supp_parse(path, data, len, out, err);
done:
	wasm_free(data);
	fclose(f);
	return st;
}

/* Glob [p, pe) against s, '*' matching any run of characters, with a
 * '*' assumed before the pattern when lead and after it when trail. The
 * classic one-backtrack-point walk: on a mismatch, the last '*' takes one
 * more character. Linear in s for each '*', so O(|p| |s|) at worst. */
static bool glob(const char *p, const char *pe, const char *s, bool lead,
		 bool trail)
{
	const char *star = lead ? p : NULL, *retry = s;

	while (*s) {
		if (p < pe && *p == '*') {
			star = ++p;
			retry = s;
		} else if (p < pe && *p == *s) {
			p++;
			s++;
		} else if (p == pe && trail) {
			return true;
		} else if (star) {
			p = star;
			s = ++retry;
		} else {
			return false;
		}
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

bool det_supp_template_match(const char *pattern, const char *s)
{
	size_t n = strlen(pattern);
	bool start = n && pattern[0] == '^';
	bool end = n > (size_t)start && pattern[n - 1] == '$';

	if (!s || !*s)
		return false;
	return glob(pattern + start, pattern + n - end, s, !start, !end);
}

/* path is file, or ends with '/' file. */
static bool path_ends(const char *path, const char *file)
{
	size_t lp = strlen(path), lf = strlen(file);

	return lp >= lf && !strcmp(path + lp - lf, file) &&
	       (lp == lf || file[0] == '/' || path[lp - lf - 1] == '/');
}

/* One access: frame #0 (func, file, line; NULL when unknown) and its
 * callers (stack frames 1 and up; stack NULL or short: none). */
typedef struct access {
	const char *func, *file;
	uint32_t line;
	const db_stack *stack;
} access;

static bool rule_matches(const det_supp_rule *r, const access *a)
{
	if (r->type == DET_SUPP_CALLED_FROM) {
		for (uint32_t i = 1; a->stack && i < a->stack->n; i++)
			if (det_supp_template_match(r->pattern,
						    a->stack->frame[i].func))
				return true;
		return false;
	}
	if (r->file)
		return a->file && a->line == r->file_line &&
		       path_ends(a->file, r->file);
	if (det_supp_template_match(r->pattern, a->func) ||
	    det_supp_template_match(r->pattern, a->file))
		return true;
	/* Code inlined into frame #0's function is that function's too:
	 * the functions down to the first frame not inlined share the
	 * access (a rule naming the function a helper was inlined into
	 * keeps matching, as TSan's does). */
	for (uint32_t i = 0;
	     a->stack && i + 1 < a->stack->n && a->stack->frame[i].inlined; i++)
		if (det_supp_template_match(r->pattern,
					    a->stack->frame[i + 1].func))
			return true;
	return false;
}

static const det_supp_rule *match2(const det_supp *s, const access acc[2])
{
	for (uint32_t i = 0; s && i < s->n; i++)
		for (int k = 0; k < 2; k++)
			if (rule_matches(&s->rule[i], &acc[k]))
				return &s->rule[i];
	return NULL;
}

/* The access of stack st, or of the site (func, file, line) when st
 * kept no frame. */
static access access_of(const db_stack *st, const char *func, const char *file,
			uint32_t line)
{
	if (st && st->n)
		return (access){st->frame[0].func, st->frame[0].file,
				st->frame[0].line, st};
	return (access){func, file, line, NULL};
}

const det_supp_rule *det_supp_match(const det_supp *s, const db_stack acc[2])
{
	access a[2];

	for (int k = 0; k < 2; k++)
		a[k] = access_of(&acc[k], NULL, NULL, 0);
	return match2(s, a);
}

const det_supp_rule *det_supp_match_hit(const det_supp *s, const db_hit *h)
{
	access a[2];

	for (int k = 0; k < 2; k++)
		a[k] = access_of(&h->stack[k], h->site[k].func, h->site[k].file,
				 h->site[k].line);
	return match2(s, a);
}

/* det_supp_match_bug's walk over a bug's runs. */
typedef struct bug_walk {
	const det_supp *s;
	db *d;
	int64_t bug;
	const det_supp_rule *first; /* of the first run that kept stacks */
	bool unmatched;		    /* a run's stacks matched no rule */
	wasm_status st;
	wasm_err *err;
} bug_walk;

static bool judge_run(void *ctx, const db_run *r)
{
	bug_walk *w = ctx;
	db_stack st[2];
	const det_supp_rule *rule;

	if ((w->st = db_run_bug_stacks(w->d, r->id, w->bug, st, w->err)))
		return false;
	if (st[0].n || st[1].n) {
		rule = det_supp_match(w->s, st);
		if (!w->first)
			w->first = rule;
		w->unmatched = !rule;
	}
	db_stack_clear(&st[0]);
	db_stack_clear(&st[1]);
	return !w->unmatched;
}

wasm_status det_supp_match_bug(const det_supp *s, db *d, const db_bug *b,
			       int64_t campaign, const det_supp_rule **rule,
			       wasm_err *err)
{
	access a[2];
	bug_walk w = {s, d, b->id, NULL, false, WASM_OK, err};
	wasm_status st;

	*rule = NULL;
	if (!s)
		return WASM_OK;
	for (int k = 0; k < 2; k++)
		a[k] = access_of(NULL, b->site[k].func, b->site[k].file,
				 b->site[k].line);
	if ((*rule = match2(s, a)) || !s->callers)
		return WASM_OK;
	if ((st = db_run_list(d, campaign, b->id, judge_run, &w, err)))
		return st;
	if (w.st)
		return w.st;
	if (!w.unmatched)
		*rule = w.first;
	return WASM_OK;
}

void det_supp_hit(det_supp *s, const det_supp_rule *r)
{
	if (s && r && r >= s->rule && r < s->rule + s->n)
		s->rule[r - s->rule].hits++;
}
