/*
 * test_sync.c - moving records between workspaces (db/sync.h): a round
 * trip into an empty workspace keeps runs, bugs, their links and each
 * run's node; a repeated import adds nothing; a cursor exports only newer
 * runs; and every damaged stream (each byte flipped, with and without a
 * repaired checksum, each truncation, a newer format) is refused or
 * harmless, never leaving half an import behind, alone or inside a
 * batch of streams (a fetch's task files).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "db/sync.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
	char dir[64];
	char a[96], b[96];
	db *da, *db;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	wasm_err e;

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/heisen-sync-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->a, sizeof fx->a, "%s/a.db", fx->dir);
	snprintf(fx->b, sizeof fx->b, "%s/b.db", fx->dir);
	assert_int_equal(db_open(fx->a, &fx->da, &e), WASM_OK);
	assert_int_equal(db_open(fx->b, &fx->db, &e), WASM_OK);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	char cmd[128];

	db_close(fx->da);
	db_close(fx->db);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

/* Every row of sql's answer as text, one a line. */
static char *query_text(const char *path, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(s); i++) {
			const char *t = (const char *)sqlite3_column_text(s, i);
			fprintf(f, "%s|", t ? t : "NULL");
		}
		fputc('\n', f);
	}
	sqlite3_finalize(s);
	sqlite3_close(h);
	fclose(f);
	return buf;
}

/* sql's answer on path is want. */
static void expect_query(const char *path, const char *sql, const char *want)
{
	char *got = query_text(path, sql);

	assert_string_equal(got, want);
	free(got);
}

