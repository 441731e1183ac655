/*
 * test_suppress.c - suppressions files (detector/suppress.h): parsing,
 * every malformed line with its line number, TSan's pattern matching,
 * race: against the access only and called_from: against its callers
 * only, FILE:LINE on a path boundary, hit counts, loading, failed
 * allocations, and recorded bugs judged over their runs' stacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "detector/suppress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static det_supp *parse_ok(const char *text)
{
	det_supp *s = NULL;
	wasm_err e;

	wasm_err_clear(&e);
	assert_int_equal(det_supp_parse("rules", text, strlen(text), &s, &e),
			 WASM_OK);
	assert_non_null(s);
	return s;
}

/* text must be refused with a message that starts "rules:LINE: " and
 * names reason. */
static void parse_bad(const char *text, uint32_t line, const char *reason)
{
	det_supp *s = (det_supp *)1;
	wasm_err e;
	char where[32];

	wasm_err_clear(&e);
	assert_int_equal(det_supp_parse("rules", text, strlen(text), &s, &e),
			 WASM_MALFORMED);
	assert_null(s);
	snprintf(where, sizeof where, "rules:%u: ", line);
	if (strncmp(e.msg, where, strlen(where)) || !strstr(e.msg, reason))
		fail_msg("'%s': message '%s', want '%s...%s'", text, e.msg,
			 where, reason);
}

/* ---- parsing ------------------------------------------------------------- */

static void comments_blanks_and_whitespace(void **state)
{
	det_supp *s = parse_ok("# known races\n"
			       "\n"
			       "   race:store_left  \n"
			       "\t# indented comment\n"
			       "race: spaced # why it is accepted\r\n"
			       "called_from:^via_*$\n"
			       "race:dir/two-races.c:28\n"
			       "race_top:top\n"
			       "race:f#g\n");

	assert_int_equal(s->n, 6);
	assert_string_equal(s->path, "rules");
	assert_true(s->callers);

	assert_int_equal(s->rule[0].type, DET_SUPP_RACE);
	assert_int_equal(s->rule[0].number, 1);
	assert_int_equal(s->rule[0].line, 3);
	assert_string_equal(s->rule[0].text, "race:store_left");
	assert_string_equal(s->rule[0].pattern, "store_left");
	assert_null(s->rule[0].file);

	/* Blanks after the colon go; a '#' after a blank ends the rule. */
	assert_int_equal(s->rule[1].line, 5);
	assert_string_equal(s->rule[1].text, "race: spaced");
	assert_string_equal(s->rule[1].pattern, "spaced");

	assert_int_equal(s->rule[2].type, DET_SUPP_CALLED_FROM);
	assert_int_equal(s->rule[2].line, 6);
	assert_string_equal(s->rule[2].pattern, "^via_*$");

	assert_int_equal(s->rule[3].line, 7);
	assert_string_equal(s->rule[3].file, "dir/two-races.c");
	assert_int_equal(s->rule[3].file_line, 28);

	/* TSan's race_top: is heisen's race:. */
	assert_int_equal(s->rule[4].type, DET_SUPP_RACE);
	assert_string_equal(s->rule[4].pattern, "top");
	/* A '#' inside a word is part of it. */
	assert_string_equal(s->rule[5].pattern, "f#g");
	assert_int_equal(s->rule[5].number, 6);
	det_supp_free(s);

	/* An empty file, and one of comments only: valid, no rules. */
	s = parse_ok("");
	assert_int_equal(s->n, 0);
	assert_false(s->callers);
	det_supp_free(s);
	s = parse_ok("# nothing yet\n\n   \n");
	assert_int_equal(s->n, 0);
	det_supp_free(s);
	/* No newline at the end; called_from: alone sets callers. */
	s = parse_ok("race:a\nrace:b");
	assert_int_equal(s->n, 2);
	assert_false(s->callers);
	assert_int_equal(s->rule[1].line, 2);
	det_supp_free(s);
	det_supp_free(NULL);
}

