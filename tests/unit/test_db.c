/*
 * test_db.c - the workspace database: schema creation and versioning,
 * round trips of every stored struct, bug identity across runs, the
 * counting queries (campaign counters, K out of N per cell), lookups by
 * id, hash and name, batches, and the files db_open must refuse without
 * touching them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "db/db.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fixture {
	char dir[64];
	char path[96];
	db *d;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/heisen-db-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof fx->path, "%s/heisen.db", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	char cmd[128];

	db_close(fx->d);
	chmod(fx->dir, 0700);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

static void open_ok(fixture *fx)
{
	wasm_err e;
	wasm_err_clear(&e);
	assert_int_equal(db_open(fx->path, &fx->d, &e), WASM_OK);
}

/* Run SQL on the file directly, behind heisen's back. */
static void raw_sql(const char *path, const char *sql)
{
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

static int64_t raw_int(const char *path, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *s;
	int64_t v;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(h);
	return v;
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void path_chooses_flag_then_env_then_default(void **state)
{
	(void)state;
	setenv("HEISEN_DB", "/x/env.db", 1);
	assert_string_equal(db_path_choose("flag.db"), "flag.db");
	assert_string_equal(db_path_choose(NULL), "/x/env.db");
	setenv("HEISEN_DB", "", 1);
	assert_string_equal(db_path_choose(NULL), "heisen.db");
	unsetenv("HEISEN_DB");
	assert_string_equal(db_path_choose(NULL), "heisen.db");
}

static void create_then_reopen_keeps_schema(void **state)
{
	fixture *fx = *state;
	int64_t node, again;
	wasm_err e;

	open_ok(fx);
	assert_int_equal(db_node_self(fx->d, &node, &e), WASM_OK);
	assert_true(node > 0);
	assert_int_equal(db_check(fx->d, &e), WASM_OK);
	db_close(fx->d);
	fx->d = NULL;
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"),
			 DB_SCHEMA_VERSION);
	open_ok(fx);
	assert_int_equal(db_node_self(fx->d, &again, &e), WASM_OK);
	assert_int_equal(again, node);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM nodes"), 1);
}

static void empty_file_is_initialised(void **state)
{
	fixture *fx = *state;

	write_bytes(fx->path, "", 0);
	open_ok(fx);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"),
			 DB_SCHEMA_VERSION);
}

static void garbage_file_is_refused_untouched(void **state)
{
	fixture *fx = *state;
	static const char junk[] = "this is my thesis, please do not eat it\n"
				   "................................"
				   "................................";
	char back[sizeof junk];
	char wal[128];
	FILE *f;
	wasm_err e;

	write_bytes(fx->path, junk, sizeof junk);
	assert_int_equal(db_open(fx->path, &fx->d, &e), WASM_MALFORMED);
	assert_null(fx->d);
	assert_non_null(strstr(e.msg, "not a heisen database"));
	assert_non_null(strstr(e.msg, fx->path));
	f = fopen(fx->path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(back, 1, sizeof back, f), sizeof junk);
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	assert_memory_equal(back, junk, sizeof junk);
	snprintf(wal, sizeof wal, "%s-wal", fx->path);
	assert_int_not_equal(access(wal, F_OK), 0);
}

static void newer_schema_is_refused(void **state)
{
	fixture *fx = *state;
	wasm_err e;

	raw_sql(fx->path, "CREATE TABLE t(x); PRAGMA user_version=99;");
	assert_int_equal(db_open(fx->path, &fx->d, &e), WASM_MALFORMED);
	assert_non_null(strstr(e.msg, "newer heisen"));
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), 99);
}

static void other_programs_database_is_refused(void **state)
{
	fixture *fx = *state;
	wasm_err e;

	raw_sql(fx->path, "CREATE TABLE contacts(name TEXT);");
	assert_int_equal(db_open(fx->path, &fx->d, &e), WASM_MALFORMED);
	assert_non_null(strstr(e.msg, "another program"));
	assert_int_equal(
	    raw_int(fx->path, "SELECT count(*) FROM sqlite_schema"), 1);
}

static void missing_directory_is_an_io_error(void **state)
{
	fixture *fx = *state;
	char p[128];
	wasm_err e;

	snprintf(p, sizeof p, "%s/nowhere/heisen.db", fx->dir);
	assert_int_equal(db_open(p, &fx->d, &e), WASM_IO);
	assert_non_null(strstr(e.msg, "nowhere"));
	assert_non_null(strstr(e.msg, "--db"));
}

static void unwritable_directory_is_an_io_error(void **state)
{
	fixture *fx = *state;
	wasm_err e;

	if (geteuid() == 0) {
		print_message("skipped: root ignores directory permissions\n");
		skip();
	}
	assert_int_equal(chmod(fx->dir, 0500), 0);
	assert_int_equal(db_open(fx->path, &fx->d, &e), WASM_IO);
	assert_non_null(strstr(e.msg, "permission"));
}

/* ---- content ------------------------------------------------------------- */

static int64_t add_program(db *d, uint64_t hash, const char *name)
{
	int64_t id;
	wasm_err e;
	assert_int_equal(db_program_put(d, hash, name, "/src/x", 40, &id, &e),
			 WASM_OK);
	return id;
}

static int64_t add_campaign(db *d, int64_t program, const char *profiles)
{
	uint32_t dens[] = {100, 500};
	db_campaign c = {
	    .program_id = program,
	    .densities = "1,5",
	    .ndensity = 2,
	    .density_bp = dens,
	    .profiles = (char *)profiles,
	    .runs = 2,
	    .jobs = 1,
	    .seed = 7,
	    .planned = 8,
	};
	wasm_err e;

	assert_int_equal(db_node_self(d, &c.node_id, &e), WASM_OK);
	assert_int_equal(db_campaign_new(d, &c, &e), WASM_OK);
	assert_true(c.id > 0);
	return c.id;
}

