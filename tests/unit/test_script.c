/*
 * test_script.c - the script word splitter (quotes, escapes, comments,
 * ';', its errors) and tui_run_line's handling of commands and exit
 * codes, with a dispatcher that records what it was asked to run.
 *
 * The unit tests link core/ only, so the module under test is compiled
 * in here; tui_dispatch is the one thing it needs from the rest of tui/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tui/cli/script.c"

/* What the dispatcher saw: every command as its words joined by '|',
 * one per line. A command named "fail-N" returns N. */
static char seen[1024];
static tui_session *seen_session;

int tui_dispatch(int argc, char **argv, FILE *out, FILE *err)
{
	size_t n = strlen(seen);

	for (int i = 0; i < argc; i++)
		n += (size_t)snprintf(seen + n, sizeof seen - n, "%s%s",
				      i ? "|" : "", argv[i]);
	snprintf(seen + n, sizeof seen - n, "\n");
	assert_null(argv[argc]);
	seen_session = tui_current_session;
	if (!strncmp(argv[0], "fail-", 5))
		return atoi(argv[0] + 5);
	return TUI_EXIT_OK;
}

/* The words of the first command of line joined by '|', and where the
 * next one starts. */
static const char *split(const char *line, size_t *pos)
{
	static char buf[512];
	tui_words w;
	wasm_err e;
	size_t n = 0;

	assert_int_equal(tui_split_words(line, pos, &w, &e), WASM_OK);
	buf[0] = '\0';
	for (int i = 0; i < w.argc; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s",
				      i ? "|" : "", w.argv[i]);
	tui_words_free(&w);
	return buf;
}

static const char *split1(const char *line)
{
	size_t pos = 0;
	return split(line, &pos);
}

static void words_and_blanks(void **state)
{
	assert_string_equal(split1("sweep  a.wasm\t--runs 2 "),
			    "sweep|a.wasm|--runs|2");
	assert_string_equal(split1(""), "");
	assert_string_equal(split1("   \t "), "");
}

static void quotes(void **state)
{
	assert_string_equal(split1("run 'my prog.wasm' x"),
			    "run|my prog.wasm|x");
	/* Nothing is special inside single quotes. */
	assert_string_equal(split1("a '\\\" ; # $'"), "a|\\\" ; # $");
	assert_string_equal(split1("a \"x \\\" \\\\ \\$ \\n ; #\""),
			    "a|x \" \\ $ \\n ; #");
	/* Quoted parts join the word around them; '' is an empty word. */
	assert_string_equal(split1("a pre'mid dle'\"post\" '' b"),
			    "a|premid dlepost||b");
	assert_string_equal(split1("a 'it'\\''s'"), "a|it's");
}

static void backslash_outside_quotes(void **state)
{
	assert_string_equal(split1("a my\\ file \\; \\# \\'"),
			    "a|my file|;|#|'");
}

static void comments(void **state)
{
	assert_string_equal(split1("# all comment"), "");
	assert_string_equal(split1("bugs --json # list; them"), "bugs|--json");
	/* '#' inside a word is a character. */
	assert_string_equal(split1("a b#c"), "a|b#c");
}

static void semicolons_and_newlines(void **state)
{
	const char *line = "set db x;bugs ; ;\nversion # c; d\nhelp";
	size_t pos = 0;

	assert_string_equal(split(line, &pos), "set|db|x");
	assert_string_equal(split(line, &pos), "bugs");
	assert_string_equal(split(line, &pos), "");
	assert_string_equal(split(line, &pos), "");
	assert_string_equal(split(line, &pos), "version");
	assert_string_equal(split(line, &pos), "help");
	assert_int_equal(pos, strlen(line));
}

static void syntax_errors(void **state)
{
	static const struct {
		const char *line, *msg;
		size_t at;
	} cases[] = {
	    {"run 'a b", "unclosed quote (') at column 5", 4},
	    {"run \"a \\\"", "unclosed quote (\") at column 5", 4},
	    {"a; b \"x\" 'y", "unclosed quote (') at column 10", 9},
	    {"run a\\", "backslash at the end of the line at column 6", 5},
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t pos = 0;
		tui_words w;
		wasm_err e;
		wasm_status st;

		while (!(st = tui_split_words(cases[i].line, &pos, &w, &e)))
			tui_words_free(&w);
		assert_int_equal(st, WASM_MALFORMED);
		assert_string_equal(e.msg, cases[i].msg);
		assert_int_equal(e.offset, cases[i].at);
		assert_null(w.argv);
		assert_null(w.buf);
	}
}

