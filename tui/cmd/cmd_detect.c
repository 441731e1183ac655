/*
 * cmd_detect.c - the detector's campaign commands: `heisen sweep` and
 * `heisen shared`. The work is in detector/; this file turns options into
 * a campaign and prints.
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/report/filter.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"
#include "tui/report/race.h"
#include "tui/report/report_fmt.h"

#include "db/db.h"
#include "db/sync.h"
#include "detector/campaign.h"
#include "detector/suppress.h"
#include "replay/sched.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Exit status of a sweep stopped by Ctrl-C: what a shell reports for a
 * job ended by SIGINT. */
enum { SWEEP_EXIT_INTERRUPTED = 130 };

/* ---- heisen sweep -------------------------------------------------------- */

/* ---- sweep --progress-fd: heisen.progress/1 lines ----------------------
 *
 * JSON lines to a descriptor the caller opened (the TUI's pipe). Nothing
 * here may hold up the sweep: a write happens only when poll says the
 * descriptor takes data, at most PIPE_BUF bytes at a time (what a pipe
 * with room takes whole, without blocking); while older lines wait, a
 * progress line is dropped (the next one supersedes it) and other lines
 * queue, up to PROGRESS_QUEUE_MAX bytes, past which the reader is taken
 * to be stuck. When the reader is gone (EPIPE, SIGPIPE being ignored) or
 * stuck, writing stops silently and the sweep goes on. The end line gets
 * up to PROGRESS_END_WAIT_MS to go out. */
enum { PROGRESS_QUEUE_MAX = 1 << 20, PROGRESS_END_WAIT_MS = 2000 };

typedef struct progress_out {
	int fd;	     /* -1: not asked for, or given up */
	wasm_buf q;  /* bytes of whole lines not written yet */
	size_t qpos; /* q.data[qpos..q.len) are still to write */
	FILE *mem;   /* the line being built */
	char *line;
	size_t len;
} progress_out;

/* --progress-fd's value: an open descriptor we may write to. */
static int progress_open(const char *v, progress_out *po, FILE *err)
{
	uint32_t fd;
	int fl;

	po->fd = -1;
	if (!v)
		return TUI_EXIT_OK;
	if (!tui_parse_u32(v, 0, INT32_MAX, &fd)) {
		fprintf(err,
			"heisen sweep: --progress-fd expects a file "
			"descriptor number, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if ((fl = fcntl((int)fd, F_GETFL)) < 0) {
		fprintf(err,
			"heisen sweep: --progress-fd %u: not an open file "
			"descriptor (open it when starting heisen, e.g. "
			"'3>progress.jsonl', or pass a pipe's write "
			"end)\n",
			fd);
		return TUI_EXIT_USAGE;
	}
	if ((fl & O_ACCMODE) == O_RDONLY) {
		fprintf(err,
			"heisen sweep: --progress-fd %u is open for "
			"reading only\n",
			fd);
		return TUI_EXIT_USAGE;
	}
	po->fd = (int)fd;
	return TUI_EXIT_OK;
}

/* Write what fd takes now of b[0..n); how much that was. */
static size_t progress_write(progress_out *po, const void *b, size_t n,
			     int wait_ms)
{
	size_t done = 0;

	while (po->fd >= 0 && done < n) {
		struct pollfd pf = {po->fd, POLLOUT, 0};
		int k = poll(&pf, 1, wait_ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k > 0 && (pf.revents & (POLLERR | POLLHUP | POLLNVAL))) {
			po->fd = -1; /* the reader is gone */
			break;
		}
		if (k <= 0 || !(pf.revents & POLLOUT))
			break;
		size_t chunk = n - done < PIPE_BUF ? n - done : PIPE_BUF;
		ssize_t w = write(po->fd, (const char *)b + done, chunk);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				po->fd = -1;
			break;
		}
		done += (size_t)w;
	}
	return done;
}

/* Write queued bytes; wait_ms bounds each wait for room. */
static void progress_flush(progress_out *po, int wait_ms)
{
	size_t n = po->q.len - po->qpos;

	if (n)
		po->qpos +=
		    progress_write(po, po->q.data + po->qpos, n, wait_ms);
	if (po->qpos == po->q.len)
		po->qpos = po->q.len = 0;
}