static void readonly_database_still_reads(void **state)
{
	fixture *fx = *state;
	int64_t camp;
	db_campaign c;
	wasm_err e;

	if (geteuid() == 0) {
		print_message("skipped: root ignores file permissions\n");
		skip();
	}
	open_ok(fx);
	camp = add_campaign(fx->d, add_program(fx->d, 5, "p.wasm"), "uniform");
	db_close(fx->d);
	assert_int_equal(chmod(fx->path, 0444), 0);
	assert_int_equal(chmod(fx->dir, 0555), 0);
	open_ok(fx);
	assert_int_equal(db_campaign_get(fx->d, camp, &c, &e), WASM_OK);
	assert_string_equal(c.program, "p.wasm");
	assert_int_equal(db_campaign_new(fx->d, &c, &e), WASM_IO);
	assert_non_null(strstr(e.msg, "cannot write"));
	db_campaign_clear(&c);
}

static void campaign_round_trip(void **state)
{
	fixture *fx = *state;
	uint32_t dens[] = {500, 1000, 1500, 10000};
	uint32_t pruned[] = {3, 9, 4000000000u};
	char args[] = "in.txt\0-v w\0"; /* "in.txt", "-v w", "" */
	uint8_t input[] = {'4', '2', 0, '\n'};
	db_campaign c = {0}, got;
	wasm_err e;

	open_ok(fx);
	c.program_id = add_program(fx->d, 0xfedcba9876543210ull, "p.wasm");
	assert_int_equal(db_node_self(fx->d, &c.node_id, &e), WASM_OK);
	c.densities = "5:100:5";
	c.ndensity = 4;
	c.density_bp = dens;
	c.profiles = "uniform,bursty";
	c.budget_s = 2.5;
	c.jobs = 3;
	c.seed = 0xFFFFFFFFFFFFFFFFull;
	c.delay = 17;
	c.timeout_s = 10;
	c.prune = true;
	c.npruned = 3;
	c.pruned = pruned;
	c.args = args;
	c.nargs = 3;
	c.status = "running";
	c.planned = 0x8000000000000001ull;
	c.input = input;
	c.ninput = sizeof input;
	c.input_hash = "0123456789abcdef";
	assert_int_equal(db_campaign_new(fx->d, &c, &e), WASM_OK);

	assert_int_equal(db_campaign_get(fx->d, c.id, &got, &e), WASM_OK);
	assert_int_equal(got.ninput, sizeof input);
	assert_memory_equal(got.input, input, sizeof input);
	assert_string_equal(got.input_hash, "0123456789abcdef");
	assert_int_equal(got.id, c.id);
	assert_int_equal(got.program_id, c.program_id);
	assert_int_equal(got.node_id, c.node_id);
	assert_true(got.created == c.created);
	assert_string_equal(got.program, "p.wasm");
	assert_string_equal(got.densities, "5:100:5");
	assert_int_equal(got.ndensity, 4);
	assert_memory_equal(got.density_bp, dens, sizeof dens);
	assert_string_equal(got.profiles, "uniform,bursty");
	assert_true(got.budget_s == 2.5);
	assert_int_equal(got.jobs, 3);
	assert_true(got.seed == 0xFFFFFFFFFFFFFFFFull);
	assert_int_equal(got.delay, 17);
	assert_true(got.timeout_s == 10);
	assert_true(got.prune);
	assert_int_equal(got.npruned, 3);
	assert_memory_equal(got.pruned, pruned, sizeof pruned);
	assert_int_equal(got.nargs, 3);
	assert_memory_equal(got.args, args, sizeof args);
	assert_string_equal(got.status, "running");
	assert_true(got.planned == 0x8000000000000001ull);
	assert_int_equal(got.done, 0);
	assert_int_equal(got.bugs, 0);
	assert_int_equal(got.cells, 0);
	db_campaign_clear(&got);

	assert_int_equal(db_campaign_set_status(fx->d, c.id, "done", &e),
			 WASM_OK);
	assert_int_equal(db_campaign_get(fx->d, c.id, &got, &e), WASM_OK);
	assert_string_equal(got.status, "done");
	db_campaign_clear(&got);

	/* Without --stdin: no hash, no bytes (an empty stdin). */
	c.input = NULL;
	c.ninput = 0;
	c.input_hash = NULL;
	assert_int_equal(db_campaign_new(fx->d, &c, &e), WASM_OK);
	assert_int_equal(db_campaign_get(fx->d, c.id, &got, &e), WASM_OK);
	assert_null(got.input_hash);
	assert_null(got.input);
	assert_int_equal(got.ninput, 0);
	db_campaign_clear(&got);

	assert_int_equal(db_campaign_get(fx->d, 12, &got, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "no campaign 12 in"));
	assert_int_equal(db_campaign_set_status(fx->d, 12, "done", &e),
			 WASM_INVALID);
}

/* A campaign whose sweep process is gone reads as interrupted; one whose
 * sweep is alive stays running, and stopping it clears the sweep. */
static void campaign_of_a_dead_sweep_is_interrupted(void **state)
{
	fixture *fx = *state;
	db_campaign c = {0}, got;
	wasm_err e;
	pid_t pid;
	int ws;

	open_ok(fx);
	c.program_id = add_program(fx->d, 0x1234ull, "p.wasm");
	c.densities = "50";
	c.profiles = "default";
	c.status = "stopped";
	assert_int_equal(db_campaign_new(fx->d, &c, &e), WASM_OK);

	/* A sweep in another process marks it running, then dies. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		db *d2;
		_exit(db_open(fx->path, &d2, &e) ||
		      db_campaign_set_status(d2, c.id, "running", &e));
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	assert_int_equal(db_campaign_get(fx->d, c.id, &got, &e), WASM_OK);
	assert_string_equal(got.status, "interrupted");
	assert_int_equal(got.owner_pid, pid);
	assert_false(got.owner_remote);
	db_campaign_clear(&got);

	/* The same mark by a live process (this one) is running. */
	assert_int_equal(db_campaign_set_status(fx->d, c.id, "running", &e),
			 WASM_OK);
	assert_int_equal(db_campaign_get(fx->d, c.id, &got, &e), WASM_OK);
	assert_string_equal(got.status, "running");
	assert_int_equal(got.owner_pid, getpid());
	db_campaign_clear(&got);

	/* Another machine's sweep cannot be checked: running. */
	raw_sql(fx->path, "UPDATE campaigns SET owner = 'elsewhere - 1 1'");
	assert_int_equal(db_campaign_get(fx->d, c.id, &got, &e), WASM_OK);
	assert_string_equal(got.status, "running");
	assert_true(got.owner_remote);
	db_campaign_clear(&got);

	/* A running mark without a sweep (before schema 3): interrupted. */
	raw_sql(fx->path, "UPDATE campaigns SET owner = NULL");
	assert_int_equal(db_campaign_get(fx->d, c.id, &got, &e), WASM_OK);
	assert_string_equal(got.status, "interrupted");
	db_campaign_clear(&got);

	assert_int_equal(db_campaign_set_status(fx->d, c.id, "stopped", &e),
			 WASM_OK);
	assert_int_equal(
	    raw_int(fx->path, "SELECT owner IS NULL FROM campaigns"), 1);
}

