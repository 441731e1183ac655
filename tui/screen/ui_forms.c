/*
 * ui_forms.c - the forms: a new sweep and a replay, each a list of fields
 * that become the options of a child heisen.
 */
#include "tui/report/report.h"
#include "tui/report/race.h"
#include "tui/screen/ui.h"

#include "db/nodes.h"
#include "detector/race.h"
#include "rewriter/instrument.h"

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- forms: a new sweep, a replay --------------------------------------- */

/* A field of a form: its label, the command option it becomes, a hint;
 * with choices ("no|yes") Enter cycles through them instead of editing. */
typedef struct form_field {
	const char *label, *option, *hint, *choices;
} form_field;

#define FORM_MAX 16

/* A form: fields (the last is the start button), their values, and what
 * starting does. id: the replay form's bug. */
typedef struct form {
	const form_field *fields;
	int n, sel;
	char val[FORM_MAX][512];
	const char *prefix; /* the command line an edit completes as */
	void (*start)(tui_app *app, struct form *f);
	int64_t id;
} form;

enum {
	F_PROGRAM,
	F_ARGS,
	F_DENS,
	F_RUNS,
	F_BUDGET,
	F_PROFILES,
	F_JOBS,
	F_DELAY,
	F_TIMEOUT,
	F_PRUNE,
	F_START,
	F_N
};

static const form_field sweep_fields[F_N] = {
    [F_PROGRAM] = {"Program", NULL, "a .wasm file (Tab completes)", NULL},
    [F_ARGS] = {"Arguments", "--", "the program's arguments", NULL},
    [F_DENS] = {"Densities", "--densities", "FROM:TO:STEP or a list, in %",
		NULL},
    [F_RUNS] = {"Runs per cell", "--runs", "empty with a budget", NULL},
    [F_BUDGET] = {"Budget", "--budget", "e.g. 10m; instead of runs", NULL},
    [F_PROFILES] = {"Profiles", "--profiles", "see 'heisen profiles'", NULL},
    [F_JOBS] = {"Jobs", "--jobs", "worker processes; empty: one per CPU", NULL},
    [F_DELAY] = {"Delay", "--delay", "spin units per armed access", NULL},
    [F_TIMEOUT] = {"Timeout", "--timeout", "per run, e.g. 30s", NULL},
    [F_PRUNE] = {"Prune", "--prune",
		 "yes: arm only sites seen on shared memory", "no|yes"},
    [F_START] = {"[ Start sweep ]", NULL, "Enter or s starts", NULL},
};

enum { R_MODE, R_RUNS, R_HOLD, R_START, R_N };

static const form_field replay_fields[R_N] = {
    [R_MODE] = {"Mode", "--mode",
		"trigger forces it; pinned, minimal: how often it shows; "
		"schedule: a serial run's, exactly",
		"trigger|pinned|minimal|schedule"},
    [R_RUNS] = {"Runs", "--runs", "how many times to run it", NULL},
    [R_HOLD] = {"Hold", "--hold",
		"trigger: seconds a thread waits; empty: a tenth of a run",
		NULL},
    [R_START] = {"[ Start replay ]", NULL, "Enter or s starts", NULL},
};

static const tui_keydoc form_keys[] = {
    {"Up/Down j/k", "choose a field"},
    {"Enter", "edit the field (Esc cancels the edit), or start"},
    {"s", "start"},
    {"q Esc", "back without starting"},
    {NULL, NULL},
};

static void form_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	form *f = scr->st;
	int last = f->n - 1;

	for (int i = 0; i < f->n && 2 * i + 1 < rows; i++) {
		int attr = i == f->sel ? tui_attr(TUI_SELECTED) : (int)A_NORMAL;
		int row = y + 1 + 2 * i;
		if (i == f->sel) {
			attrset(attr);
			mvhline(row, 0, ' ', cols);
		}
		tui_put(row, 2, f->fields[i].label, 16,
			i == last ? (attr | (int)A_BOLD) : attr);
		if (i != last && cols > 20) {
			char shown[sizeof f->val[0] + 8];
			int w;
			/* A path too long for the field keeps its end. */
			if (strchr(f->val[i], '/'))
				tui_path_fit(f->val[i], cols - 22,
					     tui_app_utf8(app), shown,
					     sizeof shown);
			else
				snprintf(shown, sizeof shown, "%s", f->val[i]);
			w = tui_put(row, 20, shown, cols - 22, attr);
			if (!f->val[i][0] || i == f->sel)
				tui_put(row, 20 + w + (w ? 2 : 0),
					f->fields[i].hint, cols - 24 - w,
					i == f->sel ? attr : tui_attr(TUI_DIM));
		}
	}
}

static void form_edit_done(void *ctx, tui_app *app, const char *text)
{
	form *f = ctx;
	if (text)
		snprintf(f->val[f->sel], sizeof f->val[f->sel], "%s", text);
	if (text && f->sel < f->n - 1)
		f->sel++;
}

/* The next of a field's choices after its value ("no|yes": no -> yes). */
static void form_cycle(form *f)
{
	const char *c = f->fields[f->sel].choices, *at = c;
	char *v = f->val[f->sel];
	size_t n = strlen(v);

	while (at && (strncmp(at, v, n) || (at[n] && at[n] != '|')))
		at = (at = strchr(at, '|')) ? at + 1 : NULL;
	at = at && (at = strchr(at, '|')) ? at + 1 : c;
	snprintf(v, sizeof f->val[0], "%.*s", (int)strcspn(at, "|"), at);
}

