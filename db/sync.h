/*
 * sync.h - moving a workspace's records to another workspace: a
 * versioned, length-prefixed, checksummed stream (docs/sync.md) that
 * `heisen export` writes and `heisen import` reads, and that fetching from
 * remote nodes carries over ssh.
 *
 * Export writes the runs with an id above a cursor and everything they
 * need (their campaigns, programs, nodes, bugs and run_bugs); the new
 * cursor is the largest run id written, so the next export can start
 * there. Import maps every record onto the target workspace by a key, never
 * by id: nodes by node key, programs by hash, campaigns by their origin
 * (the exporting workspace's node, id and creation time, kept through
 * re-exports), runs by (campaign, plan index), bugs by (program, site
 * pair). Importing a stream twice adds nothing, and a run keeps the node
 * that ran it.
 *
 * The stream is untrusted input: import reads it whole, checks its
 * framing, record count and checksum before touching the database, then
 * checks every field while it writes inside one transaction; any error
 * rolls back, so a workspace gains either every record or none.
 *
 * Errors (a wasm_err whose message names the source and, for a bad
 * stream, the byte offset):
 *   WASM_MALFORMED the stream is not a heisen stream, is truncated,
 *                  corrupt (checksum), from a newer heisen, or holds a
 *                  record that breaks the format's rules;
 *   WASM_IO        reading the stream or writing the output or database
 *                  failed (the database's errors as in db.h);
 *   WASM_NOMEM.
 *
 * Memory: both functions own nothing they are given; the stream is held
 * in memory only during db_import.
 */
#ifndef HEISEN_DB_SYNC_H
#define HEISEN_DB_SYNC_H

#include <stdio.h>

#include "db/db.h"

/* The stream format this heisen writes; it reads versions 1..this. */
#define DB_SYNC_VERSION 11

/* The end record's checksum of a stream of format version `version`
 * whose end record starts at p + n (docs/sync.md): for tests and fuzz
 * targets that damage a stream and mend it. */
uint64_t db_sync_checksum(uint32_t version, const uint8_t *p, size_t n);

/* Write the runs with id > since, and what they need, to out; *cursor
 * becomes the largest run id written (since when there is none) and
 * *nruns how many runs were written. With all_campaigns, every campaign
 * goes too, with or without new runs: an importer that has a campaign's
 * runs then learns that it ended (a fetch asks for this). Reads in one
 * transaction, so a campaign recording meanwhile cannot make the stream
 * inconsistent. */
wasm_status db_export(db *d, uint64_t since, bool all_campaigns, FILE *out,
		      uint64_t *cursor, uint64_t *nruns, wasm_err *err);

/* What an import added (records that were already there do not count),
 * and the largest run id of the stream's source (its export cursor; 0
 * when it had no run). */
typedef struct db_sync_added {
	uint64_t runs, campaigns, bugs, programs, nodes;
	uint64_t last_run;
} db_sync_added;

/* Import the stream read from in (to its end); source names it in
 * messages ("-" or a file name). *added is zero unless it succeeds. The
 * import is one transaction; inside a batch the caller opened
 * (db_begin) it is a part of it (db_part_begin): all of the stream or
 * nothing, committed with the batch. */
wasm_status db_import(db *d, FILE *in, const char *source, db_sync_added *added,
		      wasm_err *err);

/* The same for a stream in memory (p[0..len), borrowed). With remote_id
 * > 0 (a node of db/nodes.h), the same transaction moves the node's cursor
 * to the stream's last run (never back), sets its last fetch to now and
 * adds the runs imported to its count: a fetch that fails changes
 * nothing, and the next starts where the last good one ended. */
wasm_status db_import_mem(db *d, const uint8_t *p, size_t len,
			  const char *source, int64_t remote_id,
			  db_sync_added *added, wasm_err *err);

/* A campaign's origin, the key import matches campaigns by: the one it
 * was imported with, or for one made here this workspace's node key, its
 * id and creation time. Into buf[cap]; WASM_INVALID for no such
 * campaign. */
wasm_status db_campaign_origin(db *d, int64_t id, char *buf, size_t cap,
			       wasm_err *err);
/* The campaign whose origin is origin into *id (0: none). */
wasm_status db_campaign_by_origin(db *d, const char *origin, int64_t *id,
				  wasm_err *err);
/* Give campaign id the origin of another workspace's campaign: its runs,
 * exported, then join that campaign when they are imported there (the
 * array tasks of a Slurm dispatch, docs/slurm.md). */
wasm_status db_campaign_set_origin(db *d, int64_t id, const char *origin,
				   wasm_err *err);

#endif
