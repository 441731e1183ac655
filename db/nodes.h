/*
 * nodes.h - the remote nodes a user registers (issue 14, docs/nodes.md):
 * a name and an ssh URL to another machine's heisen workspace, kept in
 * the remotes table (schema 6) of the local workspace.
 *
 * db_node_url_parse is pure (no database): it splits and checks a URL.
 * Everything it accepts is safe to pass as separate argv words to ssh:
 * no character a shell or ssh's option parsing could misread, and
 * nothing that starts with '-'. db_node_name_ok checks a node's name the
 * same way.
 *
 * Errors as in db.h; a duplicate name on add and a missing name on get
 * or remove are WASM_INVALID with a message that names the node and the
 * database.
 */
#ifndef HEISEN_DB_NODES_H
#define HEISEN_DB_NODES_H

#include "db/db.h"

#define DB_NODE_NAME_MAX 64
#define DB_NODE_URL_MAX	 1024

/* A parsed node URL (docs/nodes.md, docs/slurm.md):
 *   ssh://[user@]host[:port]/path            a workspace reached by ssh;
 *   slurm://[user@]host[:port]/dir[?opts]    a Slurm cluster whose login
 *                                            host is reached by ssh;
 *   slurm:///dir[?opts]                      one whose sbatch is local.
 * opts are partition=P, account=A, time=T and tasks=N joined by '&'
 * (`node add --partition` and the others write them). user empty when
 * not given, port 0 when not given (ssh's default or ~/.ssh/config),
 * host empty for a local cluster. For ssh, a path naming a directory
 * means DIR/heisen.db on the node (db_path_resolve); for Slurm, path is
 * the shared directory the tasks write to. */
typedef struct db_node_url {
	bool slurm;
	char user[DB_NODE_URL_MAX];
	char host[DB_NODE_URL_MAX];
	unsigned port;
	char path[DB_NODE_URL_MAX];
	/* Slurm only; empty, or 0 tasks: not given (the cluster's default
	 * partition, account and time limit; tasks: DB_NODE_TASKS). */
	char partition[DB_NODE_NAME_MAX + 1];
	char account[DB_NODE_NAME_MAX + 1];
	char time[DB_NODE_NAME_MAX + 1];
	unsigned tasks;
} db_node_url;

#define DB_NODE_TASKS	  16	 /* array tasks of a dispatch by default */
#define DB_NODE_TASKS_MAX 100000 /* what --tasks accepts */

/* Parse url into *out; false with why (a sentence naming the bad part
 * and what is allowed) in msg[cap]. */
bool db_node_url_parse(const char *url, db_node_url *out, char *msg,
		       size_t cap);
/* Check a Slurm option's value as db_node_url_parse does (what:
 * "partition", "account", "time", "tasks") and store it in *u; false with
 * why in msg[cap]. */
bool db_node_url_opt(db_node_url *u, const char *what, const char *value,
		     char *msg, size_t cap);
/* u written back as a URL into buf[cap] (false when it does not fit). */
bool db_node_url_format(const db_node_url *u, char *buf, size_t cap);

/* A node name: 1..DB_NODE_NAME_MAX of [A-Za-z0-9._-], not starting with
 * '-'; false with why in msg[cap]. */
bool db_node_name_ok(const char *name, char *msg, size_t cap);

typedef struct db_remote {
	int64_t id;
	char *name, *url;
	double added;	   /* Unix time, seconds */
	double last_fetch; /* 0: never fetched */
	uint64_t runs_fetched;
	uint64_t cursor; /* the last export cursor fetched from it */
} db_remote;

/* Register a node; the caller has checked name and url. */
wasm_status db_remote_add(db *d, const char *name, const char *url,
			  wasm_err *err);
/* Every node, by name. cb returns false to stop early. */
wasm_status db_remote_list(db *d, bool (*cb)(void *ctx, const db_remote *r),
			   void *ctx, wasm_err *err);
/* The node called name into *out (free with db_remote_clear). */
wasm_status db_remote_get(db *d, const char *name, db_remote *out,
			  wasm_err *err);
void db_remote_clear(db_remote *r);
/* Forget a node and its Slurm jobs (the campaigns and runs stay). */
wasm_status db_remote_remove(db *d, const char *name, wasm_err *err);
/* A fetch from node id imported `runs` runs of a stream whose last run is
 * `cursor` at time `when`: the cursor moves forward (never back), the
 * count grows. Used inside db_import_mem's transaction. */
wasm_status db_remote_fetched(db *d, int64_t id, uint64_t cursor,
			      uint64_t runs, double when, wasm_err *err);

/* A Slurm job a dispatch submitted (schema 14): it runs the slices
 * `tasks` (sbatch --array's list: "0-15", "3,7") of campaign_id's plan,
 * cut into `slices`, each task writing DIR/task-I.db on the cluster. */
typedef struct db_slurm_job {
	int64_t id, campaign_id, remote_id;
	char *job_id, *tasks, *dir, *script;
	uint32_t slices;
	double submitted;
} db_slurm_job;

wasm_status db_slurm_job_add(db *d, const db_slurm_job *j, wasm_err *err);
/* The jobs of node remote_id (campaign_id 0) or of one campaign of it,
 * oldest first; cb returns false to stop. Strings live during the call. */
wasm_status db_slurm_job_list(db *d, int64_t remote_id, int64_t campaign_id,
			      bool (*cb)(void *ctx, const db_slurm_job *j),
			      void *ctx, wasm_err *err);

#endif
