/*
 * db.c - the workspace database on SQLite: schema and migrations, the
 * statement table, and the functions of db.h.
 *
 * How it works: db_open checks the file's header itself before SQLite
 * sees it, so that a file that is not a database is refused without ever
 * being written; then it sets the connection up (WAL, foreign keys,
 * synchronous=NORMAL, 5 s busy timeout), applies the migrations the file
 * lacks and prepares every statement of DB_STMTS once. db_run_add, the hot
 * path of a campaign, touches only prepared statements and keeps the ids
 * of the bugs it has seen in a small open-addressing map, so a run costs
 * one INSERT plus one per hit.
 *
 * Limitations: one thread per db; a list function's statement cannot be
 * re-entered from its own callback (the call fails with WASM_INVALID).
 */
#include "db/db.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* 'HEIS' in the header's application_id: tells a heisen database from
 * somebody else's SQLite file. */
#define DB_APPLICATION_ID 0x48454953

/* Forward migrations: entry v brings a file from user_version v to v+1.
 * Append only; never edit a released entry. */
static const char *const migrations[DB_SCHEMA_VERSION] = {
    /* 0 -> 1: everything. */
    "CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    " WITHOUT ROWID;"
    "CREATE TABLE nodes(id INTEGER PRIMARY KEY,"
    " node_key TEXT NOT NULL UNIQUE, hostname TEXT NOT NULL,"
    " first_seen REAL NOT NULL);"
    "CREATE TABLE programs(id INTEGER PRIMARY KEY,"
    " hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL, path TEXT,"
    " nsites INTEGER NOT NULL, first_seen REAL NOT NULL);"
    "CREATE TABLE campaigns(id INTEGER PRIMARY KEY,"
    " program_id INTEGER NOT NULL REFERENCES programs(id),"
    " node_id INTEGER REFERENCES nodes(id), created REAL NOT NULL,"
    " densities TEXT NOT NULL, density_bp BLOB NOT NULL,"
    " profiles TEXT NOT NULL, runs INTEGER NOT NULL,"
    " budget_s REAL NOT NULL, jobs INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, delay INTEGER NOT NULL,"
    " timeout_s REAL NOT NULL, prune INTEGER NOT NULL,"
    " pruned BLOB NOT NULL, args BLOB NOT NULL, status TEXT NOT NULL,"
    " planned INTEGER NOT NULL);"
    "CREATE INDEX campaigns_program ON campaigns(program_id);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY,"
    " campaign_id INTEGER NOT NULL REFERENCES campaigns(id),"
    " node_id INTEGER REFERENCES nodes(id), idx INTEGER NOT NULL,"
    " profile TEXT NOT NULL, density_bp INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, started REAL NOT NULL,"
    " duration_us INTEGER NOT NULL, status TEXT NOT NULL,"
    " exit_code INTEGER NOT NULL, msg TEXT, nbugs INTEGER NOT NULL,"
    " UNIQUE(campaign_id, idx));"
    "CREATE TABLE bugs(id INTEGER PRIMARY KEY,"
    " program_id INTEGER NOT NULL REFERENCES programs(id),"
    " site_a INTEGER NOT NULL, kind_a INTEGER NOT NULL, func_a TEXT,"
    " file_a TEXT, line_a INTEGER NOT NULL,"
    " site_b INTEGER NOT NULL, kind_b INTEGER NOT NULL, func_b TEXT,"
    " file_b TEXT, line_b INTEGER NOT NULL,"
    " first_run INTEGER REFERENCES runs(id), first_seen REAL NOT NULL,"
    " UNIQUE(program_id, site_a, site_b));"
    "CREATE TABLE run_bugs(run_id INTEGER NOT NULL REFERENCES runs(id),"
    " bug_id INTEGER NOT NULL REFERENCES bugs(id),"
    " tid_a INTEGER NOT NULL, tid_b INTEGER NOT NULL,"
    " addr_a INTEGER NOT NULL, addr_b INTEGER NOT NULL,"
    " count INTEGER NOT NULL, PRIMARY KEY(run_id, bug_id)) WITHOUT ROWID;"
    "CREATE INDEX run_bugs_bug ON run_bugs(bug_id);"
    "PRAGMA application_id=1212500307;",
    /* 1 -> 2: the mask generator's version per campaign; every campaign
     * before it drew its masks with version 1. */
    "ALTER TABLE campaigns ADD COLUMN"
    " mask_version INTEGER NOT NULL DEFAULT 1;",
    /* 2 -> 3: the sweep process running a campaign (campaign_owner_id),
     * so that one whose process died reads as interrupted. */
    "ALTER TABLE campaigns ADD COLUMN owner TEXT;",
    /* 3 -> 4: what ran a campaign: a collision sweep or a happens-before
     * check; every campaign before it was a sweep. */
    "ALTER TABLE campaigns ADD COLUMN"
    " kind TEXT NOT NULL DEFAULT 'sweep';",
    /* 4 -> 5: where an imported campaign was made (db/sync.c): NULL for
     * one made here. */
    "ALTER TABLE campaigns ADD COLUMN origin TEXT;"
    "CREATE UNIQUE INDEX campaigns_origin ON campaigns(origin);",
    /* 5 -> 6: the remote nodes the user registers (db/nodes.c); cursor
     * is where the next fetch from one starts. */
    "CREATE TABLE remotes(id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL UNIQUE, url TEXT NOT NULL, added REAL NOT NULL,"
    " last_fetch REAL, runs_fetched INTEGER NOT NULL DEFAULT 0,"
    " cursor INTEGER NOT NULL DEFAULT 0);",
    /* 6 -> 7: call stacks (db_stack_format's text), each stored once, and
     * per run and bug the stack of each access, where one was taken. */
    "CREATE TABLE stacks(id INTEGER PRIMARY KEY,"
    " frames TEXT NOT NULL UNIQUE);"
    "ALTER TABLE run_bugs ADD COLUMN stack_a INTEGER REFERENCES stacks(id);"
    "ALTER TABLE run_bugs ADD COLUMN stack_b INTEGER REFERENCES stacks(id);",
    /* 7 -> 8: a collision's value evidence (db_value_format's text). */
    "ALTER TABLE run_bugs ADD COLUMN value TEXT;"
    /* ... and each site's access width in bytes (0: not known). */
    "ALTER TABLE bugs ADD COLUMN width_a INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE bugs ADD COLUMN width_b INTEGER NOT NULL DEFAULT 0;",
    /* 8 -> 9: a bug's signature (db_sig_pair, hex), the same for the
     * same race in every build of a program; NULL for the bugs recorded
     * before it, each its own. Triage decisions, kept per program name
     * and signature so that they follow a bug across rebuilds: every
     * decision a row, the newest the bug's state. */
    "ALTER TABLE bugs ADD COLUMN sig TEXT;"
    "CREATE INDEX bugs_sig ON bugs(sig);"
    "CREATE TABLE triage(id INTEGER PRIMARY KEY, program TEXT NOT NULL,"
    " sig TEXT NOT NULL, state TEXT NOT NULL, note TEXT,"
    " time REAL NOT NULL);"
    "CREATE INDEX triage_key ON triage(program, sig, id);",
    /* 9 -> 10: where a race's bytes were (db_loc_format's text) with the
     * heap block's allocation stack, and who created each access's
     * thread ("PARENT_A PARENT_B") with the stacks of those spawns. */
    "ALTER TABLE run_bugs ADD COLUMN location TEXT;"
    "ALTER TABLE run_bugs ADD COLUMN loc_stack INTEGER"
    " REFERENCES stacks(id);"
    "ALTER TABLE run_bugs ADD COLUMN parents TEXT;"
    "ALTER TABLE run_bugs ADD COLUMN spawn_a INTEGER REFERENCES stacks(id);"
    "ALTER TABLE run_bugs ADD COLUMN spawn_b INTEGER REFERENCES stacks(id);",
    /* 10 -> 11: every run's standard input (`--stdin`): its bytes and
     * their hash; NULL for the campaigns before it and those without,
     * whose runs read an empty stdin. */
    "ALTER TABLE campaigns ADD COLUMN stdin BLOB;"
    "ALTER TABLE campaigns ADD COLUMN stdin_hash TEXT;",
    /* 11 -> 12: serial execution (replay/sched.h). A campaign's schedule
     * strategy ("pct:3"; NULL: its runs were not serial) and the failure
     * an explore looked for; per serial run, what its schedule did: its
     * points, switches and digest, whether it was a failure, and its
     * decisions (rep_sched_encode's bytes; NULL where they were not
     * kept, see db_sched). */
    "ALTER TABLE campaigns ADD COLUMN schedule TEXT;"
    "ALTER TABLE campaigns ADD COLUMN failure TEXT;"
    "CREATE TABLE schedules(run_id INTEGER PRIMARY KEY"
    " REFERENCES runs(id), points INTEGER NOT NULL,"
    " switches INTEGER NOT NULL, digest TEXT NOT NULL,"
    " failed INTEGER NOT NULL, decisions BLOB);",
    /* 12 -> 13: the locks each access of a race held, with where each
     * lies and was first taken (db_locks_format's text); NULL when
     * neither held one or for the runs before it. */
    "ALTER TABLE run_bugs ADD COLUMN locks TEXT;"
    /* ... and the names the program gave each access's thread
     * (db_names_format's text); NULL when neither was named. */
    "ALTER TABLE run_bugs ADD COLUMN names TEXT;",
    /* 13 -> 14: the Slurm jobs a dispatch submitted (docs/slurm.md):
     * the home campaign they run, the node (remotes.id), Slurm's job id,
     * the plan's slices, which of them this job runs (sbatch --array's
     * list), the directory on the cluster the tasks write to, the batch
     * script (a resume submits it again) and when. */
    "CREATE TABLE slurm_jobs(id INTEGER PRIMARY KEY,"
    " campaign_id INTEGER NOT NULL REFERENCES campaigns(id),"
    " remote_id INTEGER NOT NULL, job_id TEXT NOT NULL,"
    " slices INTEGER NOT NULL, tasks TEXT NOT NULL, dir TEXT NOT NULL,"
    " script TEXT NOT NULL, submitted REAL NOT NULL);"
    "CREATE INDEX slurm_jobs_campaign ON"
    " slurm_jobs(campaign_id);",
    /* 14 -> 15: the program's world every run of a campaign had
     * (wasi_world's packed form): the directories granted, host and guest
     * name, and the environment; NULL when none. The most threads and
     * memory pages (0: the engine's default). */
    "ALTER TABLE campaigns ADD COLUMN dirs BLOB;"
    "ALTER TABLE campaigns ADD COLUMN env BLOB;"
    "ALTER TABLE campaigns ADD COLUMN"
    " max_threads INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE campaigns ADD COLUMN"
    " max_memory_pages INTEGER NOT NULL DEFAULT 0;"
    /* ... and per run that did not end ok, the last lines its program
     * wrote to stderr (DB_TAIL_MAX bytes at most); NULL otherwise. */
    "ALTER TABLE runs ADD COLUMN stderr TEXT;",
};
_Static_assert(DB_APPLICATION_ID == 1212500307, "migration 1 sets it");

#define CAMPAIGN_COLS                                                          \
	"c.id, c.program_id, c.node_id, c.created, p.name, c.densities,"       \
	" c.density_bp, c.profiles, c.runs, c.budget_s, c.jobs, c.seed,"       \
	" c.delay, c.timeout_s, c.prune, c.pruned, c.args, c.status,"          \
	" c.planned, (SELECT count(*) FROM runs WHERE campaign_id = c.id),"    \
	" (SELECT count(DISTINCT rb.bug_id) FROM runs r JOIN run_bugs rb"      \
	" ON rb.run_id = r.id WHERE r.campaign_id = c.id),"                    \
	" (SELECT count(DISTINCT profile || ':' || density_bp) FROM runs"      \
	" WHERE campaign_id = c.id), c.mask_version, c.owner, c.kind,"         \
	" (SELECT hostname FROM nodes WHERE id = c.node_id), c.stdin,"         \
	" c.stdin_hash, c.schedule, c.failure, c.dirs, c.env, c.max_threads,"  \
	" c.max_memory_pages"                                                  \
	" FROM campaigns c JOIN programs p ON p.id = c.program_id"
#define RUN_COLS                                                               \
	"r.id, r.campaign_id, r.node_id, r.idx, r.profile, r.density_bp,"      \
	" r.seed, r.started, r.duration_us, r.status, r.exit_code, r.msg,"     \
	" r.nbugs, r.stderr"
/* What identifies a bug across builds: its signature, or for one
 * recorded before signatures its id. */
#define BUG_KEY(b) "coalesce(" b ".sig, '#' || " b ".id)"
#define BUG_TRIAGE(col)                                                        \
	"(SELECT " col " FROM triage t WHERE t.program = p.name"               \
	" AND t.sig = " BUG_KEY("b") " ORDER BY t.id DESC LIMIT 1)"
/* A bug row (bug_row reads it), with its run count, first sighting and
 * number of builds as the query has them. */
#define BUG_SEL(nruns, first, builds)                                          \
	"b.id, b.program_id, p.name, b.site_a, b.kind_a, b.func_a, b.file_a,"  \
	" b.line_a, b.site_b, b.kind_b, b.func_b, b.file_b, b.line_b, "        \
	nruns " AS nruns, b.first_run, " first ","                             \
	" (SELECT max(c.kind = 'sweep') + 2 * max(c.kind <> 'sweep')"          \
	" FROM run_bugs rb JOIN runs r ON r.id = rb.run_id"                    \
	" JOIN campaigns c ON c.id = r.campaign_id WHERE rb.bug_id = b.id),"   \
	" b.width_a, b.width_b, " BUG_KEY("b") ", " BUG_TRIAGE("state") ", "   \
	BUG_TRIAGE("time") ", " builds
#define BUG_COLS                                                               \
	BUG_SEL("(SELECT count(*) FROM run_bugs WHERE bug_id = b.id)",         \
		"b.first_seen", "1")                                           \
	" FROM bugs b JOIN programs p ON p.id = b.program_id"
#define PROGRAM_COLS "id, hash, name, path, nsites FROM programs"

