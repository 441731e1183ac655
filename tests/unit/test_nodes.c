/*
 * test_nodes.c - the node registry (db/nodes.h): URLs split into user,
 * host, port and path; every hostile name or URL (shell metacharacters,
 * option-looking words, control bytes, bad ports, relative paths) refused
 * with a message that names the bad part; add, get, list and remove on a
 * workspace, with duplicate and unknown names refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "db/nodes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void url_ok(const char *url, const char *user, const char *host,
		   unsigned port, const char *path)
{
	db_node_url u;
	char msg[256] = "";

	if (!db_node_url_parse(url, &u, msg, sizeof msg))
		fail_msg("%s refused: %s", url, msg);
	assert_string_equal(u.user, user);
	assert_string_equal(u.host, host);
	assert_int_equal(u.port, port);
	assert_string_equal(u.path, path);
}

/* Refused, and the message holds want. */
static void url_bad(const char *url, const char *want)
{
	db_node_url u;
	char msg[256] = "";

	if (db_node_url_parse(url, &u, msg, sizeof msg))
		fail_msg("%s accepted", url);
	if (!strstr(msg, want))
		fail_msg("%s: message '%s' lacks '%s'", url, msg, want);
	/* A hostile byte never reaches the terminal through the message. */
	for (const char *p = msg; *p; p++)
		assert_true((unsigned char)*p >= 0x20);
}

static void test_url_parts(void **state)
{
	url_ok("ssh://me@pi.local:2222/home/me/heisen.db", "me", "pi.local",
	       2222, "/home/me/heisen.db");
	url_ok("ssh://box/w.db", "", "box", 0, "/w.db");
	url_ok("ssh://a_b-c.d:1/x/y_z-1.db", "", "a_b-c.d", 1, "/x/y_z-1.db");
	url_ok("ssh://u@10.0.0.2:65535/a", "u", "10.0.0.2", 65535, "/a");
}

static void test_url_hostile(void **state)
{
	url_bad("http://h/w.db", "ssh://");
	url_bad("h:/w.db", "ssh://");
	url_bad("SSH://h/w.db", "ssh://");
	url_bad("ssh://h", "no path");
	url_bad("ssh://h/", "no path");
	url_bad("ssh://h/dir/", "ends with '/'");
	url_bad("ssh:///w.db", "host of the URL is empty");
	url_bad("ssh://u@/w.db", "host of the URL is empty");
	url_bad("ssh://@h/w.db", "user before '@'");
	url_bad("ssh://h:0/w.db", "1 to 65535");
	url_bad("ssh://h:65536/w.db", "1 to 65535");
	url_bad("ssh://h:99999999999999999999/w.db", "1 to 65535");
	url_bad("ssh://h:-1/w.db", "1 to 65535");
	url_bad("ssh://h:x/w.db", "1 to 65535");
	url_bad("ssh://h:/w.db", "port after ':'");
	url_bad("ssh://[::1]/w.db", "IPv6");
	url_bad("ssh://a;rm -rf /x/w.db", "';'");
	url_bad("ssh://$(x)/w.db", "'$'");
	url_bad("ssh://-oProxyCommand=x/w.db", "host");
	url_bad("ssh://-p22/w.db", "starts with '-'");
	url_bad("ssh://-x@h/w.db", "starts with '-'");
	url_bad("ssh://u;x@h/w.db", "user");
	url_bad("ssh://h/w db", "a space");
	url_bad("ssh://h/w'.db", "'''");
	url_bad("ssh://h/w\".db", "'\"'");
	url_bad("ssh://h/a`id`", "'`'");
	url_bad("ssh://h/a\nb", "byte 0x0a");
	url_bad("ssh://h/a\tb", "byte 0x09");
	url_bad("ssh://h/~/w.db", "'~'");
	url_bad("ssh://h/$HOME", "'$'");
	url_bad("ssh://h/a\\b", "'\\'");
	url_bad("ssh://h/a\xc3\xa9", "byte 0xc3");
}

/* Slurm URLs: a login host or none (local sbatch), the options after
 * '?', written back the same way. */
