/*
 * fuzz_import.c - libFuzzer target for export streams (`heisen import`,
 * db_import_mem: db/sync.h) into an in-memory workspace.
 *
 * The stream's checksum and record count are mended before import (when
 * its framing reaches an end record), so that mutations reach the
 * records instead of stopping at the checksum every time; the check
 * itself is the unit tests'. A refused stream must be WASM_MALFORMED (or
 * WASM_NOMEM) with a reason, and leave the workspace as it was: every
 * row of every table the same, PRAGMA integrity_check ok. An accepted one
 * imported again adds nothing. The workspace is opened once and made
 * anew only after a stream was accepted, so every refusal is checked
 * against the same content.
 */
#include "tests/fuzz/fuzz_util.h"

#include "db/db.h"
#include "db/sync.h"

#include <sqlite3.h>

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Every value of every table, hashed in table and rowid order. */
static uint64_t content(db *d)
{
	sqlite3 *q = db_sqlite(d);
	sqlite3_stmt *t, *r;
	uint64_t h = 0xcbf29ce484222325ull;

	if (sqlite3_prepare_v2(q,
			       "SELECT name FROM sqlite_master WHERE type = "
			       "'table' ORDER BY name",
			       -1, &t, NULL))
		fuzz_fail("listing tables: %s", sqlite3_errmsg(q));
	while (sqlite3_step(t) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(t, 0);
		char sql[256];

		h = mix(h, name, strlen(name));
		snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", name);
		if (sqlite3_prepare_v2(q, sql, -1, &r, NULL))
			fuzz_fail("%s: %s", sql, sqlite3_errmsg(q));
		while (sqlite3_step(r) == SQLITE_ROW)
			for (int c = 0; c < sqlite3_column_count(r); c++) {
				const void *b = sqlite3_column_blob(r, c);
				int n = sqlite3_column_bytes(r, c);
				int ty = sqlite3_column_type(r, c);

				h = mix(h, &ty, sizeof ty);
				if (b)
					h = mix(h, b, (size_t)n);
			}
		sqlite3_finalize(r);
	}
	sqlite3_finalize(t);
	return h;
}

/* The import does not have SQLite check foreign keys
 * (db_begin_trusted): every reference it stored must still lead to a
 * row. */
static void dangling(db *d)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db_sqlite(d), "PRAGMA foreign_key_check", -1, &s,
			       NULL))
		fuzz_fail("foreign_key_check: %s",
			  sqlite3_errmsg(db_sqlite(d)));
	if (sqlite3_step(s) == SQLITE_ROW)
		fuzz_fail("an import left a dangling reference in %s",
			  (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

static db *fresh(void)
{
	db *d;
	wasm_err e;

	if (db_open(":memory:", &d, &e))
		fuzz_fail("cannot open an in-memory workspace: %s", e.msg);
	return d;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Mend the end record's count and checksum, as the exporter writes them. */
static void mend(uint8_t *p, size_t len)
{
	size_t at = 12;
	uint64_t count = 0;

	if (len < 12 || memcmp(p, "HEISSYNC", 8))
		return;
	while (len - at >= 5) {
		uint32_t n = (uint32_t)p[at + 1] | (uint32_t)p[at + 2] << 8 |
			     (uint32_t)p[at + 3] << 16 |
			     (uint32_t)p[at + 4] << 24;
		if (n > len - at - 5)
			return;
		if (p[at] == 0xff) {
			if (n != 16)
				return;
			put_u64(p + at + 5, count);
			put_u64(p + at + 13,
				db_sync_checksum((uint32_t)p[8] |
						     (uint32_t)p[9] << 8 |
						     (uint32_t)p[10] << 16 |
						     (uint32_t)p[11] << 24,
						 p, at));
			return;
		}
		count++;
		at += 5 + n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static db *d;
	static uint64_t before;
	db_sync_added added;
	uint8_t *p = malloc(size ? size : 1);
	wasm_status st;
	wasm_err e;

	if (!p)
		fuzz_fail("out of memory");
	memcpy(p, data, size);
	mend(p, size);
	if (!d) {
		d = fresh();
		before = content(d);
	}
	wasm_err_clear(&e);
	st = db_import_mem(d, p, size, "fuzz", 0, &added, &e);
	if (st) {
		if (st != WASM_MALFORMED && st != WASM_NOMEM)
			fuzz_fail("db_import_mem: unexpected %s: %s",
				  wasm_status_name(st), e.msg);
		fuzz_check_err(&e, st);
		if (added.runs || added.campaigns || added.bugs ||
		    added.programs || added.nodes)
			fuzz_fail("a refused stream counts records added");
		if (content(d) != before)
			fuzz_fail("a refused stream changed the workspace: %s",
				  e.msg);
		if (db_check(d, &e))
			fuzz_fail("integrity check after a refusal: %s", e.msg);
		free(p);
		return 0;
	}
	if (db_check(d, &e))
		fuzz_fail("integrity check after an import: %s", e.msg);
	dangling(d);
	if ((st = db_import_mem(d, p, size, "fuzz", 0, &added, &e)))
		fuzz_fail("an accepted stream is refused the second time: %s",
			  e.msg);
	if (added.runs || added.campaigns || added.bugs || added.programs ||
	    added.nodes)
		fuzz_fail("importing a stream twice added records");
	db_close(d);
	d = NULL;
	free(p);
	return 0;
}