static void run_line_runs_each_command(void **state)
{
	tui_session s;
	FILE *null = fopen("/dev/null", "w");

	assert_non_null(null);
	tui_session_init(&s);
	seen[0] = '\0';
	assert_int_equal(tui_run_line(&s, "a 1; ;b 'x y' # c", "t", null, null),
			 0);
	assert_string_equal(seen, "a|1\nb|x y\n");
	assert_ptr_equal(seen_session, &s);
	assert_null(tui_current_session);

	/* The first failure stops the line and gives its code... */
	seen[0] = '\0';
	assert_int_equal(tui_run_line(&s, "a; fail-1; fail-2", "t", null, null),
			 1);
	assert_string_equal(seen, "a\nfail-1\n");
	/* ...unless keep_going, but Ctrl-C (130) stops in any case. */
	s.keep_going = true;
	seen[0] = '\0';
	assert_int_equal(
	    tui_run_line(&s, "fail-3; fail-2; fail-130; z", "t", null, null),
	    3);
	assert_string_equal(seen, "fail-3\nfail-2\nfail-130\n");
	/* A syntax error anywhere runs nothing of the line. */
	seen[0] = '\0';
	assert_int_equal(tui_run_line(&s, "a; b 'c", "t", null, null), 2);
	assert_string_equal(seen, "");
	fclose(null);
}

static void run_line_names_the_location(void **state)
{
	tui_session s;
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	FILE *null = fopen("/dev/null", "w");

	assert_non_null(err);
	assert_non_null(null);
	tui_session_init(&s);
	tui_run_line(&s, "fail-2 x", "s.hz:3", null, err);
	tui_run_line(&s, "a \"b", "s.hz:4", null, err);
	fclose(err);
	assert_string_equal(text, "s.hz:3: command 'fail-2' failed (exit 2)\n"
				  "s.hz:4: unclosed quote (\") at column 3\n");
	free(text);
	fclose(null);
}

static void script_stops_at_the_failing_line(void **state)
{
	static const char script[] = "a\n\n# c\nfail-2\nb\n";
	tui_session s;
	FILE *in, *null = fopen("/dev/null", "w");

	assert_non_null(null);
	tui_session_init(&s);
	in = fmemopen((void *)script, sizeof script - 1, "r");
	assert_non_null(in);
	seen[0] = '\0';
	assert_int_equal(tui_run_script(&s, in, "s", null, null), 2);
	assert_string_equal(seen, "a\nfail-2\n");
	fclose(in);

	s.keep_going = true;
	in = fmemopen((void *)script, sizeof script - 1, "r");
	assert_non_null(in);
	seen[0] = '\0';
	assert_int_equal(tui_run_script(&s, in, "s", null, null), 2);
	assert_string_equal(seen, "a\nfail-2\nb\n");
	fclose(in);
	fclose(null);
}

static void set_and_unset(void **state)
{
	static const tui_cmd set = {"set", "[NAME VALUE]", "",	       "", 0,
				    2,	   NULL,	   tui_cmd_set};
	tui_session s;
	tui_args a = {.noperands = 2, .operands = {"db", "/tmp/a b.db"}};
	char *text = NULL;
	size_t len = 0;
	FILE *out, *null = fopen("/dev/null", "w");

	assert_non_null(null);
	tui_session_init(&s);
	/* Outside a session: refused. */
	assert_int_equal(tui_cmd_set(&set, &a, null, null), TUI_EXIT_USAGE);
	tui_current_session = &s;
	assert_int_equal(tui_cmd_set(&set, &a, null, null), 0);
	assert_string_equal(s.val[setting_index("db")], "/tmp/a b.db");
	a.operands[0] = "colour";
	assert_int_equal(tui_cmd_set(&set, &a, null, null), TUI_EXIT_USAGE);
	a.operands[0] = "seed";
	a.operands[1] = "7";
	assert_int_equal(tui_cmd_set(&set, &a, null, null), 0);
	/* `set` alone lists what a script line reads back. */
	out = open_memstream(&text, &len);
	assert_non_null(out);
	a.noperands = 0;
	assert_int_equal(tui_cmd_set(&set, &a, out, null), 0);
	fclose(out);
	assert_string_equal(text, "set db '/tmp/a b.db'\nset seed 7\n");
	free(text);
	a.noperands = 1;
	a.operands[0] = "db";
	assert_int_equal(tui_cmd_unset(&set, &a, null, null), 0);
	assert_null(s.val[setting_index("db")]);
	tui_current_session = NULL;
	tui_session_free(&s);
	fclose(null);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(words_and_blanks),
	    cmocka_unit_test(quotes),
	    cmocka_unit_test(backslash_outside_quotes),
	    cmocka_unit_test(comments),
	    cmocka_unit_test(semicolons_and_newlines),
	    cmocka_unit_test(syntax_errors),
	    cmocka_unit_test(run_line_runs_each_command),
	    cmocka_unit_test(run_line_names_the_location),
	    cmocka_unit_test(script_stops_at_the_failing_line),
	    cmocka_unit_test(set_and_unset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
