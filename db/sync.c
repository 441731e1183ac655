/*
 * sync.c - db_export and db_import (sync.h; the format in docs/sync.md).
 *
 * How it works: export runs one query per record type inside a read
 * transaction and writes each row as a record, hashing every byte it
 * writes (sum4, FNV-1a 64 a word at a time) for the end record. Import reads
 * the whole stream, walks its framing once (lengths, end record, count,
 * checksum) without the database, then walks it again decoding fields and
 * writing rows in one transaction. Records refer to each other by the
 * exporter's ids
 * ("sids"), always to an earlier record, and each type's sids ascend, so
 * the map from a sid to the local id is a sorted array searched by
 * bisection.
 *
 * Limitations: the stream is held in memory during an import (about 100
 * bytes a run); a campaign is sent only with runs, so one without runs
 * does not move.
 */
#include "db/sync.h"
#include "db/nodes.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const uint8_t sync_magic[8] = {'H', 'E', 'I', 'S', 'S', 'Y', 'N', 'C'};
#define HEAD_LEN 12 /* magic and u32 version */
#define REC_HEAD 5  /* type byte and u32 length */
#define END_LEN	 16 /* u64 record count and u64 checksum */
/* A string's length that stands for SQL NULL. */
#define NULL_STR UINT32_MAX
/* The longest text import takes (a call stack of 33 frames with their
 * inlined ones fits many times), and the longest site function or file
 * name: anything longer is a hostile or damaged source, and would only
 * flood every report that prints it. */
#define TEXT_MAX      (1u << 20)
#define SITE_NAME_MAX (1u << 16)

enum {
	R_NODE = 1,
	R_PROGRAM = 2,
	R_CAMPAIGN = 3,
	R_RUN = 4,
	R_BUG = 5,
	R_RUN_BUG = 6,
	R_SCHED = 7,
	R_END = 0xff,
};

static const char *const record_names[] = {
    [R_NODE] = "node",	    [R_PROGRAM] = "program", [R_CAMPAIGN] = "campaign",
    [R_RUN] = "run",	    [R_BUG] = "bug",	     [R_RUN_BUG] = "run_bug",
    [R_SCHED] = "schedule",
};

/* FNV-1a 64, the hash heisen already uses for programs: each step is a
 * bijection of the state for a given byte, so any one changed byte
 * changes the sum, and 64 bits make a random corruption that slips
 * through unlikely. It is no defence against a forger: ssh is. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME  0x100000001b3ull

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* The checksum of stream versions 11 on: the FNV step over 8-byte
 * little-endian words, word k into lane k % 4, a last partial word
 * padded with zeros; the four lanes, that word and the byte count are
 * folded by the same step. Each step is still a bijection of its lane
 * for a given word and the fold one of each lane, so one changed byte
 * still changes the sum; but the lanes' multiplies overlap and each
 * covers 8 bytes, where the byte loop's chain of one multiply a byte was
 * a tenth of a Slurm fetch's time. Fed in pieces of any length. */
typedef struct sum4 {
	uint64_t lane[4], bytes;
	uint8_t part[8];
} sum4;

static void sum4_init(sum4 *s)
{
	memset(s, 0, sizeof *s);
	for (int k = 0; k < 4; k++)
		s->lane[k] = FNV_OFFSET + (uint64_t)k;
}

static void sum4_word(sum4 *s, uint64_t w)
{
	uint64_t *l = &s->lane[(s->bytes >> 3) & 3];

	*l = (*l ^ w) * FNV_PRIME;
	s->bytes += 8;
}

static void sum4_add(sum4 *s, const uint8_t *p, size_t n)
{
	size_t i = 0;

	while ((s->bytes & 7) && i < n) {
		s->part[s->bytes & 7] = p[i++];
		if (!(++s->bytes & 7)) {
			s->bytes -= 8;
			sum4_word(s, get_u64(s->part));
		}
	}
	for (; n - i >= 8 && (s->bytes & 31); i += 8)
		sum4_word(s, get_u64(p + i));
	for (; n - i >= 32; i += 32) {
		for (int k = 0; k < 4; k++)
			s->lane[k] =
			    (s->lane[k] ^ get_u64(p + i + 8 * k)) * FNV_PRIME;
		s->bytes += 32;
	}
	for (; n - i >= 8; i += 8)
		sum4_word(s, get_u64(p + i));
	for (; i < n; i++)
		s->part[s->bytes++ & 7] = p[i];
}

static uint64_t sum4_end(const sum4 *s)
{
	uint8_t last[8] = {0};
	uint64_t h = FNV_OFFSET;

	memcpy(last, s->part, s->bytes & 7);
	for (int k = 0; k < 4; k++)
		h = (h ^ s->lane[k]) * FNV_PRIME;
	h = (h ^ get_u64(last)) * FNV_PRIME;
	return (h ^ s->bytes) * FNV_PRIME;
}

/* A campaign's origin as stored, or for one made in this workspace its
 * node key, id and creation time: two workspaces on one machine share
 * the node key and may both have a campaign 1, not made in the same
 * microsecond. The same expression matches a stream's campaign to a
 * local one (a round trip A -> B -> A). Campaign c, its node n. */
#define C_ORIGIN                                                               \
	"coalesce(c.origin, printf('%s:%d:%.6f', coalesce(n.node_key, '-'),"   \
	" c.id, c.created))"

/* ---- writing ------------------------------------------------------------- */

typedef struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
} wbuf;

static void put(wbuf *b, const void *v, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		uint8_t *p;
		while (cap < b->len + n)
			cap *= 2;
		if (!(p = wasm_realloc(b->p, cap))) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put_u8(wbuf *b, uint8_t v) { put(b, &v, 1); }

static void put_u32(wbuf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			(uint8_t)(v >> 24)};
	put(b, x, 4);
}

static void put_u64(wbuf *b, uint64_t v)
{
	put_u32(b, (uint32_t)v);
	put_u32(b, (uint32_t)(v >> 32));
}

static void put_f64(wbuf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	put_u64(b, u);
}

/* Column i as a string: u32 length and bytes, NULL_STR for NULL. */
static void put_col_str(wbuf *b, sqlite3_stmt *s, int i)
{
	const void *t = sqlite3_column_text(s, i);
	uint32_t n = (uint32_t)sqlite3_column_bytes(s, i);

	if (!t) {
		put_u32(b, NULL_STR);
		return;
	}
	put_u32(b, n);
	put(b, t, n);
}

static void put_col_blob(wbuf *b, sqlite3_stmt *s, int i)
{
	const void *t = sqlite3_column_blob(s, i);
	uint32_t n = (uint32_t)sqlite3_column_bytes(s, i);

	put_u32(b, n);
	if (n)
		put(b, t, n);
}

static void put_col_u32(wbuf *b, sqlite3_stmt *s, int i)
{
	put_u32(b, (uint32_t)sqlite3_column_int64(s, i));
}

static void put_col_u64(wbuf *b, sqlite3_stmt *s, int i)
{
	put_u64(b, (uint64_t)sqlite3_column_int64(s, i));
}

uint64_t db_sync_checksum(uint32_t version, const uint8_t *p, size_t n)
{
	sum4 s;

	if (version < 11)
		return fnv(FNV_OFFSET, p, n);
	sum4_init(&s);
	sum4_add(&s, p, n);
	return sum4_end(&s);
}

typedef struct writer {
	FILE *out;
	sum4 sum;
	uint64_t count;
	wbuf rec;
} writer;

static bool emit(writer *w, const void *p, size_t n)
{
	sum4_add(&w->sum, p, n);
	return fwrite(p, 1, n, w->out) == n;
}

/* One record of type t from w->rec. */
static bool emit_rec(writer *w, uint8_t t)
{
	uint8_t h[REC_HEAD] = {
	    t, (uint8_t)w->rec.len, (uint8_t)(w->rec.len >> 8),
	    (uint8_t)(w->rec.len >> 16), (uint8_t)(w->rec.len >> 24)};

	w->count++;
	return emit(w, h, sizeof h) && emit(w, w->rec.p, w->rec.len);
}

/* Write one column as it appears in the format; the query's columns are
 * in the record's order and each letter of the row's spec says how:
 * 8 u8, 4 u32, i i32 (as a u32), u u64 (ids and counts), f f64, s string,
 * b blob, n a blob that may be NULL. */