static void malformed_lines_name_their_line(void **state)
{
	static const char nul[] = "race:a\nrace:b\0c\n";
	det_supp *s = (det_supp *)1;
	wasm_err e;

	parse_bad("race:ok\nstore_left\n", 2, "expected TYPE:PATTERN");
	parse_bad("# c\n\nrace_:x\n", 3, "unknown rule type");
	parse_bad("Race:x\n", 1, "unknown rule type");
	parse_bad("race :x\n", 1, "unknown rule type");
	parse_bad("leak:x\n", 1, "unknown rule type");
	parse_bad("race:a\nthread:worker\n", 2, "no meaning in heisen");
	parse_bad("mutex:m\n", 1, "no meaning in heisen");
	parse_bad("deadlock:d\n", 1, "no meaning in heisen");
	parse_bad("signal:s\n", 1, "no meaning in heisen");
	parse_bad("race:a\nrace:b\ncalled_from_lib:libc.so\n", 3,
		  "no meaning in heisen");
	parse_bad("race:\n", 1, "empty pattern");
	parse_bad("race:a\ncalled_from:   \n", 2, "empty pattern");
	parse_bad("race:^\n", 1, "empty pattern");
	parse_bad("race:$\n", 1, "empty pattern");
	parse_bad("race:^$\n", 1, "empty pattern");
	parse_bad("race:a.c:0\n", 1, "line number out of range");
	parse_bad("race:a.c:4294967296\n", 1, "line number out of range");
	parse_bad("race:*.c:12\n", 1, "literal file path");
	parse_bad("race:^a.c:12\n", 1, "literal file path");
	parse_bad("called_from:a.c:12\n", 1, "FILE:LINE is for race:");

	/* A NUL byte is refused, not a silent end of the rule. */
	assert_int_equal(det_supp_parse("rules", nul, sizeof nul - 1, &s, &e),
			 WASM_MALFORMED);
	assert_null(s);
	assert_non_null(strstr(e.msg, "rules:2: NUL byte"));

	/* A long line is quoted cut, within the message. */
	{
		char big[400];
		memset(big, 'x', sizeof big);
		memcpy(big, "bogus:", 6);
		big[sizeof big - 1] = '\0';
		parse_bad(big, 1, "...'");
	}
	/* The largest line number is fine. */
	s = parse_ok("race:a.c:4294967295\n");
	assert_int_equal(s->rule[0].file_line, 4294967295u);
	det_supp_free(s);
}

/* ---- patterns ------------------------------------------------------------ */

static void template_matching_as_tsan(void **state)
{
	/* Substring without anchors. */
	assert_true(det_supp_template_match("left", "store_left"));
	assert_true(det_supp_template_match("ore_le", "store_left"));
	assert_false(det_supp_template_match("lefty", "store_left"));
	/* ^ anchors at the start, $ at the end, both: the whole name. */
	assert_true(det_supp_template_match("^store", "store_left"));
	assert_false(det_supp_template_match("^left", "store_left"));
	assert_true(det_supp_template_match("left$", "store_left"));
	assert_false(det_supp_template_match("store$", "store_left"));
	assert_true(det_supp_template_match("^store_left$", "store_left"));
	assert_false(det_supp_template_match("^store_lef$", "store_left"));
	assert_false(det_supp_template_match("^tore_left$", "store_left"));
	/* '*' is any run of characters, the empty one too. */
	assert_true(det_supp_template_match("st*ft", "store_left"));
	assert_true(det_supp_template_match("^st*ft$", "store_left"));
	assert_true(det_supp_template_match("^store_*left$", "store_left"));
	assert_false(det_supp_template_match("^st*ri$", "store_left"));
	assert_true(det_supp_template_match("*", "x"));
	assert_true(det_supp_template_match("^*$", "x"));
	assert_true(det_supp_template_match("a**b", "a-b"));
	/* Backtracking: the first 'b' is not the last. */
	assert_true(det_supp_template_match("a*b$", "abxb"));
	assert_true(det_supp_template_match("^a*b*c$", "abcbc"));
	assert_false(det_supp_template_match("^a*b*c$", "abcbd"));
	/* '^' and '$' inside a pattern are characters. */
	assert_true(det_supp_template_match("$LT$T", "_ZN$LT$T$GT$"));
	/* Only the last '$' is the anchor. */
	assert_false(det_supp_template_match("$LT$", "_ZN$LT$T$GT$"));
	assert_true(det_supp_template_match("$GT$$", "_ZN$LT$T$GT$"));
	assert_false(det_supp_template_match("a$b", "ab"));
	assert_true(det_supp_template_match("a^b", "xa^by"));
	/* An empty or missing name never matches. */
	assert_false(det_supp_template_match("*", ""));
	assert_false(det_supp_template_match("x", NULL));
}