typedef struct ids {
	int64_t v[16];
	int n;
} ids;

static bool collect_campaign(void *ctx, const db_campaign *c)
{
	ids *l = ctx;
	l->v[l->n++] = c->id;
	return true;
}

static bool collect_idx(void *ctx, uint64_t idx)
{
	ids *l = ctx;
	l->v[l->n++] = (int64_t)idx;
	return true;
}

static bool collect_run(void *ctx, const db_run *r)
{
	ids *l = ctx;
	l->v[l->n++] = r->id;
	return true;
}

static bool collect_bug(void *ctx, const db_bug *b)
{
	ids *l = ctx;
	l->v[l->n++] = b->id;
	l->v[l->n++] = (int64_t)b->runs;
	return true;
}

static bool first_only(void *ctx, const db_campaign *c)
{
	ids *l = ctx;
	l->v[l->n++] = c->id;
	return false;
}

static void campaigns_list_newest_first(void **state)
{
	fixture *fx = *state;
	int64_t p, a, b;
	ids l = {0};
	wasm_err e;

	open_ok(fx);
	p = add_program(fx->d, 1, "p.wasm");
	a = add_campaign(fx->d, p, "uniform");
	b = add_campaign(fx->d, p, "uniform");
	assert_int_equal(db_campaign_list(fx->d, collect_campaign, &l, &e),
			 WASM_OK);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0], b);
	assert_int_equal(l.v[1], a);
	l.n = 0;
	assert_int_equal(db_campaign_list(fx->d, first_only, &l, &e), WASM_OK);
	assert_int_equal(l.n, 1);
}

/* A site pair; `lo` and `hi` are site ids. */
static db_hit hit(uint32_t lo, uint32_t hi, uint32_t tid)
{
	db_hit h = {
	    .site = {{lo, 1, "writer", "race.c", 10 + lo, 4},
		     {hi, 2, "reader", "race.c", 10 + hi, 4}},
	    .tid = {tid, tid + 1},
	    .addr = {0x1000 + lo, 0x1000 + hi},
	    .count = 2,
	};
	return h;
}

static int64_t add_run(db *d, int64_t camp, uint64_t idx, const char *prof,
		       uint32_t bp, double started, const db_hit *hits,
		       uint32_t nhits)
{
	db_run r = {
	    .campaign_id = camp,
	    .idx = idx,
	    .profile = (char *)prof,
	    .density_bp = bp,
	    .seed = 0xFFFFFFFF00000000ull | idx,
	    .started = started,
	    .duration_us = 1234,
	    .status = nhits ? "race" : "ok",
	    .nbugs = nhits,
	};
	wasm_err e;

	assert_int_equal(db_run_add(d, &r, hits, nhits, &e), WASM_OK);
	assert_true(r.id > 0);
	return r.id;
}

typedef struct cells {
	char profile[4][16];
	uint32_t bp[4];
	uint64_t k[4], n[4];
	int count;
} cells;

static bool collect_cell(void *ctx, const db_cell *c)
{
	cells *l = ctx;
	assert_true(l->count < 4);
	assert_true(c->node_id > 0);
	assert_non_null(c->node);
	snprintf(l->profile[l->count], 16, "%s", c->profile);
	l->bp[l->count] = c->density_bp;
	l->k[l->count] = c->k;
	l->n[l->count] = c->n;
	l->count++;
	return true;
}

static bool collect_run_bug(void *ctx, const db_run_bug *rb)
{
	db_run_bug *out = ctx;
	for (; out->bug_id; out++)
		;
	*out = *rb;
	return true;
}

