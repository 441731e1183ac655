/*
 * test_complete.c - tab completion against the real command table:
 * command names (first word, after ';'), options, settings, profiles,
 * file names in a scratch folder, bug, run and campaign ids from a
 * database made here, and that completion never creates a database.
 *
 * Linked with heisen's tui/ objects (see the Makefile's rule for it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "db/db.h"
#include "db/nodes.h"
#include "rewriter/instrument.h"
#include "tui/cli/cli.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[64];	 /* scratch folder of the file name tests */
static char dbdir[64];	 /* and of the database */
static char dbpath[128]; /* a database with 10 bugs and 2 campaigns */

static bool join(void *ctx, const char *cand)
{
	char *buf = ctx;
	size_t n = strlen(buf);

	snprintf(buf + n, 4096 - n, "%s%s", n ? " " : "", cand);
	return true;
}

/* The candidates for the word from start to the end of line, joined by
 * spaces. */
static const char *comp_at(tui_session *s, const char *line, size_t start)
{
	static char buf[4096];

	buf[0] = '\0';
	tui_complete(s, line, start, strlen(line), join, buf);
	return buf;
}

/* The same for the line's last word: after its last blank or ';', as
 * readline splits it. */
static const char *comp(tui_session *s, const char *line)
{
	size_t start = strlen(line);

	while (start && !strchr(" \t;", line[start - 1]))
		start--;
	return comp_at(s, line, start);
}

/* A line with the scratch folder's path in it: "%s" stands for it. Two
 * buffers in turn: a line and what it should give. */
static const char *with_tmp(const char *fmt)
{
	static char buf[2][512];
	static int i;

	i = !i;
	snprintf(buf[i], sizeof buf[i], fmt, tmp, tmp, tmp);
	return buf[i];
}

static void db_set(tui_session *s, const char *path)
{
	for (int i = 0; tui_settable[i].name; i++)
		if (!strcmp(tui_settable[i].name, "db")) {
			free(s->val[i]);
			s->val[i] = path ? strdup(path) : NULL;
		}
}

/* ---- command names --------------------------------------------------- */

/* What the table holds that starts with prefix, in strcmp order. */
static const char *table_names(const char *prefix)
{
	static char buf[4096];
	const char *v[128];
	int n = 0;

	for (const tui_cmd *c = tui_commands; c->name; c++)
		if (!strncmp(c->name, prefix, strlen(prefix)))
			v[n++] = c->name;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			const char *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		join(buf, v[i]);
	return buf;
}

/* Every command's options fit tui_args: sweep's grew past 24 when two
 * branches each added some, and the parser wrote past values[]. */
static void test_table_fits(void **state)
{
	(void)state;
	for (const tui_cmd *c = tui_commands; c->name; c++) {
		int n = 0;
		while (c->opts && c->opts[n].name)
			n++;
		if (n > TUI_MAX_OPTS)
			fail_msg("%s has %d options, tui_args holds %d", c->name,
				 n, TUI_MAX_OPTS);
	}
}

static void test_first_word(void **state)
{
	assert_string_equal(comp(NULL, "ver"), "version");
	assert_string_equal(comp(NULL, "  ver"), "version");
	assert_string_equal(comp(NULL, "s"), table_names("s"));
	assert_non_null(strstr(comp(NULL, "s"), "sweep"));
	assert_string_equal(comp(NULL, ""), table_names(""));
	assert_string_equal(comp(NULL, "nothing-like-it"), "");
}

static void test_after_separator(void **state)
{
	assert_string_equal(comp(NULL, "version; he"), "help");
	assert_string_equal(comp(NULL, "version;he"), "help");
	assert_string_equal(comp(NULL, "set db x.db; set jobs 2; vers"),
			    "version");
	/* A quoted ';' does not end the command: "ver" is help's second
	 * operand, and help has one. */
	assert_string_equal(comp(NULL, "help 'a;b' ver"), "");
	/* Inside a comment there is nothing to complete. */
	assert_string_equal(comp(NULL, "version # ver"), "");
	assert_string_equal(comp(NULL, "no-such-command --j"), "");
}

/* ---- options, settings, profiles --------------------------------------- */