static db_frame frame(const char *func, const char *file, uint32_t line)
{
	return (db_frame){(char *)func, (char *)file, line, 0, false};
}

/* race: looks at frame #0 of either access only, by function or file. */
static void race_matches_the_access_itself(void **state)
{
	det_supp *s = parse_ok("race:store_left\n"
			       "race:other.c\n");
	db_frame a[] = {frame("store_left", "/src/two-races.c", 28),
			frame("via_left", "/src/two-races.c", 36)};
	db_frame b[] = {frame("store_right", "/src/two-races.c", 33),
			frame("store_left", "/src/two-races.c", 28)};
	db_frame c[] = {frame("helper", "/lib/other.c", 3)};
	db_stack left[2] = {{a, 2, false}, {NULL, 0, false}};
	db_stack right[2] = {{b, 2, false}, {b, 2, false}};
	db_stack mixed[2] = {{b, 1, false}, {a, 1, false}};
	db_stack other[2] = {{NULL, 0, false}, {c, 1, false}};
	db_stack none[2] = {{NULL, 0, false}, {NULL, 0, false}};

	assert_ptr_equal(det_supp_match(s, left), &s->rule[0]);
	/* store_left as a caller (frame #1) is not the access. */
	assert_null(det_supp_match(s, right));
	/* Either access: the second one is store_left. */
	assert_ptr_equal(det_supp_match(s, mixed), &s->rule[0]);
	/* The file path, as a substring. */
	assert_ptr_equal(det_supp_match(s, other), &s->rule[1]);
	/* No stack: nothing to match. */
	assert_null(det_supp_match(s, none));
	assert_null(det_supp_match(NULL, left));
	det_supp_free(s);
}

/* An access inside an inlined helper: race: matches the helper and the
 * functions it was inlined into (down to the first frame not inlined),
 * not that function's callers; called_from: sees every frame from #1. */
static void race_matches_through_inlined_frames(void **state)
{
	db_frame f[] = {frame("bump", "/src/t.c", 20),
			frame("add_twice", "/src/t.c", 24),
			frame("late_path", "/src/t.c", 27),
			frame("second", "/src/t.c", 40)};
	db_stack acc[2] = {{f, 4, false}, {NULL, 0, false}};
	static const struct {
		const char *rule;
		bool match;
	} cases[] = {
	    {"race:^bump$", true},
	    {"race:^add_twice$", true}, /* inlined too */
	    {"race:^late_path$", true}, /* where both live */
	    {"race:^second$", false},	/* a caller */
	    {"race:t.c:24", false},	/* FILE:LINE is frame #0's */
	    {"called_from:^add_twice$", true},
	};
	det_supp *s;

	f[0].inlined = f[1].inlined = true;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		s = parse_ok(cases[i].rule);
		if ((det_supp_match(s, acc) != NULL) != cases[i].match)
			fail_msg("%s: %s", cases[i].rule,
				 cases[i].match ? "no match" : "matched");
		det_supp_free(s);
	}
	/* Without the marks the access is bump's alone. */
	f[0].inlined = f[1].inlined = false;
	s = parse_ok("race:^late_path$");
	assert_null(det_supp_match(s, acc));
	det_supp_free(s);
}

/* race:FILE:LINE: the line, and FILE as the whole path or its end after
 * a '/'. */