static void runs_bugs_and_counts(void **state)
{
	fixture *fx = *state;
	db_hit ab = hit(3, 8, 1), cd = hit(20, 21, 5), ba = hit(8, 3, 2);
	db_hit both[2] = {ab, cd};
	int64_t p, other, c1, c2, r[6], bug_ab, bug_cd;
	db_run_bug rbs[4] = {{0}};
	db_campaign c;
	db_bug b;
	db_run run;
	cells cl = {0};
	ids l = {0};
	wasm_err e;

	open_ok(fx);
	p = add_program(fx->d, 0x1111, "race.wasm");
	other = add_program(fx->d, 0x2222, "other.wasm");
	c1 = add_campaign(fx->d, p, "uniform,bursty");
	c2 = add_campaign(fx->d, p, "uniform");
	/* Plan order differs from insertion order, as with --jobs. */
	r[0] = add_run(fx->d, c1, 2, "uniform", 100, 1000.0, &ab, 1);
	r[1] = add_run(fx->d, c1, 0, "uniform", 100, 1001.0, NULL, 0);
	r[2] = add_run(fx->d, c1, 1, "uniform", 100, 1002.0, both, 2);
	r[3] = add_run(fx->d, c1, 3, "bursty", 500, 1003.0, &cd, 1);
	r[4] = add_run(fx->d, c2, 0, "uniform", 100, 1004.0, &ba, 1);
	/* The same sites in another program are another bug. */
	r[5] = add_run(fx->d, add_campaign(fx->d, other, "uniform"), 0,
		       "uniform", 100, 1005.0, &ab, 1);

	assert_int_equal(db_bug_list(fx->d, p, collect_bug, &l, &e), WASM_OK);
	assert_int_equal(l.n, 4);
	bug_ab = l.v[0];
	bug_cd = l.v[2];
	assert_int_equal(l.v[1], 3);
	assert_int_equal(l.v[3], 2);
	l.n = 0;
	assert_int_equal(db_bug_list(fx->d, 0, collect_bug, &l, &e), WASM_OK);
	assert_int_equal(l.n, 6);

	assert_int_equal(db_bug_get(fx->d, bug_ab, &b, &e), WASM_OK);
	assert_string_equal(b.program, "race.wasm");
	assert_int_equal(b.program_id, p);
	assert_int_equal(b.site[0].id, 3);
	assert_int_equal(b.site[1].id, 8);
	assert_int_equal(b.site[0].kind, 1);
	assert_string_equal(b.site[0].func, "writer");
	assert_string_equal(b.site[1].file, "race.c");
	assert_int_equal(b.site[1].line, 18);
	assert_int_equal(b.runs, 3);
	assert_int_equal(b.first_run, r[0]);
	assert_true(b.first_seen == 1000.0);
	db_bug_clear(&b);
	assert_int_equal(db_bug_get(fx->d, 999, &b, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "no bug 999"));

	/* K of N per cell: uniform/100 ran 4 times in this program's
	 * campaigns, the other program's run does not count. */
	assert_int_equal(db_bug_cells(fx->d, bug_ab, collect_cell, &cl, &e),
			 WASM_OK);
	assert_int_equal(cl.count, 2);
	assert_string_equal(cl.profile[0], "bursty");
	assert_int_equal(cl.bp[0], 500);
	assert_int_equal(cl.k[0], 0);
	assert_int_equal(cl.n[0], 1);
	assert_string_equal(cl.profile[1], "uniform");
	assert_int_equal(cl.bp[1], 100);
	assert_int_equal(cl.k[1], 3);
	assert_int_equal(cl.n[1], 4);
	memset(&cl, 0, sizeof cl);
	assert_int_equal(db_bug_cells(fx->d, bug_cd, collect_cell, &cl, &e),
			 WASM_OK);
	assert_int_equal(cl.count, 2);
	assert_int_equal(cl.k[0], 1);
	assert_int_equal(cl.n[0], 1);
	assert_int_equal(cl.k[1], 1);
	assert_int_equal(cl.n[1], 4);

	assert_int_equal(db_campaign_get(fx->d, c1, &c, &e), WASM_OK);
	assert_int_equal(c.done, 4);
	assert_int_equal(c.bugs, 2);
	assert_int_equal(c.cells, 2);
	db_campaign_clear(&c);

	l.n = 0;
	assert_int_equal(db_run_list(fx->d, c1, 0, collect_run, &l, &e),
			 WASM_OK);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.v[0], r[1]);
	assert_int_equal(l.v[1], r[2]);
	assert_int_equal(l.v[2], r[0]);
	assert_int_equal(l.v[3], r[3]);
	l.n = 0;
	assert_int_equal(db_run_list(fx->d, 0, bug_ab, collect_run, &l, &e),
			 WASM_OK);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.v[0], r[0]);
	assert_int_equal(l.v[1], r[2]);
	assert_int_equal(l.v[2], r[4]);
	l.n = 0;
	assert_int_equal(db_run_list(fx->d, c2, bug_ab, collect_run, &l, &e),
			 WASM_OK);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0], r[4]);
	assert_int_equal(db_run_list(fx->d, 77, 0, collect_run, &l, &e),
			 WASM_INVALID);

	l.n = 0;
	assert_int_equal(db_campaign_done(fx->d, c1, collect_idx, &l, &e),
			 WASM_OK);
	assert_int_equal(l.n, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(l.v[i], i);

	assert_int_equal(db_run_bugs(fx->d, r[2], collect_run_bug, rbs, &e),
			 WASM_OK);
	assert_int_equal(rbs[0].bug_id, bug_ab);
	assert_int_equal(rbs[0].tid[0], 1);
	assert_int_equal(rbs[0].tid[1], 2);
	assert_int_equal(rbs[0].addr[1], 0x1008);
	assert_int_equal(rbs[0].count, 2);
	assert_int_equal(rbs[1].bug_id, bug_cd);
	assert_int_equal(rbs[2].bug_id, 0);
	/* ba named the sites the other way round: its threads follow. */
	memset(rbs, 0, sizeof rbs);
	assert_int_equal(db_run_bugs(fx->d, r[4], collect_run_bug, rbs, &e),
			 WASM_OK);
	assert_int_equal(rbs[0].bug_id, bug_ab);
	assert_int_equal(rbs[0].tid[0], 3);
	assert_int_equal(rbs[0].tid[1], 2);

	assert_int_equal(db_run_get(fx->d, r[3], &run, &e), WASM_OK);
	assert_int_equal(run.campaign_id, c1);
	assert_true(run.node_id > 0);
	assert_int_equal(run.idx, 3);
	assert_string_equal(run.profile, "bursty");
	assert_int_equal(run.density_bp, 500);
	assert_true(run.seed == (0xFFFFFFFF00000000ull | 3));
	assert_true(run.started == 1003.0);
	assert_int_equal(run.duration_us, 1234);
	assert_string_equal(run.status, "race");
	assert_null(run.msg);
	assert_int_equal(run.nbugs, 1);
	db_run_clear(&run);

	/* A plan index is recorded once; the failed call leaves nothing. */
	db_run dup = {.campaign_id = c1, .idx = 1, .profile = "uniform"};
	assert_int_equal(db_run_add(fx->d, &dup, &cd, 1, &e), WASM_INVALID);
	assert_int_equal(db_check(fx->d, &e), WASM_OK);
	assert_int_equal(db_campaign_get(fx->d, c1, &c, &e), WASM_OK);
	assert_int_equal(c.done, 4);
	db_campaign_clear(&c);
}