/* Every statement heisen runs after opening, prepared once. */
#define DB_STMTS(X)                                                            \
	X(BEGIN, "BEGIN IMMEDIATE")                                            \
	X(COMMIT, "COMMIT")                                                    \
	X(ROLLBACK, "ROLLBACK")                                                \
	X(PART_BEGIN, "SAVEPOINT part")                                        \
	X(PART_END, "RELEASE part")                                            \
	X(PART_UNDO, "ROLLBACK TO part")                                       \
	X(SETTING_GET, "SELECT value FROM settings WHERE key = ?1")            \
	X(SETTING_PUT, "INSERT OR REPLACE INTO settings VALUES(?1, ?2)")       \
	X(NODE_FIND, "SELECT id, hostname FROM nodes WHERE node_key = ?1")     \
	X(NODE_ADD, "INSERT INTO nodes(node_key, hostname, first_seen)"        \
		    " VALUES(?1, ?2, ?3)")                                     \
	X(NODE_RENAME, "UPDATE nodes SET hostname = ?2 WHERE id = ?1")         \
	X(PROGRAM_BY_HASH, "SELECT id FROM programs WHERE hash = ?1")          \
	X(PROGRAM_ADD, "INSERT INTO programs(hash, name, path, nsites,"        \
		       " first_seen) VALUES(?1, ?2, ?3, ?4, ?5)")              \
	X(PROGRAM_SET_PATH, "UPDATE programs SET path = ?2 WHERE id = ?1")     \
	X(PROGRAM_GET, "SELECT " PROGRAM_COLS " WHERE id = ?1")                \
	X(PROGRAM_BY_NAME, "SELECT " PROGRAM_COLS " WHERE name = ?1"           \
			   " ORDER BY id")                                     \
	X(PROGRAM_BY_PREFIX,                                                   \
	  "SELECT " PROGRAM_COLS " WHERE substr(hash, 1, length(?1)) = ?1"     \
	  " ORDER BY id")                                                      \
	X(CAMPAIGN_ADD,                                                        \
	  "INSERT INTO campaigns(program_id, node_id, created, densities,"     \
	  " density_bp, profiles, runs, budget_s, jobs, seed, delay,"          \
	  " timeout_s, prune, pruned, args, status, planned, mask_version,"    \
	  " owner, kind, stdin, stdin_hash, schedule, failure, dirs, env,"     \
	  " max_threads, max_memory_pages) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7," \
	  " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,"    \
	  " ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)")                          \
	X(CAMPAIGN_GET, "SELECT " CAMPAIGN_COLS " WHERE c.id = ?1")            \
	X(CAMPAIGN_LIST,                                                       \
	  "SELECT " CAMPAIGN_COLS " ORDER BY c.created DESC, c.id DESC")       \
	X(CAMPAIGN_STATUS,                                                     \
	  "UPDATE campaigns SET status = ?2, owner = ?3 WHERE id = ?1")        \
	X(CAMPAIGN_COMPLETE,                                                   \
	  "UPDATE campaigns SET status = 'done', owner = NULL WHERE id = ?1"   \
	  " AND planned > 0 AND status <> 'done' AND (SELECT count(*) FROM"    \
	  " runs WHERE campaign_id = ?1) >= planned")                          \
	X(CAMPAIGN_OWNER,                                                      \
	  "SELECT program_id, node_id FROM campaigns WHERE id = ?1")           \
	X(CAMPAIGN_DONE, "SELECT idx FROM runs WHERE campaign_id = ?1"         \
			 " ORDER BY idx")                                      \
	X(RUN_ADD, "INSERT INTO runs(campaign_id, node_id, idx, profile,"      \
		   " density_bp, seed, started, duration_us, status,"          \
		   " exit_code, msg, nbugs, stderr) VALUES(?1, ?2, ?3, ?4,"   \
		   " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")                 \
	X(RUN_GET, "SELECT " RUN_COLS " FROM runs r WHERE r.id = ?1")          \
	X(SCHED_ADD, "INSERT INTO schedules(run_id, points, switches, digest," \
		     " failed, decisions) VALUES(?1, ?2, ?3, ?4, ?5, ?6)")     \
	X(SCHED_GET, "SELECT points, switches, digest, failed, decisions"      \
		     " FROM schedules WHERE run_id = ?1")                      \
	X(BUG_SCHED_RUN, "SELECT rb.run_id FROM run_bugs rb JOIN schedules s"  \
			 " ON s.run_id = rb.run_id WHERE rb.bug_id = ?1"       \
			 " AND s.decisions IS NOT NULL ORDER BY rb.run_id"     \
			 " LIMIT 1")                                           \
	X(RUN_LIST, "SELECT " RUN_COLS " FROM runs r WHERE r.campaign_id = ?1" \
		    " ORDER BY r.idx")                                         \
	X(RUN_LIST_BUG, "SELECT " RUN_COLS " FROM run_bugs rb JOIN runs r"     \
			" ON r.id = rb.run_id WHERE rb.bug_id = ?1"            \
			" AND (?2 = 0 OR r.campaign_id = ?2) ORDER BY r.id")   \
	X(RUN_BUGS, "SELECT bug_id, tid_a, tid_b, addr_a, addr_b, count,"      \
		    " value FROM run_bugs WHERE run_id = ?1 ORDER BY bug_id")  \
	X(BUG_FIND, "SELECT id FROM bugs WHERE program_id = ?1"                \
		    " AND site_a = ?2 AND site_b = ?3")                        \
	X(BUG_ADD,                                                             \
	  "INSERT INTO bugs(program_id, site_a, kind_a, func_a, file_a,"       \
	  " line_a, site_b, kind_b, func_b, file_b, line_b, first_run,"        \
	  " first_seen, width_a, width_b, sig) VALUES(?1, ?2, ?3, ?4, ?5, ?6," \
	  " ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)")                   \
	X(RUN_BUG_ADD,                                                         \
	  "INSERT INTO run_bugs(run_id, bug_id, tid_a, tid_b, addr_a, addr_b," \
	  " count, stack_a, stack_b, value, location, loc_stack, parents,"     \
	  " spawn_a, spawn_b, locks, names) VALUES(?1, ?2, ?3, ?4, ?5, ?6,"    \
	  " ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"               \
	  " ON CONFLICT(run_id, bug_id) DO UPDATE"                             \
	  " SET count = count + excluded.count,"                               \
	  " stack_a = coalesce(stack_a, excluded.stack_a),"                    \
	  " stack_b = coalesce(stack_b, excluded.stack_b),"                    \
	  " value = coalesce(value, excluded.value),"                          \
	  " location = coalesce(location, excluded.location),"                 \
	  " loc_stack = coalesce(loc_stack, excluded.loc_stack),"              \
	  " parents = coalesce(parents, excluded.parents),"                    \
	  " spawn_a = coalesce(spawn_a, excluded.spawn_a),"                    \
	  " spawn_b = coalesce(spawn_b, excluded.spawn_b),"                    \
	  " locks = coalesce(locks, excluded.locks),"                          \
	  " names = coalesce(names, excluded.names)")                          \
	X(STACK_ADD, "INSERT INTO stacks(frames) VALUES(?1)"                   \
		     " ON CONFLICT(frames) DO UPDATE SET frames = frames"      \
		     " RETURNING id")                                          \
	X(BUG_PAIR_RUN, "SELECT run_id, value FROM run_bugs WHERE bug_id = ?1" \
			" AND stack_a IS NOT NULL AND stack_b IS NOT NULL"     \
			" ORDER BY run_id")                                    \
	X(RUN_BUG_STACKS, "SELECT sa.frames, sb.frames FROM run_bugs rb"       \
			  " LEFT JOIN stacks sa ON sa.id = rb.stack_a"         \
			  " LEFT JOIN stacks sb ON sb.id = rb.stack_b"         \
			  " WHERE rb.run_id = ?1 AND rb.bug_id = ?2")          \
	X(RUN_BUG_WHERE, "SELECT rb.location, sl.frames, rb.parents,"          \
			 " s1.frames, s2.frames FROM run_bugs rb"              \
			 " LEFT JOIN stacks sl ON sl.id = rb.loc_stack"        \
			 " LEFT JOIN stacks s1 ON s1.id = rb.spawn_a"          \
			 " LEFT JOIN stacks s2 ON s2.id = rb.spawn_b"          \
			 " WHERE rb.run_id = ?1 AND rb.bug_id = ?2")           \
	X(RUN_BUG_NAMES, "SELECT names FROM run_bugs"                          \
			 " WHERE run_id = ?1 AND bug_id = ?2")                 \
	X(RUN_BUG_LOCKS, "SELECT locks FROM run_bugs"                          \
			 " WHERE run_id = ?1 AND bug_id = ?2")                 \
	X(BUG_GET, "SELECT " BUG_COLS " WHERE b.id = ?1")                      \
	X(BUG_LIST, "SELECT " BUG_COLS " WHERE ?1 = 0 OR b.program_id = ?1"    \
		    " ORDER BY nruns DESC, b.id")                              \
	X(BUG_LIST_CAMPAIGN,                                                   \
	  "SELECT " BUG_COLS " WHERE b.id IN (SELECT rb.bug_id FROM runs r"    \
	  " JOIN run_bugs rb ON rb.run_id = r.id WHERE r.campaign_id = ?1)"    \
	  " ORDER BY nruns DESC, b.id")                                        \
	X(BUG_LIST_BUILDS,                                                     \
	  "SELECT " BUG_SEL("g.runs", "g.first", "g.builds")                   \
	  " FROM bugs b JOIN programs p ON p.id = b.program_id JOIN"           \
	  " (SELECT max(b.id) AS id, count(DISTINCT b.program_id) AS builds,"  \
	  " sum((SELECT count(*) FROM run_bugs WHERE bug_id = b.id)) AS runs," \
	  " min(b.first_seen) AS first FROM bugs b JOIN programs p"            \
	  " ON p.id = b.program_id WHERE p.name = ?1"                          \
	  " GROUP BY " BUG_KEY("b") ") g ON g.id = b.id"                      \
	  " ORDER BY nruns DESC, b.id")                                        \
	X(TRIAGE_ADD, "INSERT INTO triage(program, sig, state, note, time)"    \
		      " SELECT p.name, " BUG_KEY("b") ", ?2, ?3, ?4 FROM bugs b" \
		      " JOIN programs p ON p.id = b.program_id WHERE b.id = ?1") \
	X(TRIAGE_STATE, "SELECT state FROM triage WHERE program = ?1"          \
			" AND sig = ?2 ORDER BY id DESC LIMIT 1")              \
	X(TRIAGE_LIST, "SELECT t.state, t.note, t.time FROM bugs b"            \
		       " JOIN programs p ON p.id = b.program_id JOIN triage t" \
		       " ON t.program = p.name AND t.sig = " BUG_KEY("b")      \
		       " WHERE b.id = ?1 ORDER BY t.id")                       \
	X(BUG_CELLS,                                                           \
	  "SELECT r.node_id, n.hostname, r.profile, r.density_bp,"             \
	  " sum(EXISTS(SELECT 1 FROM run_bugs rb WHERE rb.run_id = r.id"       \
	  " AND rb.bug_id = ?1)), count(*)"                                    \
	  " FROM campaigns c JOIN runs r ON r.campaign_id = c.id"              \
	  " LEFT JOIN nodes n ON n.id = r.node_id"                             \
	  " WHERE c.program_id = (SELECT program_id FROM bugs WHERE id = ?1)"  \
	  " AND c.kind = 'sweep'"                                              \
	  " GROUP BY r.node_id, r.profile, r.density_bp"                       \
	  " ORDER BY n.hostname, r.node_id, r.profile, r.density_bp")          \
	X(PROGRAM_RUNS,                                                        \
	  "SELECT r.id, r.node_id, r.profile, r.density_bp, r.duration_us,"    \
	  " (SELECT group_concat(bug_id) FROM run_bugs WHERE run_id = r.id)"   \
	  " FROM campaigns c JOIN runs r ON r.campaign_id = c.id"              \
	  " WHERE c.program_id = ?1 AND c.kind = 'sweep' ORDER BY r.id")

enum {
#define X(name, sql) S_##name,
	DB_STMTS(X)
#undef X
	    S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
#define X(name, sql) sql,
    DB_STMTS(X)
#undef X
};

/* A known bug: program and site pair -> bugs.id (id 0: empty slot). */
typedef struct bug_slot {
	int64_t program_id, id;
	uint32_t a, b;
} bug_slot;

struct db {
	sqlite3 *h;
	char *path;
	sqlite3_stmt *st[S_COUNT];
	/* db_stmt_keep's: the other files' statements, by their SQL. */
	struct {
		const char *sql;
		sqlite3_stmt *s;
	} kept[DB_KEPT_MAX];
	int nkept;
	bool batch;    /* inside db_begin .. db_commit */
	bool trusted;  /* the batch began with db_begin_trusted */
	bool readonly; /* opened without write permission */
	int64_t self;  /* db_node_self's answer, 0 until asked */
	/* The last campaign db_run_add saw, so a batch looks it up once. */
	int64_t camp_id, camp_program, camp_node;
	bug_slot *bugs; /* power-of-two table, at most half full */
	size_t nbugs, bugcap;
};

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *db_path_choose(const char *path)
{
	const char *env;

	if (path)
		return path;
	env = getenv("HEISEN_DB");
	if (env && *env)
		return env;
	return "heisen.db";
}

const char *db_path_resolve(const char *path, char *buf, size_t cap)
{
	struct stat sb;
	int n;

	if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return path;
	n = snprintf(buf, cap, "%s%sheisen.db", path,
		     path[strlen(path) - 1] == '/' ? "" : "/");
	return n > 0 && (size_t)n < cap ? buf : path;
}

/* ---- errors ------------------------------------------------------------ */

/* Turn an SQLite result code into heisen's vocabulary. what says what
 * heisen was doing ("adding a run"). */
static wasm_status sql_fail(db *d, wasm_err *err, int rc, const char *what)
{
	const char *m = d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
				    "%s is not a heisen database (file is not "
				    "a database); choose another file with "
				    "--db or remove it",
				    d->path);
	case SQLITE_CORRUPT:
		return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
				    "%s is damaged (%s) while %s; restore a "
				    "copy or choose another file with --db",
				    d->path, m, what);
	case SQLITE_NOMEM:
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory while %s in %s", what,
				    d->path);
	case SQLITE_CONSTRAINT:
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: %s while %s", d->path, m, what);
	case SQLITE_READONLY:
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot write %s while %s (%s); check the "
				    "permissions of the file and its directory",
				    d->path, what, m);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "%s stayed locked by another process for "
				    "5 s while %s; retry when it is done",
				    d->path, what);
	case SQLITE_FULL:
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "%s: disk full while %s; free some space",
				    d->path, what);
	default:
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "%s: %s while %s", d->path, m, what);
	}
}

wasm_status db_sql_fail(db *d, wasm_err *err, int rc, const char *what)
{
	return sql_fail(d, err, rc, what);
}

struct sqlite3 *db_sqlite(db *d) { return d->h; }

const char *db_file(db *d) { return d->path; }

static wasm_status oom(db *d, wasm_err *err)
{
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
			    "out of memory reading %s", d->path);
}

/* ---- statements -------------------------------------------------------- */

/* Statement id, prepared on its first use: an open prepares none, as a
 * command uses a few of them and `heisen node tasks` opens a workspace
 * per array task. NULL with err set when SQLite refuses it. */
/* sql prepared to be kept until db_close; NULL with err set when SQLite
 * refuses it. */
static sqlite3_stmt *prepare_kept(db *d, const char *sql, wasm_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v3(d->h, sql, -1, SQLITE_PREPARE_PERSISTENT,
				    &s, NULL);

	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		sql_fail(d, err, rc, "preparing a query");
		return NULL;
	}
	return s;
}

static sqlite3_stmt *prepared(db *d, int id, wasm_err *err)
{
	if (!d->st[id])
		d->st[id] = prepare_kept(d, stmt_sql[id], err);
	return d->st[id];
}

sqlite3_stmt *db_stmt_keep(db *d, const char *sql, wasm_err *err)
{
	sqlite3_stmt *s;

	for (int i = 0; i < d->nkept; i++)
		if (d->kept[i].sql == sql)
			return d->kept[i].s;
	if (d->nkept == DB_KEPT_MAX) {
		wasm_err_set(err, WASM_LIMIT, WASM_NO_OFFSET,
			     "%s: more than %d statements kept (heisen's "
			     "DB_KEPT_MAX is too small: a bug to report)",
			     d->path, DB_KEPT_MAX);
		return NULL;
	}
	if (!(s = prepare_kept(d, sql, err)))
		return NULL;
	d->kept[d->nkept].sql = sql;
	d->kept[d->nkept++].s = s;
	return s;
}