static void put_row(wbuf *b, sqlite3_stmt *s, const char *spec)
{
	for (int i = 0; spec[i]; i++)
		switch (spec[i]) {
		case '8': put_u8(b, (uint8_t)sqlite3_column_int64(s, i)); break;
		case '4':
		case 'i': put_col_u32(b, s, i); break;
		case 'u': put_col_u64(b, s, i); break;
		case 'f': put_f64(b, sqlite3_column_double(s, i)); break;
		case 's': put_col_str(b, s, i); break;
		case 'n':
			if (sqlite3_column_type(s, i) == SQLITE_NULL)
				put_u32(b, NULL_STR);
			else
				put_col_blob(b, s, i);
			break;
		default: put_col_blob(b, s, i); break;
		}
}

/* Whether t is a program's hash as the workspace keeps it. */
static bool hex16(const unsigned char *t)
{
	return t && strlen((const char *)t) == 16 &&
	       strspn((const char *)t, "0123456789abcdef") == 16;
}

/* What column i must hold to be written as letter c of a spec (NULL: it
 * does), so that a workspace damaged or made by hand (`heisen import
 * FILE.db` exports it first) is refused with the column named rather
 * than exported with text read as 0 or a 64-bit number cut to 32 bits. */
static const char *col_bad(sqlite3_stmt *s, int i, char c)
{
	int t = sqlite3_column_type(s, i);
	sqlite3_int64 v = sqlite3_column_int64(s, i);

	switch (c) {
	case '8':
		return t != SQLITE_INTEGER || v < 0 || v > UINT8_MAX
			   ? "an integer from 0 to 255"
			   : NULL;
	case '4':
		return t != SQLITE_INTEGER || v < 0 || v > UINT32_MAX
			   ? "an integer from 0 to 2^32-1"
			   : NULL;
	case 'i':
		return t != SQLITE_INTEGER || v < INT32_MIN || v > INT32_MAX
			   ? "a 32-bit integer"
			   : NULL;
	case 'u': return t != SQLITE_INTEGER ? "an integer" : NULL;
	case 'f':
		return t != SQLITE_INTEGER && t != SQLITE_FLOAT ? "a number"
								: NULL;
	case 's': return t != SQLITE_TEXT && t != SQLITE_NULL ? "text" : NULL;
	default: return t != SQLITE_BLOB && t != SQLITE_NULL ? "a blob" : NULL;
	}
}

/* The runs after the cursor, and what they need; ?1 is the cursor. The
 * order of the array is the order of the stream. */
#define RUNS_AFTER "(SELECT id FROM runs WHERE id > ?1)"
/* ?2: every campaign, so that the importer learns the status of those
 * whose last runs it already has (db_export's all_campaigns). */
#define CAMPS_AFTER                                                            \
	"(SELECT id FROM campaigns WHERE ?2 OR id IN"                          \
	" (SELECT DISTINCT campaign_id FROM runs WHERE id > ?1))"
static const struct export_query {
	uint8_t type;
	const char *spec;
	const char *sql;
} export_queries[] = {
    {R_NODE, "uss",
     "SELECT id, node_key, hostname FROM nodes WHERE id IN (SELECT node_id"
     " FROM runs WHERE id > ?1 UNION SELECT node_id FROM campaigns"
     " WHERE id IN " CAMPS_AFTER ") ORDER BY id"},
    {R_PROGRAM, "uuss4", /* put_program: the hash is hex text */
     "SELECT id, hash, name, path, nsites FROM programs WHERE id IN"
     " (SELECT program_id FROM campaigns WHERE id IN " CAMPS_AFTER ")"
     " ORDER BY id"},
    /* Version 7 added the runs' stdin, bytes and hash; version 8 the
     * schedule strategy and the failure an explore looked for; version
     * 10 the program's world (wasi_world: directories, environment,
     * limits). */
    {R_CAMPAIGN, "uuussfsbs4f4u4f8bbsu4sbsssbb44",
     "SELECT c.id, c.program_id, coalesce(c.node_id, 0), " C_ORIGIN ","
     " c.kind, c.created, c.densities, c.density_bp, c.profiles, c.runs,"
     " c.budget_s, c.jobs, c.seed, c.delay, c.timeout_s, c.prune, c.pruned,"
     " c.args, c.status, c.planned, c.mask_version, c.owner, c.stdin,"
     " c.stdin_hash, c.schedule, c.failure, c.dirs, c.env, c.max_threads,"
     " c.max_memory_pages"
     " FROM campaigns c LEFT JOIN nodes n ON n.id = c.node_id"
     " WHERE c.id IN " CAMPS_AFTER " ORDER BY c.id"},
    /* Version 10 added the tail of a failed run's stderr. */
    {R_RUN, "uuuus4ufusis4s",
     "SELECT id, campaign_id, coalesce(node_id, 0), idx, profile,"
     " density_bp, seed, started, duration_us, status, exit_code, msg,"
     " nbugs, stderr FROM runs WHERE id > ?1"
     " ORDER BY id"},
    /* Version 3 added the sites' widths, version 4 the signature. */
    {R_BUG, "uu48ss448ss4uf88s",
     "SELECT id, program_id, site_a, kind_a, func_a, file_a, line_a,"
     " site_b, kind_b, func_b, file_b, line_b,"
     " CASE WHEN first_run > ?1 THEN first_run ELSE 0 END, first_seen,"
     " width_a, width_b, sig"
     " FROM bugs WHERE id IN (SELECT bug_id FROM run_bugs WHERE run_id IN"
     " " RUNS_AFTER ") ORDER BY id"},
    /* Version 2 added the two call stacks (db_stack_format's text),
     * version 3 the value evidence (db_value_format's), version 5 the
     * location (db_loc_format's) with its stack, the threads' parents
     * (db_parents_parse's) and the stacks of their spawns, version 6
     * inlined frames in the stacks, version 9 the locks held
     * (db_locks_format's) and the threads' names (db_names_format's). */
    {R_RUN_BUG, "uu4444ussssssssss",
     "SELECT rb.run_id, rb.bug_id, rb.tid_a, rb.tid_b, rb.addr_a,"
     " rb.addr_b, rb.count, sa.frames, sb.frames, rb.value, rb.location,"
     " sl.frames, rb.parents, s1.frames, s2.frames, rb.locks, rb.names"
     " FROM run_bugs rb"
     " LEFT JOIN stacks sa ON sa.id = rb.stack_a"
     " LEFT JOIN stacks sb ON sb.id = rb.stack_b"
     " LEFT JOIN stacks sl ON sl.id = rb.loc_stack"
     " LEFT JOIN stacks s1 ON s1.id = rb.spawn_a"
     " LEFT JOIN stacks s2 ON s2.id = rb.spawn_b"
     " WHERE rb.run_id > ?1 ORDER BY rb.run_id, rb.bug_id"},
    /* Version 8: a serial run's schedule; decisions -1 bytes long for
     * NULL (not kept). */
    {R_SCHED, "uu4s8n",
     "SELECT run_id, points, switches, digest, failed, decisions"
     " FROM schedules WHERE run_id > ?1 ORDER BY run_id"},
};

/* Programs' hashes are stored as hex text; the stream carries the u64. */
static void put_program(wbuf *b, sqlite3_stmt *s)
{
	const char *hex = (const char *)sqlite3_column_text(s, 1);

	put_col_u64(b, s, 0);
	put_u64(b, hex ? strtoull(hex, NULL, 16) : 0);
	put_col_str(b, s, 2);
	put_col_str(b, s, 3);
	put_col_u32(b, s, 4);
}