static void test_options(void **state)
{
	assert_string_equal(comp(NULL, "sweep x.wasm --d"),
			    "--db --delay --densities --dir");
	assert_string_equal(comp(NULL, "sweep --re"), "--resume");
	assert_string_equal(comp(NULL, "sweep x.wasm --runs 4 --j"),
			    "--jobs --json");
	assert_string_equal(comp(NULL, "inspect -"), "--json");
	assert_string_equal(comp(NULL, "cc --pr"), "--print-cmd");
	assert_string_equal(comp(NULL, "cc -O2 -ms"), "-msimd128");
	/* After "--" the words are the program's. */
	assert_string_equal(comp(NULL, "sweep x.wasm -- --d"), "");
	/* An option's value is not an option. */
	assert_string_equal(comp(NULL, "sweep x.wasm --jobs --"), "");
	assert_string_equal(comp(NULL, "version --"), "");
	/* An optional value: its words after '=', and the word after the
	 * option is still an operand. */
	assert_string_equal(comp(NULL, "bugs --fail-on-bugs="),
			    "--fail-on-bugs=any --fail-on-bugs=new");
	assert_string_equal(comp(NULL, "triage 1 --fail"), "");
	assert_string_equal(comp(NULL, "sweep --fail-on-bugs --j"),
			    "--jobs --json");
	/* A value of words joined by '|'. */
	assert_string_equal(comp(NULL, "bugs --format "), "jsonl junit sarif");
	assert_string_equal(comp(NULL, "check x.wasm --format j"),
			    "jsonl junit");
}

static void test_help_and_set(void **state)
{
	assert_string_equal(comp(NULL, "help sw"), "sweep");
	assert_string_equal(comp(NULL, "help "), table_names(""));
	assert_string_equal(comp(NULL, "help sweep x"), "");
	assert_string_equal(comp(NULL, "set d"), "db delay densities");
	assert_string_equal(comp(NULL, "unset j"), "jobs");
	assert_string_equal(comp(NULL, "set jobs "), "");
	assert_string_equal(comp(NULL, "set profiles default,o"),
			    "default,one-core");
}

static void test_profiles(void **state)
{
	assert_string_equal(comp(NULL, "sweep x.wasm --profiles "),
			    "default noisy one-core throttled");
	assert_string_equal(comp(NULL, "sweep x.wasm --profiles noisy,t"),
			    "noisy,throttled");
	assert_string_equal(comp(NULL, "run x.wasm --density 5 --profile n"),
			    "noisy");
	assert_string_equal(comp(NULL, "run x.wasm --profile=o"),
			    "--profile=one-core");
	/* --densities takes a LIST too, but not of profiles. */
	assert_string_equal(comp(NULL, "sweep x.wasm --densities "), "");
}

/* ---- file names ---------------------------------------------------- */

static void test_files(void **state)
{
	char cwd[4096];

	assert_string_equal(comp(NULL, with_tmp("inspect %s/a")),
			    with_tmp("%s/a.wasm %s/ab.txt"));
	assert_string_equal(comp(NULL, with_tmp("inspect %s/s")),
			    with_tmp("%s/sub/"));
	assert_string_equal(comp(NULL, with_tmp("inspect %s/")),
			    with_tmp("%s/a.wasm %s/ab.txt %s/sub/"));
	assert_string_equal(comp(NULL, with_tmp("inspect %s/.h")),
			    with_tmp("%s/.hidden"));
	assert_string_equal(comp(NULL, with_tmp("inspect %s/sub/")),
			    with_tmp("%s/sub/in.wasm"));
	/* Option values named FILE, MASKFILE, OUT.wasm; --dir takes
	 * directories only. */
	assert_string_equal(comp(NULL, with_tmp("bugs --db %s/a")),
			    with_tmp("%s/a.wasm %s/ab.txt"));
	assert_string_equal(comp(NULL, with_tmp("bugs --db=%s/ab")),
			    with_tmp("--db=%s/ab.txt"));
	assert_string_equal(comp(NULL, with_tmp("run x.wasm --mask %s/ab")),
			    with_tmp("%s/ab.txt"));
	assert_string_equal(comp(NULL, with_tmp("instrument i.wasm -o %s/a.")),
			    with_tmp("%s/a.wasm"));
	assert_string_equal(comp(NULL, with_tmp("run x.wasm --dir %s/")),
			    with_tmp("%s/sub/"));
	assert_string_equal(comp(NULL, with_tmp("set db %s/a.")),
			    with_tmp("%s/a.wasm"));
	/* The program's arguments and cc's words are files too. */
	assert_string_equal(comp(NULL, with_tmp("sweep x.wasm -- %s/a.")),
			    with_tmp("%s/a.wasm"));
	assert_string_equal(comp(NULL, with_tmp("cc -O2 %s/a.")),
			    with_tmp("%s/a.wasm"));
	/* An operand the command does not take. */
	assert_string_equal(comp(NULL, with_tmp("inspect x.wasm %s/a.")), "");
	assert_string_equal(comp(NULL, "version x"), "");

	/* Relative to the current folder; a word opened by a quote. */
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmp), 0);
	assert_string_equal(comp(NULL, "validate a"), "a.wasm ab.txt");
	assert_string_equal(comp_at(NULL, "validate 'su", 10), "sub/");
	assert_string_equal(comp_at(NULL, "validate \"sub/i", 10),
			    "sub/in.wasm");
	assert_int_equal(chdir(cwd), 0);
}

