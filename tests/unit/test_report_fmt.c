/*
 * test_report_fmt.c - the encoders of --format (tui/report_fmt.h): XML
 * escaping of text and attributes, with what XML 1.0 cannot carry (control
 * characters, bad UTF-8, surrogates, U+FFFE) replaced; file URIs with RFC
 * 3986 percent-encoding, relative to a source root or absolute; and the
 * option checks (--format values, with --json, --source-root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tui/report/report_fmt.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FFFD "\xef\xbf\xbd"

/* tui_xml_text of n bytes of s, as a malloc'd string. */
static char *xml(const char *s, size_t n, bool attr)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	tui_xml_text(f, s, n, attr);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect_xml(const char *s, size_t n, bool attr, const char *want)
{
	char *got = xml(s, n, attr);

	assert_string_equal(got, want);
	free(got);
}

static void test_xml_markup(void **state)
{
	(void)state;
	expect_xml("a&b<c>d", 7, false, "a&amp;b&lt;c&gt;d");
	/* Quotes end only attribute values. */
	expect_xml("say \"hi\" 'x'", 12, false, "say \"hi\" 'x'");
	expect_xml("say \"hi\" 'x'", 12, true, "say &#34;hi&#34; 'x'");
	/* "]]>" cannot appear in character data as itself. */
	expect_xml("]]>", 3, false, "]]&gt;");
}

static void test_xml_whitespace(void **state)
{
	(void)state;
	expect_xml("a\tb\nc", 5, false, "a\tb\nc");
	expect_xml("a\tb\nc", 5, true, "a&#9;b&#10;c");
	expect_xml("a\r\n", 3, false, "a&#13;\n");
	expect_xml("a\r", 2, true, "a&#13;");
}

static void test_xml_forbidden(void **state)
{
	(void)state;
	/* C0 controls but tab and line breaks; NUL within n. */
	expect_xml("a\x01z\x1b", 4, false, "a" FFFD "z" FFFD);
	expect_xml("a\0b", 3, false, "a" FFFD "b");
	/* DEL is allowed in XML 1.0. */
	expect_xml("\x7f", 1, false, "\x7f");
	/* UTF-8: kept when valid, each bad byte replaced. */
	expect_xml("caf\xc3\xa9 \xf0\x9f\x98\x80", 10, false,
		   "caf\xc3\xa9 \xf0\x9f\x98\x80");
	expect_xml("\xff", 1, false, FFFD);
	expect_xml("\xc0\xaf", 2, false, FFFD FFFD);		/* overlong */
	expect_xml("\xe0\x80\xaf", 3, false, FFFD FFFD FFFD); /* overlong */
	expect_xml("\xed\xa0\x80", 3, false, FFFD FFFD FFFD); /* surrogate */
	expect_xml("\xef\xbf\xbe", 3, false, FFFD FFFD FFFD); /* U+FFFE */
	expect_xml("\xf4\x90\x80\x80", 4, false,
		   FFFD FFFD FFFD FFFD); /* beyond U+10FFFF */
	expect_xml("x\xe2\x82", 3, false, "x" FFFD FFFD); /* cut short */
	/* U+FFFD itself and the last characters allowed stay. */
	expect_xml(FFFD "\xef\xbf\xbd\xf4\x8f\xbf\xbf", 10, false,
		   FFFD FFFD "\xf4\x8f\xbf\xbf");
}

static void expect_uri(const char *path, const char *root, const char *want,
		       bool want_rel)
{
	bool rel = !want_rel;
	char *got = tui_file_uri(path, root, &rel);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(rel, want_rel);
	wasm_free(got);
}

static void test_uri_absolute(void **state)
{
	(void)state;
	expect_uri("/work/demos/lost-update.c", NULL,
		   "file:///work/demos/lost-update.c", false);
	/* Space, '%', '#', '?', brackets and non-ASCII bytes encoded. */
	expect_uri("/a b/c%d#e?f[1].c", NULL,
		   "file:///a%20b/c%25d%23e%3Ff%5B1%5D.c", false);
	expect_uri("/src/caf\xc3\xa9.c", NULL, "file:///src/caf%C3%A9.c",
		   false);
	/* What a path may hold as itself: sub-delims, ':' and '@'. */
	expect_uri("/x/a:b@c+d(e)!$&'*,;=~_.c", NULL,
		   "file:///x/a:b@c+d(e)!$&'*,;=~_.c", false);
	/* Control bytes and the backslash. */
	expect_uri("/x/\t\\y", NULL, "file:///x/%09%5Cy", false);
}