static wasm_status export_query(db *d, writer *w, const struct export_query *q,
				uint64_t since, bool all_campaigns,
				uint64_t *cursor, uint64_t *nruns,
				wasm_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db_sqlite(d), q->sql, -1, &s, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, (sqlite3_int64)since);
		if (sqlite3_bind_parameter_count(s) >= 2)
			sqlite3_bind_int(s, 2, all_campaigns);
	}
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *bad = NULL;
		int i;

		/* A program's hash is text (put_program). */
		for (i = 0; q->spec[i]; i++) {
			bool hash = q->type == R_PROGRAM && i == 1;
			if ((bad = col_bad(s, i, hash ? 's' : q->spec[i])))
				break;
			if (hash && !hex16(sqlite3_column_text(s, i))) {
				bad = "16 hex digits";
				break;
			}
		}
		if (bad) {
			wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
				     "%s: %s %lld: %s is not %s; the "
				     "workspace is damaged",
				     db_file(d), record_names[q->type],
				     (long long)sqlite3_column_int64(s, 0),
				     sqlite3_column_name(s, i), bad);
			sqlite3_finalize(s);
			return WASM_MALFORMED;
		}
		w->rec.len = 0;
		if (q->type == R_PROGRAM)
			put_program(&w->rec, s);
		else
			put_row(&w->rec, s, q->spec);
		if (q->type == R_RUN) {
			*cursor = (uint64_t)sqlite3_column_int64(s, 0);
			++*nruns;
		}
		if (w->rec.oom) {
			sqlite3_finalize(s);
			return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory exporting %s",
					    db_file(d));
		}
		if (!emit_rec(w, q->type)) {
			sqlite3_finalize(s);
			return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
					    "cannot write the export of %s: %s",
					    db_file(d), strerror(errno));
		}
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_sql_fail(d, err, rc, "exporting");
	return WASM_OK;
}

wasm_status db_export(db *d, uint64_t since, bool all_campaigns, FILE *out,
		      uint64_t *cursor, uint64_t *nruns, wasm_err *err)
{
	sqlite3 *h = db_sqlite(d);
	writer w = {.out = out};
	wasm_status st = WASM_OK;
	int rc;

	*cursor = since;
	*nruns = 0;
	sum4_init(&w.sum);
	if (since > INT64_MAX)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "cursor %llu is out of range; give a "
				    "cursor an export printed",
				    (unsigned long long)since);
	if ((rc = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK)
		return db_sql_fail(d, err, rc, "starting an export");
	put(&w.rec, sync_magic, sizeof sync_magic);
	put_u32(&w.rec, DB_SYNC_VERSION);
	if (w.rec.oom)
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory exporting %s", db_file(d));
	else if (!emit(&w, w.rec.p, w.rec.len))
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot write the export of %s: %s",
				  db_file(d), strerror(errno));
	for (size_t i = 0; st == WASM_OK &&
			   i < sizeof export_queries / sizeof *export_queries;
	     i++)
		st = export_query(d, &w, &export_queries[i], since,
				  all_campaigns, cursor, nruns, err);
	sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
	if (st == WASM_OK) {
		w.rec.len = 0;
		put_u64(&w.rec, w.count);
		/* The sum so far: everything before the end record. */
		put_u64(&w.rec, sum4_end(&w.sum));
		if (!emit_rec(&w, R_END) || fflush(out) != 0)
			st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
					  "cannot write the export of %s: %s",
					  db_file(d), strerror(errno));
	}
	wasm_free(w.rec.p);
	return st;
}

/* ---- reading ------------------------------------------------------------- */

/* A cursor over the stream; the first error sticks and names its offset. */
typedef struct rd {
	const uint8_t *p;
	size_t len, off;
	const char *src;
	wasm_err *err;
	bool bad;
	uint32_t ver; /* the stream's format version */
} rd;

/* "SRC: byte N: WHY WHAT; nothing was imported". */
static bool rd_fail(rd *r, size_t off, const char *why, const char *what)
{
	if (!r->bad)
		wasm_err_set(r->err, WASM_MALFORMED, off,
			     "%s: byte %zu: %s %s; nothing was imported",
			     r->src, off, why, what);
	r->bad = true;
	return false;
}

static bool need(rd *r, size_t n, const char *what)
{
	if (r->bad)
		return false;
	if (r->len - r->off < n)
		return rd_fail(r, r->off, "record ends inside", what);
	return true;
}

static uint8_t rd_u8(rd *r, const char *what)
{
	return need(r, 1, what) ? r->p[r->off++] : 0;
}

static uint32_t rd_u32(rd *r, const char *what)
{
	uint32_t v = 0;

	if (need(r, 4, what)) {
		v = get_u32(r->p + r->off);
		r->off += 4;
	}
	return v;
}

static uint64_t rd_u64(rd *r, const char *what)
{
	uint64_t v = 0;

	if (need(r, 8, what)) {
		v = get_u64(r->p + r->off);
		r->off += 8;
	}
	return v;
}

/* An id or count that SQLite stores as a signed 64-bit integer. */
static int64_t rd_i64(rd *r, const char *what)
{
	size_t at = r->off;
	uint64_t v = rd_u64(r, what);

	if (v > INT64_MAX)
		rd_fail(r, at, "out of range:", what);
	return (int64_t)v;
}

static double rd_f64(rd *r, const char *what)
{
	size_t at = r->off;
	uint64_t u = rd_u64(r, what);
	double v;

	memcpy(&v, &u, sizeof v);
	if (!isfinite(v))
		rd_fail(r, at, "not a finite number:", what);
	return v;
}

/* A byte string (blob) or text: *n bytes at the returned pointer (into
 * the stream, not NUL-terminated). Text may not hold NUL bytes; NULL is
 * returned for a NULL string only when nullable. */
typedef struct span {
	const uint8_t *p;
	uint32_t n;
} span;

static span rd_bytes(rd *r, bool text, bool nullable, const char *what)
{
	size_t at = r->off;
	uint32_t n = rd_u32(r, what);
	span sp = {NULL, 0};

	if (r->bad)
		return sp;
	if (n == NULL_STR && text) {
		if (!nullable)
			rd_fail(r, at, "missing (null)", what);
		return sp;
	}
	if (r->len - r->off < n) {
		rd_fail(r, at, "length runs past its record:", what);
		return sp;
	}
	if (text && n > TEXT_MAX) {
		rd_fail(r, at, "longer than 1 MiB:", what);
		return sp;
	}
	sp.p = r->p + r->off;
	sp.n = n;
	if (text && memchr(sp.p, 0, n))
		rd_fail(r, at, "NUL byte inside", what);
	else if (!text && !n)
		sp.p = (const uint8_t *)"";
	r->off += n;
	return sp;
}

static span rd_str(rd *r, const char *what)
{
	return rd_bytes(r, true, false, what);
}

static span rd_nstr(rd *r, const char *what)
{
	return rd_bytes(r, true, true, what);
}

static bool span_is(span s, const char *t)
{
	return s.p && s.n == strlen(t) && !memcmp(s.p, t, s.n);
}

/* ---- checking the framing -------------------------------------------------*/

/* Walk the records once: lengths, the end record, count and checksum. */
static bool check_frame(rd *r)
{
	uint64_t count = 0, sum;
	uint32_t ver;

	if (r->len < HEAD_LEN || memcmp(r->p, sync_magic, sizeof sync_magic))
		return rd_fail(r, 0, "no HEISSYNC header: not the output of",
			       "'heisen export'");
	ver = get_u32(r->p + 8);
	if (ver == 0 || ver > DB_SYNC_VERSION) {
		if (!r->bad)
			wasm_err_set(r->err, WASM_MALFORMED, 8,
				     "%s: byte 8: stream format version %u, "
				     "this heisen reads versions 1 to %d; "
				     "import it with a newer heisen",
				     r->src, ver, DB_SYNC_VERSION);
		r->bad = true;
		return false;
	}
	r->ver = ver;
	r->off = HEAD_LEN;
	for (;;) {
		size_t at = r->off;
		uint32_t n;
		uint8_t t;

		if (r->len - at < REC_HEAD)
			return rd_fail(r, at, "truncated (no end record):",
				       "the export was cut short");
		t = r->p[at];
		n = get_u32(r->p + at + 1);
		if (n > r->len - at - REC_HEAD)
			return rd_fail(r, at,
				       "truncated (a record runs past the",
				       "end): the export was cut short");
		if (t != R_END) {
			if (t < R_NODE || t > R_SCHED ||
			    (t == R_SCHED && r->ver < 8))
				return rd_fail(r, at, "unknown record type:",
					       "the stream is corrupt");
			r->off = at + REC_HEAD + n;
			count++;
			continue;
		}
		sum = db_sync_checksum(r->ver, r->p, at);
		if (n != END_LEN)
			return rd_fail(r, at, "end record of the wrong",
				       "length");
		if (at + REC_HEAD + END_LEN != r->len)
			return rd_fail(r, at + REC_HEAD + END_LEN,
				       "bytes after", "the end record");
		if (get_u64(r->p + at + REC_HEAD) != count)
			return rd_fail(r, at + REC_HEAD,
				       "record count does not match:",
				       "the stream is corrupt");
		if (get_u64(r->p + at + REC_HEAD + 8) != sum)
			return rd_fail(
			    r, at + REC_HEAD + 8,
			    "checksum mismatch:", "the stream is corrupt");
		r->len = at; /* the records end where the end record starts */
		r->off = HEAD_LEN;
		return true;
	}
}