/* A leading ~/ is $HOME, and stays in the candidates. */
static void test_home(void **state)
{
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	setenv("HOME", tmp, 1);
	assert_string_equal(comp(NULL, "inspect ~/a"), "~/a.wasm ~/ab.txt");
	assert_string_equal(comp(NULL, "inspect ~/sub/"), "~/sub/in.wasm");
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
}

/* ---- ids from the workspace ------------------------------------------- */

/* Ten bugs (ids 1..10, sites 2i and 2i+1) in run 1, of campaign 1;
 * campaign 2 has runs 2 and 3, without bugs. */
static void make_db(void)
{
	static const uint32_t dens[1] = {10000};
	db_campaign c = {0};
	db_run r = {0};
	db_hit hits[10];
	db *d;
	wasm_err e;
	int64_t node, prog;

	assert_int_equal(db_open(dbpath, &d, &e), WASM_OK);
	assert_int_equal(db_node_self(d, &node, &e), WASM_OK);
	assert_int_equal(db_program_put(d, 0x1234, "racy.wasm", "/x/racy.wasm",
					40, &prog, &e),
			 WASM_OK);
	c.program_id = prog;
	c.node_id = node;
	c.densities = "100";
	c.ndensity = 1;
	c.density_bp = (uint32_t *)dens;
	c.profiles = "default";
	c.runs = 1;
	c.jobs = 1;
	c.timeout_s = 10;
	c.status = "done";
	c.planned = 1;
	assert_int_equal(db_campaign_new(d, &c, &e), WASM_OK);
	for (uint32_t i = 0; i < 10; i++) {
		hits[i] = (db_hit){
		    .site = {{2 * i, RW_WRITE, "f", "racy.c", 1, 4},
			     {2 * i + 1, RW_READ, "g", "racy.c", 2, 4}},
		    .tid = {1, 2},
		    .count = 1,
		};
	}
	r.campaign_id = c.id;
	r.node_id = node;
	r.profile = "default";
	r.density_bp = 10000;
	r.status = "ok";
	r.msg = "";
	r.nbugs = 10;
	assert_int_equal(db_run_add(d, &r, hits, 10, &e), WASM_OK);
	assert_int_equal(db_campaign_new(d, &c, &e), WASM_OK);
	r.campaign_id = c.id;
	r.nbugs = 0;
	for (int i = 0; i < 2; i++) {
		r.idx = (uint64_t)i;
		assert_int_equal(db_run_add(d, &r, NULL, 0, &e), WASM_OK);
	}
	assert_int_equal(db_remote_add(d, "pi", "ssh://pi/w.db", &e), WASM_OK);
	assert_int_equal(db_remote_add(d, "box", "ssh://box/w.db", &e),
			 WASM_OK);
	db_close(d);
}