static void raw_sql(const char *path, const char *sql)
{
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

/* Every table with its ids: what "unchanged" means. */
static char *dump(const char *path)
{
	return query_text(
	    path, "SELECT 'n', id, node_key, hostname,"
		  " first_seen, 0, 0 FROM nodes UNION ALL SELECT 'p', id, hash,"
		  " name, path, nsites, 0 FROM programs UNION ALL"
		  " SELECT 'c', id, program_id, node_id, origin, status, seed"
		  " FROM campaigns UNION ALL SELECT 'r', id, campaign_id,"
		  " node_id, idx, status, msg FROM runs UNION ALL"
		  " SELECT 'b', id, program_id, site_a, site_b, first_run,"
		  " func_a FROM bugs UNION ALL SELECT 'rb', run_id, bug_id,"
		  " tid_a, addr_b, count, 0 FROM run_bugs ORDER BY 1, 2, 3");
}

/* The records by their keys, without local ids: equal in two workspaces
 * that hold the same records. */
static char *content(const char *path)
{
	return query_text(
	    path,
	    "SELECT 'r', n.node_key, n.hostname, p.hash, c.kind, c.created,"
	    " c.densities, hex(c.density_bp), c.seed, c.status, r.idx,"
	    " r.profile, r.density_bp, r.seed, r.started, r.duration_us,"
	    " r.status, r.exit_code, r.msg, r.nbugs FROM runs r"
	    " JOIN campaigns c ON c.id = r.campaign_id JOIN programs p"
	    " ON p.id = c.program_id LEFT JOIN nodes n ON n.id = r.node_id"
	    " UNION ALL SELECT 'b', p.hash, b.site_a, b.kind_a, b.func_a,"
	    " b.file_a, b.line_a, b.site_b, b.kind_b, b.func_b, b.file_b,"
	    " b.line_b, fr.idx, b.first_seen, b.width_a, b.width_b, b.sig, 0,"
	    " 0, 0 FROM bugs b"
	    " JOIN programs p ON p.id = b.program_id LEFT JOIN runs fr"
	    " ON fr.id = b.first_run UNION ALL SELECT 'l', c.created, r.idx,"
	    " b.site_a, b.site_b, rb.tid_a, rb.tid_b, rb.addr_a, rb.addr_b,"
	    " rb.count, sa.frames, sb.frames, rb.value, 0, 0, 0, 0, 0, 0, 0"
	    " FROM run_bugs rb JOIN runs r ON r.id = rb.run_id"
	    " JOIN campaigns c ON c.id = r.campaign_id JOIN bugs b"
	    " ON b.id = rb.bug_id LEFT JOIN stacks sa ON sa.id = rb.stack_a"
	    " LEFT JOIN stacks sb ON sb.id = rb.stack_b"
	    " ORDER BY 1, 2, 3, 4, 5, 6, 7");
}

/* The second access's call stack, for every hit: an inlined frame, a
 * frame without a file and a cut stack must travel too. */
static db_frame frames[] = {{"bump", "race.c", 5, 0x120, true},
			    {"writer", "race.c", 12, 0x120, false},
			    {"caller", NULL, 0, 0x1a0, false}};

static db_hit hit(uint32_t lo, uint32_t hi, uint32_t tid)
{
	db_hit h = {
	    /* Signatures on every hit but those of site 3: a bug of an
	     * older heisen has none. */
	    .site = {{lo, 1, "writer", "race.c", 10 + lo, 4,
		      lo == 3 ? 0 : 0x100 + lo},
		     {hi, 2, NULL, NULL, 0, 2, 0x200 + hi}},
	    .tid = {tid, tid + 1},
	    .addr = {0x1000 + lo, 0x1000 + hi},
	    .count = 3,
	    .stack = {{NULL, 0, false}, {frames, 3, true}},
	    .value = {.width = 2, .side = 1, .before = {1, 2}, .after = {3}},
	};
	return h;
}

static int64_t add_campaign(db *d, uint64_t hash)
{
	uint32_t dens[] = {100, 500};
	db_campaign c = {
	    .densities = "1,5",
	    .ndensity = 2,
	    .density_bp = dens,
	    .profiles = "default",
	    .runs = 2,
	    .jobs = 1,
	    .seed = 7,
	    .planned = 8,
	    .args = "x\0y",
	    .nargs = 2,
	    .status = "done",
	};
	wasm_err e;

	assert_int_equal(db_program_put(d, hash, "race.wasm", "/src/race.wasm",
					40, &c.program_id, &e),
			 WASM_OK);
	assert_int_equal(db_node_self(d, &c.node_id, &e), WASM_OK);
	assert_int_equal(db_campaign_new(d, &c, &e), WASM_OK);
	return c.id;
}

static int64_t add_run(db *d, int64_t camp, int64_t node, uint64_t idx,
		       const db_hit *hits, uint32_t nhits)
{
	db_run r = {
	    .campaign_id = camp,
	    .node_id = node,
	    .idx = idx,
	    .profile = "default",
	    .density_bp = 100,
	    .seed = 0xFFFFFFFF00000000ull | idx,
	    .started = 1000.5 + (double)idx,
	    .duration_us = 1234,
	    .status = nhits ? "ok" : "exit",
	    .exit_code = nhits ? 0 : -3,
	    .msg = nhits ? NULL : "exit -3",
	    .nbugs = nhits,
	};
	wasm_err e;

	assert_int_equal(db_run_add(d, &r, hits, nhits, &e), WASM_OK);
	return r.id;
}

/* A node that is not this machine, as an import from a board made it. */
static int64_t board_node(fixture *fx)
{
	char *id;
	int64_t n;

	raw_sql(fx->a, "INSERT INTO nodes(node_key, hostname, first_seen)"
		       " VALUES('board-7', 'board', 1.0)");
	id = query_text(fx->a, "SELECT id FROM nodes WHERE node_key = "
			       "'board-7'");
	n = (int64_t)atoll(id);
	free(id);
	return n;
}

/* Two campaigns, four runs (one on the board), three bugs. */
static void fill(fixture *fx)
{
	db_hit ab = hit(3, 8, 1), cd = hit(20, 21, 5), both[2] = {ab, cd};
	int64_t c1 = add_campaign(fx->da, 0x1111);
	int64_t c2 = add_campaign(fx->da, 0x2222);
	int64_t board = board_node(fx);

	add_run(fx->da, c1, 0, 1, &ab, 1);
	add_run(fx->da, c1, board, 0, both, 2);
	add_run(fx->da, c1, 0, 2, NULL, 0);
	add_run(fx->da, c2, board, 0, &cd, 1);
}

/* The export of d after since, in memory. */
static uint8_t *export_with(db *d, uint64_t since, bool all, size_t *len,
			    uint64_t *cursor, uint64_t *nruns)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	uint64_t c, n;
	wasm_err e;

	assert_non_null(f);
	assert_int_equal(db_export(d, since, all, f, cursor ? cursor : &c,
				   nruns ? nruns : &n, &e),
			 WASM_OK);
	fclose(f);
	return (uint8_t *)buf;
}

static uint8_t *export_mem(db *d, uint64_t since, size_t *len, uint64_t *cursor,
			   uint64_t *nruns)
{
	return export_with(d, since, false, len, cursor, nruns);
}