/* The prepared statement id, reset and unbound. NULL (with err set) when
 * SQLite refuses it or a callback of a list that uses it calls back into
 * it. */
static sqlite3_stmt *stmt(db *d, int id, wasm_err *err)
{
	sqlite3_stmt *s = prepared(d, id, err);

	if (s && sqlite3_stmt_busy(s)) {
		wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
			     "%s: a database query was re-entered from its "
			     "own list callback",
			     d->path);
		return NULL;
	}
	return s;
}

static void done(sqlite3_stmt *s)
{
	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
}

/* Bind NULL for 0: ids that refer to no row. */
static void bind_ref(sqlite3_stmt *s, int i, int64_t id)
{
	if (id)
		sqlite3_bind_int64(s, i, id);
	else
		sqlite3_bind_null(s, i);
}

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* Run a statement that returns no rows. */
/* Step s (NULL: the prepared() that failed has set err) and reset it. */
static wasm_status exec_stmt(db *d, sqlite3_stmt *s, const char *what,
			     wasm_err *err)
{
	wasm_status st = WASM_OK;
	int rc;

	if (!s)
		return err->status;
	rc = sqlite3_step(s);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, what);
	done(s);
	return st;
}

static const char *col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

/* A copy of a text column; *ok turns false if the copy fails. */
/* A copy of s (NULL for NULL); *ok false when out of memory. */
static char *dup_or_null(const char *s, bool *ok)
{
	char *c = s ? wasm_strdup(s) : NULL;

	*ok = *ok && (!s || c);
	return c;
}

static char *col_dup(sqlite3_stmt *s, int i, bool *ok)
{
	const char *t = col_text(s, i);
	char *p;

	if (!t)
		return NULL;
	p = wasm_strdup(t);
	if (!p)
		*ok = false;
	return p;
}

/* ---- transactions ------------------------------------------------------ */

static void forget_caches(db *d)
{
	d->camp_id = 0;
	d->nbugs = 0;
	if (d->bugs)
		memset(d->bugs, 0, d->bugcap * sizeof *d->bugs);
}

/* Writes outside a batch get their own transaction: *own says whether
 * this call opened one that tx_end must close. */
static wasm_status tx_begin(db *d, bool *own, wasm_err *err)
{
	*own = false;
	if (d->batch)
		return WASM_OK;
	if (exec_stmt(d, prepared(d, S_BEGIN, err), "starting a transaction",
		      err))
		return err->status;
	*own = true;
	return WASM_OK;
}

static wasm_status tx_end(db *d, bool own, wasm_status st, wasm_err *err)
{
	if (!own)
		return st;
	if (st == WASM_OK)
		st =
		    exec_stmt(d, prepared(d, S_COMMIT, err), "committing", err);
	if (st != WASM_OK && !sqlite3_get_autocommit(d->h)) {
		wasm_err ignored;
		exec_stmt(d, prepared(d, S_ROLLBACK, &ignored), "rolling back",
			  &ignored);
		forget_caches(d);
	}
	return st;
}

wasm_status db_begin(db *d, wasm_err *err)
{
	if (d->batch)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: a batch is already open", d->path);
	if (exec_stmt(d, prepared(d, S_BEGIN, err), "starting a batch", err))
		return err->status;
	d->batch = true;
	return WASM_OK;
}

/* PRAGMA foreign_keys is a no-op inside a transaction: it is turned off
 * before a trusted batch begins and on again once it has ended. */
static void trusted_end(db *d)
{
	if (d->trusted && sqlite3_get_autocommit(d->h))
		sqlite3_exec(d->h, "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
	d->trusted = false;
}

wasm_status db_begin_trusted(db *d, wasm_err *err)
{
	if (d->batch)
		return db_begin(d, err);
	if (sqlite3_exec(d->h, "PRAGMA foreign_keys=OFF", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return db_begin(d, err);
	d->trusted = true;
	if (db_begin(d, err)) {
		trusted_end(d);
		return err->status;
	}
	return WASM_OK;
}

wasm_status db_commit(db *d, wasm_err *err)
{
	if (!d->batch)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: no batch to commit", d->path);
	if (exec_stmt(d, prepared(d, S_COMMIT, err), "committing a batch", err))
		return err->status;
	d->batch = false;
	trusted_end(d);
	return WASM_OK;
}

void db_rollback(db *d)
{
	wasm_err ignored;

	if (!sqlite3_get_autocommit(d->h))
		exec_stmt(d, prepared(d, S_ROLLBACK, &ignored), "rolling back",
			  &ignored);
	d->batch = false;
	trusted_end(d);
	forget_caches(d);
}

wasm_status db_part_begin(db *d, wasm_err *err)
{
	if (!d->batch)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "%s: a part needs an open batch", d->path);
	return exec_stmt(d, prepared(d, S_PART_BEGIN, err), "starting a part",
			 err);
}

wasm_status db_part_end(db *d, wasm_err *err)
{
	return exec_stmt(d, prepared(d, S_PART_END, err), "keeping a part",
			 err);
}

void db_part_undo(db *d)
{
	wasm_err ignored;

	/* ROLLBACK TO leaves the savepoint open: RELEASE closes it, with
	 * nothing left in it to keep. */
	exec_stmt(d, prepared(d, S_PART_UNDO, &ignored), "undoing a part",
		  &ignored);
	exec_stmt(d, prepared(d, S_PART_END, &ignored), "undoing a part",
		  &ignored);
	forget_caches(d);
}

/* ---- open and close ---------------------------------------------------- */

/* Why a file cannot be created: the directory is missing or closed. */
static wasm_status explain_create(const char *path, wasm_err *err)
{
	char *copy = wasm_strdup(path);
	const char *dir;
	struct stat sb;
	wasm_status st;

	if (!copy)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory opening %s", path);
	dir = dirname(copy);
	if (stat(dir, &sb) != 0)
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot create %s: directory %s: %s; create "
				  "it or choose another file with --db",
				  path, dir, strerror(errno));
	else if (access(dir, W_OK | X_OK) != 0)
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot create %s: no write permission in "
				  "%s; choose another file with --db",
				  path, dir);
	else
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot create %s; choose another file "
				  "with --db",
				  path);
	wasm_free(copy);
	return st;
}

/* WAL needs to create PATH-wal and PATH-shm next to the file. */
static bool dir_writable(const char *path)
{
	char *copy = wasm_strdup(path);
	bool ok = copy && access(dirname(copy), W_OK | X_OK) == 0;

	wasm_free(copy);
	return ok;
}

/* How to open a file heisen may not write. Without a -wal file no writer
 * is active and the main file holds everything, so SQLite may read it as
 * immutable: a plain read-only open of a WAL database fails when it
 * cannot create the -shm file. With a -wal file, the plain open reads it
 * through the existing -shm. NULL: use the path as it is. */
static char *readonly_uri(const char *path)
{
	size_t n = strlen(path), k = 5;
	char *wal = wasm_malloc(n + 5), *uri;
	bool live;

	if (!wal)
		return NULL;
	memcpy(wal, path, n);
	memcpy(wal + n, "-wal", 5);
	live = access(wal, F_OK) == 0;
	wasm_free(wal);
	if (live || !(uri = wasm_malloc(3 * n + 20)))
		return NULL;
	memcpy(uri, "file:", 5);
	for (const char *c = path; *c; c++)
		if (*c == '%' || *c == '?' || *c == '#')
			k += (size_t)sprintf(uri + k, "%%%02X",
					     (unsigned char)*c);
		else
			uri[k++] = *c;
	memcpy(uri + k, "?immutable=1", 13);
	return uri;
}

/* Look at an existing file before SQLite does: anything but an empty
 * file or an SQLite header is refused untouched. *exists and *writable
 * describe the file. */
static wasm_status precheck(const char *path, bool *exists, bool *writable,
			    wasm_err *err)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	struct stat sb;
	ssize_t n;
	int fd;

	*exists = false;
	*writable = true;
	if (stat(path, &sb) != 0) {
		if (errno == ENOENT)
			return WASM_OK;
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot open %s: %s", path,
				    strerror(errno));
	}
	*exists = true;
	if (!S_ISREG(sb.st_mode))
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot open %s: not a regular file; "
				    "choose another file with --db",
				    path);
	*writable = access(path, W_OK) == 0 && dir_writable(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot open %s: %s; check its permissions",
				    path, strerror(errno));
	n = read(fd, head, sizeof head);
	close(fd);
	if (n < 0)
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot read %s: %s", path,
				    strerror(errno));
	if (n == 0)
		return WASM_OK;
	if ((size_t)n < sizeof head || memcmp(head, magic, sizeof magic) != 0)
		return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
				    "%s is not a heisen database (file is not "
				    "a database); choose another file with "
				    "--db or remove it",
				    path);
	return WASM_OK;
}

static wasm_status pragma_int(db *d, const char *sql, int64_t *v, wasm_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(d->h, sql, -1, &s, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int64(s, 0);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK)
		sql_fail(d, err, rc, "reading the schema version");
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? WASM_OK : err->status;
}

static wasm_status exec_sql(db *d, const char *sql, const char *what,
			    wasm_err *err)
{
	int rc = sqlite3_exec(d->h, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? WASM_OK : sql_fail(d, err, rc, what);
}

/* Refuse files heisen must not touch; apply the missing migrations. */
static wasm_status migrate(db *d, wasm_err *err)
{
	int64_t ver, app, nobj;
	char sql[64];
	wasm_status st;

	if (pragma_int(d, "PRAGMA user_version", &ver, err) ||
	    pragma_int(d, "PRAGMA application_id", &app, err) ||
	    pragma_int(d, "SELECT count(*) FROM sqlite_schema", &nobj, err))
		return err->status;
	if (ver > DB_SCHEMA_VERSION)
		return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
				    "%s was written by a newer heisen (schema "
				    "%lld, this one knows %d); use that heisen "
				    "or choose another file with --db",
				    d->path, (long long)ver, DB_SCHEMA_VERSION);
	if ((ver > 0 && app != DB_APPLICATION_ID) || (ver == 0 && nobj > 0))
		return wasm_err_set(
		    err, WASM_MALFORMED, WASM_NO_OFFSET,
		    "%s is an SQLite database of another "
		    "program, not heisen's; choose another file "
		    "with --db",
		    d->path);
	if (ver < DB_SCHEMA_VERSION && d->readonly)
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "%s needs a schema upgrade but is "
				    "read-only; make it writable",
				    d->path);
	if (ver == DB_SCHEMA_VERSION)
		return WASM_OK;
	/* All missing steps in one transaction: a file is at one version or
	 * the next whole one, and a new file costs one commit, not one a
	 * step. Another heisen may have migrated while we waited. */
	if (exec_sql(d, "BEGIN IMMEDIATE", "upgrading the schema", err))
		return err->status;
	st = pragma_int(d, "PRAGMA user_version", &ver, err);
	for (int64_t v = ver; st == WASM_OK && v < DB_SCHEMA_VERSION; v++)
		st = exec_sql(d, migrations[v], "creating tables", err);
	if (st == WASM_OK && ver < DB_SCHEMA_VERSION) {
		snprintf(sql, sizeof sql, "PRAGMA user_version=%d",
			 DB_SCHEMA_VERSION);
		st = exec_sql(d, sql, "upgrading the schema", err);
	}
	if (st == WASM_OK)
		st = exec_sql(d, "COMMIT", "upgrading the schema", err);
	if (st != WASM_OK)
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
	return st;
}

void db_close(db *d)
{
	if (!d)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(d->st[i]);
	for (int i = 0; i < d->nkept; i++)
		sqlite3_finalize(d->kept[i].s);
	sqlite3_close(d->h);
	wasm_free(d->bugs);
	wasm_free(d->path);
	wasm_free(d);
}

wasm_status db_open(const char *path, db **out, wasm_err *err)
{
	bool exists, writable;
	char *uri = NULL, resolved[4096];
	int flags, rc;
	db *d;

	*out = NULL;
	path = db_path_resolve(path, resolved, sizeof resolved);
	if (precheck(path, &exists, &writable, err))
		return err->status;
	d = wasm_calloc(1, sizeof *d);
	if (!d || !(d->path = wasm_strdup(path))) {
		wasm_free(d);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory opening %s", path);
	}
	d->readonly = !writable;
	flags = (d->readonly ? SQLITE_OPEN_READONLY
			     : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		SQLITE_OPEN_NOMUTEX;
	if (d->readonly && (uri = readonly_uri(path)))
		flags |= SQLITE_OPEN_URI;
	rc = sqlite3_open_v2(uri ? uri : path, &d->h, flags, NULL);
	wasm_free(uri);
	if (rc != SQLITE_OK) {
		if (rc == SQLITE_CANTOPEN && !exists)
			explain_create(path, err);
		else
			sql_fail(d, err, rc, "opening it");
		db_close(d);
		return err->status;
	}
	sqlite3_extended_result_codes(d->h, 1);
	sqlite3_busy_timeout(d->h, 5000);
	if ((!d->readonly &&
	     exec_sql(d, "PRAGMA journal_mode=WAL", "opening it", err)) ||
	    exec_sql(d, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL",
		     "opening it", err) ||
	    migrate(d, err))
		goto fail;
	*out = d;
	return WASM_OK;
fail:
	db_close(d);
	return err->status;
}

wasm_status db_check(db *d, wasm_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc =
	    sqlite3_prepare_v2(d->h, "PRAGMA integrity_check", -1, &s, NULL);
	wasm_status st = WASM_OK;

	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *t = col_text(s, 0);
		if (!t || strcmp(t, "ok") != 0)
			st = wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
					  "%s is damaged: %s; restore a copy",
					  d->path, t ? t : "no answer");
	} else {
		st = sql_fail(d, err, rc, "checking its integrity");
	}
	sqlite3_finalize(s);
	return st;
}

/* ---- nodes --------------------------------------------------------------- */

/* $HEISEN_NODE when it is a usable node name (db_node_name_ok's
 * characters, at most 64), else NULL: several nodes on one machine (a
 * test, containers sharing a machine id) tell themselves apart by it. */