/* ---- importing ----------------------------------------------------------- */

/* A record of the stream mapped to a local row. */
typedef struct ent {
	uint64_t sid;
	int64_t id;
	int64_t program; /* campaigns and bugs: the local program */
	bool fresh;	 /* runs: inserted by this import */
} ent;

typedef struct map {
	ent *v;
	size_t n, cap;
} map;

enum { M_NODE, M_PROGRAM, M_CAMPAIGN, M_RUN, M_BUG, M_COUNT };

enum {
	Q_NODE_FIND,
	Q_NODE_ADD,
	Q_PROGRAM_FIND,
	Q_PROGRAM_ADD,
	Q_CAMPAIGN_FIND,
	Q_CAMPAIGN_ADD,
	Q_CAMPAIGN_UPDATE,
	Q_RUN_FIND,
	Q_RUN_ADD,
	Q_BUG_FIND,
	Q_BUG_ADD,
	Q_RUN_BUG_ADD,
	Q_SCHED_ADD,
	Q_STACK_ADD,
	Q_COUNT
};

/* A call stack checked (id 0) or stored (its row id) by its text: a
 * stream repeats a bug's few stacks in each of its runs, and a check of
 * one parses it, an upsert costs a write. Entries point into the stream,
 * which outlives the import. */
#define STACK_SLOTS 256
typedef struct stack_slot {
	span text;
	int64_t id;
} stack_slot;

/* Another text of a run-bug record (a location, parents, locks, names)
 * found well formed by check: a race's location repeats in each of its
 * runs. */
typedef struct text_slot {
	span text;
	bool (*check)(const char *);
} text_slot;

typedef struct importer {
	db *d;
	rd r;
	map m[M_COUNT];
	db_sync_added added;
	sqlite3_stmt *st[Q_COUNT];
	int nst;
	double now;
	stack_slot stacks[STACK_SLOTS];
	text_slot texts[STACK_SLOTS];
} importer;

static ent *map_find(map *m, uint64_t sid)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].sid == sid)
			return &m->v[mid];
		if (m->v[mid].sid < sid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The local entry of a reference read at offset at; 0 means none when
 * optional. NULL (and the error set) when it names no earlier record. */
static ent *ref(importer *im, int m, uint64_t sid, size_t at, bool optional,
		const char *what)
{
	static ent none;
	ent *e;

	if (im->r.bad)
		return NULL;
	if (sid == 0 && optional)
		return &none;
	if (!(e = map_find(&im->m[m], sid)))
		rd_fail(&im->r, at,
			"refers to a record not in the stream:", what);
	return e;
}

static bool map_add(importer *im, int m, uint64_t sid, size_t at, ent e)
{
	map *mp = &im->m[m];

	if (sid == 0 || (mp->n && mp->v[mp->n - 1].sid >= sid))
		return rd_fail(&im->r, at, "id zero or out of order in a",
			       record_names[m + 1]);
	if (mp->n == mp->cap) {
		size_t cap = mp->cap ? 2 * mp->cap : 64;
		ent *v = wasm_realloc(mp->v, cap * sizeof *v);
		if (!v) {
			wasm_err_set(im->r.err, WASM_NOMEM, WASM_NO_OFFSET,
				     "out of memory importing %s", im->r.src);
			im->r.bad = true;
			return false;
		}
		mp->v = v;
		mp->cap = cap;
	}
	e.sid = sid;
	mp->v[mp->n++] = e;
	return true;
}

static sqlite3_stmt *prep(importer *im, const char *sql)
{
	sqlite3_stmt *s = db_stmt_keep(im->d, sql, im->r.err);

	if (!s) {
		im->r.bad = true;
		return NULL;
	}
	im->st[im->nst++] = s;
	return s;
}

static void bind_span(sqlite3_stmt *s, int i, span sp, bool text)
{
	if (!sp.p)
		sqlite3_bind_null(s, i);
	else if (text)
		sqlite3_bind_text(s, i, (const char *)sp.p, (int)sp.n,
				  SQLITE_STATIC);
	else
		sqlite3_bind_blob(s, i, sp.p, (int)sp.n, SQLITE_STATIC);
}

/* Step s to its end: *id gets the first column of a row if any (0 if
 * none), or the inserted row id for an INSERT (with want_rowid). */
static bool step(importer *im, sqlite3_stmt *s, int64_t *id, bool want_rowid,
		 const char *what)
{
	int rc = sqlite3_step(s);

	if (id)
		*id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0)
		      : want_rowid && rc == SQLITE_DONE
			  ? sqlite3_last_insert_rowid(db_sqlite(im->d))
			  : 0;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return true;
	if (!im->r.bad)
		db_sql_fail(im->d, im->r.err, rc, what);
	im->r.bad = true;
	return false;
}

static const char *const import_sql[Q_COUNT] = {
    [Q_NODE_FIND] = "SELECT id FROM nodes WHERE node_key = ?1",
    [Q_NODE_ADD] = "INSERT INTO nodes(node_key, hostname, first_seen)"
		   " VALUES(?1, ?2, ?3)",
    [Q_PROGRAM_FIND] = "SELECT id FROM programs WHERE hash = ?1",
    [Q_PROGRAM_ADD] = "INSERT INTO programs(hash, name, path, nsites,"
		      " first_seen) VALUES(?1, ?2, ?3, ?4, ?5)",
    /* An imported campaign by its origin, or one made here that went out
     * and comes back. */
    [Q_CAMPAIGN_FIND] =
	"SELECT id FROM campaigns WHERE origin = ?1 UNION ALL"
	" SELECT c.id FROM campaigns c LEFT JOIN nodes n ON n.id = c.node_id"
	" WHERE c.origin IS NULL AND " C_ORIGIN " = ?1 LIMIT 1",
    [Q_CAMPAIGN_ADD] =
	"INSERT INTO campaigns(program_id, node_id, origin, kind, created,"
	" densities, density_bp, profiles, runs, budget_s, jobs, seed, delay,"
	" timeout_s, prune, pruned, args, status, planned, mask_version,"
	" owner, stdin, stdin_hash, schedule, failure, dirs, env, max_threads,"
	" max_memory_pages) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	" ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,"
	" ?24, ?25, ?26, ?27, ?28, ?29)",
    /* A later export of a campaign tells how it went on; one made here is
     * this workspace's to tell. */
    [Q_CAMPAIGN_UPDATE] = "UPDATE campaigns SET status = ?2, owner = ?3,"
			  " planned = ?4 WHERE id = ?1 AND origin IS NOT NULL",
    [Q_RUN_FIND] = "SELECT id FROM runs WHERE campaign_id = ?1 AND idx = ?2",
    [Q_RUN_ADD] = "INSERT INTO runs(campaign_id, node_id, idx, profile,"
		  " density_bp, seed, started, duration_us, status, exit_code,"
		  " msg, nbugs, stderr) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		  " ?9, ?10, ?11, ?12, ?13)",
    [Q_BUG_FIND] = "SELECT id FROM bugs WHERE program_id = ?1"
		   " AND site_a = ?2 AND site_b = ?3",
    [Q_BUG_ADD] = "INSERT INTO bugs(program_id, site_a, kind_a, func_a,"
		  " file_a, line_a, site_b, kind_b, func_b, file_b, line_b,"
		  " first_run, first_seen, width_a, width_b, sig) VALUES(?1,"
		  " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
		  " ?15, ?16)",
    [Q_RUN_BUG_ADD] = "INSERT OR IGNORE INTO run_bugs(run_id, bug_id, tid_a,"
		      " tid_b, addr_a, addr_b, count, stack_a, stack_b, value,"
		      " location, loc_stack, parents, spawn_a, spawn_b, locks,"
		      " names) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		      " ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    [Q_SCHED_ADD] = "INSERT INTO schedules(run_id, points, switches, digest,"
		    " failed, decisions) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    [Q_STACK_ADD] = "INSERT INTO stacks(frames) VALUES(?1)"
		    " ON CONFLICT(frames) DO UPDATE SET frames = frames"
		    " RETURNING id",
};

