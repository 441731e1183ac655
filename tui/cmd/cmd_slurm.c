/*
 * cmd_slurm.c - dispatch, status, fetch and check for Slurm nodes
 * (docs/slurm.md), called by `heisen dispatch`, `node status`, `fetch` and
 * `node check` when a node's URL is slurm://.
 *
 * A dispatch makes the campaign here, in the home workspace, and hands
 * its plan to the cluster as one job array: task I sweeps slice I of N
 * into DIR/heisen-slurm/TAG/task-I.db with the home campaign's origin, so
 * that a fetch imports each task file (db_import_mem, a part of one
 * transaction each) into that one campaign. Everything Slurm answers is
 * untrusted: task files go through the verified import, states are
 * folded to a fixed set, and text shown from the cluster has its control
 * bytes replaced (rmt_last_line).
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"
#include "tui/report/report.h"

#include "db/sync.h"
#include "detector/campaign.h"
#include "remote/slurm.h"
#include "remote/transport.h"
#include "rewriter/instrument.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SLURM_CMD_TIMEOUT_S 120.0
#define SLURM_SLICES_MAX    DB_NODE_TASKS_MAX

/* ---- slices and task lists ----------------------------------------------- */

/* Mark in set[0..n) the tasks of an --array list ("0-15", "3,7,9"). */
static void tasks_parse(const char *list, bool *set, uint32_t n)
{
	const char *p = list;
	char *end;

	while (*p >= '0' && *p <= '9') {
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long t = a; t <= b && t < n; t++)
			set[t] = true;
		if (*end != ',')
			break;
		p = end + 1;
	}
}

static bool tasks_call(const db_node_url *u, const char *dir, const char *list,
		       bool ended, const char *claims, double timeout_s,
		       rmt_result *io, char *why, size_t wcap);

/* The task of job's array of n slices that took slice i from its own
 * task (the symbolic link DIR/claims-JOB/I naming it, rmt_slurm_script),
 * or UINT32_MAX. */
static uint32_t claim_of(const char *dir, const char *job, uint32_t i,
			 uint32_t n)
{
	char path[4200], to[16], *end;
	unsigned long t;
	ssize_t k;

	if ((size_t)snprintf(path, sizeof path, "%s/claims-%s/%u", dir, job,
			     i) >= sizeof path ||
	    (k = readlink(path, to, sizeof to - 1)) <= 0)
		return UINT32_MAX;
	to[k] = 0;
	t = strtoul(to, &end, 10);
	return *to >= '0' && *to <= '9' && !*end && t < n && t != i
		   ? (uint32_t)t
		   : UINT32_MAX;
}

/* Whether slice i's sweep in dir has ended: its export is beside its
 * file (tui_slurm_stream_close renames it into place last). */
static bool slice_ended(const char *dir, uint32_t i)
{
	char path[4200];
	struct stat sb;

	return (size_t)snprintf(path, sizeof path, "%s/task-%u.db.stream", dir,
				i) < sizeof path &&
	       !stat(path, &sb) && S_ISREG(sb.st_mode);
}

/* For each slice of job j's array (mine: its tasks, j->tasks parsed):
 * the task that took it from its own task into by[] (the claims its
 * tasks left, rmt_slurm_script; UINT32_MAX where its own task ran it or
 * none did), and whether its sweep has ended into done[]. One call on
 * the cluster; a folder on this machine is read here. */
static bool job_claims(const db_node_url *u, const db_slurm_job *j,
		       const bool *mine, uint32_t *by, bool *done, char *why,
		       size_t wcap)
{
	rmt_result io;

	for (uint32_t i = 0; i < j->slices; i++) {
		by[i] = UINT32_MAX;
		done[i] = false;
		if (!*u->host && mine[i]) {
			by[i] = claim_of(j->dir, j->job_id, i, j->slices);
			done[i] = slice_ended(j->dir, i);
		}
	}
	if (!*u->host)
		return true;
	if (!tasks_call(u, j->dir, j->tasks, false, j->job_id,
			SLURM_CMD_TIMEOUT_S, &io, why, wcap))
		return false;
	/* "heisen-task I [by T] [ended]\n" for each slice task T took or
	 * whose sweep has ended. */
	for (char *p = (char *)io.out, *end = p + io.nout; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		unsigned i, t;
		int k = 0;

		if (!nl)
			break;
		*nl = 0;
		if (sscanf(p, "heisen-task %u%n", &i, &k) == 1 &&
		    i < j->slices) {
			if (sscanf(p + k, " by %u", &t) == 1 && t < j->slices &&
			    t != i)
				by[i] = t;
			done[i] = strstr(p + k, " ended") != NULL;
		}
		p = nl + 1;
	}
	rmt_result_free(&io);
	return true;
}

/* The state of each slice of job j's array into st[0..j->slices), for
 * its tasks only (the others left as they are): Slurm's state of the task
 * that ran it, which is the slice's own or, for a slice another task took
 * before Slurm started its own (then cancelled), that task's (ran_by[i],
 * when ran_by is not NULL; UINT32_MAX for its own). A task that took
 * slices stands for several: a slice whose sweep ended is completed
 * whatever became of its task after (a time limit met in a later
 * slice). */
static bool job_states(const db_node_url *u, const db_slurm_job *j,
		       rmt_task_state *st, uint32_t *ran_by, char *why,
		       size_t wcap)
{
	size_t n = j->slices ? j->slices : 1;
	rmt_task_state *raw = calloc(n, sizeof *raw);
	bool *mine = calloc(n, sizeof *mine), *done = calloc(n, sizeof *done),
	     ended = false, ok = false;
	uint32_t *by = calloc(n, sizeof *by);

	if (!raw || !mine || !done || !by) {
		snprintf(why, wcap, "out of memory");
		goto out;
	}
	if (!rmt_slurm_states(u, j->job_id, raw, j->slices, why, wcap))
		goto out;
	tasks_parse(j->tasks, mine, j->slices);
	for (uint32_t i = 0; i < j->slices; i++) {
		ended |= mine[i] && !rmt_task_active(raw[i]);
		by[i] = UINT32_MAX;
	}
	/* While every task is pending or running, none has taken another's
	 * slice (a task takes one only after its own, or once it has
	 * started). */
	if (ended && !job_claims(u, j, mine, by, done, why, wcap))
		goto out;
	for (uint32_t i = 0; i < j->slices; i++) {
		if (!mine[i])
			continue;
		st[i] = by[i] != UINT32_MAX ? raw[by[i]] : raw[i];
		if (!rmt_task_active(st[i]) && done[i])
			st[i] = RMT_TASK_COMPLETED;
		if (ran_by)
			ran_by[i] = by[i];
	}
	ok = true;
out:
	free(raw);
	free(mine);
	free(done);
	free(by);
	return ok;
}

/* The runs recorded here of each slice of campaign id's plan. */
typedef struct slice_count {
	uint64_t planned;
	uint32_t slices;
	uint64_t *have;
} slice_count;

static bool count_idx(void *ctx, uint64_t idx)
{
	slice_count *s = ctx;

	if (idx < s->planned) {
		uint64_t i = idx * s->slices / s->planned;
		/* Integer slice bounds: the first i whose lo exceeds idx
		 * is one past. */
		while (i + 1 < s->slices &&
		       s->planned * (i + 1) / s->slices <= idx)
			i++;
		while (i > 0 && s->planned * i / s->slices > idx)
			i--;
		s->have[i]++;
	}
	return true;
}

static uint64_t slice_size(uint64_t planned, uint32_t slices, uint32_t i)
{
	return planned * (i + 1) / slices - planned * i / slices;
}

/* want[i] for each of the `slices` slices of campaign id with plan
 * indices missing here; false with e when the workspace cannot say. */
