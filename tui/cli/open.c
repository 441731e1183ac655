/*
 * open.c - the doors to what a command names: a module (decoded and
 * validated), a program (loaded for the detector), the workspace
 * database, a registered node, and a new campaign recorded in the
 * workspace. Each prints its one-line error and returns an exit code, so
 * every command fails the same way on the same bad input.
 */
#include "tui/cli/cli.h"

#include "db/db.h"
#include "db/nodes.h"
#include "detector/campaign.h"
#include "replay/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tui_load_module(const char *path, wasm_module **out, wasm_err *e, FILE *err)
{
	uint8_t *bytes;
	size_t len;
	wasm_status st;

	*out = NULL;
	wasm_err_clear(e);
	st = wasm_read_file(path, &bytes, &len, e);
	if (!st) {
		st = wasm_decode(bytes, len, out, e);
		wasm_free(bytes);
	}
	if (!st && (st = wasm_validate(*out, e))) {
		wasm_module_free(*out);
		*out = NULL;
	}
	if (st) {
		tui_print_err(err, path, e);
		return tui_exit_for(st);
	}
	return TUI_EXIT_OK;
}

int tui_load_prog(const char *path, det_prog **p, FILE *err)
{
	wasm_err e;
	wasm_status st = det_prog_load(path, p, &e);

	if (st) {
		tui_print_err(err, path, &e);
		return tui_exit_for(st);
	}
	return TUI_EXIT_OK;
}

/* A database error is the file's or the lookup's fault (2) or ours (3). */
static int db_exit(wasm_status st)
{
	return st == WASM_IO || st == WASM_MALFORMED || st == WASM_INVALID
		   ? TUI_EXIT_USAGE
		   : TUI_EXIT_INTERNAL;
}

int tui_open_db(const char *dbopt, struct db **out, FILE *err)
{
	const char *path = db_path_choose(dbopt);
	wasm_err e;
	wasm_status st;

	*out = NULL;
	wasm_err_clear(&e);
	if ((st = db_open(path, out, &e))) {
		/* db.c's messages name the file. */
		fprintf(err, "heisen: %s\n", e.msg);
		return db_exit(st);
	}
	return TUI_EXIT_OK;
}

/* The query commands read a workspace and never create one: a mistyped
 * --db or $HEISEN_DB must not look like an empty workspace (an empty one
 * passes a CI's --fail-on-bugs). */
int tui_open_existing_db(const char *opt, db **out, const char **path,
			 FILE *err)
{
	struct stat sb;
	char buf[4096];

	*out = NULL;
	*path = db_path_choose(opt);
	const char *file = db_path_resolve(*path, buf, sizeof buf);

	if (stat(file, &sb)) {
		fprintf(err,
			"heisen: %s: %s (a workspace is created by 'heisen "
			"sweep'; name another with --db FILE or $HEISEN_DB)\n",
			file, strerror(errno));
		return TUI_EXIT_USAGE;
	}
	return tui_open_db(opt, out, err);
}

int tui_query_fail(const tui_cmd *cmd, wasm_status st, const wasm_err *e,
		   FILE *err)
{
	fprintf(err, "heisen %s: %s\n", cmd->name, e->msg);
	return db_exit(st);
}

int tui_node_find(const char *dbpath, const char *name, const char *who,
		  db_remote *r, db_node_url *u, FILE *err)
{
	const char *path;
	wasm_err e;
	db *d;
	int rc;

	if ((rc = tui_open_existing_db(dbpath, &d, &path, err)))
		return rc;
	wasm_err_clear(&e);
	if (db_remote_get(d, name, r, &e)) {
		db_close(d);
		fprintf(err, "heisen %s: %s\n", who, e.msg);
		return tui_exit_for(e.status);
	}
	rc = tui_node_url(who, path, r, u, err);
	db_close(d);
	if (rc)
		db_remote_clear(r);
	return rc;
}

int tui_node_url(const char *who, const char *path, const db_remote *r,
		 db_node_url *u, FILE *err)
{
	char msg[256];

	if (db_node_url_parse(r->url, u, msg, sizeof msg))
		return TUI_EXIT_OK;
	fprintf(err,
		"heisen %s: the URL of %s in %s is not usable: %s; remove the "
		"node and add it again\n",
		who, r->name, path, msg);
	return TUI_EXIT_USAGE;
}