/* Begin a line in j: false when progress lines are not wanted. */
static bool progress_begin(progress_out *po, tui_json *j, const char *event)
{
	if (po->fd < 0)
		return false;
	po->line = NULL;
	po->len = 0;
	if (!(po->mem = open_memstream(&po->line, &po->len)))
		return false;
	tui_json_init(j, po->mem);
	tui_json_obj(j, NULL);
	tui_json_str(j, "schema", "heisen.progress/1");
	tui_json_str(j, "event", event);
	return true;
}

/* End the line and send it (droppable: a progress line). */
static void progress_send(progress_out *po, tui_json *j, bool droppable)
{
	size_t sent = 0;

	tui_json_end(j, '}');
	tui_json_done(j);
	if (fclose(po->mem) || !po->line) {
		free(po->line);
		return;
	}
	progress_flush(po, 0);
	if (po->q.len == 0)
		sent = progress_write(po, po->line, po->len, 0);
	/* Once begun, a line is finished, or the reader would see half of
	 * it joined to the next. */
	if (po->fd >= 0 && sent < po->len && (sent || !droppable)) {
		wasm_buf_put(&po->q, po->line + sent, po->len - sent);
		if (po->q.oom || po->q.len - po->qpos > PROGRESS_QUEUE_MAX)
			po->fd = -1;
	}
	free(po->line);
}

/* The last line, given time to go out; the queue is released. */
static void progress_finish(progress_out *po)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t = t0;
	while (po->fd >= 0 && po->q.len &&
	       (t.tv_sec - t0.tv_sec) * 1000 +
		       (t.tv_nsec - t0.tv_nsec) / 1000000 <
		   PROGRESS_END_WAIT_MS) {
		progress_flush(po, 100);
		clock_gettime(CLOCK_MONOTONIC, &t);
	}
	wasm_buf_fini(&po->q);
	po->fd = -1;
}

/* Seconds until the plan or budget ends, or -1 before it is known. */
static double sweep_eta(const det_progress *pr)
{
	double eta = -1;

	if (pr->planned && pr->runs_per_s > 0)
		eta = pr->done < pr->planned
			  ? (double)(pr->planned - pr->done) / pr->runs_per_s
			  : 0;
	if (pr->budget_s > 0) {
		double left = pr->budget_s > pr->elapsed_s
				  ? pr->budget_s - pr->elapsed_s
				  : 0;
		if (eta < 0 || left < eta)
			eta = left;
	}
	return eta;
}

static void json_statuses(tui_json *j, const det_progress *pr)
{
	tui_json_obj(j, "statuses");
	for (int s = DET_OK; s <= DET_ERROR; s++)
		tui_json_u64(j, det_status_name((det_status)s),
			     pr->by_status[s]);
	tui_json_end(j, '}');
}

typedef struct sweep_ui {
	FILE *out, *err;
	bool tty;
	bool line_shown;
	const det_prog *prog;
	det_progress last; /* of this invocation */
	progress_out po;
	db *d; /* to name new bugs in progress lines */
	int64_t program_id;
	const det_supp *supp; /* new bugs it suppresses are not shown */
	tui_emit em;	      /* --format's report; its run lines stream */
	tui_reasons why;      /* why runs did not end ok */
} sweep_ui;

static void fmt_hms(double s, char *buf, size_t cap)
{
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, cap, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, cap, "%lu:%02lu", t / 60, t % 60);
}

static void progress_line(sweep_ui *u, const det_progress *pr)
{
	tui_json j;
	double eta = sweep_eta(pr);

	if (!progress_begin(&u->po, &j, "progress"))
		return;
	tui_json_u64(&j, "done", pr->done);
	if (pr->planned)
		tui_json_u64(&j, "planned", pr->planned);
	else
		tui_json_null(&j, "planned");
	tui_json_u64(&j, "bugs", pr->bugs);
	tui_json_f64(&j, "runs_per_s", pr->runs_per_s);
	tui_json_f64(&j, "elapsed_s", pr->elapsed_s);
	if (eta >= 0)
		tui_json_f64(&j, "eta_s", eta);
	else
		tui_json_null(&j, "eta_s");
	json_statuses(&j, pr);
	progress_send(&u->po, &j, true);
}

