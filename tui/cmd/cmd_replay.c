/*
 * cmd_replay.c - `heisen replay` (a logged race again: pinned, minimal or
 * trigger mode, a rate with its interval, repro files), `heisen mask
 * save` (the exact mask of a recorded run, as a mask file) and `heisen
 * minimize` (the delay sites that elicit a failure).
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"
#include "replay/minimize.h"
#include "replay/replay.h"
#include "replay/shrink.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Exit status of a replay stopped by Ctrl-C, as a shell reports SIGINT. */
enum { REPLAY_EXIT_INTERRUPTED = 130 };

/* Progress on stderr: a line redrawn in place on a terminal, or with
 * --progress a line per tenth of the runs (what the TUI shows). */
typedef struct replay_ui {
	FILE *err;
	bool tty;
	uint32_t planned;
	uint32_t done, reproduced;
	bool shown;
} replay_ui;

static bool on_run(void *ctx, const rep_run *r)
{
	replay_ui *u = ctx;
	uint32_t step = u->planned >= 10 ? u->planned / 10 : 1;

	u->done++;
	u->reproduced += r->reproduced;
	if (!u->tty && u->done % step && u->done != u->planned)
		return true;
	fprintf(u->err, "%sreplay: %u/%u runs, %u reproduced (%.1f %%)%s",
		u->tty ? "\r\033[K" : "", u->done, u->planned, u->reproduced,
		100.0 * u->reproduced / u->done, u->tty ? "" : "\n");
	fflush(u->err);
	u->shown = u->tty;
	return true;
}

static void print_pct(FILE *f, uint64_t k, uint64_t n)
{
	double lo, hi;

	rep_wilson((uint32_t)k, (uint32_t)n, &lo, &hi);
	fprintf(f,
		"%" PRIu64 " of %" PRIu64 " runs: %.1f %% (95 %% interval "
		"%.1f-%.1f %%)",
		k, n, 100.0 * (double)k / (double)n, 100 * lo, 100 * hi);
}

/* k of n runs as JSON: runs, `what` (k), rate and its interval. */
static void json_rate(tui_json *j, const char *what, uint64_t k, uint64_t n)
{
	double lo, hi;

	tui_json_u64(j, "runs", n);
	tui_json_u64(j, what, k);
	if (!n) {
		tui_json_null(j, "rate");
		tui_json_null(j, "interval");
		return;
	}
	rep_wilson((uint32_t)k, (uint32_t)n, &lo, &hi);
	tui_json_f64(j, "rate", (double)k / (double)n);
	tui_json_arr(j, "interval");
	tui_json_f64(j, NULL, lo);
	tui_json_f64(j, NULL, hi);
	tui_json_end(j, ']');
}

/* What a replay prints; cell_n 0: no original cell (a repro file). */
typedef struct replay_report {
	const rep_spec *s;
	const rep_result *res;
	const char *path;  /* the program */
	const char *saved; /* --save, or NULL */
	uint64_t cell_k, cell_n;
	rep_mode file_mode; /* with --file: the mode the file was saved in */
	bool any_address;   /* --any-address */
	const rep_shrink_result *shrunk; /* --save of a schedule, or NULL */
	bool from_file;			 /* --file */
	/* The schedule replayed, before --save shrank the spec's. */
	size_t ndec;
	uint64_t points, digest;
	uint32_t switches;
} replay_report;

/* A schedule replay's own lines: what it followed, whether each run took
 * the recorded path, and what --save shrank. */
static void print_schedule(const replay_report *r, FILE *out)
{
	const rep_spec *s = r->s;
	const rep_result *res = r->res;
	char name[64];

	rep_sched_name(&s->sched, name, sizeof name);
	fprintf(out,
		"mode schedule: %s, seed 0x%016" PRIx64 ", %zu decisions%s; "
		"recorded %" PRIu64 " points, %u switches, digest %016" PRIx64
		"\n",
		name, s->sched.seed, r->ndec,
		s->has_dec ? "" : " (made again from the seed)", r->points,
		r->switches, r->digest);
	if (res->runs && !res->diverged)
		fprintf(out,
			"digest: every run took the recorded path (%u of "
			"%u)\n",
			res->runs, res->runs);
	else if (res->diverged) {
		fprintf(out,
			"DIVERGED in %u of %u runs: the first took %" PRIu64
			" points, digest %016" PRIx64,
			res->diverged, res->runs, res->div_points,
			res->div_digest);
		if (res->div_at != UINT64_MAX)
			fprintf(out,
				", and could not follow the decision at "
				"point %" PRIu64,
				res->div_at);
		fprintf(out, ": the program, its arguments or its input are "
			     "not the recorded ones\n");
	}
	if (r->shrunk)
		fprintf(out,
			"shrunk for --save: %zu decisions (%u switches) -> %zu "
			"(%u switches) in %u runs%s\n",
			r->shrunk->before, r->shrunk->switches_before,
			r->shrunk->after, r->shrunk->switches_after,
			r->shrunk->tests,
			r->shrunk->complete ? "" : " (budget reached)");
}