static void rolled_back_batch_leaves_nothing(void **state)
{
	fixture *fx = *state;
	db_hit ab = hit(3, 8, 1);
	int64_t p, c1, r;
	db_bug b;
	ids l = {0};
	wasm_err e;

	open_ok(fx);
	p = add_program(fx->d, 0x1111, "race.wasm");
	c1 = add_campaign(fx->d, p, "uniform");
	assert_int_equal(db_begin(fx->d, &e), WASM_OK);
	for (int i = 0; i < 50; i++)
		add_run(fx->d, c1, (uint64_t)i, "uniform", 100, 1.0, &ab,
			i % 2);
	db_rollback(fx->d);
	assert_int_equal(db_run_list(fx->d, c1, 0, collect_run, &l, &e),
			 WASM_OK);
	assert_int_equal(l.n, 0);
	assert_int_equal(db_bug_list(fx->d, 0, collect_bug, &l, &e), WASM_OK);
	assert_int_equal(l.n, 0);

	/* The rolled-back bug must be created again, not remembered. */
	assert_int_equal(db_begin(fx->d, &e), WASM_OK);
	r = add_run(fx->d, c1, 0, "uniform", 100, 2.0, &ab, 1);
	assert_int_equal(db_commit(fx->d, &e), WASM_OK);
	assert_int_equal(db_bug_list(fx->d, 0, collect_bug, &l, &e), WASM_OK);
	assert_int_equal(l.n, 2);
	assert_int_equal(db_bug_get(fx->d, l.v[0], &b, &e), WASM_OK);
	assert_int_equal(b.first_run, r);
	assert_int_equal(b.runs, 1);
	db_bug_clear(&b);
	assert_int_equal(db_check(fx->d, &e), WASM_OK);
}

static void programs_found_by_id_hash_and_name(void **state)
{
	fixture *fx = *state;
	int64_t a1, a2, b, again;
	db_program p;
	wasm_err e;

	open_ok(fx);
	a1 = add_program(fx->d, 0xabcdef0011223344ull, "a.wasm");
	a2 = add_program(fx->d, 0xabcd990011223344ull, "a.wasm");
	b = add_program(fx->d, 0x0000000000000042ull, "b.wasm");
	assert_int_equal(db_program_put(fx->d, 0x42, "b.wasm", "/new/b.wasm",
					40, &again, &e),
			 WASM_OK);
	assert_int_equal(again, b);

	assert_int_equal(db_program_find(fx->d, "b.wasm", &p, &e), WASM_OK);
	assert_int_equal(p.id, b);
	assert_true(p.hash == 0x42);
	assert_string_equal(p.path, "/new/b.wasm");
	assert_int_equal(p.nsites, 40);
	db_program_clear(&p);

	assert_int_equal(db_program_find(fx->d, "2", &p, &e), WASM_OK);
	assert_int_equal(p.id, a2);
	db_program_clear(&p);

	assert_int_equal(db_program_find(fx->d, "ABCDEF0011223344", &p, &e),
			 WASM_OK);
	assert_int_equal(p.id, a1);
	db_program_clear(&p);
	assert_int_equal(db_program_find(fx->d, "abcd99", &p, &e), WASM_OK);
	assert_int_equal(p.id, a2);
	db_program_clear(&p);

	assert_int_equal(db_program_find(fx->d, "abcd", &p, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "matches 2"));
	assert_int_equal(db_program_find(fx->d, "a.wasm", &p, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "1 a.wasm"));
	assert_non_null(strstr(e.msg, "2 a.wasm"));
	assert_int_equal(db_program_find(fx->d, "zz.wasm", &p, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "no program"));
	assert_int_equal(db_program_get(fx->d, 9, &p, &e), WASM_INVALID);
}

/* A stack's text form reads back as written; names lose their tabs and
 * line breaks; an inlined frame has a 5th field, and text written before
 * there was one still reads; text of another shape names its line. */
static void stack_text_round_trip(void **state)
{
	db_frame f[] = {{"bump", "a.c", 3, 99, true},
			{"work\ter", "a.c", 7, 99, false},
			{"main", NULL, 0, 0, false}};
	db_stack s = {f, 3, true}, back;
	char *t = db_stack_format(&s);
	wasm_err e;
	static const char *const bad[] = {
	    "f\ta.c\t1\n",	      /* no offset */
	    "f\ta.c\tx\t1\n",	      /* line not a number */
	    "f\ta.c\t1\t2",	      /* no line end */
	    "\ta.c\t1\t2\n",	      /* no function */
	    "f\t\t1\t99999999999\n",  /* offset over 32 bits */
	    "...\nf\t\t1\t2\n",	      /* frames after the cut */
	    "f\ta.c\t1\t2\tinline\n", /* an unknown 5th field */
	    "f\ta.c\t1\tinlined\n",   /* the mark instead of the offset */
	    "g\t\t1\t2\nf\ta.c\t1\t2\tinlined", /* no line end */
	};
	(void)state;

	assert_string_equal(t, "bump\ta.c\t3\t99\tinlined\n"
			       "work er\ta.c\t7\t99\nmain\t\t0\t0\n...\n");
	assert_int_equal(db_stack_parse(t, &back, &e), WASM_OK);
	assert_int_equal(back.n, 3);
	assert_true(back.truncated);
	assert_string_equal(back.frame[0].func, "bump");
	assert_int_equal(back.frame[0].offset, 99);
	assert_true(back.frame[0].inlined);
	assert_string_equal(back.frame[1].func, "work er");
	assert_string_equal(back.frame[1].file, "a.c");
	assert_int_equal(back.frame[1].line, 7);
	assert_int_equal(back.frame[1].offset, 99);
	assert_false(back.frame[1].inlined);
	assert_null(back.frame[2].file);
	db_stack_clear(&back);
	wasm_free(t);
	assert_int_equal(db_stack_parse("", &back, &e), WASM_OK);
	assert_int_equal(back.n, 0);
	db_stack_clear(&back);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(db_stack_parse(bad[i], &back, &e),
				 WASM_MALFORMED);
		assert_non_null(strstr(e.msg, "line"));
	}
}