static void test_uri_root(void **state)
{
	(void)state;
	expect_uri("/work/heisen/demos/lost-update.c", "/work/heisen/",
		   "demos/lost-update.c", true);
	expect_uri("/work/my src/a b.c", "/work/my src/", "a%20b.c", true);
	/* A relative reference's segments must not look like a scheme. */
	expect_uri("/r/a:b.c", "/r/", "a%3Ab.c", true);
	/* Outside the root, a sibling sharing its prefix, the root
	 * itself: absolute. */
	expect_uri("/usr/include/stdio.h", "/work/heisen/",
		   "file:///usr/include/stdio.h", false);
	expect_uri("/work/heisen2/x.c", "/work/heisen/",
		   "file:///work/heisen2/x.c", false);
	expect_uri("/work/heisen/", "/work/heisen/", "file:///work/heisen/",
		   false);
	/* A path the compiler kept relative stays relative, no base. */
	expect_uri("demos/x.c", "/work/heisen/", "demos/x.c", false);
	expect_uri("demos/x.c", NULL, "demos/x.c", false);
}

/* tui_format_parse on `heisen CMD ARGS...`: its exit code, the format
 * and root into *f and *root (root freed by the caller). */
static int parse(const char *cmdname, const char *const *args, int n,
		 tui_format *f, char **root)
{
	const tui_cmd *cmd = tui_find_cmd(cmdname);
	char *argv[8];
	tui_args a;
	FILE *err = fopen("/dev/null", "w");
	int rc;

	assert_non_null(cmd);
	assert_non_null(err);
	for (int i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	assert_true(tui_parse_opts(cmd, n, argv, &a, err));
	rc = tui_format_parse(cmd, &a, f, root, err);
	fclose(err);
	return rc;
}

static void test_format_options(void **state)
{
	tui_format f;
	char *root = NULL;
	char cwd[PATH_MAX], want[PATH_MAX + 1];
	(void)state;

	assert_int_equal(parse("bugs", NULL, 0, &f, &root), TUI_EXIT_OK);
	assert_int_equal(f, TUI_FORMAT_TEXT);
	assert_null(root);
	assert_int_equal(
	    parse("check", (const char *[]){"x.wasm", "--format", "junit"}, 3,
		  &f, &root),
	    TUI_EXIT_OK);
	assert_int_equal(f, TUI_FORMAT_JUNIT);
	assert_int_equal(
	    parse("sweep", (const char *[]){"--format=jsonl"}, 1, &f, &root),
	    TUI_EXIT_OK);
	assert_int_equal(f, TUI_FORMAT_JSONL);
	assert_int_equal(
	    parse("bugs", (const char *[]){"--format", "xml"}, 2, &f, &root),
	    TUI_EXIT_USAGE);
	assert_int_equal(parse("bugs",
			       (const char *[]){"--format", "sarif", "--json"},
			       3, &f, &root),
			 TUI_EXIT_USAGE);
	/* --source-root: sarif only, an existing directory, kept as its
	 * real path with a trailing '/'. */
	assert_int_equal(parse("bugs",
			       (const char *[]){"--format", "junit",
						"--source-root", "."},
			       4, &f, &root),
			 TUI_EXIT_USAGE);
	assert_int_equal(parse("bugs",
			       (const char *[]){"--format", "sarif",
						"--source-root",
						"/nonexistent/heisen"},
			       4, &f, &root),
			 TUI_EXIT_USAGE);
	assert_null(root);
	assert_int_equal(parse("bugs",
			       (const char *[]){"--format", "sarif",
						"--source-root", "/dev/null"},
			       4, &f, &root),
			 TUI_EXIT_USAGE);
	assert_int_equal(parse("bugs",
			       (const char *[]){"--format", "sarif",
						"--source-root", "."},
			       4, &f, &root),
			 TUI_EXIT_OK);
	assert_non_null(getcwd(cwd, sizeof cwd));
	char *real = realpath(cwd, NULL);
	assert_non_null(real);
	snprintf(want, sizeof want, "%s%s", real,
		 strcmp(real, "/") ? "/" : "");
	free(real);
	assert_non_null(root);
	assert_string_equal(root, want);
	wasm_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xml_markup),
	    cmocka_unit_test(test_xml_whitespace),
	    cmocka_unit_test(test_xml_forbidden),
	    cmocka_unit_test(test_uri_absolute),
	    cmocka_unit_test(test_uri_root),
	    cmocka_unit_test(test_format_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