static bool slices_missing(db *d, int64_t id, uint32_t slices, bool *want,
			   wasm_err *e)
{
	db_campaign c = {0};
	slice_count sc = {0, slices, NULL};
	bool ok = false;

	if (!(sc.have = calloc(slices ? slices : 1, sizeof *sc.have))) {
		wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
	} else if (!db_campaign_get(d, id, &c, e)) {
		sc.planned = c.planned;
		ok = !db_campaign_done(d, id, count_idx, &sc, e);
		for (uint32_t i = 0; ok && i < slices; i++)
			want[i] = sc.have[i] < slice_size(c.planned, slices, i);
	}
	db_campaign_clear(&c);
	free(sc.have);
	return ok;
}

/* ---- dispatch ------------------------------------------------------------ */

/* Send the program (fd, hash, name) to the cluster's directory; its path
 * there into stored. */
static bool send_program(const db_node_url *u, int fd, const char *hash,
			 const char *name, char *stored, size_t cap, char *why,
			 size_t wcap)
{
	char ws[DB_NODE_URL_MAX + 16];
	char *out;
	size_t k = 0;

	snprintf(ws, sizeof ws, "%s/heisen.db", u->path);
	const char *words[] = {"heisen", "node", "receive", "--db",
			       ws,	 hash,	 name,	    NULL};
	if (lseek(fd, 0, SEEK_SET) != 0) {
		snprintf(why, wcap, "cannot read the program");
		return false;
	}
	if (!rmt_slurm_run(u, words, SLURM_CMD_TIMEOUT_S, fd, &out, why, wcap))
		return false;
	while (out[k] && out[k] != '\n' && k + 1 < cap) {
		stored[k] = (unsigned char)out[k] < 0x20 ? '?' : out[k];
		k++;
	}
	stored[k] = 0;
	wasm_free(out);
	if (*stored != '/') {
		snprintf(why, wcap,
			 "the cluster did not say where it stored the program "
			 "(an older heisen there?)");
		return false;
	}
	return true;
}

/* The words of the tasks' sweeps: dispatch's plan options as given,
 * the campaign's seed (chosen here when not given, so that every slice
 * draws the same), then "--" and the program's arguments. */
static int sweep_words(const tui_cmd *cmd, const tui_args *a, int prog,
		       const db_campaign *c, const char **w, char *seed,
		       char *jobs)
{
	int n = 0;

	for (int i = 0; i < a->nseen; i++) {
		const char *o = cmd->opts[a->seen[i].opt].name;
		if (!strcmp(o, "--db") || !strcmp(o, "--json") ||
		    !strcmp(o, "--seed") || !strcmp(o, "--jobs") ||
		    !strcmp(o, "--resume"))
			continue;
		w[n++] = o;
		if (cmd->opts[a->seen[i].opt].arg)
			w[n++] = a->seen[i].value;
	}
	snprintf(seed, 24, "0x%016" PRIx64, c->seed);
	w[n++] = "--seed";
	w[n++] = seed;
	snprintf(jobs, 16, "%u", c->jobs);
	w[n++] = "--jobs";
	w[n++] = jobs;
	if (prog + 1 < a->noperands)
		w[n++] = "--";
	for (int i = prog + 1; i < a->noperands; i++)
		w[n++] = a->operands[i];
	w[n] = NULL;
	return n;
}

/* What one dispatch did, for the report. */
typedef struct submitted {
	int64_t campaign;
	uint64_t planned;
	uint32_t slices;
	char job[64], tasks[4096], dir[DB_NODE_URL_MAX + 64];
	char program[DB_NODE_URL_MAX + 64];
} submitted;

static void dispatch_report(const db_remote *r, const char *name,
			    const char *hash, bool ok, const char *why,
			    const submitted *s, bool resumed, bool json,
			    FILE *out, FILE *err)
{
	tui_json j;

	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.dispatch/1");
		if (name)
			tui_json_str(&j, "program", name);
		else
			tui_json_null(&j, "program");
		if (hash)
			tui_json_str(&j, "hash", hash);
		else
			tui_json_null(&j, "hash");
		tui_json_arr(&j, "nodes");
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "name", r->name);
		tui_json_bool(&j, "ok", ok);
		if (ok) {
			tui_json_null(&j, "error");
			if (*s->program)
				tui_json_str(&j, "program_path", s->program);
			tui_json_str(&j, "started", "slurm");
			tui_json_i64(&j, "campaign", s->campaign);
			tui_json_str(&j, "job", s->job);
			tui_json_str(&j, "tasks", s->tasks);
			tui_json_u64(&j, "slices", s->slices);
			tui_json_u64(&j, "planned", s->planned);
			tui_json_str(&j, "dir", s->dir);
		} else {
			tui_json_str(&j, "error", why);
		}
		tui_json_end(&j, '}');
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (ok) {
		fprintf(out,
			"%s: campaign %" PRId64 " %s as Slurm job %s: tasks "
			"%s of %u slices of its %" PRIu64 " runs, writing "
			"to %s; follow it with 'heisen node status %s', "
			"bring its runs home with 'heisen fetch %s'\n",
			r->name, s->campaign,
			resumed ? "submitted again" : "submitted", s->job,
			s->tasks, s->slices, s->planned, s->dir, r->name,
			r->name);
	} else {
		fprintf(err, "heisen dispatch: %s: %s\n", r->name, why);
	}
}

/* The last job of campaign id on node r (its script, dir, slices). */
typedef struct last_job {
	db_slurm_job j;
	bool found;
	/* per slice: a task of any of the campaign's jobs may still write */
	bool *active;
	const db_node_url *u;
	char why[400];
	bool failed;
} last_job;

static bool keep_last(void *ctx, const db_slurm_job *j)
{
	last_job *l = ctx;

	free(l->j.job_id);
	free(l->j.tasks);
	free(l->j.dir);
	free(l->j.script);
	l->j = *j;
	l->j.job_id = strdup(j->job_id);
	l->j.tasks = strdup(j->tasks);
	l->j.dir = strdup(j->dir);
	l->j.script = strdup(j->script);
	l->found = true;
	return l->j.job_id && l->j.tasks && l->j.dir && l->j.script;
}

static bool mark_active(void *ctx, const db_slurm_job *j)
{
	last_job *l = ctx;
	/* job_states sets the job's own slices; the rest stay unknown,
	 * which is not active. */
	rmt_task_state *st = calloc(j->slices ? j->slices : 1, sizeof *st);

	if (!st || !job_states(l->u, j, st, NULL, l->why, sizeof l->why)) {
		if (!st)
			snprintf(l->why, sizeof l->why, "out of memory");
		l->failed = true;
		free(st);
		return false;
	}
	for (uint32_t i = 0; i < j->slices; i++)
		if (rmt_task_active(st[i]))
			l->active[i] = true;
	free(st);
	return true;
}

/* The slices of campaign c to submit again: those with plan indices
 * missing here whose task no job still runs, as an --array list. */