static void bind_ref(sqlite3_stmt *s, int i, const ent *e)
{
	if (e->id)
		sqlite3_bind_int64(s, i, e->id);
	else
		sqlite3_bind_null(s, i);
}

static bool in_list(span s, const char *const *names)
{
	for (; *names; names++)
		if (span_is(s, *names))
			return true;
	return false;
}

static bool imp_node(importer *im, size_t at)
{
	rd *r = &im->r;
	uint64_t sid = (uint64_t)rd_i64(r, "node id");
	span key = rd_str(r, "node key"), host = rd_str(r, "host name");
	sqlite3_stmt **q = im->st;
	ent e = {0};

	if (r->bad)
		return false;
	if (!key.n)
		return rd_fail(r, at, "empty", "node key");
	bind_span(q[Q_NODE_FIND], 1, key, true);
	if (!step(im, q[Q_NODE_FIND], &e.id, false, "finding a node"))
		return false;
	if (!e.id) {
		bind_span(q[Q_NODE_ADD], 1, key, true);
		bind_span(q[Q_NODE_ADD], 2, host, true);
		sqlite3_bind_double(q[Q_NODE_ADD], 3, im->now);
		if (!step(im, q[Q_NODE_ADD], &e.id, true, "adding a node"))
			return false;
		im->added.nodes++;
	}
	return map_add(im, M_NODE, sid, at, e);
}

static bool imp_program(importer *im, size_t at)
{
	rd *r = &im->r;
	uint64_t sid = (uint64_t)rd_i64(r, "program id");
	uint64_t hash = rd_u64(r, "program hash");
	span name = rd_str(r, "program name"),
	     path = rd_nstr(r, "program path");
	uint32_t nsites = rd_u32(r, "program site count");
	sqlite3_stmt **q = im->st;
	char hex[17];
	ent e = {0};

	if (r->bad)
		return false;
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash);
	sqlite3_bind_text(q[Q_PROGRAM_FIND], 1, hex, -1, SQLITE_STATIC);
	if (!step(im, q[Q_PROGRAM_FIND], &e.id, false, "finding a program"))
		return false;
	if (!e.id) {
		sqlite3_stmt *s = q[Q_PROGRAM_ADD];
		sqlite3_bind_text(s, 1, hex, -1, SQLITE_STATIC);
		bind_span(s, 2, name, true);
		bind_span(s, 3, path, true);
		sqlite3_bind_int64(s, 4, nsites);
		sqlite3_bind_double(s, 5, im->now);
		if (!step(im, s, &e.id, true, "adding a program"))
			return false;
		im->added.programs++;
	}
	e.program = e.id;
	return map_add(im, M_PROGRAM, sid, at, e);
}

/* A campaign's stdin: at most DB_STDIN_MAX bytes whose FNV-1a 64 (the
 * rw_hash its hash was made with) is the hex text of hash. */
static bool stdin_ok(span in, span hash)
{
	char want[17];

	if (in.n > DB_STDIN_MAX || hash.n != 16)
		return false;
	snprintf(want, sizeof want, "%016llx",
		 (unsigned long long)fnv(FNV_OFFSET, in.p, in.n));
	return !memcmp(want, hash.p, 16);
}

/* Whether b holds NUL-terminated strings only (wasi_world's packed
 * form), an even number of them for pairs. */
static bool packed_ok(span b, bool pairs)
{
	size_t n = 0;

	for (size_t i = 0; i < b.n; i++)
		n += b.p[i] == '\0';
	return (!b.n || !b.p[b.n - 1]) && (!pairs || n % 2 == 0);
}

static bool imp_campaign(importer *im, size_t at)
{
	static const char *const kinds[] = {"sweep", "check", "explore", NULL};
	static const char *const statuses[] = {"running", "stopped", "done",
					       "interrupted", NULL};
	rd *r = &im->r;
	sqlite3_stmt **q = im->st, *s = q[Q_CAMPAIGN_ADD];
	uint64_t sid = (uint64_t)rd_i64(r, "campaign id");
	size_t pat = r->off;
	const ent *prog = ref(im, M_PROGRAM, rd_u64(r, "campaign program"), pat,
			      false, "campaign program");
	size_t nat = r->off;
	const ent *node = ref(im, M_NODE, rd_u64(r, "campaign node"), nat, true,
			      "campaign node");
	span origin = rd_str(r, "campaign origin"), kind;
	span dens, densbp, profiles, pruned, args, status, owner;
	span in = {NULL, 0}, in_hash = {NULL, 0};
	span sched = {NULL, 0}, failure = {NULL, 0};
	span dirs = {NULL, 0}, env = {NULL, 0};
	uint32_t max_threads = 0, max_pages = 0;
	uint32_t runs, jobs, delay, mask;
	double created, budget, timeout;
	int64_t seed, planned;
	uint8_t prune;
	ent e = {0};

	kind = rd_str(r, "campaign kind");
	created = rd_f64(r, "campaign creation time");
	dens = rd_str(r, "campaign densities");
	densbp = rd_bytes(r, false, false, "campaign density list");
	profiles = rd_str(r, "campaign profiles");
	runs = rd_u32(r, "campaign runs");
	budget = rd_f64(r, "campaign budget");
	jobs = rd_u32(r, "campaign jobs");
	seed = (int64_t)rd_u64(r, "campaign seed");
	delay = rd_u32(r, "campaign delay");
	timeout = rd_f64(r, "campaign timeout");
	prune = rd_u8(r, "campaign prune flag");
	pruned = rd_bytes(r, false, false, "campaign pruned sites");
	args = rd_bytes(r, false, false, "campaign arguments");
	status = rd_str(r, "campaign status");
	planned = rd_i64(r, "campaign plan size");
	mask = rd_u32(r, "campaign mask version");
	owner = rd_nstr(r, "campaign owner");
	if (r->ver >= 7) {
		in = rd_bytes(r, false, false, "campaign stdin");
		in_hash = rd_nstr(r, "campaign stdin hash");
	}
	if (r->ver >= 8) {
		sched = rd_nstr(r, "campaign schedule");
		failure = rd_nstr(r, "campaign failure");
	}
	if (r->ver >= 10) {
		dirs = rd_bytes(r, false, false, "campaign directories");
		env = rd_bytes(r, false, false, "campaign environment");
		max_threads = rd_u32(r, "campaign thread limit");
		max_pages = rd_u32(r, "campaign memory limit");
	}
	if (r->bad || !prog || !node)
		return false;
	if ((sched.p && (!sched.n || sched.n > 64)) || failure.n > 4096)
		return rd_fail(r, at, "malformed schedule or failure in",
			       "campaign");
	if (in_hash.p ? !stdin_ok(in, in_hash) : in.n != 0)
		return rd_fail(r, at, "damaged stdin in", "campaign");
	if (!origin.n)
		return rd_fail(r, at, "empty", "campaign origin");
	if (!in_list(kind, kinds))
		return rd_fail(r, at, "unknown", "campaign kind");
	if (!in_list(status, statuses))
		return rd_fail(r, at, "unknown", "campaign status");
	if (densbp.n % 4 || pruned.n % 4 || prune > 1 ||
	    (args.n && args.p[args.n - 1]) || !packed_ok(dirs, true) ||
	    !packed_ok(env, false) || max_pages > 65536)
		return rd_fail(r, at, "malformed list in", "campaign");
	bind_span(q[Q_CAMPAIGN_FIND], 1, origin, true);
	if (!step(im, q[Q_CAMPAIGN_FIND], &e.id, false, "finding a campaign"))
		return false;
	if (e.id) {
		s = q[Q_CAMPAIGN_UPDATE];
		sqlite3_bind_int64(s, 1, e.id);
		bind_span(s, 2, status, true);
		bind_span(s, 3, owner, true);
		sqlite3_bind_int64(s, 4, planned);
		if (!step(im, s, NULL, false, "updating a campaign"))
			return false;
	} else {
		sqlite3_bind_int64(s, 1, prog->id);
		bind_ref(s, 2, node);
		bind_span(s, 3, origin, true);
		bind_span(s, 4, kind, true);
		sqlite3_bind_double(s, 5, created);
		bind_span(s, 6, dens, true);
		bind_span(s, 7, densbp, false);
		bind_span(s, 8, profiles, true);
		sqlite3_bind_int64(s, 9, runs);
		sqlite3_bind_double(s, 10, budget);
		sqlite3_bind_int64(s, 11, jobs);
		sqlite3_bind_int64(s, 12, seed);
		sqlite3_bind_int64(s, 13, delay);
		sqlite3_bind_double(s, 14, timeout);
		sqlite3_bind_int(s, 15, prune);
		bind_span(s, 16, pruned, false);
		bind_span(s, 17, args, false);
		bind_span(s, 18, status, true);
		sqlite3_bind_int64(s, 19, planned);
		sqlite3_bind_int64(s, 20, mask);
		bind_span(s, 21, owner, true);
		bind_span(s, 22, in_hash.p ? in : (span){NULL, 0}, false);
		bind_span(s, 23, in_hash, true);
		bind_span(s, 24, sched, true);
		bind_span(s, 25, failure, true);
		bind_span(s, 26, dirs.n ? dirs : (span){NULL, 0}, false);
		bind_span(s, 27, env.n ? env : (span){NULL, 0}, false);
		sqlite3_bind_int64(s, 28, max_threads);
		sqlite3_bind_int64(s, 29, max_pages);
		if (!step(im, s, &e.id, true, "adding a campaign"))
			return false;
		im->added.campaigns++;
	}
	e.program = prog->id;
	return map_add(im, M_CAMPAIGN, sid, at, e);
}