static void value_text_round_trip(void **state)
{
	db_value v = {.width = 4,
		      .side = 1,
		      .before = {0x2a, 0, 0, 0},
		      .after = {0xff, 0x01, 0, 0x80}},
		 back;
	char t[80];
	wasm_err e;
	static const char *const bad[] = {
	    "",
	    "1",
	    "2 aa bb",
	    "0 aa",
	    "0 aa bbb",
	    "0 aa  bb",
	    "0 AA BB",
	    "0 a  b ",
	    "0 zz yy",
	    "1 aabb cc",
	    "0 aa bb ",
	    "0 00000000000000000000000000000000ff "
	    "00000000000000000000000000000000ff", /* 17 bytes */
	};
	(void)state;

	db_value_format(&v, t, sizeof t);
	assert_string_equal(t, "1 2a000000 ff010080");
	assert_int_equal(db_value_parse(t, &back, &e), WASM_OK);
	assert_int_equal(back.width, 4);
	assert_int_equal(back.side, 1);
	assert_memory_equal(back.before, v.before, 4);
	assert_memory_equal(back.after, v.after, 4);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(db_value_parse(bad[i], &back, &e),
				 WASM_MALFORMED);
		assert_int_equal(back.width, 0);
	}
}

/* A hit's value and widths come back as the bug's sites order them,
 * whichever side the hit listed first. */
static void value_and_widths_follow_the_sites(void **state)
{
	fixture *fx = *state;
	db_hit h = hit(9, 2, 1);
	db_run_bug rbs[2] = {{0}};
	int64_t p, c, run;
	db_bug b;
	wasm_err e;

	open_ok(fx);
	h.site[0].width = 8;
	h.site[1].width = 2;
	h.value = (db_value){.width = 8,
			     .side = 0,
			     .before = {1, 2, 3, 4, 5, 6, 7, 8},
			     .after = {9}};
	p = add_program(fx->d, 0x3333, "value.wasm");
	c = add_campaign(fx->d, p, "uniform");
	run = add_run(fx->d, c, 0, "uniform", 100, 1000.0, &h, 1);
	assert_int_equal(db_run_bugs(fx->d, run, collect_run_bug, rbs, &e),
			 WASM_OK);
	assert_true(rbs[0].bug_id > 0);
	/* Site 9 was the hit's side 0; the bug puts site 2 first. */
	assert_int_equal(rbs[0].value.side, 1);
	assert_int_equal(rbs[0].value.width, 8);
	assert_memory_equal(rbs[0].value.before, h.value.before, 8);
	assert_int_equal(rbs[0].value.after[0], 9);
	assert_int_equal(db_bug_get(fx->d, rbs[0].bug_id, &b, &e), WASM_OK);
	assert_int_equal(b.site[0].id, 2);
	assert_int_equal(b.site[0].width, 2);
	assert_int_equal(b.site[1].width, 8);
	db_bug_clear(&b);
}

/* The locks held: both sides' locks with their locations and stacks
 * come back from their text; text not of the form is refused. */
static void locks_text_round_trip(void **state)
{
	db_frame f[2] = {{"pthread_mutex_lock", "pthread.c", 530, 0x10, true},
			 {"worker", "w.c", 12, 0, false}};
	db_lock a[2] = {
	    {.kind = DB_LOCK_MUTEX,
	     .addr = 0x1230,
	     .loc = {.kind = DB_LOC_GLOBAL,
		     .offset = 4,
		     .size = 24,
		     .name = "m one"},
	     .known = true,
	     .tid = 1,
	     .first = {f, 2, true}},
	    {.kind = DB_LOCK_READ,
	     .addr = 0x2000,
	     .loc = {.kind = DB_LOC_HEAP,
		     .size = 32,
		     .tid = 0,
		     .stack = {f + 1, 1, false}}},
	};
	db_lock b = {.kind = DB_LOCK_SPIN, .addr = 7};
	db_locks la = {2, 3, a}, lb = {1, 1, &b};
	const db_locks *sides[2] = {&la, &lb}, *none[2] = {NULL, NULL};
	static const char *const bad[] = {
	    "H 2 1\n",
	    "H 0 1\nL 0 futex 5 -\n",
	    "H 0 1\nL 0 mutex 5 -\nL 0 mutex 6 -\n", /* more than held */
	    "L 0 mutex 5 -\n",
	    "F f\tx.c\t1\t0\n",
	    "H 0 1\nL 0 mutex 5 -\nW nowhere\n",
	    "H 0 1\nL 0 mutex 5 -\nF f\n",
	    "H 0 1\nX 1\n",
	};
	db_locks back[2];
	bool nomem;
	char *t;
	wasm_err e;
	(void)state;

	assert_null(db_locks_format(none, &nomem));
	assert_false(nomem);
	t = db_locks_format(sides, &nomem);
	assert_non_null(t);
	assert_int_equal(db_locks_parse(t, back, &e), WASM_OK);
	wasm_free(t);
	assert_int_equal(back[0].n, 2);
	assert_int_equal(back[0].held, 3);
	assert_int_equal(back[0].lock[0].kind, DB_LOCK_MUTEX);
	assert_int_equal(back[0].lock[0].addr, 0x1230);
	assert_true(back[0].lock[0].known);
	assert_int_equal(back[0].lock[0].tid, 1);
	assert_string_equal(back[0].lock[0].loc.name, "m one");
	assert_int_equal(back[0].lock[0].loc.offset, 4);
	assert_int_equal(back[0].lock[0].first.n, 2);
	assert_true(back[0].lock[0].first.truncated);
	assert_true(back[0].lock[0].first.frame[0].inlined);
	assert_string_equal(back[0].lock[0].first.frame[1].func, "worker");
	assert_int_equal(back[0].lock[1].kind, DB_LOCK_READ);
	assert_false(back[0].lock[1].known);
	assert_int_equal(back[0].lock[1].loc.kind, DB_LOC_HEAP);
	assert_int_equal(back[0].lock[1].loc.stack.n, 1);
	assert_int_equal(back[0].lock[1].first.n, 0);
	assert_int_equal(back[1].n, 1);
	assert_int_equal(back[1].lock[0].kind, DB_LOCK_SPIN);
	assert_int_equal(back[1].lock[0].loc.kind, DB_LOC_NONE);
	db_locks_clear(&back[0]);
	db_locks_clear(&back[1]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(db_locks_parse(bad[i], back, &e),
				 WASM_MALFORMED);
		assert_int_equal(back[0].n + back[1].n, 0);
	}
}

