/*
 * cmd_detect.c - the detector's commands: `heisen run` under a mask
 * (--density / --mask), `heisen sweep` and `heisen shared`. The work is
 * in detector/; this file turns options into a campaign and prints.
 */
#include "cli.h"
#include "jsonw.h"

#include "db/db.h"
#include "detector/campaign.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Exit status of a sweep stopped by Ctrl-C: what a shell reports for a
 * job ended by SIGINT. */
enum { SWEEP_EXIT_INTERRUPTED = 130 };

static bool parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long k;

	if (!v || !*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	k = strtoull(v, &end, 0);
	if (errno || *end || k < lo || k > hi)
		return false;
	*out = (uint32_t)k;
	return true;
}

static bool parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!v || !*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return !errno && !*end;
}

/* "90", "90s", "10m", "2h", "1.5h": seconds. */
static bool parse_duration(const char *v, double *out)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(v, &end);
	if (end == v || errno || !isfinite(s) || s <= 0)
		return false;
	if (*end == 'm')
		s *= 60, end++;
	else if (*end == 'h')
		s *= 3600, end++;
	else if (*end == 's')
		end++;
	*out = s;
	return !*end;
}

static uint64_t random_seed(void)
{
	uint64_t s = 0;

	if (getrandom(&s, sizeof s, 0) != sizeof s)
		s = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^
		    (uint64_t)time(NULL);
	return s;
}

/* `func file:line` of a site of p. */
static void site_text(const det_prog *p, uint32_t site, char *buf, size_t cap)
{
	char fn[128];
	rw_srcpos pos;

	det_prog_site(p, site, fn, sizeof fn, &pos);
	if (pos.file)
		snprintf(buf, cap, "%s %s:%u", fn, pos.file, pos.line);
	else
		snprintf(buf, cap, "%s ?", fn);
}

/* Members of a site object: id, kind, function, file and line (null
 * when unknown). */
static void json_site(tui_json *j, const det_prog *p, uint32_t site)
{
	char fn[128];
	rw_srcpos pos;

	det_prog_site(p, site, fn, sizeof fn, &pos);
	tui_json_u64(j, "site", site);
	tui_json_str(j, "kind", site < p->sites.nsites
				    ? rw_kind_name(p->sites.sites[site].kind)
				    : "?");
	tui_json_str(j, "function", fn);
	if (pos.file) {
		tui_json_str(j, "file", pos.file);
		tui_json_u64(j, "line", pos.line);
	} else {
		tui_json_null(j, "file");
		tui_json_null(j, "line");
	}
}

static int load_prog(const char *path, det_prog **p, FILE *err)
{
	wasm_err e;
	wasm_status st = det_prog_load(path, p, &e);

	if (st) {
		tui_print_err(err, path, &e);
		return tui_exit_for(st);
	}
	return TUI_EXIT_OK;
}

/* ---- heisen run --density / --mask ---------------------------------------- */