static const char *node_env(void)
{
	const char *v = getenv("HEISEN_NODE");
	size_t n = v ? strlen(v) : 0;

	if (!n || n > 64 || *v == '-' ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") != n)
		return NULL;
	return v;
}

/* The machine's stable id: "node:" and $HEISEN_NODE when set, else
 * /etc/machine-id, else one made up once and kept in the settings table. */
static wasm_status node_key(db *d, char key[64], wasm_err *err)
{
	FILE *f = node_env() ? NULL : fopen("/etc/machine-id", "r");
	sqlite3_stmt *s;
	uint8_t raw[16];
	size_t n = 0;

	if (node_env()) {
		snprintf(key, 64, "node:%s", node_env());
		return WASM_OK;
	}
	if (f) {
		if (fgets(key, 64, f))
			n = strcspn(key, " \t\r\n");
		fclose(f);
		key[n] = '\0';
		if (n > 0)
			return WASM_OK;
	}
	if (!(s = stmt(d, S_SETTING_GET, err)))
		return err->status;
	sqlite3_bind_text(s, 1, "node_key", -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW && col_text(s, 0)) {
		snprintf(key, 64, "%s", col_text(s, 0));
		done(s);
		return WASM_OK;
	}
	done(s);
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot make a node id for %s: %s", d->path,
				    strerror(errno));
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(key + 2 * i, 3, "%02x", raw[i]);
	if (!(s = prepared(d, S_SETTING_PUT, err)))
		return err->status;
	sqlite3_bind_text(s, 1, "node_key", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	return exec_stmt(d, s, "storing the node id", err);
}

wasm_status db_node_self(db *d, int64_t *id, wasm_err *err)
{
	char key[64], host[256];
	sqlite3_stmt *s;
	wasm_status st;
	bool own;

	if (d->self) {
		*id = d->self;
		return WASM_OK;
	}
	if (node_env())
		snprintf(host, sizeof host, "%s", node_env());
	else if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "unknown");
	host[sizeof host - 1] = '\0';
	if (tx_begin(d, &own, err))
		return err->status;
	st = node_key(d, key, err);
	if (st == WASM_OK && (s = stmt(d, S_NODE_FIND, err))) {
		sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
		int rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			bool renamed = strcmp(col_text(s, 1), host) != 0;
			d->self = sqlite3_column_int64(s, 0);
			done(s);
			if (renamed && (s = prepared(d, S_NODE_RENAME, err))) {
				sqlite3_bind_int64(s, 1, d->self);
				sqlite3_bind_text(s, 2, host, -1,
						  SQLITE_STATIC);
				st = exec_stmt(d, s, "renaming the node", err);
			} else if (renamed) {
				st = err->status;
			}
		} else if (rc == SQLITE_DONE) {
			done(s);
			if ((s = prepared(d, S_NODE_ADD, err))) {
				sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
				sqlite3_bind_text(s, 2, host, -1,
						  SQLITE_STATIC);
				sqlite3_bind_double(s, 3, now_unix());
			}
			st = exec_stmt(d, s, "adding this node", err);
			if (st == WASM_OK)
				d->self = sqlite3_last_insert_rowid(d->h);
		} else {
			st = sql_fail(d, err, rc, "finding this node");
			done(s);
		}
	} else if (st == WASM_OK) {
		st = err->status;
	}
	st = tx_end(d, own, st, err);
	if (st != WASM_OK)
		d->self = 0;
	*id = d->self;
	return st;
}

/* ---- programs ------------------------------------------------------------ */

static void hash_hex(uint64_t h, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

wasm_status db_program_put(db *d, uint64_t hash, const char *name,
			   const char *path, uint32_t nsites, int64_t *id,
			   wasm_err *err)
{
	char hex[17];
	sqlite3_stmt *s;
	wasm_status st;
	bool own;
	int rc;

	hash_hex(hash, hex);
	if (tx_begin(d, &own, err))
		return err->status;
	if (!(s = stmt(d, S_PROGRAM_BY_HASH, err)))
		return tx_end(d, own, err->status, err);
	sqlite3_bind_text(s, 1, hex, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(s, 0);
		done(s);
		if ((s = prepared(d, S_PROGRAM_SET_PATH, err))) {
			sqlite3_bind_int64(s, 1, *id);
			bind_text(s, 2, path);
		}
		st = exec_stmt(d, s, "updating a program", err);
	} else if (rc == SQLITE_DONE) {
		done(s);
		if ((s = prepared(d, S_PROGRAM_ADD, err))) {
			sqlite3_bind_text(s, 1, hex, -1, SQLITE_STATIC);
			bind_text(s, 2, name ? name : "");
			bind_text(s, 3, path);
			sqlite3_bind_int64(s, 4, nsites);
			sqlite3_bind_double(s, 5, now_unix());
		}
		st = exec_stmt(d, s, "adding a program", err);
		if (st == WASM_OK)
			*id = sqlite3_last_insert_rowid(d->h);
	} else {
		st = sql_fail(d, err, rc, "finding a program");
		done(s);
	}
	return tx_end(d, own, st, err);
}

static wasm_status program_row(db *d, sqlite3_stmt *s, db_program *p,
			       wasm_err *err)
{
	const char *hex = col_text(s, 1);
	bool ok = true;

	memset(p, 0, sizeof *p);
	p->id = sqlite3_column_int64(s, 0);
	p->hash = hex ? strtoull(hex, NULL, 16) : 0;
	p->name = col_dup(s, 2, &ok);
	p->path = col_dup(s, 3, &ok);
	p->nsites = (uint32_t)sqlite3_column_int64(s, 4);
	if (!ok) {
		db_program_clear(p);
		return oom(d, err);
	}
	return WASM_OK;
}

/* "no campaign 12 in heisen.db": a lookup that found nothing. */
static wasm_status no_row(db *d, const char *what, int64_t id, wasm_err *err)
{
	return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
			    "no %s %lld in %s", what, (long long)id, d->path);
}

/* Fills out (an owned struct) from the current row of s. */
typedef wasm_status (*row_reader)(db *d, sqlite3_stmt *s, void *out,
				  wasm_err *err);

/* The row with this id through statement k (bound as ?1), read into out
 * by read; no_row when there is none. */
static wasm_status get_by_id(db *d, int k, int64_t id, const char *what,
			     row_reader read, void *out, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, k, err);
	char doing[48];
	wasm_status st;
	int rc;

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		st = read(d, s, out, err);
	} else if (rc == SQLITE_DONE) {
		st = no_row(d, what, id, err);
	} else {
		snprintf(doing, sizeof doing, "reading a %s", what);
		st = sql_fail(d, err, rc, doing);
	}
	done(s);
	return st;
}

static wasm_status read_program(db *d, sqlite3_stmt *s, void *out,
				wasm_err *err)
{
	return program_row(d, s, out, err);
}

void db_program_clear(db_program *p)
{
	if (!p)
		return;
	wasm_free(p->name);
	wasm_free(p->path);
	memset(p, 0, sizeof *p);
}

wasm_status db_program_get(db *d, int64_t id, db_program *out, wasm_err *err)
{
	memset(out, 0, sizeof *out);
	return get_by_id(d, S_PROGRAM_GET, id, "program", read_program, out,
			 err);
}

/* Run a program query bound to key: *n matches; the first is in out and
 * the rest are named in list (for an error message). */
static wasm_status program_match(db *d, int id, const char *key,
				 db_program *out, int *n, char *list,
				 size_t cap, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, id, err);
	wasm_status st = WASM_OK;
	size_t len = 0;
	int rc;

	*n = 0;
	list[0] = '\0';
	if (!s)
		return err->status;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = col_text(s, 2), *hex = col_text(s, 1);
		if (*n == 0 && (st = program_row(d, s, out, err)))
			break;
		if (len < cap)
			len += (size_t)snprintf(
			    list + len, cap - len, "%s%lld %s (%.8s)",
			    *n ? ", " : "",
			    (long long)sqlite3_column_int64(s, 0),
			    name ? name : "", hex ? hex : "");
		++*n;
	}
	if (st == WASM_OK && rc != SQLITE_DONE)
		st = sql_fail(d, err, rc, "finding a program");
	done(s);
	if (st != WASM_OK)
		db_program_clear(out);
	return st;
}

wasm_status db_program_named(db *d, const char *name, db_program *out,
			     uint32_t *n, wasm_err *err)
{
	char list[8];
	int count;

	memset(out, 0, sizeof *out);
	*n = 0;
	if (program_match(d, S_PROGRAM_BY_NAME, name, out, &count, list,
			  sizeof list, err))
		return err->status;
	*n = (uint32_t)count;
	return WASM_OK;
}

wasm_status db_program_find(db *d, const char *key, db_program *out,
			    wasm_err *err)
{
	char lower[17], list[160];
	size_t n = strlen(key);
	bool digits = n > 0, hex = n > 0 && n <= 16;
	int count;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		char c = key[i];
		digits = digits && c >= '0' && c <= '9';
		hex = hex && ((c >= '0' && c <= '9') ||
			      (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
		if (i < 16)
			lower[i] = (char)(c >= 'A' && c <= 'F' ? c + 32 : c);
	}
	if (digits && n < 19) {
		wasm_err miss;
		if (db_program_get(d, strtoll(key, NULL, 10), out, &miss) ==
		    WASM_OK)
			return WASM_OK;
		if (miss.status != WASM_INVALID) {
			*err = miss;
			return err->status;
		}
	}
	if (program_match(d, S_PROGRAM_BY_NAME, key, out, &count, list,
			  sizeof list, err))
		return err->status;
	if (count == 1)
		return WASM_OK;
	if (count > 1) {
		db_program_clear(out);
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "%d programs named '%s' in %s: %s; give "
				    "an id or a hash",
				    count, key, d->path, list);
	}
	if (hex) {
		lower[n] = '\0';
		if (program_match(d, S_PROGRAM_BY_PREFIX, lower, out, &count,
				  list, sizeof list, err))
			return err->status;
		if (count == 1)
			return WASM_OK;
		if (count > 1) {
			db_program_clear(out);
			return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					    "hash prefix '%s' matches %d "
					    "programs in %s: %s; give more "
					    "digits",
					    key, count, d->path, list);
		}
	}
	return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
			    "no program '%s' in %s (give an id, a hash or a "
			    "name)",
			    key, d->path);
}

/* ---- campaigns ----------------------------------------------------------- */

/* u32 arrays are stored little-endian, so a database file moves between
 * machines unchanged. */
static void *u32_blob(const uint32_t *v, uint32_t n)
{
	uint8_t *b = wasm_malloc((size_t)n * 4);

	if (!b)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		b[4 * i] = (uint8_t)v[i];
		b[4 * i + 1] = (uint8_t)(v[i] >> 8);
		b[4 * i + 2] = (uint8_t)(v[i] >> 16);
		b[4 * i + 3] = (uint8_t)(v[i] >> 24);
	}
	return b;
}

/* Decode column i into a fresh array; false on a bad length or no
 * memory (*bad tells which). */
static bool blob_u32(sqlite3_stmt *s, int i, uint32_t **v, uint32_t *n,
		     bool *bad)
{
	const uint8_t *b = sqlite3_column_blob(s, i);
	size_t len = (size_t)sqlite3_column_bytes(s, i);

	*n = 0;
	if (len % 4 != 0 || len / 4 > UINT32_MAX) {
		*bad = true;
		*v = NULL;
		return false;
	}
	*v = wasm_malloc(len);
	if (!*v)
		return false;
	for (size_t k = 0; k < len / 4; k++)
		(*v)[k] = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 |
			  (uint32_t)b[4 * k + 2] << 16 |
			  (uint32_t)b[4 * k + 3] << 24;
	*n = (uint32_t)(len / 4);
	return true;
}

void db_campaign_clear(db_campaign *c)
{
	if (!c)
		return;
	wasm_free(c->program);
	wasm_free(c->densities);
	wasm_free(c->density_bp);
	wasm_free(c->profiles);
	wasm_free(c->pruned);
	wasm_free(c->args);
	wasm_free(c->status);
	wasm_free(c->node);
	wasm_free(c->input);
	wasm_free(c->input_hash);
	wasm_free(c->schedule);
	wasm_free(c->failure);
	wasi_world_clear(&c->world);
	memset(c, 0, sizeof *c);
}

/* Who runs a campaign: "NODE BOOT PID START", this machine's node key,
 * the kernel's boot id, the sweep's process id and its start time in
 * clock ticks after boot (/proc/PID/stat). The boot id and start time
 * make the identity unique: a reused pid or a reboot (power loss) does
 * not look like the sweep still running. False when /proc cannot tell. */
static bool proc_identity(db *d, pid_t pid, char *buf, size_t cap)
{
	char path[64], line[1024], boot[64] = "", node[64];
	unsigned long long start;
	const char *p;
	wasm_err e;
	FILE *f;
	size_t n;

	if (node_key(d, node, &e))
		return false;
	if ((f = fopen("/proc/sys/kernel/random/boot_id", "r"))) {
		if (fgets(boot, sizeof boot, f))
			boot[strcspn(boot, " \t\r\n")] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	n = fread(line, 1, sizeof line - 1, f);
	fclose(f);
	line[n] = '\0';
	/* The name in parentheses may hold anything: fields follow the
	 * last ')'. A zombie has ended (its parent has not looked yet). */
	if (!(p = strrchr(line, ')')) || p[1] != ' ' || p[2] == 'Z' ||
	    p[2] == 'X')
		return false;
	p += 2;
	for (int field = 3; field < 22; field++)
		if (!(p = strchr(p, ' ')))
			return false;
		else
			p++;
	if (sscanf(p, "%llu", &start) != 1)
		return false;
	snprintf(buf, cap, "%s %s %d %llu", node, boot[0] ? boot : "-",
		 (int)pid, start);
	return true;
}

/* A campaign marked running whose sweep process is gone (killed, power
 * loss) reads as "interrupted". One run by another machine cannot be
 * checked from here and stays "running" (owner_remote). False when out
 * of memory. */
static bool owner_check(db *d, const char *owner, db_campaign *c)
{
	char node[64], now[256];
	int pid = 0, used = 0;
	bool alive = false;

	if (owner && sscanf(owner, "%63s %*s %d%n", node, &pid, &used) == 2 &&
	    used > 0 && pid > 0) {
		char self[64];
		wasm_err e;
		c->owner_pid = pid;
		if (node_key(d, self, &e) != WASM_OK)
			return true; /* cannot tell: leave it running */
		if (strcmp(self, node)) {
			c->owner_remote = true;
			return true;
		}
		alive = proc_identity(d, (pid_t)pid, now, sizeof now) &&
			!strcmp(now, owner);
	}
	if (alive)
		return true;
	wasm_free(c->status);
	return (c->status = wasm_strdup("interrupted")) != NULL;
}

/* Parameter i of s: this process as the sweep of a campaign whose status
 * becomes `status` when that is "running", else NULL. */
static wasm_status bind_owner(db *d, sqlite3_stmt *s, int i, const char *status,
			      wasm_err *err)
{
	char me[256];

	if (strcmp(status, "running")) {
		sqlite3_bind_null(s, i);
		return WASM_OK;
	}
	if (!proc_identity(d, getpid(), me, sizeof me))
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot read this process's identity in "
				    "/proc (is /proc mounted?)");
	sqlite3_bind_text(s, i, me, -1, SQLITE_TRANSIENT);
	return WASM_OK;
}