bool tui_campaign_args(const tui_args *a, db_campaign *c)
{
	size_t alen = 0;

	c->nargs = (uint32_t)(a->noperands - 1);
	for (int i = 1; i < a->noperands; i++)
		alen += strlen(a->operands[i]) + 1;
	if (!(c->args = malloc(alen ? alen : 1)))
		return false;
	for (int i = 1, at = 0; i < a->noperands; i++) {
		size_t l = strlen(a->operands[i]) + 1;
		memcpy(c->args + at, a->operands[i], l);
		at += (int)l;
	}
	return true;
}

wasm_status tui_campaign_add(db *d, const det_prog *p, db_campaign *c,
			     wasm_err *e)
{
	char *abs = realpath(p->path, NULL);
	wasm_status st =
	    db_program_put(d, p->sites.hash, p->name, abs ? abs : p->path,
			   p->sites.nsites, &c->program_id, e);

	free(abs);
	if (!st)
		st = db_node_self(d, &c->node_id, e);
	if (!st)
		st = db_campaign_new(d, c, e);
	return st;
}

int tui_load_recorded(const tui_cmd *cmd, const db_program *prog,
		      const db_campaign *c, det_prog **p, FILE *err)
{
	int64_t campaign = c->id;
	int rc;

	if (c->mask_version != DET_MASK_VERSION) {
		fprintf(err,
			"heisen %s: campaign %" PRId64 " drew its masks "
			"with mask generator version %u, this heisen "
			"with version %u: the same seeds would arm other "
			"sites; use the heisen that ran it, or start a "
			"new sweep\n",
			cmd->name, campaign, c->mask_version, DET_MASK_VERSION);
		return TUI_EXIT_USAGE;
	}

	if (access(prog->path, R_OK)) {
		fprintf(err,
			"heisen %s: the program of campaign %" PRId64
			" is gone: %s: %s; put the binary it ran back "
			"at that path, or sweep the current build "
			"('heisen sweep FILE.wasm')\n",
			cmd->name, campaign, prog->path, strerror(errno));
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_load_prog(prog->path, p, err)))
		return rc;
	if ((*p)->sites.hash != prog->hash) {
		fprintf(err,
			"heisen %s: %s has changed since campaign %" PRId64
			" ran it (hash %016" PRIx64 ", now %016" PRIx64
			"): rebuild that version at this path, or sweep "
			"the new one ('heisen sweep %s')\n",
			cmd->name, prog->path, campaign, prog->hash,
			(*p)->sites.hash, prog->path);
		det_prog_free(*p);
		*p = NULL;
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

int tui_drawn_sched(const tui_cmd *cmd, const tui_args *a,
		    const char *profile_opt, rep_sched_spec *out, FILE *err)
{
	wasm_err e;

	memset(out, 0, sizeof *out);
	if (tui_opt_value(cmd, a, profile_opt)) {
		fprintf(err,
			"heisen %s: %s is not for serial runs: the schedule "
			"alone decides when threads switch\n",
			cmd->name, profile_opt);
		return TUI_EXIT_USAGE;
	}
	if (rep_sched_parse(tui_opt_value(cmd, a, "--schedule"), out, &e)) {
		fprintf(err, "heisen %s: --schedule: %s\n", cmd->name, e.msg);
		return TUI_EXIT_USAGE;
	}
	if (out->strategy == REP_SCHED_FIXED) {
		fprintf(err,
			"heisen %s: --schedule fixed follows one recorded "
			"schedule: each run here draws its own (random, pct "
			"or chaos)\n",
			cmd->name);
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

int tui_campaign_sched(const tui_cmd *cmd, const db_campaign *c,
		       rep_sched_spec *out, FILE *err)
{
	wasm_err e;

	memset(out, 0, sizeof *out);
	if (rep_sched_parse(c->schedule, out, &e)) {
		fprintf(err,
			"heisen %s: campaign %" PRId64 " has a schedule this "
			"heisen does not know: %s\n",
			cmd->name, c->id, e.msg);
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

int tui_open_spec(const tui_cmd *cmd, const tui_args *a, bool schedule,
		  rep_spec *s, db **d, const char **path, FILE *err)
{
	const char *file = tui_opt_value(cmd, a, "--file");
	const char *runv = tui_opt_value(cmd, a, "--run");
	int64_t bug = 0, run = 0;
	const char *dbpath;
	wasm_err e;
	wasm_status st;
	int rc;

	/* FILE.repro PROGRAM.wasm, as --file FILE.repro PROGRAM.wasm. */
	if (!file && !runv && a->noperands == 2)
		file = a->operands[0];
	if (file) {
		if (a->noperands != (file == a->operands[0] ? 2 : 1) || runv) {
			fprintf(err,
				"heisen %s: a repro file takes the program as "
				"its one other argument: heisen %s FILE.repro "
				"PROGRAM.wasm\n",
				cmd->name, cmd->name);
			return TUI_EXIT_USAGE;
		}
		if ((st = rep_read(file, s, &e))) {
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			return tui_exit_for(st);
		}
		*path = a->operands[a->noperands - 1];
		return TUI_EXIT_OK;
	}
	if (a->noperands > 1 || (!a->noperands && !runv)) {
		fprintf(err,
			"heisen %s: name a bug (heisen %s BUG), a run (--run "
			"RUN) or a repro file (heisen %s FILE.repro "
			"PROGRAM.wasm)\n",
			cmd->name, cmd->name, cmd->name);
		return TUI_EXIT_USAGE;
	}
	if ((a->noperands && (rc = tui_parse_id(cmd, "bug", a->operands[0],
						"bugs", &bug, err))) ||
	    (runv &&
	     (rc = tui_parse_id(cmd, "run", runv, "runs CAMPAIGN", &run, err))))
		return rc;
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), d,
				       &dbpath, err)))
		return rc;
	/* A schedule is a run's: the bug's first serial run. */
	if (schedule && bug && !run) {
		if ((st = db_bug_sched_run(*d, bug, &run, &e))) {
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			return tui_exit_for(st);
		}
		if (!run) {
			fprintf(err,
				"heisen %s: bug %" PRId64 " was not found by "
				"a serial run, so it has no schedule to "
				"replay: run 'heisen explore' on its program, "
				"or replay it with --mode trigger\n",
				cmd->name, bug);
			return TUI_EXIT_USAGE;
		}
	}
	if ((st = schedule && run && !bug
		      ? rep_spec_from_run(*d, run, s, &e)
		      : rep_spec_from_db(*d, bug, run, s, &e))) {
		fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		return tui_exit_for(st);
	}
	if (!s->program_path || access(s->program_path, R_OK)) {
		fprintf(err,
			"heisen %s: the program of bug %" PRId64
			" is gone: %s; put the binary back at that path, "
			"or save a repro file where it is and name it with "
			"the program: heisen %s FILE.repro PROGRAM.wasm\n",
			cmd->name, s->bug_id,
			s->program_path ? s->program_path : "?", cmd->name);
		return TUI_EXIT_USAGE;
	}
	*path = s->program_path;
	return TUI_EXIT_OK;
}

int tui_open_schedule(const tui_cmd *cmd, const tui_args *a, rep_spec *s,
		      det_prog **p, const char **path, FILE *err)
{
	bool force = tui_opt_value(cmd, a, "--force") != NULL;
	db *d = NULL;
	wasm_err e;
	wasm_status st;
	int rc;

	*p = NULL;
	rc = tui_open_spec(cmd, a, true, s, &d, path, err);
	db_close(d);
	if (rc)
		return rc;
	if (!s->has_sched) {
		fprintf(err,
			"heisen %s: this %s has no schedule: only a serial "
			"run can be stepped through (find the race with "
			"'heisen explore' or 'heisen check --schedule')\n",
			cmd->name, s->run_id || s->bug_id ? "race" : "repro");
		return TUI_EXIT_USAGE;
	}
	s->mode = REP_SCHEDULE;
	if ((st = rep_load_program(s, *path, force, p, &e))) {
		fprintf(err, "heisen %s: %s: %s\n", cmd->name, *path, e.msg);
		return tui_exit_for(st);
	}
	return TUI_EXIT_OK;
}