static void json_schedule(tui_json *j, const replay_report *r)
{
	const rep_spec *s = r->s;
	const rep_result *res = r->res;
	char name[64], hex[24];

	if (s->mode != REP_SCHEDULE) {
		tui_json_null(j, "schedule");
		return;
	}
	tui_json_obj(j, "schedule");
	rep_sched_name(&s->sched, name, sizeof name);
	tui_json_str(j, "strategy", name);
	snprintf(hex, sizeof hex, "%016" PRIx64, s->sched.seed);
	tui_json_str(j, "seed", hex);
	tui_json_u64(j, "decisions", r->ndec);
	tui_json_u64(j, "points", r->points);
	tui_json_u64(j, "switches", r->switches);
	snprintf(hex, sizeof hex, "%016" PRIx64, r->digest);
	tui_json_str(j, "digest", hex);
	tui_json_u64(j, "diverged", res->diverged);
	if (res->diverged) {
		tui_json_obj(j, "divergence");
		tui_json_u64(j, "points", res->div_points);
		snprintf(hex, sizeof hex, "%016" PRIx64, res->div_digest);
		tui_json_str(j, "digest", hex);
		if (res->div_at != UINT64_MAX)
			tui_json_u64(j, "at", res->div_at);
		else
			tui_json_null(j, "at");
		tui_json_end(j, '}');
	} else {
		tui_json_null(j, "divergence");
	}
	if (r->shrunk) {
		tui_json_obj(j, "shrunk");
		tui_json_u64(j, "decisions_before", r->shrunk->before);
		tui_json_u64(j, "decisions_after", r->shrunk->after);
		tui_json_u64(j, "switches_before", r->shrunk->switches_before);
		tui_json_u64(j, "switches_after", r->shrunk->switches_after);
		tui_json_u64(j, "runs", r->shrunk->tests);
		tui_json_bool(j, "complete", r->shrunk->complete);
		tui_json_end(j, '}');
	} else {
		tui_json_null(j, "shrunk");
	}
	tui_json_end(j, '}');
}

static void print_plain(const replay_report *r, FILE *out)
{
	const rep_spec *s = r->s;
	const rep_result *res = r->res;
	char a[512], b[512], dens[16];

	if (s->whole_run) {
		fprintf(out, "replay of run %" PRId64 " (%s %d%s%s) in %s\n",
			s->run_id, det_status_name(s->status), s->exit_code,
			s->failure ? ", failure " : "",
			s->failure ? s->failure : "", r->path);
	} else if (s->mode == REP_FAILURE) {
		fprintf(out, "replay of failure %s with delays at site%s",
			s->failure, s->ndelay == 1 ? "" : "s");
		for (uint32_t i = 0; i < s->ndelay; i++)
			fprintf(out, " %u", s->delay_sites[i]);
		fprintf(out, " in %s\n", r->path);
		if (s->has_sched) {
			char name[64];
			rep_sched_name(&s->sched, name, sizeof name);
			fprintf(out,
				"serial runs under %s, schedules drawn from "
				"seed 0x%016" PRIx64 "\n",
				name, s->sched.seed);
		}
	} else {
		tui_fmt_site(&s->site[0], a, sizeof a);
		tui_fmt_site(&s->site[1], b, sizeof b);
		fprintf(out, "replay of ");
		if (s->bug_id)
			fprintf(out, "bug %" PRId64 " ", s->bug_id);
		fprintf(out, "(%c/%c: site %u %s <-> site %u %s) in %s\n",
			tui_kind_letter(s->site[0].kind),
			tui_kind_letter(s->site[1].kind), s->site[0].id, a,
			s->site[1].id, b, r->path);
	}
	tui_fmt_density(s->density_bp, dens, sizeof dens);
	if (s->mode == REP_SCHEDULE)
		print_schedule(r, out);
	else
		fprintf(out, "mode %s: %u sites armed", rep_mode_name(s->mode),
			res->armed);
	if (s->mode == REP_PINNED)
		fprintf(out, " (density %s, mask seed %016" PRIx64 ")", dens,
			s->seed);
	if (s->mode == REP_TRIGGER)
		fprintf(out, ", breakpoint hold %.1f ms",
			(double)s->hold_ns / 1e6);
	if (s->mode == REP_TRIGGER && s->has_addr && !r->any_address)
		fprintf(out, " at 0x%x/0x%x", s->addr[0], s->addr[1]);
	if (s->mode != REP_SCHEDULE)
		fprintf(out, "; profile %s, delay %u\n",
			s->profile ? s->profile : "default", s->delay);
	if (!res->runs) {
		fprintf(out, "no run finished\n");
	} else if (res->diverged < res->runs) {
		fprintf(out, "reproduced in ");
		print_pct(out, res->reproduced, res->runs);
		fputc('\n', out);
	}
	if (r->cell_n) {
		fprintf(out, "original cell (%s, %s): detected in ",
			s->profile ? s->profile : "default", dens);
		print_pct(out, r->cell_k, r->cell_n);
		fputc('\n', out);
	} else if (s->runs && r->from_file) {
		fprintf(out, "when the repro file was saved (mode %s): ",
			rep_mode_name(r->file_mode));
		print_pct(out, s->reproduced, s->runs);
		fputc('\n', out);
	}
	if (s->mode == REP_TRIGGER)
		fprintf(out,
			"breakpoint: threads met in %u runs, %" PRIu64
			" waits\n",
			res->met, res->holds);
	if (res->first_index >= 0 && (s->mode == REP_FAILURE || s->whole_run))
		fprintf(out, "first %s: run %" PRId64 "\n",
			s->failure ? "failure" : "reproduction",
			res->first_index);
	else if (res->first_index >= 0)
		fprintf(out,
			"first reproduction: run %" PRId64
			", threads %u %u, addresses 0x%x 0x%x\n",
			res->first_index, res->first_tid[0], res->first_tid[1],
			res->first_addr[0], res->first_addr[1]);
	for (int st = DET_EXIT; st <= DET_ERROR; st++)
		if (res->by_status[st])
			fprintf(out, "%u runs ended %s\n", res->by_status[st],
				det_status_name((det_status)st));
	if (res->stopped)
		fprintf(out, "stopped by Ctrl-C after %u runs\n", res->runs);
	if (r->saved)
		fprintf(out, "saved %s: heisen replay --file %s %s\n", r->saved,
			r->saved, r->path);
}