static wasm_status campaign_row(db *d, sqlite3_stmt *s, db_campaign *c,
				wasm_err *err)
{
	const uint8_t *args = sqlite3_column_blob(s, 16);
	size_t alen = (size_t)sqlite3_column_bytes(s, 16);
	bool ok = true, bad = false, nomem = false;

	memset(c, 0, sizeof *c);
	c->id = sqlite3_column_int64(s, 0);
	c->program_id = sqlite3_column_int64(s, 1);
	c->node_id = sqlite3_column_int64(s, 2);
	c->created = sqlite3_column_double(s, 3);
	c->program = col_dup(s, 4, &ok);
	c->densities = col_dup(s, 5, &ok);
	ok = blob_u32(s, 6, &c->density_bp, &c->ndensity, &bad) && ok;
	c->profiles = col_dup(s, 7, &ok);
	c->runs = (uint32_t)sqlite3_column_int64(s, 8);
	c->budget_s = sqlite3_column_double(s, 9);
	c->jobs = (uint32_t)sqlite3_column_int64(s, 10);
	c->seed = (uint64_t)sqlite3_column_int64(s, 11);
	c->delay = (uint32_t)sqlite3_column_int64(s, 12);
	c->timeout_s = sqlite3_column_double(s, 13);
	c->prune = sqlite3_column_int64(s, 14) != 0;
	ok = blob_u32(s, 15, &c->pruned, &c->npruned, &bad) && ok;
	/* args: strings each ending in NUL; one more NUL so that the
	 * buffer is a C string even when empty. */
	if (alen > 0 && args[alen - 1] != '\0')
		bad = true;
	else if ((c->args = wasm_malloc(alen + 1))) {
		if (alen)
			memcpy(c->args, args, alen);
		c->args[alen] = '\0';
		for (size_t i = 0; i < alen; i++)
			c->nargs += args[i] == '\0';
	} else {
		ok = false;
	}
	c->status = col_dup(s, 17, &ok);
	c->planned = (uint64_t)sqlite3_column_int64(s, 18);
	c->done = (uint64_t)sqlite3_column_int64(s, 19);
	c->bugs = (uint64_t)sqlite3_column_int64(s, 20);
	c->cells = (uint64_t)sqlite3_column_int64(s, 21);
	c->mask_version = (uint32_t)sqlite3_column_int64(s, 22);
	c->kind = db_kind_parse((const char *)sqlite3_column_text(s, 24));
	c->node = col_dup(s, 25, &ok);
	if (sqlite3_column_type(s, 27) != SQLITE_NULL) {
		const uint8_t *in = sqlite3_column_blob(s, 26);
		int n = sqlite3_column_bytes(s, 26);
		c->input_hash = col_dup(s, 27, &ok);
		if (n < 0 || (uint32_t)n > DB_STDIN_MAX)
			bad = true;
		else if ((c->input = wasm_malloc(n ? (size_t)n : 1))) {
			if (n)
				memcpy(c->input, in, (size_t)n);
			c->ninput = (uint32_t)n;
		} else {
			ok = false;
		}
	}
	c->schedule = col_dup(s, 28, &ok);
	c->failure = col_dup(s, 29, &ok);
	if (!wasi_world_set_dirs(&c->world, sqlite3_column_blob(s, 30),
				 (size_t)sqlite3_column_bytes(s, 30), &nomem) ||
	    !wasi_world_set_env(&c->world, sqlite3_column_blob(s, 31),
				(size_t)sqlite3_column_bytes(s, 31), &nomem))
		bad = !nomem;
	ok = ok && !nomem;
	c->world.max_threads = (uint32_t)sqlite3_column_int64(s, 32);
	c->world.max_memory_pages = (uint32_t)sqlite3_column_int64(s, 33);
	if (ok && c->status && !strcmp(c->status, "running")) {
		const char *owner = (const char *)sqlite3_column_text(s, 23);
		ok = owner_check(d, owner, c);
	}
	if (bad) {
		db_campaign_clear(c);
		return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
				    "%s: campaign %lld has a damaged row; "
				    "run a check of the database",
				    d->path,
				    (long long)sqlite3_column_int64(s, 0));
	}
	if (!ok) {
		db_campaign_clear(c);
		return oom(d, err);
	}
	return WASM_OK;
}

const char *db_found_name(uint8_t found_by)
{
	static const char *const names[] = {"-", "collision", "hb", "both"};
	return names[found_by & 3];
}

static const char *const kind_names[] = {
    [DB_KIND_SWEEP] = "sweep",
    [DB_KIND_CHECK] = "check",
    [DB_KIND_EXPLORE] = "explore",
};

const char *db_kind_name(db_kind k)
{
	return (unsigned)k < sizeof kind_names / sizeof *kind_names
		   ? kind_names[k]
		   : "sweep";
}

db_kind db_kind_parse(const char *s)
{
	for (unsigned k = 0; s && k < sizeof kind_names / sizeof *kind_names;
	     k++)
		if (!strcmp(s, kind_names[k]))
			return (db_kind)k;
	return DB_KIND_SWEEP;
}

/* Packed strings (wasi_world's) as a blob, NULL when there are none. */
static void bind_packed(sqlite3_stmt *s, int i, const char *p, size_t len)
{
	if (len)
		sqlite3_bind_blob(s, i, p, (int)len, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

wasm_status db_campaign_new(db *d, db_campaign *c, wasm_err *err)
{
	void *dens = u32_blob(c->density_bp, c->ndensity);
	void *pruned = u32_blob(c->pruned, c->prune ? c->npruned : 0);
	sqlite3_stmt *s = stmt(d, S_CAMPAIGN_ADD, err);
	size_t alen = 0;
	wasm_status st;
	double created = now_unix();

	if (!s) {
		st = err->status;
		goto out;
	}
	if (!dens || !pruned) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory adding a campaign to %s",
				  d->path);
		goto out;
	}
	for (uint32_t i = 0; i < c->nargs; i++)
		alen += strlen(c->args + alen) + 1;
	sqlite3_bind_int64(s, 1, c->program_id);
	bind_ref(s, 2, c->node_id);
	sqlite3_bind_double(s, 3, created);
	bind_text(s, 4, c->densities ? c->densities : "");
	sqlite3_bind_blob(s, 5, dens, (int)c->ndensity * 4, SQLITE_STATIC);
	bind_text(s, 6, c->profiles ? c->profiles : "");
	sqlite3_bind_int64(s, 7, c->runs);
	sqlite3_bind_double(s, 8, c->budget_s);
	sqlite3_bind_int64(s, 9, c->jobs);
	sqlite3_bind_int64(s, 10, (sqlite3_int64)c->seed);
	sqlite3_bind_int64(s, 11, c->delay);
	sqlite3_bind_double(s, 12, c->timeout_s);
	sqlite3_bind_int(s, 13, c->prune);
	sqlite3_bind_blob(s, 14, pruned, c->prune ? (int)c->npruned * 4 : 0,
			  SQLITE_STATIC);
	sqlite3_bind_blob(s, 15, alen ? c->args : "", (int)alen, SQLITE_STATIC);
	bind_text(s, 16, c->status ? c->status : "running");
	sqlite3_bind_int64(s, 17, (sqlite3_int64)c->planned);
	sqlite3_bind_int64(s, 18, c->mask_version);
	bind_text(s, 20, db_kind_name(c->kind));
	if (c->input_hash) {
		sqlite3_bind_blob(s, 21,
				  c->ninput ? (const void *)c->input : "",
				  (int)c->ninput, SQLITE_STATIC);
		bind_text(s, 22, c->input_hash);
	} else {
		sqlite3_bind_null(s, 21);
		sqlite3_bind_null(s, 22);
	}
	bind_text(s, 23, c->schedule);
	bind_text(s, 24, c->failure);
	bind_packed(s, 25, c->world.dirs, wasi_world_dirs_len(&c->world));
	bind_packed(s, 26, c->world.env, wasi_world_env_len(&c->world));
	sqlite3_bind_int64(s, 27, c->world.max_threads);
	sqlite3_bind_int64(s, 28, c->world.max_memory_pages);
	if ((st = bind_owner(d, s, 19, c->status ? c->status : "running",
			     err))) {
		done(s);
		goto out;
	}
	st = exec_stmt(d, s, "adding a campaign", err);
	if (st == WASM_OK) {
		c->id = sqlite3_last_insert_rowid(d->h);
		c->created = created;
	}
out:
	wasm_free(dens);
	wasm_free(pruned);
	return st;
}

static wasm_status read_campaign(db *d, sqlite3_stmt *s, void *out,
				 wasm_err *err)
{
	return campaign_row(d, s, out, err);
}

wasm_status db_campaign_get(db *d, int64_t id, db_campaign *out, wasm_err *err)
{
	memset(out, 0, sizeof *out);
	return get_by_id(d, S_CAMPAIGN_GET, id, "campaign", read_campaign, out,
			 err);
}

wasm_status db_campaign_set_status(db *d, int64_t id, const char *status,
				   wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_CAMPAIGN_STATUS, err);
	wasm_status st;

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, status);
	if ((st = bind_owner(d, s, 3, status, err))) {
		done(s);
		return st;
	}
	st = exec_stmt(d, s, "setting a campaign's status", err);
	if (st == WASM_OK && sqlite3_changes(d->h) == 0)
		st = no_row(d, "campaign", id, err);
	return st;
}

wasm_status db_campaign_complete(db *d, int64_t id, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_CAMPAIGN_COMPLETE, err);

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, id);
	return exec_stmt(d, s, "marking a campaign done", err);
}

wasm_status db_campaign_list(db *d, bool (*cb)(void *ctx, const db_campaign *c),
			     void *ctx, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_CAMPAIGN_LIST, err);
	wasm_status st = WASM_OK;
	int rc;

	if (!s)
		return err->status;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		db_campaign c;
		bool more;
		if ((st = campaign_row(d, s, &c, err)))
			break;
		more = cb(ctx, &c);
		db_campaign_clear(&c);
		if (!more)
			break;
	}
	if (st == WASM_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "listing campaigns");
	done(s);
	return st;
}

/* Whether campaign id exists (WASM_INVALID if not). */
static wasm_status campaign_owner(db *d, int64_t id, wasm_err *err)
{
	sqlite3_stmt *s;
	int rc;

	if (d->camp_id == id)
		return WASM_OK;
	if (!(s = stmt(d, S_CAMPAIGN_OWNER, err)))
		return err->status;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		d->camp_id = id;
		d->camp_program = sqlite3_column_int64(s, 0);
		d->camp_node = sqlite3_column_int64(s, 1);
	}
	done(s);
	if (rc == SQLITE_ROW)
		return WASM_OK;
	if (rc == SQLITE_DONE)
		return no_row(d, "campaign", id, err);
	return sql_fail(d, err, rc, "finding a campaign");
}

wasm_status db_campaign_done(db *d, int64_t id,
			     bool (*cb)(void *ctx, uint64_t idx), void *ctx,
			     wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st = WASM_OK;
	int rc;

	if (campaign_owner(d, id, err))
		return err->status;
	if (!(s = stmt(d, S_CAMPAIGN_DONE, err)))
		return err->status;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if (!cb(ctx, (uint64_t)sqlite3_column_int64(s, 0)))
			break;
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "listing a campaign's runs");
	done(s);
	return st;
}

/* ---- runs ---------------------------------------------------------------- */

static size_t bug_hash(int64_t prog, uint32_t a, uint32_t b)
{
	uint64_t h = (uint64_t)prog * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)a << 32 | b) + 0x632be59bd9b4e019ull + (h << 6);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ h >> 32);
}

static bug_slot *bug_slot_of(db *d, int64_t prog, uint32_t a, uint32_t b)
{
	size_t mask = d->bugcap - 1, i = bug_hash(prog, a, b) & mask;

	while (d->bugs[i].id && (d->bugs[i].program_id != prog ||
				 d->bugs[i].a != a || d->bugs[i].b != b))
		i = (i + 1) & mask;
	return &d->bugs[i];
}

/* Remember a bug id. A failed growth only costs a lookup later. */
static void bug_remember(db *d, int64_t prog, uint32_t a, uint32_t b,
			 int64_t id)
{
	bug_slot *slot;

	if (2 * (d->nbugs + 1) > d->bugcap) {
		size_t cap = d->bugcap ? 2 * d->bugcap : 64;
		bug_slot *old = d->bugs, *nb = wasm_calloc(cap, sizeof *nb);
		size_t oldcap = d->bugcap;
		if (!nb)
			return;
		d->bugs = nb;
		d->bugcap = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].id)
				*bug_slot_of(d, old[i].program_id, old[i].a,
					     old[i].b) = old[i];
		wasm_free(old);
	}
	slot = bug_slot_of(d, prog, a, b);
	if (!slot->id)
		d->nbugs++;
	*slot = (bug_slot){prog, id, a, b};
}

static void bind_site(sqlite3_stmt *s, int i, const db_site *site)
{
	sqlite3_bind_int64(s, i, site->id);
	sqlite3_bind_int(s, i + 1, site->kind);
	bind_text(s, i + 2, site->func);
	bind_text(s, i + 3, site->file);
	sqlite3_bind_int64(s, i + 4, site->line);
}

/* The bug of hit h in the campaign's program, created on first sight. */
static wasm_status bug_of(db *d, const db_site *sa, const db_site *sb,
			  const db_run *r, int64_t *id, wasm_err *err)
{
	int64_t prog = d->camp_program;
	char sig[DB_SIG_LEN + 1];
	sqlite3_stmt *s;
	bug_slot *slot;

	if (d->bugcap) {
		slot = bug_slot_of(d, prog, sa->id, sb->id);
		if (slot->id) {
			*id = slot->id;
			return WASM_OK;
		}
	}
	if (db_bug_find(d, prog, sa->id, sb->id, id, err))
		return err->status;
	if (!*id) {
		if (!(s = prepared(d, S_BUG_ADD, err)))
			return err->status;
		sqlite3_bind_int64(s, 1, prog);
		bind_site(s, 2, sa);
		bind_site(s, 7, sb);
		sqlite3_bind_int64(s, 12, r->id);
		sqlite3_bind_double(s, 13, r->started);
		sqlite3_bind_int(s, 14, sa->width);
		sqlite3_bind_int(s, 15, sb->width);
		/* Bound without a copy: sig must live until the step. */
		if (sa->sig && sb->sig) {
			db_sig_format(db_sig_pair(sa->sig, sb->sig), sig);
			bind_text(s, 16, sig);
		}
		if (exec_stmt(d, s, "adding a bug", err))
			return err->status;
		*id = sqlite3_last_insert_rowid(d->h);
	}
	bug_remember(d, prog, sa->id, sb->id, *id);
	return WASM_OK;
}

/* ---- call stacks ------------------------------------------------------- */

void db_stack_clear(db_stack *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		wasm_free(s->frame[i].func);
		wasm_free(s->frame[i].file);
	}
	wasm_free(s->frame);
	memset(s, 0, sizeof *s);
}

/* The 5th field of an inlined frame's line. */
#define DB_INLINED "inlined"

/* A name with its tabs and line breaks as spaces: the text form's
 * separators. */
static void put_field(wasm_buf *b, const char *p)
{
	for (; p && *p; p++)
		wasm_buf_byte(b, *p == '\t' || *p == '\n' || *p == '\r'
				     ? ' '
				     : (uint8_t)*p);
}

char *db_stack_format(const db_stack *s)
{
	wasm_buf b = {0};
	char num[32];

	for (uint32_t i = 0; i < s->n; i++) {
		const db_frame *f = &s->frame[i];
		put_field(&b, f->func);
		wasm_buf_byte(&b, '\t');
		put_field(&b, f->file);
		snprintf(num, sizeof num, "\t%u\t%u%s\n", f->line, f->offset,
			 f->inlined ? "\t" DB_INLINED : "");
		wasm_buf_put(&b, num, strlen(num));
	}
	if (s->truncated)
		wasm_buf_put(&b, "...\n", 4);
	wasm_buf_byte(&b, 0);
	if (b.oom) {
		wasm_buf_fini(&b);
		return NULL;
	}
	return (char *)b.data;
}