static int resume_list(db *d, const db_campaign *c, last_job *l, char *list,
		       size_t cap, FILE *err)
{
	slice_count sc = {c->planned, l->j.slices, NULL};
	wasm_err e;
	size_t k = 0;
	int rc = TUI_EXIT_OK;

	sc.have = calloc(l->j.slices, sizeof *sc.have);
	l->active = calloc(l->j.slices, sizeof *l->active);
	if (!sc.have || !l->active) {
		fprintf(err, "heisen dispatch: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto out;
	}
	wasm_err_clear(&e);
	if (db_campaign_done(d, c->id, count_idx, &sc, &e) ||
	    db_slurm_job_list(d, l->j.remote_id, c->id, mark_active, l, &e)) {
		fprintf(err, "heisen dispatch: %s\n", e.msg);
		rc = tui_exit_for(e.status);
		goto out;
	}
	if (l->failed) {
		fprintf(err, "heisen dispatch: %s\n", l->why);
		rc = TUI_EXIT_FINDINGS;
		goto out;
	}
	list[0] = 0;
	for (uint32_t i = 0; i < l->j.slices; i++) {
		if (l->active[i] ||
		    sc.have[i] >= slice_size(c->planned, l->j.slices, i))
			continue;
		int n = snprintf(list + k, cap - k, "%s%u", k ? "," : "", i);
		if (n < 0 || (size_t)n >= cap - k) {
			fprintf(err, "heisen dispatch: too many slices to "
				     "submit again at once\n");
			rc = TUI_EXIT_USAGE;
			goto out;
		}
		k += (size_t)n;
	}
out:
	free(sc.have);
	return rc;
}

static int dispatch_resume(const tui_cmd *cmd, const tui_args *a, db *d,
			   const db_remote *r, const db_node_url *u, FILE *out,
			   FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	const char *v = tui_opt_value(cmd, a, "--resume");
	last_job l = {.u = u};
	db_campaign c = {0};
	submitted s = {0};
	char why[600] = "", name[64];
	uint64_t id;
	wasm_err e;
	int rc;

	for (int i = 0; i < a->nseen; i++) {
		const char *o = cmd->opts[a->seen[i].opt].name;
		if (strcmp(o, "--resume") && strcmp(o, "--db") &&
		    strcmp(o, "--json")) {
			fprintf(err,
				"heisen dispatch: %s cannot change a "
				"campaign being resumed\n",
				o);
			return TUI_EXIT_USAGE;
		}
	}
	if (!tui_parse_u64(v, &id) || id > INT64_MAX) {
		fprintf(err,
			"heisen dispatch: --resume expects a campaign id, got "
			"'%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	wasm_err_clear(&e);
	if (db_campaign_get(d, (int64_t)id, &c, &e) ||
	    db_slurm_job_list(d, r->id, (int64_t)id, keep_last, &l, &e)) {
		fprintf(err, "heisen dispatch: %s\n", e.msg);
		db_campaign_clear(&c);
		return tui_exit_for(e.status);
	}
	if (!l.found) {
		fprintf(err,
			"heisen dispatch: campaign %" PRIu64 " was not "
			"dispatched to %s ('heisen node status %s' lists "
			"what was)\n",
			id, r->name, r->name);
		db_campaign_clear(&c);
		return TUI_EXIT_USAGE;
	}
	rc = resume_list(d, &c, &l, s.tasks, sizeof s.tasks, err);
	if (!rc && !*s.tasks) {
		fprintf(out,
			"%s: campaign %" PRIu64 ": nothing to submit again: "
			"every slice is home or its task still runs ('heisen "
			"fetch %s' brings finished tasks home)\n",
			r->name, id, r->name);
	} else if (!rc) {
		s.campaign = c.id;
		s.planned = c.planned;
		s.slices = l.j.slices;
		snprintf(s.dir, sizeof s.dir, "%s", l.j.dir);
		snprintf(name, sizeof name, "heisen-%" PRId64, c.id);
		bool ok = rmt_slurm_submit(u, l.j.script, s.tasks, name,
					   l.j.dir, c.jobs, s.job, sizeof s.job,
					   why, sizeof why);
		db_slurm_job j = l.j;
		j.job_id = s.job;
		j.tasks = s.tasks;
		if (ok && db_slurm_job_add(d, &j, &e)) {
			snprintf(why, sizeof why,
				 "job %s was submitted but not recorded: %s",
				 s.job, e.msg);
			ok = false;
		}
		dispatch_report(r, NULL, NULL, ok, why, &s, true, json, out,
				err);
		rc = ok ? TUI_EXIT_OK : TUI_EXIT_FINDINGS;
	}
	free(l.active);
	free(l.j.job_id);
	free(l.j.tasks);
	free(l.j.dir);
	free(l.j.script);
	db_campaign_clear(&c);
	return rc;
}

int tui_slurm_dispatch(const tui_cmd *cmd, const tui_args *a, int prog,
		       const db_remote *r, FILE *out, FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	const char *words[2 * TUI_MAX_SEEN + TUI_MAX_OPERANDS + 8];
	char why[600] = "", hash[24], name[256], seed[24], jobs[16],
	     origin[320], jname[64];
	char *script = NULL, *copy, *mk_out;
	db_node_url u;
	det_prog *p = NULL;
	db_campaign c = {0};
	submitted s = {0};
	tui_args sa;
	uint32_t max = 0;
	const char *path;
	bool ok = false, in_tx = false;
	wasm_err e;
	int rc, fd = -1;
	db *d;

	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if ((rc = tui_node_url("dispatch", path, r, &u, err)))
		goto done;
	if (prog < 0) {
		rc = dispatch_resume(cmd, a, d, r, &u, out, err);
		goto done;
	}
	/* The plan as sweep reads it: the program first, its arguments
	 * after. */
	sa = *a;
	sa.noperands = a->noperands - prog;
	memmove(sa.operands, a->operands + prog,
		(size_t)sa.noperands * sizeof *sa.operands);
	if ((rc = tui_load_prog(a->operands[prog], &p, err)) ||
	    (rc = tui_plan_campaign(cmd, &sa, p, &c, err)))
		goto done;
	if (!c.planned || c.prune) {
		fprintf(err,
			"heisen dispatch: %s: a Slurm dispatch splits a plan "
			"of --runs into slices; --budget and --prune have "
			"none to split\n",
			r->name);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	if (!tui_opt_value(cmd, a, "--jobs"))
		c.jobs = 1;
	s.slices = u.tasks ? u.tasks : DB_NODE_TASKS;
	if (s.slices > c.planned)
		s.slices = (uint32_t)c.planned;
	if (!rmt_slurm_max_array(&u, &max, why, sizeof why))
		goto report;
	if (max && s.slices > max) {
		fprintf(err,
			"heisen dispatch: %s: %u tasks are more than the "
			"cluster's MaxArraySize (%u): add the node again with "
			"--tasks %u or fewer\n",
			r->name, s.slices, max, max);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	if ((fd = open(a->operands[prog], O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(err, "heisen dispatch: cannot open %s: %s\n",
			a->operands[prog], strerror(errno));
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	snprintf(hash, sizeof hash, "%016" PRIx64, p->sites.hash);
	copy = strdup(a->operands[prog]);
	snprintf(name, sizeof name, "%s", copy ? basename(copy) : "");
	free(copy);
	if (!send_program(&u, fd, hash, name, s.program, sizeof s.program, why,
			  sizeof why))
		goto report;
	/* The campaign, the script naming its origin and the job record go
	 * together: a submission that fails leaves no campaign behind. */
	wasm_err_clear(&e);
	free(c.status);
	c.status = strdup("stopped");
	if (db_begin(d, &e) || (in_tx = true, tui_campaign_add(d, p, &c, &e)) ||
	    db_campaign_origin(d, c.id, origin, sizeof origin, &e)) {
		snprintf(why, sizeof why, "%s", e.msg);
		goto report;
	}
	s.campaign = c.id;
	s.planned = c.planned;
	snprintf(s.dir, sizeof s.dir, "%s/heisen-slurm/%016" PRIx64, u.path,
		 rw_hash((const uint8_t *)origin, strlen(origin)));
	const char *mk[] = {"mkdir", "-p", s.dir, NULL};
	if (!rmt_slurm_run(&u, mk, SLURM_CMD_TIMEOUT_S, -1, &mk_out, why,
			   sizeof why))
		goto report;
	wasm_free(mk_out);
	sweep_words(cmd, a, prog, &c, words, seed, jobs);
	rmt_slurm_plan plan = {s.program, s.dir, origin, s.slices, words};
	if (!(script = rmt_slurm_script(&plan))) {
		snprintf(why, sizeof why, "out of memory");
		goto report;
	}
	snprintf(s.tasks, sizeof s.tasks, "0-%u", s.slices - 1);
	snprintf(jname, sizeof jname, "heisen-%" PRId64, c.id);
	if (!rmt_slurm_submit(&u, script, s.tasks, jname, s.dir, c.jobs, s.job,
			      sizeof s.job, why, sizeof why))
		goto report;
	db_slurm_job j = {.campaign_id = c.id,
			  .remote_id = r->id,
			  .job_id = s.job,
			  .slices = s.slices,
			  .tasks = s.tasks,
			  .dir = s.dir,
			  .script = script};
	if (db_slurm_job_add(d, &j, &e) || db_commit(d, &e)) {
		snprintf(why, sizeof why,
			 "job %s was submitted but not recorded here: %s "
			 "(scancel %s on the cluster)",
			 s.job, e.msg, s.job);
		goto report;
	}
	in_tx = false;
	ok = true;
report:
	if (in_tx)
		db_rollback(d);
	dispatch_report(r, name, hash, ok, why, &s, false, json, out, err);
	rc = ok ? TUI_EXIT_OK : TUI_EXIT_FINDINGS;
done:
	if (fd >= 0)
		close(fd);
	wasm_free(script);
	db_campaign_clear(&c);
	if (p)
		det_prog_free(p);
	db_close(d);
	return rc;
}

/* ---- the state of a node's jobs ------------------------------------------ */

/* A campaign's slices as a node's jobs left them: each slice's state is
 * that of the last job that ran it. */
typedef struct camp_state {
	int64_t id;
	uint32_t slices;
	rmt_task_state *st;
	uint32_t *by; /* the task of its job's array that ran each slice,
		       * UINT32_MAX for its own */
	char *dir;
	char jobs[512];
	unsigned njobs;
} camp_state;

typedef struct node_jobs {
	const db_node_url *u;
	camp_state *v;
	size_t n;
	bool ask, failed, oom; /* ask: the tasks' states from Slurm */
	char why[600];
} node_jobs;

static bool job_state(void *ctx, const db_slurm_job *j)
{
	node_jobs *nj = ctx;
	camp_state *c = NULL;
	rmt_task_state *st;
	uint32_t n, *by;

	for (size_t i = 0; i < nj->n; i++)
		if (nj->v[i].id == j->campaign_id)
			c = &nj->v[i];
	if (!c) {
		camp_state *v = realloc(nj->v, (nj->n + 1) * sizeof *v);
		if (!v)
			return !(nj->oom = true);
		nj->v = v;
		c = &v[nj->n++];
		memset(c, 0, sizeof *c);
		c->id = j->campaign_id;
		c->slices = j->slices;
		c->st = calloc(j->slices ? j->slices : 1, sizeof *c->st);
		c->by = malloc((j->slices ? j->slices : 1) * sizeof *c->by);
		c->dir = strdup(j->dir);
		if (!c->st || !c->by || !c->dir)
			return !(nj->oom = true);
		for (uint32_t i = 0; i < j->slices; i++)
			c->by[i] = UINT32_MAX;
	}
	size_t k = strlen(c->jobs);
	snprintf(c->jobs + k, sizeof c->jobs - k, "%s%s", k ? "," : "",
		 j->job_id);
	c->njobs++;
	if (!nj->ask)
		return true;
	n = j->slices < c->slices ? j->slices : c->slices;
	st = calloc(j->slices ? j->slices : 1, sizeof *st);
	by = calloc(j->slices ? j->slices : 1, sizeof *by);
	if (!st || !by) {
		free(st);
		free(by);
		return !(nj->oom = true);
	}
	/* A slice's state is that of the last job that ran it: the
	 * job's own tasks replace what earlier jobs said. */
	memcpy(st, c->st, n * sizeof *st);
	memcpy(by, c->by, n * sizeof *by);
	if (!job_states(nj->u, j, st, by, nj->why, sizeof nj->why)) {
		nj->failed = true;
		free(st);
		free(by);
		return false;
	}
	memcpy(c->st, st, n * sizeof *st);
	memcpy(c->by, by, n * sizeof *by);
	free(st);
	free(by);
	return true;
}

static void node_jobs_free(node_jobs *nj)
{
	for (size_t i = 0; i < nj->n; i++) {
		free(nj->v[i].st);
		free(nj->v[i].by);
		free(nj->v[i].dir);
	}
	free(nj->v);
}

/* Every campaign of node r with its slices' states (with ask; without,
 * every state RMT_TASK_UNKNOWN and Slurm not asked); false with why. */
static bool node_jobs_read(db *d, const db_remote *r, const db_node_url *u,
			   bool ask, node_jobs *nj)
{
	wasm_err e;

	memset(nj, 0, sizeof *nj);
	nj->u = u;
	nj->ask = ask;
	wasm_err_clear(&e);
	if (db_slurm_job_list(d, r->id, 0, job_state, nj, &e)) {
		snprintf(nj->why, sizeof nj->why, "%s", e.msg);
		return false;
	}
	if (nj->oom)
		snprintf(nj->why, sizeof nj->why, "out of memory");
	return !nj->oom && !nj->failed;
}

int tui_slurm_status(const db_remote *r, const char *dbpath, bool json,
		     FILE *out, FILE *err)
{
	db_node_url u;
	node_jobs nj;
	const char *path;
	tui_json j;
	int rc;
	db *d;

	if ((rc = tui_open_existing_db(dbpath, &d, &path, err)))
		return rc;
	if ((rc = tui_node_url("node status", path, r, &u, err))) {
		db_close(d);
		return rc;
	}
	if (!node_jobs_read(d, r, &u, true, &nj)) {
		fprintf(err, "heisen node status: %s: %s\n", r->name, nj.why);
		node_jobs_free(&nj);
		db_close(d);
		return nj.oom ? TUI_EXIT_INTERNAL : TUI_EXIT_FINDINGS;
	}
	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.node-jobs/1");
		tui_json_str(&j, "name", r->name);
		tui_json_str(&j, "url", r->url);
		tui_json_arr(&j, "campaigns");
	} else {
		fprintf(out, "%s (%s):\n", r->name, r->url);
		if (!nj.n)
			fprintf(out,
				"  no campaign dispatched ('heisen "
				"dispatch %s PROGRAM.wasm' makes one)\n",
				r->name);
	}
	/* Newest first, as `heisen campaigns` lists. */
	for (size_t k = nj.n; k-- > 0;) {
		camp_state *cs = &nj.v[k];
		uint32_t count[RMT_TASK_NSTATES] = {0}, taken = 0;
		db_campaign c = {0};
		wasm_err e;

		for (uint32_t i = 0; i < cs->slices; i++) {
			count[cs->st[i]]++;
			taken += cs->by[i] != UINT32_MAX;
		}
		wasm_err_clear(&e);
		if (db_campaign_get(d, cs->id, &c, &e)) {
			fprintf(err, "heisen node status: %s\n", e.msg);
			rc = tui_exit_for(e.status);
			break;
		}
		if (json) {
			tui_json_obj(&j, NULL);
			tui_json_i64(&j, "id", c.id);
			tui_json_str(&j, "program", c.program);
			tui_json_str(&j, "status", c.status);
			tui_json_u64(&j, "runs_done", c.done);
			tui_json_u64(&j, "runs_planned", c.planned);
			tui_json_str(&j, "jobs", cs->jobs);
			tui_json_str(&j, "dir", cs->dir);
			tui_json_u64(&j, "slices", cs->slices);
			tui_json_u64(&j, "slices_taken", taken);
			tui_json_obj(&j, "tasks");
			for (int s = 0; s < RMT_TASK_NSTATES; s++)
				tui_json_u64(
				    &j, rmt_task_state_name((rmt_task_state)s),
				    count[s]);
			tui_json_end(&j, '}');
			tui_json_arr(&j, "task_states");
			for (uint32_t i = 0; i < cs->slices; i++)
				tui_json_str(&j, NULL,
					     rmt_task_state_name(cs->st[i]));
			tui_json_end(&j, ']');
			tui_json_end(&j, '}');
		} else {
			fprintf(out,
				"  campaign %" PRId64 " (%s): %" PRIu64
				"/%" PRIu64 " runs home, %s; job %s, %u "
				"tasks:",
				c.id, c.program, c.done, c.planned, c.status,
				cs->jobs, cs->slices);
			for (int s = 0; s < RMT_TASK_NSTATES; s++)
				if (count[s])
					fprintf(out, " %u %s", count[s],
						rmt_task_state_name(
						    (rmt_task_state)s));
			fputc('\n', out);
			if (taken)
				fprintf(
				    out,
				    "    %u slice%s run by tasks that ended "
				    "their own first (their own tasks, "
				    "still pending then, were cancelled): "
				    "counted in those tasks' states\n",
				    taken, taken == 1 ? "" : "s");
			for (uint32_t i = 0; i < cs->slices; i++) {
				/* A slice taken: its taker's log and fate. */
				uint32_t t =
				    cs->by[i] != UINT32_MAX ? cs->by[i] : i;
				char who[48] = "";

				if (t != i)
					snprintf(who, sizeof who,
						 " (run by task %u)", t);
				if (cs->st[i] == RMT_TASK_TIMEOUT)
					fprintf(out,
						"    slice %u%s was killed by "
						"the time limit%s%s; its "
						"finished runs are kept: "
						"'heisen fetch %s' brings them "
						"home, 'heisen dispatch %s "
						"--resume %" PRId64
						"' runs the rest\n",
						i, who, *u.time ? " " : "",
						u.time, r->name, r->name, c.id);
				else if (cs->st[i] == RMT_TASK_FAILED)
					fprintf(out,
						"    slice %u%s failed: see "
						"%s/task-%u.log on the "
						"cluster\n",
						i, who, cs->dir, t);
			}
		}
		db_campaign_clear(&c);
	}
	if (json) {
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	}
	node_jobs_free(&nj);
	db_close(d);
	return rc;
}

/* ---- fetch --------------------------------------------------------------- */

/* One refusal: the first is the one the report names. */
static void refused(tui_slurm_fetched *f, const camp_state *cs, uint32_t i,
		    const char *why)
{
	if (!f->refused++)
		snprintf(f->why, sizeof f->why,
			 "campaign %" PRId64 ", task %u (%.200s/task-%u.db): "
			 "%.300s",
			 cs->id, i, cs->dir, i, why);
}

/* ---- the stream a task leaves ------------------------------------------- */

/* DBPATH.stream: "heisen-task-stream 1 SIZE SEC NSEC\n", the size and
 * modification time of DBPATH when its sweep closed it, then its export
 * stream. `node tasks` sends it while DBPATH still has that size and
 * time, instead of opening and exporting the workspace there: a fetch of
 * 64 small tasks then costs the home's import, not 64 opens. */
#define STREAM_MAGIC "heisen-task-stream 1"

static bool stream_path(const char *dbpath, char *buf, size_t cap)
{
	return (size_t)snprintf(buf, cap, "%s.stream", dbpath) < cap;
}

void tui_slurm_stream_drop(const char *dbpath)
{
	char path[4200];

	if (stream_path(dbpath, path, sizeof path))
		unlink(path);
}

void tui_slurm_stream_close(db *d, FILE *err)
{
	char path[4200], tmp[4300], *buf = NULL, *dbpath;
	size_t len = 0;
	uint64_t cursor, runs;
	struct stat sb;
	wasm_err e;
	FILE *m, *f;
	bool ok;

	if (!(dbpath = strdup(db_file(d)))) {
		db_close(d);
		fprintf(err, "heisen sweep: note: out of memory: no "
			     "stream written beside the workspace\n");
		return;
	}
	wasm_err_clear(&e);
	ok = (m = open_memstream(&buf, &len)) &&
	     !db_export(d, 0, true, m, &cursor, &runs, &e);
	if (m)
		fclose(m);
	/* Closing checkpoints the journal into the file: its size and time
	 * are final after it. */
	db_close(d);
	ok = ok && stream_path(dbpath, path, sizeof path) &&
	     (size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) < sizeof tmp &&
	     !stat(dbpath, &sb) && (f = fopen(tmp, "wb"));
	if (ok) {
		fprintf(f, STREAM_MAGIC " %lld %lld %ld\n",
			(long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
			sb.st_mtim.tv_nsec);
		ok = fwrite(buf, 1, len, f) == len;
		ok = !fclose(f) && ok && !rename(tmp, path);
		if (!ok)
			unlink(tmp);
	}
	if (!ok)
		fprintf(err,
			"heisen sweep: note: %s.stream not written (%s): a "
			"fetch exports the workspace instead\n",
			dbpath, *e.msg ? e.msg : strerror(errno));
	free(buf);
	free(dbpath);
}

/* The stream task file dbpath left (tui_slurm_stream_close) into *buf
 * (malloc'd, *len bytes), when dbpath has not changed since; false
 * otherwise, and the caller exports the workspace. */
static bool stream_read(const char *dbpath, const struct stat *db_sb,
			char **buf, size_t *len)
{
	char path[4200], wal[4200], head[128];
	long long size, sec;
	long nsec;
	struct stat sb;
	FILE *f;
	bool ok;

	*buf = NULL;
	if (!stream_path(dbpath, path, sizeof path) ||
	    (size_t)snprintf(wal, sizeof wal, "%s-wal", dbpath) >= sizeof wal ||
	    (!stat(wal, &sb) && sb.st_size > 0) || !(f = fopen(path, "rb")))
		return false;
	ok = fgets(head, sizeof head, f) &&
	     sscanf(head, STREAM_MAGIC " %lld %lld %ld", &size, &sec, &nsec) ==
		 3 &&
	     size == (long long)db_sb->st_size &&
	     sec == (long long)db_sb->st_mtim.tv_sec &&
	     nsec == db_sb->st_mtim.tv_nsec && !fstat(fileno(f), &sb) &&
	     sb.st_size > (off_t)strlen(head);
	if (ok) {
		*len = (size_t)sb.st_size - strlen(head);
		ok = (*buf = malloc(*len ? *len : 1)) &&
		     fread(*buf, 1, *len, f) == *len;
	}
	fclose(f);
	if (!ok) {
		free(*buf);
		*buf = NULL;
	}
	return ok;
}

/* Task file `file` opened and exported whole into *buf (malloc'd, *len
 * bytes): 0, 1 when it cannot be read or exported (e says why, *buf
 * NULL), -1 when out of memory for the stream. */
static int task_export(const char *file, char **buf, size_t *len, wasm_err *e)
{
	uint64_t cursor, runs;
	wasm_status st;
	FILE *m;
	db *d;

	*buf = NULL;
	wasm_err_clear(e);
	if (db_open(file, &d, e))
		return 1;
	if (!(m = open_memstream(buf, len))) {
		db_close(d);
		return -1;
	}
	st = db_export(d, 0, true, m, &cursor, &runs, e);
	fclose(m);
	db_close(d);
	if (st) {
		free(*buf);
		*buf = NULL;
		return 1;
	}
	return 0;
}

/* `node tasks DIR LIST --claims JOB`: "heisen-task I [by T] [ended]" for
 * each slice I of LIST that task T of job JOB's array took or whose sweep
 * has ended. */
static void node_claims(const char *dir, const char *job, const bool *want,
			uint32_t n, FILE *out)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t t;
		bool done;

		if (!want[i])
			continue;
		t = claim_of(dir, job, i, n);
		done = slice_ended(dir, i);
		if (t == UINT32_MAX && !done)
			continue;
		fprintf(out, "heisen-task %u", i);
		if (t != UINT32_MAX)
			fprintf(out, " by %u", t);
		fputs(done ? " ended\n" : "\n", out);
	}
}

/* One task file of a `node tasks` answer. */
typedef enum task_kind {
	TASK_OK,    /* data: its stream, n bytes */
	TASK_NONE,  /* no file: the task never started */
	TASK_OPEN,  /* --ended: no stream, the sweep has not ended */
	TASK_ERROR, /* msg: why it cannot be read */
} task_kind;

typedef struct task_ans {
	uint32_t i;
	task_kind kind;
	const uint8_t *data;
	size_t n;
	const char *msg; /* one line */
} task_ans;

/* Each task file of LIST in dir, as `heisen node tasks DIR LIST
 * [--ended]` answers it, handed to each (false: stop). 0, or -1 when out
 * of memory. */
static int tasks_each(const char *dir, const char *list, bool ended,
		      bool (*each)(void *ctx, const task_ans *a), void *ctx)
{
	uint32_t n = SLURM_SLICES_MAX;
	bool *want = calloc(n, sizeof *want), go = true;

	if (!want)
		return -1;
	tasks_parse(list, want, n);
	for (uint32_t i = 0; i < n && go; i++) {
		char file[4200], *buf = NULL;
		task_ans a = {.i = i};
		size_t len = 0;
		struct stat sb;
		wasm_err e;
		int rc;

		if (!want[i])
			continue;
		snprintf(file, sizeof file, "%s/task-%u.db", dir, i);
		if (stat(file, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			a.kind = TASK_NONE;
		} else if (!stream_read(file, &sb, &buf, &len) && ended) {
			a.kind = TASK_OPEN;
		} else if (!buf && (rc = task_export(file, &buf, &len, &e))) {
			if (rc < 0) {
				free(want);
				return -1;
			}
			/* The message is one line: newlines would end the
			 * record. */
			for (char *q = e.msg; *q; q++)
				if (*q == '\n')
					*q = ' ';
			a.kind = TASK_ERROR;
			a.msg = e.msg;
		} else {
			a.kind = TASK_OK;
			a.data = (const uint8_t *)buf;
			a.n = len;
		}
		go = each(ctx, &a);
		free(buf);
	}
	free(want);
	return 0;
}

/* The answer's lines: "heisen-task I ok N\n" and N bytes, "heisen-task I
 * none\n", "heisen-task I open\n" or "heisen-task I error MSG\n". */
static bool task_print(void *ctx, const task_ans *a)
{
	static const char *const word[] = {"ok", "none", "open", "error"};
	FILE *out = ctx;

	fprintf(out, "heisen-task %u %s", a->i, word[a->kind]);
	if (a->kind == TASK_OK) {
		fprintf(out, " %zu\n", a->n);
		fwrite(a->data, 1, a->n, out);
	} else if (a->kind == TASK_ERROR) {
		fprintf(out, " %s\n", a->msg);
	} else {
		fputc('\n', out);
	}
	return true;
}

int tui_node_tasks(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool ended = tui_opt_value(cmd, a, "--ended") != NULL;
	const char *claims = tui_opt_value(cmd, a, "--claims");

	if (a->noperands != 3 || a->operands[1][0] != '/' ||
	    a->operands[2][0] < '0' || a->operands[2][0] > '9') {
		fprintf(err, "heisen node: usage: heisen node tasks DIR LIST "
			     "[--ended | --claims JOB] (LIST: task numbers, "
			     "\"0,1,5\" or \"0-15\")\n");
		return TUI_EXIT_USAGE;
	}
	if (claims && (!*claims || strlen(claims) > 20 ||
		       strspn(claims, "0123456789") != strlen(claims))) {
		fprintf(err,
			"heisen node tasks: --claims expects a Slurm job id "
			"(digits), got '%s'\n",
			claims);
		return TUI_EXIT_USAGE;
	}
	if (claims) {
		uint32_t n = SLURM_SLICES_MAX;
		bool *want = calloc(n, sizeof *want);

		if (want) {
			tasks_parse(a->operands[2], want, n);
			node_claims(a->operands[1], claims, want, n, out);
			free(want);
		}
		if (!want) {
			fprintf(err, "heisen node tasks: out of memory\n");
			return TUI_EXIT_INTERNAL;
		}
	} else if (tasks_each(a->operands[1], a->operands[2], ended, task_print,
			      out)) {
		fprintf(err, "heisen node tasks: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	return fflush(out) ? TUI_EXIT_INTERNAL : TUI_EXIT_OK;
}

/* `heisen node tasks DIR LIST [--ended | --claims JOB]` on u's cluster,
 * its answer into *io, through the transport. */
static bool tasks_call(const db_node_url *u, const char *dir, const char *list,
		       bool ended, const char *claims, double timeout_s,
		       rmt_result *io, char *why, size_t wcap)
{
	const char *words[] = {"heisen", "node", "tasks", dir,
			       list,	 NULL,	 NULL,	  NULL};
	rmt_call c = {u, words, timeout_s, -1, 0, NULL, NULL};
	wasm_err e;

	if (claims) {
		words[5] = "--claims";
		words[6] = claims;
	} else if (ended) {
		words[5] = "--ended";
	}
	wasm_err_clear(&e);
	if (rmt_run(&c, io, &e)) {
		snprintf(why, wcap, "%s", e.msg);
		return false;
	}
	if (rmt_failed(io, why, wcap)) {
		rmt_result_free(io);
		return false;
	}
	return true;
}

/* What a fetch does with each answer of `node tasks`. */
typedef struct fetch_ctx {
	db *d;
	const db_remote *r;
	const camp_state *cs;
	bool *open;
	tui_slurm_fetched *f;
} fetch_ctx;

/* One task file: its stream imported as a part of the fetch's
 * transaction, or its slice noted open, or its refusal. */
static bool task_import(void *ctx, const task_ans *a)
{
	fetch_ctx *x = ctx;
	tui_slurm_fetched *f = x->f;
	db_sync_added added;
	char why[600], src[64];
	wasm_err e;

	switch (a->kind) {
	case TASK_NONE:
	case TASK_OPEN:
		if (x->open)
			x->open[a->i] = true;
		return true;
	case TASK_ERROR:
		rmt_last_line(a->msg, why, sizeof why);
		refused(f, x->cs, a->i, why);
		return true;
	case TASK_OK: break;
	}
	f->bytes += a->n;
	snprintf(src, sizeof src, "task %u's workspace", a->i);
	wasm_err_clear(&e);
	if (db_import_mem(x->d, a->data, a->n, src, x->r->id, &added, &e)) {
		refused(f, x->cs, a->i, e.msg);
	} else {
		f->files++;
		f->runs += added.runs;
		f->campaigns += added.campaigns;
		f->bugs += added.bugs;
	}
	return true;
}

/* The answer of `node tasks` on the cluster, each task file handed to
 * task_import: "heisen-task I ok N\n" and N bytes, "heisen-task I none\n"
 * (no file: the task never started), "heisen-task I open\n" (--ended:
 * not ended) or "heisen-task I error MSG\n". */
static void tasks_parse_answer(const rmt_result *io, fetch_ctx *x)
{
	static const char *const word[] = {"ok", "none", "open", "error"};
	const uint8_t *p = io->out, *end = io->out + io->nout;
	char line[400];

	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		unsigned long long n = 0;
		char w[8] = "";
		task_ans a = {0};
		unsigned i = 0, kind = 0;
		size_t k;

		if (!nl || nl - p >= (ptrdiff_t)sizeof line) {
			refused(x->f, x->cs, 0,
				"the cluster's answer is cut short or "
				"garbled (an older heisen there?)");
			return;
		}
		k = (size_t)(nl - p);
		memcpy(line, p, k);
		line[k] = 0;
		p = nl + 1;
		if (sscanf(line, "heisen-task %u %7s %llu", &i, w, &n) < 2 ||
		    i >= x->cs->slices) {
			refused(x->f, x->cs, 0,
				"the cluster's answer is garbled (an "
				"older heisen there?)");
			return;
		}
		while (kind <= TASK_ERROR && strcmp(w, word[kind]))
			kind++;
		if (kind > TASK_ERROR ||
		    (kind == TASK_OK && n > (unsigned long long)(end - p))) {
			refused(x->f, x->cs, i, "its stream is cut short");
			return;
		}
		a.i = i;
		a.kind = (task_kind)kind;
		if (a.kind == TASK_ERROR) {
			const char *msg = strstr(line, "error ");
			a.msg = msg ? msg + 6 : "";
		} else if (a.kind == TASK_OK) {
			a.data = p;
			a.n = (size_t)n;
			p += n;
		}
		task_import(x, &a);
	}
}

/* Import the task files `list` ("0,1,5") of campaign cs, each as a part
 * of one transaction: one call of `heisen node tasks` on the cluster
 * exports them all, each as its own stream; a folder on this machine
 * (slurm:///) is read here, each stream imported as it is read. With
 * open (cs->slices flags), only the files whose sweep has ended come
 * (`node tasks --ended`), and open[i] is set for each task I of the list
 * that has none yet: running, pending, or killed before its end. */
static void fetch_tasks(db *d, const db_remote *r, const db_node_url *u,
			const camp_state *cs, const char *list,
			double timeout_s, bool *open, tui_slurm_fetched *f)
{
	fetch_ctx x = {d, r, cs, open, f};
	tui_slurm_fetched before;
	rmt_result io = {0};
	char why[600];
	wasm_err e;

	if (*u->host && !tasks_call(u, cs->dir, list, open != NULL, NULL,
				    timeout_s, &io, why, sizeof why)) {
		snprintf(f->why, sizeof f->why, "%s", why);
		f->reached = false;
		return;
	}
	/* One batch, each task file a part of it: a refused file leaves
	 * nothing, and 64 small files commit once. */
	wasm_err_clear(&e);
	if (db_begin_trusted(d, &e)) {
		snprintf(f->why, sizeof f->why, "%s", e.msg);
		f->reached = false;
		rmt_result_free(&io);
		return;
	}
	before = *f;
	if (*u->host) {
		tasks_parse_answer(&io, &x);
	} else if (tasks_each(cs->dir, list, open != NULL, task_import, &x)) {
		db_rollback(d);
		*f = before;
		snprintf(f->why, sizeof f->why, "out of memory");
		f->reached = false;
		return;
	}
	wasm_err_clear(&e);
	if (db_commit(d, &e)) {
		db_rollback(d);
		char msg[sizeof f->why];
		snprintf(msg, sizeof msg, "%s", e.msg);
		*f = before;
		snprintf(f->why, sizeof f->why, "%s", msg);
		f->reached = false;
	}
	rmt_result_free(&io);
}

/* The tasks of campaign cs to fetch: those flagged in want, or all
 * without want; those Slurm still runs are left for a later fetch and
 * counted in f->active (every state is RMT_TASK_UNKNOWN when Slurm was
 * not asked). open as for fetch_tasks. */
static void fetch_campaign(db *d, const db_remote *r, const db_node_url *u,
			   const camp_state *cs, const bool *want, bool *open,
			   double timeout_s, tui_slurm_fetched *f)
{
	char *list = malloc((size_t)cs->slices * 11 + 1);
	size_t at = 0;

	if (!list) {
		snprintf(f->why, sizeof f->why, "out of memory");
		f->reached = false;
		return;
	}
	for (uint32_t i = 0; i < cs->slices; i++) {
		if (want && !want[i])
			continue;
		if (rmt_task_active(cs->st[i]))
			f->active++;
		else
			at += (size_t)sprintf(list + at, "%s%u", at ? "," : "",
					      i);
	}
	if (at)
		fetch_tasks(d, r, u, cs, list, timeout_s, open, f);
	free(list);
}

/* One fetch of node r into f (zeroed first). With ask, Slurm is asked
 * about the tasks that left no stream; without, they count as active.
 * With ino >= 0 (an inotify instance), each campaign's folder is watched
 * for the streams renamed into place; one that cannot be (not on this
 * machine) is polled. */
static void fetch_round(db *d, const db_remote *r, double timeout_s, bool ask,
			int ino, tui_slurm_fetched *f)
{
	db_node_url u;
	node_jobs nj, asked = {0};
	char msg[256];
	bool **open = NULL, any = false;

	memset(f, 0, sizeof *f);
	if (!db_node_url_parse(r->url, &u, msg, sizeof msg)) {
		snprintf(f->why, sizeof f->why, "its URL is not usable: %s",
			 msg);
		return;
	}
	if (!node_jobs_read(d, r, &u, false, &nj) ||
	    !(open = calloc(nj.n ? nj.n : 1, sizeof *open))) {
		snprintf(f->why, sizeof f->why, "%s",
			 open ? nj.why : "out of memory");
		node_jobs_free(&nj);
		return;
	}
	f->reached = true;
	/* Only the slices with plan indices missing here: a campaign home
	 * whole costs nothing on the cluster, and a fetch repeated while
	 * tasks run (--wait) brings each task file once. The task files
	 * whose sweep ended come first, without asking Slurm: one call to
	 * the cluster, not two, when every task is done. Slurm is asked
	 * about the others, and about every task of a campaign submitted
	 * again (a slice resumed may be pending beside the stream an
	 * earlier run of it left). */
	for (size_t k = 0; k < nj.n && f->reached; k++) {
		camp_state *cs = &nj.v[k];
		size_t n = cs->slices ? cs->slices : 1;
		bool *want = calloc(n, sizeof *want);
		wasm_err e;

		wasm_err_clear(&e);
		if (!want || !(open[k] = calloc(n, sizeof **open))) {
			snprintf(f->why, sizeof f->why, "out of memory");
			f->reached = false;
		} else if (!slices_missing(d, cs->id, cs->slices, want, &e)) {
			snprintf(f->why, sizeof f->why, "%s", e.msg);
			f->reached = false;
		} else if (cs->njobs == 1) {
			fetch_campaign(d, r, &u, cs, want, open[k], timeout_s,
				       f);
		} else {
			memcpy(open[k], want, cs->slices * sizeof *want);
		}
		free(want);
		for (uint32_t i = 0; open[k] && i < cs->slices; i++)
			any |= open[k][i];
	}
	for (size_t k = 0; ino >= 0 && k < nj.n; k++)
		inotify_add_watch(ino, nj.v[k].dir, IN_MOVED_TO);
	for (size_t k = 0; !ask && k < nj.n; k++)
		for (uint32_t i = 0; open[k] && i < nj.v[k].slices; i++)
			f->active += open[k][i];
	if (f->reached && any && ask &&
	    !node_jobs_read(d, r, &u, true, &asked)) {
		snprintf(f->why, sizeof f->why, "%s", asked.why);
		f->reached = false;
	}
	for (size_t k = 0; k < asked.n && f->reached; k++) {
		camp_state *cs = &asked.v[k];

		/* A campaign dispatched since the first look waits. */
		for (size_t m = 0; m < nj.n; m++)
			if (nj.v[m].id == cs->id &&
			    nj.v[m].slices == cs->slices)
				fetch_campaign(d, r, &u, cs, open[m], NULL,
					       timeout_s, f);
	}
	/* A plan complete here: its campaign is done. */
	for (size_t k = 0; k < nj.n; k++) {
		wasm_err e;

		wasm_err_clear(&e);
		db_campaign_complete(d, nj.v[k].id, &e);
	}
	for (size_t k = 0; k < nj.n; k++)
		free(open[k]);
	free(open);
	node_jobs_free(&asked);
	node_jobs_free(&nj);
}

/* fetch --wait: the pause between two fetches, short at first (a short
 * array ends within a second), then at most a second on this machine's
 * cluster and 5 s through ssh (each fetch a login there); on this
 * machine, a stream renamed into place in a task folder (inotify) ends
 * the pause at once. Slurm is asked about tasks that left no stream at
 * most every 2 s here (each squeue a request to the controller), to see
 * those that ended without one. */
#define WAIT_FIRST_S	 0.05
#define WAIT_LOCAL_MAX_S 1.0
#define WAIT_SSH_MAX_S	 5.0
#define WAIT_ASK_S	 2.0
/* Tasks of an array end together: after a stream appears, the moment
 * taken for the next ones before fetching. */
#define WAIT_SETTLE_NS 20000000L

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep secs, or until an event on fd (then a moment more). */
static void nap(int fd, double secs)
{
	struct pollfd p = {fd, POLLIN, 0};
	struct timespec settle = {0, WAIT_SETTLE_NS};
	char buf[4096];

	if (fd < 0) {
		struct timespec ts = {
		    (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
		nanosleep(&ts, NULL);
		return;
	}
	if (poll(&p, 1, (int)(secs * 1000)) > 0) {
		nanosleep(&settle, NULL);
		while (read(fd, buf, sizeof buf) > 0)
			;
	}
}

void tui_slurm_fetch(db *d, const db_remote *r, double timeout_s, bool wait,
		     FILE *tty, tui_slurm_fetched *f)
{
	bool local = !strncmp(r->url, "slurm:///", 9);
	double start = mono_s(), asked = start, pause = WAIT_FIRST_S,
	       most = local ? WAIT_LOCAL_MAX_S : WAIT_SSH_MAX_S;
	int fd = wait && local ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
	tui_slurm_fetched one;

	memset(f, 0, sizeof *f);
	for (bool ask = true;; ask = !local || mono_s() - asked >= WAIT_ASK_S) {
		double left = timeout_s - (mono_s() - start);
		if (ask)
			asked = mono_s();
		fetch_round(d, r, left > 1 ? left : 1, ask,
			    f->fetches ? -1 : fd, &one);
		f->fetches++;
		f->reached = one.reached;
		f->runs += one.runs;
		f->campaigns += one.campaigns;
		f->bugs += one.bugs;
		f->bytes += one.bytes;
		f->files += one.files;
		/* A refused file is asked for again each time: the last
		 * fetch's count is the files refused now. */
		f->refused = one.refused;
		f->active = one.active;
		memcpy(f->why, one.why, sizeof f->why);
		if (!wait || !one.reached || !one.active)
			break;
		left = timeout_s - (mono_s() - start);
		if (left <= 0) {
			f->timed_out = true;
			break;
		}
		if (tty)
			fprintf(tty,
				"\r\033[K%s: %" PRIu64 " runs home, %u "
				"tasks pending or running",
				r->name, f->runs, one.active);
		nap(fd, pause < left ? pause : left);
		pause = pause * 2 < most ? pause * 2 : most;
	}
	if (tty && f->fetches > 1)
		fprintf(tty, "\r\033[K");
	if (fd >= 0)
		close(fd);
}

/* ---- check --------------------------------------------------------------- */

/* The next line of *rest (sinfo's answer, its '\n' cut) made safe to show
 * (rmt_last_line) into line[cap]; false at the end. */
static bool next_part(char **rest, char *line, size_t cap)
{
	char *l = *rest, *nl;

	if (!l || !*l)
		return false;
	if ((nl = strchr(l, '\n')))
		*nl++ = 0;
	else
		nl = l + strlen(l);
	*rest = nl;
	rmt_last_line(l, line, cap);
	return true;
}

int tui_slurm_check(const db_remote *r, double timeout_s, bool json, FILE *out,
		    FILE *err)
{
	const char *sinfo[] = {"sinfo", "-h", "-o", "%P|%a|%l|%D|%t", NULL};
	char part_opt[96];
	const char *srun[12];
	char why[600] = "", *parts = NULL, *self = NULL, host[256] = "",
	     ver[64] = "", line[400];
	bool reachable, runs = false;
	db_node_url u;
	tui_json j;
	int n = 0;

	if (!db_node_url_parse(r->url, &u, why, sizeof why)) {
		fprintf(err, "heisen node check: %s: %s\n", r->name, why);
		return TUI_EXIT_USAGE;
	}
	reachable =
	    rmt_slurm_run(&u, sinfo, timeout_s, -1, &parts, why, sizeof why);
	if (reachable) {
		srun[n++] = "srun";
		srun[n++] = "-N1";
		srun[n++] = "-n1";
		if (*u.partition) {
			snprintf(part_opt, sizeof part_opt, "--partition=%s",
				 u.partition);
			srun[n++] = part_opt;
		}
		srun[n++] = "heisen";
		srun[n++] = "node";
		srun[n++] = "self";
		srun[n++] = "--json";
		srun[n] = NULL;
		/* heisen on a compute node, not the login host: srun. */
		runs = rmt_slurm_run(&u, srun, timeout_s, -1, &self, line,
				     sizeof line) &&
		       strstr(self, "\"schema\":\"heisen.node-self/1\"");
		if (runs) {
			const char *h = strstr(self, "\"hostname\":\"");
			const char *vv = strstr(self, "\"version\":\"");
			if (h)
				rmt_last_line(h + 12, host, sizeof host);
			if (vv)
				rmt_last_line(vv + 11, ver, sizeof ver);
			host[strcspn(host, "\"")] = 0;
			ver[strcspn(ver, "\"")] = 0;
		} else if (!self) {
			snprintf(why, sizeof why,
				 "the cluster answers, but heisen does not "
				 "run on its compute nodes: %s",
				 line);
		}
	}
	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.node-check/1");
		tui_json_str(&j, "name", r->name);
		tui_json_str(&j, "url", r->url);
		tui_json_str(&j, "kind", "slurm");
		tui_json_bool(&j, "reachable", reachable && runs);
		if (reachable && runs)
			tui_json_null(&j, "error");
		else
			tui_json_str(&j, "error", why);
		tui_json_arr(&j, "partitions");
		for (char *rest = parts; next_part(&rest, line, sizeof line);)
			tui_json_str(&j, NULL, line);
		tui_json_end(&j, ']');
		if (runs) {
			tui_json_str(&j, "version", ver);
			tui_json_str(&j, "hostname", host);
		}
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (reachable && runs) {
		fprintf(out,
			"%s: Slurm cluster reachable, heisen %s runs on its "
			"compute node %s; partitions (name|avail|time "
			"limit|nodes|state):\n",
			r->name, ver, host);
		for (char *rest = parts; next_part(&rest, line, sizeof line);)
			fprintf(out, "  %s\n", line);
	} else {
		fprintf(out, "%s: unreachable: %s\n", r->name, why);
	}
	wasm_free(parts);
	wasm_free(self);
	return reachable && runs ? TUI_EXIT_OK : TUI_EXIT_FINDINGS;
}