static void print_json(const replay_report *r, FILE *out)
{
	const rep_spec *s = r->s;
	const rep_result *res = r->res;
	tui_json j;
	char hex[24];

	tui_json_init(&j, out);
	tui_json_obj(&j, NULL);
	tui_json_str(&j, "schema", "heisen.replay/1");
	tui_json_str(&j, "program", r->path);
	snprintf(hex, sizeof hex, "%016" PRIx64, s->program_hash);
	tui_json_str(&j, "program_hash", hex);
	if (s->bug_id)
		tui_json_i64(&j, "bug", s->bug_id);
	else
		tui_json_null(&j, "bug");
	if (s->run_id)
		tui_json_i64(&j, "run", s->run_id);
	else
		tui_json_null(&j, "run");
	tui_json_arr(&j, "sites");
	for (int i = 0; i < 2 && s->mode != REP_FAILURE && !s->whole_run; i++) {
		tui_json_obj(&j, NULL);
		tui_json_site(&j, &s->site[i]);
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	if (s->mode == REP_FAILURE) {
		tui_json_str(&j, "failure", s->failure);
		tui_json_arr(&j, "delay_sites");
		for (uint32_t i = 0; i < s->ndelay; i++)
			tui_json_u64(&j, NULL, s->delay_sites[i]);
		tui_json_end(&j, ']');
	} else {
		tui_json_null(&j, "failure");
		tui_json_null(&j, "delay_sites");
	}
	if (s->mode == REP_FAILURE && s->has_sched) {
		char name[64];
		rep_sched_name(&s->sched, name, sizeof name);
		tui_json_obj(&j, "serial");
		tui_json_str(&j, "strategy", name);
		snprintf(hex, sizeof hex, "%016" PRIx64, s->sched.seed);
		tui_json_str(&j, "seed", hex);
		tui_json_end(&j, '}');
	} else {
		tui_json_null(&j, "serial");
	}
	tui_json_str(&j, "mode", rep_mode_name(s->mode));
	tui_json_u64(&j, "armed", res->armed);
	tui_json_u64(&j, "density_bp", s->density_bp);
	snprintf(hex, sizeof hex, "%016" PRIx64, s->seed);
	tui_json_str(&j, "seed", hex);
	tui_json_str(&j, "profile", s->profile ? s->profile : "default");
	tui_json_u64(&j, "delay", s->delay);
	if (s->mode == REP_TRIGGER)
		tui_json_u64(&j, "hold_us", s->hold_ns / 1000);
	else
		tui_json_null(&j, "hold_us");
	if (s->mode == REP_TRIGGER && s->has_addr && !r->any_address) {
		tui_json_arr(&j, "hold_addresses");
		tui_json_u64(&j, NULL, s->addr[0]);
		tui_json_u64(&j, NULL, s->addr[1]);
		tui_json_end(&j, ']');
	} else {
		tui_json_null(&j, "hold_addresses");
	}
	json_rate(&j, "reproduced", res->reproduced, res->runs);
	if (r->cell_n) {
		tui_json_obj(&j, "original");
		tui_json_str(&j, "profile",
			     s->profile ? s->profile : "default");
		tui_json_u64(&j, "density_bp", s->density_bp);
		json_rate(&j, "detected", r->cell_k, r->cell_n);
		tui_json_end(&j, '}');
	} else {
		tui_json_null(&j, "original");
	}
	if (s->runs && r->from_file) {
		tui_json_obj(&j, "when_saved");
		tui_json_str(&j, "mode", rep_mode_name(r->file_mode));
		json_rate(&j, "reproduced", s->reproduced, s->runs);
		tui_json_end(&j, '}');
	} else {
		tui_json_null(&j, "when_saved");
	}
	if (s->mode == REP_TRIGGER) {
		tui_json_u64(&j, "met", res->met);
		tui_json_u64(&j, "holds", res->holds);
	}
	json_schedule(&j, r);
	if (res->first_index >= 0 && (s->mode == REP_FAILURE || s->whole_run)) {
		tui_json_obj(&j, "first");
		tui_json_i64(&j, "index", res->first_index);
		tui_json_end(&j, '}');
	} else if (res->first_index >= 0) {
		tui_json_obj(&j, "first");
		tui_json_i64(&j, "index", res->first_index);
		tui_json_arr(&j, "threads");
		tui_json_u64(&j, NULL, res->first_tid[0]);
		tui_json_u64(&j, NULL, res->first_tid[1]);
		tui_json_end(&j, ']');
		tui_json_arr(&j, "addresses");
		tui_json_u64(&j, NULL, res->first_addr[0]);
		tui_json_u64(&j, NULL, res->first_addr[1]);
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
	} else {
		tui_json_null(&j, "first");
	}
	tui_json_obj(&j, "statuses");
	for (int st = DET_OK; st <= DET_ERROR; st++)
		tui_json_u64(&j, det_status_name((det_status)st),
			     res->by_status[st]);
	tui_json_end(&j, '}');
	tui_json_bool(&j, "stopped", res->stopped);
	if (r->saved)
		tui_json_str(&j, "saved", r->saved);
	else
		tui_json_null(&j, "saved");
	tui_json_end(&j, '}');
	tui_json_done(&j);
}

int tui_cmd_replay(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *modev = tui_opt_value(cmd, a, "--mode");
	const char *runsv = tui_opt_value(cmd, a, "--runs");
	const char *jobsv = tui_opt_value(cmd, a, "--jobs");
	const char *holdv = tui_opt_value(cmd, a, "--hold");
	const char *save = tui_opt_value(cmd, a, "--save");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool force = tui_opt_value(cmd, a, "--force") != NULL;
	rep_spec s = {0};
	rep_result res = {0};
	rep_opts o = {0};
	replay_ui ui = {0};
	replay_report rp = {0};
	rep_shrink_result shrunk;
	det_prog *p = NULL;
	db *d = NULL;
	const char *path = NULL;
	struct sigaction old;
	wasm_err e;
	wasm_status st;
	uint32_t runs = 100, jobs;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int rc;

	jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	if (runsv && !tui_parse_u32(runsv, 1, 10000000, &runs)) {
		fprintf(err,
			"heisen replay: --runs expects 1 to 10000000, got "
			"'%s'\n",
			runsv);
		return TUI_EXIT_USAGE;
	}
	if (jobsv && !tui_parse_u32(jobsv, 1, 256, &jobs)) {
		fprintf(err,
			"heisen replay: --jobs expects 1 to 256, got "
			"'%s'\n",
			jobsv);
		return TUI_EXIT_USAGE;
	}
	{
		rep_mode m;
		double hold;
		if (modev && !rep_mode_parse(modev, &m)) {
			fprintf(err,
				"heisen replay: --mode is pinned, minimal, "
				"trigger or schedule, not '%s'\n",
				modev);
			return TUI_EXIT_USAGE;
		}
		if (holdv &&
		    (!tui_parse_duration(holdv, &hold) || hold > 3600)) {
			fprintf(err,
				"heisen replay: --hold expects a time "
				"in seconds up to 1h (0.005 or 0.005s "
				"for 5 ms), got '%s'\n",
				holdv);
			return TUI_EXIT_USAGE;
		}
		if ((rc = tui_open_spec(cmd, a, modev && m == REP_SCHEDULE, &s, &d,
				   &path, err)))
			goto out;
		if (tui_opt_value(cmd, a, "--stdin")) {
			uint8_t *in;
			uint32_t nin;
			char *hash;
			if ((rc = tui_opt_stdin(cmd, a, &in, &nin, &hash, err)))
				goto out;
			wasm_free(hash);
			wasm_free(s.input);
			s.input = in;
			s.ninput = nin;
		}
		{
			/* Options given replace what was recorded. */
			wasi_world w;
			if ((rc = tui_opt_world(cmd, a, &s.world, true, &w,
						err)))
				goto out;
			wasi_world_clear(&s.world);
			s.world = w;
		}
		rp.file_mode = s.mode;
		if (modev)
			s.mode = m;
		else if (!tui_opt_value(cmd, a, "--file"))
			s.mode = s.whole_run ? REP_SCHEDULE : REP_TRIGGER;
		if (s.whole_run && s.mode != REP_SCHEDULE) {
			fprintf(err,
				"heisen replay: run %" PRId64 " found no race: "
				"only its schedule replays it (--mode "
				"schedule)\n",
				s.run_id);
			rc = TUI_EXIT_USAGE;
			goto out;
		}
		if (holdv)
			s.hold_ns = (uint64_t)(hold * 1e9);
	}
	if ((st = rep_load_program(&s, path, force, &p, &e))) {
		fputs("heisen replay: ", err);
		tui_print_err(err, path, &e);
		rc = tui_exit_for(st);
		goto out;
	}
	if (d && s.bug_id &&
	    (st = rep_cell(d, &s, &rp.cell_k, &rp.cell_n, &e))) {
		fprintf(err, "heisen replay: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	ui.err = err;
	ui.planned = runs;
	o.runs = runs;
	o.jobs = jobs;
	o.until_first = tui_opt_value(cmd, a, "--until-first") != NULL;
	o.any_address = tui_opt_value(cmd, a, "--any-address") != NULL;
	rp.any_address = o.any_address;
	ui.tty = !json && isatty(fileno(err));
	if (ui.tty || tui_opt_value(cmd, a, "--progress")) {
		o.on_run = on_run;
		o.ctx = &ui;
	}
	tui_sigint_stops(&old);
	st = rep_replay(&s, p, &o, &res, &e);
	sigaction(SIGINT, &old, NULL);
	if (ui.shown)
		fprintf(err, "\r\033[K");
	if (st) {
		fprintf(err, "heisen replay: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	rp.ndec = s.ndec;
	rp.points = s.points;
	rp.digest = s.digest;
	rp.switches = s.switches;
	rp.from_file = tui_opt_value(cmd, a, "--file") != NULL;
	if (save && res.runs && s.mode == REP_SCHEDULE && !res.diverged &&
	    res.reproduced && !tui_opt_value(cmd, a, "--no-shrink")) {
		if ((st = rep_shrink(&s, p, NULL, &shrunk, &e))) {
			fprintf(err,
				"heisen replay: shrinking the schedule: %s\n",
				e.msg);
			rc = tui_exit_for(st);
			goto out;
		}
		rp.shrunk = &shrunk;
	}
	if (save && res.runs) {
		s.runs = res.runs;
		s.reproduced = res.reproduced;
		if ((st = rep_write(save, &s, &e))) {
			fprintf(err, "heisen replay: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto out;
		}
		rp.saved = save;
	}
	rp.s = &s;
	rp.res = &res;
	rp.path = path;
	if (json)
		print_json(&rp, out);
	else
		print_plain(&rp, out);
	if (res.diverged)
		fprintf(err,
			"heisen replay: the replay diverged from the recorded "
			"schedule in %u of %u runs (not a failed "
			"reproduction: the execution changed)\n",
			res.diverged, res.runs);
	rc = res.stopped		       ? REPLAY_EXIT_INTERRUPTED
	     : res.reproduced && !res.diverged ? TUI_EXIT_OK
					       : TUI_EXIT_FINDINGS;
out:
	det_prog_free(p);
	rep_spec_clear(&s);
	db_close(d);
	return rc;
}

int tui_cmd_mask(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *o = tui_opt_value(cmd, a, "-o");
	int64_t id;
	db *d = NULL;
	db_run run = {0};
	db_campaign c = {0};
	db_program prog = {0};
	uint8_t *mask = NULL;
	char comment[512], dens[16];
	const char *dbpath;
	wasm_err e;
	wasm_status st;
	int rc;

	if (strcmp(a->operands[0], "save")) {
		fprintf(err,
			"heisen mask: unknown action '%s'; usage: heisen "
			"mask save RUN -o FILE\n",
			a->operands[0]);
		return TUI_EXIT_USAGE;
	}
	if (!o) {
		fprintf(err, "heisen mask save: -o FILE is required\n");
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_parse_id(cmd, "run", a->operands[1], "runs CAMPAIGN", &id,
			       err)))
		return rc;
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d,
				       &dbpath, err)))
		return rc;
	if ((st = db_run_get(d, id, &run, &e)) ||
	    (st = db_campaign_get(d, run.campaign_id, &c, &e)) ||
	    (st = db_program_get(d, c.program_id, &prog, &e))) {
		fprintf(err, "heisen mask save: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	if (c.mask_version != DET_MASK_VERSION) {
		fprintf(err,
			"heisen mask save: campaign %" PRId64 " drew its "
			"masks with mask generator version %u, this "
			"heisen with version %u: save it with the heisen "
			"that ran it\n",
			c.id, c.mask_version, DET_MASK_VERSION);
		rc = TUI_EXIT_USAGE;
		goto out;
	}
	if (!(mask = wasm_calloc(prog.nsites ? prog.nsites : 1, 1))) {
		fprintf(err, "heisen mask save: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto out;
	}
	tui_fmt_density(run.density_bp, dens, sizeof dens);
	snprintf(comment, sizeof comment,
		 "mask of run %" PRId64 " (campaign %" PRId64 ") of %s, "
		 "hash %016" PRIx64 ", %u sites\n"
		 "density %s, mask seed %016" PRIx64 ", mask version %u\n"
		 "use: heisen run PROGRAM.wasm --mask THIS_FILE",
		 run.id, c.id, prog.name, prog.hash, prog.nsites, dens,
		 run.seed, c.mask_version);
	if ((st = det_mask_make(
		 run.seed, run.density_bp, c.prune ? c.pruned : NULL,
		 c.prune ? c.npruned : prog.nsites, mask, prog.nsites, &e)) ||
	    (st = rep_write_mask(o, mask, prog.nsites, comment, &e))) {
		fprintf(err, "heisen mask save: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	{
		uint32_t n = 0;
		for (uint32_t i = 0; i < prog.nsites; i++)
			n += mask[i] != 0;
		fprintf(out, "%s: %u of %u sites of run %" PRId64 "\n", o, n,
			prog.nsites, run.id);
	}
	rc = TUI_EXIT_OK;
out:
	wasm_free(mask);
	db_run_clear(&run);
	db_campaign_clear(&c);
	db_program_clear(&prog);
	db_close(d);
	return rc;
}

/* ---- minimize ------------------------------------------------------------ */

static void on_iter(void *ctx, const rep_min_iter *it)
{
	FILE *err = ctx;

	fprintf(err,
		"iteration %u: %u -> %u sites (%u failures in %u runs%s)\n",
		it->iteration, it->before, it->after, it->failures, it->runs,
		it->significant ? ", a significant gap" : "");
	fflush(err);
}

/* Runs a blind search would need to find the set: a random subset of k
 * of the d candidates is the set with probability 1 / C(d, k), and each
 * such subset shows the failure at the set's rate. 0 when the rate is 0. */
static double random_search_runs(uint32_t d, uint32_t k, uint32_t fails,
				 uint32_t runs)
{
	double log_choose =
	    lgamma(d + 1.0) - lgamma(k + 1.0) - lgamma((double)d - k + 1.0);

	return fails && runs ? exp(log_choose) * runs / fails : 0;
}

/* "12 of 20 runs: 60.0 % (95 % interval ...)" into out, or JSON. */
static void min_rate(FILE *out, tui_json *j, const char *key, uint32_t k,
		     uint32_t n)
{
	if (j) {
		tui_json_obj(j, key);
		json_rate(j, "failed", k, n);
		tui_json_end(j, '}');
	} else if (n) {
		print_pct(out, k, n);
	} else {
		fputs("no run", out);
	}
}

int tui_cmd_minimize(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	const char *failv = tui_opt_value(cmd, a, "--failure");
	const char *budv = tui_opt_value(cmd, a, "--budget");
	const char *save = tui_opt_value(cmd, a, "--save");
	const char *profv = tui_opt_value(cmd, a, "--profile");
	const char *tov = tui_opt_value(cmd, a, "--timeout");
	const char *seedv = tui_opt_value(cmd, a, "--seed");
	const char *schedv = tui_opt_value(cmd, a, "--schedule");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	const char *path = a->operands[0];
	rep_sched_spec sched = {0};
	rep_sched_factory fac;
	char sched_name[64] = "";
	const char **argv = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	rep_min_opts o = {0};
	rep_min_result res = {0};
	uint8_t *input = NULL;
	char *input_hash = NULL;
	wasi_world world = {0};
	det_failure fail;
	det_prog *p = NULL;
	struct sigaction old;
	wasm_err e;
	wasm_status st;
	int rc = TUI_EXIT_USAGE;
	struct {
		const char *opt;
		uint32_t lo, hi, *out;
	} nums[] = {
	    {"--groups", 2, 8, &o.groups},
	    {"--repeat", 1, 1000, &o.repeat},
	    {"--jobs", 1, 256, &o.jobs},
	    {"--delay", 0, 100000000, &o.delay},
	    {"--baseline", 0, 10000000, &o.baseline},
	};

	o.groups = REP_MIN_GROUPS;
	o.repeat = REP_MIN_REPEAT;
	o.jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	o.delay = DET_DEFAULT_DELAY;
	o.timeout_s = 10;
	o.budget_s = 600;
	if (!failv) {
		fprintf(err, "heisen minimize: --failure is required: trap, "
			     "exit:N or stdout:REGEX\n");
		return TUI_EXIT_USAGE;
	}
	if ((st = det_failure_parse(failv, &fail, &e))) {
		fprintf(err, "heisen minimize: %s\n", e.msg);
		return TUI_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
		const char *v = tui_opt_value(cmd, a, nums[i].opt);
		if (v &&
		    !tui_parse_u32(v, nums[i].lo, nums[i].hi, nums[i].out)) {
			fprintf(err,
				"heisen minimize: %s expects %u to %u, got "
				"'%s'\n",
				nums[i].opt, nums[i].lo, nums[i].hi, v);
			return TUI_EXIT_USAGE;
		}
	}
	{
		const char *bad =
		    budv && !tui_parse_duration(budv, &o.budget_s) ? "--budget"
		    : tov && !tui_parse_duration(tov, &o.timeout_s)
			? "--timeout"
			: NULL;
		if (bad) {
			fprintf(err,
				"heisen minimize: %s expects a time (90s, "
				"10m, 2h), got '%s'\n",
				bad, tui_opt_value(cmd, a, bad));
			return TUI_EXIT_USAGE;
		}
	}
	if (seedv && !tui_parse_u64(seedv, &o.seed)) {
		fprintf(err,
			"heisen minimize: --seed expects a 64-bit number, "
			"got '%s'\n",
			seedv);
		return TUI_EXIT_USAGE;
	}
	if (!(o.profile = det_profile_find(profv ? profv : "default"))) {
		fprintf(err,
			"heisen minimize: unknown profile '%s' (see "
			"'heisen profiles')\n",
			profv);
		return TUI_EXIT_USAGE;
	}
	if (schedv) {
		if ((rc = tui_drawn_sched(cmd, a, "--profile", &sched, err)))
			return rc;
		/* The check's runs, and a replay of the saved set, take
		 * their schedules from this seed: the same ones. */
		sched.seed = det_seed_mix(o.seed);
		rep_sched_name(&sched, sched_name, sizeof sched_name);
		rep_sched_factory_init(&fac, &sched, NULL, 0);
		o.sched = &fac.maker;
		o.sched_seed = sched.seed;
	}
	if ((st = det_prog_load(path, &p, &e))) {
		fputs("heisen minimize: ", err);
		tui_print_err(err, path, &e);
		return tui_exit_for(st);
	}
	if (!(argv = calloc((size_t)a->noperands + 1, sizeof *argv))) {
		rc = TUI_EXIT_INTERNAL;
		goto out;
	}
	argv[0] = p->name;
	for (int i = 1; i < a->noperands; i++)
		argv[i] = a->operands[i];
	o.argv = argv;
	o.argc = (uint32_t)a->noperands;
	o.failure = &fail;
	if ((rc = tui_opt_stdin(cmd, a, &input, &o.nin, &input_hash, err)))
		goto out;
	o.in = input;
	if ((rc = tui_opt_world(cmd, a, NULL, true, &world, err)))
		goto out;
	o.world = &world;
	if (!json) {
		fprintf(err,
			"minimize %s for %s: %u candidate sites, %u groups, "
			"%u runs per configuration%s%s\n",
			path, failv, p->sites.nsites, o.groups, o.repeat,
			schedv ? ", serial runs under " : "", sched_name);
		o.on_iter = on_iter;
		o.ctx = err;
	}
	tui_sigint_stops(&old);
	st = rep_minimize(p, &o, &res, &e);
	sigaction(SIGINT, &old, NULL);
	if (st) {
		fprintf(err, "heisen minimize: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	if (save && res.nsites) {
		rep_spec s = {0};
		char *args = NULL;
		size_t alen = 1;
		for (int i = 1; i < a->noperands; i++)
			alen += strlen(a->operands[i]) + 1;
		s.program = (char *)p->name;
		s.program_hash = p->sites.hash;
		{
			struct stat sb;
			if (!stat(path, &sb))
				s.program_size = (uint64_t)sb.st_size;
		}
		s.nsites = p->sites.nsites;
		s.mode = REP_FAILURE;
		s.failure = (char *)failv;
		s.delay_sites = res.sites;
		s.ndelay = res.nsites;
		s.density_bp = DET_DENSITY_FULL;
		s.mask_version = DET_MASK_VERSION;
		s.profile = (char *)o.profile->name;
		if (schedv) {
			s.has_sched = s.sched_collide = true;
			s.sched = sched;
		}
		if ((args = calloc(1, alen))) {
			for (int i = 1, off = 0; i < a->noperands; i++) {
				strcpy(args + off, a->operands[i]);
				off += (int)strlen(a->operands[i]) + 1;
			}
		}
		s.args = args;
		s.nargs = (uint32_t)a->noperands - 1;
		s.input = input;
		s.ninput = o.nin;
		s.world = world;
		s.delay = o.delay;
		s.timeout_s = o.timeout_s;
		s.runs = res.check_runs;
		s.reproduced = res.check_failures;
		st = args ? rep_write(save, &s, &e)
			  : wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
					 "out of memory");
		free(args);
		if (st) {
			fprintf(err, "heisen minimize: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto out;
		}
	}
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.minimize/1");
		tui_json_str(&j, "program", path);
		tui_json_str(&j, "failure", failv);
		tui_json_u64(&j, "candidates", res.candidates);
		tui_json_u64(&j, "groups", o.groups);
		tui_json_u64(&j, "repeat", o.repeat);
		if (schedv)
			tui_json_str(&j, "schedule", sched_name);
		else
			tui_json_null(&j, "schedule");
		tui_json_bool(&j, "found", res.nsites > 0);
		tui_json_arr(&j, "sites");
		for (uint32_t i = 0; i < res.nsites; i++) {
			tui_json_obj(&j, NULL);
			tui_json_prog_site(&j, p, res.sites[i]);
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_u64(&j, "iterations", res.iterations);
		tui_json_u64(&j, "runs", res.runs);
		if (res.check_runs)
			min_rate(NULL, &j, "check", res.check_failures,
				 res.check_runs);
		else
			tui_json_null(&j, "check");
		if (res.base_runs) {
			min_rate(NULL, &j, "baseline", res.base_failures,
				 res.base_runs);
		} else {
			tui_json_null(&j, "baseline");
		}
		if (res.nsites && res.check_failures)
			tui_json_f64(&j, "random_search_runs",
				     random_search_runs(
					 res.candidates, res.nsites,
					 res.check_failures, res.check_runs));
		else
			tui_json_null(&j, "random_search_runs");
		tui_json_bool(&j, "stopped", res.stopped);
		tui_json_bool(&j, "out_of_time", res.out_of_time);
		if (save && res.nsites)
			tui_json_str(&j, "saved", save);
		else
			tui_json_null(&j, "saved");
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (!res.nsites) {
		fprintf(out, "%s after %" PRIu64 " runs (%u iterations): %s\n",
			res.stopped ? "stopped" : "no set found", res.runs,
			res.iterations,
			res.stopped	  ? "Ctrl-C"
			: res.out_of_time ? "the budget ran out"
			: !res.found	  ? "the failure never appeared: more "
					    "runs per configuration "
					    "(--repeat), a longer --delay or "
					    "another --profile may elicit it"
					  : "the failure stopped appearing");
	} else {
		fprintf(out,
			"found %u site%s in %" PRIu64 " runs (%u "
			"iterations):\n",
			res.nsites, res.nsites == 1 ? "" : "s", res.runs,
			res.iterations);
		for (uint32_t i = 0; i < res.nsites; i++) {
			char where[512];
			tui_prog_site_text(p, res.sites[i], where,
					   sizeof where);
			fprintf(out, "  site %u %s %s\n", res.sites[i],
				rw_kind_name(p->sites.sites[res.sites[i]].kind),
				where);
		}
		fprintf(out, "with these delays: failed in ");
		min_rate(out, NULL, NULL, res.check_failures, res.check_runs);
		fputc('\n', out);
		if (res.check_failures)
			fprintf(out,
				"a blind search of random %u-site subsets "
				"of the %u candidates would need about "
				"%.3g runs to find it (IGS: %" PRIu64 ")\n",
				res.nsites, res.candidates,
				random_search_runs(res.candidates, res.nsites,
						   res.check_failures,
						   res.check_runs),
				res.runs);
		if (res.base_runs) {
			fprintf(out, "random subsets of %u site%s: failed in ",
				res.nsites, res.nsites == 1 ? "" : "s");
			min_rate(out, NULL, NULL, res.base_failures,
				 res.base_runs);
			if (res.base_failures)
				fprintf(out, ": about %.0f runs a failure\n",
					(double)res.base_runs /
					    res.base_failures);
			else
				fprintf(out, ": none in %u runs\n",
					res.base_runs);
		}
		if (save)
			fprintf(out, "saved %s: heisen replay --file %s %s\n",
				save, save, path);
	}
	rc = res.stopped  ? REPLAY_EXIT_INTERRUPTED
	     : res.nsites ? TUI_EXIT_OK
			  : TUI_EXIT_FINDINGS;
out:
	free(argv);
	wasm_free(input);
	wasm_free(input_hash);
	wasi_world_clear(&world);
	rep_min_result_free(&res);
	det_prog_free(p);
	return rc;
}