/* A decimal u32 ending at the separator end; false if it is not one. */
static bool parse_u32(const char *p, char end, const char **next, uint32_t *v)
{
	uint64_t x = 0;
	const char *q = p;

	while (*q >= '0' && *q <= '9' && x <= UINT32_MAX)
		x = x * 10 + (uint64_t)(*q++ - '0');
	if (q == p || *q != end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	*next = q + 1;
	return true;
}

wasm_status db_stack_parse(const char *text, db_stack *out, wasm_err *err)
{
	uint32_t lines = 0, line = 0;
	const char *p;

	memset(out, 0, sizeof *out);
	for (p = text; *p; p++)
		lines += *p == '\n';
	out->frame = wasm_calloc(lines ? lines : 1, sizeof *out->frame);
	if (!out->frame)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	for (p = text; *p; line++) {
		const char *eol = strchr(p, '\n'), *t1, *t2, *q;
		db_frame *f = &out->frame[out->n];
		bool inlined;
		if (eol && eol - p == 3 && !memcmp(p, "...", 3) && !eol[1]) {
			out->truncated = true;
			break;
		}
		t1 = eol ? memchr(p, '\t', (size_t)(eol - p)) : NULL;
		t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(eol - t1 - 1)) : NULL;
		/* Stacks written before inlined frames have no 5th
		 * field. */
		inlined = eol && eol - p > (ptrdiff_t)sizeof DB_INLINED &&
			  !memcmp(eol - sizeof DB_INLINED, "\t" DB_INLINED,
				  sizeof DB_INLINED);
		/* f is only written for a line with a line break: frame
		 * has room for one per break. */
		if (!t2 || t1 == p || !parse_u32(t2 + 1, '\t', &q, &f->line) ||
		    !parse_u32(q, inlined ? '\t' : '\n', &q, &f->offset) ||
		    q != (inlined ? eol - sizeof DB_INLINED + 1 : eol + 1)) {
			db_stack_clear(out);
			return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
					    "call stack, line %u: not "
					    "FUNCTION<tab>FILE<tab>LINE<tab>"
					    "OFFSET[<tab>inlined]",
					    line + 1);
		}
		f->inlined = inlined;
		f->func = wasm_strndup(p, (size_t)(t1 - p));
		f->file = t2 > t1 + 1
			      ? wasm_strndup(t1 + 1, (size_t)(t2 - t1 - 1))
			      : NULL;
		out->n++;
		if (!f->func || (t2 > t1 + 1 && !f->file)) {
			db_stack_clear(out);
			return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					    "out of memory");
		}
		p = eol + 1;
	}
	return WASM_OK;
}

void db_value_format(const db_value *v, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	uint8_t w = v->width <= DB_VALUE_BYTES ? v->width : DB_VALUE_BYTES;

	if (cap < 4 * DB_VALUE_BYTES + 8) {
		if (cap)
			buf[0] = '\0';
		return;
	}
	buf[n++] = v->side ? '1' : '0';
	for (int k = 0; k < 2; k++) {
		const uint8_t *b = k ? v->after : v->before;
		buf[n++] = ' ';
		for (uint8_t i = 0; i < w; i++) {
			buf[n++] = hex[b[i] >> 4];
			buf[n++] = hex[b[i] & 15];
		}
	}
	buf[n] = '\0';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool db_value_changed(const db_value *v)
{
	return v->width && v->width <= DB_VALUE_BYTES &&
	       memcmp(v->before, v->after, v->width) != 0;
}

wasm_status db_value_parse(const char *text, db_value *out, wasm_err *err)
{
	size_t len = strlen(text), w;

	memset(out, 0, sizeof *out);
	/* "S OLD NEW": both halves of one even width, 1 to 16 bytes. */
	if (len < 7 || (text[0] != '0' && text[0] != '1') || text[1] != ' ' ||
	    (len - 3) % 4 || (w = (len - 3) / 4) > DB_VALUE_BYTES ||
	    text[2 + 2 * w] != ' ')
		goto bad;
	for (size_t k = 0; k < 2; k++) {
		const char *h = text + 2 + k * (2 * w + 1);
		uint8_t *b = k ? out->after : out->before;
		for (size_t i = 0; i < w; i++) {
			int hi = hex_digit(h[2 * i]),
			    lo = hex_digit(h[2 * i + 1]);
			if (hi < 0 || lo < 0)
				goto bad;
			b[i] = (uint8_t)(hi << 4 | lo);
		}
	}
	out->side = (uint8_t)(text[0] - '0');
	out->width = (uint8_t)w;
	return WASM_OK;
bad:
	memset(out, 0, sizeof *out);
	return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
			    "value evidence '%.40s': not SIDE OLD NEW (side 0 "
			    "or 1, two hex byte strings of one width)",
			    text);
}

static const char *const loc_kinds[] = {
    [DB_LOC_NONE] = "",		  [DB_LOC_GLOBAL] = "global",
    [DB_LOC_SEGMENT] = "segment", [DB_LOC_HEAP] = "heap",
    [DB_LOC_STACK] = "stack",
};

const char *db_loc_kind_name(uint8_t kind)
{
	return kind < sizeof loc_kinds / sizeof *loc_kinds ? loc_kinds[kind]
							   : "";
}

char *db_loc_format(const db_loc *l)
{
	wasm_buf b = {0};
	char num[48];

	if (!l->kind || l->kind >= sizeof loc_kinds / sizeof *loc_kinds)
		return NULL;
	wasm_buf_put(&b, loc_kinds[l->kind], strlen(loc_kinds[l->kind]));
	snprintf(num, sizeof num, " %" PRIu32 " %" PRIu32 " ", l->offset,
		 l->size);
	wasm_buf_put(&b, num, strlen(num));
	if (l->kind == DB_LOC_HEAP || l->kind == DB_LOC_STACK)
		snprintf(num, sizeof num, "%" PRIu32, l->tid);
	else
		snprintf(num, sizeof num, "-");
	wasm_buf_put(&b, num, strlen(num));
	if (l->name) {
		wasm_buf_byte(&b, ' ');
		put_field(&b, l->name);
	}
	wasm_buf_byte(&b, 0);
	if (b.oom) {
		wasm_free(b.data);
		return NULL;
	}
	return (char *)b.data;
}

void db_loc_clear(db_loc *l)
{
	if (!l)
		return;
	wasm_free(l->name);
	db_stack_clear(&l->stack);
	memset(l, 0, sizeof *l);
}

wasm_status db_loc_parse(const char *text, db_loc *out, wasm_err *err)
{
	char kind[16], tid[16];
	unsigned long long off, size;
	int n = 0;

	memset(out, 0, sizeof *out);
	if (sscanf(text, "%15s %llu %llu %15s%n", kind, &off, &size, tid, &n) <
		4 ||
	    off > UINT32_MAX || size > UINT32_MAX)
		goto bad;
	for (uint8_t k = DB_LOC_GLOBAL;
	     k < sizeof loc_kinds / sizeof *loc_kinds; k++)
		if (!strcmp(kind, loc_kinds[k]))
			out->kind = k;
	if (!out->kind)
		goto bad;
	if (strcmp(tid, "-")) {
		char *end;
		unsigned long t = strtoul(tid, &end, 10);
		if (*end || t > UINT32_MAX)
			goto bad;
		out->tid = (uint32_t)t;
	}
	out->offset = (uint32_t)off;
	out->size = (uint32_t)size;
	if (text[n] == ' ' && text[n + 1] &&
	    !(out->name = wasm_strdup(text + n + 1)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	return WASM_OK;
bad:
	memset(out, 0, sizeof *out);
	return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
			    "location '%.60s': not KIND OFFSET SIZE TID [NAME]",
			    text);
}

/* ---- locks held ---------------------------------------------------------- */

static const char *const lock_kinds[] = {
    [DB_LOCK_NONE] = "",
    [DB_LOCK_MUTEX] = "mutex",
    [DB_LOCK_READ] = "rwlock-read",
    [DB_LOCK_WRITE] = "rwlock-write",
    [DB_LOCK_SPIN] = "spinlock",
};
_Static_assert(sizeof lock_kinds / sizeof *lock_kinds == DB_LOCK_KINDS,
	       "a name per kind");

const char *db_lock_kind_name(uint8_t kind)
{
	return kind < DB_LOCK_KINDS ? lock_kinds[kind] : "";
}

void db_locks_clear(db_locks *l)
{
	if (!l)
		return;
	for (uint32_t i = 0; i < l->n; i++) {
		db_loc_clear(&l->lock[i].loc);
		db_stack_clear(&l->lock[i].first);
	}
	wasm_free(l->lock);
	memset(l, 0, sizeof *l);
}

/* Each line of a stack's text form, with prefix before it. */
static void put_prefixed(wasm_buf *b, const char *prefix, const db_stack *st)
{
	char *text = st->n ? db_stack_format(st) : NULL;

	if (st->n && !text) {
		b->oom = true;
		return;
	}
	for (char *p = text; p && *p;) {
		char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
		wasm_buf_put(b, prefix, strlen(prefix));
		wasm_buf_put(b, p, len);
		p += len;
	}
	wasm_free(text);
}

char *db_locks_format(const db_locks *sides[2], bool *nomem)
{
	wasm_buf b = {0};
	char line[96];

	*nomem = false;
	if ((!sides[0] || !sides[0]->held) && (!sides[1] || !sides[1]->held))
		return NULL;
	for (int k = 0; k < 2; k++) {
		const db_locks *ls = sides[k];
		if (!ls || !ls->held)
			continue;
		snprintf(line, sizeof line, "H %d %" PRIu32 "\n", k, ls->held);
		wasm_buf_put(&b, line, strlen(line));
		for (uint32_t i = 0; i < ls->n; i++) {
			const db_lock *l = &ls->lock[i];
			char tid[16] = "-", *loc;
			if (l->known)
				snprintf(tid, sizeof tid, "%" PRIu32, l->tid);
			snprintf(line, sizeof line, "L %d %s %" PRIu32 " %s\n",
				 k, db_lock_kind_name(l->kind), l->addr, tid);
			wasm_buf_put(&b, line, strlen(line));
			if ((loc = db_loc_format(&l->loc))) {
				wasm_buf_put(&b, "W ", 2);
				wasm_buf_put(&b, loc, strlen(loc));
				wasm_buf_byte(&b, '\n');
				wasm_free(loc);
			} else if (l->loc.kind) {
				b.oom = true;
			}
			put_prefixed(&b, "F ", &l->first);
			if (l->loc.kind)
				put_prefixed(&b, "A ", &l->loc.stack);
		}
	}
	wasm_buf_byte(&b, 0);
	if (b.oom) {
		wasm_buf_fini(&b);
		*nomem = true;
		return NULL;
	}
	return (char *)b.data;
}

/* Parse the stack lines gathered in b (NUL-terminated) into st. */
static wasm_status locks_stack(wasm_buf *b, db_stack *st, wasm_err *err)
{
	wasm_status s;

	if (!b->len)
		return WASM_OK;
	wasm_buf_byte(b, 0);
	if (b->oom)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	s = db_stack_parse((const char *)b->data, st, err);
	b->len = 0;
	return s;
}

wasm_status db_locks_parse(const char *text, db_locks out[2], wasm_err *err)
{
	wasm_buf fb = {0}, ab = {0};
	db_lock *cur = NULL;
	wasm_status st = WASM_OK;
	uint32_t line = 0;

	memset(out, 0, 2 * sizeof *out);
	for (const char *p = text; *p && !st; line++) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char buf[128], kind[16], tid[16];
		unsigned side, held;
		unsigned long long addr;
		int n = 0;
		if (len < 2 || p[1] != ' ')
			goto bad;
		if (p[0] == 'F' || p[0] == 'A') {
			wasm_buf *b = p[0] == 'F' ? &fb : &ab;
			if (!cur)
				goto bad;
			wasm_buf_put(b, p + 2, len - 2);
			wasm_buf_byte(b, '\n');
		} else if (p[0] == 'W') {
			char *w;
			if (!cur || cur->loc.kind ||
			    !(w = wasm_strndup(p + 2, len - 2))) {
				if (!cur || cur->loc.kind)
					goto bad;
				st = wasm_err_set(err, WASM_NOMEM,
						  WASM_NO_OFFSET,
						  "out of memory");
				break;
			}
			st = db_loc_parse(w, &cur->loc, err);
			wasm_free(w);
		} else {
			/* A new record: the last lock's stacks are whole. */
			if (cur &&
			    ((st = locks_stack(&fb, &cur->first, err)) ||
			     (st = locks_stack(&ab, &cur->loc.stack, err))))
				break;
			cur = NULL;
			if (len >= sizeof buf)
				goto bad;
			memcpy(buf, p, len);
			buf[len] = '\0';
			if (p[0] == 'H') {
				if (sscanf(buf, "H %u %u%n", &side, &held,
					   &n) != 2 ||
				    (size_t)n != len || side > 1 ||
				    out[side].held)
					goto bad;
				out[side].held = held;
			} else if (p[0] == 'L') {
				db_lock *v;
				uint8_t k;
				if (sscanf(buf, "L %u %15s %llu %15s%n", &side,
					   kind, &addr, tid, &n) != 4 ||
				    (size_t)n != len || side > 1 ||
				    addr > UINT32_MAX ||
				    out[side].n >= out[side].held)
					goto bad;
				for (k = DB_LOCK_MUTEX; k < DB_LOCK_KINDS; k++)
					if (!strcmp(kind, lock_kinds[k]))
						break;
				if (k == DB_LOCK_KINDS)
					goto bad;
				v = wasm_realloc(out[side].lock,
						 (out[side].n + 1) * sizeof *v);
				if (!v) {
					st = wasm_err_set(err, WASM_NOMEM,
							  WASM_NO_OFFSET,
							  "out of memory");
					break;
				}
				out[side].lock = v;
				cur = &v[out[side].n++];
				memset(cur, 0, sizeof *cur);
				cur->kind = k;
				cur->addr = (uint32_t)addr;
				if (strcmp(tid, "-")) {
					char *end;
					unsigned long t =
					    strtoul(tid, &end, 10);
					if (*end || t > UINT32_MAX)
						goto bad;
					cur->known = true;
					cur->tid = (uint32_t)t;
				}
			} else {
				goto bad;
			}
		}
		p += len + (eol ? 1 : 0);
	}
	if (!st && cur)
		if (!(st = locks_stack(&fb, &cur->first, err)))
			st = locks_stack(&ab, &cur->loc.stack, err);
	goto done;
bad:
	st = wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
			  "locks held, line %u: not H SIDE HELD, L SIDE KIND "
			  "ADDR TID, W LOCATION, F FRAME or A FRAME",
			  line + 1);
done:
	wasm_buf_fini(&fb);
	wasm_buf_fini(&ab);
	if (st) {
		db_locks_clear(&out[0]);
		db_locks_clear(&out[1]);
	}
	return st;
}

char *db_names_format(const char *sides[2], bool *nomem)
{
	wasm_buf b = {0};

	*nomem = false;
	if (!sides[0][0] && !sides[1][0])
		return NULL;
	for (int k = 0; k < 2; k++) {
		if (!sides[k][0])
			continue;
		wasm_buf_byte(&b, k ? '1' : '0');
		wasm_buf_byte(&b, ' ');
		put_field(&b, sides[k]);
		wasm_buf_byte(&b, '\n');
	}
	wasm_buf_byte(&b, 0);
	if (b.oom) {
		wasm_buf_fini(&b);
		*nomem = true;
		return NULL;
	}
	return (char *)b.data;
}