/* Collect the form into sweep words and start it. */
static void sweep_start(tui_app *app, form *f)
{
	char *words[64];
	int n = 0;
	tui_words args = {0};
	wasm_err e;
	size_t pos = 0;

	if (!f->val[F_PROGRAM][0]) {
		tui_msg(app, true, "the form needs a program (a .wasm file)");
		f->sel = F_PROGRAM;
		return;
	}
	if (tui_split_words(f->val[F_ARGS], &pos, &args, &e)) {
		tui_msg(app, true, "arguments: %s", e.msg);
		f->sel = F_ARGS;
		return;
	}
	words[n++] = f->val[F_PROGRAM];
	for (int i = F_DENS; i <= F_TIMEOUT; i++)
		if (f->val[i][0]) {
			words[n++] = (char *)f->fields[i].option;
			words[n++] = f->val[i];
		}
	if (!strcmp(f->val[F_PRUNE], "yes"))
		words[n++] = "--prune";
	if (args.argc) {
		words[n++] = "--";
		for (int i = 0; i < args.argc && n < 63; i++)
			words[n++] = args.argv[i];
	}
	if (tui_sweep_start(app, words, n))
		tui_pop(app);
	tui_words_free(&args);
}

void tui_open_replay(tui_app *app, int64_t bug, const char *save,
		     char *const opts[], int nopts)
{
	char id[24], title[64];
	char *argv[24] = {"heisen", "replay", id};
	int n = bug ? 3 : 2;

	snprintf(id, sizeof id, "%" PRId64, bug);
	for (int i = 0; i < nopts && n < 16; i++)
		argv[n++] = opts[i];
	if (save) {
		argv[n++] = "--save";
		argv[n++] = (char *)save;
	}
	argv[n++] = "--progress";
	argv[n++] = "--db";
	argv[n++] = (char *)tui_app_dbpath(app);
	argv[n] = NULL;
	if (bug)
		snprintf(title, sizeof title, "%s of bug %" PRId64,
			 save ? "Repro file" : "Replay", bug);
	else
		snprintf(title, sizeof title, "Replay of run %s",
			 nopts > 1 ? opts[1] : "?");
	tui_open_output(app, title, argv);
}

static void replay_start(tui_app *app, form *f)
{
	char val[R_START][512], *opts[2 * R_START];
	int n = 0;
	int64_t bug = f->id;

	for (int i = R_MODE; i < R_START; i++)
		if (f->val[i][0]) {
			memcpy(val[i], f->val[i], sizeof val[i]);
			opts[n++] = (char *)f->fields[i].option;
			opts[n++] = val[i];
		}
	/* The output screen takes the form's place. */
	tui_pop(app);
	tui_open_replay(app, bug, NULL, opts, n);
}

static bool form_key(tui_screen *scr, tui_app *app, int ch)
{
	form *f = scr->st;

	switch (ch) {
	case KEY_UP:
	case 'k': f->sel = f->sel ? f->sel - 1 : f->n - 1; break;
	case KEY_DOWN:
	case 'j':
	case '\t': f->sel = (f->sel + 1) % f->n; break;
	case 's': f->start(app, f); return true;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
		if (f->sel == f->n - 1) {
			f->start(app, f);
			return true;
		} else if (f->fields[f->sel].choices) {
			form_cycle(f);
		} else {
			char prompt[48];
			tui_ask_spec a = {prompt,
					  f->val[f->sel],
					  f->prefix,
					  f->sel == F_PROGRAM &&
					      f->fields == sweep_fields,
					  form_edit_done,
					  NULL,
					  f,
					  false};
			snprintf(prompt, sizeof prompt,
				 "%s: ", f->fields[f->sel].label);
			tui_ask(app, &a);
		}
		break;
	default: return false;
	}
	tui_dirty(app);
	return true;
}

static void form_free(tui_screen *scr) { free(scr->st); }

static const tui_screen_ops form_ops = {
    "Form", form_keys, NULL, form_draw, form_key, NULL, form_free,
};

bool tui_open_sweep_form(tui_app *app, const char *program)
{
	form *f = calloc(1, sizeof *f);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (!f)
		return false;
	f->fields = sweep_fields;
	f->n = F_N;
	f->prefix = "sweep ";
	f->start = sweep_start;
	snprintf(f->val[F_PROGRAM], sizeof f->val[0], "%s",
		 program ? program : "");
	snprintf(f->val[F_DENS], sizeof f->val[0], "5:100:5");
	snprintf(f->val[F_RUNS], sizeof f->val[0], "5");
	det_profile_names(f->val[F_PROFILES], sizeof f->val[0], ",");
	snprintf(f->val[F_JOBS], sizeof f->val[0], "%ld", ncpu > 0 ? ncpu : 1);
	snprintf(f->val[F_DELAY], sizeof f->val[0], "%u", DET_DEFAULT_DELAY);
	snprintf(f->val[F_PRUNE], sizeof f->val[0], "no");
	f->sel = program ? F_START : F_PROGRAM;
	return tui_push(app, &form_ops, f, "New sweep", false);
}

bool tui_open_replay_form(tui_app *app, int64_t bug)
{
	form *f = calloc(1, sizeof *f);
	char title[48];

	if (!f)
		return false;
	f->fields = replay_fields;
	f->n = R_N;
	f->prefix = "replay ";
	f->start = replay_start;
	f->id = bug;
	snprintf(f->val[R_MODE], sizeof f->val[0], "trigger");
	snprintf(f->val[R_RUNS], sizeof f->val[0], "100");
	f->sel = R_START;
	snprintf(title, sizeof title, "Replay bug %" PRId64, bug);
	return tui_push(app, &form_ops, f, title, false);
}