static bool imp_run(importer *im, size_t at)
{
	/* det_status_name's names. */
	static const char *const statuses[] = {
	    "ok", "exit", "trap", "timeout", "limit", "crash", "error", NULL};
	rd *r = &im->r;
	sqlite3_stmt **q = im->st, *s = q[Q_RUN_ADD];
	uint64_t sid = (uint64_t)rd_i64(r, "run id");
	size_t cat = r->off;
	const ent *camp = ref(im, M_CAMPAIGN, rd_u64(r, "run campaign"), cat,
			      false, "run campaign");
	size_t nat = r->off;
	const ent *node =
	    ref(im, M_NODE, rd_u64(r, "run node"), nat, true, "run node");
	int64_t idx = rd_i64(r, "run plan index");
	span profile = rd_str(r, "run profile");
	uint32_t bp = rd_u32(r, "run density");
	int64_t seed = (int64_t)rd_u64(r, "run seed");
	double started = rd_f64(r, "run start time");
	int64_t dur = rd_i64(r, "run duration");
	span status = rd_str(r, "run status");
	int32_t code = (int32_t)rd_u32(r, "run exit code");
	span msg = rd_nstr(r, "run message");
	uint32_t nbugs = rd_u32(r, "run bug count");
	span tail = r->ver >= 10 ? rd_nstr(r, "run stderr") : (span){NULL, 0};
	ent e = {0};

	if (r->bad || !camp || !node)
		return false;
	if (sid > im->added.last_run)
		im->added.last_run = sid;
	if (!in_list(status, statuses))
		return rd_fail(r, at, "unknown", "run status");
	if (tail.n >= DB_TAIL_MAX)
		return rd_fail(r, at, "too long", "run stderr");
	if (bp > 10000)
		return rd_fail(r, at, "density above 100% in", "run");
	sqlite3_bind_int64(q[Q_RUN_FIND], 1, camp->id);
	sqlite3_bind_int64(q[Q_RUN_FIND], 2, idx);
	if (!step(im, q[Q_RUN_FIND], &e.id, false, "finding a run"))
		return false;
	if (!e.id) {
		sqlite3_bind_int64(s, 1, camp->id);
		bind_ref(s, 2, node);
		sqlite3_bind_int64(s, 3, idx);
		bind_span(s, 4, profile, true);
		sqlite3_bind_int64(s, 5, bp);
		sqlite3_bind_int64(s, 6, seed);
		sqlite3_bind_double(s, 7, started);
		sqlite3_bind_int64(s, 8, dur);
		bind_span(s, 9, status, true);
		sqlite3_bind_int(s, 10, code);
		bind_span(s, 11, msg, true);
		sqlite3_bind_int64(s, 12, nbugs);
		bind_span(s, 13, tail, true);
		if (!step(im, s, &e.id, true, "adding a run"))
			return false;
		e.fresh = true;
		im->added.runs++;
	}
	e.program = camp->program;
	return map_add(im, M_RUN, sid, at, e);
}

/* One site of a bug: binds ?i .. ?i+4 of s. */
static void imp_site(rd *r, sqlite3_stmt *s, int i, uint32_t *id, bool *kind_ok)
{
	span func, file;
	uint8_t kind;

	*id = rd_u32(r, "bug site");
	kind = rd_u8(r, "bug site kind");
	func = rd_nstr(r, "bug site function");
	if (func.n > SITE_NAME_MAX)
		rd_fail(r, r->off - func.n,
			"longer than 64 KiB:", "bug site function");
	file = rd_nstr(r, "bug site file");
	if (file.n > SITE_NAME_MAX)
		rd_fail(r, r->off - file.n,
			"longer than 64 KiB:", "bug site file");
	sqlite3_bind_int64(s, i, *id);
	sqlite3_bind_int(s, i + 1, kind);
	bind_span(s, i + 2, func, true);
	bind_span(s, i + 3, file, true);
	sqlite3_bind_int64(s, i + 4, rd_u32(r, "bug site line"));
	/* rw_kind: read, write, three atomics, two ranges. */
	*kind_ok = kind <= 6;
}

/* db_sig_format's text: DB_SIG_LEN lower-case hex digits. */
static bool sig_ok(span sig)
{
	if (sig.n != DB_SIG_LEN)
		return false;
	for (size_t i = 0; i < sig.n; i++)
		if (!strchr("0123456789abcdef", sig.p[i]) || !sig.p[i])
			return false;
	return true;
}

static bool imp_bug(importer *im, size_t at)
{
	rd *r = &im->r;
	sqlite3_stmt **q = im->st, *s = q[Q_BUG_ADD];
	uint64_t sid = (uint64_t)rd_i64(r, "bug id");
	size_t pat = r->off;
	const ent *prog = ref(im, M_PROGRAM, rd_u64(r, "bug program"), pat,
			      false, "bug program");
	uint32_t a, b;
	bool ka, kb;
	size_t fat;
	const ent *first;
	ent e = {0};

	imp_site(r, s, 2, &a, &ka);
	imp_site(r, s, 7, &b, &kb);
	fat = r->off;
	first = ref(im, M_RUN, rd_u64(r, "bug first run"), fat, true,
		    "bug first run");
	sqlite3_bind_double(s, 13, rd_f64(r, "bug first seen"));
	for (int i = 0; i < 2; i++)
		sqlite3_bind_int(s, 14 + i,
				 r->ver >= 3 ? rd_u8(r, "bug site width") : 0);
	if (r->ver >= 4) {
		size_t sat = r->off;
		span sig = rd_nstr(r, "bug signature");
		if (sig.p && !sig_ok(sig)) {
			sqlite3_clear_bindings(s);
			return rd_fail(r, sat, "malformed", "bug signature");
		}
		bind_span(s, 16, sig, true);
	}
	if (r->bad || !prog || !first) {
		sqlite3_clear_bindings(s);
		return false;
	}
	if (!ka || !kb || a > b) {
		sqlite3_clear_bindings(s);
		return rd_fail(r, at, "bad site kind or order in", "bug");
	}
	if (first->id && first->program != prog->id) {
		sqlite3_clear_bindings(s);
		return rd_fail(r, at, "first run of another program in", "bug");
	}
	sqlite3_bind_int64(q[Q_BUG_FIND], 1, prog->id);
	sqlite3_bind_int64(q[Q_BUG_FIND], 2, a);
	sqlite3_bind_int64(q[Q_BUG_FIND], 3, b);
	if (!step(im, q[Q_BUG_FIND], &e.id, false, "finding a bug")) {
		sqlite3_clear_bindings(s);
		return false;
	}
	if (!e.id) {
		sqlite3_bind_int64(s, 1, prog->id);
		bind_ref(s, 12, first);
		if (!step(im, s, &e.id, true, "adding a bug"))
			return false;
		im->added.bugs++;
	} else {
		sqlite3_clear_bindings(s);
	}
	e.program = prog->id;
	return map_add(im, M_BUG, sid, at, e);
}