wasm_status db_names_parse(const char *text, char out[2][DB_NAME_MAX],
			   wasm_err *err)
{
	out[0][0] = out[1][0] = '\0';
	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		int k = p[0] - '0';
		if (len < 3 || (k != 0 && k != 1) || p[1] != ' ' || out[k][0] ||
		    len - 2 >= DB_NAME_MAX) {
			out[0][0] = out[1][0] = '\0';
			return wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
					    "thread names '%.40s': not lines "
					    "of SIDE NAME",
					    text);
		}
		memcpy(out[k], p + 2, len - 2);
		out[k][len - 2] = '\0';
		p += len + (eol ? 1 : 0);
	}
	return WASM_OK;
}

/* The one text column of statement `which`'s row for (run_id, bug_id),
 * given to parse (nothing for no row or NULL). Stored text that does not
 * parse is parse's status, the message naming the run and the bug. */
static wasm_status run_bug_text(db *d, int which, int64_t run_id,
				int64_t bug_id, const char *what,
				wasm_status (*parse)(const char *, void *,
						     wasm_err *),
				void *out, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, which, err);
	wasm_status st = WASM_OK;
	const char *t;
	int rc;

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, bug_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if ((t = (const char *)sqlite3_column_text(s, 0)) &&
		    (st = parse(t, out, err))) {
			char why[sizeof err->msg];
			snprintf(why, sizeof why, "%s", err->msg);
			wasm_err_set(err, st, WASM_NO_OFFSET,
				     "%s: run %" PRId64 ", bug %" PRId64 ": %s",
				     d->path, run_id, bug_id, why);
		}
	} else if (rc != SQLITE_DONE) {
		char doing[80];
		snprintf(doing, sizeof doing, "reading %s", what);
		st = sql_fail(d, err, rc, doing);
	}
	done(s);
	return st;
}

static wasm_status parse_names(const char *t, void *out, wasm_err *err)
{
	return db_names_parse(t, out, err);
}

static wasm_status parse_locks(const char *t, void *out, wasm_err *err)
{
	return db_locks_parse(t, out, err);
}

wasm_status db_run_bug_names(db *d, int64_t run_id, int64_t bug_id,
			     char names[2][DB_NAME_MAX], wasm_err *err)
{
	names[0][0] = names[1][0] = '\0';
	return run_bug_text(d, S_RUN_BUG_NAMES, run_id, bug_id,
			    "a race's thread names", parse_names, names, err);
}

void db_hit_clear(db_hit *h)
{
	for (int k = 0; k < 2; k++) {
		db_stack_clear(&h->stack[k]);
		db_stack_clear(&h->spawn[k].stack);
		db_locks_clear(&h->locks[k]);
	}
	db_loc_clear(&h->loc);
}

/* The id of stack s in the stacks table, added on first sight. */
static wasm_status stack_id(db *d, const db_stack *s, int64_t *id,
			    wasm_err *err)
{
	sqlite3_stmt *q = prepared(d, S_STACK_ADD, err);
	char *text;
	int rc;

	if (!q)
		return err->status;
	if (!(text = db_stack_format(s)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	sqlite3_bind_text(q, 1, text, -1, SQLITE_TRANSIENT);
	wasm_free(text);
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(q);
		return sql_fail(d, err, rc, "adding a call stack");
	}
	*id = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	return WASM_OK;
}

/* Bind stack st to parameter i of s (its id, or NULL for none); on an
 * error s is reset. */
static wasm_status bind_stack(db *d, sqlite3_stmt *s, int i, const db_stack *st,
			      wasm_err *err)
{
	int64_t sid = 0;

	if (!st->n) {
		sqlite3_bind_null(s, i);
		return WASM_OK;
	}
	if (stack_id(d, st, &sid, err)) {
		sqlite3_reset(s);
		return err->status;
	}
	sqlite3_bind_int64(s, i, sid);
	return WASM_OK;
}

/* "PARENT_A PARENT_B" of a hit's spawns, sides as the bug's sites (lo
 * first), '-' for one not known. */
static void parents_text(const db_hit *h, int lo, char *buf, size_t cap)
{
	char p[2][16];

	for (int k = 0; k < 2; k++) {
		const db_spawn *sp = &h->spawn[k ? 1 - lo : lo];
		if (sp->known)
			snprintf(p[k], sizeof p[k], "%" PRIu32, sp->parent);
		else
			snprintf(p[k], sizeof p[k], "-");
	}
	snprintf(buf, cap, "%s %s", p[0], p[1]);
}

/* A hit's locks and thread names, sides as the bug's sites (lo first),
 * to parameters i and i + 1 of s; on an error s is reset. */
static wasm_status bind_locks(db *d, sqlite3_stmt *s, int i, const db_hit *h,
			      int lo, wasm_err *err)
{
	const db_locks *sides[2] = {&h->locks[lo], &h->locks[1 - lo]};
	const char *names[2] = {h->name[lo], h->name[1 - lo]};
	bool nomem, nomem2;
	char *text = db_locks_format(sides, &nomem);
	char *nt = db_names_format(names, &nomem2);

	if (nomem || nomem2) {
		wasm_free(text);
		wasm_free(nt);
		sqlite3_reset(s);
		return oom(d, err);
	}
	if (text)
		sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
	if (nt)
		sqlite3_bind_text(s, i + 1, nt, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i + 1);
	wasm_free(text);
	wasm_free(nt);
	return WASM_OK;
}

/* RUN_BUG_ADD's location (11), parents (13), locks (16) and names
 * (17). */
static wasm_status bind_where(db *d, sqlite3_stmt *s, const db_hit *h, int lo,
			      wasm_err *err)
{
	char parents[40];
	char *loc = db_loc_format(&h->loc);

	if (h->loc.kind && !loc) {
		sqlite3_reset(s);
		return oom(d, err);
	}
	if (loc)
		sqlite3_bind_text(s, 11, loc, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 11);
	wasm_free(loc);
	if (h->spawn[0].known || h->spawn[1].known) {
		parents_text(h, lo, parents, sizeof parents);
		sqlite3_bind_text(s, 13, parents, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(s, 13);
	}
	return bind_locks(d, s, 16, h, lo, err);
}

static wasm_status run_insert(db *d, db_run *r, const db_hit *hits,
			      uint32_t nhits, wasm_err *err)
{
	sqlite3_stmt *s = prepared(d, S_RUN_ADD, err);

	if (!s || campaign_owner(d, r->campaign_id, err))
		return err->status;
	sqlite3_bind_int64(s, 1, r->campaign_id);
	bind_ref(s, 2, r->node_id ? r->node_id : d->camp_node);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)r->idx);
	bind_text(s, 4, r->profile ? r->profile : "");
	sqlite3_bind_int64(s, 5, r->density_bp);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)r->seed);
	sqlite3_bind_double(s, 7, r->started);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)r->duration_us);
	bind_text(s, 9, r->status ? r->status : "");
	sqlite3_bind_int(s, 10, r->exit_code);
	bind_text(s, 11, r->msg);
	sqlite3_bind_int64(s, 12, r->nbugs);
	bind_text(s, 13, r->stderr_tail && *r->stderr_tail ? r->stderr_tail
							   : NULL);
	if (exec_stmt(d, s, "adding a run", err))
		return err->status;
	r->id = sqlite3_last_insert_rowid(d->h);
	if (r->sched) {
		const db_sched *sc = r->sched;
		char hex[17];
		snprintf(hex, sizeof hex, "%016" PRIx64, sc->digest);
		if (!(s = prepared(d, S_SCHED_ADD, err)))
			return err->status;
		sqlite3_bind_int64(s, 1, r->id);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)sc->points);
		sqlite3_bind_int64(s, 3, sc->switches);
		bind_text(s, 4, hex);
		sqlite3_bind_int(s, 5, sc->failed);
		if (sc->kept)
			sqlite3_bind_blob(s, 6,
					  sc->ndecisions
					      ? (const void *)sc->decisions
					      : "",
					  (int)sc->ndecisions, SQLITE_STATIC);
		else
			sqlite3_bind_null(s, 6);
		if (exec_stmt(d, s, "adding a run's schedule", err))
			return err->status;
	}
	for (uint32_t i = 0; i < nhits; i++) {
		const db_hit *h = &hits[i];
		/* Bugs are keyed by the ordered site pair. */
		int lo = h->site[0].id <= h->site[1].id ? 0 : 1;
		int64_t bug;
		if (bug_of(d, &h->site[lo], &h->site[1 - lo], r, &bug, err))
			return err->status;
		if (!(s = prepared(d, S_RUN_BUG_ADD, err)))
			return err->status;
		sqlite3_bind_int64(s, 1, r->id);
		sqlite3_bind_int64(s, 2, bug);
		sqlite3_bind_int64(s, 3, h->tid[lo]);
		sqlite3_bind_int64(s, 4, h->tid[1 - lo]);
		sqlite3_bind_int64(s, 5, h->addr[lo]);
		sqlite3_bind_int64(s, 6, h->addr[1 - lo]);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)h->count);
		for (int k = 0; k < 2; k++)
			if (bind_stack(d, s, 8 + k, &h->stack[k ? 1 - lo : lo],
				       err) ||
			    bind_stack(d, s, 14 + k,
				       &h->spawn[k ? 1 - lo : lo].stack, err))
				return err->status;
		if (bind_stack(d, s, 12, &h->loc.stack, err) ||
		    bind_where(d, s, h, lo, err))
			return err->status;
		if (h->value.width) {
			char vt[80];
			db_value v = h->value;
			v.side = v.side == lo ? 0 : 1;
			db_value_format(&v, vt, sizeof vt);
			sqlite3_bind_text(s, 10, vt, -1, SQLITE_TRANSIENT);
		} else {
			sqlite3_bind_null(s, 10);
		}
		if (exec_stmt(d, s, "linking a bug to its run", err))
			return err->status;
	}
	return WASM_OK;
}

wasm_status db_run_add(db *d, db_run *r, const db_hit *hits, uint32_t nhits,
		       wasm_err *err)
{
	bool own;

	if (tx_begin(d, &own, err))
		return err->status;
	return tx_end(d, own, run_insert(d, r, hits, nhits, err), err);
}

/* Fill r from a RUN_COLS row; strings point into the statement. */
static void run_row(sqlite3_stmt *s, db_run *r)
{
	r->id = sqlite3_column_int64(s, 0);
	r->campaign_id = sqlite3_column_int64(s, 1);
	r->node_id = sqlite3_column_int64(s, 2);
	r->idx = (uint64_t)sqlite3_column_int64(s, 3);
	r->profile = (char *)col_text(s, 4);
	r->density_bp = (uint32_t)sqlite3_column_int64(s, 5);
	r->seed = (uint64_t)sqlite3_column_int64(s, 6);
	r->started = sqlite3_column_double(s, 7);
	r->duration_us = (uint64_t)sqlite3_column_int64(s, 8);
	r->status = (char *)col_text(s, 9);
	r->exit_code = sqlite3_column_int(s, 10);
	r->msg = (char *)col_text(s, 11);
	r->nbugs = (uint32_t)sqlite3_column_int64(s, 12);
	r->stderr_tail = (char *)col_text(s, 13);
}

wasm_status db_run_list(db *d, int64_t campaign_id, int64_t bug_id,
			bool (*cb)(void *ctx, const db_run *r), void *ctx,
			wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st = WASM_OK;
	int rc;

	if (campaign_id && campaign_owner(d, campaign_id, err))
		return err->status;
	if (bug_id) {
		db_bug b;
		if (db_bug_get(d, bug_id, &b, err))
			return err->status;
		db_bug_clear(&b);
		if (!(s = stmt(d, S_RUN_LIST_BUG, err)))
			return err->status;
		sqlite3_bind_int64(s, 1, bug_id);
		sqlite3_bind_int64(s, 2, campaign_id);
	} else {
		if (!(s = stmt(d, S_RUN_LIST, err)))
			return err->status;
		sqlite3_bind_int64(s, 1, campaign_id);
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		db_run r;
		run_row(s, &r);
		if (!cb(ctx, &r))
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "listing runs");
	done(s);
	return st;
}

wasm_status db_run_sched(db *d, int64_t run_id, db_sched *out, bool *has,
			 wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_SCHED_GET, err);
	wasm_status st = WASM_OK;
	int rc;

	memset(out, 0, sizeof *out);
	*has = false;
	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, run_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *hex = (const char *)sqlite3_column_text(s, 2);
		char *end = NULL;
		int n = sqlite3_column_bytes(s, 4);
		out->points = (uint64_t)sqlite3_column_int64(s, 0);
		out->switches = (uint32_t)sqlite3_column_int64(s, 1);
		out->failed = sqlite3_column_int(s, 3) != 0;
		if (hex)
			out->digest = strtoull(hex, &end, 16);
		if (!hex || strlen(hex) != 16 || *end || n < 0 ||
		    (uint32_t)n > DB_SCHED_MAX) {
			st = wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
					  "%s: the schedule of run %lld is "
					  "damaged; run a check of the "
					  "database",
					  d->path, (long long)run_id);
		} else if (sqlite3_column_type(s, 4) != SQLITE_NULL) {
			out->kept = true;
			out->ndecisions = (uint32_t)n;
			if (!(out->decisions = wasm_malloc(n ? (size_t)n : 1)))
				st = oom(d, err);
			else if (n)
				memcpy(out->decisions,
				       sqlite3_column_blob(s, 4), (size_t)n);
		}
		*has = st == WASM_OK;
	} else if (rc != SQLITE_DONE) {
		st = sql_fail(d, err, rc, "reading a run's schedule");
	}
	done(s);
	if (st)
		db_sched_clear(out);
	return st;
}

wasm_status db_bug_sched_run(db *d, int64_t bug_id, int64_t *run_id,
			     wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_BUG_SCHED_RUN, err);
	wasm_status st = WASM_OK;
	int rc;

	*run_id = 0;
	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, bug_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*run_id = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		st = sql_fail(d, err, rc, "finding a bug's serial run");
	done(s);
	return st;
}

void db_sched_clear(db_sched *s)
{
	wasm_free(s->decisions);
	memset(s, 0, sizeof *s);
}

/* run_row's strings point into the statement: a run that outlives it
 * owns copies. */
static wasm_status read_run(db *d, sqlite3_stmt *s, void *out, wasm_err *err)
{
	db_run *r = out;
	bool ok = true;

	run_row(s, r);
	r->profile = col_dup(s, 4, &ok);
	r->status = col_dup(s, 9, &ok);
	r->msg = col_dup(s, 11, &ok);
	r->stderr_tail = col_dup(s, 13, &ok);
	if (ok)
		return WASM_OK;
	db_run_clear(r);
	return oom(d, err);
}

wasm_status db_run_get(db *d, int64_t id, db_run *out, wasm_err *err)
{
	memset(out, 0, sizeof *out);
	return get_by_id(d, S_RUN_GET, id, "run", read_run, out, err);
}

void db_run_clear(db_run *r)
{
	if (!r)
		return;
	wasm_free(r->profile);
	wasm_free(r->status);
	wasm_free(r->msg);
	wasm_free(r->stderr_tail);
	memset(r, 0, sizeof *r);
}