/* Thread names: both sides, one, none; text not of the form refused. */
static void names_text_round_trip(void **state)
{
	const char *both[2] = {"producer", "con\tsumer"}, *one[2] = {"", "x"},
		   *none[2] = {"", ""};
	char back[2][DB_NAME_MAX];
	bool nomem;
	char *t;
	wasm_err e;
	(void)state;

	assert_null(db_names_format(none, &nomem));
	assert_false(nomem);
	t = db_names_format(both, &nomem);
	assert_string_equal(t, "0 producer\n1 con sumer\n");
	assert_int_equal(db_names_parse(t, back, &e), WASM_OK);
	assert_string_equal(back[0], "producer");
	assert_string_equal(back[1], "con sumer");
	wasm_free(t);
	t = db_names_format(one, &nomem);
	assert_int_equal(db_names_parse(t, back, &e), WASM_OK);
	assert_string_equal(back[0], "");
	assert_string_equal(back[1], "x");
	wasm_free(t);
	assert_int_equal(db_names_parse("2 x\n", back, &e), WASM_MALFORMED);
	assert_int_equal(db_names_parse("0 x\n0 y\n", back, &e),
			 WASM_MALFORMED);
	assert_int_equal(db_names_parse("0 "
					"0123456789012345678901234567890123\n",
					back, &e),
			 WASM_MALFORMED);
}

/* A hit's locks are stored as the bug's sites order them. */
static void locks_follow_the_sites(void **state)
{
	fixture *fx = *state;
	db_hit h = hit(9, 2, 1);
	db_lock m = {.kind = DB_LOCK_WRITE, .addr = 0x40};
	db_run_bug rbs[2] = {{0}};
	db_locks back[2];
	int64_t p, c, run;
	wasm_err e;

	open_ok(fx);
	h.locks[0] = (db_locks){1, 1, &m};
	p = add_program(fx->d, 0x5555, "locks.wasm");
	c = add_campaign(fx->d, p, "uniform");
	run = add_run(fx->d, c, 0, "uniform", 100, 1000.0, &h, 1);
	assert_int_equal(db_run_bugs(fx->d, run, collect_run_bug, rbs, &e),
			 WASM_OK);
	assert_int_equal(db_run_bug_locks(fx->d, run, rbs[0].bug_id, back, &e),
			 WASM_OK);
	/* Site 9 was the hit's side 0; the bug puts site 2 first. */
	assert_int_equal(back[0].n, 0);
	assert_int_equal(back[1].n, 1);
	assert_int_equal(back[1].lock[0].kind, DB_LOCK_WRITE);
	assert_int_equal(back[1].lock[0].addr, 0x40);
	db_locks_clear(&back[1]);
}

/* db_bug_pair_run: of the runs that kept both stacks, the first whose
 * value changed; else the first; runs with one stack never. */
static void pair_run_prefers_a_changed_value(void **state)
{
	fixture *fx = *state;
	db_frame f = {"reader", "race.c", 12, 0x40, false};
	db_hit one = hit(3, 4, 1), same = hit(3, 4, 1), moved = hit(3, 4, 1);
	int64_t p, c, r_one, r_same, r_moved, got;
	db_run_bug rbs[2] = {{0}};
	wasm_err e;

	open_ok(fx);
	one.stack[1] = (db_stack){&f, 1, false};
	same.stack[0] = same.stack[1] = (db_stack){&f, 1, false};
	moved.stack[0] = moved.stack[1] = (db_stack){&f, 1, false};
	same.value = (db_value){.width = 4, .before = {7}, .after = {7}};
	moved.value = (db_value){.width = 4, .before = {7}, .after = {8}};
	p = add_program(fx->d, 0x4444, "pair.wasm");
	c = add_campaign(fx->d, p, "uniform");
	r_one = add_run(fx->d, c, 0, "uniform", 100, 1000.0, &one, 1);
	assert_int_equal(db_run_bugs(fx->d, r_one, collect_run_bug, rbs, &e),
			 WASM_OK);
	assert_int_equal(db_bug_pair_run(fx->d, rbs[0].bug_id, &got, &e),
			 WASM_OK);
	assert_int_equal(got, 0);
	r_same = add_run(fx->d, c, 1, "uniform", 100, 1001.0, &same, 1);
	assert_int_equal(db_bug_pair_run(fx->d, rbs[0].bug_id, &got, &e),
			 WASM_OK);
	assert_int_equal(got, r_same);
	r_moved = add_run(fx->d, c, 2, "uniform", 100, 1002.0, &moved, 1);
	add_run(fx->d, c, 3, "uniform", 100, 1003.0, &same, 1);
	assert_int_equal(db_bug_pair_run(fx->d, rbs[0].bug_id, &got, &e),
			 WASM_OK);
	assert_int_equal(got, r_moved);
	assert_true(db_value_changed(&moved.value));
	assert_false(db_value_changed(&same.value));
	assert_false(db_value_changed(&(db_value){0}));
}

static bool keep_bug(void *ctx, const db_bug *b)
{
	db_bug *out = ctx;
	int i = out[0].id ? out[1].id ? 2 : 1 : 0;

	assert_true(i < 2);
	out[i] = *b;
	out[i].program = NULL;
	out[i].sig = NULL;
	memset(out[i].site, 0, sizeof out[i].site);
	return true;
}