static wasm_status import_mem(db *d, const uint8_t *p, size_t len,
			      db_sync_added *added, wasm_err *e)
{
	/* fmemopen refuses a zero-sized buffer: one spare byte, unread. */
	uint8_t *copy = malloc(len + 1);
	FILE *f;
	wasm_status st;

	memcpy(copy, p, len);
	f = fmemopen(copy, len ? len : 1, "rb");
	assert_non_null(f);
	if (!len)
		fgetc(f);
	st = db_import(d, f, "test", added, e);
	fclose(f);
	free(copy);
	return st;
}

static void round_trip_keeps_records_and_nodes(void **state)
{
	fixture *fx = *state;
	uint64_t cursor, nruns;
	size_t len;
	uint8_t *s;
	db_sync_added n;
	wasm_err e;
	char *ca, *cb, *d1, *d2;

	fill(fx);
	s = export_mem(fx->da, 0, &len, &cursor, &nruns);
	assert_int_equal(nruns, 4);
	assert_int_equal(cursor, 4);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	assert_int_equal(n.runs, 4);
	assert_int_equal(n.campaigns, 2);
	assert_int_equal(n.bugs, 3);
	assert_int_equal(n.programs, 2);
	assert_int_equal(n.nodes, 2);
	ca = content(fx->a);
	cb = content(fx->b);
	assert_string_equal(ca, cb);
	/* The import's own references are sound, and SQLite checks foreign
	 * keys again once it has ended (db_begin_trusted). */
	expect_query(fx->b, "PRAGMA foreign_key_check", "");
	{
		sqlite3_stmt *q;
		assert_int_equal(sqlite3_prepare_v2(db_sqlite(fx->db),
						    "PRAGMA foreign_keys", -1,
						    &q, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(q, 0), 1);
		sqlite3_finalize(q);
	}
	/* The board's runs are the board's, not this machine's. */
	expect_query(fx->b,
		     "SELECT count(*) FROM runs r JOIN nodes n"
		     " ON n.id = r.node_id WHERE n.node_key = 'board-7'",
		     "2|\n");
	/* Values and widths came along. */
	expect_query(fx->b,
		     "SELECT count(*), min(value) FROM run_bugs"
		     " WHERE value = '1 0102 0300'",
		     "4|1 0102 0300|\n");
	expect_query(fx->b,
		     "SELECT count(*) FROM bugs WHERE width_a + width_b = 6",
		     "3|\n");
	/* Signatures came along, and their absence. */
	expect_query(fx->b, "SELECT count(*), count(sig) FROM bugs", "3|2|\n");
	/* The stacks came along, each stored once. */
	expect_query(
	    fx->b, "SELECT count(*), min(frames) FROM stacks",
	    "1|bump\trace.c\t5\t288\tinlined\nwriter\trace.c\t12\t288\n"
	    "caller\t\t0\t416\n...\n|\n");
	/* Imported campaigns know where they were made. */
	expect_query(fx->b,
		     "SELECT count(*) FROM campaigns WHERE origin IS NOT NULL",
		     "2|\n");

	/* Twice: nothing new, nothing changed. */
	d1 = dump(fx->b);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	assert_int_equal(n.runs + n.campaigns + n.bugs + n.nodes, 0);
	d2 = dump(fx->b);
	assert_string_equal(d1, d2);

	/* And back: A's own campaigns are recognised, not doubled. */
	free(s);
	s = export_mem(fx->db, 0, &len, NULL, NULL);
	free(d1);
	d1 = dump(fx->a);
	assert_int_equal(import_mem(fx->da, s, len, &n, &e), WASM_OK);
	assert_int_equal(n.runs + n.campaigns + n.bugs, 0);
	free(d2);
	d2 = dump(fx->a);
	assert_string_equal(d1, d2);
	free(s);
	free(ca);
	free(cb);
	free(d1);
	free(d2);
}

static void since_exports_only_newer_runs(void **state)
{
	fixture *fx = *state;
	db_hit ef = hit(30, 31, 2);
	uint64_t cursor, c2, nruns;
	int64_t camp;
	size_t len;
	uint8_t *s;
	db_sync_added n;
	wasm_err e;
	char *ca, *cb;

	fill(fx);
	s = export_mem(fx->da, 0, &len, &cursor, NULL);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	free(s);
	/* Nothing new: an empty stream, the cursor unchanged. */
	s = export_mem(fx->da, cursor, &len, &c2, &nruns);
	assert_int_equal(nruns, 0);
	assert_int_equal(c2, cursor);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	assert_int_equal(n.runs, 0);
	free(s);

	camp = add_campaign(fx->da, 0x1111);
	add_run(fx->da, camp, 0, 0, &ef, 1);
	add_run(fx->da, 1, 0, 3, &ef, 1);
	s = export_mem(fx->da, cursor, &len, &c2, &nruns);
	assert_int_equal(nruns, 2);
	assert_int_equal(c2, cursor + 2);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	assert_int_equal(n.runs, 2);
	assert_int_equal(n.campaigns, 1);
	assert_int_equal(n.bugs, 1);
	ca = content(fx->a);
	cb = content(fx->b);
	assert_string_equal(ca, cb);
	free(ca);
	free(cb);
	free(s);
}

/* Make the end record's checksum match the bytes before it again. */
static void reseal(uint8_t *p, size_t len)
{
	uint64_t h = db_sync_checksum(DB_SYNC_VERSION, p, len - 21);
	for (int i = 0; i < 8; i++)
		p[len - 8 + i] = (uint8_t)(h >> (8 * i));
}

/* B after a refused import: the same rows, a sound file. */
static void assert_refused(fixture *fx, wasm_status st, const wasm_err *e,
			   const char *before)
{
	char *after;

	assert_int_equal(st, WASM_MALFORMED);
	assert_non_null(strstr(e->msg, "test: byte "));
	after = dump(fx->b);
	assert_string_equal(before, after);
	free(after);
}

static void damaged_streams_are_refused(void **state)
{
	fixture *fx = *state;
	db_hit ab = hit(3, 8, 1);
	size_t len;
	uint8_t *s, *bad;
	db_sync_added n;
	wasm_err e;
	char *before;
	int refused = 0, taken = 0;

	add_run(fx->da, add_campaign(fx->da, 0x1111), 0, 0, &ab, 1);
	s = export_mem(fx->da, 0, &len, NULL, NULL);
	bad = malloc(len);
	/* B holds something already, so that a partial import would show. */
	add_run(fx->db, add_campaign(fx->db, 0x3333), 0, 0, &ab, 1);
	before = dump(fx->b);

	for (size_t cut = 0; cut < len; cut++)
		assert_refused(fx, import_mem(fx->db, s, cut, &n, &e), &e,
			       before);
	for (size_t i = 0; i < len; i++) {
		memcpy(bad, s, len);
		bad[i] ^= 0x41;
		assert_refused(fx, import_mem(fx->db, bad, len, &n, &e), &e,
			       before);
	}
	/* A forged checksum gets past the framing: the fields still must
	 * hold. A flip that makes another valid record (a seed, a time) is
	 * imported; anything else is refused whole. */
	for (size_t i = 12; i + 21 < len; i++) {
		wasm_status st;
		memcpy(bad, s, len);
		bad[i] ^= 0x80;
		reseal(bad, len);
		st = import_mem(fx->db, bad, len, &n, &e);
		if (st != WASM_OK) {
			assert_refused(fx, st, &e, before);
			/* Inside a batch (a fetch's task files) the refused
			 * stream is undone alone and the batch commits. */
			assert_int_equal(db_begin(fx->db, &e), WASM_OK);
			st = import_mem(fx->db, bad, len, &n, &e);
			assert_int_equal(db_commit(fx->db, &e), WASM_OK);
			assert_refused(fx, st, &e, before);
			refused++;
			continue;
		}
		taken++;
		db_close(fx->db);
		unlink(fx->b);
		assert_int_equal(db_open(fx->b, &fx->db, &e), WASM_OK);
		add_run(fx->db, add_campaign(fx->db, 0x3333), 0, 0, &ab, 1);
		free(before);
		before = dump(fx->b);
	}
	assert_true(refused > 0);
	assert_true(taken > 0);
	expect_query(fx->b, "PRAGMA integrity_check", "ok|\n");
	free(before);
	free(bad);
	free(s);
}

/* A batch of streams (a fetch's task files): each is kept or refused
 * whole, and the batch keeps the good ones around a refused one. */
static void a_batch_keeps_each_stream_whole(void **state)
{
	fixture *fx = *state;
	db_hit ab = hit(3, 8, 1), cd = hit(4, 9, 2);
	int64_t camp;
	size_t l1, l2;
	uint8_t *s1, *s2;
	uint64_t cursor;
	db_sync_added n;
	wasm_err e;
	char *ca, *cb;

	camp = add_campaign(fx->da, 0x1111);
	add_run(fx->da, camp, 0, 0, &ab, 1);
	s1 = export_mem(fx->da, 0, &l1, &cursor, NULL);
	add_run(fx->da, camp, 0, 1, &cd, 1);
	s2 = export_mem(fx->da, cursor, &l2, NULL, NULL);
	assert_int_equal(db_begin(fx->db, &e), WASM_OK);
	assert_int_equal(import_mem(fx->db, s1, l1, &n, &e), WASM_OK);
	assert_int_equal(n.runs, 1);
	assert_int_equal(import_mem(fx->db, s2, l2 - 1, &n, &e),
			 WASM_MALFORMED);
	assert_int_equal(import_mem(fx->db, s2, l2, &n, &e), WASM_OK);
	assert_int_equal(n.runs, 1);
	assert_int_equal(n.bugs, 1);
	assert_int_equal(db_commit(fx->db, &e), WASM_OK);
	ca = content(fx->a);
	cb = content(fx->b);
	assert_string_equal(ca, cb);
	expect_query(fx->b, "PRAGMA integrity_check", "ok|\n");
	free(ca);
	free(cb);
	free(s1);
	free(s2);
}

/* A campaign whose last runs were fetched before it ended: only a stream
 * with every campaign (a fetch's) tells the importer how it ended. */
static void every_campaign_carries_its_end(void **state)
{
	fixture *fx = *state;
	uint64_t cursor;
	size_t len;
	uint8_t *s;
	db_sync_added n;
	wasm_err e;
	db *a;

	fill(fx);
	assert_int_equal(db_campaign_set_status(fx->da, 1, "stopped", &e),
			 WASM_OK);
	s = export_mem(fx->da, 0, &len, &cursor, NULL);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	free(s);
	a = fx->da;
	assert_int_equal(db_campaign_set_status(a, 1, "done", &e), WASM_OK);
	s = export_mem(a, cursor, &len, NULL, NULL);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	free(s);
	expect_query(fx->b,
		     "SELECT group_concat(status) FROM (SELECT status FROM "
		     "campaigns ORDER BY id)",
		     "stopped,done|\n");
	s = export_with(a, cursor, true, &len, NULL, NULL);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_OK);
	assert_int_equal(n.runs + n.campaigns, 0);
	free(s);
	expect_query(fx->b,
		     "SELECT group_concat(status) FROM (SELECT status FROM "
		     "campaigns ORDER BY id)",
		     "done,done|\n");
}