wasm_status db_run_bugs(db *d, int64_t run_id,
			bool (*cb)(void *ctx, const db_run_bug *rb), void *ctx,
			wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_RUN_BUGS, err);
	wasm_status st = WASM_OK;
	int rc;

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		db_run_bug rb = {
		    .bug_id = sqlite3_column_int64(s, 0),
		    .tid = {(uint32_t)sqlite3_column_int64(s, 1),
			    (uint32_t)sqlite3_column_int64(s, 2)},
		    .addr = {(uint32_t)sqlite3_column_int64(s, 3),
			     (uint32_t)sqlite3_column_int64(s, 4)},
		    .count = (uint64_t)sqlite3_column_int64(s, 5),
		};
		const char *vt = (const char *)sqlite3_column_text(s, 6);
		if (vt && db_value_parse(vt, &rb.value, err)) {
			st = wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
					  "%s: run %" PRId64 ", bug %" PRId64
					  ": %s",
					  d->path, run_id, rb.bug_id, err->msg);
			break;
		}
		if (!cb(ctx, &rb))
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "listing a run's bugs");
	done(s);
	return st;
}

wasm_status db_bug_pair_run(db *d, int64_t bug_id, int64_t *run_id,
			   wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_BUG_PAIR_RUN, err);
	int rc;

	*run_id = 0;
	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, bug_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(s, 1);
		db_value v;
		wasm_err ignored;
		if (!*run_id)
			*run_id = sqlite3_column_int64(s, 0);
		/* Text that does not parse is the run's own reader's error to
		 * report, not a reason to prefer another run. */
		if (text && !db_value_parse(text, &v, &ignored) &&
		    db_value_changed(&v)) {
			*run_id = sqlite3_column_int64(s, 0);
			rc = SQLITE_DONE;
			break;
		}
	}
	done(s);
	if (rc != SQLITE_DONE)
		return sql_fail(d, err, rc, "finding a run with both stacks");
	return WASM_OK;
}

wasm_status db_run_bug_stacks(db *d, int64_t run_id, int64_t bug_id,
			      db_stack out[2], wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_RUN_BUG_STACKS, err);
	wasm_status st = WASM_OK;
	int rc;

	memset(out, 0, 2 * sizeof *out);
	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, bug_id);
	rc = sqlite3_step(s);
	for (int i = 0; rc == SQLITE_ROW && i < 2 && !st; i++) {
		const char *t = (const char *)sqlite3_column_text(s, i);
		if (t && (st = db_stack_parse(t, &out[i], err)))
			wasm_err_set(err, st, WASM_NO_OFFSET,
				     "%s: run %" PRId64 ", bug %" PRId64 ": %s",
				     d->path, run_id, bug_id, err->msg);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "reading a run's call stacks");
	done(s);
	if (st) {
		db_stack_clear(&out[0]);
		db_stack_clear(&out[1]);
	}
	return st;
}

bool db_parents_parse(const char *t, db_spawn spawn[2])
{
	for (int k = 0; k < 2; k++) {
		char *end;
		unsigned long v;
		while (*t == ' ')
			t++;
		if (*t == '-') {
			t++;
			continue;
		}
		v = strtoul(t, &end, 10);
		if (end == t || v > UINT32_MAX)
			return false;
		spawn[k].known = true;
		spawn[k].parent = (uint32_t)v;
		t = end;
	}
	return !*t;
}

wasm_status db_run_bug_locks(db *d, int64_t run_id, int64_t bug_id,
			     db_locks out[2], wasm_err *err)
{
	memset(out, 0, 2 * sizeof *out);
	return run_bug_text(d, S_RUN_BUG_LOCKS, run_id, bug_id, "a race's locks",
			    parse_locks, out, err);
}

wasm_status db_run_bug_where(db *d, int64_t run_id, int64_t bug_id, db_loc *loc,
			     db_spawn spawn[2], wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_RUN_BUG_WHERE, err);
	wasm_status st = WASM_OK;
	const char *t;
	int rc;

	memset(loc, 0, sizeof *loc);
	memset(spawn, 0, 2 * sizeof *spawn);
	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, bug_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if ((t = (const char *)sqlite3_column_text(s, 0)))
			st = db_loc_parse(t, loc, err);
		if (!st && (t = (const char *)sqlite3_column_text(s, 1)))
			st = db_stack_parse(t, &loc->stack, err);
		if (!st && (t = (const char *)sqlite3_column_text(s, 2)) &&
		    !db_parents_parse(t, spawn))
			st = wasm_err_set(err, WASM_MALFORMED, WASM_NO_OFFSET,
					  "threads' parents '%.40s': not "
					  "PARENT PARENT",
					  t);
		for (int k = 0; k < 2 && !st; k++)
			if ((t = (const char *)sqlite3_column_text(s, 3 + k)))
				st = db_stack_parse(t, &spawn[k].stack, err);
		if (st)
			wasm_err_set(err, st, WASM_NO_OFFSET,
				     "%s: run %" PRId64 ", bug %" PRId64 ": %s",
				     d->path, run_id, bug_id, err->msg);
	} else if (rc != SQLITE_DONE) {
		st = sql_fail(d, err, rc, "reading a race's location");
	}
	done(s);
	if (st) {
		db_loc_clear(loc);
		for (int k = 0; k < 2; k++)
			db_stack_clear(&spawn[k].stack);
		memset(spawn, 0, 2 * sizeof *spawn);
	}
	return st;
}

/* ---- bugs ---------------------------------------------------------------- */

void db_bug_clear(db_bug *b)
{
	if (!b)
		return;
	wasm_free(b->program);
	wasm_free(b->sig);
	for (int i = 0; i < 2; i++) {
		wasm_free(b->site[i].func);
		wasm_free(b->site[i].file);
	}
	memset(b, 0, sizeof *b);
}

bool db_bug_copy(const db_bug *src, db_bug *dst)
{
	bool ok = true;

	*dst = *src;
	dst->program = dup_or_null(src->program, &ok);
	dst->sig = dup_or_null(src->sig, &ok);
	for (int i = 0; i < 2; i++) {
		dst->site[i].func = dup_or_null(src->site[i].func, &ok);
		dst->site[i].file = dup_or_null(src->site[i].file, &ok);
	}
	if (!ok)
		db_bug_clear(dst);
	return ok;
}

static wasm_status bug_row(db *d, sqlite3_stmt *s, db_bug *b, wasm_err *err)
{
	bool ok = true;

	memset(b, 0, sizeof *b);
	b->id = sqlite3_column_int64(s, 0);
	b->program_id = sqlite3_column_int64(s, 1);
	b->program = col_dup(s, 2, &ok);
	for (int i = 0; i < 2; i++) {
		int c = 3 + 5 * i;
		b->site[i].id = (uint32_t)sqlite3_column_int64(s, c);
		b->site[i].kind = (uint8_t)sqlite3_column_int(s, c + 1);
		b->site[i].func = col_dup(s, c + 2, &ok);
		b->site[i].file = col_dup(s, c + 3, &ok);
		b->site[i].line = (uint32_t)sqlite3_column_int64(s, c + 4);
	}
	b->runs = (uint64_t)sqlite3_column_int64(s, 13);
	b->first_run = (uint64_t)sqlite3_column_int64(s, 14);
	b->first_seen = sqlite3_column_double(s, 15);
	b->found_by = (uint8_t)sqlite3_column_int(s, 16);
	for (int i = 0; i < 2; i++)
		b->site[i].width = (uint8_t)sqlite3_column_int(s, 17 + i);
	b->sig = col_dup(s, 19, &ok);
	/* A state this heisen does not know (a newer one wrote it) reads
	 * as untriaged rather than failing the whole list. */
	if (!db_state_parse(col_text(s, 20), &b->state))
		b->state = DB_STATE_NEW;
	b->triaged = sqlite3_column_double(s, 21);
	b->builds = (uint64_t)sqlite3_column_int64(s, 22);
	if (!ok) {
		db_bug_clear(b);
		return oom(d, err);
	}
	return WASM_OK;
}

wasm_status db_bug_find(db *d, int64_t program_id, uint32_t site_a,
			uint32_t site_b, int64_t *id, wasm_err *err)
{
	sqlite3_stmt *s;
	int rc;

	*id = 0;
	if (!(s = stmt(d, S_BUG_FIND, err)))
		return err->status;
	sqlite3_bind_int64(s, 1, program_id);
	sqlite3_bind_int64(s, 2, site_a);
	sqlite3_bind_int64(s, 3, site_b);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	done(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_fail(d, err, rc, "finding a bug");
	return WASM_OK;
}

static wasm_status read_bug(db *d, sqlite3_stmt *s, void *out, wasm_err *err)
{
	return bug_row(d, s, out, err);
}

wasm_status db_bug_get(db *d, int64_t id, db_bug *out, wasm_err *err)
{
	memset(out, 0, sizeof *out);
	return get_by_id(d, S_BUG_GET, id, "bug", read_bug, out, err);
}

/* Run bug-listing statement k, its ?1 bound to id or, when name is
 * set, to name; cb hears every row. */
static wasm_status list_bugs(db *d, int k, int64_t id, const char *name,
			     bool (*cb)(void *ctx, const db_bug *b), void *ctx,
			     wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, k, err);
	wasm_status st = WASM_OK;
	int rc;

	if (!s)
		return err->status;
	if (name)
		bind_text(s, 1, name);
	else
		sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		db_bug b;
		bool more;
		if ((st = bug_row(d, s, &b, err)))
			break;
		more = cb(ctx, &b);
		db_bug_clear(&b);
		if (!more)
			break;
	}
	if (st == WASM_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "listing bugs");
	done(s);
	return st;
}

wasm_status db_bug_list(db *d, int64_t program_id,
			bool (*cb)(void *ctx, const db_bug *b), void *ctx,
			wasm_err *err)
{
	return list_bugs(d, S_BUG_LIST, program_id, NULL, cb, ctx, err);
}

wasm_status db_bug_list_campaign(db *d, int64_t campaign_id,
				 bool (*cb)(void *ctx, const db_bug *b),
				 void *ctx, wasm_err *err)
{
	return list_bugs(d, S_BUG_LIST_CAMPAIGN, campaign_id, NULL, cb, ctx,
			 err);
}

wasm_status db_bug_list_builds(db *d, const char *name,
			       bool (*cb)(void *ctx, const db_bug *b),
			       void *ctx, wasm_err *err)
{
	return list_bugs(d, S_BUG_LIST_BUILDS, 0, name, cb, ctx, err);
}

/* ---- signatures and triage ------------------------------------------------ */

uint64_t db_sig_pair(uint64_t a, uint64_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a, h = 0xcbf29ce484222325ull;

	/* FNV-1a over both, smaller first: which access won does not
	 * matter. */
	for (int i = 0; i < 16; i++) {
		h ^= (i < 8 ? lo >> (8 * i) : hi >> (8 * (i - 8))) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

void db_sig_format(uint64_t sig, char out[DB_SIG_LEN + 1])
{
	snprintf(out, DB_SIG_LEN + 1, "%016" PRIx64, sig);
}

static const char *const state_names[DB_NSTATES] = {
    [DB_STATE_NEW] = "new",
    [DB_STATE_CONFIRMED] = "confirmed",
    [DB_STATE_FIXED] = "fixed",
    [DB_STATE_NOT_A_BUG] = "not-a-bug",
};

const char *db_state_name(db_state s)
{
	return (unsigned)s < DB_NSTATES ? state_names[s] : "new";
}

bool db_state_parse(const char *text, db_state *out)
{
	*out = DB_STATE_NEW;
	for (int i = 0; text && i < DB_NSTATES; i++)
		if (!strcmp(text, state_names[i])) {
			*out = (db_state)i;
			return true;
		}
	return false;
}

wasm_status db_triage_set(db *d, int64_t bug_id, db_state state,
			  const char *note, wasm_err *err)
{
	sqlite3_stmt *s;
	db_bug b;

	if (db_bug_get(d, bug_id, &b, err))
		return err->status;
	db_bug_clear(&b);
	if (!(s = stmt(d, S_TRIAGE_ADD, err)))
		return err->status;
	sqlite3_bind_int64(s, 1, bug_id);
	bind_text(s, 2, db_state_name(state));
	if (note && *note)
		bind_text(s, 3, note);
	sqlite3_bind_double(s, 4, now_unix());
	return exec_stmt(d, s, "recording a triage decision", err);
}

wasm_status db_triage_state(db *d, const char *program, const char *sig,
			    db_state *out, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_TRIAGE_STATE, err);
	int rc;

	*out = DB_STATE_NEW;
	if (!s)
		return err->status;
	bind_text(s, 1, program);
	bind_text(s, 2, sig);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		db_state_parse(col_text(s, 0), out);
	done(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_fail(d, err, rc, "reading a triage state");
	return WASM_OK;
}

wasm_status db_triage_list(db *d, int64_t bug_id,
			   bool (*cb)(void *ctx, const db_triage *t),
			   void *ctx, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_TRIAGE_LIST, err);
	wasm_status st = WASM_OK;
	int rc;

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, bug_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		db_triage t = {.note = col_text(s, 1),
			       .time = sqlite3_column_double(s, 2)};
		db_state_parse(col_text(s, 0), &t.state);
		if (!cb(ctx, &t))
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "reading a bug's triage");
	done(s);
	return st;
}

wasm_status db_bug_cells(db *d, int64_t bug_id,
			 bool (*cb)(void *ctx, const db_cell *c), void *ctx,
			 wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st = WASM_OK;
	db_bug b;
	int rc;

	if (db_bug_get(d, bug_id, &b, err))
		return err->status;
	db_bug_clear(&b);
	if (!(s = stmt(d, S_BUG_CELLS, err)))
		return err->status;
	sqlite3_bind_int64(s, 1, bug_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *node = col_text(s, 1);
		db_cell c = {
		    .node_id = sqlite3_column_int64(s, 0),
		    .node = node ? node : "",
		    .profile = col_text(s, 2),
		    .density_bp = (uint32_t)sqlite3_column_int64(s, 3),
		    .k = (uint64_t)sqlite3_column_int64(s, 4),
		    .n = (uint64_t)sqlite3_column_int64(s, 5),
		};
		if (!cb(ctx, &c))
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "counting a bug's detections");
	done(s);
	return st;
}

wasm_status db_program_runs(db *d, int64_t program_id,
			    bool (*cb)(void *ctx, const db_sim_run *r),
			    void *ctx, wasm_err *err)
{
	sqlite3_stmt *s = stmt(d, S_PROGRAM_RUNS, err);
	wasm_status st = WASM_OK;
	int64_t *bugs = NULL;
	size_t cap = 0;
	int rc;

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, program_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *list = col_text(s, 5);
		db_sim_run r = {
		    .id = sqlite3_column_int64(s, 0),
		    .node_id = sqlite3_column_int64(s, 1),
		    .profile = col_text(s, 2),
		    .density_bp = (uint32_t)sqlite3_column_int64(s, 3),
		    .duration_us = (uint64_t)sqlite3_column_int64(s, 4),
		};
		/* group_concat: "3,17,40", or NULL for a run without bugs. */
		for (const char *p = list; p && *p;) {
			char *end;
			long long id = strtoll(p, &end, 10);
			if (end == p)
				break;
			if (r.nbugs == cap) {
				size_t nc = cap ? 2 * cap : 16;
				int64_t *nb =
				    wasm_realloc(bugs, nc * sizeof *nb);
				if (!nb) {
					st = oom(d, err);
					goto out;
				}
				bugs = nb;
				cap = nc;
			}
			bugs[r.nbugs++] = id;
			p = *end == ',' ? end + 1 : end;
		}
		r.bugs = bugs;
		if (!r.profile)
			r.profile = "";
		if (!cb(ctx, &r))
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = sql_fail(d, err, rc, "listing a program's runs");
out:
	done(s);
	wasm_free(bugs);
	return st;
}