static bool count_triage(void *ctx, const db_triage *t)
{
	int *n = ctx;
	assert_true(t->time > 0);
	if (*n == 0)
		assert_string_equal(t->note, "real");
	else
		assert_null(t->note);
	++*n;
	return true;
}

/* Two builds of one program: the same race (same site signatures, other
 * site ids) is one signature; a triage decision on the old build's bug
 * is the new one's state; bugs_list_builds lists it once over both. A
 * hit without signatures gives a bug without one ("#ID"). */
static void signatures_and_triage_span_builds(void **state)
{
	fixture *fx = *state;
	db_hit h1 = hit(2, 9, 1), h2 = hit(5, 12, 1), bare = hit(3, 4, 1);
	int64_t p1, p2, c1, c2;
	db_bug b, rows[2] = {{0}};
	db_state st;
	char sig[DB_SIG_LEN + 1];
	int n = 0;
	wasm_err e;

	open_ok(fx);
	h1.site[0].sig = h2.site[0].sig = 0x1111;
	h1.site[1].sig = h2.site[1].sig = 0x2222;
	assert_int_equal(db_sig_pair(0x1111, 0x2222),
			 db_sig_pair(0x2222, 0x1111));
	assert_true(db_sig_pair(0x1111, 0x2222) != db_sig_pair(0x1111, 0x2223));
	db_sig_format(db_sig_pair(0x1111, 0x2222), sig);
	assert_int_equal(strlen(sig), DB_SIG_LEN);

	p1 = add_program(fx->d, 0x1001, "app.wasm");
	p2 = add_program(fx->d, 0x1002, "app.wasm");
	c1 = add_campaign(fx->d, p1, "uniform");
	c2 = add_campaign(fx->d, p2, "uniform");
	add_run(fx->d, c1, 0, "uniform", 100, 1000.0, &h1, 1);
	add_run(fx->d, c1, 1, "uniform", 100, 1001.0, &bare, 1);
	add_run(fx->d, c2, 0, "uniform", 100, 2000.0, &h2, 1);
	add_run(fx->d, c2, 1, "uniform", 100, 2001.0, &h2, 1);

	/* Bug 1 is build 1's race, 2 the one without signatures, 3 build
	 * 2's race. */
	assert_int_equal(db_bug_get(fx->d, 1, &b, &e), WASM_OK);
	assert_string_equal(b.sig, sig);
	assert_int_equal(b.state, DB_STATE_NEW);
	assert_true(b.triaged == 0);
	assert_int_equal(b.builds, 1);
	db_bug_clear(&b);
	assert_int_equal(db_bug_get(fx->d, 2, &b, &e), WASM_OK);
	assert_string_equal(b.sig, "#2");
	db_bug_clear(&b);

	assert_int_equal(
	    db_triage_set(fx->d, 1, DB_STATE_CONFIRMED, "real", &e), WASM_OK);
	assert_int_equal(db_triage_set(fx->d, 3, DB_STATE_FIXED, NULL, &e),
			 WASM_OK);
	assert_int_equal(db_triage_set(fx->d, 77, DB_STATE_FIXED, NULL, &e),
			 WASM_INVALID);
	assert_int_equal(db_bug_get(fx->d, 1, &b, &e), WASM_OK);
	assert_int_equal(b.state, DB_STATE_FIXED);
	assert_true(b.triaged > 0);
	db_bug_clear(&b);
	assert_int_equal(db_triage_list(fx->d, 1, count_triage, &n, &e),
			 WASM_OK);
	assert_int_equal(n, 2);
	assert_int_equal(db_triage_state(fx->d, "app.wasm", sig, &st, &e),
			 WASM_OK);
	assert_int_equal(st, DB_STATE_FIXED);
	assert_int_equal(db_triage_state(fx->d, "other.wasm", sig, &st, &e),
			 WASM_OK);
	assert_int_equal(st, DB_STATE_NEW);

	/* Over both builds: the race once (build 2's bug, 3 runs), the bare
	 * bug once. */
	assert_int_equal(
	    db_bug_list_builds(fx->d, "app.wasm", keep_bug, rows, &e), WASM_OK);
	assert_int_equal(rows[0].id, 3);
	assert_int_equal(rows[0].builds, 2);
	assert_int_equal(rows[0].runs, 3);
	assert_true(rows[0].first_seen == 1000.0);
	assert_int_equal(rows[1].id, 2);
	assert_int_equal(rows[1].builds, 1);
	memset(rows, 0, sizeof rows);
	assert_int_equal(db_bug_list_campaign(fx->d, c2, keep_bug, rows, &e),
			 WASM_OK);
	assert_int_equal(rows[0].id, 3);
	assert_int_equal(rows[1].id, 0);
	assert_true(db_state_parse("not-a-bug", &st) &&
		    st == DB_STATE_NOT_A_BUG);
	assert_false(db_state_parse("wontfix", &st));
	assert_string_equal(db_state_name(DB_STATE_CONFIRMED), "confirmed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(path_chooses_flag_then_env_then_default),
	    cmocka_unit_test(stack_text_round_trip),
	    cmocka_unit_test(value_text_round_trip),
	    cmocka_unit_test(locks_text_round_trip),
	    cmocka_unit_test(names_text_round_trip),
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	    T(locks_follow_the_sites),
	    T(value_and_widths_follow_the_sites),
	    T(pair_run_prefers_a_changed_value),
	    T(signatures_and_triage_span_builds),
	    T(create_then_reopen_keeps_schema),
	    T(empty_file_is_initialised),
	    T(garbage_file_is_refused_untouched),
	    T(newer_schema_is_refused),
	    T(other_programs_database_is_refused),
	    T(missing_directory_is_an_io_error),
	    T(unwritable_directory_is_an_io_error),
	    T(readonly_database_still_reads),
	    T(campaign_round_trip),
	    T(campaign_of_a_dead_sweep_is_interrupted),
	    T(campaigns_list_newest_first),
	    T(runs_bugs_and_counts),
	    T(rolled_back_batch_leaves_nothing),
	    T(programs_found_by_id_hash_and_name),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