static void file_line_on_a_path_boundary(void **state)
{
	db_frame f[] = {frame("store_left", "/src/demo/two-races.c", 28)};
	db_frame nofile[] = {frame("store_left", NULL, 28)};
	db_stack acc[2] = {{f, 1, false}, {NULL, 0, false}};
	db_stack acc_nofile[2] = {{nofile, 1, false}, {NULL, 0, false}};
	static const struct {
		const char *rule;
		bool match;
	} cases[] = {
	    {"race:two-races.c:28", true},
	    {"race:demo/two-races.c:28", true},
	    {"race:/src/demo/two-races.c:28", true},
	    {"race:races.c:28", false},	      /* not after a '/' */
	    {"race:o/two-races.c:28", false}, /* "demo", not "o" */
	    {"race:two-races.c:29", false},
	    {"race:two-races.c:2", false},
	    {"race:two-races:28", false},
	    {"race:/demo/two-races.c:28", true},
	    {"race:rc/demo/two-races.c:28", false},
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		det_supp *s = parse_ok(cases[i].rule);
		if ((det_supp_match(s, acc) != NULL) != cases[i].match)
			fail_msg("%s: %s", cases[i].rule,
				 cases[i].match ? "no match" : "matched");
		/* A frame without a file never matches FILE:LINE. */
		assert_null(det_supp_match(s, acc_nofile));
		det_supp_free(s);
	}
}

/* called_from: looks at frames #1 and up, by function name only. */
static void called_from_matches_callers_only(void **state)
{
	det_supp *s = parse_ok("called_from:^via_left$\n");
	db_frame a[] = {frame("via_left", "/src/t.c", 1),
			frame("worker", "/src/t.c", 2)};
	db_frame b[] = {frame("store_left", "/src/t.c", 3),
			frame("via_left", "/src/t.c", 4),
			frame("worker", "/src/t.c", 5)};
	db_frame c[] = {frame("store_left", "/src/via_left.c", 3),
			frame("via_left_too", "/src/t.c", 4)};
	db_stack top[2] = {{a, 2, false}, {a, 2, false}};
	db_stack caller[2] = {{NULL, 0, false}, {b, 3, false}};
	db_stack shallow[2] = {{b, 1, false}, {b, 1, false}};
	db_stack files[2] = {{c, 2, false}, {NULL, 0, false}};

	/* via_left as the access itself is not a caller. */
	assert_null(det_supp_match(s, top));
	assert_ptr_equal(det_supp_match(s, caller), &s->rule[0]);
	/* The same stack cut to its frame #0 has no caller. */
	assert_null(det_supp_match(s, shallow));
	/* Callers' files are not names; the anchors hold. */
	assert_null(det_supp_match(s, files));
	det_supp_free(s);

	s = parse_ok("called_from:work\n");
	assert_ptr_equal(det_supp_match(s, top), &s->rule[0]);
	det_supp_free(s);
}

/* The first rule in file order wins; hits count what the caller says
 * each suppressed. */
static void first_rule_wins_and_hits_count(void **state)
{
	det_supp *s = parse_ok("race:nothing_here\n"
			       "called_from:worker\n"
			       "race:store\n");
	det_supp *other = parse_ok("race:store\n");
	db_frame a[] = {frame("store_left", "/src/t.c", 3),
			frame("worker", "/src/t.c", 5)};
	db_frame b[] = {frame("store_right", "/src/t.c", 4)};
	db_stack both[2] = {{a, 2, false}, {NULL, 0, false}};
	db_stack top[2] = {{b, 1, false}, {NULL, 0, false}};
	const det_supp_rule *r;

	r = det_supp_match(s, both);
	assert_ptr_equal(r, &s->rule[1]);
	det_supp_hit(s, r);
	det_supp_hit(s, r);
	r = det_supp_match(s, top);
	assert_ptr_equal(r, &s->rule[2]);
	det_supp_hit(s, r);
	det_supp_hit(s, NULL);
	/* A rule of another set is not this set's. */
	det_supp_hit(s, &other->rule[0]);
	det_supp_hit(NULL, r);
	assert_int_equal(s->rule[0].hits, 0);
	assert_int_equal(s->rule[1].hits, 2);
	assert_int_equal(s->rule[2].hits, 1);
	assert_int_equal(other->rule[0].hits, 0);
	det_supp_free(s);
	det_supp_free(other);
}