static void future_version_is_refused(void **state)
{
	fixture *fx = *state;
	size_t len;
	uint8_t *s;
	db_sync_added n;
	wasm_err e;

	s = export_mem(fx->da, 0, &len, NULL, NULL);
	s[8] = DB_SYNC_VERSION + 1;
	reseal(s, len);
	assert_int_equal(import_mem(fx->db, s, len, &n, &e), WASM_MALFORMED);
	char want[64];
	snprintf(want, sizeof want, "version %d,", DB_SYNC_VERSION + 1);
	assert_non_null(strstr(e.msg, want));
	snprintf(want, sizeof want, "1 to %d", DB_SYNC_VERSION);
	assert_non_null(strstr(e.msg, want));
	free(s);
}

/* The checksum of versions 11 on: any one byte changed, at any place of
 * any length (whole lane rounds, a partial last word), changes the sum;
 * the lanes see different words (two words swapped change it too); and
 * versions before 11 keep FNV-1a 64 over the bytes, as they were
 * written. */
static void checksum_sees_every_byte(void **state)
{
	uint8_t buf[80];
	uint64_t h = 0xcbf29ce484222325ull, a, b;

	(void)state;
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	for (size_t n = 0; n <= sizeof buf; n++) {
		uint64_t sum = db_sync_checksum(11, buf, n);
		for (size_t i = 0; i < n; i++) {
			buf[i] ^= 0x40;
			assert_true(db_sync_checksum(11, buf, n) != sum);
			buf[i] ^= 0x40;
		}
		if (n)
			assert_true(db_sync_checksum(11, buf, n - 1) != sum);
	}
	a = db_sync_checksum(11, buf, 64);
	for (int i = 0; i < 8; i++) {
		uint8_t t = buf[i];
		buf[i] = buf[8 + i];
		buf[8 + i] = t;
	}
	b = db_sync_checksum(11, buf, 64);
	assert_true(a != b);
	for (size_t i = 0; i < 10; i++)
		h = (h ^ buf[i]) * 0x100000001b3ull;
	assert_true(db_sync_checksum(10, buf, 10) == h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	    T(round_trip_keeps_records_and_nodes),
	    T(since_exports_only_newer_runs),
	    T(damaged_streams_are_refused),
	    T(a_batch_keeps_each_stream_whole),
	    T(every_campaign_carries_its_end),
	    T(future_version_is_refused),
	    cmocka_unit_test(checksum_sees_every_byte),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