/* Whether t is a call stack in db_stack_format's text. */
static bool stack_ok(const char *t)
{
	db_stack st;
	wasm_err e;
	bool ok = !db_stack_parse(t, &st, &e);

	if (ok)
		db_stack_clear(&st);
	return ok;
}

/* Whether t is a location in db_loc_format's text. */
static bool loc_ok(const char *t)
{
	db_loc l;
	wasm_err e;
	bool ok = !db_loc_parse(t, &l, &e);

	if (ok)
		db_loc_clear(&l);
	return ok;
}

static bool parents_ok(const char *t)
{
	db_spawn sp[2];
	return db_parents_parse(t, sp);
}

static bool names_ok(const char *t)
{
	char n[2][DB_NAME_MAX];
	wasm_err e;
	return !db_names_parse(t, n, &e);
}

/* Whether t is the locks held in db_locks_format's text. */
static bool locks_ok(const char *t)
{
	db_locks l[2];
	wasm_err e;
	bool ok = !db_locks_parse(t, l, &e);

	if (ok) {
		db_locks_clear(&l[0]);
		db_locks_clear(&l[1]);
	}
	return ok;
}

/* Whether sp's text passes check (a NUL-terminated copy of it). */
static bool text_ok(span sp, bool (*check)(const char *))
{
	char *t = wasm_strndup((const char *)sp.p, sp.n);
	bool ok = t && check(t);

	wasm_free(t);
	return ok;
}

/* A word at a time: every run's stacks are hashed, and FNV's byte loop
 * was a tenth of a fetch. A clash only costs a check or an upsert. */
static size_t slot_of(span text)
{
	uint64_t h = FNV_OFFSET ^ text.n, w;
	uint32_t i = 0;

	for (; i + 8 <= text.n; i += 8) {
		memcpy(&w, text.p + i, 8);
		h = (h ^ w) * FNV_PRIME;
		h ^= h >> 29;
	}
	h = fnv(h, text.p + i, text.n - i);
	return (size_t)((h ^ h >> 32) % STACK_SLOTS);
}

static stack_slot *stack_slot_of(importer *im, span text)
{
	return &im->stacks[slot_of(text)];
}

/* An empty slot's text is NULL: memcmp must not see it. */
static bool same_text(span a, span b)
{
	return a.n == b.n && (!a.n || !memcmp(a.p, b.p, a.n));
}

/* Whether text passes check, each text checked once per stream. */
static bool text_checked(importer *im, span text, bool (*check)(const char *))
{
	text_slot *t = &im->texts[slot_of(text)];

	if (t->check == check && same_text(t->text, text))
		return true;
	if (!text_ok(text, check))
		return false;
	t->text = text;
	t->check = check;
	return true;
}

/* Whether text is in its slot: checked, and stored if the slot's id is
 * set. */
static bool stack_seen(const stack_slot *slot, span text)
{
	return text.p && same_text(slot->text, text);
}

/* Whether stack text (NULL: none) is well formed; *slot gets its slot. */
static bool stack_check(importer *im, span text, stack_slot **slot)
{
	*slot = NULL;
	if (!text.p)
		return true;
	*slot = stack_slot_of(im, text);
	if (stack_seen(*slot, text))
		return true;
	if (!text_ok(text, stack_ok))
		return false;
	(*slot)->text = text;
	(*slot)->id = 0;
	return true;
}

static bool imp_run_bug(importer *im, size_t at)
{
	rd *r = &im->r;
	sqlite3_stmt *s = im->st[Q_RUN_BUG_ADD];
	size_t rat = r->off;
	const ent *run =
	    ref(im, M_RUN, rd_u64(r, "run_bug run"), rat, false, "run_bug run");
	size_t bat = r->off;
	const ent *bug =
	    ref(im, M_BUG, rd_u64(r, "run_bug bug"), bat, false, "run_bug bug");
	uint32_t v[4];
	int64_t count;
	/* The accesses' stacks, the location's, the spawns'. */
	stack_slot *slot[5] = {NULL};
	span stk[5] = {{NULL, 0}}, val = {NULL, 0}, loc = {NULL, 0},
	     par = {NULL, 0}, locks = {NULL, 0}, names = {NULL, 0};
	char vt[80];

	for (int i = 0; i < 4; i++)
		v[i] = rd_u32(r, "run_bug thread or address");
	count = rd_i64(r, "run_bug count");
	for (int i = 0; i < 2; i++) {
		size_t sat = r->off;
		stk[i] = r->ver >= 2 ? rd_nstr(r, "run_bug call stack")
				     : (span){NULL, 0};
		if (!stack_check(im, stk[i], &slot[i]))
			return rd_fail(r, sat, "malformed",
				       "run_bug call stack");
	}
	if (r->ver >= 3) {
		size_t vat = r->off;
		db_value dv;
		wasm_err e;
		val = rd_nstr(r, "run_bug value");
		if (val.p && val.n < sizeof vt) {
			memcpy(vt, val.p, val.n);
			vt[val.n] = '\0';
		}
		if (val.p &&
		    (val.n >= sizeof vt || db_value_parse(vt, &dv, &e)))
			return rd_fail(r, vat, "malformed", "run_bug value");
	}
	if (r->ver >= 5) {
		size_t lat = r->off, pat;
		loc = rd_nstr(r, "run_bug location");
		if (loc.p && !text_checked(im, loc, loc_ok))
			return rd_fail(r, lat, "malformed", "run_bug location");
		stk[2] = rd_nstr(r, "run_bug call stack");
		pat = r->off;
		par = rd_nstr(r, "run_bug parents");
		if (par.p && !text_checked(im, par, parents_ok))
			return rd_fail(r, pat, "malformed", "run_bug parents");
		stk[3] = rd_nstr(r, "run_bug call stack");
		stk[4] = rd_nstr(r, "run_bug call stack");
		for (int i = 2; i < 5; i++) {
			if (!stack_check(im, stk[i], &slot[i]))
				return rd_fail(r, lat, "malformed",
					       "run_bug call stack");
		}
	}
	if (r->ver >= 9) {
		size_t kat = r->off;
		locks = rd_nstr(r, "run_bug locks");
		if (locks.p && !text_checked(im, locks, locks_ok))
			return rd_fail(r, kat, "malformed", "run_bug locks");
		kat = r->off;
		names = rd_nstr(r, "run_bug thread names");
		if (names.p && !text_checked(im, names, names_ok))
			return rd_fail(r, kat, "malformed",
				       "run_bug thread names");
	}
	if (r->bad || !run || !bug)
		return false;
	if (run->program != bug->program)
		return rd_fail(r, at, "bug of another program in", "run_bug");
	/* A run already here came with its bugs. */
	if (!run->fresh)
		return true;
	sqlite3_bind_int64(s, 1, run->id);
	sqlite3_bind_int64(s, 2, bug->id);
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(s, 3 + i, v[i]);
	sqlite3_bind_int64(s, 7, count);
	for (int i = 0; i < 5; i++) {
		/* Parameters of the accesses', the location's and the
		 * spawns' stacks. */
		static const int param[5] = {8, 9, 12, 14, 15};
		int64_t id = 0;
		sqlite3_stmt *q = im->st[Q_STACK_ADD];
		if (!stk[i].p || !stk[i].n) {
			sqlite3_bind_null(s, param[i]);
			continue;
		}
		if (stack_seen(slot[i], stk[i]) && slot[i]->id) {
			sqlite3_bind_int64(s, param[i], slot[i]->id);
			continue;
		}
		sqlite3_bind_text(q, 1, (const char *)stk[i].p, (int)stk[i].n,
				  SQLITE_STATIC);
		if (!step(im, q, &id, true, "adding a call stack"))
			return false;
		slot[i]->text = stk[i];
		slot[i]->id = id;
		sqlite3_bind_int64(s, param[i], id);
	}
	if (val.p)
		sqlite3_bind_text(s, 10, vt, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 10);
	bind_span(s, 11, loc, true);
	bind_span(s, 13, par, true);
	bind_span(s, 16, locks, true);
	bind_span(s, 17, names, true);
	return step(im, s, NULL, false, "linking a run to a bug");
}