/* A hit whose stack was not kept is matched by its site. */
static void hit_without_stack_uses_its_site(void **state)
{
	det_supp *s = parse_ok("race:t.c:9\ncalled_from:worker\n");
	db_frame a[] = {frame("store_left", "/src/t.c", 3),
			frame("worker", "/src/t.c", 5)};
	db_hit h = {0};

	h.site[0] = (db_site){1, 0, "store_left", "/src/t.c", 3, 4, 0};
	h.site[1] = (db_site){2, 0, "store_right", "/src/t.c", 9, 4, 0};
	assert_ptr_equal(det_supp_match_hit(s, &h), &s->rule[0]);
	h.site[1].line = 10;
	assert_null(det_supp_match_hit(s, &h));
	/* With a stack, its callers count too. */
	h.stack[0] = (db_stack){a, 2, false};
	assert_ptr_equal(det_supp_match_hit(s, &h), &s->rule[1]);
	/* A site without a function or file matches nothing. */
	h.stack[0] = (db_stack){NULL, 0, false};
	h.site[0].func = h.site[0].file = NULL;
	assert_null(det_supp_match_hit(s, &h));
	det_supp_free(s);
}

/* ---- loading ------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void load_named_default_and_devices(void **state)
{
	char dir[] = "/tmp/heisen-supp-XXXXXX", path[128], cwd[4096];
	det_supp *s = NULL;
	wasm_err e;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(dir), 0);

	/* No default file: no rules and no error. */
	assert_int_equal(det_supp_load(NULL, &s, &e), WASM_OK);
	assert_null(s);
	/* A named file must exist. */
	assert_int_equal(det_supp_load("missing", &s, &e), WASM_IO);
	assert_null(s);
	assert_non_null(strstr(e.msg, "missing: "));

	write_file(DET_SUPP_DEFAULT, "race:a\n\nmutex:m\n");
	assert_int_equal(det_supp_load(NULL, &s, &e), WASM_MALFORMED);
	assert_null(s);
	assert_non_null(strstr(e.msg, DET_SUPP_DEFAULT ":3: "));
	write_file(DET_SUPP_DEFAULT, "race:a\n");
	assert_int_equal(det_supp_load(NULL, &s, &e), WASM_OK);
	assert_int_equal(s->n, 1);
	assert_string_equal(s->path, DET_SUPP_DEFAULT);
	det_supp_free(s);

	snprintf(path, sizeof path, "%s/named", dir);
	write_file(path, "called_from:x\n");
	assert_int_equal(det_supp_load(path, &s, &e), WASM_OK);
	assert_string_equal(s->path, path);
	assert_int_equal(s->rule[0].type, DET_SUPP_CALLED_FROM);
	det_supp_free(s);

	/* /dev/null: a file without rules, to set the default aside. */
	assert_int_equal(det_supp_load("/dev/null", &s, &e), WASM_OK);
	assert_int_equal(s->n, 0);
	det_supp_free(s);
	assert_int_equal(det_supp_load(dir, &s, &e), WASM_IO);
	assert_non_null(strstr(e.msg, "is a directory"));

	/* Over the cap: refused before it is read. */
	assert_non_null(f = fopen(path, "w"));
	for (uint32_t i = 0; i <= DET_SUPP_MAX_BYTES / 8; i++)
		fputs("race:ab\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(det_supp_load(path, &s, &e), WASM_IO);
	assert_null(s);
	assert_non_null(strstr(e.msg, "at most"));

	/* The default file exists but cannot be read: an error, not "no
	 * file". (Root reads anything: only as another user.) */
	if (geteuid()) {
		assert_int_equal(chmod(DET_SUPP_DEFAULT, 0), 0);
		assert_int_equal(det_supp_load(NULL, &s, &e), WASM_IO);
	}
	unlink(DET_SUPP_DEFAULT);
	unlink(path);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Every allocation of a parse may fail: NOMEM, nothing left over (ASan
 * builds check the leaks), and a later one succeeds. */
static void failed_allocations_are_clean(void **state)
{
	static const char text[] = "race:a\nrace:b.c:3\ncalled_from:c\n"
				   "race:d\nrace:e\nrace:f\nrace:g\nrace:h\n"
				   "race:i\nrace:j\n";
	det_supp *s = NULL;
	wasm_status st = WASM_NOMEM;
	wasm_err e;
	long n;

	for (n = 0; st != WASM_OK && n < 1000; n++) {
		wasm_alloc_fail_after(n);
		st = det_supp_parse("rules", text, sizeof text - 1, &s, &e);
		wasm_alloc_fail_after(-1);
		assert_true(st == WASM_OK || st == WASM_NOMEM);
		if (st)
			assert_null(s);
	}
	assert_int_equal(st, WASM_OK);
	assert_int_equal(s->n, 10);
	assert_true(n > 5);
	det_supp_free(s);
}

/* ---- recorded bugs ------------------------------------------------------- */

typedef struct fixture {
	char dir[64], path[96];
	db *d;
	int64_t prog, camp[2];
} fixture;

static int64_t add_campaign(db *d, int64_t prog)
{
	uint32_t dens[] = {10000};
	db_campaign c = {
	    .program_id = prog,
	    .densities = "100",
	    .ndensity = 1,
	    .density_bp = dens,
	    .profiles = "default",
	    .runs = 4,
	    .jobs = 1,
	    .planned = 4,
	};
	wasm_err e;

	assert_int_equal(db_node_self(d, &c.node_id, &e), WASM_OK);
	assert_int_equal(db_campaign_new(d, &c, &e), WASM_OK);
	return c.id;
}

/* One run of campaign camp seeing the bug on sites (site, site) of
 * function func at /src/two.c:line, with stack st for its first access
 * (NULL: no stack kept). */
static void add_run(fixture *fx, int64_t camp, uint64_t idx, uint32_t site,
		    const char *func, uint32_t line, const db_stack *st)
{
	db_hit h = {0};
	db_run r = {
	    .campaign_id = camp,
	    .idx = idx,
	    .profile = "default",
	    .density_bp = 10000,
	    .status = "ok",
	    .nbugs = 1,
	};
	wasm_err e;

	for (int k = 0; k < 2; k++) {
		h.site[k] = (db_site){site, 1, func, "/src/two.c", line, 4, 0};
		h.tid[k] = (uint32_t)k + 1;
	}
	h.count = 1;
	if (st)
		h.stack[0] = *st;
	assert_int_equal(db_run_add(fx->d, &r, &h, 1, &e), WASM_OK);
}

static int setup_db(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	wasm_err e;
	db_frame left[] = {frame("store_left", "/src/two.c", 28),
			   frame("via_left", "/src/two.c", 36),
			   frame("worker", "/src/two.c", 50)};
	db_frame right[] = {frame("store_right", "/src/two.c", 33),
			    frame("via_right", "/src/two.c", 38),
			    frame("worker", "/src/two.c", 51)};
	db_frame right2[] = {frame("store_right", "/src/two.c", 33),
			     frame("elsewhere", "/src/two.c", 60)};
	db_stack sl = {left, 3, false}, sr = {right, 3, false},
		 sr2 = {right2, 2, false};

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/heisen-supp-db-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof fx->path, "%s/heisen.db", fx->dir);
	assert_int_equal(db_open(fx->path, &fx->d, &e), WASM_OK);
	assert_int_equal(db_program_put(fx->d, 0x77, "two.wasm", "/src/two",
					200, &fx->prog, &e),
			 WASM_OK);
	fx->camp[0] = add_campaign(fx->d, fx->prog);
	fx->camp[1] = add_campaign(fx->d, fx->prog);
	/* left (site 5): through via_left in both runs that kept stacks,
	 * and once without a stack. */
	add_run(fx, fx->camp[0], 0, 5, "store_left", 28, &sl);
	add_run(fx, fx->camp[0], 1, 5, "store_left", 28, &sl);
	add_run(fx, fx->camp[1], 0, 5, "store_left", 28, NULL);
	/* right (site 9): through via_right in campaign 0, elsewhere in
	 * campaign 1. */
	add_run(fx, fx->camp[0], 2, 9, "store_right", 33, &sr);
	add_run(fx, fx->camp[1], 1, 9, "store_right", 33, &sr2);
	/* bare (site 12): no run kept a stack. */
	add_run(fx, fx->camp[1], 2, 12, "store_bare", 40, NULL);
	*state = fx;
	return 0;
}