static void on_progress(void *ctx, const det_progress *pr)
{
	sweep_ui *u = ctx;
	char eta[32] = "-", el[32];
	double left = sweep_eta(pr);

	u->last = *pr;
	progress_line(u, pr);
	if (!u->tty)
		return;
	fmt_hms(pr->elapsed_s, el, sizeof el);
	if (left >= 0)
		fmt_hms(left, eta, sizeof eta);
	const char *bugs = pr->bugs == 1 ? "bug" : "bugs";
	if (pr->planned)
		fprintf(u->err,
			"\r\033[Ksweep: %" PRIu64 "/%" PRIu64
			" runs  %.0f runs/s  %" PRIu64
			" %s  %s elapsed  ETA %s",
			pr->done, pr->planned, pr->runs_per_s, pr->bugs, bugs,
			el, eta);
	else
		fprintf(u->err,
			"\r\033[Ksweep: %" PRIu64 " runs  %.0f runs/s  %" PRIu64
			" %s  %s elapsed  %s left",
			pr->done, pr->runs_per_s, pr->bugs, bugs, el, eta);
	fflush(u->err);
	u->line_shown = true;
}

static void bug_line(sweep_ui *u, const db_hit *h)
{
	tui_json j;
	char kinds[4];
	wasm_err e;
	/* The hook runs after the run's insert: the bug is in the open
	 * batch, which this connection sees. */
	int64_t id = 0;

	if (u->po.fd < 0)
		return;
	if (db_bug_find(u->d, u->program_id, h->site[0].id, h->site[1].id, &id,
			&e))
		id = 0;
	if (!progress_begin(&u->po, &j, "bug"))
		return;
	if (id)
		tui_json_i64(&j, "bug", id);
	else
		tui_json_null(&j, "bug");
	snprintf(kinds, sizeof kinds, "%c/%c", tui_kind_letter(h->site[0].kind),
		 tui_kind_letter(h->site[1].kind));
	tui_json_str(&j, "kinds", kinds);
	tui_json_arr(&j, "sites");
	for (int k = 0; k < 2; k++) {
		const db_site *s = &h->site[k];
		tui_json_obj(&j, NULL);
		tui_json_u64(&j, "site", s->id);
		tui_json_str(&j, "kind", rw_kind_name((rw_kind)s->kind));
		if (s->func)
			tui_json_str(&j, "function", s->func);
		else
			tui_json_null(&j, "function");
		if (s->file)
			tui_json_str(&j, "file", s->file);
		else
			tui_json_null(&j, "file");
		if (s->line)
			tui_json_u64(&j, "line", s->line);
		else
			tui_json_null(&j, "line");
		tui_json_u64(&j, "thread", h->tid[k]);
		tui_json_u64(&j, "address", h->addr[k]);
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	progress_send(&u->po, &j, false);
}

static void on_bug(void *ctx, const db_hit *h)
{
	sweep_ui *u = ctx;
	char s0[300], s1[300];

	bug_line(u, h);
	if (!u->tty || det_supp_match_hit(u->supp, h))
		return;
	tui_prog_site_text(u->prog, h->site[0].id, s0, sizeof s0);
	tui_prog_site_text(u->prog, h->site[1].id, s1, sizeof s1);
	fprintf(u->err, "\r\033[Knew bug: %c/%c %s <-> %s\n",
		tui_kind_letter(h->site[0].kind),
		tui_kind_letter(h->site[1].kind), s0, s1);
}

static void on_run(void *ctx, const db_run *r, const db_hit *hits,
		   uint32_t nhits)
{
	sweep_ui *u = ctx;

	tui_emit_run(&u->em, r, hits, nhits);
	tui_reasons_note(&u->why, r);
}

static void start_line(sweep_ui *u, const db_campaign *c, bool resumed,
		       const char *dbpath)
{
	tui_json j;
	char hex[20];

	if (!progress_begin(&u->po, &j, "start"))
		return;
	tui_json_i64(&j, "campaign", c->id);
	tui_json_str(&j, "program", u->prog->name);
	tui_json_str(&j, "path", u->prog->path);
	tui_json_str(&j, "db", dbpath);
	tui_json_bool(&j, "resumed", resumed);
	if (c->planned)
		tui_json_u64(&j, "planned", c->planned);
	else
		tui_json_null(&j, "planned");
	if (c->budget_s > 0)
		tui_json_f64(&j, "budget_s", c->budget_s);
	else
		tui_json_null(&j, "budget_s");
	tui_json_u64(&j, "done", resumed ? c->done : 0);
	tui_json_u64(&j, "jobs", c->jobs);
	snprintf(hex, sizeof hex, "%016" PRIx64, c->seed);
	tui_json_str(&j, "seed", hex);
	progress_send(&u->po, &j, false);
}

static void end_line(sweep_ui *u, const char *status, uint64_t done,
		     uint64_t bugs, const char *msg)
{
	tui_json j;

	if (progress_begin(&u->po, &j, "end")) {
		tui_json_str(&j, "status", status);
		tui_json_u64(&j, "done", done);
		tui_json_u64(&j, "bugs", bugs);
		if (msg)
			tui_json_str(&j, "message", msg);
		json_statuses(&j, &u->last);
		progress_send(&u->po, &j, false);
	}
	progress_finish(&u->po);
}

static void on_sigint(int sig) { det_sweep_stop(); }

void tui_sigint_stops(struct sigaction *old)
{
	struct sigaction sa = {0};

	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
}

/* Fill a new campaign from the options; returns an exit code. */
int tui_plan_campaign(const tui_cmd *cmd, const tui_args *a, det_prog *p,
		      db_campaign *c, FILE *err)
{
	const char *v;
	wasm_err e;
	const det_profile **profs = NULL;
	uint32_t nprofs = 0;
	char every[256];
	int rc;

	/* Every profile by default: at an equal budget, runs spread over
	 * the profiles found at least as many bugs as one profile in the
	 * simulation over the demos (docs/analysis.md). */
	det_profile_names(every, sizeof every, ",");
	c->densities =
	    strdup((v = tui_opt_value(cmd, a, "--densities")) ? v : "5:100:5");
	c->profiles =
	    strdup((v = tui_opt_value(cmd, a, "--profiles")) ? v : every);
	if (!c->densities || !c->profiles)
		goto oom;
	if (det_parse_densities(c->densities, &c->density_bp, &c->ndensity,
				&e) ||
	    det_parse_profiles(c->profiles, &profs, &nprofs, &e)) {
		fprintf(err, "heisen sweep: %s\n", e.msg);
		return TUI_EXIT_USAGE;
	}
	wasm_free(profs);
	if ((v = tui_opt_value(cmd, a, "--schedule"))) {
		rep_sched_spec spec;
		char name[64];
		if ((rc = tui_drawn_sched(cmd, a, "--profiles", &spec, err)))
			return rc;
		rep_sched_name(&spec, name, sizeof name);
		free(c->profiles);
		if (!(c->schedule = strdup(name)) ||
		    !(c->profiles = strdup("default")))
			goto oom;
		nprofs = 1;
	}
	c->runs = 0;
	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !tui_parse_u32(v, 1, 100000000, &c->runs)) {
		fprintf(err,
			"heisen sweep: --runs expects a number of runs "
			"per cell from 1 to 100000000, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if ((v = tui_opt_value(cmd, a, "--budget")) &&
	    !tui_parse_duration(v, &c->budget_s)) {
		fprintf(err,
			"heisen sweep: --budget expects a duration such "
			"as 90s, 10m or 2h, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	/* 5 a cell over the four profiles: the 400 runs one profile had at
	 * 20 a cell. */
	if (!c->runs && c->budget_s <= 0)
		c->runs = 5;
	c->planned = c->runs ? (uint64_t)c->runs * c->ndensity * nprofs : 0;
	c->mask_version = DET_MASK_VERSION;
	if ((rc = tui_opt_workers(cmd, a, &c->jobs, &c->timeout_s, err)))
		return rc;
	c->seed = tui_random_seed();
	if ((v = tui_opt_value(cmd, a, "--seed")) &&
	    !tui_parse_u64(v, &c->seed)) {
		fprintf(err,
			"heisen sweep: --seed expects a 64-bit number "
			"(decimal or 0x hex), got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	c->delay = DET_DEFAULT_DELAY;
	if ((v = tui_opt_value(cmd, a, "--delay")) &&
	    !tui_parse_u32(v, 0, 100000000, &c->delay)) {
		fprintf(err,
			"heisen sweep: --delay expects a number of spin "
			"units from 0 to 100000000, got '%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_opt_stdin(cmd, a, &c->input, &c->ninput, &c->input_hash,
				err)))
		return rc;
	if ((rc = tui_opt_world(cmd, a, NULL, true, &c->world, err)))
		return rc;
	if (!tui_campaign_args(a, c))
		goto oom;
	c->prune = tui_opt_value(cmd, a, "--prune") != NULL;
	if (c->prune) {
		uint8_t *shared = wasm_calloc(p->sites.nsites + 1, 1);
		const char **argv = malloc((size_t)a->noperands * sizeof *argv);
		uint32_t runs = 3;
		if (!shared || !argv) {
			wasm_free(shared);
			free(argv);
			goto oom;
		}
		argv[0] = p->name;
		for (int i = 1; i < a->noperands; i++)
			argv[i] = a->operands[i];
		if (det_shared_sites(p, argv, (uint32_t)a->noperands, c->input,
				     c->ninput, &c->world, runs, c->jobs,
				     c->timeout_s, shared, &e)) {
			fprintf(err, "heisen sweep: --prune: %s\n", e.msg);
			wasm_free(shared);
			free(argv);
			return det_sweep_stopped() ? SWEEP_EXIT_INTERRUPTED
						   : TUI_EXIT_USAGE;
		}
		free(argv);
		c->pruned =
		    wasm_malloc((p->sites.nsites + 1) * sizeof *c->pruned);
		if (!c->pruned) {
			wasm_free(shared);
			goto oom;
		}
		for (uint32_t i = 0; i < p->sites.nsites; i++)
			if (shared[i])
				c->pruned[c->npruned++] = i;
		wasm_free(shared);
	}
	return TUI_EXIT_OK;
oom:
	fprintf(err, "heisen sweep: out of memory\n");
	return TUI_EXIT_INTERNAL;
}

/* "I/N" of --plan-slice: 0 <= I < N <= 1000000. */
static bool parse_slice(const char *v, uint32_t *i, uint32_t *n)
{
	char *end;
	unsigned long a, b;

	if (*v < '0' || *v > '9')
		return false;
	a = strtoul(v, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		return false;
	b = strtoul(end + 1, &end, 10);
	if (*end || b < 1 || b > 1000000 || a >= b)
		return false;
	*i = (uint32_t)a;
	*n = (uint32_t)b;
	return true;
}

/* An origin as campaigns carry it: a node key, an id and a time, joined
 * by ':' (db_campaign_origin). */
static bool origin_ok(const char *o)
{
	size_t n = strlen(o);

	return n && n < 256 && *o != '-' &&
	       strspn(o, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._:-") == n;
}

int tui_cmd_sweep(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *slice_v = tui_opt_value(cmd, a, "--plan-slice");
	const char *origin = tui_opt_value(cmd, a, "--origin");
	uint32_t slice_i = 0, slice_n = 1;
	uint64_t lo = 0, hi = UINT64_MAX;
	const char *resume = tui_opt_value(cmd, a, "--resume");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_gate gate;
	db *d = NULL;
	det_prog *p = NULL;
	db_campaign c = {0};
	db_program prog = {0};
	wasm_err e;
	int rc;
	struct sigaction old, pipe_old;
	bool pipe_set = false, leave_stream = false;
	sweep_ui ui = {.out = out, .err = err};
	det_sweep_hooks hooks = {
	    .progress = on_progress, .bug = on_bug, .run = on_run, .ctx = &ui};
	det_supp *supp = NULL;
	rep_sched_spec sched = {0};
	rep_sched_factory fac;
	wasm_status st;

	if (!resume && a->noperands < 1) {
		fprintf(err,
			"heisen sweep: missing FILE.wasm (or --resume "
			"CAMPAIGN); usage: heisen sweep %s\n",
			cmd->usage);
		return TUI_EXIT_USAGE;
	}
	if (slice_v && !parse_slice(slice_v, &slice_i, &slice_n)) {
		fprintf(err,
			"heisen sweep: --plan-slice expects I/N, slice I of N "
			"(0 <= I < N <= 1000000), got '%s'\n",
			slice_v);
		return TUI_EXIT_USAGE;
	}
	/* Slices of one plan must draw the same seeds: a random seed per
	 * slice would make each its own campaign. */
	if (slice_v && !resume && !tui_opt_value(cmd, a, "--seed")) {
		fprintf(err, "heisen sweep: --plan-slice needs the campaign's "
			     "--seed (or --resume CAMPAIGN), so that every "
			     "slice runs the same plan\n");
		return TUI_EXIT_USAGE;
	}
	if (origin && (resume || !origin_ok(origin))) {
		fprintf(err, "heisen sweep: --origin %s: %s\n",
			resume ? "and --resume" : "expects NODE:ID:TIME",
			resume ? "cannot go together"
			       : "letters, digits, '.', "
				 "'_', ':' and '-'");
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_gate_parse(cmd, a, &gate, err)) ||
	    (rc = progress_open(tui_opt_value(cmd, a, "--progress-fd"), &ui.po,
				err)))
		return rc;
	if (resume) {
		static const char *const plan_opts[] = {
		    "--densities", "--runs",  "--budget", "--profiles",
		    "--seed",	   "--delay", "--prune",  "--timeout",
		    "--stdin",	   "--dir",   "--env",	  "--max-threads",
		    "--max-memory"};
		for (size_t i = 0; i < sizeof plan_opts / sizeof *plan_opts;
		     i++)
			if (tui_opt_value(cmd, a, plan_opts[i])) {
				fprintf(err,
					"heisen sweep: %s cannot change a "
					"campaign being resumed\n",
					plan_opts[i]);
				return TUI_EXIT_USAGE;
			}
		if (a->noperands) {
			fprintf(err, "heisen sweep: --resume takes the program "
				     "and its arguments from the campaign\n");
			return TUI_EXIT_USAGE;
		}
	}
	/* A bad format or rules file is bad input: refused before anything
	 * runs. */
	tui_emit_init(&ui.em, TUI_FORMAT_TEXT, cmd->name, out, NULL, gate,
		      NULL);
	if ((rc = tui_format_parse(cmd, a, &ui.em.fmt, &ui.em.root, err)))
		return rc;
	if ((rc = tui_supp_open(cmd, a, &supp, err))) {
		tui_emit_fini(&ui.em);
		return rc;
	}
	if (resume) {
		uint64_t id;
		if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
			return rc;
		const char *jv = tui_opt_value(cmd, a, "--jobs");
		if (!tui_parse_u64(resume, &id) || id > INT64_MAX) {
			fprintf(err,
				"heisen sweep: --resume expects a campaign "
				"id, got '%s'\n",
				resume);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if ((st = db_campaign_get(d, (int64_t)id, &c, &e)) ||
		    (st = db_program_get(d, c.program_id, &prog, &e))) {
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		if (!strcmp(c.status, "done")) {
			fprintf(err,
				"heisen sweep: campaign %" PRId64
				" is already complete (%" PRIu64 " runs)\n",
				c.id, c.done);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if (!strcmp(c.status, "running")) {
			if (c.owner_remote)
				fprintf(err,
					"heisen sweep: campaign %" PRId64
					" is marked running by a sweep on "
					"another machine (process %d there); "
					"heisen cannot tell from here whether "
					"it still runs: resume it there\n",
					c.id, c.owner_pid);
			else
				fprintf(err,
					"heisen sweep: campaign %" PRId64
					" is being run by process %d; stop "
					"that sweep first (Ctrl-C where it "
					"runs, S in the TUI) or let it "
					"finish\n",
					c.id, c.owner_pid);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if (!strcmp(c.status, "interrupted")) {
			char who[32] = "";
			if (c.owner_pid > 0)
				snprintf(who, sizeof who, " (process %d)",
					 c.owner_pid);
			fprintf(err,
				"heisen sweep: campaign %" PRId64
				" was interrupted: its sweep%s ended without "
				"stopping it (killed, or the machine went "
				"down); resuming with %" PRIu64 " runs "
				"recorded\n",
				c.id, who, c.done);
		}
		if (jv && !tui_parse_u32(jv, 1, 256, &c.jobs)) {
			fprintf(err,
				"heisen sweep: --jobs expects 1 to 256, "
				"got '%s'\n",
				jv);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if ((rc = tui_load_recorded(cmd, &prog, &c, &p, err)))
			goto done;
	} else {
		if ((rc = tui_load_prog(a->operands[0], &p, err)))
			goto done;
		if ((rc = tui_plan_campaign(cmd, a, p, &c, err)))
			goto done;
		/* Only now: bad input must not leave an empty workspace. */
		if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
			goto done;
		int64_t again = 0;
		if (origin &&
		    (st = db_campaign_by_origin(d, origin, &again, &e))) {
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		if (again) {
			/* A task submitted again continues its own file. */
			db_campaign_clear(&c);
			st = db_campaign_get(d, again, &c, &e);
		} else if (!(st = tui_campaign_add(d, p, &c, &e)) && origin) {
			st = db_campaign_set_origin(d, c.id, origin, &e);
		}
		if (st) {
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
	}
	if (slice_v) {
		if (!c.planned) {
			fprintf(err, "heisen sweep: --plan-slice needs a plan "
				     "of --runs, not a --budget\n");
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		lo = c.planned * slice_i / slice_n;
		hi = c.planned * (slice_i + 1) / slice_n;
		tui_slurm_stream_drop(db_file(d));
	}
	ui.prog = p;
	ui.tty = !json && !ui.em.fmt && isatty(fileno(err));
	ui.d = d;
	ui.program_id = c.program_id;
	ui.em.d = d;
	ui.em.program_id = c.program_id;
	ui.supp = supp;
	if (ui.po.fd >= 0) {
		/* A progress reader that goes away must cost its lines, not
		 * the sweep: EPIPE instead of SIGPIPE. */
		struct sigaction ign = {0};
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGPIPE, &ign, &pipe_old);
		pipe_set = true;
	}
	if (c.schedule) {
		/* Each run's schedule is drawn from its own seed, the
		 * campaign's plan: a resumed sweep draws the same ones. */
		if ((rc = tui_campaign_sched(cmd, &c, &sched, err)))
			goto done;
		rep_sched_factory_init(&fac, &sched, NULL, 0);
		hooks.sched = &fac.maker;
	}
	start_line(&ui, &c, resume != NULL,
		   db_path_choose(tui_opt_value(cmd, a, "--db")));
	tui_sigint_stops(&old);
	st = det_sweep_slice(d, p, &c, lo, hi, &hooks, &e);
	sigaction(SIGINT, &old, NULL);
	leave_stream = slice_v && !st;
	if (ui.line_shown)
		fprintf(err, "\r\033[K");
	if (st) {
		end_line(&ui, "error", ui.last.done, ui.last.bugs, e.msg);
		fprintf(err, "heisen sweep: campaign %" PRId64 ": %s\n", c.id,
			e.msg);
		rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
		goto done;
	}
	{
		db_campaign now = {0};
		tui_list l = {.out = out};
		tui_supp_list sl = {
		    .list = &l, .supp = supp, .d = d, .err = &e};
		if ((st = db_campaign_get(d, c.id, &now, &e))) {
			end_line(&ui, "error", ui.last.done, ui.last.bugs,
				 e.msg);
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		end_line(&ui, now.status, now.done, now.bugs, NULL);
		if (ui.em.fmt) {
			/* The campaign's bugs: those the gate judges. */
			tui_emit_end end = {.campaign = now.id,
					    .status = now.status,
					    .ran = true};
			l.em = &ui.em;
			tui_emit_program(&ui.em, p->name);
			if (!(st = db_bug_list_campaign(
				  d, now.id, tui_supp_bug_row, &sl, &e)) &&
			    !(st = sl.st)) {
				end.suppressed = sl.suppressed;
				st = tui_emit_close(&ui.em, &end, &e);
			}
			sl.st = st;
		} else if (json) {
			tui_json j;
			char hex[20];
			tui_json_init(&j, out);
			tui_json_obj(&j, NULL);
			tui_json_str(&j, "schema", "heisen.sweep/1");
			tui_json_i64(&j, "campaign", now.id);
			tui_json_str(&j, "program", p->name);
			tui_json_str(&j, "status", now.status);
			tui_json_u64(&j, "planned", now.planned);
			tui_json_u64(&j, "done", now.done);
			tui_json_u64(&j, "cells", now.cells);
			tui_json_u64(&j, "campaign_bugs", now.bugs);
			snprintf(hex, sizeof hex, "%016" PRIx64, now.seed);
			tui_json_str(&j, "seed", hex);
			/* Only what this invocation ran (not earlier, resumed
			 * parts). */
			tui_json_obj(&j, "statuses");
			for (int s = DET_OK; s <= DET_ERROR; s++)
				tui_json_u64(&j, det_status_name((det_status)s),
					     ui.last.by_status[s]);
			tui_json_end(&j, '}');
			tui_reasons_json(&j, &ui.why);
			tui_json_arr(&j, "program_bugs");
			l.j = &j;
			db_bug_list(d, now.program_id, tui_supp_bug_row, &sl,
				    &e);
			tui_json_end(&j, ']');
			tui_supp_json(&j, supp, sl.suppressed);
			tui_benign_json(&j, ui.last.benign,
					ui.last.benign_runs);
			tui_json_end(&j, '}');
			tui_json_done(&j);
		} else {
			fprintf(out,
				"campaign %" PRId64 " (%s): %" PRIu64
				" runs%s, %" PRIu64 " cells, %" PRIu64
				" bugs; seed 0x%016" PRIx64 "\n",
				now.id, now.status, now.done,
				!strcmp(now.status, "done") ? "" : " so far",
				now.cells, now.bugs, now.seed);
			for (int s = DET_EXIT; s <= DET_ERROR; s++)
				if (ui.last.by_status[s])
					fprintf(out,
						"  %" PRIu64
						" run%s ended with "
						"status %s\n",
						ui.last.by_status[s],
						ui.last.by_status[s] == 1 ? ""
									  : "s",
						det_status_name((det_status)s));
			tui_reasons_print(out, &ui.why);
			if (strcmp(now.status, "done"))
				fprintf(out,
					"resume with: heisen sweep "
					"--resume %" PRId64 "\n",
					now.id);
			fprintf(out, "bugs of %s (all campaigns):\n", p->name);
			db_bug_list(d, now.program_id, tui_supp_bug_row, &sl,
				    &e);
			if (!l.n)
				fprintf(out, "  none\n");
			tui_supp_print(out, supp, sl.suppressed, "bug",
				       "'heisen bugs --show-suppressed' lists "
				       "them");
			tui_benign_print(out, ui.last.benign,
					 ui.last.benign_runs, ui.last.done);
		}
		/* Only the campaign's bugs count, suppressed ones aside. */
		uint64_t failing = 0;
		if (!sl.st)
			sl.st = tui_gate_campaign(d, c.id, supp, gate, &failing,
						  &e);
		if (sl.st)
			fprintf(err, "heisen sweep: %s\n", e.msg);
		rc = sl.st		   ? tui_exit_for(sl.st)
		     : det_sweep_stopped() ? SWEEP_EXIT_INTERRUPTED
		     : failing		   ? TUI_EXIT_FINDINGS
					   : TUI_EXIT_OK;
		db_campaign_clear(&now);
	}
done:
	tui_emit_fini(&ui.em);
	progress_finish(&ui.po);
	if (pipe_set)
		sigaction(SIGPIPE, &pipe_old, NULL);
	db_program_clear(&prog);
	db_campaign_clear(&c);
	det_prog_free(p);
	det_supp_free(supp);
	if (leave_stream)
		tui_slurm_stream_close(d, err);
	else if (d)
		db_close(d);
	return rc;
}

/* ---- heisen shared
 * ------------------------------------------------------------- */

int tui_cmd_shared(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *v;
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	uint32_t runs = 5, jobs, n = 0;
	det_prog *p = NULL;
	uint8_t *shared = NULL;
	const char **argv = NULL;
	double timeout;
	wasm_err e;
	int rc;

	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !tui_parse_u32(v, 1, 1000000, &runs)) {
		fprintf(err,
			"heisen shared: --runs expects 1 to 1000000, got "
			"'%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_opt_workers(cmd, a, &jobs, &timeout, err)))
		return rc;
	if ((rc = tui_load_prog(a->operands[0], &p, err)))
		return rc;
	shared = wasm_calloc(p->sites.nsites + 1, 1);
	argv = malloc((size_t)a->noperands * sizeof *argv);
	if (!shared || !argv) {
		fprintf(err, "heisen shared: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	argv[0] = p->name;
	for (int i = 1; i < a->noperands; i++)
		argv[i] = a->operands[i];
	if (det_shared_sites(p, argv, (uint32_t)a->noperands, NULL, 0, NULL,
			     runs, jobs, timeout, shared, &e)) {
		fprintf(err, "heisen shared: %s: %s\n", a->operands[0], e.msg);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	for (uint32_t i = 0; i < p->sites.nsites; i++)
		n += shared[i] != 0;
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.shared/1");
		tui_json_str(&j, "file", a->operands[0]);
		tui_json_u64(&j, "runs", runs);
		tui_json_u64(&j, "sites", p->sites.nsites);
		tui_json_arr(&j, "shared");
		for (uint32_t i = 0; i < p->sites.nsites; i++) {
			if (!shared[i])
				continue;
			tui_json_obj(&j, NULL);
			tui_json_prog_site(&j, p, i);
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out,
			"%u of %u sites touched memory shared between "
			"threads in %u runs:\n",
			n, p->sites.nsites, runs);
		for (uint32_t i = 0; i < p->sites.nsites; i++) {
			char s[300];
			if (!shared[i])
				continue;
			tui_prog_site_text(p, i, s, sizeof s);
			fprintf(out, "  %-6u %-12s %s\n", i,
				rw_kind_name(p->sites.sites[i].kind), s);
		}
	}
	rc = TUI_EXIT_OK;
done:
	free(argv);
	wasm_free(shared);
	det_prog_free(p);
	return rc;
}