static bool imp_sched(importer *im, size_t at)
{
	rd *r = &im->r;
	sqlite3_stmt *s = im->st[Q_SCHED_ADD];
	size_t rat = r->off;
	const ent *run = ref(im, M_RUN, rd_u64(r, "schedule run"), rat, false,
			     "schedule run");
	int64_t points = rd_i64(r, "schedule points");
	uint32_t switches = rd_u32(r, "schedule switches");
	size_t dat = r->off;
	span digest = rd_str(r, "schedule digest");
	uint8_t failed = rd_u8(r, "schedule failure flag");
	size_t kat = r->off;
	uint32_t n = r->bad ? 0 : rd_u32(r, "schedule decisions");
	span dec = {NULL, 0};

	if (!r->bad && n != NULL_STR) {
		r->off = kat;
		dec = rd_bytes(r, false, false, "schedule decisions");
	}
	if (r->bad || !run)
		return false;
	for (uint32_t i = 0; i < digest.n; i++)
		if (!strchr("0123456789abcdef", digest.p[i]) || !digest.p[i])
			digest.n = 0;
	if (digest.n != 16)
		return rd_fail(r, dat, "malformed", "schedule digest");
	if (failed > 1 || points < 0 || dec.n > DB_SCHED_MAX)
		return rd_fail(r, at, "out-of-range field in", "schedule");
	/* A run already here came with its schedule. */
	if (!run->fresh)
		return true;
	sqlite3_bind_int64(s, 1, run->id);
	sqlite3_bind_int64(s, 2, points);
	sqlite3_bind_int64(s, 3, switches);
	bind_span(s, 4, digest, true);
	sqlite3_bind_int(s, 5, failed);
	if (dec.p)
		bind_span(s, 6, dec, false);
	else
		sqlite3_bind_null(s, 6);
	return step(im, s, NULL, false, "adding a run's schedule");
}

/* Decode and write every record; false with the error set. */
static bool import_records(importer *im)
{
	rd *r = &im->r;

	for (int i = 0; i < Q_COUNT; i++)
		if (!prep(im, import_sql[i]))
			return false;
	while (r->off < r->len) {
		size_t at = r->off, end;
		uint8_t t = r->p[at];
		uint32_t n = get_u32(r->p + at + 1);
		size_t full = r->len;
		bool ok;

		end = at + REC_HEAD + n;
		/* A record's fields may not run into the next one. */
		r->len = end;
		r->off = at + REC_HEAD;
		switch (t) {
		case R_NODE: ok = imp_node(im, at); break;
		case R_PROGRAM: ok = imp_program(im, at); break;
		case R_CAMPAIGN: ok = imp_campaign(im, at); break;
		case R_RUN: ok = imp_run(im, at); break;
		case R_BUG: ok = imp_bug(im, at); break;
		case R_SCHED: ok = imp_sched(im, at); break;
		default: ok = imp_run_bug(im, at); break;
		}
		if (ok && r->off != end)
			ok = rd_fail(r, r->off, "extra bytes at the end of a",
				     record_names[t]);
		if (!ok)
			return false;
		r->len = full;
	}
	return true;
}

/* The whole of in, in memory. */
static wasm_status slurp(FILE *in, const char *src, uint8_t **buf, size_t *len,
			 wasm_err *err)
{
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *p = wasm_malloc(cap), *np;

	while (p && (got = fread(p + n, 1, cap - n, in)) > 0) {
		n += got;
		if (n == cap) {
			if (!(np = wasm_realloc(p, 2 * cap))) {
				wasm_free(p);
				p = NULL;
				break;
			}
			p = np;
			cap *= 2;
		}
	}
	if (!p)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory reading %s", src);
	if (ferror(in)) {
		wasm_free(p);
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot read %s: %s", src, strerror(errno));
	}
	*buf = p;
	*len = n;
	return WASM_OK;
}

wasm_status db_import(db *d, FILE *in, const char *source, db_sync_added *added,
		      wasm_err *err)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	wasm_status st;

	memset(added, 0, sizeof *added);
	if ((st = slurp(in, source, &buf, &len, err)))
		return st;
	st = db_import_mem(d, buf, len, source, 0, added, err);
	wasm_free(buf);
	return st;
}

wasm_status db_import_mem(db *d, const uint8_t *p, size_t len,
			  const char *source, int64_t remote_id,
			  db_sync_added *added, wasm_err *err)
{
	importer im = {.d = d};
	wasm_status st;
	/* Inside the caller's batch the stream is a part of it. */
	bool part = !sqlite3_get_autocommit(db_sqlite(d)), ok;

	memset(added, 0, sizeof *added);
	im.r.p = p;
	im.r.len = len;
	im.r.src = source;
	im.r.err = err;
	im.now = (double)time(NULL);
	if (!check_frame(&im.r))
		return err->status;
	if ((st = part ? db_part_begin(d, err) : db_begin_trusted(d, err)))
		return st;
	ok = import_records(&im);
	for (int i = 0; i < im.nst; i++) {
		sqlite3_reset(im.st[i]);
		sqlite3_clear_bindings(im.st[i]);
	}
	for (int i = 0; i < M_COUNT; i++)
		wasm_free(im.m[i].v);
	if (ok && remote_id > 0 &&
	    db_remote_fetched(d, remote_id, im.added.last_run, im.added.runs,
			      im.now, err))
		ok = false;
	if (ok && (st = part ? db_part_end(d, err) : db_commit(d, err)))
		ok = false;
	if (!ok) {
		if (part)
			db_part_undo(d);
		else
			db_rollback(d);
		return err->status;
	}
	*added = im.added;
	return WASM_OK;
}

/* ---- origins ------------------------------------------------------------- */

/* Run sql (?1 the integer n, or text when not NULL) and copy the first column
 * of its row into buf or *id. */
static wasm_status origin_query(db *d, const char *sql, int64_t n,
				const char *text, char *buf, size_t cap,
				int64_t *id, wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st = WASM_OK;
	int rc = sqlite3_prepare_v2(db_sqlite(d), sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return db_sql_fail(d, err, rc, "reading a campaign's origin");
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(s, 1, n);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && buf)
		snprintf(buf, cap, "%s",
			 (const char *)sqlite3_column_text(s, 0));
	else if (rc == SQLITE_ROW && id)
		*id = sqlite3_column_int64(s, 0);
	else if (rc == SQLITE_DONE && buf)
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s has no campaign %" PRId64, db_file(d), n);
	else if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = db_sql_fail(d, err, rc, "reading a campaign's origin");
	sqlite3_finalize(s);
	return st;
}

wasm_status db_campaign_origin(db *d, int64_t id, char *buf, size_t cap,
			       wasm_err *err)
{
	return origin_query(d,
			    "SELECT " C_ORIGIN " FROM campaigns c LEFT JOIN"
			    " nodes n ON n.id = c.node_id WHERE c.id = ?1",
			    id, NULL, buf, cap, NULL, err);
}

wasm_status db_campaign_by_origin(db *d, const char *origin, int64_t *id,
				  wasm_err *err)
{
	*id = 0;
	return origin_query(d,
			    "SELECT c.id FROM campaigns c LEFT JOIN nodes n"
			    " ON n.id = c.node_id WHERE " C_ORIGIN " = ?1"
			    " LIMIT 1",
			    0, origin, NULL, 0, id, err);
}

wasm_status db_campaign_set_origin(db *d, int64_t id, const char *origin,
				   wasm_err *err)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db_sqlite(d),
				    "UPDATE campaigns SET origin = ?2"
				    " WHERE id = ?1",
				    -1, &s, NULL);

	if (rc != SQLITE_OK)
		return db_sql_fail(d, err, rc, "setting a campaign's origin");
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, origin, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if ((rc & 0xff) == SQLITE_CONSTRAINT)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "%s already has a campaign with origin %s",
				    db_file(d), origin);
	return rc == SQLITE_DONE
		   ? WASM_OK
		   : db_sql_fail(d, err, rc, "setting a campaign's origin");
}