static int teardown_db(void **state)
{
	fixture *fx = *state;
	char cmd[128];

	db_close(fx->d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

/* The rule det_supp_match_bug finds for the bug on (site, site) over the
 * runs of campaign camp (0: all), as its number, 0 for none. */
static uint32_t judge(fixture *fx, const char *rules, uint32_t site,
		      int64_t camp)
{
	det_supp *s = parse_ok(rules);
	const det_supp_rule *r = (const det_supp_rule *)1;
	int64_t id = 0;
	db_bug b;
	wasm_err e;
	uint32_t n;

	assert_int_equal(db_bug_find(fx->d, fx->prog, site, site, &id, &e),
			 WASM_OK);
	assert_true(id > 0);
	assert_int_equal(db_bug_get(fx->d, id, &b, &e), WASM_OK);
	assert_int_equal(det_supp_match_bug(s, fx->d, &b, camp, &r, &e),
			 WASM_OK);
	n = r ? r->number : 0;
	db_bug_clear(&b);
	det_supp_free(s);
	return n;
}

static void bugs_judged_by_sites_and_every_stack(void **state)
{
	fixture *fx = *state;
	const det_supp_rule *r = (const det_supp_rule *)1;
	db_bug b = {0};
	wasm_err e;

	/* race: on the sites as stored: function, file, FILE:LINE. */
	assert_int_equal(judge(fx, "race:x\nrace:store_left\n", 5, 0), 2);
	assert_int_equal(judge(fx, "race:store_left\n", 9, 0), 0);
	assert_int_equal(judge(fx, "race:two.c:33\n", 9, 0), 1);
	assert_int_equal(judge(fx, "race:two.c:33\n", 5, 0), 0);
	assert_int_equal(judge(fx, "race:/src/two\n", 12, 0), 1);

	/* called_from: every run that kept stacks must match; a run
	 * without stacks is no evidence either way. */
	assert_int_equal(judge(fx, "called_from:via_left\n", 5, 0), 1);
	assert_int_equal(judge(fx, "called_from:via_left\n", 9, 0), 0);
	assert_int_equal(judge(fx, "called_from:via_right\n", 9, 0), 0);
	/* ... of the campaign asked about only. */
	assert_int_equal(judge(fx, "called_from:via_right\n", 9, fx->camp[0]),
			 1);
	assert_int_equal(judge(fx, "called_from:elsewhere\n", 9, fx->camp[1]),
			 1);
	/* Different rules for different runs: each run matches one. */
	assert_int_equal(
	    judge(fx, "called_from:elsewhere\ncalled_from:via_right\n", 9, 0),
	    2);
	assert_int_equal(judge(fx, "called_from:worker\n", 9, 0), 0);
	assert_int_equal(judge(fx, "called_from:worker\n", 5, 0), 1);
	/* No stack kept by any run: called_from: cannot suppress it. */
	assert_int_equal(judge(fx, "called_from:*\n", 12, 0), 0);
	/* A campaign without a run of the bug: nothing to judge. */
	assert_int_equal(judge(fx, "called_from:via_left\n", 5, fx->camp[1]),
			 0);

	/* No rules at all. */
	assert_int_equal(det_supp_match_bug(NULL, fx->d, &b, 0, &r, &e),
			 WASM_OK);
	assert_null(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(comments_blanks_and_whitespace),
	    cmocka_unit_test(malformed_lines_name_their_line),
	    cmocka_unit_test(template_matching_as_tsan),
	    cmocka_unit_test(race_matches_the_access_itself),
	    cmocka_unit_test(race_matches_through_inlined_frames),
	    cmocka_unit_test(file_line_on_a_path_boundary),
	    cmocka_unit_test(called_from_matches_callers_only),
	    cmocka_unit_test(first_rule_wins_and_hits_count),
	    cmocka_unit_test(hit_without_stack_uses_its_site),
	    cmocka_unit_test(load_named_default_and_devices),
	    cmocka_unit_test(failed_allocations_are_clean),
	    cmocka_unit_test_setup_teardown(
		bugs_judged_by_sites_and_every_stack, setup_db, teardown_db),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