static void test_ids(void **state)
{
	tui_session s;
	char line[256];

	tui_session_init(&s);
	db_set(&s, dbpath);
	assert_string_equal(comp(&s, "show "), "1 2 3 4 5 6 7 8 9 10");
	assert_string_equal(comp(&s, "show 1"), "1 10");
	assert_string_equal(comp(&s, "runs "), "1 2");
	assert_string_equal(comp(&s, "runs 1 --bug 9"), "9");
	assert_string_equal(comp(&s, "sweep --resume "), "1 2");
	/* Runs: those of the newest campaign. */
	assert_string_equal(comp(&s, "rerun "), "2 3");
	assert_string_equal(comp(&s, "rerun 3"), "3");
	/* Nodes, where a command takes one. */
	assert_string_equal(comp(&s, "fetch "), "box pi");
	assert_string_equal(comp(&s, "fetch pi b"), "box");
	assert_string_equal(comp(&s, "node status p"), "pi");
	assert_string_equal(comp(&s, "node add p"), "");
	assert_string_equal(comp(&s, "dispatch p"), "pi");
	/* The line's --db wins over the session's. */
	db_set(&s, NULL);
	snprintf(line, sizeof line, "show --db %s 1", dbpath);
	assert_string_equal(comp(&s, line), "1 10");
	snprintf(line, sizeof line, "runs --db=%s ", dbpath);
	assert_string_equal(comp(&s, line), "1 2");
	/* $HEISEN_DB, as the commands read it. */
	setenv("HEISEN_DB", dbpath, 1);
	assert_string_equal(comp(NULL, "show 7"), "7");
	unsetenv("HEISEN_DB");
	tui_session_free(&s);
}

static void test_no_db_created(void **state)
{
	tui_session s;
	char missing[128], cwd[4096];
	struct stat st;

	snprintf(missing, sizeof missing, "%s/none.db", tmp);
	tui_session_init(&s);
	db_set(&s, missing);
	assert_string_equal(comp(&s, "show "), "");
	assert_string_equal(comp(&s, "runs "), "");
	assert_string_equal(comp(&s, "rerun "), "");
	assert_int_equal(stat(missing, &st), -1);
	tui_session_free(&s);

	/* The default ./heisen.db neither. */
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmp), 0);
	assert_string_equal(comp(NULL, "show "), "");
	assert_int_equal(stat("heisen.db", &st), -1);
	/* A file that is not a database gives nothing and stays as it
	 * was. */
	setenv("HEISEN_DB", "ab.txt", 1);
	assert_string_equal(comp(NULL, "show "), "");
	unsetenv("HEISEN_DB");
	assert_int_equal(stat("ab.txt", &st), 0);
	assert_int_equal(st.st_size, 5);
	assert_int_equal(chdir(cwd), 0);
}

static bool first_only(void *ctx, const char *cand)
{
	int *n = ctx;
	(*n)++;
	return false;
}

static void test_stop(void **state)
{
	int n = 0;

	tui_complete(NULL, "s", 0, 1, first_only, &n);
	assert_int_equal(n, 1);
}

static void touch(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tmp, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char sub[128];

	unsetenv("HEISEN_DB");
	snprintf(tmp, sizeof tmp, "/tmp/heisen-complete-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(sub, sizeof sub, "%s/sub", tmp);
	if (mkdir(sub, 0700))
		return -1;
	touch("a.wasm", "");
	touch("ab.txt", "text\n");
	touch(".hidden", "");
	touch("sub/in.wasm", "");
	snprintf(dbdir, sizeof dbdir, "/tmp/heisen-complete-db-XXXXXX");
	if (!mkdtemp(dbdir))
		return -1;
	snprintf(dbpath, sizeof dbpath, "%s/w.db", dbdir);
	make_db();
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	return nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS) |
	       nftw(dbdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_fits),
	    cmocka_unit_test(test_first_word),
	    cmocka_unit_test(test_after_separator),
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_help_and_set),
	    cmocka_unit_test(test_profiles),
	    cmocka_unit_test(test_files),
	    cmocka_unit_test(test_home),
	    cmocka_unit_test(test_ids),
	    cmocka_unit_test(test_no_db_created),
	    cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