int tui_run_masked(const tui_cmd *cmd, const tui_args *a,
		   const wasi_config *base, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	const char *dv = tui_opt_value(cmd, a, "--density");
	const char *mv = tui_opt_value(cmd, a, "--mask");
	const char *sv = tui_opt_value(cmd, a, "--seed");
	const char *pv = tui_opt_value(cmd, a, "--profile");
	const char *delv = tui_opt_value(cmd, a, "--delay");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool fail = tui_opt_value(cmd, a, "--fail-on-bugs") != NULL;
	det_prog *p = NULL;
	uint8_t *mask = NULL;
	uint32_t *dens = NULL, ndens = 0, delay = DET_DEFAULT_DELAY, armed = 0;
	uint64_t seed = 0;
	const det_profile *prof = det_profile_find("default");
	det_run_opts o = {0};
	det_run_result res = {0};
	wasm_err e;
	int rc;

	if (dv && mv) {
		fprintf(err, "heisen run: give --density or --mask, not both\n");
		return TUI_EXIT_USAGE;
	}
	if (sv && !parse_u64(sv, &seed)) {
		fprintf(err, "heisen run: --seed expects a 64-bit number "
			     "(decimal or 0x hex), got '%s'\n", sv);
		return TUI_EXIT_USAGE;
	}
	if (delv && !parse_u32(delv, 0, 100000000, &delay)) {
		fprintf(err, "heisen run: --delay expects a number of spin "
			     "units from 0 to 100000000, got '%s'\n", delv);
		return TUI_EXIT_USAGE;
	}
	if (pv && !(prof = det_profile_find(pv))) {
		fprintf(err, "heisen run: unknown profile '%s' (see 'heisen "
			     "profiles')\n", pv);
		return TUI_EXIT_USAGE;
	}
	if (dv && (det_parse_densities(dv, &dens, &ndens, &e) || ndens != 1)) {
		fprintf(err, "heisen run: --density expects one percentage in "
			     "(0, 100], e.g. 50 or 12.5, got '%s'\n", dv);
		wasm_free(dens);
		return TUI_EXIT_USAGE;
	}
	if (dv && !sv)
		seed = random_seed();
	if ((rc = load_prog(path, &p, err)))
		goto done;
	mask = wasm_calloc(p->sites.nsites ? p->sites.nsites : 1, 1);
	if (!mask) {
		fprintf(err, "heisen run: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	if (mv ? det_mask_read(mv, mask, p->sites.nsites, &e)
	       : det_mask_make(seed, dens[0], NULL, p->sites.nsites, mask,
			       p->sites.nsites, &e)) {
		tui_print_err(err, mv, &e);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	for (uint32_t i = 0; i < p->sites.nsites; i++)
		armed += mask[i] != 0;
	o.algo = DET_RACE;
	o.mask = mask;
	o.delay = delay;
	o.profile = prof;
	o.wasi = base;
	/* With --json, stdout carries the report: the program's output goes
	 * to stderr. */
	fflush(out);
	fflush(err);
	if (det_run(p->cm, &p->sites, &o, &res, &e)) {
		tui_print_err(err, path, &e);
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	if (json) {
		tui_json j;
		char hex[20];
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.run/1");
		tui_json_str(&j, "file", path);
		if (mv) {
			tui_json_str(&j, "mask_file", mv);
		} else {
			tui_json_u64(&j, "density_bp", dens[0]);
			snprintf(hex, sizeof hex, "%016" PRIx64, seed);
			tui_json_str(&j, "seed", hex);
			tui_json_u64(&j, "mask_version", DET_MASK_VERSION);
		}
		tui_json_u64(&j, "sites", p->sites.nsites);
		tui_json_u64(&j, "armed", armed);
		tui_json_u64(&j, "delay", delay);
		tui_json_str(&j, "profile", prof->name);
		tui_json_str(&j, "status", det_status_name(res.status));
		tui_json_i64(&j, "exit_code", res.exit_code);
		tui_json_str(&j, "message", res.msg);
		tui_json_f64(&j, "duration_ms", (double)res.duration_ns / 1e6);
		tui_json_u64(&j, "probes", res.probes);
		tui_json_u64(&j, "dropped", res.dropped);
		tui_json_arr(&j, "violations");
		for (uint32_t i = 0; i < res.nbugs; i++) {
			const det_violation *v = &res.bugs[i];
			tui_json_obj(&j, NULL);
			tui_json_u64(&j, "count", v->count);
			tui_json_arr(&j, "sites");
			for (int k = 0; k < 2; k++) {
				tui_json_obj(&j, NULL);
				json_site(&j, p, v->site[k]);
				tui_json_u64(&j, "thread", v->tid[k]);
				tui_json_u64(&j, "address", v->addr[k]);
				tui_json_end(&j, '}');
			}
			tui_json_end(&j, ']');
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		if (mv)
			fprintf(out, "heisen: mask %s: %u of %u sites armed; ",
				mv, armed, p->sites.nsites);
		else
			fprintf(out,
				"heisen: density %.2f%% seed 0x%016" PRIx64
				": %u of %u sites armed; ",
				dens[0] / 100.0, seed, armed, p->sites.nsites);
		fprintf(out, "%s", det_status_name(res.status));
		if (res.status == DET_OK || res.status == DET_EXIT)
			fprintf(out, " %d", res.exit_code);
		else if (res.msg[0])
			fprintf(out, " (%s)", res.msg);
		fprintf(out, " in %.1f ms, %" PRIu64 " probe calls, %u "
			     "violation%s\n",
			(double)res.duration_ns / 1e6, res.probes, res.nbugs,
			res.nbugs == 1 ? "" : "s");
		for (uint32_t i = 0; i < res.nbugs; i++) {
			const det_violation *v = &res.bugs[i];
			char s0[300], s1[300];
			site_text(p, v->site[0], s0, sizeof s0);
			site_text(p, v->site[1], s1, sizeof s1);
			fprintf(out,
				"  %c/%c  site %u %s (thread %u, 0x%x)\n"
				"       site %u %s (thread %u, 0x%x)  x%" PRIu64
				"\n",
				tui_kind_letter(v->kind[0]), tui_kind_letter(v->kind[1]),
				v->site[0], s0, v->tid[0], v->addr[0],
				v->site[1], s1, v->tid[1], v->addr[1], v->count);
		}
		if (res.dropped)
			fprintf(out, "  (%u more distinct pairs not kept)\n",
				res.dropped);
	}
	switch (res.status) {
	case DET_OK:
	case DET_EXIT: rc = res.exit_code & 0xff; break;
	case DET_TIMEOUT: rc = 124; break;
	case DET_ERROR: rc = TUI_EXIT_USAGE; break;
	default: rc = 134;
	}
	if (fail && res.nbugs && rc == 0)
		rc = TUI_EXIT_FINDINGS;
done:
	det_run_result_free(&res);
	wasm_free(mask);
	wasm_free(dens);
	det_prog_free(p);
	return rc;
}

/* ---- heisen sweep ------------------------------------------------------------ */

typedef struct sweep_ui {
	FILE *out, *err;
	bool tty;
	bool line_shown;
	const det_prog *prog;
	det_progress last; /* of this invocation */
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

static void on_progress(void *ctx, const det_progress *pr)
{
	sweep_ui *u = ctx;
	char eta[32] = "-", el[32];

	u->last = *pr;
	if (!u->tty)
		return;
	fmt_hms(pr->elapsed_s, el, sizeof el);
	if (pr->planned && pr->runs_per_s > 0)
		fmt_hms((double)(pr->planned - pr->done) / pr->runs_per_s,
			eta, sizeof eta);
	else if (pr->budget_s > 0)
		fmt_hms(pr->budget_s > pr->elapsed_s
			    ? pr->budget_s - pr->elapsed_s
			    : 0,
			eta, sizeof eta);
	const char *bugs = pr->bugs == 1 ? "bug" : "bugs";
	if (pr->planned)
		fprintf(u->err, "\r\033[Ksweep: %" PRIu64 "/%" PRIu64
				" runs  %.0f runs/s  %" PRIu64
				" %s  %s elapsed  ETA %s",
			pr->done, pr->planned, pr->runs_per_s, pr->bugs, bugs,
			el, eta);
	else
		fprintf(u->err, "\r\033[Ksweep: %" PRIu64
				" runs  %.0f runs/s  %" PRIu64
				" %s  %s elapsed  %s left",
			pr->done, pr->runs_per_s, pr->bugs, bugs, el, eta);
	fflush(u->err);
	u->line_shown = true;
}

static void on_bug(void *ctx, const db_hit *h)
{
	sweep_ui *u = ctx;
	char s0[300], s1[300];

	if (!u->tty)
		return;
	site_text(u->prog, h->site[0].id, s0, sizeof s0);
	site_text(u->prog, h->site[1].id, s1, sizeof s1);
	fprintf(u->err, "\r\033[Knew bug: %c/%c %s <-> %s\n",
		tui_kind_letter(h->site[0].kind), tui_kind_letter(h->site[1].kind),
		s0, s1);
}

static void on_sigint(int sig)
{
	det_sweep_stop();
}

/* Fill a new campaign from the options; returns an exit code. */
static int plan_campaign(const tui_cmd *cmd, const tui_args *a, det_prog *p,
			 db_campaign *c, FILE *err)
{
	const char *v;
	wasm_err e;
	const det_profile **profs = NULL;
	uint32_t nprofs = 0;
	size_t alen = 0;

	c->densities = strdup((v = tui_opt_value(cmd, a, "--densities"))
				  ? v
				  : "5:100:5");
	c->profiles = strdup((v = tui_opt_value(cmd, a, "--profiles"))
				 ? v
				 : "default");
	if (!c->densities || !c->profiles)
		goto oom;
	if (det_parse_densities(c->densities, &c->density_bp, &c->ndensity,
				&e) ||
	    det_parse_profiles(c->profiles, &profs, &nprofs, &e)) {
		fprintf(err, "heisen sweep: %s\n", e.msg);
		return TUI_EXIT_USAGE;
	}
	wasm_free(profs);
	c->runs = 0;
	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !parse_u32(v, 1, 100000000, &c->runs)) {
		fprintf(err, "heisen sweep: --runs expects a number of runs "
			     "per cell from 1 to 100000000, got '%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	if ((v = tui_opt_value(cmd, a, "--budget")) &&
	    !parse_duration(v, &c->budget_s)) {
		fprintf(err, "heisen sweep: --budget expects a duration such "
			     "as 90s, 10m or 2h, got '%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	if (!c->runs && c->budget_s <= 0)
		c->runs = 20;
	c->planned = c->runs ? (uint64_t)c->runs * c->ndensity * nprofs : 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	if ((v = tui_opt_value(cmd, a, "--jobs")) &&
	    !parse_u32(v, 1, 256, &c->jobs)) {
		fprintf(err, "heisen sweep: --jobs expects 1 to 256, got "
			     "'%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	c->seed = random_seed();
	if ((v = tui_opt_value(cmd, a, "--seed")) && !parse_u64(v, &c->seed)) {
		fprintf(err, "heisen sweep: --seed expects a 64-bit number "
			     "(decimal or 0x hex), got '%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	c->delay = DET_DEFAULT_DELAY;
	if ((v = tui_opt_value(cmd, a, "--delay")) &&
	    !parse_u32(v, 0, 100000000, &c->delay)) {
		fprintf(err, "heisen sweep: --delay expects a number of spin "
			     "units from 0 to 100000000, got '%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	c->timeout_s = 10;
	if ((v = tui_opt_value(cmd, a, "--timeout")) &&
	    !parse_duration(v, &c->timeout_s)) {
		fprintf(err, "heisen sweep: --timeout expects a duration such "
			     "as 5 or 30s, got '%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	/* Program arguments: the operands after FILE.wasm. */
	c->nargs = (uint32_t)(a->noperands - 1);
	for (int i = 1; i < a->noperands; i++)
		alen += strlen(a->operands[i]) + 1;
	if (!(c->args = malloc(alen ? alen : 1)))
		goto oom;
	for (int i = 1, at = 0; i < a->noperands; i++) {
		size_t l = strlen(a->operands[i]) + 1;
		memcpy(c->args + at, a->operands[i], l);
		at += (int)l;
	}
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
		if (det_shared_sites(p, argv, (uint32_t)a->noperands, runs,
				     c->jobs, c->timeout_s, shared, &e)) {
			fprintf(err, "heisen sweep: --prune: %s\n", e.msg);
			wasm_free(shared);
			free(argv);
			return det_sweep_stopped() ? SWEEP_EXIT_INTERRUPTED
						   : TUI_EXIT_USAGE;
		}
		free(argv);
		c->pruned = wasm_malloc((p->sites.nsites + 1) *
					sizeof *c->pruned);
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

int tui_cmd_sweep(const tui_cmd *cmd, const tui_args *a, FILE *out,
		  FILE *err)
{
	const char *resume = tui_opt_value(cmd, a, "--resume");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool fail = tui_opt_value(cmd, a, "--fail-on-bugs") != NULL;
	db *d = NULL;
	det_prog *p = NULL;
	db_campaign c = {0};
	db_program prog = {0};
	wasm_err e;
	int rc;
	int64_t pid;
	struct sigaction sa = {0}, old;
	sweep_ui ui = {out, err, false, false, NULL, {0}};
	det_sweep_hooks hooks = {on_progress, on_bug, &ui};
	wasm_status st;

	if (!resume && a->noperands < 1) {
		fprintf(err, "heisen sweep: missing FILE.wasm (or --resume "
			     "CAMPAIGN); usage: heisen sweep %s\n", cmd->usage);
		return TUI_EXIT_USAGE;
	}
	if (resume) {
		static const char *const plan_opts[] = {
		    "--densities", "--runs",  "--budget", "--profiles",
		    "--seed",      "--delay", "--prune",  "--timeout"};
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
	if (resume) {
		uint64_t id;
		if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
			return rc;
		const char *jv = tui_opt_value(cmd, a, "--jobs");
		if (!parse_u64(resume, &id) || id > INT64_MAX) {
			fprintf(err, "heisen sweep: --resume expects a campaign "
				     "id, got '%s'\n", resume);
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
			fprintf(err, "heisen sweep: campaign %" PRId64
				     " is already complete (%" PRIu64
				     " runs)\n", c.id, c.done);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if (jv && !parse_u32(jv, 1, 256, &c.jobs)) {
			fprintf(err, "heisen sweep: --jobs expects 1 to 256, "
				     "got '%s'\n", jv);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if ((rc = load_prog(prog.path, &p, err)))
			goto done;
		if (p->sites.hash != prog.hash) {
			fprintf(err, "heisen sweep: %s has changed since "
				     "campaign %" PRId64 " ran it (hash %016"
				     PRIx64 ", now %016" PRIx64 ")\n",
				prog.path, c.id, prog.hash, p->sites.hash);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
	} else {
		if ((rc = load_prog(a->operands[0], &p, err)))
			goto done;
		if ((rc = plan_campaign(cmd, a, p, &c, err)))
			goto done;
		/* Only now: bad input must not leave an empty workspace. */
		if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
			goto done;
		char *abs = realpath(p->path, NULL);
		st = db_program_put(d, p->sites.hash, p->name,
				    abs ? abs : p->path, p->sites.nsites, &pid,
				    &e);
		free(abs);
		if (!st) {
			c.program_id = pid;
			st = db_node_self(d, &c.node_id, &e);
		}
		if (!st)
			st = db_campaign_new(d, &c, &e);
		if (st) {
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
	}
	ui.prog = p;
	ui.tty = !json && isatty(fileno(err));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	st = det_sweep(d, p, &c, &hooks, &e);
	sigaction(SIGINT, &old, NULL);
	if (ui.line_shown)
		fprintf(err, "\r\033[K");
	if (st) {
		fprintf(err, "heisen sweep: campaign %" PRId64 ": %s\n", c.id,
			e.msg);
		rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
		goto done;
	}
	{
		db_campaign now = {0};
		if ((st = db_campaign_get(d, c.id, &now, &e))) {
			fprintf(err, "heisen sweep: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		if (json) {
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
			tui_json_arr(&j, "program_bugs");
			tui_list l = {&j, out, 0};
			db_bug_list(d, now.program_id, tui_bug_row, &l, &e);
			tui_json_end(&j, ']');
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
			if (strcmp(now.status, "done"))
				fprintf(out, "resume with: heisen sweep "
					     "--resume %" PRId64 "\n", now.id);
			fprintf(out, "bugs of %s (all campaigns):\n", p->name);
			tui_list l = {NULL, out, 0};
			db_bug_list(d, now.program_id, tui_bug_row, &l, &e);
			if (!l.n)
				fprintf(out, "  none\n");
		}
		rc = det_sweep_stopped() ? SWEEP_EXIT_INTERRUPTED
		     : fail && now.bugs ? TUI_EXIT_FINDINGS
					: TUI_EXIT_OK;
		db_campaign_clear(&now);
	}
done:
	db_program_clear(&prog);
	db_campaign_clear(&c);
	det_prog_free(p);
	if (d)
		db_close(d);
	return rc;
}

/* ---- heisen shared ------------------------------------------------------------- */

int tui_cmd_shared(const tui_cmd *cmd, const tui_args *a, FILE *out,
		   FILE *err)
{
	const char *v;
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	uint32_t runs = 5, jobs, n = 0;
	det_prog *p = NULL;
	uint8_t *shared = NULL;
	const char **argv = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double timeout = 10;
	wasm_err e;
	int rc;

	jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !parse_u32(v, 1, 1000000, &runs)) {
		fprintf(err, "heisen shared: --runs expects 1 to 1000000, got "
			     "'%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	if ((v = tui_opt_value(cmd, a, "--jobs")) &&
	    !parse_u32(v, 1, 256, &jobs)) {
		fprintf(err, "heisen shared: --jobs expects 1 to 256, got "
			     "'%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	if ((v = tui_opt_value(cmd, a, "--timeout")) &&
	    !parse_duration(v, &timeout)) {
		fprintf(err, "heisen shared: --timeout expects a duration such "
			     "as 5 or 30s, got '%s'\n", v);
		return TUI_EXIT_USAGE;
	}
	if ((rc = load_prog(a->operands[0], &p, err)))
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
	if (det_shared_sites(p, argv, (uint32_t)a->noperands, runs, jobs,
			     timeout, shared, &e)) {
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
			json_site(&j, p, i);
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out, "%u of %u sites touched memory shared between "
			     "threads in %u runs:\n",
			n, p->sites.nsites, runs);
		for (uint32_t i = 0; i < p->sites.nsites; i++) {
			char s[300];
			if (!shared[i])
				continue;
			site_text(p, i, s, sizeof s);
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