static void test_url_slurm(void **state)
{
	db_node_url u;
	char msg[256] = "", buf[DB_NODE_URL_MAX];

	url_ok("slurm:///scratch/heisen", "", "", 0, "/scratch/heisen");
	url_ok("slurm://me@login:2222/shared/h", "me", "login", 2222,
	       "/shared/h");
	assert_true(db_node_url_parse(
	    "slurm:///s?partition=debug&account=lab-1&time=1:30:00&tasks=64",
	    &u, msg, sizeof msg));
	assert_true(u.slurm);
	assert_string_equal(u.partition, "debug");
	assert_string_equal(u.account, "lab-1");
	assert_string_equal(u.time, "1:30:00");
	assert_int_equal(u.tasks, 64);
	assert_true(db_node_url_format(&u, buf, sizeof buf));
	assert_string_equal(
	    buf,
	    "slurm:///s?partition=debug&account=lab-1&time=1:30:00&tasks=64");
	url_bad("slurm://", "no path");
	url_bad("slurm://u@/s", "host of the URL is empty");
	url_bad("slurm:///s/", "ends with '/'");
	url_bad("slurm:///s?partition=a;b", "';'");
	url_bad("slurm:///s?partition=-x", "starts with '-'");
	url_bad("slurm:///s?account=$(id)", "'$'");
	url_bad("slurm:///s?account=a b", "a space");
	url_bad("slurm:///s?time=1h", "time limit");
	url_bad("slurm:///s?tasks=0", "tasks");
	url_bad("slurm:///s?tasks=1000001", "tasks");
	url_bad("slurm:///s?nodes=2", "unknown Slurm option");
	url_bad("slurm:///s?partition", "key=value");
	url_bad("ssh://h/w.db?partition=x", "'?'");
	assert_false(
	    db_node_url_opt(&u, "partition", "--help", msg, sizeof msg));
	assert_non_null(strstr(msg, "starts with '-'"));
}

static void test_url_long(void **state)
{
	char url[DB_NODE_URL_MAX + 16];
	db_node_url u;
	char msg[256];

	strcpy(url, "ssh://h/");
	memset(url + 8, 'a', sizeof url - 9);
	url[sizeof url - 1] = 0;
	assert_false(db_node_url_parse(url, &u, msg, sizeof msg));
	assert_non_null(strstr(msg, "longer than"));
}

static void name_bad(const char *name)
{
	char msg[256];

	if (db_node_name_ok(name, msg, sizeof msg))
		fail_msg("name '%s' accepted", name);
}

static void test_names(void **state)
{
	char msg[256], name[DB_NODE_NAME_MAX + 2];

	assert_true(db_node_name_ok("pi", msg, sizeof msg));
	assert_true(db_node_name_ok("lab-box_2.a", msg, sizeof msg));
	memset(name, 'n', DB_NODE_NAME_MAX);
	name[DB_NODE_NAME_MAX] = 0;
	assert_true(db_node_name_ok(name, msg, sizeof msg));
	name[DB_NODE_NAME_MAX] = 'n';
	name[DB_NODE_NAME_MAX + 1] = 0;
	name_bad(name);
	name_bad("");
	name_bad("-oProxyCommand=x");
	name_bad("a;rm -rf /");
	name_bad("$(x)");
	name_bad("a b");
	name_bad("a'b");
	name_bad("a\"b");
	name_bad("a\nb");
	name_bad("a`id`");
	name_bad("a/b");
}

typedef struct fixture {
	char dir[64], path[96];
	db *d;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	wasm_err e;

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/heisen-nodes-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof fx->path, "%s/w.db", fx->dir);
	assert_int_equal(db_open(fx->path, &fx->d, &e), WASM_OK);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	char cmd[128];

	db_close(fx->d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

typedef struct seen {
	char names[4][16];
	int n;
} seen;

static bool collect(void *ctx, const db_remote *r)
{
	seen *s = ctx;

	assert_true(s->n < 4);
	snprintf(s->names[s->n++], sizeof s->names[0], "%s", r->name);
	return true;
}

static void test_registry(void **state)
{
	fixture *fx = *state;
	db_remote r;
	seen s = {0};
	wasm_err e;

	wasm_err_clear(&e);
	assert_int_equal(db_remote_add(fx->d, "pi", "ssh://pi/w.db", &e),
			 WASM_OK);
	assert_int_equal(db_remote_add(fx->d, "box", "ssh://box:22/w.db", &e),
			 WASM_OK);
	assert_int_equal(db_remote_add(fx->d, "pi", "ssh://other/w.db", &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "already has a node called pi"));

	assert_int_equal(db_remote_list(fx->d, collect, &s, &e), WASM_OK);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[0], "box"); /* by name */
	assert_string_equal(s.names[1], "pi");

	assert_int_equal(db_remote_get(fx->d, "pi", &r, &e), WASM_OK);
	assert_string_equal(r.url, "ssh://pi/w.db");
	assert_true(r.added > 1.6e9);
	assert_true(r.last_fetch == 0);
	assert_int_equal(r.runs_fetched, 0);
	assert_int_equal(r.cursor, 0);
	db_remote_clear(&r);
	assert_int_equal(db_remote_get(fx->d, "nope", &r, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "no node called nope"));

	assert_int_equal(db_remote_remove(fx->d, "pi", &e), WASM_OK);
	assert_int_equal(db_remote_remove(fx->d, "pi", &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "no node called pi"));
	s.n = 0;
	assert_int_equal(db_remote_list(fx->d, collect, &s, &e), WASM_OK);
	assert_int_equal(s.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_url_parts),
	    cmocka_unit_test(test_url_hostile),
	    cmocka_unit_test(test_url_long),
	    cmocka_unit_test(test_url_slurm),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test_setup_teardown(test_registry, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
